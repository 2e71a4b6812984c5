"""Reader for the arXiv metadata snapshot (Kaggle's
``arxiv-metadata-oai-snapshot.json``: JSON Lines, one e-print per line), read
through :mod:`kg.corpus.jsonl`.

A line maps so: ``title``; authors from ``authors_parsed`` ([last, first,
suffix, affiliation...] -> "First Last Suffix"), else from the ``authors``
string; ``abstract``; ``doi`` (the first, when it lists several); the arXiv id
and source id ``id``; the venue ``journal-ref``; the date the first version's
``versions[0].created`` (RFC 2822: "Mon, 2 Apr 2007 19:18:42 GMT" gives
2007-04-02), else ``update_date`` (the last change to the record, a later
date); the categories ``categories`` split at spaces; the url
https://arxiv.org/abs/<id>.
"""

from __future__ import annotations

import email.utils
from typing import Any

from kg.corpus import jsonl
from kg.corpus.fields import iso_date, normalise_arxiv_id, normalise_doi, parse_iso_date, split_author_list
from kg.corpus.jsonl import BadRecord, known, members, string
from kg.records import Paper, SourceRef
from kg.text import normalise_whitespace

__all__ = ["NAME", "SUFFIXES", "MAPPER", "looks_like", "matches", "read", "read_lines", "to_paper"]

NAME = "arxiv"
SUFFIXES = (".json",)


def matches(record: dict[str, Any]) -> bool:
    return "authors_parsed" in record or ("versions" in record and "update_date" in record)


def _authors(record: dict[str, Any], where: str) -> tuple[str, ...]:
    parsed = record.get("authors_parsed")
    if parsed is None:
        return split_author_list(string(record.get("authors"), "authors", where) or "")
    if not isinstance(parsed, list) or not all(isinstance(parts, list) and all(isinstance(p, str) for p in parts) for parts in parsed):
        raise BadRecord("with a field of the wrong type", f"{where}: 'authors_parsed' must be a list of [last, first, suffix] lists")
    names = (" ".join(p for p in (parts[1:2] + parts[:1] + parts[2:3]) if p.strip()) for parts in parsed)
    return tuple(name for name in (normalise_whitespace(n) for n in names) if name)


def _date(record: dict[str, Any], where: str) -> tuple[int | None, str | None]:
    first = next(iter(members(record, "versions", where)), {})
    created = string(first.get("created"), "created", where)
    try:
        when = email.utils.parsedate_to_datetime(created) if created else None
    except (TypeError, ValueError):
        when = None
    if when is not None:
        return iso_date(when.year, when.month, when.day)
    updated = string(record.get("update_date"), "update_date", where)
    return parse_iso_date(updated) if updated else (None, None)


def to_paper(record: dict[str, Any], source: SourceRef, where: str) -> Paper:
    abstract = string(record.get("abstract"), "abstract", where)
    if not abstract:
        raise BadRecord("without an abstract", f"{where}: e-print has no 'abstract', or it is empty")
    identifier = string(record.get("id"), "id", where, number=True)
    arxiv_id = known(identifier, normalise_arxiv_id)
    doi = string(record.get("doi"), "doi", where)
    year, date = _date(record, where)
    return Paper(
        abstract=abstract,
        source=source,
        title=string(record.get("title"), "title", where),
        authors=_authors(record, where),
        venue=string(record.get("journal-ref"), "journal-ref", where),
        year=year,
        date=date,
        categories=tuple((string(record.get("categories"), "categories", where) or "").split()),
        doi=normalise_doi(doi.split()[0]) if doi else None,
        arxiv_id=arxiv_id,
        url=f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else None,
        source_id=identifier,
    )


MAPPER = jsonl.Mapper(NAME, matches, to_paper)
looks_like, read, read_lines = MAPPER.looks_like, MAPPER.read, MAPPER.read_lines
