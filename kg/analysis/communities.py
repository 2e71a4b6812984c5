"""Topic communities of concepts: Louvain on the concept co-occurrence graph.

Seeded, so the same graph gives the same communities. Each community lists
its most connected members (weighted degree inside the community) and the
papers that mention most of them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import networkx as nx

from kg.analysis.projections import concept_cooccurrence

__all__ = ["Community", "Member", "communities"]


@dataclass(frozen=True)
class Member:
    iri: str
    label: str
    type: str
    weight: int  # papers shared with other members


@dataclass(frozen=True)
class CommunityPaper:
    iri: str
    label: str
    members: int  # how many of the community's concepts it mentions


@dataclass(frozen=True)
class Community:
    number: int  # 1 = the largest
    size: int
    members: tuple[Member, ...]  # best connected first
    papers: tuple[CommunityPaper, ...]


def communities(
    graph: nx.Graph, resolution: float = 1.0, seed: int = 0, min_size: int = 3, papers_per_community: int = 5
) -> list[Community]:
    """Communities of at least ``min_size`` concepts, largest first."""
    projected = concept_cooccurrence(graph)
    # Louvain's result depends on node and edge order; the projection's order follows Python's
    # string hashing, which changes between processes. A sorted copy makes the seed enough.
    cooccurrence = nx.Graph()
    cooccurrence.add_nodes_from(sorted(n for n in projected if projected.degree(n) > 0))
    cooccurrence.add_weighted_edges_from(sorted((min(u, v), max(u, v), w) for u, v, w in projected.edges(data="weight")))
    if cooccurrence.number_of_nodes() == 0:
        return []
    found = nx.community.louvain_communities(cooccurrence, weight="weight", resolution=resolution, seed=seed)
    found = sorted((c for c in found if len(c) >= min_size), key=lambda c: (-len(c), min(c)))
    result = []
    for number, nodes in enumerate(found, start=1):
        inner = cooccurrence.subgraph(nodes)
        members = sorted(
            (Member(n, graph.nodes[n]["label"], graph.nodes[n]["type"], int(inner.degree(n, weight="weight"))) for n in nodes),
            key=lambda m: (-m.weight, m.label, m.iri),
        )
        counts = Counter(p for n in nodes for p in graph[n] if graph.nodes[p]["kind"] == "paper")
        papers = sorted(counts, key=lambda p: (-counts[p], graph.nodes[p]["label"], p))[:papers_per_community]
        result.append(
            Community(number, len(nodes), tuple(members), tuple(CommunityPaper(p, graph.nodes[p]["label"], counts[p]) for p in papers))
        )
    return result
