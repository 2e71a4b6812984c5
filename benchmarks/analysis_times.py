"""NetworkX analysis times (kg top / communities / path / similar) on the corpus
store and on a scaled one (10x by default), against the bare NetworkX calls
they build on, measured in the same run.

For each store: ``kg.analysis.load_graph(store)`` is timed on its own (and
against its baseline: the same SPARQL reads, ``kg/analysis/queries/*.rq``,
with the rows materialised but no graph built); then, on the loaded graph,
each kg function against its baseline:

=====================  ============================================================
kg                     baseline (bare NetworkX, same graph)
=====================  ============================================================
top(pagerank)          nx.pagerank(graph)
top(degree)            nx.degree_centrality(graph)
top(betweenness)       nx.betweenness_centrality(graph, k=500 sampled sources beyond
                       1,000 nodes, seed=0), as kg calls it
communities()          nx.community.louvain_communities on the concept
                       co-occurrence projection (built beforehand, untimed)
paths(a, b, k=3)       the first 3 of nx.shortest_simple_paths(graph, a, b), unweighted
similar(paper)         nx.jaccard_coefficient(graph, (paper, p) for every other paper)
=====================  ============================================================

The ratio is kg / baseline: what kg's ranking, sorting, weighting and
evidence cost on top of the algorithm. Scaled stores come from
``scaled_graph.py`` (recurring concepts and authors shared across copies).
Every kg function and baseline runs once on the corpus graph before any
timing (imports, scipy's first call); each measure is the median of
``--repeats`` runs, or one run when the first takes over ``--budget`` s.

    python benchmarks/analysis_times.py     # prints a table, writes results/analysis_times.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scaled_graph as sg  # noqa: E402

RESULTS = sg.RESULTS / "analysis_times.json"
# The README's own examples (kg path "Yue Wang" "3D reconstruction", kg similar "OmniRe: ...").
PATH_FROM, PATH_TO = "Yue Wang", "3D reconstruction"
PAPER = "OmniRe: Omni Urban Scene Reconstruction"


def timed(fn, repeats: int, budget: float) -> tuple[dict, object]:
    runs, value = [], None
    while len(runs) < repeats:
        started = time.perf_counter()
        value = fn()
        runs.append(time.perf_counter() - started)
        if runs[0] > budget:
            break
    return {"median_s": round(statistics.median(runs), 4), "runs_s": [round(r, 4) for r in runs]}, value


def measure_store(label: str, store, args, warm_up: bool) -> dict:
    import networkx as nx

    from kg.analysis import communities, concept_cooccurrence, load_graph, paths, resolve, similar, top
    from kg.analysis.centrality import BETWEENNESS_SAMPLE, EXACT_BETWEENNESS_UP_TO
    from kg.analysis.projections import QUERIES
    from kg.query import run_query

    def sparql_reads():
        rows = 0
        for path in sorted(QUERIES.glob("*.rq")):
            result = run_query(store, path.read_text(encoding="utf-8"))
            rows += len([{v: (s[v].value if s[v] is not None else None) for v in result.variables} for s in result.raw])
        return rows

    out: dict = {"store": label, "triples": len(store)}
    if warm_up:
        load_graph(store), sparql_reads()
    load, graph = timed(lambda: load_graph(store), args.repeats, args.budget)
    reads, rows = timed(sparql_reads, args.repeats, args.budget)
    kinds = {}
    for _, data in graph.nodes(data=True):
        kinds[data["kind"]] = kinds.get(data["kind"], 0) + 1
    out["graph"] = {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges(), **kinds, "sparql_rows": rows}
    out["load_graph"] = {"kg": load, "baseline": reads, "baseline_is": "the same SPARQL reads, rows materialised, no graph"}
    sg.log(f"[{label}] load_graph {load['median_s']:.2f} s ({graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges)")

    source, target, paper = resolve(graph, PATH_FROM), resolve(graph, PATH_TO), resolve(graph, PAPER)
    sample = None if graph.number_of_nodes() <= EXACT_BETWEENNESS_UP_TO else BETWEENNESS_SAMPLE
    cooccurrence = concept_cooccurrence(graph)
    papers = [n for n, d in graph.nodes(data=True) if d["kind"] == "paper" and n != paper]
    ops = {
        "top pagerank": (lambda: top(graph, "pagerank"), lambda: nx.pagerank(graph)),
        "top degree": (lambda: top(graph, "degree"), lambda: nx.degree_centrality(graph)),
        "top betweenness": (lambda: top(graph, "betweenness"), lambda: nx.betweenness_centrality(graph, k=sample, seed=0)),
        "communities": (lambda: communities(graph), lambda: nx.community.louvain_communities(cooccurrence, weight="weight", seed=0)),
        "path (k=3)": (lambda: paths(graph, source, target), lambda: list(islice(nx.shortest_simple_paths(graph, source, target), 3))),
        "similar": (lambda: similar(graph, paper), lambda: sum(1 for _ in nx.jaccard_coefficient(graph, ((paper, p) for p in papers)))),
    }
    if warm_up:
        for kg_fn, base_fn in ops.values():
            kg_fn(), base_fn()
    out["operations"] = {}
    for name, (kg_fn, base_fn) in ops.items():
        kg_t, _ = timed(kg_fn, args.repeats, args.budget)
        base_t, _ = timed(base_fn, args.repeats, args.budget)
        out["operations"][name] = {"kg": kg_t, "baseline": base_t, "ratio_kg_to_baseline": round(kg_t["median_s"] / base_t["median_s"], 2)}
        sg.log(f"[{label}] {name}: kg {kg_t['median_s']:.3f} s, bare NetworkX {base_t['median_s']:.3f} s")
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--scale", type=int, default=10, help="the scaled store has this many times the corpus graph's triples (default: %(default)s)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per measure; the median counts (default: %(default)s)")
    parser.add_argument(
        "--budget", type=float, default=20.0, help="a measure whose first run takes longer is run once (default: %(default)s)"
    )
    parser.add_argument("--store", type=Path, default=None, help="corpus store (default: build corpus/ afresh, as `kg build -q`)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON output (default: benchmarks/results/analysis_times.json)")
    args = parser.parse_args(argv)

    from kg.graph.store import open_store

    report = {"environment": sg.environment(), "config": {"scale": args.scale, "repeats": args.repeats, "budget_s": args.budget}}
    with tempfile.TemporaryDirectory(prefix="kg-bench-analysis-") as tmp:
        workdir = Path(tmp)
        corpus, _ = sg.corpus_store(args.store, workdir)
        stores = [("corpus", open_store(corpus))]
        scaler = sg.Scaler(corpus)
        nt_path, dataset = sg.scaled_nt(scaler, scaler.source_triples * args.scale, workdir)
        scaled, _ = sg.load_store(nt_path, workdir / "scaled-store")
        stores.append((f"{args.scale}x corpus", scaled))
        report["scaled_dataset"] = dataset
        report["stores"] = [measure_store(label, store, args, warm_up=i == 0) for i, (label, store) in enumerate(stores)]

    small, big = report["stores"]
    growth = big["triples"] / small["triples"]
    headers = ["step", "store", "kg ms", "bare ms", "kg/bare", f"{args.scale}x / 1x"]
    rows = []
    for name in ["load_graph"] + list(small["operations"]):
        for s in (small, big):
            entry = s["load_graph"] if name == "load_graph" else s["operations"][name]
            other = (small["load_graph"] if name == "load_graph" else small["operations"][name])["kg"]["median_s"]
            kg_s, base_s = entry["kg"]["median_s"], entry["baseline"]["median_s"]
            rows.append(
                [
                    name,
                    s["store"],
                    f"{kg_s * 1000:,.1f}",
                    f"{base_s * 1000:,.1f}",
                    f"{kg_s / base_s:.2f}x",
                    f"{kg_s / other:.1f}x" if s is big else "",
                ]
            )
    report["growth_scaled_over_corpus"] = {
        name: round((big["operations"][name]["kg"]["median_s"] / small["operations"][name]["kg"]["median_s"]), 1)
        for name in small["operations"]
    } | {"load_graph": round(big["load_graph"]["kg"]["median_s"] / small["load_graph"]["kg"]["median_s"], 1), "triples": round(growth, 1)}
    print(
        f"\nAnalysis on the corpus store ({small['triples']:,} triples; {small['graph']['nodes']:,} nodes, {small['graph']['edges']:,} edges) "
        f"and {args.scale}x ({big['triples']:,} triples; {big['graph']['nodes']:,} nodes, {big['graph']['edges']:,} edges)"
    )
    print("load_graph's baseline: its SPARQL reads alone; the others': the bare NetworkX call (see --help);")
    print(f"last column: time on the {args.scale}x store over time on the corpus store ({growth:.1f}x the triples)\n")
    print(sg.format_table(headers, rows, left=2))
    sg.write_json(report, args.out)


if __name__ == "__main__":
    main()
