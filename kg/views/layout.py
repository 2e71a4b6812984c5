"""A seeded layout computed in Python, so a page opens already settled and the
same graph always looks the same.

Each connected component is laid out on its own, then the components are
packed in rows, largest first (a force layout of a disconnected graph pushes
the small parts to the rim and squeezes the big one). A component of up to
:data:`CORE` nodes is laid out with NetworkX's Fruchterman-Reingold
(``spring_layout``, seeded). A larger one would cost O(n²) per step (NetworkX
takes about a minute for 5,000 nodes), so only its core is: the
:data:`CORE` most central nodes grown outwards from the most central one (so
the core is connected); every other node is then placed, layer by layer, on a
sunflower spiral around its most central neighbour already placed.
Coordinates are in pixels.

:func:`map_layout` lays out the maps (concepts, papers) with ForceAtlas2
(NetworkX), whose gravity keeps unlinked nodes inside the picture instead of
along its rim, weighted by link strength so communities sit together. It too
is O(n²) per step (about 6 s for 1,000 nodes), so only the :data:`MAP_CORE`
most important nodes are laid out by force; each other node goes beside the
placed neighbours it is most strongly linked to. The map is then scaled so
that neighbouring nodes sit :data:`MAP_SPACING` pixels apart (median).
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

import networkx as nx
import numpy as np

__all__ = ["CORE", "MAP_CORE", "layout", "map_layout"]

CORE = 400
SPACING = 110.0  # pixels between neighbouring nodes, roughly
SATELLITE_START = 70.0  # pixels from a node to its first satellite
SATELLITE_STEP = 30.0  # pixels per sqrt(satellite)
SPREAD = 2.0  # Fruchterman-Reingold's optimal distance, in units of NetworkX's default
MARGIN = 80.0  # pixels between packed components
_GOLDEN = math.pi * (3 - math.sqrt(5))
MAP_CORE = 600
MAP_SPACING = 45.0  # median pixels from a map's node to its nearest neighbour
MAP_STEPS = 150
GRAVITY = 1.0  # ForceAtlas2's strong gravity (pull grows with distance): unlinked nodes stay in the picture

Positions = dict[str, tuple[float, float]]


def layout(nodes: Sequence[str], edges: Sequence[tuple[str, str]], weights: Mapping[str, float], seed: int = 0) -> Positions:
    """Positions in pixels for ``nodes``; ``weights`` (centrality) choose each component's core."""
    if not nodes:
        return {}
    graph = nx.Graph()
    graph.add_nodes_from(sorted(nodes))
    graph.add_edges_from(sorted((min(u, v), max(u, v)) for u, v in edges if u != v))
    rank = {n: (-weights.get(n, 0.0), n) for n in graph}
    components = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: (-len(c), c[0]))
    rng = np.random.default_rng(seed)
    parts = [_component(graph.subgraph(c), rank, seed, rng) for c in components]
    positions = _pack(parts)
    return {n: (round(x, 1), round(y, 1)) for n, (x, y) in sorted(positions.items())}


def _spring(graph: nx.Graph, nodes: Sequence[str], seed: int) -> Positions:
    if len(nodes) == 1:
        return {nodes[0]: (0.0, 0.0)}
    sub = nx.Graph()
    sub.add_nodes_from(sorted(nodes))
    sub.add_edges_from(sorted(graph.subgraph(nodes).edges()))
    # A longer optimal distance than NetworkX's default (1/sqrt(n)) spreads hubs' neighbours out.
    positions = nx.spring_layout(
        sub, k=SPREAD / math.sqrt(len(nodes)), iterations=100, seed=seed, scale=SPACING * math.sqrt(len(nodes)) / 2
    )
    return {n: (float(x), float(y)) for n, (x, y) in positions.items()}


def _core(graph: nx.Graph, rank: Mapping[str, tuple]) -> list[str]:
    """The CORE most central nodes reachable from the most central one through each other."""
    start = min(graph, key=rank.__getitem__)
    core: list[str] = []
    seen, frontier = {start}, [(rank[start], start)]
    while frontier and len(core) < CORE:
        _, node = heapq.heappop(frontier)
        core.append(node)
        for neighbour in graph[node]:
            if neighbour not in seen:
                seen.add(neighbour)
                heapq.heappush(frontier, (rank[neighbour], neighbour))
    return core


