"""Running SPARQL against the store.

The standard prefixes (``kg.vocab.PREFIXES``) are predeclared, so queries can
use ``kg:``, ``dcterms:``, ``foaf:`` ... without PREFIX lines. User values are
bound to variables as RDF terms (:mod:`kg.query.binding`: each one term,
escaped by pyoxigraph, put where its variable stands as SPARQL's SEP-0007
substitution does), never pasted in as text, so a value can never change what
the query does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pyoxigraph import Literal, NamedNode, QueryBoolean, QuerySolutions, QueryTriples, Store

from kg.errors import QueryError
from kg.vocab import PREFIXES

__all__ = ["QueryResult", "run_query", "parse_param", "text_literal"]

_POSITION = re.compile(r"error at (\d+):(\d+): (.*)", re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_ERROR_CHARS = 160


@dataclass
class QueryResult:
    """One query's answer: ``kind`` is "select", "ask" or "graph"."""

    kind: str
    raw: QuerySolutions | QueryBoolean | QueryTriples
    variables: list[str] = field(default_factory=list)


def text_literal(value: str) -> Literal:
    """A string literal of ``value``; a lone surrogate (what Python makes of
    bytes on the command line that are not UTF-8) becomes U+FFFD."""
    return Literal(_SURROGATE.sub("\ufffd", value))


def parse_param(value: str) -> NamedNode | Literal:
    """``<iri>`` becomes an IRI; anything else a plain string literal."""
    if value.startswith("<") and value.endswith(">"):
        try:
            return NamedNode(value[1:-1])
        except ValueError as exc:
            raise QueryError(f"parameter value {value!r} is not a valid IRI") from exc
    return text_literal(value)


_UPDATE = re.compile(
    r"^(?:\s|#[^\n]*\n|(?:PREFIX\s+[^\s:]*:\s*<[^>]*>)|(?:BASE\s*<[^>]*>))*"
    r"(INSERT|DELETE|LOAD|CLEAR|DROP|CREATE|ADD|MOVE|COPY|WITH)\b",
    re.IGNORECASE,
)


def syntax_message(error: SyntaxError, sparql: str = "") -> str:
    if match := _UPDATE.match(sparql):
        return (
            f"{match[1].upper()} is SPARQL Update: kg query only reads (SELECT, ASK, CONSTRUCT, DESCRIBE); "
            "change the graph by rebuilding it with `kg build`"
        )
    text = str(error)
    match = _POSITION.match(text)
    if not match:
        return f"malformed SPARQL query: {text.splitlines()[0]}"
    line, column, detail = match.groups()
    if "Prefix not found" in detail:
        detail = "unknown prefix; declare it with PREFIX or use a predeclared one (" + ", ".join(PREFIXES) + ")"
    else:
        detail = " ".join(detail.split())
        if len(detail) > MAX_ERROR_CHARS:
            detail = detail[:MAX_ERROR_CHARS].rsplit(" ", 1)[0] + " ..."
    return f"malformed SPARQL query at line {line}, column {column}: {detail}"


def run_query(store: Store, sparql: str, params: dict[str, str | NamedNode | Literal] | None = None) -> QueryResult:
    """Run a SPARQL query; ``params`` bind variables by name (without the "?")."""
    from kg.query.binding import bind_terms

    if params:
        try:
            Store().query(sparql, prefixes=PREFIXES)  # syntax errors point into the query as written
        except SyntaxError as exc:
            raise QueryError(syntax_message(exc, sparql)) from exc
        except (RuntimeError, OSError):
            pass  # valid syntax
    try:
        raw = store.query(bind_terms(sparql, params) if params else sparql, prefixes=PREFIXES)
    except SyntaxError as exc:
        if not params:
            raise QueryError(syntax_message(exc, sparql)) from exc
        names = ", ".join(f"?{name}" for name in params)
        raise QueryError(f"cannot bind {names} in this query: {syntax_message(exc)}") from exc
    except RuntimeError as exc:
        raise QueryError(f"query failed: {exc}") from exc
    except OSError as exc:
        raise QueryError(f"query failed: {exc}") from exc
    if isinstance(raw, QuerySolutions):
        return QueryResult("select", raw, [v.value for v in raw.variables])
    if isinstance(raw, QueryBoolean):
        return QueryResult("ask", raw)
    return QueryResult("graph", raw)
