"""The maps (the concept map `kg viz` draws by default, the paper map of
`kg viz --papers`), the trends of `kg trends` and its chart, on a hand-built
graph whose figures are worked out by hand below; dates in JSON Lines.

The pages in a browser are tested in test_maps_browser.py."""

from __future__ import annotations

import json
import math
import re

import networkx as nx
import pytest

from kg.analysis import Evidence, Link
from kg.analysis.trends import period_of, trends
from kg.corpus import jsonl
from kg.views.chart import trend_page
from kg.views.layout import MAP_SPACING, map_layout
from kg.views.maps import concept_map, paper_map
from kg.views.page import render_page

# --- a hand-built graph -------------------------------------------------------------------------
#
#   paper  date        mentions          concepts: A Method, B Dataset, C Task, D Method, E Metric
#   P1     2024        A B               papers:   A 3, B 2, C 4, D 3, E 1 (of 6)
#   P2     2024-03     A B C             together: A-B 2, A-C 2, B-C 1, C-D 2, D-E 1
#   P3     2025-01-02  A C               association strength (together x 6 / product of papers):
#   P4     2025        C D                  A-B 2.0, A-C 1.0, B-C 0.75, C-D 1.0, D-E 2.0
#   P5     2025        C D               A --evaluatedOn--> B, stated in P1
#   P6     2025        D E               P6 has no title (a derived label)

MENTIONS = {"P1": "AB", "P2": "ABC", "P3": "AC", "P4": "CD", "P5": "CD", "P6": "DE"}
DATES = {"P1": "2024", "P2": "2024-03", "P3": "2025-01-02", "P4": "2025", "P5": "2025", "P6": "2025"}
TYPES = {"A": "Method", "B": "Dataset", "C": "Task", "D": "Method", "E": "Metric"}


def _link(graph: nx.Graph, link: Link) -> None:
    if graph.has_edge(link.source, link.target):
        graph.edges[link.source, link.target]["links"].append(link)
    else:
        graph.add_edge(link.source, link.target, links=[link])


@pytest.fixture
def hand() -> nx.Graph:
    graph = nx.Graph()
    for concept, kind in TYPES.items():
        graph.add_node(concept, kind="concept", type=kind, label=concept, names=[concept, f"{concept}-alias"])
    for paper, concepts in MENTIONS.items():
        titled = paper != "P6"
        label = f"Paper {paper}" if titled else "We study D and E in a long sentence…"
        graph.add_node(paper, kind="paper", type="Paper", label=label, names=[label], titled=titled, date=DATES[paper])
        for c in concepts:
            _link(graph, Link(paper, "mentions", c, (Evidence(paper, label, f"{paper} uses {c}."),)))
    _link(graph, Link("A", "evaluatedOn", "B", (Evidence("P1", "Paper P1", "A is evaluated on B."),)))
    return graph


def edges_of(view) -> dict[frozenset, object]:
    return {frozenset((e.source, e.target)): e for e in view.edges}


def test_the_concept_map_draws_concepts_sized_by_papers(hand):
    view = concept_map(hand, limit=0)
    assert view.kind == "concepts" and {n.id for n in view.nodes} == set(TYPES)
    assert {n.id: n.papers for n in view.nodes} == {"A": 3, "B": 2, "C": 4, "D": 3, "E": 1}
    assert {n.id: n.names for n in view.nodes}["A"] == ("A", "A-alias")
    assert view.notice is None


def test_links_are_association_strength_and_the_stated_relations(hand):
    edges = edges_of(concept_map(hand, limit=0))
    assert {pair: (e.strength, e.shared) for pair, e in edges.items()} == {
        frozenset("AB"): (2.0, 2),
        frozenset("AC"): (1.0, 2),
        frozenset("BC"): (0.75, 1),
        frozenset("CD"): (1.0, 2),
        frozenset("DE"): (2.0, 1),
    }
    stated = edges[frozenset("AB")]
    assert stated.relations == ("evaluatedOn",) and stated.directed and (stated.source, stated.target) == ("A", "B")
    assert [e.sentence for e in stated.evidence] == ["A is evaluated on B."]
    cooccurring = edges[frozenset("CD")]
    assert cooccurring.relations == ("co-occurs with",) and not cooccurring.directed
    # The sentences naming each concept in papers mentioning both.
    assert {e.sentence for e in cooccurring.evidence} <= {"P4 uses C.", "P4 uses D.", "P5 uses C.", "P5 uses D."}
    assert cooccurring.evidence


def test_the_limit_keeps_the_concepts_with_most_papers_and_says_so(hand):
    view = concept_map(hand, limit=3)
    assert {n.id for n in view.nodes} == {"C", "A", "D"}  # 4, 3 and 3 papers
    assert set(edges_of(view)) == {frozenset("AC"), frozenset("CD")}
    assert "the 3 concepts with the most papers, of 5 concepts" in view.notice
    assert {n.id for n in concept_map(hand, limit=0, min_papers=3).nodes} == {"A", "C", "D"}


