"""Pages of `kg viz` opened in a real headless browser (Debian's chromium,
driven by Playwright) with every network request blocked: they load and draw
exactly the graph's nodes and links, show a legend and a type filter, log no
error, and show hostile corpus text as text without running it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import pytest

from kg.analysis import load_graph, resolve
from kg.graph import open_store
from kg.views.page import STYLE
from tests.test_views import HOSTILE_TITLE, build_tiny_store

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run the browser tests"
)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is missing: pip install -e '.[test]'")


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


@dataclass
class Opened:
    page: object
    attempted: list[str] = field(default_factory=list)  # requests other than the page itself
    errors: list[str] = field(default_factory=list)  # console errors and uncaught exceptions
    dialogs: list[str] = field(default_factory=list)  # alert(), confirm() ...


def open_page(browser, path: Path) -> Opened:
    """Open ``path`` with every other request blocked (and recorded), wait until it is drawn."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    url = path.resolve().as_uri()
    opened = Opened(page)

    def guard(route):
        if route.request.url == url:
            route.continue_()
        else:
            opened.attempted.append(route.request.url)
            route.abort()

    page.route("**/*", guard)
    page.on(
        "request",
        lambda request: (
            request.url not in (url, *opened.attempted) and not request.url.startswith("data:") and opened.attempted.append(request.url)
        ),
    )
    page.on("console", lambda message: message.type == "error" and opened.errors.append(message.text))
    page.on("pageerror", lambda error: opened.errors.append(str(error)))

    def dialog(d):
        opened.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dialog)
    page.goto(url)
    page.wait_for_function("window.kgView && window.kgView.drawn", timeout=60_000)
    return opened


COUNTS = """() => ({
  nodes: kgView.nodes.length, edges: kgView.edges.length,
  drawnNodes: kgView.network.body.nodeIndices.length, drawnEdges: kgView.network.body.edgeIndices.length,
  shown: kgView.nodes.get({filter: n => !n.hidden}).length,
})"""

SCREEN_POSITION = """id => {
  const point = kgView.network.canvasToDOM(kgView.network.getPositions([id])[id]);
  const box = document.getElementById('network').getBoundingClientRect();
  return [box.left + point.x, box.top + point.y];
}"""


def test_corpus_neighbourhood_page(browser, extracted_store, run, tmp_path):
    page_file = tmp_path / "lora3d.html"
    code, _, err = run("viz", "--store", extracted_store, "--focus", "LoRA3D", "--depth", "2", "--out", page_file)
    assert code == 0, err
    graph = load_graph(open_store(extracted_store))
    ego = nx.ego_graph(graph, resolve(graph, "LoRA3D"), radius=2)  # what the graph says is within two hops

    opened = open_page(browser, page_file)
    page = opened.page
    counts = page.evaluate(COUNTS)
    assert counts["nodes"] == counts["drawnNodes"] == counts["shown"] == ego.number_of_nodes()
    assert counts["edges"] == counts["drawnEdges"] == ego.number_of_edges()

    # The legend, and one filter box per type (Other only when drawn).
    assert page.locator("#legend").is_visible()
    boxes = page.locator("#filter input[type=checkbox]")
    assert [boxes.nth(i).get_attribute("data-type") for i in range(boxes.count())] == [t for t in STYLE if t != "Other"]
    authors = sum(1 for n in ego if ego.nodes[n]["type"] == "Author")
    page.locator("#filter input[data-type=Author]").uncheck()
    assert page.evaluate(COUNTS)["shown"] == ego.number_of_nodes() - authors
    page.locator("#filter input[data-type=Author]").check()

    # Find the paper by part of its title; its authors and claims are shown.
    page.locator("#search").fill("low-rank self-calibration")
    page.locator("#matches li").first.click()
    assert page.locator("#info h3").first.inner_text() == "LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models"
    assert "Yue Wang" in page.locator("#info").inner_text()
    assert page.locator("#info ol li").count() >= 1  # its claims

    screenshot = tmp_path / "kg-viz-lora3d.png"
    page.locator("#fit").click()
    page.screenshot(path=str(screenshot))
    print(f"screenshot: {screenshot}")
    assert screenshot.stat().st_size > 10_000
    assert opened.attempted == [] and opened.errors == [] and opened.dialogs == []


