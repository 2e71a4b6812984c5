"""Reader for Semantic Scholar: Graph API paper JSON (one paper, a batch
array, a search page ``{"total": ..., "data": [...]}``) and the lines of the
bulk datasets, whose keys are lower-cased (``corpusid``, ``externalids``):
``papers`` (metadata, never an abstract) and ``abstracts`` (``corpusid``,
``abstract``, ``openaccessinfo``). Read through :mod:`kg.corpus.jsonl`.

A paper maps so: ``title``; ``authors[].name`` in order; ``abstract``; the DOI,
arXiv id and PubMed id from ``externalIds`` (``DOI``, ``ArXiv``, ``PubMed``;
an ``abstracts`` line has them under ``openaccessinfo.externalids``); the venue
``venue``, else ``journal.name``; the date ``publicationDate``, else the year
``year``; as categories ``fieldsOfStudy``, else the ``s2FieldsOfStudy``
categories; the url ``url``; the source id ``paperId``, else ``corpusId``.
Keys are matched whatever their case. A paper without an abstract (as the
API leaves out for many, and every ``papers`` dataset line) is a record
"without an abstract": join the ``papers`` and ``abstracts`` datasets first,
or read the ``abstracts`` lines on their own.
"""

from __future__ import annotations

from typing import Any

from kg.corpus import jsonl
from kg.corpus.fields import normalise_arxiv_id, normalise_doi, normalise_pmid, parse_iso_date
from kg.corpus.jsonl import BadRecord, distinct, known, member, members, people, string, web_page
from kg.records import Paper, SourceRef

__all__ = ["NAME", "SUFFIXES", "MAPPER", "looks_like", "matches", "read", "read_lines", "to_paper"]

NAME = "s2"
SUFFIXES = (".json",)

_KEYS = {"paperid", "corpusid", "externalids"}


def matches(record: dict[str, Any]) -> bool:
    return any(key.lower() in _KEYS for key in record)


def _lower(record: dict[str, Any]) -> dict[str, Any]:
    return {key.lower(): value for key, value in record.items()}


def _categories(paper: dict[str, Any], where: str) -> tuple[str, ...]:
    fields = paper.get("fieldsofstudy")
    if isinstance(fields, list) and fields:
        return distinct(string(field, "fieldsOfStudy", where) for field in fields)
    return distinct(string(field.get("category"), "category", where) for field in members(paper, "s2fieldsofstudy", where))


def to_paper(record: dict[str, Any], source: SourceRef, where: str) -> Paper:
    paper = _lower(record)
    abstract = string(paper.get("abstract"), "abstract", where)
    if not abstract:
        raise BadRecord(
            "without an abstract",
            f"{where}: paper has no 'abstract' (ask the API for fields=abstract; 'papers' dataset lines never have one, 'abstracts' lines do)",
        )
    ids = _lower(member(paper, "externalids", where) or member(member(paper, "openaccessinfo", where), "externalids", where))
    published = string(paper.get("publicationdate"), "publicationDate", where)
    year, date = parse_iso_date(published) if published else (None, None)
    authors, _ = people((string(author.get("name"), "name", where), None) for author in members(paper, "authors", where))
    venue = string(paper.get("venue"), "venue", where) or string(member(paper, "journal", where).get("name"), "name", where)
    return Paper(
        abstract=abstract,
        source=source,
        title=string(paper.get("title"), "title", where),
        authors=authors,
        venue=venue,
        year=year or jsonl.year(paper.get("year")),
        date=date,
        categories=_categories(paper, where),
        doi=known(ids.get("doi"), normalise_doi),
        arxiv_id=known(ids.get("arxiv"), normalise_arxiv_id),
        pmid=known(ids.get("pubmed"), normalise_pmid),
        url=web_page(paper.get("url"), "url", where),
        source_id=string(paper.get("paperid"), "paperId", where) or string(paper.get("corpusid"), "corpusId", where, number=True),
    )


MAPPER = jsonl.Mapper(NAME, matches, to_paper)
looks_like, read, read_lines = MAPPER.looks_like, MAPPER.read, MAPPER.read_lines
