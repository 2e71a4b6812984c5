"""Benchmark `kg viz` pages: generation time, file size, and time until the
page is drawn (and settled) in headless chromium, for synthetic graphs of
100, 1,000 and 5,000 nodes shaped like the corpus graph.

The synthetic graphs have the corpus graph's mix (15 % papers, 10 % authors,
75 % concepts: 68 % of them methods, 24 % tasks, 5 % datasets, 3 % metrics),
one to seven authors per paper and six to twelve concept mentions per paper,
both drawn with Zipf-like popularity so there are hubs, an evidence sentence
per mention and an evaluatedOn relation in one paper of ten. Everything is
seeded. Each graph is drawn whole (``--limit 0``), with its paper details.

Measured, as the median of ``--repeat`` runs:

* ``generate_s``: selection, layout and rendering of the page (kg.views), from
  the NetworkX graph to the HTML text; ``layout_s`` is the layout's share;
* ``bytes``: the page's size (about 690 kB of it is vis-network itself);
* ``drawn_ms``: from navigation start to the end of vis-network's first
  drawing (``performance.now()`` in the page). Physics is off (the layout is
  computed in Python), so the drawing is settled when it first appears;
* ``load_wall_s``: the same seen from outside, from ``page.goto`` to the page
  reporting it is drawn;
* ``redraw_ms``: one redraw after a zoom step, i.e. how the page responds once open.

Run ``python benchmarks/views.py`` (needs /usr/bin/chromium and playwright);
``--sizes 100,1000`` to choose, ``--repeat N``. Figures are printed and
written to ``benchmarks/results/views.json``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kg.analysis import Evidence, Link  # noqa: E402
from kg.views.layout import layout  # noqa: E402
from kg.views.model import PaperDetails  # noqa: E402
from kg.views.page import render_page  # noqa: E402
from kg.views.selection import overview  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "views.json"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CONCEPT_TYPES = [("Method", 0.68), ("Task", 0.24), ("Dataset", 0.05), ("Metric", 0.03)]
WORDS = "model learning data method task results performance training network language vision graph benchmark robust efficient".split()


def _zipf(count: int, rng: random.Random) -> list[float]:
    weights = [1.0 / (rank + 1) ** 0.9 for rank in range(count)]
    rng.shuffle(weights)
    return weights


def _sentence(rng: random.Random, name: str) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(14, 26))]
    words.insert(rng.randrange(len(words)), name)
    return " ".join(words).capitalize() + "."


def synthetic(nodes: int, seed: int = 0) -> tuple[nx.Graph, dict[str, PaperDetails]]:
    """A graph shaped like kg.analysis.load_graph's, with ``nodes`` nodes, and its papers' details."""
    rng = random.Random(seed)
    n_papers, n_authors = round(nodes * 0.15), round(nodes * 0.10)
    n_concepts = nodes - n_papers - n_authors
    graph = nx.Graph()
    papers = [f"https://w3id.org/kg/paper/{i:06x}" for i in range(n_papers)]
    authors = [f"https://w3id.org/kg/person/author-{i}" for i in range(n_authors)]
    concepts = []
    for i in range(n_concepts):
        kind = rng.choices([t for t, _ in CONCEPT_TYPES], [w for _, w in CONCEPT_TYPES])[0]
        concepts.append((f"https://w3id.org/kg/concept/{kind.lower()}-{i}", kind))
    details = {}
    for paper in papers:
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 11))).title()
        graph.add_node(paper, kind="paper", type="Paper", label=title, names=[title])
        details[paper] = PaperDetails(
            paper, title, (), "Synthetic 2025", "2025", tuple(_sentence(rng, "it") for _ in range(rng.randint(1, 4)))
        )
    for i, author in enumerate(authors):
        graph.add_node(author, kind="author", type="Author", label=f"Author {i}", names=[f"Author {i}"])
    for iri, kind in concepts:
        label = f"{kind.lower()} {iri.rsplit('-', 1)[1]}"
        graph.add_node(iri, kind="concept", type=kind, label=label, names=[label])

    def link(source: str, relation: str, target: str, paper: str, sentence: str | None) -> None:
        item = Link(source, relation, target, (Evidence(paper, graph.nodes[paper]["label"], sentence),))
        if graph.has_edge(source, target):
            graph.edges[source, target]["links"].append(item)
        else:
            graph.add_edge(source, target, links=[item])

    author_weights, concept_weights = _zipf(n_authors, rng), _zipf(n_concepts, rng)
    mentioned: dict[str, list[str]] = {p: [] for p in papers}
    for paper in papers:
        for author in set(rng.choices(authors, author_weights, k=rng.randint(1, 7))):
            link(author, "author of", paper, paper, None)
        for iri, _ in {c for c in rng.choices(concepts, concept_weights, k=rng.randint(6, 12))}:
            mentioned[paper].append(iri)
    for iri, _ in concepts:  # every concept is mentioned somewhere
        if not any(iri in m for m in mentioned.values()):
            mentioned[rng.choice(papers)].append(iri)
    for author in authors:  # every author wrote something
        if graph.degree(author) == 0:
            paper = rng.choice(papers)
            link(author, "author of", paper, paper, None)
    for paper, found in mentioned.items():
        for iri in sorted(set(found)):
            link(paper, "mentions", iri, paper, _sentence(rng, graph.nodes[iri]["label"]))
        if len(found) >= 2 and rng.random() < 0.1:
            head, tail = rng.sample(sorted(set(found)), 2)
            link(head, "evaluatedOn", tail, paper, _sentence(rng, graph.nodes[head]["label"]))
    return graph, details


def generate(graph: nx.Graph, details: dict[str, PaperDetails]) -> tuple[str, float, float]:
    start = time.perf_counter()
    view = overview(graph, limit=0)
    html = render_page(view, details)
    total = time.perf_counter() - start
    start = time.perf_counter()
    layout([n.id for n in view.nodes], [(e.source, e.target) for e in view.edges], {n.id: n.score for n in view.nodes})
    return html, total, time.perf_counter() - start


REDRAW = """() => new Promise(resolve => {
  const start = performance.now();
  kgView.network.once('afterDrawing', () => resolve(performance.now() - start));
  kgView.network.moveTo({scale: kgView.network.getScale() * 1.25});
})"""


def browse(browser, path: Path) -> dict:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    url = path.as_uri()
    page.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_function("window.kgView && window.kgView.drawn", timeout=300_000, polling=20)
    wall = time.perf_counter() - start
    drawn = page.evaluate("kgView.drawnAt")
    counts = page.evaluate("[kgView.network.body.nodeIndices.length, kgView.network.body.edgeIndices.length]")
    redraw = page.evaluate(REDRAW)
    page.close()
    if errors:
        raise RuntimeError(f"{path}: {errors}")
    return {"drawn_ms": drawn, "load_wall_s": wall, "redraw_ms": redraw, "drawn_nodes": counts[0], "drawn_edges": counts[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,5000", help="node counts, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; medians are reported")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    generate(*synthetic(50, seed=1))  # warm up: imports, the template, vis-network's text
    rows = []
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for size in (int(s) for s in args.sizes.split(",")):
            graph, details = synthetic(size)
            runs = [generate(graph, details) for _ in range(args.repeat)]
            html = runs[0][0]
            assert all(r[0] == html for r in runs), "the page changed between runs"
            path = Path(folder) / f"views-{size}.html"
            path.write_text(html, encoding="utf-8")
            seen = [browse(browser, path) for _ in range(args.repeat)]
            assert all(s["drawn_nodes"] == graph.number_of_nodes() and s["drawn_edges"] == graph.number_of_edges() for s in seen)
            row = {
                "nodes": graph.number_of_nodes(),
                "edges": graph.number_of_edges(),
                "generate_s": round(statistics.median(r[1] for r in runs), 3),
                "layout_s": round(statistics.median(r[2] for r in runs), 3),
                "bytes": len(html.encode("utf-8")),
                **{key: round(statistics.median(s[key] for s in seen), 3) for key in ("drawn_ms", "load_wall_s", "redraw_ms")},
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
        browser.close()
    header = ["nodes", "edges", "generate_s", "layout_s", "bytes", "drawn_ms", "load_wall_s", "redraw_ms"]
    print("\n" + " | ".join(header))
    for row in rows:
        print(" | ".join(str(row[h]) for h in header))
    result = {
        "command": "python benchmarks/views.py " + " ".join(sys.argv[1:]),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "versions": {name: importlib.metadata.version(name) for name in ("pyvis", "networkx", "playwright")},
        "chromium": CHROMIUM,
        "repeat": args.repeat,
        "physics": "off: the layout is computed in Python, so the first drawing is the settled one",
        "rows": rows,
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
