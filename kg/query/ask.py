"""Asking a named question: ``kg ask NAME --PARAM VALUE``.

Runs a query of the library (``kg/query/library/*.rq``) with label
parameters and returns plain records: column names and rows of strings,
integers and booleans, ready for a table, CSV, JSON or a notebook. Values are
bound as RDF literals (never pasted into the query text). A parameter
declared as naming a concept, a paper or an author (``# param NAME (KIND):``)
is checked first, so a misspelt name is an error with close matches rather
than an empty answer.

Queries whose rows state a relation carry the evidence behind each row in
columns named ``evidence...`` (``evidencePaper``, the paper's IRI, and
``evidenceSentence``); :func:`ask` drops them when ``evidence=False``.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass

from pyoxigraph import BlankNode, Literal, NamedNode, Store

from kg.errors import KgError, QueryError
from kg.query.concepts import UnknownConceptError, close_matches
from kg.query.library import NamedQuery, find_query
from kg.query.run import parse_param, run_query, text_literal
from kg.vocab import PREFIXES

__all__ = [
    "EVIDENCE_PREFIX",
    "Answer",
    "ParameterError",
    "UnknownAuthorError",
    "UnknownPaperError",
    "ask",
    "check_params",
    "short_iri",
]

EVIDENCE_PREFIX = "evidence"
CLOSE_MATCHES = 3
_XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGERS = {_XSD + t for t in ("integer", "int", "long", "short", "nonNegativeInteger", "positiveInteger")}


class ParameterError(QueryError):
    """A named query was asked with a parameter missing or one it does not take."""

    def __init__(self, query: str, missing: list[str], unknown: list[str], takes: list[str]):
        self.query, self.missing, self.unknown, self.takes = query, missing, unknown, takes
        parts = []
        if missing:
            parts.append("needs " + ", ".join(missing))
        if unknown:
            parts.append("takes no " + ", ".join(unknown) + f" (it takes: {', '.join(takes) or 'no parameters'})")
        super().__init__(f"query {query!r} " + "; ".join(parts))


class UnknownPaperError(KgError):
    """No paper has the title or label asked for."""


class UnknownAuthorError(KgError):
    """No person has the name asked for."""


@dataclass(frozen=True)
class Answer:
    """A named query's answer: column names and rows of plain values
    (``str`` for IRIs and text, ``int`` for integers, ``bool`` for booleans,
    ``None`` where a column is unbound)."""

    query: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str | int | None, ...], ...]

    def records(self) -> list[dict[str, str | int | None]]:
        """The rows as dictionaries keyed by column name."""
        return [dict(zip(self.columns, row)) for row in self.rows]

    def column(self, name: str) -> list[str | int | None]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]


def _plain(term) -> str | int | None:
    if term is None:
        return None
    if isinstance(term, NamedNode):
        return term.value
    if isinstance(term, BlankNode):
        return f"_:{term.value}"
    if isinstance(term, Literal):
        datatype = term.datatype.value
        if datatype in _INTEGERS:
            return int(term.value)
        if datatype == _XSD + "boolean":
            return term.value in ("true", "1")
        return term.value
    return str(term)


def short_iri(value: str) -> str:
    """``https://w3id.org/kg/paper/...`` as ``paper:...``; other strings unchanged (for tables)."""
    for prefix, namespace in sorted(PREFIXES.items(), key=lambda item: -len(item[1])):
        local = value[len(namespace) :]
        if value.startswith(namespace) and local and all(c.isalnum() or c in "_-" for c in local):
            return f"{prefix}:{local}"
    return value


def check_params(named: NamedQuery, params: Mapping[str, str]) -> None:
    """Raise :class:`ParameterError` unless ``params`` are exactly the query's parameters."""
    missing = [name for name in named.params if name not in params]
    unknown = [name for name in params if name not in named.params]
    if missing or unknown:
        raise ParameterError(named.name, missing, unknown, list(named.params))


def _suggest(name: str, candidates: list[str]) -> str:
    by_fold: dict[str, str] = {}
    for candidate in sorted(candidates):
        by_fold.setdefault(candidate.casefold(), candidate)
    matches = difflib.get_close_matches(name.casefold(), list(by_fold), n=CLOSE_MATCHES, cutoff=0.6)
    return f"; did you mean {', '.join(repr(by_fold[m]) for m in matches)}?" if matches else ""


def _exists(store: Store, sparql: str, value: NamedNode | Literal) -> bool:
    return any(True for _ in run_query(store, sparql, {"value": value}).solutions)


