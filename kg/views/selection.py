"""Choosing what to draw from the graph of :func:`kg.analysis.load_graph`:
the whole graph (its most central part when it is too large to read), the
neighbourhood of one node, the paths between two, or one topic community.

Every function returns a :class:`~kg.views.model.View`; names are resolved
as `kg path` resolves them (an unknown name raises
:class:`kg.analysis.UnknownNameError` with close matches). Node order is
sorted, so the same graph always gives the same view.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable

import networkx as nx

from kg.analysis import Evidence, communities, paths, resolve, top
from kg.errors import KgError
from kg.views.model import NODE_TYPES, View, ViewEdge, ViewNode

__all__ = [
    "DEFAULT_LIMIT",
    "NoPathError",
    "centrality",
    "community_view",
    "counted",
    "evidence_sample",
    "graph_node",
    "neighbourhood",
    "overview",
    "path_view",
]

#: Nodes a page draws unless asked otherwise: readable, and quick to lay out.
DEFAULT_LIMIT = 300
#: Evidence sentences listed per node or edge (the rest are counted).
MAX_EVIDENCE = 2


class NoPathError(KgError):
    """The two names asked about are not connected (exit code 1, as `kg path`)."""

    exit_code = 1


def centrality(graph: nx.Graph) -> dict[str, float]:
    """PageRank of every node, computed on the whole graph (as `kg top`)."""
    return {r.iri: r.score for r in top(graph, "pagerank", limit=0)}


def evidence_sample(evidence: Iterable[Evidence]) -> tuple[tuple[Evidence, ...], int]:
    """The first MAX_EVIDENCE distinct sentences (a link a rule states has none), and how many more."""
    unique = sorted({e for e in evidence if e.sentence}, key=lambda e: (e.paper_label, e.sentence, e.paper))
    return tuple(unique[:MAX_EVIDENCE]), max(0, len(unique) - MAX_EVIDENCE)


def graph_node(graph: nx.Graph, node: str, scores: dict[str, float], role: str = "") -> ViewNode:
    """``node`` of the graph as drawn: label, type, papers, centrality and a few sentences behind it."""
    data = graph.nodes[node]
    papers = sum(1 for m in graph[node] if graph.nodes[m]["kind"] == "paper")
    shown: tuple[Evidence, ...] = ()
    more = 0
    if data["kind"] != "paper":  # a paper's own sentences are its claims, shown when it is clicked
        shown, more = evidence_sample(e for m in graph[node] for link in graph.edges[node, m]["links"] for e in link.evidence)
    node_type = data["type"] if data["type"] in NODE_TYPES else "Other"
    return ViewNode(node, data["label"], node_type, papers, scores.get(node, 0.0), shown, more, role=role)


def _edge(graph: nx.Graph, u: str, v: str) -> ViewEdge:
    links = sorted(graph.edges[u, v]["links"], key=lambda link: (link.relation, link.source))
    source = links[0].source
    target = links[0].target
    shown, more = evidence_sample(e for link in links for e in link.evidence)
    relations = tuple(sorted({link.relation for link in links}))
    return ViewEdge(source, target, relations, all(link.source == source for link in links), shown, more)


def _view(
    graph: nx.Graph,
    nodes: Collection[str],
    scores: dict[str, float],
    title: str,
    notice: str | None = None,
    roles: dict[str, str] | None = None,
    edges: Iterable[tuple[str, str]] | None = None,
) -> View:
    """The view of ``nodes`` with the links among them (or only ``edges``)."""
    roles = roles or {}
    keep = set(nodes)
    if edges is None:
        edges = graph.subgraph(keep).edges()
    pairs = sorted({(min(u, v), max(u, v)) for u, v in edges})
    return View(
        title,
        tuple(graph_node(graph, n, scores, roles.get(n, "")) for n in sorted(keep)),
        tuple(_edge(graph, u, v) for u, v in pairs),
        notice,
    )


def counted(number: int, word: str) -> str:
    return f"{number:,} {word}{'' if number == 1 else 's'}"


def overview(graph: nx.Graph, limit: int = DEFAULT_LIMIT, title: str | None = None) -> View:
    """The whole graph; when it has more than ``limit`` nodes (0: no limit),
    its ``limit`` most central nodes and the links among them."""
    scores = centrality(graph)
    total = graph.number_of_nodes()
    if not limit or total <= limit:
        return _view(graph, list(graph), scores, title or f"kg: the whole graph ({counted(total, 'node')})")
    best = sorted(graph, key=lambda n: (-scores[n], graph.nodes[n]["label"], n))[:limit]
    notice = (
        f"The graph has {counted(total, 'node')} and {counted(graph.number_of_edges(), 'link')}, too many to read at once: "
        f"this page draws the {limit:,} most central (PageRank) and the links among them. "
        "`kg viz --limit 0` draws everything; `kg viz --focus NAME --depth 2` draws one neighbourhood, "
        "`kg viz --community N` one topic, `kg viz --path A B` how two things connect."
    )
    return _view(graph, best, scores, title or f"kg: the {limit:,} most central of {total:,} nodes", notice)


def _distances(graph: nx.Graph, centre: str, depth: int) -> dict[str, int]:
    distance = {centre: 0}
    frontier = [centre]
    for hops in range(1, depth + 1):
        frontier = sorted({m for n in frontier for m in graph[n] if m not in distance})
        distance.update((m, hops) for m in frontier)
    return distance


def neighbourhood(graph: nx.Graph, name: str, depth: int = 1, limit: int = DEFAULT_LIMIT, title: str | None = None) -> View:
    """The node called ``name`` and everything within ``depth`` hops, with the
    links among them; beyond ``limit`` nodes, the closest and most central."""
    centre = resolve(graph, name)
    label = graph.nodes[centre]["label"]
    scores = centrality(graph)
    distance = _distances(graph, centre, depth)
    keep = list(distance)
    notice = None
    if limit and len(keep) > limit:
        keep = sorted(keep, key=lambda n: (distance[n], -scores[n], graph.nodes[n]["label"], n))[:limit]
        notice = (
            f"{label!r} has {counted(len(distance), 'node')} within {counted(depth, 'hop')}; this page draws the "
            f"{limit:,} closest (most central first). `--limit 0` draws all of them, a smaller --depth fewer."
        )
    default_title = f"kg: {label} and its neighbourhood ({counted(depth, 'hop')})"
    return _view(graph, keep, scores, title or default_title, notice, {centre: "focus"})


def path_view(
    graph: nx.Graph,
    source: str,
    target: str,
    k: int = 3,
    through: Collection[str] | None = None,
    max_hops: int = 8,
    title: str | None = None,
) -> View:
    """The ``k`` shortest paths between two names, exactly as `kg path` finds them."""
    start, end = resolve(graph, source), resolve(graph, target)
    found = paths(graph, start, end, k, through, max_hops)
    if not found:
        raise NoPathError(
            f"no path from {source!r} to {target!r} within {max_hops} hops" + (f" through {', '.join(through)}" if through else "")
        )
    hops = [(hop.source, hop.target) for p in found for hop in p.hops]
    nodes = {n for pair in hops for n in pair}
    labels = graph.nodes[start]["label"], graph.nodes[end]["label"]
    notice = f"The {counted(len(found), 'shortest path')} from {labels[0]!r} to {labels[1]!r}, as `kg path` lists them."
    return _view(graph, nodes, centrality(graph), title or f"kg: from {labels[0]} to {labels[1]}", notice, {start: "end", end: "end"}, hops)


def community_view(
    graph: nx.Graph, number: int, limit: int = DEFAULT_LIMIT, resolution: float = 1.0, seed: int = 0, title: str | None = None
) -> View:
    """Community ``number`` of `kg communities` (same resolution and seed): its
    concepts, best connected first, and the papers that mention two or more of them."""
    found = communities(graph, resolution=resolution, seed=seed)
    if not 1 <= number <= len(found):
        raise KgError(f"there is no community {number}: the graph has {len(found)} (`kg communities --limit 0` lists them)")
    community = found[number - 1]
    members = [m.iri for m in community.members]
    counts = Counter(p for m in members for p in graph[m] if graph.nodes[p]["kind"] == "paper")
    papers = sorted((p for p, c in counts.items() if c >= 2), key=lambda p: (-counts[p], graph.nodes[p]["label"], p))
    keep = members + papers
    notice = None
    if limit and len(keep) > limit:
        keep = keep[:limit]
        notice = (
            f"Community {number} has {counted(len(members), 'concept')} and {counted(len(papers), 'paper')} mentioning two or more "
            f"of them; this page draws the first {limit:,} (concepts best connected first, then papers). `--limit 0` draws all."
        )
    lead = ", ".join(m.label for m in community.members[:3])
    return _view(graph, keep, centrality(graph), title or f"kg: community {number} ({lead} ...)", notice)
