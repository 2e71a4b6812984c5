"""Asking a named question: ``kg ask NAME --PARAM VALUE``.

Runs a query of the library (``kg/query/library/*.rq``) with its parameters
and returns plain records: column names and rows of strings, integers and
booleans, ready for a table, CSV, JSON or a notebook. Values are bound as RDF
terms (never pasted into the query text).

A parameter declared as naming a concept, a paper or an author
(``# param NAME (KIND):``) is resolved first (:func:`resolve`) and bound as
the IRI of the node it names. Its value may be any name the node goes by (a
concept's preferred or alternative labels, a paper's title or display label,
a person's name; any case) or the node's IRI (``<...>``, bare, or prefixed
as tables print it, ``concept:method-lora``). A value that names nothing is
an error with close matches, never an empty answer. A name that several
nodes go by ("VMR": a method, a dataset and a task of that name) answers for
each of them: the query runs once per node, the most mentioned first, and
the parameter's own column, which holds the node's IRI, tells the blocks of
rows apart (an IRI picks one).

Queries whose rows state a relation carry the evidence behind each row in
columns named ``evidence...`` (``evidencePaper``, the paper's IRI, and
``evidenceSentence``); :func:`ask` drops them when ``evidence=False``.
An :class:`Answer` keeps every column as RDF terms too, so that
:meth:`Answer.draw` can draw it as the query's ``# draw:`` header says.
"""

from __future__ import annotations

import difflib
import itertools
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pyoxigraph import BlankNode, Literal, NamedNode, Store

from kg.errors import KgError, QueryError
from kg.query.concepts import UnknownConceptError, close_matches
from kg.query.library import DrawPattern, NamedQuery, find_query
from kg.query.run import QueryTimeout, parse_param, run_query, text_literal
from kg.text import normalise_whitespace
from kg.vocab import PREFIXES

__all__ = [
    "EVIDENCE_PREFIX",
    "Answer",
    "Terms",
    "ParameterError",
    "UnknownAuthorError",
    "UnknownPaperError",
    "ask",
    "check_params",
    "node_iri",
    "resolve",
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


_ERRORS: dict[str, type[KgError]] = {"concept": UnknownConceptError, "paper": UnknownPaperError, "author": UnknownAuthorError}


@dataclass(frozen=True)
class Terms:
    """Every column of an answer (the evidence too) and its rows as RDF terms (None: unbound)."""

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]


@dataclass(frozen=True)
class Answer:
    """A named query's answer: column names and rows of plain values
    (``str`` for IRIs and text, ``int`` for integers, ``bool`` for booleans,
    ``None`` where a column is unbound)."""

    query: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str | int | None, ...], ...]
    question: str = ""
    params: tuple[tuple[str, str], ...] = ()  # as asked: (parameter, value)
    drawing: tuple[DrawPattern, ...] = ()  # the query's ``# draw:`` header
    terms: Terms | None = field(default=None, compare=False, repr=False)
    store: Store | None = field(default=None, compare=False, repr=False)

    def draw(self, out: str | Path | None = None) -> Path:
        """Draw the answer as an interactive page (:func:`kg.views.answer.draw_answer`); the page's path."""
        from kg.views.answer import draw_answer

        return draw_answer(self, Path(out) if out is not None else None)

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


_KIND_CLASSES = {
    "concept": "?class IN (kg:Method, kg:Dataset, kg:Task, kg:Metric)",
    "paper": "?class = kg:Paper",
    "author": "?class = foaf:Person",
}
# What orders the nodes one name finds: the papers that mention the concept, that the person wrote.
_KIND_PAPERS = {"concept": "OPTIONAL { ?paper kg:mentions ?node }", "paper": "", "author": "OPTIONAL { ?paper dcterms:creator ?node }"}
_NAMED_BY = {"concept": "one of its labels", "paper": "its title or label", "author": "the name as the corpus spells it"}
_PREFIXED = re.compile(r"([a-z]+):([\w.-]+)")


def node_iri(value: str) -> NamedNode | None:
    """The IRI a parameter value spells, if it spells one: ``<...>``, a bare
    ``http(s)://`` IRI, or a prefixed name as tables print it (``concept:method-lora``)."""
    text = value.strip()
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1]
    elif (prefixed := _PREFIXED.fullmatch(text)) and prefixed[1] in PREFIXES:
        text = PREFIXES[prefixed[1]] + prefixed[2]
    if not text.startswith(("http://", "https://")) or any(c.isspace() for c in text):
        return None
    try:
        return NamedNode(text)
    except ValueError:
        return None


def _strings(store: Store, sparql: str) -> list[str]:
    return [s["name"].value for s in run_query(store, sparql).solutions]


def _concept_hint(store: Store, value: str) -> str:
    suggestions = close_matches(store, value)
    if suggestions:
        return f"; did you mean {', '.join(repr(s) for s in suggestions)}?"
    return "; `kg concept NAME` finds a concept by any of its names"


