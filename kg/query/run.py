"""Running SPARQL against the store.

The standard prefixes (``kg.vocab.PREFIXES``) are predeclared, so queries can
use ``kg:``, ``dcterms:``, ``foaf:`` ... without PREFIX lines. User values are
bound to variables as RDF terms (Oxigraph's substitutions), never pasted into
the query text, so a value can never change what the query does. As in
SPARQL's SEP-0007 substitution, a bound variable must be in the projection.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pyoxigraph import Literal, NamedNode, QueryBoolean, QuerySolutions, QueryTriples, Store, Variable

from kg.errors import QueryError
from kg.vocab import PREFIXES

__all__ = ["QueryResult", "run_query", "parse_param"]

_POSITION = re.compile(r"error at (\d+):(\d+): (.*)", re.DOTALL)
MAX_ERROR_CHARS = 160


@dataclass
class QueryResult:
    """One query's answer: ``kind`` is "select", "ask" or "graph"."""

    kind: str
    raw: QuerySolutions | QueryBoolean | QueryTriples
    variables: list[str] = field(default_factory=list)


def parse_param(value: str) -> NamedNode | Literal:
    """``<iri>`` becomes an IRI; anything else a plain string literal."""
    if value.startswith("<") and value.endswith(">"):
        try:
            return NamedNode(value[1:-1])
        except ValueError as exc:
            raise QueryError(f"parameter value {value!r} is not a valid IRI") from exc
    return Literal(value)


def syntax_message(error: SyntaxError) -> str:
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
    substitutions = {
        Variable(name): value if isinstance(value, (NamedNode, Literal)) else parse_param(value)
        for name, value in (params or {}).items()
    }
    try:
        raw = store.query(sparql, prefixes=PREFIXES, substitutions=substitutions or None)
    except SyntaxError as exc:
        raise QueryError(syntax_message(exc)) from exc
    except RuntimeError as exc:
        if "projection" in str(exc):
            names = ", ".join(f"?{name}" for name in params or {})
            raise QueryError(f"a bound parameter ({names}) must appear in the query's SELECT clause") from exc
        raise QueryError(f"query failed: {exc}") from exc
    except OSError as exc:
        raise QueryError(f"query failed: {exc}") from exc
    if isinstance(raw, QuerySolutions):
        return QueryResult("select", raw, [v.value for v in raw.variables])
    if isinstance(raw, QueryBoolean):
        return QueryResult("ask", raw)
    return QueryResult("graph", raw)
