"""Merge the papers of all inputs: one LinkedPaper per real paper, one author
per normalised name.

Two records are the same paper when they share a DOI, or when neither DOI
disagrees and their abstracts have the same words. The merged record takes
each field from the first record (in input order) that has it; categories are
the union; every source is kept for provenance.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from kg.link.identity import paper_iri_for_key, paper_key, person_iri, person_key, text_key
from kg.records import LinkedAuthor, LinkedPaper, Paper

__all__ = ["link_papers"]

_SCALAR_FIELDS = ("title", "venue", "year", "area", "award", "doi", "url", "source_id")


def _group(papers: Iterable[Paper]) -> list[tuple[list[Paper], str]]:
    """Records of one paper together, in order of first appearance, each group
    with its first record's text key (computed once: it is the costly part)."""
    groups: list[tuple[list[Paper], str]] = []
    group_doi: list[str | None] = []
    by_doi: dict[str, int] = {}
    by_text: dict[str, int] = {}
    for paper in papers:
        key = text_key(paper)
        index = by_doi.get(paper.doi) if paper.doi else None
        if index is None:
            index = by_text.get(key)
            if index is not None and paper.doi and group_doi[index] not in (None, paper.doi):
                index = None  # same abstract, different DOIs: keep them apart
        if index is None:
            index = len(groups)
            groups.append(([], key))
            group_doi.append(None)
        groups[index][0].append(paper)
        if paper.doi:
            group_doi[index] = group_doi[index] or paper.doi
            by_doi.setdefault(paper.doi, index)
        by_text.setdefault(key, index)
    return groups


def _merge(records: list[Paper]) -> Paper:
    first = records[0]
    changes: dict[str, Any] = {}  # Paper fields by name, each of its own type
    for name in _SCALAR_FIELDS:
        changes[name] = next((getattr(r, name) for r in records if getattr(r, name) is not None), None)
    changes["authors"] = next((r.authors for r in records if r.authors), ())
    changes["categories"] = tuple(dict.fromkeys(c for r in records for c in r.categories))
    return replace(first, **changes)


def link_papers(papers: Iterable[Paper]) -> list[LinkedPaper]:
    """Merge duplicates and mint IRIs; the order is that of first appearance."""
    authors: dict[str, LinkedAuthor] = {}
    linked = []
    for records, first_text_key in _group(papers):
        paper = _merge(records)  # keeps the first record's abstract, so its text key
        paper_authors = []
        for name in paper.authors:
            key = person_key(name)
            if key not in authors:
                authors[key] = LinkedAuthor(iri=person_iri(name).value, name=name)
            paper_authors.append(authors[key])
        linked.append(
            LinkedPaper(
                iri=paper_iri_for_key(paper_key(paper, first_text_key)).value,
                paper=paper,
                authors=tuple(paper_authors),
                sources=tuple(r.source for r in records),
            )
        )
    return linked
