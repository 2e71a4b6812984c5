"""Merge the papers of all inputs: one LinkedPaper per real paper, one author
per normalised name.

Two records are the same paper when they share an identifier (a DOI, an
arXiv id or a PubMed id: a BibTeX entry with both a DOI and an arXiv id joins
the OpenAlex record of that DOI and the arXiv record of that id), or when
their abstracts have the same words and no identifier of one kind disagrees
(two DOIs, two arXiv ids). An arXiv DOI (10.48550/arXiv.ID) counts as the
arXiv id. The merged record takes each field from the first record (in input
order) that has it; categories are the union; every source is kept for
provenance.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from kg.corpus.fields import normalise_arxiv_id
from kg.link.identity import paper_iri_for_key, paper_key, person_iri, person_key, text_key
from kg.records import LinkedAuthor, LinkedPaper, Paper

__all__ = ["link_papers"]

_SCALAR_FIELDS = ("title", "venue", "year", "area", "award", "doi", "arxiv_id", "pmid", "url", "source_id")


def _identifiers(paper: Paper) -> dict[str, str]:
    """The paper's identifiers by kind; an arXiv DOI is its arXiv id."""
    found = {}
    arxiv = paper.arxiv_id or (normalise_arxiv_id(paper.doi) if paper.doi else None)
    if paper.doi and not (arxiv and normalise_arxiv_id(paper.doi) == arxiv):
        found["doi"] = paper.doi
    if arxiv:
        found["arxiv"] = arxiv
    if paper.pmid:
        found["pmid"] = paper.pmid
    return found


class _Groups:
    """Records of one paper together, a union-find over groups: a record that
    shares identifiers with two groups joins them into one."""

    def __init__(self) -> None:
        self.records: list[list[tuple[int, Paper]]] = []  # (input position, record)
        self.text_keys: list[str] = []  # each group's first record's text key (costly: computed once)
        self.ids: list[dict[str, str]] = []  # each group's identifiers by kind, the first seen of each
        self.parent: list[int] = []
        self.by_id: dict[tuple[str, str], int] = {}
        self.by_text: dict[str, int] = {}
        self.seen = 0

    def find(self, index: int) -> int:
        while self.parent[index] != index:
            self.parent[index] = self.parent[self.parent[index]]
            index = self.parent[index]
        return index

    def add(self, paper: Paper) -> None:
        key = text_key(paper)
        ids = _identifiers(paper)
        found = sorted({self.find(self.by_id[item]) for item in ids.items() if item in self.by_id})
        if not found and key in self.by_text:
            index = self.find(self.by_text[key])
            if all(self.ids[index].get(kind, value) == value for kind, value in ids.items()):
                found = [index]  # same words, and no identifier says otherwise
        if not found:
            found = [len(self.records)]
            self.records.append([])
            self.text_keys.append(key)
            self.ids.append({})
            self.parent.append(found[0])
        index = found[0]  # the earliest group: it keeps its place, its text key, its first identifiers
        for other in found[1:]:
            self.parent[other] = index
            self.records[index].extend(self.records[other])
            self.records[other] = []
            self.ids[index] = self.ids[other] | self.ids[index]
        self.records[index].append((self.seen, paper))
        self.seen += 1
        self.ids[index] = ids | self.ids[index]
        for item in ids.items():
            self.by_id.setdefault(item, index)
        self.by_text.setdefault(key, index)

    def groups(self) -> list[tuple[list[Paper], str]]:
        """Each paper's records in input order, papers in order of first appearance."""
        return [
            ([paper for _, paper in sorted(records, key=lambda r: r[0])], self.text_keys[i])
            for i, records in enumerate(self.records)
            if records
        ]


def _merge(records: list[Paper]) -> Paper:
    first = records[0]
    changes: dict[str, Any] = {}  # Paper fields by name, each of its own type
    for name in _SCALAR_FIELDS:
        changes[name] = next((getattr(r, name) for r in records if getattr(r, name) is not None), None)
    dated = max((r for r in records if r.date is not None), key=lambda r: len(r.date or ""), default=None)
    if dated is not None:  # the most precise date, and the year it is in
        changes["date"], changes["year"] = dated.date, dated.year
    dois = [r.doi for r in records if r.doi]
    changes["doi"] = next((d for d in dois if normalise_arxiv_id(d) is None), dois[0] if dois else None)  # the publisher's over arXiv's
    authors = next((r.authors for r in records if r.authors), ())
    # an ORCID from any source, matched by the author's name (sources spell names alike or not at all)
    orcids = {person_key(n): o for r in reversed(records) for n, o in zip(r.authors, r.orcids, strict=False) if o}
    changes["authors"] = authors
    changes["orcids"] = tuple(orcids.get(person_key(n)) for n in authors) if orcids else ()
    changes["categories"] = tuple(dict.fromkeys(c for r in records for c in r.categories))
    return replace(first, **changes)


def link_papers(papers: Iterable[Paper]) -> list[LinkedPaper]:
    """Merge duplicates and mint IRIs; the order is that of first appearance.

    An author is one person per normalised name, and names that share an
    ORCID are one person too (the first name seen names them)."""
    groups = _Groups()
    for paper in papers:
        groups.add(paper)
    authors: dict[str, LinkedAuthor] = {}
    linked = []
    for records, first_text_key in groups.groups():
        paper = _merge(records)  # keeps the first record's abstract, so its text key
        paper_authors = []
        for name, orcid in zip(paper.authors, paper.orcids or (None,) * len(paper.authors), strict=True):
            key = person_key(name)
            author = authors.get(f"orcid:{orcid}") if orcid else None
            author = author or authors.get(key) or LinkedAuthor(iri=person_iri(name).value, name=name, orcid=orcid)
            if orcid and author.orcid is None:
                author = replace(author, orcid=orcid)
            authors.setdefault(key, author)
            if orcid:
                authors[f"orcid:{orcid}"] = author
            paper_authors.append(author)
        linked.append(
            LinkedPaper(
                iri=paper_iri_for_key(paper_key(paper, first_text_key)).value,
                paper=paper,
                authors=tuple(paper_authors),
                sources=tuple(r.source for r in records),
            )
        )
    return linked