def _paper_hint(store: Store, value: str) -> str:
    titles = _strings(store, "SELECT DISTINCT ?name WHERE { ?p a kg:Paper ; dcterms:title|rdfs:label ?name }")
    containing = sorted(t for t in titles if value.casefold() in t.casefold())[:CLOSE_MATCHES]
    if containing:
        return f"; did you mean {', '.join(repr(t) for t in containing)}?"
    return _suggest(value, titles) or "; give a paper's full title (any case), its display label or its IRI"


def _author_hint(store: Store, value: str) -> str:
    names = _strings(store, "SELECT DISTINCT ?name WHERE { ?person a foaf:Person ; foaf:name ?name }")
    return _suggest(value, names) or "; give the name as the corpus spells it"


def _unknown(store: Store, kind: str, param: str, value: str, iri: NamedNode | None) -> KgError:
    where = f"(parameter {param})"
    if iri is not None:
        what = {"concept": "concept", "paper": "paper", "author": "person"}[kind]
        return _ERRORS[kind](f"no {what} has the IRI {iri} {where}; give its IRI as kg prints it, or {_NAMED_BY[kind]}")
    if kind == "concept":
        return UnknownConceptError(f"no concept is called {value!r} {where}" + _concept_hint(store, value))
    if kind == "paper":
        return UnknownPaperError(f"no paper has the title or label {value!r} {where}" + _paper_hint(store, value))
    return UnknownAuthorError(f"no author is called {value!r} {where}" + _author_hint(store, value))


def resolve(store: Store, kind: str, param: str, value: str) -> list[NamedNode]:
    """The nodes a ``kind`` parameter's value names: the node whose IRI it is
    (:func:`node_iri`), or the concepts (papers, people) that go by it in any
    case, the most mentioned concepts (most prolific people) first. :class:`UnknownConceptError`,
    :class:`UnknownPaperError` or :class:`UnknownAuthorError`, with close
    matches, when it names none."""
    iri = node_iri(value)
    sparql = (
        "SELECT ?name ?node (COUNT(DISTINCT ?paper) AS ?papers) WHERE { ?nameKey (^kg:nameKey)? ?node . "
        f"?node a ?class . FILTER ({_KIND_CLASSES[kind]}) {_KIND_PAPERS[kind]} }} GROUP BY ?name ?node ORDER BY DESC(?papers) ?node"
    )
    term = iri if iri is not None else text_literal(normalise_whitespace(value))
    nodes = [s["node"] for s in run_query(store, sparql, {"name": term}).solutions if isinstance(s["node"], NamedNode)]
    if not nodes:
        raise _unknown(store, kind, param, value, iri)
    return nodes


def _time_left(timeout: float | None, started: float) -> float | None:
    """What is left of ``timeout`` (None: run in this thread; 0: no limit) for the next run."""
    if not timeout:
        return timeout
    left = timeout - (time.monotonic() - started)
    if left <= 0:
        raise QueryTimeout(timeout)
    return left


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

    A parameter declared as a concept, paper or author is bound as the IRI of
    the node its value names (:func:`resolve`); a value several nodes go by
    runs the query once per node, in :func:`resolve`'s order, and the answers
    follow one another. Other values are bound as ``kg query --param`` binds
    them (``<...>`` makes an IRI). ``evidence=False`` drops the
    ``evidence...`` columns; ``limit`` keeps the first rows only. ``timeout``
    (seconds for all the runs, 0: no limit) runs the query as
    :func:`kg.query.run.run_query` says.
    """
    params = dict(params or {})
    named = find_query(name)
    check_params(named, params)
    started = time.monotonic()
    choices = [
        [(param, term) for term in (resolve(store, named.kinds[param], param, value) if param in named.kinds else [parse_param(value)])]
        for param, value in params.items()
    ]
    columns: tuple[str, ...] = ()
    everything: tuple[str, ...] = ()
    rows: list[tuple[str | int | None, ...]] = []
    terms: list[tuple] = []
    for bindings in itertools.product(*choices):
        if limit is not None and len(rows) >= limit:
            break
        try:
            result = run_query(store, named.sparql, dict(bindings), timeout=_time_left(timeout, started))
        except QueryTimeout:
            raise QueryTimeout(timeout or 0) from None  # the limit the user gave, not what was left of it
        if result.kind != "select":
            raise QueryError(f"query {named.name!r} is not a SELECT query; run it with `kg query -f {named.name}`")
        keep = [i for i, column in enumerate(result.variables) if evidence or not column.startswith(EVIDENCE_PREFIX)]
        columns, everything = tuple(result.variables[i] for i in keep), tuple(result.variables)
        for solution in result.solutions:
            if limit is not None and len(rows) >= limit:
                break
            values = tuple(solution[column] for column in result.variables)
            rows.append(tuple(_plain(values[i]) for i in keep))
            terms.append(values)
    return Answer(
        named.name,
        columns,
        tuple(rows),
        named.question,
        tuple(params.items()),
        named.draw,
        Terms(everything, tuple(terms)),
        store,
    )
