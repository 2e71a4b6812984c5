"""Running queries against a remote SPARQL 1.1 Protocol endpoint (`kg query --endpoint`).

Answers come back as SPARQL JSON results (or Turtle for CONSTRUCT/DESCRIBE)
and are parsed by pyoxigraph into the same objects a local query gives, so
they print the same way; an answer that does not parse, whole, is an error
saying so (an HTML page, a cut-off reply, another format). The protocol has
no parameters, so each value is substituted for its variable as SPARQL's
SEP-0007 describes (the same semantics as a local query's substitutions),
written as an RDF term by pyoxigraph, which escapes it: ``x" } ; DROP ALL ; #``
stays one literal. The query passes the local checks (the guard, then
Oxigraph's parser) before and after; the request runs under the same time
limit as a local query, and Ctrl-C stops waiting for it.
"""

from __future__ import annotations

import urllib.parse

from pyoxigraph import (
    QueryBoolean,
    QueryResultsFormat,
    QuerySolutions,
    RdfFormat,
    parse,
    parse_query_results,
)

from kg.errors import QueryError
from kg.query.binding import bind_terms
from kg.query.http import redact, request
from kg.query.results import printable
from kg.query.run import DEFAULT_TIMEOUT_S, QueryResult, in_worker, query_form
from kg.vocab import PREFIXES

__all__ = ["run_remote_query"]

_SHOWN_BYTES = 40


def _prologue() -> str:
    return "".join(f"PREFIX {prefix}: <{namespace}>\n" for prefix, namespace in PREFIXES.items())


def _not_results(endpoint: str, answer: bytes, expected: str, error: Exception) -> QueryError:
    start = printable(answer[:_SHOWN_BYTES].decode("utf-8", "replace"))
    shown = f"it starts {start!r}" if answer else "it is empty"
    reason = printable(" ".join(str(error).split()))
    return QueryError(f"{redact(endpoint)}: the endpoint's answer is not {expected} ({shown}; {reason})")


def _read(endpoint: str, answer: bytes, form: str) -> QueryResult:
    """The answer as a local query's result; a :class:`QueryError` unless all of it parses."""
    try:
        if form == "graph":
            return QueryResult("graph", [quad.triple for quad in parse(answer, format=RdfFormat.TURTLE)])
        results = parse_query_results(answer, format=QueryResultsFormat.JSON)
        if isinstance(results, QueryBoolean) != (form == "ask"):
            raise ValueError("a boolean answers ASK, and rows SELECT")
        if form == "ask":
            return QueryResult("ask", results)
        assert isinstance(results, QuerySolutions)  # checked above: not a boolean
        for _ in results:  # parsed as it is read: read it all once, so a bad row fails here
            pass
    except (SyntaxError, ValueError, OSError) as exc:
        raise _not_results(endpoint, answer, "RDF in Turtle" if form == "graph" else "SPARQL JSON results", exc) from exc
    results = parse_query_results(answer, format=QueryResultsFormat.JSON)
    assert isinstance(results, QuerySolutions)  # the same answer, parsed as rows above
    return QueryResult("select", results, [v.value for v in results.variables])


def run_remote_query(endpoint: str, sparql: str, params: dict | None = None, *, timeout: float = DEFAULT_TIMEOUT_S) -> QueryResult:
    """Run ``sparql`` at ``endpoint`` (its SPARQL query URL, e.g. ``http://host:7878/query``),
    within ``timeout`` seconds (0: no limit)."""
    form = query_form(sparql, timeout)  # the same checks, and messages, as a local query
    bound = bind_terms(sparql, params or {})
    if params:
        try:
            query_form(bound, timeout)
        except QueryError as exc:
            names = ", ".join(f"?{n}" for n in params)
            raise QueryError(f"cannot bind {names} in this query for a remote endpoint ({exc})") from exc
    accept = "text/turtle" if form == "graph" else "application/sparql-results+json"
    body = urllib.parse.urlencode({"query": _prologue() + bound}).encode("utf-8")
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": accept}
    answer = in_worker(lambda cancelled: request(endpoint, "POST", body, headers), timeout)
    return _read(endpoint, answer, form)
