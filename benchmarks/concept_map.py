"""Benchmark the concept map (`kg viz`'s overview) on real builds: generation
time, page size, time to the first settled drawing in headless chromium,
labels drawn and label overlaps, at 300, 1,000 and 5,000 concepts.

    python benchmarks/concept_map.py --store shipped=.kg/store --store arxiv-20k=/tmp/arxiv-20k/store

Each ``--store NAME=PATH`` is a kg store (the shipped corpus's; a build of
``benchmarks/arxiv_sample.py --size 20000``). A size larger than the store's
concepts is drawn once with all of them. Measured, medians of ``--repeat``:

* ``graph_s``: reading the store into NetworkX (``kg.analysis.load_graph``), once per store;
* ``generate_s``: choosing the concepts, co-occurrence, communities, layout and the HTML;
* ``bytes``: the page (about 690 kB of it is vis-network);
* ``drawn_ms``: navigation start to the end of the first drawing, its labels included (physics
  is off, so that drawing is settled); targets: under 1 s at 1,000 concepts, 3 s at 5,000;
  ``drawn_spread_ms``: the fastest and slowest of the repeats (a shared machine is noisy);
* ``labels`` and ``overlaps``: label boxes drawn at the default zoom, and pairs of them that overlap.

Writes ``benchmarks/results/concept_map.json``, from which ``python3 -m cogapp
-r README.md`` renders the README's table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.views import ARGS, CHROMIUM  # noqa: E402
from kg.analysis import load_graph  # noqa: E402
from kg.graph import open_store  # noqa: E402
from kg.views.maps import concept_map  # noqa: E402
from kg.views.page import render_page  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "concept_map.json"
OVERLAPS = """() => {
  const b = kgView.labelBoxes; let n = 0;
  for (let i = 0; i < b.length; i++) for (let j = i + 1; j < b.length; j++)
    if (b[i].x0 < b[j].x1 && b[j].x0 < b[i].x1 && b[i].y0 < b[j].y1 && b[j].y0 < b[i].y1) n++;
  return n;
}"""


def browse(browser, path: Path) -> dict:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    url = path.as_uri()
    page.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
    page.goto(url)
    page.wait_for_function("window.kgView && window.kgView.drawn", timeout=300_000, polling=20)
    found = {
        "drawn_ms": page.evaluate("kgView.drawnAt"),
        "labels": page.evaluate("kgView.labelBoxes.length"),
        "overlaps": page.evaluate(OVERLAPS),
    }
    page.close()
    if errors:
        raise RuntimeError(f"{path}: {errors}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", action="append", required=True, metavar="NAME=PATH", help="a store to map (repeatable)")
    parser.add_argument("--sizes", default="300,1000,5000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for spec in args.store:
            name, _, where = spec.partition("=")
            start = time.perf_counter()
            graph = load_graph(open_store(Path(where)))
            graph_s = time.perf_counter() - start
            available = sum(1 for _, d in graph.nodes(data=True) if d["kind"] == "concept")
            drawn_sizes: set[int] = set()
            for size in (int(s) for s in args.sizes.split(",")):
                view = concept_map(graph, limit=size)
                if len(view.nodes) in drawn_sizes:
                    continue
                drawn_sizes.add(len(view.nodes))
                times, html = [], None
                for _ in range(args.repeat):
                    start = time.perf_counter()
                    page_html = render_page(concept_map(graph, limit=size))
                    times.append(time.perf_counter() - start)
                    assert html is None or page_html == html, "the page changed between runs"
                    html = page_html
                path = Path(folder) / f"{name}-{size}.html"
                path.write_text(html, encoding="utf-8")
                seen = [browse(browser, path) for _ in range(args.repeat)]
                row = {
                    "store": name,
                    "asked": size,
                    "concepts": len(view.nodes),
                    "concepts_in_graph": available,
                    "links": len(view.edges),
                    "graph_s": round(graph_s, 2),
                    "generate_s": round(statistics.median(times), 3),
                    "bytes": len(html.encode("utf-8")),
                    "drawn_ms": round(statistics.median(s["drawn_ms"] for s in seen), 1),
                    "drawn_spread_ms": [round(min(s["drawn_ms"] for s in seen)), round(max(s["drawn_ms"] for s in seen))],
                    "labels": seen[0]["labels"],
                    "overlaps": max(s["overlaps"] for s in seen),
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
        browser.close()
    result = {
        "command": "python benchmarks/concept_map.py " + " ".join(sys.argv[1:]),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "repeat": args.repeat,
        "rows": rows,
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