def paper_term(value: str) -> NamedNode | Literal:
    """A paper parameter's term: its IRI when the value is one (``<...>`` or a
    bare ``http(s)://`` IRI), else the title or label as a string."""
    iri = value[1:-1] if value.startswith("<") and value.endswith(">") else value
    if iri.startswith(("http://", "https://")) and not any(c.isspace() for c in iri):
        try:
            return NamedNode(iri)
        except ValueError:
            pass
    return text_literal(value)


def _strings(store: Store, sparql: str) -> list[str]:
    return [s["name"].value for s in run_query(store, sparql).solutions]


def _check_concept(store: Store, param: str, value: str) -> None:
    found = _exists(
        store,
        "SELECT ?value WHERE { ?c kg:nameKey ?valueKey ; a ?class . "
        "FILTER (?class IN (kg:Method, kg:Dataset, kg:Task, kg:Metric)) } LIMIT 1",
        text_literal(value),
    )
    if not found:
        suggestions = close_matches(store, value)
        hint = (
            f"; did you mean {', '.join(repr(s) for s in suggestions)}?"
            if suggestions
            else "; `kg concept NAME` finds a concept by any of its names"
        )
        raise UnknownConceptError(f"no concept is called {value!r} (parameter {param}){hint}")


def _check_paper(store: Store, param: str, value: str) -> None:
    found = _exists(
        store,
        "SELECT ?value WHERE { { ?p kg:nameKey ?valueKey } UNION { BIND (?value AS ?p) } ?p a kg:Paper } LIMIT 1",
        paper_term(value),
    )
    if not found:
        titles = _strings(store, "SELECT DISTINCT ?name WHERE { ?p a kg:Paper ; dcterms:title|rdfs:label ?name }")
        containing = sorted(t for t in titles if value.casefold() in t.casefold())[:CLOSE_MATCHES]
        if containing:
            hint = f"; did you mean {', '.join(repr(t) for t in containing)}?"
        else:
            hint = _suggest(value, titles) or "; give a paper's full title (any case), its display label or its IRI"
        raise UnknownPaperError(f"no paper has the title or label {value!r} (parameter {param}){hint}")


def _check_author(store: Store, param: str, value: str) -> None:
    found = _exists(
        store,
        "SELECT ?value WHERE { ?person kg:nameKey ?valueKey ; a foaf:Person } LIMIT 1",
        text_literal(value),
    )
    if not found:
        names = _strings(store, "SELECT DISTINCT ?name WHERE { ?person a foaf:Person ; foaf:name ?name }")
        hint = _suggest(value, names) or "; give the name as the corpus spells it"
        raise UnknownAuthorError(f"no author is called {value!r} (parameter {param}){hint}")


_CHECKS = {"concept": _check_concept, "paper": _check_paper, "author": _check_author}


def ask(
    store: Store,
    name: str,
    params: Mapping[str, str] | None = None,
    *,
    evidence: bool = True,
    limit: int | None = None,
    timeout: float | None = None,
) -> Answer:
    """Run the library query ``name`` with ``params`` (parameter name -> value).

    Values of parameters declared as a concept, paper or author must name one
    (case-insensitively), else :class:`UnknownConceptError`,
    :class:`UnknownPaperError` or :class:`UnknownAuthorError` says so with
    close matches. Other values are bound as ``kg query --param`` binds them
    (``<...>`` makes an IRI). ``evidence=False`` drops the ``evidence...``
    columns; ``limit`` keeps the first rows only. ``timeout`` (seconds, 0: no
    limit) runs the query as :func:`kg.query.run.run_query` says.
    """
    params = dict(params or {})
    named = find_query(name)
    check_params(named, params)
    bindings: dict[str, NamedNode | Literal] = {}
    for param, value in params.items():
        kind = named.kinds.get(param)
        if kind:
            _CHECKS[kind](store, param, value)
            bindings[param] = paper_term(value) if kind == "paper" else text_literal(value)
        else:
            bindings[param] = parse_param(value)
    result = run_query(store, named.sparql, bindings, timeout=timeout)
    if result.kind != "select":
        raise QueryError(f"query {named.name!r} is not a SELECT query; run it with `kg query -f {named.name}`")
    keep = [i for i, column in enumerate(result.variables) if evidence or not column.startswith(EVIDENCE_PREFIX)]
    rows: list[tuple[str | int | None, ...]] = []
    for solution in result.solutions:
        if limit is not None and len(rows) >= limit:
            break
        values = [solution[column] for column in result.variables]
        rows.append(tuple(_plain(values[i]) for i in keep))
    return Answer(named.name, tuple(result.variables[i] for i in keep), tuple(rows))