def test_a_concepts_panel_data(hand):
    nodes = {n.id: n for n in concept_map(hand, limit=0).nodes}
    a = nodes["A"]
    assert [(r.relation, r.outgoing, r.other) for r in a.related] == [("evaluatedOn", True, "B")]
    assert [(r.relation, r.outgoing, r.other) for r in nodes["B"].related] == [("evaluatedOn", False, "A")]
    assert a.trend == (2, 1)  # 2024, 2025
    assert {r.iri for r in a.paper_refs} == {"P1", "P2", "P3"}
    untitled = next(r for r in nodes["E"].paper_refs)
    assert untitled.iri == "P6" and not untitled.titled


def test_communities_are_named_by_their_members(hand):
    view = concept_map(hand, limit=0)
    members = {n.group for n in view.nodes}
    assert 0 not in members and len(view.groups) == len(members) >= 2
    for group in view.groups:
        inside = [n for n in view.nodes if n.group == group.number]
        assert group.size == len(inside)
        assert group.name.split(", ")[0] == max(inside, key=lambda n: (n.papers, -ord(n.id))).label


def test_the_map_is_the_same_every_time(hand):
    first = render_page(concept_map(hand, limit=0))
    assert render_page(concept_map(hand, limit=0)) == first


def test_the_paper_map_links_papers_by_rare_shared_concepts(hand):
    view = paper_map(hand, limit=0)
    assert view.kind == "papers" and {n.id for n in view.nodes} == set(MENTIONS)
    edges = edges_of(view)
    # P4 and P5 share C (4 of 6 papers) and D (3 of 6): log(6/4) + log(6/3).
    assert edges[frozenset(("P4", "P5"))].strength == round(math.log(6 / 4) + math.log(6 / 3), 3)
    assert edges[frozenset(("P4", "P5"))].facts == ("shared: D, C",)  # rarer first
    drawn = {n.id: n.drawn_label for n in view.nodes}
    assert drawn["P6"] is False and drawn["P1"] is True  # no derived label is drawn
    for group in view.groups:  # named by concepts, never by a paper's label
        assert set(group.name.split(", ")) <= set(TYPES)


