"""``kg push``: upload the graph to a SPARQL 1.1 Graph Store Protocol endpoint
(Oxigraph server, Apache Jena Fuseki, QLever, GraphDB, Virtuoso ...).

The graph goes into one named graph, the build's by default
(:func:`kg.export.void.build_graph_iri`), as N-Triples in chunks of
``chunk_size`` triples. One chunk is one ``PUT``, which replaces the graph
atomically. More chunks go into a staging graph (``PUT`` then ``POST``s), and
an update endpoint then swaps it in with ``MOVE`` — one atomic SPARQL Update,
so readers see the old graph or the new one, never half. Without an update
endpoint the chunks go straight into the graph (``PUT`` then ``POST``s), and
readers can see it partly replaced while the upload runs.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

from pyoxigraph import NamedNode, RdfFormat, Store, serialize

from kg.query.http import request
from kg.export.serialize import graph_triples
from kg.export.void import build_graph_iri

__all__ = ["DEFAULT_CHUNK", "PushReport", "push", "guess_update_endpoint"]

DEFAULT_CHUNK = 50_000
NTRIPLES = {"Content-Type": "application/n-triples"}


@dataclass(frozen=True)
class PushReport:
    graph: str
    triples: int
    chunks: int
    atomic: bool  # the graph was replaced in one step


def guess_update_endpoint(store_endpoint: str) -> str | None:
    """The SPARQL Update endpoint beside a Graph Store endpoint, for the common
    layouts: Oxigraph's ``/store`` -> ``/update``, Fuseki's ``/ds/data`` -> ``/ds/update``."""
    parts = urllib.parse.urlsplit(store_endpoint)
    path = parts.path.rstrip("/")
    for suffix in ("/store", "/data"):
        if path.endswith(suffix):
            return urllib.parse.urlunsplit(parts._replace(path=path[: -len(suffix)] + "/update", query=""))
    return None


def _graph_url(endpoint: str, graph: str) -> str:
    separator = "&" if urllib.parse.urlsplit(endpoint).query else "?"
    return f"{endpoint}{separator}{urllib.parse.urlencode({'graph': graph})}"


def push(
    store: Store,
    endpoint: str,
    graph: str | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    update_endpoint: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> PushReport:
    """Replace ``graph`` at ``endpoint`` with the store's graph."""
    target = NamedNode(graph).value if graph else build_graph_iri(store).value
    triples = graph_triples(store)
    chunks = [triples[i : i + chunk_size] for i in range(0, len(triples), chunk_size)] or [[]]
    update = update_endpoint or guess_update_endpoint(endpoint)
    staged = len(chunks) > 1 and update is not None
    upload_to = f"{target}.staging" if staged else target

    for number, chunk in enumerate(chunks):
        body = serialize(chunk, format=RdfFormat.N_TRIPLES) if chunk else b""
        request(_graph_url(endpoint, upload_to), "PUT" if number == 0 else "POST", body, NTRIPLES)
        if progress:
            progress(number + 1, len(chunks))
    if staged:
        statement = f"MOVE SILENT GRAPH {NamedNode(upload_to)} TO GRAPH {NamedNode(target)}"  # IRIs as N-Triples terms: no injection
        request(update, "POST", urllib.parse.urlencode({"update": statement}).encode(), {"Content-Type": "application/x-www-form-urlencoded"})
    return PushReport(target, len(triples), len(chunks), atomic=len(chunks) == 1 or staged)
