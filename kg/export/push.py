"""``kg push``: upload the graph to a SPARQL 1.1 Graph Store Protocol endpoint
(Oxigraph server, Apache Jena Fuseki, QLever, GraphDB, Virtuoso ...).

The graph replaces the remote's default graph (``?default``), or the named
graph the caller gives, as N-Triples in chunks of ``chunk_size`` triples. One
chunk is one ``PUT``, which replaces the graph atomically. More chunks go into
a staging graph of kg's own (a fresh name each time, so nothing of anyone
else's is touched) and one SPARQL Update ``MOVE`` swaps it in: readers see the
old graph or the new one, never half. Without an update endpoint a chunked
push is refused unless the caller asks for ``in_place`` (a ``PUT``, then
``POST`` requests, straight into the graph). On any failure kg drops the staging graph
it made, and the error says what state the remote graph is in.
"""

from __future__ import annotations

import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from pyoxigraph import NamedNode, RdfFormat, Store, serialize

from kg.export.serialize import graph_triples
from kg.query.http import RemoteError, check_url, request

__all__ = ["DEFAULT_CHUNK", "PushError", "PushInterrupted", "PushReport", "guess_update_endpoint", "push"]

DEFAULT_CHUNK = 50_000
NTRIPLES = {"Content-Type": "application/n-triples"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
STAGING = "https://w3id.org/kg/push-staging/"
CLEANUP_TIMEOUT_S = 15  # after a failure or Ctrl-C: try, but do not keep the user waiting


class PushError(RemoteError):
    """A push failed; the message says what state the remote graph is in."""


class PushInterrupted(PushError):
    """Ctrl-C or SIGTERM during a push; the message says what state the remote graph is in."""

    exit_code = 130


@dataclass(frozen=True)
class PushReport:
    graph: str | None  # None: the default graph
    triples: int
    chunks: int
    atomic: bool  # the graph was replaced in one step


def guess_update_endpoint(store_endpoint: str) -> str | None:
    """The SPARQL Update endpoint beside a Graph Store endpoint, for the common
    layouts: Oxigraph's ``/store`` -> ``/update``, Fuseki's ``/ds/data`` -> ``/ds/update``.
    Credentials and query string (a token) carry over."""
    parts = urllib.parse.urlsplit(store_endpoint)
    path = parts.path.rstrip("/")
    for suffix in ("/store", "/data"):
        if path.endswith(suffix):
            return urllib.parse.urlunsplit(parts._replace(path=path[: -len(suffix)] + "/update"))
    return None


def _graph_url(endpoint: str, graph: str | None) -> str:
    separator = "&" if "?" in endpoint else "?"
    return f"{endpoint}{separator}{urllib.parse.urlencode({'graph': graph}) if graph else 'default'}"


def _update(endpoint: str, statement: str, **options) -> None:
    request(endpoint, "POST", urllib.parse.urlencode({"update": statement}).encode(), FORM, **options)


def _failed(exc: BaseException, what: str, state: str) -> PushError:
    """The error to raise for ``exc`` (a RemoteError or an interrupt) while doing ``what``."""
    if isinstance(exc, RemoteError):
        return PushError(f"{what}: {exc}; {state}", exc.status)
    return PushInterrupted(f"aborted while {what}; {state}")


def _uncertain(exc: BaseException) -> bool:
    """Whether the request that failed may have been done all the same."""
    return not isinstance(exc, RemoteError) or exc.timed_out


def _partial(taken: int, count: int, maybe_one_more: bool) -> str:
    """The state of a graph replaced in place, ``taken`` of its ``count`` chunks certainly sent."""
    if taken == count:
        return "the remote graph was replaced"
    if taken == 0 and not maybe_one_more:
        return "the remote graph is unchanged"
    if taken == 0:
        then = "replaced" if count == 1 else f"holds only the first of {count} chunks"
        return f"the remote graph is unchanged, or {then} if the endpoint finished the request; rerun kg push to be sure"
    held = f"{taken} or {taken + 1}" if maybe_one_more else f"{taken}"
    return f"the remote graph holds only the first {held} of {count} chunks; rerun kg push to replace it whole"


def push(
    store: Store,
    endpoint: str,
    graph: str | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    update_endpoint: str | None = None,
    in_place: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> PushReport:
    """Replace the default graph at ``endpoint`` (or ``graph``, an IRI) with the store's graph."""
    for url in (endpoint, update_endpoint):
        if url is not None:
            check_url(url)
    target = NamedNode(graph).value if graph else None
    triples = graph_triples(store)
    chunks = [triples[i : i + chunk_size] for i in range(0, len(triples), chunk_size)] or [[]]
    bodies = (serialize(chunk, format=RdfFormat.N_TRIPLES) if chunk else b"" for chunk in chunks)
    if len(chunks) == 1 or in_place:
        _push_in_place(endpoint, target, bodies, len(chunks), progress)
        return PushReport(target, len(triples), len(chunks), atomic=len(chunks) == 1)
    update = update_endpoint or guess_update_endpoint(endpoint)
    if update is None:
        raise PushError(
            f"{len(triples)} triples need {len(chunks)} requests of --chunk-size {chunk_size}, and without an update "
            f"endpoint kg cannot swap them in at once: give --update-endpoint URL, --chunk-size {len(triples)} (one "
            "request), or --in-place (replace the graph chunk by chunk); nothing was sent"
        )
    _push_staged(endpoint, target, update, update_endpoint is None, bodies, len(chunks), progress)
    return PushReport(target, len(triples), len(chunks), atomic=True)


def _push_in_place(endpoint, target, bodies, count, progress) -> None:
    url = _graph_url(endpoint, target)
    taken, sending = 0, False
    try:
        for number, body in enumerate(bodies, 1):
            sending = True
            request(url, "PUT" if number == 1 else "POST", body, NTRIPLES)
            taken, sending = number, False
            if progress:
                progress(number, count)
    except (RemoteError, KeyboardInterrupt) as exc:
        state = _partial(taken, count, sending and _uncertain(exc))
        raise _failed(exc, f"sending chunk {min(taken + 1, count)} of {count}", state) from exc


def _push_staged(endpoint, target, update, guessed, bodies, count, progress) -> None:
    stage = NamedNode(f"{STAGING}{uuid.uuid4()}")  # N-Triples terms in the updates: no injection
    destination = f"GRAPH {NamedNode(target)}" if target else "DEFAULT"
    try:
        # A no-op that checks the update endpoint and the credentials before anything is sent.
        _update(update, f"DROP SILENT GRAPH {stage}")
    except (RemoteError, KeyboardInterrupt) as exc:
        what = "checking the update endpoint" + (" (guessed from --endpoint; give --update-endpoint URL, or --in-place)" if guessed else "")
        raise _failed(exc, what, "the remote graph is unchanged, nothing was sent") from exc
    taken, moving = 0, False
    try:
        for number, body in enumerate(bodies, 1):
            request(_graph_url(endpoint, stage.value), "PUT" if number == 1 else "POST", body, NTRIPLES)
            taken = number
            if progress:
                progress(number, count)
        moving = True
        _update(update, f"MOVE GRAPH {stage} TO {destination}")
    except (RemoteError, KeyboardInterrupt) as exc:
        if moving and _uncertain(exc):
            state = "the remote graph is unchanged or replaced whole (the MOVE may have run); rerun kg push to be sure"
        else:
            state = "the remote graph is unchanged"
        what = (
            "moving kg's staging graph into place" if moving else f"sending chunk {min(taken + 1, count)} of {count} to kg's staging graph"
        )
        raise _failed(exc, what, f"{state}; {_drop(update, stage)}") from exc


def _drop(update: str, stage: NamedNode) -> str:
    """Drop kg's staging graph, best effort; say how that went."""
    try:
        _update(update, f"DROP SILENT GRAPH {stage}", timeout=CLEANUP_TIMEOUT_S)
    except (RemoteError, KeyboardInterrupt):
        return f"kg could not drop its staging graph {stage} (DROP GRAPH it by hand)"
    return "kg dropped its staging graph"
