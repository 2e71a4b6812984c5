"""Running queries against a remote SPARQL 1.1 Protocol endpoint (`kg query --endpoint`).

Answers come back as SPARQL JSON results (or Turtle for CONSTRUCT/DESCRIBE)
and are parsed by pyoxigraph into the same objects a local query gives, so
they print the same way. The protocol has no parameters, so each value is
substituted for its variable as SPARQL's SEP-0007 describes (the same
semantics as a local query's substitutions), written as an RDF term by
pyoxigraph, which escapes it: ``x" } ; DROP ALL ; #`` stays one literal.
The query is checked by Oxigraph's parser before and after.
"""

from __future__ import annotations

import re
import urllib.parse

from pyoxigraph import QueryResultsFormat, RdfFormat, Store, parse, parse_query_results

from kg.errors import QueryError
from kg.query.http import request
from kg.query.binding import bind_terms
from kg.query.run import QueryResult, syntax_message
from kg.vocab import PREFIXES

__all__ = ["run_remote_query"]

_FORM = re.compile(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE)


def _prologue() -> str:
    return "".join(f"PREFIX {prefix}: <{namespace}>\n" for prefix, namespace in PREFIXES.items())


def run_remote_query(endpoint: str, sparql: str, params: dict | None = None) -> QueryResult:
    """Run ``sparql`` at ``endpoint`` (its SPARQL query URL, e.g. ``http://host:7878/query``)."""
    try:
        Store().query(sparql, prefixes=PREFIXES)  # the same syntax check, and message, as a local query
    except SyntaxError as exc:
        raise QueryError(syntax_message(exc)) from exc
    except (RuntimeError, OSError):
        pass  # valid syntax; it just cannot run against an empty store
    form = (_FORM.search(re.sub(r"#[^\n]*", "", sparql)) or [None, "SELECT"])[1].upper()
    bound = bind_terms(sparql, params or {})
    try:
        Store().query(bound, prefixes=PREFIXES)
    except SyntaxError as exc:
        names = ", ".join(f"?{n}" for n in params or {})
        raise QueryError(f"cannot bind {names} in this query for a remote endpoint ({exc})") from exc
    except (RuntimeError, OSError):
        pass
    text = _prologue() + bound
    graph = form in {"CONSTRUCT", "DESCRIBE"}
    accept = "text/turtle" if graph else "application/sparql-results+json"
    body = urllib.parse.urlencode({"query": text}).encode("utf-8")
    answer = request(endpoint, "POST", body, {"Content-Type": "application/x-www-form-urlencoded", "Accept": accept})
    if graph:
        return QueryResult("graph", list(parse(answer, format=RdfFormat.TURTLE)))
    results = parse_query_results(answer, format=QueryResultsFormat.JSON)
    if form == "ASK":
        return QueryResult("ask", results)
    return QueryResult("select", results, [v.value for v in results.variables])