def test_the_map_layout_is_seeded_spaced_and_keeps_loners_inside():
    nodes = [f"n{i}" for i in range(60)]
    edges = [(f"n{i}", f"n{i + 1}", 1.0) for i in range(40)]  # a chain, and 19 loners
    importance = {n: float(60 - i) for i, n in enumerate(nodes)}
    first = map_layout(nodes, edges, importance)
    assert map_layout(nodes, edges, importance) == first
    points = list(first.values())
    nearest = sorted(min(math.dist(p, q) for q in points if q is not p) for p in points)
    assert abs(nearest[len(nearest) // 2] - MAP_SPACING) < 1.0
    radius = max(math.dist(p, (0, 0)) for p in (first[n] for n in nodes[:41]))
    assert all(math.dist(first[n], (0, 0)) <= 1.5 * radius for n in nodes[41:])  # not flung to the rim


# --- trends --------------------------------------------------------------------------------------


def test_papers_per_period_and_growth_worked_by_hand(hand):
    found = trends(hand, "year", min_papers=3)
    assert (found.period, found.periods, found.papers, found.undated) == ("year", ("2024", "2025"), (2, 4), 0)
    by = {c.iri: c for c in found.concepts}
    assert {i: c.counts for i, c in by.items()} == {"A": (2, 1), "B": (2, 0), "C": (1, 3), "D": (0, 3), "E": (0, 1)}
    # Shares 0 -> 0.75 for D, 0.5 -> 0.75 for C, 1 -> 0.25 for A; weighted slopes over mean shares:
    assert (by["D"].growth, by["C"].growth, by["A"].growth) == (1.5, 0.375, -1.5)
    assert by["B"].growth is None and by["E"].growth is None  # under 3 papers: never ranked
    assert [c.iri for c in found.ranked()] == ["D", "C"] and [c.iri for c in found.ranked(falling=True)] == ["A"]


def test_finer_periods_leave_out_papers_without_that_precision(hand):
    found = trends(hand, "month", min_papers=1)
    assert found.periods[0] == "2024-03" and found.periods[-1] == "2025-01" and len(found.periods) == 11
    assert found.undated == 4 and sum(found.papers) == 2
    assert trends(hand, "auto").period == "year"  # most dates give only a year
    assert trends(hand, "year").min_papers == 5  # under 5,000 dated papers: 5; else one in a thousand
    assert [period_of("2025-08-18", p) for p in ("year", "quarter", "month")] == ["2025", "2025-Q3", "2025-08"]
    assert period_of("2025", "month") is None and period_of(None, "year") is None


def test_the_chart_page_is_offline_and_shows_names_as_text(hand):
    hand.nodes["A"]["label"] = "<script>alert(1)</script> $x^2$ & co"
    found = trends(hand, "year", min_papers=3)
    page = trend_page(found, [("Rising", found.ranked()), ("Falling", found.ranked(falling=True))], "t <b>")
    assert "<script" not in page.replace("<script>alert", "") and "&lt;script&gt;alert(1)&lt;/script&gt; $x^2$ &amp; co" in page
    assert re.search(r"<svg[^>]*>", page) and "default-src 'none'" in page
    assert page == trend_page(found, [("Rising", found.ranked()), ("Falling", found.ranked(falling=True))], "t <b>")


def test_kg_trends_prints_and_charts(tmp_path, run):
    from kg.pipeline import build

    records = [
        {"title": f"T{i}", "abstract": f"Abstract {i}.", "date": d} for i, d in enumerate(["2025-01-05", "2025-02-01", "2025-03-09"])
    ]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    build([tmp_path / "p.jsonl"], store=tmp_path / "store", extractors=[])
    code, out, err = run("trends", "--store", tmp_path / "store", "--format", "json", "--chart", tmp_path / "t.html")
    assert code == 0 and json.loads(out) == [] and "Wrote" in err and (tmp_path / "t.html").read_text().startswith("<!DOCTYPE html>")
    code, _, err = run("trends", "Nothing", "--store", tmp_path / "store", "--no-chart")
    assert code == 2 and "is called 'Nothing'" in err and len(err.splitlines()) == 1

    build([tmp_path / "p.jsonl"], store=tmp_path / "undated", extractors=[])
    (tmp_path / "u.jsonl").write_text(json.dumps({"abstract": "No date."}) + "\n", encoding="utf-8")
    build([tmp_path / "u.jsonl"], store=tmp_path / "undated", extractors=[])
    code, _, err = run("trends", "--store", tmp_path / "undated", "--no-chart")
    assert code != 0 and "no paper in the graph has a date" in err and len(err.splitlines()) == 1


# --- dates in JSON Lines ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "record, year, date",
    [
        ({"date": "2025-08-18"}, 2025, "2025-08-18"),
        ({"date": "2025-08"}, 2025, "2025-08"),
        ({"date": "2025"}, 2025, None),
        ({"date": "2025-08-18T10:00:00Z", "year": 2025}, 2025, "2025-08-18"),
        ({"year": 2024}, 2024, None),
    ],
)
def test_jsonl_dates(record, year, date):
    paper = next(jsonl.read(json.dumps({"abstract": "x", **record}), "f.jsonl", "0" * 64))
    assert (paper.year, paper.date) == (year, date)


@pytest.mark.parametrize(
    "record, message",
    [
        ({"date": "2025-13-01"}, "'date' must be an ISO date like 2025-08-18 or 2025-08, not '2025-13-01'"),
        ({"date": 20250818}, "'date' must be an ISO date"),
        ({"date": "2025-08-18", "year": 2024}, "'date' '2025-08-18' is not in 'year' 2024"),
    ],
)
def test_jsonl_bad_dates_are_bad_records(record, message):
    rejected = next(jsonl.read(json.dumps({"abstract": "x", **record}), "f.jsonl", "0" * 64))
    assert message in rejected.reason


def test_a_graph_without_concepts_says_how_to_see_it():
    graph = nx.Graph()
    graph.add_node("P1", kind="paper", type="Paper", label="Paper P1", names=["Paper P1"], titled=True, date=None)
    view = concept_map(graph)
    assert view.nodes == () and "`kg viz --whole` draws its papers" in view.notice


def test_dates_reach_the_graph_with_their_precision_and_conform(tmp_path, run):
    from kg.pipeline import build

    records = [{"abstract": "One.", "date": "2025-08-18"}, {"abstract": "Two.", "date": "2025-08"}, {"abstract": "Three.", "year": 2024}]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    build([tmp_path / "d.jsonl"], store=tmp_path / "store", extractors=[])
    code, out, _ = run(
        "query", "--store", tmp_path / "store", "--format", "csv", "SELECT (DATATYPE(?d) AS ?t) WHERE { ?p dcterms:issued ?d }"
    )
    assert code == 0 and sorted(out.splitlines()[1:]) == [f"http://www.w3.org/2001/XMLSchema#{t}" for t in ("date", "gYear", "gYearMonth")]
    code, out, err = run("validate", "--store", tmp_path / "store")
    assert code == 0 and out.startswith("Conforms"), err
