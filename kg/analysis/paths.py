"""How two things are connected: the k shortest paths between two different
nodes, each hop with the statement and sentence that support it.

Paths are shortest by number of hops; among paths of one length, those
through more specific nodes (lower degree) come first, so a path through
"LoRA" is shown before one through "accuracy". ``through`` restricts the
nodes a path may pass through (its ends are always allowed), e.g. only
datasets and papers.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from itertools import islice, takewhile

import networkx as nx

from kg.analysis.projections import Evidence, Link
from kg.errors import KgError

__all__ = ["Hop", "Path", "PathError", "paths"]

# Hop count stays the main order: the specificity penalty of a whole path stays below one hop.
_PENALTY = 0.001


class PathError(KgError):
    """A path asked for between a node and itself."""


@dataclass(frozen=True)
class Hop:
    source: str
    source_label: str
    relation: str  # "mentions", "evaluatedOn", "author of", "broader" ... ("+"-joined when several)
    forward: bool  # the statement reads source -> target (else target -> source)
    target: str
    target_label: str
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class Path:
    number: int
    hops: tuple[Hop, ...]


def _hop(graph: nx.Graph, u: str, v: str) -> Hop:
    links: list[Link] = graph.edges[u, v]["links"]
    relation = "+".join(sorted({link.relation for link in links}))
    forward = any(link.source == u for link in links)
    evidence = tuple(e for link in links for e in link.evidence)
    return Hop(u, graph.nodes[u]["label"], relation, forward, v, graph.nodes[v]["label"], evidence)


def paths(graph: nx.Graph, source: str, target: str, k: int = 3, through: Collection[str] | None = None, max_hops: int = 8) -> list[Path]:
    """Up to ``k`` paths from ``source`` to ``target`` of at most ``max_hops`` hops."""
    if source == target:
        raise PathError(f"both ends are {graph.nodes[source]['label']!r}: a path needs two different things")
    if through is not None:
        allowed = {n for n, d in graph.nodes(data=True) if d["type"] in through or d["kind"] in through} | {source, target}
        graph = graph.subgraph(allowed)
    degree = dict(graph.degree())

    def cost(u: str, v: str, _data: dict) -> float:
        return 1 + _PENALTY * (math.log1p(degree[u]) + math.log1p(degree[v]))

    # Paths come shortest first (by hops: see _PENALTY), so the first one too long ends
    # the search: enumerating on would go through every simple path of the graph.
    shortest_first = nx.shortest_simple_paths(graph, source, target, weight=cost)
    try:
        found = list(islice(takewhile(lambda nodes: len(nodes) - 1 <= max_hops, shortest_first), k))
    except nx.NetworkXNoPath:
        return []
    return [Path(number, tuple(_hop(graph, u, v) for u, v in zip(nodes, nodes[1:]))) for number, nodes in enumerate(found, start=1)]
