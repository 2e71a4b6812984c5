"""`kg viz` page generation time on the corpus store and on a scaled one (10x by
default), step by step, against pyvis's own page for the same nodes and links,
measured in the same run.

Two views: the default page (`kg viz`: the whole graph, or its 300 most
central nodes) and one neighbourhood (`kg viz --focus LoRA`). Each is drawn
the way ``kg.views.draw`` does it, with every step timed:
``kg.analysis.load_graph`` -> ``select_view`` -> ``paper_details`` ->
``render_page`` -> ``write_page``. Baselines:

* pyvis alone: a ``pyvis.network.Network`` given the same nodes and links
  (``add_node``, ``add_edges``) and its own ``generate_html()``: what
  rendering costs without kg's layout, evidence and paper details;
* ``load_graph`` alone, which every view starts with: draw / load_graph says
  how much the page adds on top of reading the graph.

The end-to-end command (`python -m kg viz --store S --out F`, a new process:
imports included) is timed once per store too. Median of ``--repeats`` runs,
after one untimed pass on the corpus store (templates, assets, imports).

    python benchmarks/viz_time.py     # prints a table, writes results/viz_time.json
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scaled_graph as sg  # noqa: E402

RESULTS = sg.RESULTS / "viz_time.json"
FOCUS = "LoRA"


def median_time(fn, repeats: int) -> tuple[float, object]:
    runs, value = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        value = fn()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs), value


def pyvis_alone(view) -> str:
    from pyvis.network import Network

    net = Network(height="100%", width="100%", cdn_resources="in_line")
    for node in view.nodes:
        net.add_node(node.id, label=node.label, group=node.type)
    net.add_edges([(e.source, e.target) for e in view.edges])
    return net.generate_html()


def measure(label: str, store_path: Path, args, workdir: Path, warm_up: bool = False) -> dict:
    from kg.analysis import load_graph
    from kg.graph.store import open_store
    from kg.views import ViewSpec, select_view
    from kg.views.details import paper_details
    from kg.views.page import render_page, write_page

    store = open_store(store_path)
    out: dict = {"store": label, "triples": len(store), "views": {}}
    load_s, graph = median_time(lambda: load_graph(store), args.repeats)
    out["load_graph_s"] = round(load_s, 4)
    for view_name, spec in (("kg viz", ViewSpec()), (f"kg viz --focus {FOCUS}", ViewSpec(focus=FOCUS))):
        if warm_up:  # first calls load templates, assets and imports: not what a page costs
            view = select_view(store, graph, spec)
            write_page(render_page(view, paper_details(store, view.paper_ids)), workdir / "page.html")
            pyvis_alone(view)
        steps = {}
        steps["select_view"], view = median_time(lambda spec=spec: select_view(store, graph, spec), args.repeats)
        steps["paper_details"], details = median_time(lambda view=view: paper_details(store, view.paper_ids), args.repeats)
        steps["render_page"], html = median_time(lambda view=view, details=details: render_page(view, details), args.repeats)
        page = workdir / "page.html"
        steps["write_page"], _ = median_time(lambda html=html, page=page: write_page(html, page), args.repeats)
        draw_s = load_s + sum(steps.values())
        pyvis_s, pyvis_html = median_time(lambda view=view: pyvis_alone(view), args.repeats)
        out["views"][view_name] = {
            "nodes": len(view.nodes),
            "edges": len(view.edges),
            "page_kb": round(len(html.encode()) / 1024),
            "steps_s": {"load_graph": round(load_s, 4)} | {k: round(v, 4) for k, v in steps.items()},
            "draw_s": round(draw_s, 4),
            "page_s": round(sum(steps.values()), 4),
            "baseline_pyvis_alone_s": round(pyvis_s, 4),
            "pyvis_page_kb": round(len(pyvis_html.encode()) / 1024),
            "page_over_pyvis": round(sum(steps.values()) / pyvis_s, 2),
            "draw_over_load_graph": round(draw_s / load_s, 2),
        }
        sg.log(
            f"[{label}] {view_name}: {len(view.nodes)} nodes; draw {draw_s:.2f} s (load_graph {load_s:.2f} s), pyvis alone {pyvis_s:.3f} s"
        )
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "kg", "viz", "--store", str(store_path), "--out", str(workdir / "cli.html")],
        check=True,
        capture_output=True,
        cwd=sg.ROOT,
    )
    out["cli_kg_viz_s"] = round(time.perf_counter() - started, 2)
    sg.log(f"[{label}] python -m kg viz: {out['cli_kg_viz_s']} s")
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--scale", type=int, default=10, help="the scaled store has this many times the corpus graph's triples (default: %(default)s)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per step; the median counts (default: %(default)s)")
    parser.add_argument("--store", type=Path, default=None, help="corpus store (default: build corpus/ afresh, as `kg build -q`)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON output (default: benchmarks/results/viz_time.json)")
    args = parser.parse_args(argv)

    report = {"environment": sg.environment(), "config": {"scale": args.scale, "repeats": args.repeats}}
    with tempfile.TemporaryDirectory(prefix="kg-bench-viz-") as tmp:
        workdir = Path(tmp)
        corpus, _ = sg.corpus_store(args.store, workdir)
        scaler = sg.Scaler(corpus)
        nt_path, dataset = sg.scaled_nt(scaler, scaler.source_triples * args.scale, workdir)
        store, _ = sg.load_store(nt_path, workdir / "scaled-store")
        del store
        report["scaled_dataset"] = dataset
        report["stores"] = [
            measure("corpus", corpus, args, workdir, warm_up=True),
            measure(f"{args.scale}x corpus", workdir / "scaled-store", args, workdir),
        ]

    rows = []
    for s in report["stores"]:
        for name, v in s["views"].items():
            st = v["steps_s"]
            rows.append(
                [
                    name,
                    s["store"],
                    v["nodes"],
                    f"{v['draw_s']:.2f}",
                    f"{st['load_graph']:.2f}",
                    f"{st['select_view']:.2f}",
                    f"{st['paper_details']:.3f}",
                    f"{st['render_page']:.3f}",
                    f"{v['baseline_pyvis_alone_s']:.3f}",
                    f"{v['page_over_pyvis']:.1f}x",
                    f"{v['draw_over_load_graph']:.2f}x",
                ]
            )
    print("\n`kg viz` page generation, in process (seconds; median of runs). page = select + details + render + write\n")
    print(
        sg.format_table(
            ["view", "store", "nodes", "draw", "load_graph", "select", "details", "render", "pyvis alone", "page/pyvis", "draw/load_graph"],
            rows,
            left=2,
        )
    )
    print(
        "\nEnd to end, `python -m kg viz` in a new process: " + ", ".join(f"{s['store']} {s['cli_kg_viz_s']} s" for s in report["stores"])
    )
    sg.write_json(report, args.out)


if __name__ == "__main__":
    main()
