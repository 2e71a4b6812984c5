"""Reader for CSL JSON, as Zotero, Mendeley and citation tools export it (an
array of items), read through :mod:`kg.corpus.jsonl`.

An item maps so: ``title``; authors from ``author`` in order (``given``,
particles, ``family`` and ``suffix`` -> "Given Family", or ``literal``), with
``ORCID`` where given (Crossref's CSL carries it); ``abstract``; ``DOI``; the
arXiv id from an arXiv ``URL`` or DOI; ``PMID``; the venue ``container-title``;
the date ``issued`` (``date-parts`` [[2024, 5, 3]], as precise as they are,
or ``raw`` "2024-05-03"); as categories ``keyword`` split at commas; the url
``URL``; the source id ``id``.
"""

from __future__ import annotations

from typing import Any

from kg.corpus import jsonl
from kg.corpus.fields import iso_date, normalise_arxiv_id, normalise_doi, normalise_orcid, normalise_pmid, parse_iso_date
from kg.corpus.jsonl import BadRecord, distinct, known, member, members, people, string, web_page
from kg.records import Paper, SourceRef

__all__ = ["NAME", "SUFFIXES", "MAPPER", "looks_like", "matches", "read", "read_lines", "to_paper"]

NAME = "csl-json"
SUFFIXES = (".json",)

# Keys only CSL items have (kg's own records write "authors", "doi", "url").
_CSL_KEYS = ("author", "issued", "container-title", "DOI", "URL", "citation-key", "editor", "ISSN", "ISBN")
_NAME_PARTS = ("given", "dropping-particle", "non-dropping-particle", "family", "suffix")


def matches(record: dict[str, Any]) -> bool:
    return isinstance(record.get("type"), str) and any(key in record for key in _CSL_KEYS)


def _name(person: dict[str, Any], where: str) -> str | None:
    literal = string(person.get("literal"), "literal", where)
    parts = (string(person.get(part), part, where) for part in _NAME_PARTS)
    return literal or " ".join(part for part in parts if part) or None


def _date(item: dict[str, Any], where: str) -> tuple[int | None, str | None]:
    issued = member(item, "issued", where)
    parts = issued.get("date-parts")
    first = parts[0] if isinstance(parts, list) and parts and isinstance(parts[0], list) else []
    if first and all(isinstance(p, (int, str)) and not isinstance(p, bool) for p in first):
        return iso_date(*first[:3])
    raw = issued.get("raw")
    return parse_iso_date(raw) if isinstance(raw, str) else (None, None)


def _first(value: Any, key: str, where: str) -> str | None:
    """A text field that Crossref's CSL sometimes gives as a list of one."""
    return string(value[0] if isinstance(value, list) and value else value, key, where)


def to_paper(record: dict[str, Any], source: SourceRef, where: str) -> Paper:
    abstract = string(record.get("abstract"), "abstract", where)
    if not abstract:
        raise BadRecord("without an abstract", f"{where}: item has no 'abstract' (export it with the abstract field), or it is empty")
    authors, orcids = people((_name(p, where), known(p.get("ORCID"), normalise_orcid)) for p in members(record, "author", where))
    year, date = _date(record, where)
    keywords = record.get("keyword")
    url = web_page(record.get("URL"), "URL", where)
    return Paper(
        abstract=abstract,
        source=source,
        title=_first(record.get("title"), "title", where),
        authors=authors,
        orcids=orcids,
        venue=_first(record.get("container-title"), "container-title", where),
        year=year,
        date=date,
        categories=distinct(string(k, "keyword", where) for k in (keywords.split(",") if isinstance(keywords, str) else keywords or [])),
        doi=known(record.get("DOI"), normalise_doi),
        arxiv_id=known(url, normalise_arxiv_id) or known(record.get("DOI"), normalise_arxiv_id),
        pmid=known(record.get("PMID"), normalise_pmid),
        url=url,
        source_id=string(record.get("id"), "id", where, number=True),
    )


MAPPER = jsonl.Mapper(NAME, matches, to_paper)
looks_like, read, read_lines = MAPPER.looks_like, MAPPER.read, MAPPER.read_lines
