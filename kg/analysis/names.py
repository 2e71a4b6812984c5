"""Finding a node of the projected graph by what people call it: a concept's
preferred or alternative label, a paper's title or label, an author's name
(case-insensitive), or an IRI."""

from __future__ import annotations

import difflib
from collections.abc import Collection

import networkx as nx

from kg.errors import KgError

__all__ = ["UnknownNameError", "find_nodes", "resolve"]

CLOSE_MATCHES = 5


class UnknownNameError(KgError):
    """No node of the graph goes by the name asked for."""


def _allowed(graph: nx.Graph, node: str, types: Collection[str] | None) -> bool:
    return types is None or graph.nodes[node]["type"] in types or graph.nodes[node]["kind"] in types


def find_nodes(graph: nx.Graph, name: str, types: Collection[str] | None = None) -> list[str]:
    """Nodes called ``name``, best connected first (so "LoRA" finds the concept most papers name)."""
    wanted = name.strip().strip("<>")
    if wanted in graph and _allowed(graph, wanted, types):
        return [wanted]
    folded = name.strip().casefold()
    found = [n for n, data in graph.nodes(data=True) if _allowed(graph, n, types) and any(folded == x.casefold() for x in data["names"])]
    return sorted(found, key=lambda n: (-graph.degree(n), n))


def resolve(graph: nx.Graph, name: str, types: Collection[str] | None = None) -> str:
    """The node called ``name``; :class:`UnknownNameError` with close matches when there is none."""
    found = find_nodes(graph, name, types)
    if found:
        return found[0]
    names = {x.casefold(): x for n, data in graph.nodes(data=True) if _allowed(graph, n, types) for x in data["names"]}
    close = [names[m] for m in difflib.get_close_matches(name.casefold(), list(names), n=CLOSE_MATCHES, cutoff=0.6)]
    what = "/".join(sorted(types)) if types else "concept, paper or author"
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "; `kg top` lists the best-connected names"
    raise UnknownNameError(f"no {what} is called {name!r}{hint}")
