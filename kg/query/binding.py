"""Binding user values to query variables, safely: each value becomes one RDF
term, written (and escaped) by pyoxigraph, and stands where its variable
stood, as SPARQL's SEP-0007 substitution describes: ``(term AS ?v)`` in a
SELECT list, ``(term)`` in GROUP BY and ORDER BY, the bare term elsewhere.
Strings, IRIs and comments of the query are never touched, and the result
is parsed again before it runs, so ``x" } ; DROP ALL ; #`` stays one literal.

A query may also use ``?NAMEKey`` for a parameter ``NAME``: it is bound to the
value lower-cased, as a plain literal, to match ``kg:nameKey`` (the build
writes one per label, title and name, lower-cased). That turns a
case-insensitive name lookup into one index probe: at 1M triples
``?c kg:nameKey ?conceptKey`` takes 0.1 ms where
``FILTER (LCASE(STR(?name)) = LCASE(STR(?concept)))`` scans every label
(56 ms), and a ``BIND (LCASE(...))`` is not pushed into the pattern by
Oxigraph's planner (``benchmarks/query_latency.py``).

An IRI value's ``?NAMEKey`` is the IRI itself, so that the library's queries
find the node a parameter names with one pattern,
``?conceptKey (^kg:nameKey)? ?c``: by a name, one step back from its key, or
by its IRI, the path's zero-length step. At 1M triples each query takes as
long that way as with a name lookup alone or with the IRI written in, where a
``{ ?c kg:nameKey ?conceptKey } UNION { BIND (?concept AS ?c) }`` is planned
on its own and what follows it is evaluated for every node before the join
(``methods-on-dataset``: 20 ms against 3 ms); ``concept-hierarchy``'s header
says why it needs that form all the same.

Why not the store's own substitutions: Oxigraph joins substituted values in
after evaluating the pattern, so a query for one concept first computes the
answer for every concept (60 s instead of 25 ms at 1M triples, measured in
``benchmarks/query_latency.py``); a term in the query text lets the planner
start from it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pyoxigraph import Literal, NamedNode

__all__ = ["bind_terms", "as_term", "KEY_SUFFIX"]

#: ``?NAME`` + this suffix is bound to NAME's value lower-cased.
KEY_SUFFIX = "Key"


def as_term(value: str | NamedNode | Literal) -> NamedNode | Literal:
    """``<iri>`` is an IRI; anything else a plain string literal."""
    from kg.query.run import parse_param

    return value if isinstance(value, (NamedNode, Literal)) else parse_param(value)


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
            quote = query[i : i + 3] if query[i : i + 3] in {'"""', "'''"} else char
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


def bind_terms(sparql: str, params: Mapping) -> str:
    """Put each parameter's RDF term where its variable stands, as SPARQL's
    SEP-0007 substitution does: ``(term AS ?v)`` in a SELECT list,
    ``(term)`` in GROUP BY and ORDER BY, the bare term elsewhere."""
    if not params:
        return sparql
    terms = {name: str(as_term(value)) for name, value in params.items()}
    used = {text[1:] for kind, text in _tokens(sparql) if kind == "var"}
    missing = sorted(set(terms) - used)
    for name, value in params.items():
        key, term = name + KEY_SUFFIX, as_term(value)
        if key in used and key not in terms:
            from kg.query.run import text_literal

            terms[key] = str(term) if isinstance(term, NamedNode) else str(text_literal(term.value.lower()))
    if missing:
        from kg.errors import QueryError

        raise QueryError("the query has no " + ", ".join(f"?{name}" for name in missing) + " to bind a --param to")
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
