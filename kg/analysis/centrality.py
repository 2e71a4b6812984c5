"""The most central nodes of the graph, per type: PageRank, degree or betweenness.

Computed on the whole projected graph (papers, authors and concepts with
every supported link, :func:`kg.analysis.projections.load_graph`), so a
concept ranks high when many papers mention it and it links to other central
things; scores are then listed per type. Betweenness is exact up to 1,000
nodes and estimated from a seeded sample of 500 sources beyond that.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

__all__ = ["MEASURES", "NODE_TYPES", "Ranked", "top"]

MEASURES = ("pagerank", "degree", "betweenness")
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
    papers: int  # papers it is linked to (for a paper: 0)


def _scores(graph: nx.Graph, measure: str, seed: int) -> dict[str, float]:
    if measure == "pagerank":
        return nx.pagerank(graph)
    if measure == "degree":
        return nx.degree_centrality(graph)
    if measure == "betweenness":
        sample = None if graph.number_of_nodes() <= EXACT_BETWEENNESS_UP_TO else BETWEENNESS_SAMPLE
        return nx.betweenness_centrality(graph, k=sample, seed=seed)
    raise ValueError(f"unknown measure {measure!r}; choose one of {', '.join(MEASURES)}")


def top(graph: nx.Graph, measure: str = "pagerank", types: tuple[str, ...] = NODE_TYPES, limit: int = 10, seed: int = 0) -> list[Ranked]:
    """The ``limit`` best nodes of each of ``types`` (all when ``limit`` is 0), best first."""
    if graph.number_of_nodes() == 0:
        return []
    scores = _scores(graph, measure, seed)
    ranked = []
    for node_type in types:
        nodes = sorted(
            (n for n, d in graph.nodes(data=True) if d["type"] == node_type), key=lambda n: (-scores[n], graph.nodes[n]["label"], n)
        )
        for rank, node in enumerate(nodes[:limit] if limit else nodes, start=1):
            papers = sum(1 for m in graph[node] if graph.nodes[m]["kind"] == "paper")
            ranked.append(Ranked(rank, node, graph.nodes[node]["label"], node_type, scores[node], papers))
    return ranked
