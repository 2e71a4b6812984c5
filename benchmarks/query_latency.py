"""Latency of every named query (kg/query/library) at 10k, 1M and 5M triples,
against rdflib's in-memory Graph on the same triples and the same queries.

The graphs are the corpus graph scaled (``scaled_graph.py``: papers, mentions,
claims copied with distinct IRIs; recurring concepts and authors shared),
loaded into an on-disk pyoxigraph Store the way `kg build` writes one
(``kg.graph.store.write_store``: ``bulk_extend``) and opened read-only, as kg
does. Each query runs with its header's example parameter ("e.g. ..."), bound
as kg binds them (``kg.query.run_query(store, sparql, params)``: SEP-0007
term substitution, ``kg/query/binding.py``); rdflib gets the same values as
``initBindings``, with each ``?NAMEKey`` bound to the value lower-cased.
Every run reads the whole answer. One warm-up run, then timed runs until
``--repeats`` or ``--budget`` seconds (at least 3); a query whose warm-up
takes longer than ``--budget`` is timed by that one run. p50/p95 are
nearest-rank.

Every query runs in a worker process that is stopped when one run passes
``--guard`` seconds (reported as "> guard"). rdflib runs every query at the
smallest size (row counts are compared there); at 1M and 5M triples only the
heaviest query, the slowest on pyoxigraph at that size, plus the slowest on
rdflib at the smallest size when that is another. For a query over 100 ms
(at ``--diagnose-at`` sizes, 1M by default), the same answers are also timed
with the values written in as constants (what the binding costs).

Targets: every query p50 <= 100 ms at 1M triples on pyoxigraph, and >= 10x
faster than rdflib on the heaviest.

    python benchmarks/query_latency.py                  # 10k, 1M, 5M; tables; results/query_latency.json
    python benchmarks/query_latency.py --sizes 5000000 --merge   # one size, merged into the JSON
    python benchmarks/query_latency.py --quick          # smoke run: 10k and 100k triples
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scaled_graph as sg  # noqa: E402

RESULTS = sg.RESULTS / "query_latency.json"
TARGET_P50_MS = 100.0
TARGET_SIZE = 1_000_000
TARGET_SPEEDUP = 10.0
EXAMPLE = re.compile(r'e\.g\.\s*(?:"([^"]*)"|(<[^>]*>))')
# Values for parameters whose header gives no usable example: paper-sources'
# placeholder ("<https://w3id.org/kg/paper/...>", given the IRI of this paper)
# and shared-concepts' ?other ("given the same way").
PAPER_TITLE = "OmniRe: Omni Urban Scene Reconstruction"
OTHER_PAPER = "LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models"  # shares concepts with it (README, kg similar)


def example_params(query, paper_iri: str) -> dict[str, str]:
    """Each ``# param`` line's first "e.g." value, as a user would type it."""
    params = {}
    for name, description in query.params.items():
        match = EXAMPLE.search(description)
        value = (match[1] if match[1] is not None else match[2]) if match else None
        if value is None or "..." in value:
            value = {"paper": f"<{paper_iri}>", "other": OTHER_PAPER}.get(name)
        if value is None:
            raise SystemExit(f"{query.name}: no example value for ?{name}; add one to example_params")
        params[name] = value
    return params


def sparql_term(value: str) -> str:
    return value if value.startswith("<") and value.endswith(">") else '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def inlined(sparql: str, params: dict[str, str]) -> str:
    """The query with each parameter written into its WHERE clause as a constant
    (and bound by VALUES for the projection): the same answers. A diagnostic
    only (kg now binds by term substitution, which this reproduced)."""
    start = sparql.index("WHERE {") + len("WHERE {")
    end = sparql.rindex("}")
    body = sparql[start:end]
    for name, value in params.items():
        body = re.sub(rf"\?{name}\b", lambda _m, v=value: sparql_term(v), body)
    values = "".join(f"\n  VALUES ?{name} {{ {sparql_term(value)} }}" for name, value in params.items())
    return sparql[:start] + values + body + sparql[end:]


def paper_order(store, queries, params) -> list[str]:
    """Papers in the example answers, most answers first: a small graph keeps them."""
    from kg.query import run_query

    counts: dict[str, int] = {}
    for query in queries:
        result = run_query(store, query.sparql, params[query.name])
        if result.kind != "select":
            continue
        seen = {
            s[v].value for s in result.raw for v in result.variables if s[v] is not None and s[v].value.startswith(sg.KG_BASE + "paper/")
        }
        for paper in seen:
            counts[paper] = counts.get(paper, 0) + 1
    return sorted(counts, key=lambda p: (-counts[p], p))


