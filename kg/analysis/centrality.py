"""The most important nodes of the graph, per type: specificity (the default),
PageRank, degree or betweenness.

Centrality is computed on the whole projected graph (papers, authors and
concepts with every supported link, :func:`kg.analysis.projections.load_graph`),
and scores are then listed per type. Betweenness is exact up to 1,000 nodes
and estimated from a seeded sample of 500 sources beyond that.

Centrality alone puts generic concepts first: "large language model",
"fine-tuning", "neural network" and "machine learning" are mentioned by many
papers, and many narrower concepts ("graph neural network") hang from them.
``specificity`` therefore weighs a concept's PageRank by how specific it is::

    PageRank × log(N / papers) / (1 + narrower)

where N is the number of papers, ``papers`` those that mention the concept
(an idf: a concept every paper mentions scores 0) and ``narrower`` the
concepts the hierarchy puts below it (a head noun of many concepts is a
family, not an idea). Concepts only one paper mentions are listed after those
that recur: PageRank rewards a paper's own coinages for the relations its
abstract states between them, but one paper's term is not yet an idea of the
corpus. Papers and authors keep their PageRank.

Measured on the shipped corpus (266 papers), the ten first methods by PageRank
are nine generic families and CLIP; by specificity, CLIP, supervised
fine-tuning, PPO, RLHF and ViT rise among them, while the tasks most papers
study (out-of-distribution detection and generalization, domain
generalization) stay in the first ten (the README lists both).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx

__all__ = ["DEFAULT_MEASURE", "MEASURES", "NODE_TYPES", "Ranked", "top"]

MEASURES = ("specificity", "pagerank", "degree", "betweenness")
DEFAULT_MEASURE = "specificity"
NODE_TYPES = ("Method", "Dataset", "Task", "Metric", "Paper", "Author")
EXACT_BETWEENNESS_UP_TO = 1000
BETWEENNESS_SAMPLE = 500


@dataclass(frozen=True)
class Ranked:
    rank: int  # within its type
    iri: str
    label: str
    type: str
    score: float
    papers: int | None  # papers that mention the concept, or that the author wrote; None for a paper


def _papers(graph: nx.Graph, node: str) -> int:
    return sum(1 for m in graph[node] if graph.nodes[m]["kind"] == "paper")


def _narrower(graph: nx.Graph, node: str) -> int:
    """How many concepts the hierarchy puts directly below ``node``."""
    return sum(1 for m in graph[node] if any(link.relation == "broader" and link.target == node for link in graph.edges[node, m]["links"]))


def _specificity(graph: nx.Graph) -> dict[str, float]:
    pagerank = nx.pagerank(graph)
    papers = max(1, sum(1 for _, data in graph.nodes(data=True) if data["kind"] == "paper"))
    scores = dict(pagerank)
    for node, data in graph.nodes(data=True):
        if data["kind"] == "concept":
            idf = math.log(papers / max(1, _papers(graph, node)))
            scores[node] = pagerank[node] * idf / (1 + _narrower(graph, node))
    return scores


def _scores(graph: nx.Graph, measure: str, seed: int) -> dict[str, float]:
    if measure == "specificity":
        return _specificity(graph)
    if measure == "pagerank":
        return nx.pagerank(graph)
    if measure == "degree":
        return nx.degree_centrality(graph)
    if measure == "betweenness":
        sample = None if graph.number_of_nodes() <= EXACT_BETWEENNESS_UP_TO else BETWEENNESS_SAMPLE
        return nx.betweenness_centrality(graph, k=sample, seed=seed)
    raise ValueError(f"unknown measure {measure!r}; choose one of {', '.join(MEASURES)}")


def top(
    graph: nx.Graph, measure: str = DEFAULT_MEASURE, types: tuple[str, ...] = NODE_TYPES, limit: int = 10, seed: int = 0
) -> list[Ranked]:
    """The ``limit`` best nodes of each of ``types`` (all when ``limit`` is 0), best first."""
    if graph.number_of_nodes() == 0:
        return []
    scores = _scores(graph, measure, seed)
    papers = {n: _papers(graph, n) for n, data in graph.nodes(data=True) if data["kind"] != "paper"}

    def order(node: str) -> tuple:
        once = measure == "specificity" and graph.nodes[node]["kind"] == "concept" and papers[node] < 2
        return (once, -scores[node], graph.nodes[node]["label"], node)

    ranked = []
    for node_type in types:
        nodes = sorted((n for n, d in graph.nodes(data=True) if d["type"] == node_type), key=order)
        for rank, node in enumerate(nodes[:limit] if limit else nodes, start=1):
            ranked.append(Ranked(rank, node, graph.nodes[node]["label"], node_type, scores[node], papers.get(node)))
    return ranked
