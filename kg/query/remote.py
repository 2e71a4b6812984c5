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

from pyoxigraph import Literal, NamedNode, QueryResultsFormat, RdfFormat, Store, parse, parse_query_results

from kg.errors import QueryError
from kg.query.http import request
from kg.query.run import QueryResult, syntax_message, parse_param
from kg.vocab import PREFIXES

__all__ = ["run_remote_query"]

_FORM = re.compile(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE)


def _prologue() -> str:
    return "".join(f"PREFIX {prefix}: <{namespace}>\n" for prefix, namespace in PREFIXES.items())


def _tokens(query: str) -> list[tuple[str, str]]:
    """(kind, text) pieces of a query: "var", "word", "other"; strings, IRIs and
    comments are kept whole as "other", so nothing inside them is touched."""
    pieces, i = [], 0
    while i < len(query):
        char = query[i]
        match = None
        if char == "#":
            match = re.compile(r"#[^\n]*").match(query, i)
        elif char in "\"'":
            quote = query[i : i + 3] if query[i : i + 3] in {'"""', "\'\'\'"} else char
            j = i + len(quote)
            while j < len(query) and query[j : j + len(quote)] != quote:
                j += 2 if query[j] == "\\" else 1
            pieces.append(("other", query[i : j + len(quote)]))
            i = j + len(quote)
            continue
        elif char == "<":
            match = re.compile(r"<[^<>\"{}|^`\\\s]*>").match(query, i)
        elif char in "?$":
            match = re.compile(r"[?$]\w+").match(query, i)
            if match:
                pieces.append(("var", match.group()))
                i = match.end()
                continue
        elif char.isalpha():
            match = re.compile(r"\w+").match(query, i)
            if match:
                pieces.append(("word", match.group()))
                i = match.end()
                continue
        text = match.group() if match else char
        pieces.append(("other", text))
        i += len(text)
    return pieces


def _bind(sparql: str, params: dict) -> str:
    """Put each parameter's RDF term where its variable stands, as SPARQL's
    SEP-0007 substitution does: ``(term AS ?v)`` in a SELECT list,
    ``(term)`` in GROUP BY and ORDER BY, the bare term elsewhere."""
    if not params:
        return sparql
    terms = {name: str(value if isinstance(value, (NamedNode, Literal)) else parse_param(value)) for name, value in params.items()}
    out, clause, depth = [], None, 0
    for kind, text in _tokens(sparql):
        upper = text.upper()
        if kind == "word" and upper in {"SELECT", "GROUP", "ORDER", "WHERE", "HAVING", "LIMIT", "OFFSET", "VALUES"}:
            clause = upper if upper in {"SELECT", "GROUP", "ORDER"} else None
        elif text == "{":
            clause = None
        depth += text.count("(") - text.count(")") if kind == "other" and len(text) == 1 else 0
        name = text[1:] if kind == "var" else None
        if name not in terms:
            out.append(text)
        elif clause == "SELECT" and depth == 0:
            out.append(f"({terms[name]} AS ?{name})")
        elif clause in {"GROUP", "ORDER"} and depth == 0:
            out.append(f"({terms[name]})")
        else:
            out.append(terms[name])
    return "".join(out)


def run_remote_query(endpoint: str, sparql: str, params: dict | None = None) -> QueryResult:
    """Run ``sparql`` at ``endpoint`` (its SPARQL query URL, e.g. ``http://host:7878/query``)."""
    try:
        Store().query(sparql, prefixes=PREFIXES)  # the same syntax check, and message, as a local query
    except SyntaxError as exc:
        raise QueryError(syntax_message(exc)) from exc
    except (RuntimeError, OSError):
        pass  # valid syntax; it just cannot run against an empty store
    form = (_FORM.search(re.sub(r"#[^\n]*", "", sparql)) or [None, "SELECT"])[1].upper()
    bound = _bind(sparql, params or {})
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