# --- timing, in a worker process -----------------------------------------------


def worker(engine: str, source: str, jobs: list, repeats: int, budget_s: float, conn) -> None:
    """Open ``source`` (a store folder for pyoxigraph, an N-Triples file loaded into
    rdflib's Graph()), then time each (job, sparql, params). Sends ("ready", load_s,
    triples, peak_rss_mb), ("begin", job) and ("run", job, s, rows) per run, ("done",)."""
    try:
        started = time.perf_counter()
        if engine == "pyoxigraph":
            from kg.graph.store import open_store
            from kg.query import run_query

            store = open_store(source)

            def execute(sparql, params):
                result = run_query(store, sparql, params)
                return 1 if result.kind == "ask" else sum(1 for _ in result.raw)

            size = len(store)
        else:
            from rdflib import Graph, Literal, URIRef, Variable

            from kg.vocab import PREFIXES

            graph = Graph()
            graph.parse(source, format="nt")

            from kg.query.binding import KEY_SUFFIX

            def execute(sparql, params):
                bindings = {
                    Variable(k): URIRef(v[1:-1]) if v.startswith("<") and v.endswith(">") else Literal(v) for k, v in params.items()
                }
                # ?NAMEKey, as kg.query.binding binds it: the value lower-cased
                bindings.update({Variable(k + KEY_SUFFIX): Literal(v.lower()) for k, v in params.items()})
                return len(list(graph.query(sparql, initNs=PREFIXES, initBindings=bindings)))

            size = len(graph)
        conn.send(("ready", time.perf_counter() - started, size, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
        for job, sparql, params in jobs:
            runs = []
            while len(runs) < 1 + repeats and (len(runs) < 4 or sum(runs[1:]) < budget_s):
                conn.send(("begin", job))
                started = time.perf_counter()
                try:
                    rows = execute(sparql, params)
                except Exception as exc:  # e.g. rdflib's own SPARQL errors: reported, not fatal
                    conn.send(("error", job, f"{type(exc).__name__}: {exc}"[:300]))
                    break
                runs.append(time.perf_counter() - started)
                conn.send(("run", job, runs[-1], rows))
                if len(runs) == 1 and runs[0] > budget_s:
                    break  # slow: this one run is the measurement
        conn.send(("done",))
    except Exception as exc:
        conn.send(("fatal", f"{type(exc).__name__}: {exc}"[:300]))


def run_guarded(engine: str, source: Path, jobs: list, args, restart: bool = True) -> dict:
    """Time ``jobs`` in worker processes; a run past ``--guard`` (or a load past
    ``--load-guard``) is recorded and the worker is stopped; with ``restart``
    a new worker takes the jobs left."""
    out: dict = {"load": None, "jobs": {job: {"runs_s": []} for job, _, _ in jobs}}
    todo = list(jobs)
    while todo:
        ctx = mp.get_context("spawn")
        receiver, sender = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=worker, args=(engine, str(source), todo, args.repeats, args.budget, sender))
        proc.start()
        sender.close()
        current, guard = None, args.load_guard
        while True:
            if not receiver.poll(guard):
                proc.kill()
                if current is None:
                    out["load"] = {"timed_out_after_s": guard}
                    todo = []
                else:
                    out["jobs"][current]["timed_out_after_s"] = guard
                break
            try:
                message = receiver.recv()
            except EOFError:
                out["error"] = f"worker died (exit code {proc.join(5) or proc.exitcode}) during {current or 'load'}"
                todo = []
                break
            kind = message[0]
            if kind == "ready":
                if out["load"] is None:
                    out["load"] = {"seconds": round(message[1], 2), "triples": message[2], "peak_rss_mb": round(message[3])}
                    if engine == "rdflib":
                        sg.log(f"    rdflib loaded {message[2]} triples in {message[1]:.1f} s (peak RSS {message[3]:.0f} MB)")
                guard = args.guard
            elif kind == "begin":
                current = message[1]
            elif kind == "run":
                out["jobs"][message[1]]["runs_s"].append(round(message[2], 5))
                out["jobs"][message[1]]["rows"] = message[3]
            elif kind == "error":
                out["jobs"][message[1]]["error"] = message[2]
            elif kind == "fatal":
                out["error"] = message[1]
                todo = []
                break
            elif kind == "done":
                todo = []
                break
        proc.join(10)
        if proc.is_alive():
            proc.kill()
            proc.join()
        if todo:  # a run timed out: go on with the jobs after it
            names = [job for job, _, _ in todo]
            todo = todo[names.index(current) + 1 :] if restart else []
    for entry in out["jobs"].values():
        runs = entry["runs_s"]
        timed = runs[1:] if len(runs) > 1 else runs  # the first run is the warm-up unless it is the only one
        if timed and "timed_out_after_s" not in entry:
            entry["p50_ms"] = round(sg.percentile(timed, 50) * 1000, 2)
            entry["p95_ms"] = round(sg.percentile(timed, 95) * 1000, 2)
            entry["timed_runs"] = len(timed)
    return out


# --- ratios and tables ---------------------------------------------------------


def ms(entry: dict | None) -> float:
    """p50 in ms; a timed-out query counts as infinitely slow when ranking."""
    if not entry:
        return math.nan
    return entry.get("p50_ms", math.inf if "timed_out_after_s" in entry else math.nan)


def speedup(ox: dict, rdf: dict | None) -> dict | None:
    """rdflib p50 / pyoxigraph p50; "bound" says which side a guard cut off."""
    if not rdf or ("p50_ms" not in rdf and "timed_out_after_s" not in rdf):
        return None
    ox_ms = ox.get("p50_ms") or ox.get("timed_out_after_s", 0) * 1000
    rdf_ms = rdf.get("p50_ms") or rdf.get("timed_out_after_s", 0) * 1000
    if "p50_ms" not in ox and "p50_ms" not in rdf:
        return {"ratio": None, "bound": "both timed out"}
    bound = "lower" if "p50_ms" not in rdf else "upper" if "p50_ms" not in ox else None
    return {"ratio": float(f"{rdf_ms / ox_ms:.3g}"), "bound": bound}


def ratio_text(entry: dict | None) -> str:
    if not entry:
        return "-"
    if entry["ratio"] is None:
        return "both > guard"
    return {"lower": ">", "upper": "<", None: ""}[entry["bound"]] + f"{entry['ratio']:g}x"


def ms_text(entry: dict, key: str = "p50_ms") -> str:
    if key in entry:
        return f"{entry[key]:.1f}" + ("~" if entry.get("timed_runs") == 1 else "")
    if "timed_out_after_s" in entry:
        return f">{entry['timed_out_after_s']:g}s"
    return "err" if "error" in entry else "-"


def size_label(n: int) -> str:
    return f"{n / 1e6:.3g}M" if n >= 1e6 else f"{n / 1e3:.3g}k"


# --- main ----------------------------------------------------------------------


def run_size(target: int, scaler, queries, params, args, workdir: Path, rdflib_heaviest_small: str | None) -> dict:
    nt_path, dataset = sg.scaled_nt(scaler, target, workdir)
    store_path = workdir / f"store-{target}"
    store, load_s = sg.load_store(nt_path, store_path)
    del store
    dataset["pyoxigraph_write_store_s"] = round(load_s, 2)
    sg.log(f"[{target}] pyoxigraph: write_store in {load_s:.1f} s; timing {len(queries)} queries ...")
    ox = run_guarded("pyoxigraph", store_path, [(q.name, q.sparql, params[q.name]) for q in queries], args)["jobs"]
    slow = [q for q in queries if params[q.name] and not ms(ox[q.name]) <= TARGET_P50_MS and target in args.diagnose_at]
    if slow:
        sg.log(f"[{target}] over {TARGET_P50_MS:g} ms: timing {len(slow)} of them with their values inlined ...")
        variants = run_guarded("pyoxigraph", store_path, [(q.name, inlined(q.sparql, params[q.name]), {}) for q in slow], args)["jobs"]
        for name, variant in variants.items():
            ox[name]["values_inlined"] = variant
    for name, entry in ox.items():
        sg.log(
            f"    {name:24} p50 {ms_text(entry):>10} ms  rows {entry.get('rows', '-')}"
            + (f"   values inlined: {ms_text(entry['values_inlined'])} ms" if "values_inlined" in entry else "")
        )
    heaviest = max(ox, key=lambda n: (ms(ox[n]) if not math.isnan(ms(ox[n])) else -1, n))
    every = target <= args.rdflib_all_up_to
    chosen = [q for q in queries if every or q.name in (heaviest, rdflib_heaviest_small)]
    chosen.sort(key=lambda q: q.name != heaviest)
    sg.log(f"[{target}] rdflib on {'every query' if every else ', '.join(q.name for q in chosen)} ...")
    rdf = run_guarded("rdflib", nt_path, [(q.name, q.sparql, params[q.name]) for q in chosen], args, restart=every)
    for name, entry in ox.items():
        if name in rdf["jobs"]:
            entry["rdflib"] = rdf["jobs"][name]
            entry["speedup_vs_rdflib"] = speedup(entry, rdf["jobs"][name])
            if "rows" in entry["rdflib"] and "rows" in entry and entry["rdflib"]["rows"] != entry["rows"]:
                entry["rows_differ"] = f"pyoxigraph {entry.get('rows')}, rdflib {entry['rdflib']['rows']}"
    nt_path.unlink()
    return {
        "dataset": dataset,
        "heaviest_on_pyoxigraph": heaviest,
        "rdflib_load": rdf["load"],
        "rdflib_error": rdf.get("error"),
        "queries": ox,
    }


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,1000000,5000000", help="comma-separated triple counts (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="smoke run: sizes 10000,100000, 5 runs per query")
    parser.add_argument("--repeats", type=int, default=20, help="timed runs per query after one warm-up (default: %(default)s)")
    parser.add_argument(
        "--budget",
        type=float,
        default=3.0,
        help="stop repeating a query (after 3 timed runs) once they took this many seconds; "
        "a warm-up over it is the only run (default: %(default)s)",
    )
    parser.add_argument(
        "--guard", type=float, default=60.0, help="seconds one query run may take before it is stopped (default: %(default)s)"
    )
    parser.add_argument("--load-guard", type=float, default=600.0, help="seconds rdflib may take to load a graph (default: %(default)s)")
    parser.add_argument(
        "--rdflib-all-up-to",
        type=int,
        default=100_000,
        help="run every query on rdflib up to this size, above it only the heaviest (default: %(default)s)",
    )
    parser.add_argument("--store", type=Path, default=None, help="corpus store to scale (default: build corpus/ afresh, as `kg build -q`)")
    parser.add_argument(
        "--shared-min-papers",
        type=int,
        default=2,
        help="concepts/authors linked to this many papers are shared across copies (default: %(default)s)",
    )
    parser.add_argument(
        "--diagnose-at",
        default=str(TARGET_SIZE),
        help="sizes at which queries over 100 ms are also timed with values inlined (default: %(default)s)",
    )
    parser.add_argument("--merge", action="store_true", help="keep the other sizes already in the JSON output (replacing these)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON output (default: benchmarks/results/query_latency.json)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.repeats = "10000,100000", 5
    args.sizes = sorted(int(s) for s in args.sizes.split(","))
    args.diagnose_at = {int(s) for s in args.diagnose_at.split(",") if s}
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    from kg.graph.store import open_store
    from kg.query import list_queries, run_query

    previous = json.loads(args.out.read_text()) if args.merge and args.out.exists() else {}
    config = {k: (str(v) if isinstance(v, Path) else sorted(v) if isinstance(v, set) else v) for k, v in vars(args).items()}
    report = {"environment": sg.environment(), "config": config}
    if previous:
        report["earlier_runs"] = [
            {
                "sizes": [s["dataset"]["target_triples"] for s in previous.get("sizes", [])],
                "environment": previous.get("environment"),
                "config": previous.get("config"),
            }
        ] + previous.get("earlier_runs", [])
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kg-bench-queries-") as tmp:
        workdir = Path(tmp)
        corpus, build_s = sg.corpus_store(args.store, workdir)
        queries = list_queries()
        corpus_db = open_store(corpus)
        paper_iri = next(s["p"].value for s in run_query(corpus_db, "SELECT ?p ?t WHERE { ?p rdfs:label ?t }", {"t": PAPER_TITLE}).raw)
        params = {q.name: example_params(q, paper_iri) for q in queries}
        scaler = sg.Scaler(corpus, args.shared_min_papers, first=paper_order(corpus_db, queries, params))
        del corpus_db
        report["corpus"] = {"triples": scaler.source_triples, "papers": scaler.papers_per_copy, "build_s": build_s and round(build_s, 1)}
        report["params"] = params
        sizes = []
        small = None  # the slowest query on rdflib at the smallest size that ran them all
        for old in previous.get("sizes", []):
            if old["dataset"]["target_triples"] not in args.sizes and old["dataset"]["target_triples"] <= args.rdflib_all_up_to:
                small = small or max(
                    old["queries"],
                    key=lambda n: ms(old["queries"][n].get("rdflib")) if not math.isnan(ms(old["queries"][n].get("rdflib"))) else -1,
                )
        for size in args.sizes:
            sizes.append(run_size(size, scaler, queries, params, args, workdir, small))
            if size <= args.rdflib_all_up_to and small is None:
                qs = sizes[-1]["queries"]
                small = max(qs, key=lambda n: ms(qs[n].get("rdflib")) if not math.isnan(ms(qs[n].get("rdflib"))) else -1)
                sizes[-1]["heaviest_on_rdflib"] = small
    kept = [s for s in previous.get("sizes", []) if s["dataset"]["target_triples"] not in args.sizes]
    report["sizes"] = sorted(kept + sizes, key=lambda s: s["dataset"]["target_triples"])
    report["run_s"] = round(time.perf_counter() - started)
    summarize(report)
    sg.write_json(report, args.out)


def summarize(report: dict) -> None:
    sizes = report["sizes"]
    headers = ["query"]
    for s in sizes:
        label = size_label(s["dataset"]["triples"])
        headers += [f"{label} p50 ms", "p95", "rows", "vs rdflib"]
    rows = []
    for name in sizes[0]["queries"]:
        row = [name]
        for s in sizes:
            e = s["queries"].get(name, {})
            row += [ms_text(e), ms_text(e, "p95_ms"), e.get("rows", "-"), ratio_text(e.get("speedup_vs_rdflib"))]
        rows.append(row)
    print("\nNamed-query latency on pyoxigraph (kg's write_store, opened read-only, parameters bound as kg binds them)")
    print("vs rdflib = rdflib p50 / pyoxigraph p50 (> : rdflib hit the guard; < : pyoxigraph did); ~ = one timed run\n")
    print(sg.format_table(headers, rows))
    inl = [(s, n, e) for s in sizes for n, e in s["queries"].items() if "values_inlined" in e]
    if inl:
        print("\nOver 100 ms, why: the same answers (row counts shown) with the values written in as constants\n")

        def rows_of(e):
            return e.get("rows", "-") if e else ""

        print(
            sg.format_table(
                ["size", "query", "as kg runs it", "rows", "values inlined", "rows"],
                [
                    [
                        size_label(s["dataset"]["triples"]),
                        n,
                        ms_text(e),
                        rows_of(e),
                        ms_text(e["values_inlined"]),
                        rows_of(e["values_inlined"]),
                    ]
                    for s, n, e in inl
                ],
                left=2,
            )
        )
    print()
    for s in sizes:
        d, load = s["dataset"], s.get("rdflib_load") or {}
        rdf_load = f"{load['seconds']} s" if "seconds" in load else f"> {load.get('timed_out_after_s')} s"
        print(
            f"{size_label(d['triples'])} ({d['triples']} triples, {d['papers']} papers, {d['copies']} corpus copies): "
            f"write_store {d['pyoxigraph_write_store_s']} s, rdflib load {rdf_load}; heaviest on pyoxigraph: {s['heaviest_on_pyoxigraph']}"
            + (f"; on rdflib: {s['heaviest_on_rdflib']}" if s.get("heaviest_on_rdflib") else "")
        )
        for name, e in s["queries"].items():
            if "rows_differ" in e:
                print(f"  rows differ on {name}: {e['rows_differ']}")
            if (e.get("rdflib") or {}).get("error"):
                print(f"  rdflib fails on {name}: {e['rdflib']['error']}")
    target = next((s for s in sizes if s["dataset"]["target_triples"] == TARGET_SIZE), None)
    if target:
        qs = target["queries"]
        slow = {n: ms_text(e) for n, e in qs.items() if not ms(e) <= TARGET_P50_MS}
        heavy = qs[target["heaviest_on_pyoxigraph"]].get("speedup_vs_rdflib")
        met = bool(heavy and heavy["ratio"] and heavy["bound"] != "upper" and heavy["ratio"] >= TARGET_SPEEDUP)
        report["targets"] = {
            "p50_le_100ms_at_1M": {"met": not slow, "within": sorted(set(qs) - set(slow)), "missed": slow},
            "ge_10x_rdflib_on_heaviest_at_1M": {"query": target["heaviest_on_pyoxigraph"], "speedup": heavy, "met": met},
        }
        print(
            f"\nTarget p50 <= {TARGET_P50_MS:g} ms at 1M: {len(qs) - len(slow)} of {len(qs)} queries; "
            + ("met" if not slow else "missed by " + ", ".join(f"{n} ({v} ms)" for n, v in slow.items()))
        )
        print(
            f"Target >= {TARGET_SPEEDUP:g}x rdflib on the heaviest at 1M ({target['heaviest_on_pyoxigraph']}): {ratio_text(heavy)} "
            f"({'met' if met else 'missed'})"
        )


if __name__ == "__main__":
    main()
