"""Views (kg viz): what is chosen for drawing, on tiny hand-built graphs whose
answers are worked out by hand; what the page contains (escaped corpus text,
no outside reference, the same bytes for the same graph); the command.

The browser-side checks (the page drawn in chromium) are in
test_views_browser.py."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

import networkx as nx
import pytest

from kg.analysis import Evidence, Link, UnknownNameError, communities, load_graph, paths
from kg.errors import QueryError
from kg.graph import open_store
from kg.pipeline import build
from kg.records import Claim, Extraction, Mention, Relation
from kg.views import NODE_TYPES, View, ViewSpec, default_out, select_view
from kg.views.construct import construct_view
from kg.views.details import paper_details
from kg.views.layout import layout
from kg.views.page import STYLE, render_page, script_json
from kg.views.selection import MAX_EVIDENCE, NoPathError, community_view, neighbourhood, overview, path_view

# --- a hand-built graph -------------------------------------------------------------------------
#
#   Ann --author of--> Alpha --proposes--> LoRA <--mentions-- Beta <--author of-- Bob
#                      Alpha --mentions--> ImageNet           Beta --mentions--> BLEU
#   Bob --author of--> Alpha               LoRA --evaluatedOn--> ImageNet
#   Gamma --mentions--> Zebra              (a component of its own)


def _add(graph: nx.Graph, node: str, kind: str, node_type: str) -> None:
    graph.add_node(node, kind=kind, type=node_type, label=node, names=[node])


def _link(graph: nx.Graph, source: str, relation: str, target: str, sentence: str | None = None, paper: str | None = None) -> None:
    paper = paper or (source if graph.nodes[source]["kind"] == "paper" else target)
    link = Link(source, relation, target, (Evidence(paper, paper, sentence),))
    if graph.has_edge(source, target):
        graph.edges[source, target]["links"].append(link)
    else:
        graph.add_edge(source, target, links=[link])


@pytest.fixture
def hand() -> nx.Graph:
    graph = nx.Graph()
    for paper in ("Alpha", "Beta", "Gamma"):
        _add(graph, paper, "paper", "Paper")
    for author in ("Ann", "Bob"):
        _add(graph, author, "author", "Author")
    for concept, concept_type in (("LoRA", "Method"), ("ImageNet", "Dataset"), ("BLEU", "Metric"), ("Zebra", "Method")):
        _add(graph, concept, "concept", concept_type)
    _link(graph, "Ann", "author of", "Alpha")
    _link(graph, "Bob", "author of", "Alpha")
    _link(graph, "Bob", "author of", "Beta")
    _link(graph, "Alpha", "proposes", "LoRA", "We propose LoRA.")
    _link(graph, "Alpha", "mentions", "ImageNet", "LoRA is evaluated on ImageNet.")
    _link(graph, "Beta", "mentions", "LoRA", "We apply LoRA to BLEU.")
    _link(graph, "Beta", "mentions", "BLEU", "We apply LoRA to BLEU.")
    _link(graph, "LoRA", "evaluatedOn", "ImageNet", "LoRA is evaluated on ImageNet.", paper="Alpha")
    _link(graph, "Gamma", "mentions", "Zebra", "We study Zebra.")
    return graph


def ids(view: View) -> set[str]:
    return {n.id for n in view.nodes}


def pairs(view: View) -> set[frozenset]:
    return {frozenset((e.source, e.target)) for e in view.edges}


def test_overview_draws_everything_under_the_limit(hand):
    view = overview(hand, limit=0)
    assert ids(view) == set(hand) and pairs(view) == {frozenset(e) for e in hand.edges}
    assert view.notice is None and overview(hand, limit=len(hand)).notice is None


def test_overview_keeps_the_most_central_and_says_so(hand):
    rank = nx.pagerank(hand)
    best = sorted(hand, key=lambda n: (-rank[n], n))[:3]
    view = overview(hand, limit=3)
    assert ids(view) == set(best)
    assert pairs(view) == {frozenset(e) for e in hand.subgraph(best).edges}
    assert "9 nodes and 9 links" in view.notice and "--limit 0" in view.notice  # 9 and 9: the picture above
    assert [n.score for n in view.nodes] == [pytest.approx(rank[n.id]) for n in view.nodes]


def test_neighbourhood_by_depth(hand):
    one = neighbourhood(hand, "lora", depth=1)  # names are matched case-insensitively
    # LoRA's papers (Alpha, Beta) and the dataset it is evaluated on; the links among those four.
    assert ids(one) == {"LoRA", "Alpha", "Beta", "ImageNet"}
    assert pairs(one) == {frozenset(p) for p in [("Alpha", "LoRA"), ("Beta", "LoRA"), ("LoRA", "ImageNet"), ("Alpha", "ImageNet")]}
    assert [n.id for n in one.nodes if n.role] == ["LoRA"]
    two = neighbourhood(hand, "LoRA", depth=2)
    assert ids(two) == ids(one) | {"Ann", "Bob", "BLEU"}  # Gamma and Zebra are not connected
    assert nx.ego_graph(hand, "LoRA", radius=2).number_of_edges() == len(two.edges)


def test_neighbourhood_over_the_limit_keeps_the_closest(hand):
    view = neighbourhood(hand, "LoRA", depth=2, limit=4)
    assert ids(view) == {"LoRA", "Alpha", "Beta", "ImageNet"}  # the three at one hop before any at two
    assert "7 nodes within 2 hops" in view.notice  # the depth-2 neighbourhood above


def test_unknown_name_suggests_close_matches(hand):
    with pytest.raises(UnknownNameError, match="did you mean 'LoRA'"):
        neighbourhood(hand, "Lorra")


def test_path_view_draws_the_paths_kg_path_finds(hand):
    view = path_view(hand, "Ann", "BLEU", k=3)
    found = paths(hand, "Ann", "BLEU", 3)
    assert pairs(view) == {frozenset((h.source, h.target)) for p in found for h in p.hops}
    assert ids(view) == {n for p in found for h in p.hops for n in (h.source, h.target)}
    assert {n.id for n in view.nodes if n.role == "end"} == {"Ann", "BLEU"}
    with pytest.raises(NoPathError, match="no path from 'Ann' to 'Zebra'") as raised:
        path_view(hand, "Ann", "Zebra")
    assert raised.value.exit_code == 1  # as `kg path`


def test_edges_keep_relation_direction_and_evidence(hand):
    edges = {frozenset((e.source, e.target)): e for e in overview(hand, limit=0).edges}
    proposes = edges[frozenset(("Alpha", "LoRA"))]
    assert (proposes.source, proposes.relations, proposes.target, proposes.directed) == ("Alpha", ("proposes",), "LoRA", True)
    evaluated = edges[frozenset(("LoRA", "ImageNet"))]
    assert (evaluated.source, evaluated.relations) == ("LoRA", ("evaluatedOn",))
    assert evaluated.evidence == (Evidence("Alpha", "Alpha", "LoRA is evaluated on ImageNet."),)
    assert edges[frozenset(("Ann", "Alpha"))].evidence == ()  # authorship: no sentence to show


def test_nodes_count_papers_and_list_a_few_sentences(hand):
    nodes = {n.id: n for n in overview(hand, limit=0).nodes}
    lora = nodes["LoRA"]
    assert lora.papers == 2 and lora.type == "Method"  # Alpha and Beta
    # Three distinct sentences lie behind LoRA's links; MAX_EVIDENCE are listed, the rest counted.
    assert len(lora.evidence) == MAX_EVIDENCE and lora.more_evidence == 3 - MAX_EVIDENCE
    assert nodes["Alpha"].evidence == ()  # a paper shows its claims when clicked instead


def test_community_view_draws_members_and_the_papers_linking_them():
    graph = nx.Graph()
    groups = [["a1", "a2", "a3"], ["b1", "b2", "b3"]]
    for name in sum(groups, []):
        _add(graph, name, "concept", "Method")
    for number in range(6):
        _add(graph, f"p{number}", "paper", "Paper")
        for concept in groups[number % 2]:
            _link(graph, f"p{number}", "mentions", concept, f"p{number} names {concept}.")
    _add(graph, "bridge", "paper", "Paper")
    _link(graph, "bridge", "mentions", "a1", "bridge")
    _link(graph, "bridge", "mentions", "b1", "bridge")
    first = communities(graph)[0]
    view = community_view(graph, 1)
    members = {m.iri for m in first.members}
    # Its three concepts, and the three papers naming all of them; the bridge names only one.
    assert ids(view) == members | {f"p{n}" for n in range(6) if groups[n % 2][0] in members}
    assert len(view.edges) == 9  # 3 papers x 3 concepts
    with pytest.raises(Exception, match="there is no community 3: the graph has 2"):
        community_view(graph, 3)


def test_layout_is_seeded_and_places_every_node():
    graph = nx.barabasi_albert_graph(600, 2, seed=1)  # over CORE: core plus satellites
    nodes = [f"n{i:03d}" for i in graph]
    edges = [(f"n{u:03d}", f"n{v:03d}") for u, v in graph.edges]
    weights = {f"n{i:03d}": float(d) for i, d in graph.degree}
    first = layout(nodes + ["lone"], edges, weights)
    assert set(first) == set(nodes) | {"lone"}
    assert first == layout(list(reversed(nodes + ["lone"])), list(reversed(edges)), weights)
    assert len(set(first.values())) == len(first)  # no two nodes on one spot


# --- a tiny store with hostile text --------------------------------------------------------------

HOSTILE_TITLE = "<img src=x onerror=alert(1)>"
PAPERS = [
    {"id": "alpha", "title": "Alpha", "authors": ["Ann", "Bob"], "abstract": "We apply LoRA to ImageNet. LoRA is evaluated on ImageNet."},
    {"id": "beta", "title": "Beta", "authors": ["Bob", "Cid"], "abstract": "We apply LoRA to CIFAR-10."},
    {
        "id": "evil",
        "title": HOSTILE_TITLE,
        "authors": ["Eve </script><script>alert(2)</script>"],
        "abstract": "We study Zebra in </script><img src=y onerror=alert(3)> & <b>bold</b> settings. Zebra beats BLEU by far.",
    },
]
TYPES = {"LoRA": "Method", "ImageNet": "Dataset", "CIFAR-10": "Dataset", "BLEU": "Metric", "Zebra": "Method"}


class HandExtractor:
    """Every name of TYPES found in an abstract, in its sentence; LoRA evaluatedOn
    ImageNet in Alpha; the last sentence of each abstract is a claim."""

    name = "hand"

    def extract(self, papers):
        for linked in papers:
            text = linked.paper.abstract
            bounds = [(m.start(), m.end()) for m in re.finditer(r"[^.]+\.", text)]

            def sentence(at: int, bounds: list[tuple[int, int]] = bounds, text: str = text) -> tuple[int, int]:
                start, end = next((s, e) for s, e in bounds if s <= at < e)
                return start + (len(text[start:end]) - len(text[start:end].lstrip())), end

            mentions = tuple(
                Mention(name, kind, text.index(name), text.index(name) + len(name), *sentence(text.index(name)), 0.9, "hand", name)
                for name, kind in TYPES.items()
                if name in text
            )
            relations = ()
            if "evaluated on" in text:
                start, end = sentence(text.index("LoRA is"))
                relations = (Relation("LoRA", "Method", "evaluatedOn", "ImageNet", "Dataset", start, end, 0.8, "hand"),)
            start, end = sentence(bounds[-1][0] + 1)
            claims = (Claim(text[start:end], start, end, 0.9, "hand"),)
            yield Extraction(linked.iri, mentions, claims=claims, relations=relations)


def build_tiny_store(folder) -> object:
    """The three papers above (one with a hostile title, author and abstract) as a store."""
    (folder / "papers.jsonl").write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n", encoding="utf-8")
    build([folder / "papers.jsonl"], store=folder / "store", extractors=[HandExtractor()])
    return folder / "store"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_store(tmp_path_factory.mktemp("views"))


@pytest.fixture(scope="module")
def tiny_page(tiny) -> tuple[View, str]:
    store = open_store(tiny)
    view = overview(load_graph(store), limit=0)
    return view, render_page(view, paper_details(store, view.paper_ids))


def test_paper_details_come_from_the_store(tiny):
    store = open_store(tiny)
    graph = load_graph(store)
    evil = next(n for n, d in graph.nodes(data=True) if d["label"] == HOSTILE_TITLE)
    details = paper_details(store, [evil])[evil]
    assert details.title == HOSTILE_TITLE and details.authors == ("Eve </script><script>alert(2)</script>",)
    assert details.claims == ("Zebra beats BLEU by far.",)  # the hand extractor's claim: the last sentence


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each <script> and <style>."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.blocks: list[tuple[str, str]] = []
        self._open: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._open = tag if tag in ("script", "style") else None

    def handle_data(self, data):
        if self._open:
            self.blocks.append((self._open, data))

    def handle_endtag(self, tag):
        self._open = None


def _parse(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    return parser


def test_hostile_corpus_text_is_escaped(tiny_page):
    view, html = tiny_page
    parser = _parse(html)
    # The only elements are the template's: no <img>, and exactly the template's three scripts
    # (the data block, vis-network, the page's own).
    assert not [t for t, _ in parser.tags if t == "img"]
    assert [a.get("id") for t, a in parser.tags if t == "script"] == ["kg-data", None, None]
    for raw in (HOSTILE_TITLE, "<script>alert(2)", "<img src=y", "<b>bold</b>"):
        assert raw not in html
    data = json.loads(next(a for t, a in parser.blocks if t == "script"))
    labels = {n["kgLabel"] for n in data["nodes"]}
    assert HOSTILE_TITLE in labels  # the text itself survives, as data
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in html
    assert any("</script><img src=y" in e[1] for n in data["nodes"] for e in n["kgEvidence"])


def test_hostile_page_title_is_escaped(tiny):
    store = open_store(tiny)
    view = overview(load_graph(store), limit=0, title=HOSTILE_TITLE)
    html = render_page(view)
    assert HOSTILE_TITLE not in html and "<title>&lt;img src=x onerror=alert(1)&gt;</title>" in html


def test_script_json_cannot_close_its_block():
    text = script_json({"a": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!-- & \u2028"}


def test_the_page_references_nothing_outside_itself(tiny_page):
    _, html = tiny_page
    parser = _parse(html)
    outside = re.compile(r"^\s*(https?:|//|ftp:)", re.I)
    for tag, attrs in parser.tags:
        assert tag != "link" and "src" not in attrs, (tag, attrs)
        for name in ("href", "src", "action", "srcset", "poster", "data"):
            assert not outside.match(attrs.get(name) or ""), (tag, attrs)
    for kind, text in parser.blocks:
        if kind == "style":
            assert not re.search(r"url\(\s*['\"]?\s*(https?:|//)", text, re.I) and "@import" not in text
    csp = next(a["content"] for t, a in parser.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]


def test_the_csp_allows_exactly_the_page_scripts(tiny_page):
    import base64

    _, html = tiny_page
    parser = _parse(html)
    csp = next(a["content"] for t, a in parser.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    allowed = set(re.findall(r"'sha256-([^']+)'", csp))
    scripts = [text for (kind, text) in parser.blocks if kind == "script"][1:]  # the data block is not run
    assert allowed == {base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() for s in scripts}


def test_legend_styles_every_type():
    assert set(STYLE) == set(NODE_TYPES)
    assert len({colour for colour, _ in STYLE.values()}) == len(STYLE)


def test_same_graph_same_bytes(tiny, tiny_page):
    view, html = tiny_page
    store = open_store(tiny)
    again = overview(load_graph(store), limit=0)
    assert render_page(again, paper_details(store, again.paper_ids)) == html
    # ... and in other processes, whatever their string hashing.
    script = (
        "import sys, hashlib; from kg.graph import open_store; from kg.analysis import load_graph; "
        "from kg.views.selection import overview; from kg.views.details import paper_details; from kg.views.page import render_page; "
        "s = open_store(sys.argv[1]); v = overview(load_graph(s), limit=0); "
        "print(hashlib.sha256(render_page(v, paper_details(s, v.paper_ids)).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", script, str(tiny)],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert digests == {hashlib.sha256(html.encode()).hexdigest()}


def test_construct_results_are_drawn(tiny):
    store = open_store(tiny)
    graph = load_graph(store)
    view = construct_view(store, graph, "CONSTRUCT { ?paper kg:mentions ?concept } WHERE { ?paper kg:mentions ?concept }")
    rows = list(store.query("PREFIX kg: <https://w3id.org/kg/ontology#> SELECT DISTINCT ?p ?c WHERE { ?p kg:mentions ?c }"))
    assert ids(view) == {r["p"].value for r in rows} | {r["c"].value for r in rows}
    assert pairs(view) == {frozenset((r["p"].value, r["c"].value)) for r in rows}
    by_label = {n.label: n for n in view.nodes}
    assert by_label["LoRA"].type == "Method" and by_label["LoRA"].papers == 2  # named and typed from the graph
    assert {e.relations for e in view.edges} == {("kg:mentions",)}


def test_construct_claims_are_typed_and_labelled_from_the_triples(tiny):
    store = open_store(tiny)
    view = construct_view(
        store,
        load_graph(store),
        "CONSTRUCT { ?p kg:hasClaim ?c . ?c a kg:Claim ; kg:sentence ?s } WHERE { ?p kg:hasClaim ?c . ?c kg:sentence ?s }",
    )
    claims = [n for n in view.nodes if n.type == "Claim"]
    assert sorted(n.label for n in claims) == ["LoRA is evaluated on ImageNet.", "We apply LoRA to CIFAR-10.", "Zebra beats BLEU by far."]
    assert all("a kg:Claim" in n.facts for n in claims)


def test_construct_needs_a_graph_query(tiny):
    store = open_store(tiny)
    with pytest.raises(QueryError, match="CONSTRUCT or DESCRIBE .* this is a SELECT query"):
        construct_view(store, load_graph(store), "SELECT * WHERE { ?s ?p ?o }")


def test_default_out_names_what_is_drawn(tmp_path):
    assert str(default_out(ViewSpec())) == "exports/kg.html"
    assert str(default_out(ViewSpec(focus="LoRA3D"))) == "exports/kg-focus-lora3d.html"
    assert str(default_out(ViewSpec(path=("Yue Wang", "3D reconstruction")))) == "exports/kg-path-yue-wang--3d-reconstruction.html"
    assert str(default_out(ViewSpec(community=2))) == "exports/kg-community-2.html"
    assert str(default_out(ViewSpec(query=tmp_path / "Mine.rq"))) == "exports/kg-query-mine.html"


def test_select_view_dispatches(tiny, tmp_path):
    store = open_store(tiny)
    graph = load_graph(store)
    zebra = next(n for n, d in graph.nodes(data=True) if d["label"] == "Zebra")
    assert ids(select_view(store, graph, ViewSpec(focus="Zebra"))) == set(nx.ego_graph(graph, zebra))
    (tmp_path / "q.rq").write_text("CONSTRUCT { ?s kg:evaluatedOn ?o } WHERE { ?s kg:evaluatedOn ?o }")
    drawn = select_view(store, graph, ViewSpec(query=tmp_path / "q.rq"))
    assert {n.label for n in drawn.nodes} == {"LoRA", "ImageNet"} and [e.relations for e in drawn.edges] == [("kg:evaluatedOn",)]
    assert drawn.title == f"kg: {tmp_path / 'q.rq'}"


# --- the command ---------------------------------------------------------------------------------


def test_kg_viz_writes_a_page(tiny, run, tmp_path):
    out = tmp_path / "page.html"
    code, stdout, err = run("viz", "--store", tiny, "--whole", "--out", out)
    graph = load_graph(open_store(tiny))
    assert code == 0, err
    assert stdout == f"Wrote {out}: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} links (open it in a browser).\n"
    code, stdout, err = run("viz", "--store", tiny, "--out", out)  # the concept map
    concepts = sum(1 for _, d in graph.nodes(data=True) if d["kind"] == "concept")
    assert code == 0 and stdout.startswith(f"Wrote {out}: {concepts} nodes, "), err
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    code, stdout, _ = run("viz", "--store", tiny, "--focus", "lora", "--depth", "2", "--title", "Mine", "--out", out)
    assert code == 0 and "<title>Mine</title>" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args, code, message",
    [
        (("--focus", "Lorra"), 2, "kg: error: no concept, paper or author is called 'Lorra'; did you mean 'LoRA'"),
        (("--path", "Ann", "Zebra"), 1, "kg: error: no path from 'Ann' to 'Zebra' within 8 hops"),
        (("--focus", "LoRA", "--community", "1"), 2, "--focus and --community: choose one of them"),
        (("--depth", "2"), 2, "--depth goes with --focus"),
        (("--community", "9"), 2, "there is no community 9"),
        (("--query", "missing.rq"), 2, "missing.rq: cannot read the query"),
        (("--papers", "--whole"), 2, "--papers and --whole: choose one of them"),
        (("--focus", "LoRA", "--min-papers", "2"), 2, "--min-papers goes with the concept map"),
    ],
)
def test_kg_viz_bad_input(tiny, run, tmp_path, monkeypatch, args, code, message):
    monkeypatch.chdir(tmp_path)
    got, _, err = run("viz", "--store", tiny, *args)
    assert got == code and message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "exports").exists()


def test_kg_viz_query_must_construct(tiny, run, tmp_path):
    (tmp_path / "q.rq").write_text("SELECT * WHERE { ?s ?p ?o }")
    code, _, err = run("viz", "--store", tiny, "--query", tmp_path / "q.rq", "--out", tmp_path / "q.html")
    assert code == 2 and "this is a SELECT query" in err


def test_kg_build_writes_the_overview_page(workdir, run):
    code, out, err = run("build", "--no-extract", "corpus/000_ced0abb0ca10cf40.txt")
    assert code == 0, err
    page = workdir / "exports" / "kg.html"
    assert page.exists() and out.splitlines()[-1].startswith("Wrote exports/kg.html: ")
    code, out, _ = run("build", "-q", "--no-extract", "corpus/000_ced0abb0ca10cf40.txt")
    assert code == 0 and out == ""  # quiet, but the page is still written
