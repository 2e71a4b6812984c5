"""The maps in a real headless browser (Debian's chromium, every request
blocked): the overview draws only concepts; no two labels overlap at the
default zoom at 100, 300 and 1,000 concepts, and zooming in shows more;
hovering a link and clicking a concept show their evidence; the filters,
search and keyboard work; hostile names stay text; the paper map labels
only titles."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from kg.analysis import Evidence, Link, load_graph
from kg.graph import open_store
from kg.views.maps import concept_map
from kg.views.page import render_page, write_page
from tests.test_views_browser import CHROMIUM, open_page

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is missing: pip install -e '.[test]'")

HOSTILE = "<img src=x onerror=alert(1)></script>"  # under the 40 characters drawn
WORDS = "graph neural network language model retrieval augmented generation vision transformer diffusion policy reward agent".split()
TYPES = ("Method", "Method", "Method", "Task", "Dataset", "Metric")


def synthetic(concepts: int, seed: int = 0, hostile: bool = False) -> nx.Graph:
    """Concepts with names of one to four words, as many papers (dated over two years), paper i
    mentioning concept i and three to seven picked with Zipf-like popularity; a relation in one paper of ten."""
    rng = random.Random(seed)
    graph = nx.Graph()
    names = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) + f" {i}" for i in range(concepts)]
    if hostile:
        names[0] = HOSTILE  # the most popular concept: it gets a label
    for i, name in enumerate(names):
        graph.add_node(f"c{i}", kind="concept", type=TYPES[i % len(TYPES)], label=name, names=[name, f"alias{i}"])
    weights = [1 / (rank + 1) ** 0.8 for rank in range(concepts)]

    def link(source, relation, target, evidence):
        if graph.has_edge(source, target):
            graph.edges[source, target]["links"].append(Link(source, relation, target, evidence))
        else:
            graph.add_edge(source, target, links=[Link(source, relation, target, evidence)])

    for p in range(concepts):
        paper = f"p{p}"
        title = f"Paper {p} on {rng.choice(WORDS)}"
        date = f"{2024 + p % 2}-{p % 12 + 1:02d}"
        graph.add_node(paper, kind="paper", type="Paper", label=title, names=[title], titled=True, date=date)
        mentioned = sorted(set(rng.choices(range(concepts), weights, k=rng.randint(3, 7))) | {p})  # every concept in a paper
        for c in mentioned:
            link(paper, "mentions", f"c{c}", (Evidence(paper, title, f"In paper {p} we use {names[c]}."),))
        if p % 10 == 0 and len(mentioned) >= 2:
            a, b = mentioned[:2]
            link(f"c{a}", "evaluatedOn", f"c{b}", (Evidence(paper, title, f"{names[a]} is evaluated on {names[b]}."),))
    return graph


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


def map_page(tmp_path, concepts: int, **options):
    graph = synthetic(concepts, **options)
    view = concept_map(graph, limit=0)
    return graph, view, write_page(render_page(view), tmp_path / f"map-{concepts}.html")


OVERLAPS = """() => {
  const b = kgView.labelBoxes; let n = 0;
  for (let i = 0; i < b.length; i++) for (let j = i + 1; j < b.length; j++)
    if (b[i].x0 < b[j].x1 && b[j].x0 < b[i].x1 && b[i].y0 < b[j].y1 && b[j].y0 < b[i].y1) n++;
  return n;
}"""
SHOWN = "() => kgView.nodes.get({filter: n => !n.hidden}).length"
ZOOM_IN = """() => {
  // Zoom in 3x: of the nodes still on screen, how many were labelled before, and how many now.
  const net = kgView.network, canvas = document.querySelector('#network canvas');
  const before = new Set(kgView.labelBoxes.map(b => b.id));
  net.moveTo({scale: net.getScale() * 3});
  net.redraw();
  const a = net.DOMtoCanvas({x: 0, y: 0}), z = net.DOMtoCanvas({x: canvas.clientWidth, y: canvas.clientHeight});
  const pos = net.getPositions();
  const inside = Object.keys(pos).filter(id => pos[id].x >= a.x && pos[id].x <= z.x && pos[id].y >= a.y && pos[id].y <= z.y);
  const after = new Set(kgView.labelBoxes.map(b => b.id));
  return {inside: inside.length, before: inside.filter(id => before.has(id)).length, after: inside.filter(id => after.has(id)).length};
}"""


@pytest.mark.parametrize("concepts", [100, 300, 1000])
def test_labels_never_overlap_at_the_default_zoom(browser, tmp_path, concepts):
    graph, view, path = map_page(tmp_path, concepts)
    opened = open_page(browser, path)
    page = opened.page
    boxes = page.evaluate("kgView.labelBoxes")
    assert len(boxes) >= min(30, concepts // 4)  # the important ones are labelled
    assert page.evaluate(OVERLAPS) == 0
    names = {d["label"] for _, d in graph.nodes(data=True) if d["kind"] == "concept"}
    # Names (a long one cut with an ellipsis), never anything else.
    assert all(b["text"] in names or any(name.startswith(b["text"][:-1]) for name in names if b["text"][-1] == "\u2026") for b in boxes)
    # The most popular concept is labelled first; zooming in labels more (level of detail).
    assert boxes[0]["id"] == max(view.nodes, key=lambda n: (n.score, -int(n.id[1:]))).id
    zoomed = page.evaluate(ZOOM_IN)
    assert zoomed["after"] > zoomed["before"] or zoomed["before"] == zoomed["inside"]
    assert page.evaluate(OVERLAPS) == 0
    assert opened.attempted == [] and opened.errors == [] and opened.dialogs == []


def test_the_overview_of_the_corpus_draws_only_concepts(browser, extracted_store, run, tmp_path):
    out = tmp_path / "kg.html"
    code, _, err = run("viz", "--store", extracted_store, "--out", out)
    assert code == 0, err
    view = concept_map(load_graph(open_store(extracted_store)))
    opened = open_page(browser, out)
    page = opened.page
    types = page.evaluate("kgView.nodes.map(n => n.kgType)")
    assert len(types) == len(view.nodes) == 300 and set(types) <= {"Method", "Dataset", "Task", "Metric"}
    assert page.evaluate(OVERLAPS) == 0 and len(page.evaluate("kgView.labelBoxes")) >= 30
    legend = page.locator("#groups").inner_text()
    assert view.groups[0].name in legend  # communities named in words, not by colour alone
    assert opened.attempted == [] and opened.errors == [] and opened.dialogs == []


HOVERABLE_EDGE = """() => {
  // A co-occurrence link whose midpoint is clear of every node, and where that is on screen.
  const net = kgView.network, pos = net.getPositions(), box = document.getElementById('network').getBoundingClientRect();
  const points = Object.values(pos).map(p => net.canvasToDOM(p));
  for (const e of kgView.edges.get({filter: e => !e.kgTyped})) {
    const a = net.canvasToDOM(pos[e.from]), b = net.canvasToDOM(pos[e.to]);
    const m = {x: (a.x + b.x) / 2, y: (a.y + b.y) / 2};
    if (Math.hypot(a.x - b.x, a.y - b.y) > 60 && points.every(p => Math.hypot(p.x - m.x, p.y - m.y) > 25))
      return {id: e.id, x: box.left + m.x, y: box.top + m.y};
  }
}"""


def test_hover_a_link_and_click_a_concept_for_their_evidence(browser, tmp_path):
    graph, view, path = map_page(tmp_path, 100)
    opened = open_page(browser, path)
    page = opened.page
    edge = page.evaluate(HOVERABLE_EDGE)
    page.mouse.move(edge["x"], edge["y"])
    tooltip = page.locator("div.vis-tooltip")
    tooltip.wait_for(state="visible", timeout=5_000)
    text = tooltip.inner_text()
    assert "co-occurs with" in text and "mention both" in text and "\u201cIn paper " in text  # the sentences, with their papers

    related = next(n for n in view.nodes if n.related and n.trend)
    page.evaluate("id => { kgView.network.selectNodes([id]); kgView.showNode(id); }", related.id)
    info = page.locator("#info")
    assert info.locator("h3").first.inner_text() == related.label
    assert f"{related.type} \u00b7 {related.papers} papers" in info.inner_text()
    assert info.locator("svg.spark polyline").count() == 1  # its trend
    assert related.related[0].evidence[0].sentence in info.inner_text()  # a relation, with its sentence
    assert f'kg concept "{related.label}"' in info.inner_text()
    papers_before = page.evaluate("kgView.nodes.length")
    info.locator("button", has_text="Show its papers").click()
    assert page.evaluate("kgView.nodes.length") == papers_before + len({r.iri for r in related.paper_refs})
    info.locator("button", has_text="Hide its papers").click()
    assert page.evaluate("kgView.nodes.length") == papers_before
    assert opened.attempted == [] and opened.errors == [] and opened.dialogs == []


def test_filters_search_and_keyboard(browser, tmp_path):
    graph, view, path = map_page(tmp_path, 300)
    opened = open_page(browser, path)
    page = opened.page
    assert page.evaluate(SHOWN) == len(view.nodes) == 300
    first = view.groups[0]
    page.locator("#community").select_option(str(first.number))
    assert page.evaluate(SHOWN) == first.size
    page.locator("#community").select_option("")
    page.locator("#min-papers").fill("5")
    assert page.evaluate(SHOWN) == sum(1 for n in view.nodes if n.papers >= 5)
    page.locator("#min-papers").fill("1")
    # Only the last period: concepts with a paper in it.
    page.locator("#from").select_option(str(len(view.periods) - 1))
    assert page.evaluate(SHOWN) == sum(1 for n in view.nodes if n.trend[-1] >= 1)
    page.locator("#from").select_option("0")
    assert page.evaluate(SHOWN) == 300
    # Search by an alias, from the keyboard.
    target = sorted(view.nodes, key=lambda n: n.id)[7]
    alias = next(name for name in target.names if name.startswith("alias"))
    page.focus("#search")
    page.keyboard.type(alias)
    page.keyboard.press("Enter")
    assert page.locator("#info h3").first.inner_text() == target.label
    page.keyboard.press("Tab")  # on to the matches, all reachable
    assert page.evaluate("document.activeElement.closest('#matches') !== null || document.activeElement.id === 'matches'")
    assert opened.attempted == [] and opened.errors == [] and opened.dialogs == []


def test_a_hostile_name_stays_text(browser, tmp_path):
    graph, view, path = map_page(tmp_path, 100, hostile=True)
    assert HOSTILE not in path.read_text(encoding="utf-8")  # only escaped, inside the data block
    opened = open_page(browser, path)
    page = opened.page
    assert HOSTILE in [b["text"] for b in page.evaluate("kgView.labelBoxes")]  # drawn on the canvas as characters
    page.evaluate("id => kgView.showNode(id)", "c0")
    assert page.locator("#info h3").first.inner_text() == HOSTILE
    assert page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
    assert opened.dialogs == [] and opened.errors == [] and opened.attempted == []


def test_the_paper_map_labels_only_titles(browser, extracted_store, run, tmp_path):
    out = tmp_path / "papers.html"
    code, _, err = run("viz", "--papers", "--store", extracted_store, "--out", out)
    assert code == 0, err
    opened = open_page(browser, out)
    page = opened.page
    assert set(page.evaluate("kgView.nodes.map(n => n.kgType)")) == {"Paper"}
    titled = set(page.evaluate("kgView.data.nodes.filter(n => n.kgDraw).map(n => n.id)"))
    boxes = page.evaluate("kgView.labelBoxes")
    assert boxes and {b["id"] for b in boxes} <= titled and page.evaluate(OVERLAPS) == 0
    assert len(titled) < page.evaluate("kgView.nodes.length")  # the corpus has untitled papers: drawn without a label
    assert opened.attempted == [] and opened.errors == [] and opened.dialogs == []
