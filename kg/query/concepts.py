"""Looking up a concept by any of its names: ``kg concept NAME``.

Answers "what does the graph know about X, and why are these spellings one
concept?" from the store alone, with the library queries ``concepts-named``,
``concept-forms``, ``concept-papers`` and ``concept-hierarchy``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from pyoxigraph import NamedNode, Store

from kg.errors import KgError
from kg.query.library import find_query
from kg.query.run import run_query

__all__ = ["ConceptReport", "FormReport", "PaperReport", "RelatedConcept", "UnknownConceptError", "describe_concepts"]

CLOSE_MATCHES = 5


class UnknownConceptError(KgError):
    """No concept has the label asked for."""


@dataclass(frozen=True)
class FormReport:
    text: str
    mentions: int
    rules: str  # comma-separated merge rules
    notes: str


@dataclass(frozen=True)
class PaperReport:
    iri: str
    label: str
    proposed: bool
    mentions: int
    evidence: str  # a sentence of the paper that mentions the concept


@dataclass(frozen=True)
class RelatedConcept:
    direction: str  # "broader" or "narrower"
    iri: str
    label: str
    rules: str
    evidence: str | None


@dataclass(frozen=True)
class ConceptReport:
    iri: str
    type: str
    pref_label: str
    exact_match: str | None
    alt_labels: tuple[str, ...]
    forms: tuple[FormReport, ...]
    papers: tuple[PaperReport, ...]
    hierarchy: tuple[RelatedConcept, ...]


def _rows(store: Store, name: str, **params) -> list[dict]:
    result = run_query(store, find_query(name).sparql, params)
    return [{v: (s[v].value if s[v] is not None else None) for v in result.variables} for s in result.solutions]


def _alt_labels(store: Store, iri: str) -> tuple[str, ...]:
    result = run_query(store, "SELECT ?concept ?alt WHERE { ?concept skos:altLabel ?alt } ORDER BY ?alt", {"concept": NamedNode(iri)})
    return tuple(s["alt"].value for s in result.solutions)


def _all_labels(store: Store) -> list[str]:
    """Every concept's labels (not the topics': no concept parameter takes a topic)."""
    result = run_query(
        store,
        "SELECT DISTINCT ?label WHERE { ?c skos:prefLabel|skos:altLabel ?label ; a ?class . "
        "FILTER (?class IN (kg:Method, kg:Dataset, kg:Task, kg:Metric)) }",
    )
    return sorted(s["label"].value for s in result.solutions)


def close_matches(store: Store, name: str) -> list[str]:
    labels = _all_labels(store)
    by_fold: dict[str, str] = {}
    for label in labels:
        by_fold.setdefault(label.casefold(), label)
    matches = difflib.get_close_matches(name.casefold(), list(by_fold), n=CLOSE_MATCHES, cutoff=0.6)
    return [by_fold[m] for m in matches]


def describe_concepts(store: Store, name: str, concept_type: str | None = None) -> list[ConceptReport]:
    """Every concept (of ``concept_type``, if given) whose label or alternative
    label is ``name``, case-insensitively; most-mentioned first.

    Raises :class:`UnknownConceptError`, naming close matches, when there is none.
    """
    found = [r for r in _rows(store, "concepts-named", label=name) if concept_type in (None, r["type"])]
    if not found:
        suggestions = close_matches(store, name)
        hint = (
            f"; did you mean {', '.join(repr(s) for s in suggestions)}?"
            if suggestions
            else "; `kg query -f topics` and `kg top` list what there is"
        )
        kind = f"{concept_type} " if concept_type else ""
        raise UnknownConceptError(f"no {kind}concept is called {name!r}{hint}")
    reports = []
    for row in found:
        iri = NamedNode(row["concept"])
        forms = tuple(
            FormReport(r["form"], int(r["mentions"]), r["rules"], r["notes"] or "") for r in _rows(store, "concept-forms", concept=iri)
        )
        papers = tuple(
            PaperReport(r["paper"], r["label"], r["proposed"] == "true", int(r["mentions"]), r["evidence"])
            for r in _rows(store, "concept-papers", concept=iri)
        )
        hierarchy = tuple(
            RelatedConcept(r["direction"], r["other"], r["otherLabel"], r["rules"], r["evidence"])
            for r in _rows(store, "concept-hierarchy", concept=iri)
        )
        reports.append(
            ConceptReport(
                row["concept"],
                row["type"],
                row["prefLabel"],
                row["exactMatch"],
                _alt_labels(store, row["concept"]),
                forms,
                papers,
                hierarchy,
            )
        )
    return reports
