"""`kg top`: the default ranking (specificity) puts specific concepts before
generic ones, on small graphs whose scores are worked out by hand and on the
shipped corpus; rows carry no column that means nothing for their type."""

from __future__ import annotations

import csv
import io
import math

import networkx as nx
import pytest

from kg.analysis import DEFAULT_MEASURE, MEASURES, top
from kg.analysis.projections import Link


def _graph(papers: int, concepts: dict[str, list[int]], broader: tuple[tuple[str, str], ...] = ()) -> nx.Graph:
    """Papers p0..p{papers-1}; each concept (all Methods) linked to the papers listed; (narrower, broader) links."""
    graph = nx.Graph()
    for number in range(papers):
        graph.add_node(f"p{number}", kind="paper", type="Paper", label=f"p{number}", names=[f"p{number}"])
    for name, linked in concepts.items():
        graph.add_node(name, kind="concept", type="Method", label=name, names=[name])
        for number in linked:
            graph.add_edge(f"p{number}", name, links=[Link(f"p{number}", "mentions", name, ())])
    for narrower, wider in broader:
        graph.add_edge(narrower, wider, links=[Link(narrower, "broader", wider, ())])
    return graph


def labels(ranked, node_type="Method") -> list[str]:
    return [r.label for r in ranked if r.type == node_type]


def test_a_concept_every_paper_mentions_ranks_below_a_specific_one():
    # "generic" is in all 4 papers, "specific" in 2 of them: PageRank puts the hub first, but
    # log(4/4) = 0 gives it no specificity, while "specific" keeps log(4/2) of its PageRank.
    graph = _graph(4, {"generic": [0, 1, 2, 3], "specific": [0, 1]})
    assert labels(top(graph, "pagerank")) == ["generic", "specific"]
    ranked = top(graph)
    assert DEFAULT_MEASURE == "specificity" and labels(ranked) == ["specific", "generic"]
    scores = {r.label: r.score for r in ranked}
    assert scores["generic"] == 0 and scores["specific"] == pytest.approx(nx.pagerank(graph)["specific"] * math.log(2))


def test_a_family_with_narrower_concepts_ranks_below_a_leaf_mentioned_as_often():
    # "network" and "LoRA" are each in 2 of 6 papers; three narrower kinds hang from "network"
    # (each in one paper of its own), which divides its score by 1 + 3.
    graph = _graph(
        6,
        {"network": [0, 1], "LoRA": [2, 3], "graph network": [4], "deep network": [5], "big network": [0]},
        broader=(("graph network", "network"), ("deep network", "network"), ("big network", "network")),
    )
    pagerank = nx.pagerank(graph)
    assert pagerank["network"] > pagerank["LoRA"]
    ranked = {r.label: r for r in top(graph, types=("Method",), limit=0)}
    assert ranked["LoRA"].rank < ranked["network"].rank
    assert ranked["network"].score == pytest.approx(pagerank["network"] * math.log(6 / 2) / 4)


def test_concepts_one_paper_mentions_come_after_those_that_recur():
    # "coined" is in one paper but linked to three concepts of it (relations), so its score
    # (PageRank x log(10/1)) beats that of "shared" (2 of 10 papers, log(10/2)); it is still
    # listed after every concept that recurs, and before the other one-paper concepts.
    graph = _graph(10, {"shared": [0, 1], "coined": [2], "a": [2], "b": [2], "c": [2]})
    for other in ("a", "b", "c"):
        graph.add_edge("coined", other, links=[Link("coined", "uses", other, ())])
    ranked = top(graph, types=("Method",), limit=0)
    scores = {r.label: r.score for r in ranked}
    assert scores["coined"] > scores["shared"]
    assert labels(ranked)[:2] == ["shared", "coined"]


def test_every_measure_ranks_and_paper_rows_carry_no_paper_count():
    graph = _graph(3, {"x": [0, 1], "y": [1, 2]})
    graph.add_node("ann", kind="author", type="Author", label="Ann", names=["Ann"])
    graph.add_edge("ann", "p0", links=[Link("ann", "author of", "p0", ())])
    for measure in MEASURES:
        ranked = top(graph, measure, limit=0)
        assert {r.type for r in ranked} == {"Method", "Paper", "Author"}, measure
        assert {r.papers for r in ranked if r.type == "Paper"} == {None}
        assert {r.label: r.papers for r in ranked if r.type != "Paper"} == {"x": 2, "y": 2, "Ann": 1}


# --- the shipped corpus -----------------------------------------------------------------------------


def _csv(out: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(out)))


def test_cli_ranks_specific_methods_first_and_leaves_paper_counts_blank_for_papers(run, extracted_store):
    code, out, err = run("top", "--type", "Method", "--type", "Paper", "--limit", "10", "--store", extracted_store, "--format", "csv")
    assert code == 0, err
    rows = _csv(out)
    assert list(rows[0]) == ["type", "rank", "label", "specificity", "papers", "iri"]
    methods = [r["label"] for r in rows if r["type"] == "Method"]
    # PageRank alone lists these families among its first ten methods (README, `kg top`)
    code, out, _ = run("top", "--by", "pagerank", "--type", "Method", "--limit", "10", "--store", extracted_store, "--format", "csv")
    by_pagerank = [r["label"] for r in _csv(out)]
    assert code == 0 and {"neural network", "machine learning", "Transformer"} <= set(by_pagerank)
    assert not {"neural network", "machine learning", "Transformer"} & set(methods)
    assert "CLIP" in methods and "CLIP" in by_pagerank and methods.index("CLIP") < by_pagerank.index("CLIP")
    assert all(int(r["papers"]) >= 2 for r in rows if r["type"] == "Method")  # ideas that recur
    assert [r["papers"] for r in rows if r["type"] == "Paper"] == [""] * 10