def _component(graph: nx.Graph, rank: Mapping[str, tuple], seed: int, rng: np.random.Generator) -> Positions:
    if graph.number_of_nodes() <= CORE:
        return _spring(graph, list(graph), seed)
    core = _core(graph, rank)
    positions = _spring(graph, core, seed)
    satellites: dict[str, int] = defaultdict(int)
    phase: dict[str, float] = {}
    layer = sorted(core)
    while len(positions) < graph.number_of_nodes():
        # Nodes next to the ones placed last, each around its most central placed neighbour.
        found = {m for n in layer for m in graph[n] if m not in positions}
        layer = sorted(found, key=rank.__getitem__)
        for node in layer:
            anchor = min((m for m in graph[node] if m in positions), key=rank.__getitem__)
            if anchor not in phase:
                phase[anchor] = float(rng.uniform(0, 2 * math.pi))
            i = satellites[anchor]
            satellites[anchor] += 1
            radius = SATELLITE_START + SATELLITE_STEP * math.sqrt(i)
            angle = phase[anchor] + i * _GOLDEN
            x, y = positions[anchor]
            positions[node] = (x + radius * math.cos(angle), y + radius * math.sin(angle))
    return positions


def _pack(parts: list[Positions]) -> Positions:
    """Components side by side in rows (largest first), centred on the origin."""
    boxes = []
    for part in parts:
        xs = [x for x, _ in part.values()]
        ys = [y for _, y in part.values()]
        boxes.append((min(xs), min(ys), max(xs) - min(xs) + MARGIN, max(ys) - min(ys) + MARGIN))
    width = max(max(b[2] for b in boxes), math.sqrt(sum(b[2] * b[3] for b in boxes)) * 1.2)
    positions: Positions = {}
    x = y = row = 0.0
    for part, (left, top, w, h) in zip(parts, boxes):
        if x > 0 and x + w > width:
            x, y, row = 0.0, y + row, 0.0
        for node, (px, py) in part.items():
            positions[node] = (px - left + x, py - top + y)
        x += w
        row = max(row, h)
    xs = [p[0] for p in positions.values()]
    ys = [p[1] for p in positions.values()]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    return {n: (px - cx, py - cy) for n, (px, py) in positions.items()}


def map_layout(nodes: Sequence[str], edges: Sequence[tuple[str, str, float]], importance: Mapping[str, float], seed: int = 0) -> Positions:
    """Positions in pixels for a map's ``nodes``; ``edges`` are (u, v, strength), ``importance`` picks the core."""
    if not nodes:
        return {}
    order = sorted(nodes, key=lambda n: (-importance.get(n, 0.0), n))
    core = set(order[:MAP_CORE])
    graph = nx.Graph()
    graph.add_nodes_from(sorted(core))
    strongest: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for u, v, weight in sorted((min(u, v), max(u, v), w) for u, v, w in edges if u != v):
        if u in core and v in core:
            graph.add_edge(u, v, weight=weight)
        strongest[u].append((weight, v))
        strongest[v].append((weight, u))
    if len(core) == 1:
        positions = {order[0]: (0.0, 0.0)}
    else:
        found = nx.forceatlas2_layout(graph, max_iter=MAP_STEPS, seed=seed, weight="weight", strong_gravity=True, gravity=GRAVITY)
        positions = {n: (float(x), float(y)) for n, (x, y) in found.items()}
    xs, ys = zip(*positions.values())
    reach = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9) / 2
    rng = np.random.default_rng(seed)
    for node in order[len(core) :]:
        placed = sorted(((w, m) for w, m in strongest[node] if m in positions), reverse=True)[:3]
        if placed:
            total = sum(w for w, _ in placed)
            x = sum(w * positions[m][0] for w, m in placed) / total
            y = sum(w * positions[m][1] for w, m in placed) / total
            angle, radius = rng.uniform(0, 2 * math.pi), reach * 0.03 * (1 + rng.uniform())
        else:  # unlinked: inside the disc the map covers, not along an edge
            x = y = 0.0
            angle, radius = rng.uniform(0, 2 * math.pi), reach * math.sqrt(rng.uniform())
        positions[node] = (x + radius * math.cos(angle), y + radius * math.sin(angle))
    return _spaced(positions)


def _spaced(positions: Positions) -> Positions:
    """``positions`` scaled so the median distance to the nearest neighbour is MAP_SPACING, centred."""
    from scipy.spatial import cKDTree

    names = sorted(positions)
    points = np.array([positions[n] for n in names], dtype=float)
    points -= points.mean(axis=0)
    if len(names) > 1:
        distances, _ = cKDTree(points).query(points, k=2)
        median = float(np.median(distances[:, 1]))
        points *= MAP_SPACING / median if median > 0 else 1.0
    return {n: (round(float(x), 1), round(float(y), 1)) for n, (x, y) in zip(names, points)}