def test_hostile_text_shows_as_text_and_runs_nothing(browser, run, tmp_path):
    store = build_tiny_store(tmp_path)
    page_file = tmp_path / "hostile.html"
    code, _, err = run("viz", "--store", store, "--whole", "--limit", "0", "--out", page_file)
    assert code == 0, err
    graph = load_graph(open_store(store))
    evil = resolve(graph, HOSTILE_TITLE)

    opened = open_page(browser, page_file)
    page = opened.page
    counts = page.evaluate(COUNTS)
    assert (counts["nodes"], counts["edges"]) == (graph.number_of_nodes(), graph.number_of_edges())
    assert (counts["drawnNodes"], counts["drawnEdges"]) == (graph.number_of_nodes(), graph.number_of_edges())

    x, y = page.evaluate(SCREEN_POSITION, evil)
    page.mouse.move(x, y)
    tooltip = page.locator("div.vis-tooltip")
    tooltip.wait_for(state="visible", timeout=5_000)
    assert tooltip.inner_text().splitlines()[0] == HOSTILE_TITLE  # the title itself, as text
    # Nothing but the line breaks innerText makes of "\n" was made from it.
    assert page.locator("div.vis-tooltip *:not(br)").count() == 0

    page.mouse.click(x, y)
    info = page.locator("#info")
    assert info.locator("h3").first.inner_text() == HOSTILE_TITLE
    assert "Eve </script><script>alert(2)</script>" in info.inner_text()  # the author, as text

    page.locator("#search").fill("onerror")
    assert page.locator("#matches li").first.inner_text().startswith(HOSTILE_TITLE)

    # The abstract's sentence with </script><img src=y onerror=...> is evidence behind Zebra: text again.
    page.mouse.move(5, 5)
    x, y = page.evaluate(SCREEN_POSITION, resolve(graph, "Zebra"))
    page.mouse.move(x, y)
    page.wait_for_function("() => document.querySelector('div.vis-tooltip').innerText.startsWith('Zebra')", timeout=5_000)
    assert "</script><img src=y onerror=alert(3)> & <b>bold</b>" in tooltip.inner_text()
    assert page.locator("div.vis-tooltip *:not(br)").count() == 0

    assert page.evaluate("() => document.querySelectorAll('img, b, iframe, object, embed').length") == 0
    assert opened.dialogs == [] and opened.errors == [] and opened.attempted == []


def test_whole_corpus_graph_page(browser, extracted_store, run, tmp_path):
    """Every node and link of the corpus graph (about 1,800 nodes: over the size where
    links lose their canvas labels) is drawn, with no error and no request."""
    page_file = tmp_path / "all.html"
    code, _, err = run("viz", "--store", extracted_store, "--whole", "--limit", "0", "--out", page_file)
    assert code == 0, err
    graph = load_graph(open_store(extracted_store))
    opened = open_page(browser, page_file)
    counts = opened.page.evaluate(COUNTS)
    assert (counts["nodes"], counts["drawnNodes"]) == (graph.number_of_nodes(), graph.number_of_nodes())
    assert (counts["edges"], counts["drawnEdges"]) == (graph.number_of_edges(), graph.number_of_edges())
    assert "Links are not labelled at this size" in opened.page.locator("#legend").inner_text()
    assert opened.attempted == [] and opened.errors == [] and opened.dialogs == []


def test_drawn_answer_page(browser, extracted_store, run, tmp_path):
    """`kg ask methods-on-dataset --dataset Waymo --viz`: the browser draws exactly the rows' nodes and
    links, a link's hover and panel give its row's sentence, and an empty answer's page says so."""
    import json

    code, out, err = run("ask", "methods-on-dataset", "--dataset", "Waymo", "--evidence", "--format", "json", "--store", extracted_store)
    assert code == 0, err
    records = json.loads(out)
    page_file = tmp_path / "waymo.html"
    code, _, err = run("ask", "methods-on-dataset", "--dataset", "Waymo", "--viz", "--out", page_file, "--store", extracted_store)
    assert code == 0, err
    nodes = {r[c] for r in records for c in ("dataset", "method", "paper")}
    links = {(r["method"], r["dataset"]) for r in records} | {(r["paper"], r["method"]) for r in records}

    opened = open_page(browser, page_file)
    page = opened.page
    counts = page.evaluate(COUNTS)
    assert counts["nodes"] == counts["drawnNodes"] == counts["shown"] == len(nodes)
    assert counts["edges"] == counts["drawnEdges"] == len(links)
    assert set(page.evaluate("() => kgView.nodes.getIds()")) == nodes
    assert {tuple(pair) for pair in page.evaluate("() => kgView.edges.get().map(e => [e.from, e.to])")} == links
    assert "Which methods were evaluated on this dataset" in page.title() and "Waymo" in page.title()

    # Click the middle of LoRA3D's evaluatedOn link: the panel quotes the row's sentence.
    lora3d = next(r for r in records if r["methodLabel"] == "LoRA3D")
    (x1, y1), (x2, y2) = (page.evaluate(SCREEN_POSITION, lora3d[c]) for c in ("method", "dataset"))
    page.mouse.click((x1 + x2) / 2, (y1 + y2) / 2)
    info = page.locator("#info")
    assert "kg:evaluatedOn" in info.locator("h3").first.inner_text()
    assert lora3d["evidenceSentence"] in info.inner_text()
    assert opened.attempted == [] and opened.errors == [] and opened.dialogs == []
    page.close()

    empty = tmp_path / "empty.html"
    code, _, err = run("query", "SELECT ?p WHERE { ?p a kg:Paper } LIMIT 0", "--viz", "--out", empty, "--store", extracted_store)
    assert code == 1
    opened = open_page(browser, empty)
    assert opened.page.evaluate(COUNTS)["nodes"] == 0
    assert "The answer has no rows" in opened.page.locator("#notice").inner_text()
    assert opened.attempted == [] and opened.errors == []
