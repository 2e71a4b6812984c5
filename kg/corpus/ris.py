"""Reader for RIS files, as Zotero, Mendeley and EndNote export them.

A record runs from its ``TY  - `` line to its ``ER  - `` line; rispy reads
each record's tags (a line without a tag continues the one before). The file
is cut into records here first, so every record knows its line, a record that
never ends is one :class:`kg.records.Rejected` instead of swallowing the next,
and text outside records (blank lines, a header, numbering) is ignored. Lines
may end in "\\n", "\\r\\n" or "\\r".

Tags: ``TI`` or ``T1`` (else ``ST``, the short title) the title; ``AB``,
else ``N2``, the abstract (required); ``AU`` and ``A1``, one per author, in
order ("Family, Given" becomes "Given Family"); ``JF``, ``T2`` or ``JO`` the
venue; ``PY`` (or ``Y1``) "2024/05/03/" the date, or the more precise ``DA``
of the same year; ``DO`` the DOI (or a doi.org ``UR``); the arXiv id from an
arxiv.org ``UR``, an arXiv DOI or a venue "arXiv preprint arXiv:..."; ``AN``
the PubMed id when ``DB`` or ``DP`` names PubMed or MEDLINE; ``KW`` the
categories (one a tag, or several split at ";"); the first web ``UR`` that is
a valid IRI the url; ``ID`` the source id. An identifier that is not one is
dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import rispy

from kg.corpus.fields import is_valid_iri, iso_date, normalise_arxiv_id, normalise_doi, normalise_pmid
from kg.records import WEB_SCHEMES, Paper, Rejected, SourceRef
from kg.text import normalise_whitespace

__all__ = ["NAME", "SUFFIXES", "looks_like", "read"]

NAME = "ris"
SUFFIXES = (".ris",)

_START = re.compile(r"^TY  - ", re.MULTILINE)
# record tags as rispy reads them: "TY  -" or "ER  -", then anything or nothing
_RECORD_START = re.compile(r"TY  -")
_RECORD_END = re.compile(r"ER  -")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_DATE = re.compile(r"\s*(\d{4})(?:[/-](\d{0,2})(?:[/-](\d{0,2}))?)?")
_ARXIV_VENUE = re.compile(r"^(?:arxiv\s+preprint\s+)?arxiv:\s*(\S+)", re.IGNORECASE)
_PUBMED = re.compile(r"pubmed|medline", re.IGNORECASE)


def looks_like(text: str) -> bool:
    return _START.search(text[:4096]) is not None


def _records(text: str) -> Iterator[tuple[int, list[str]]]:
    """(line of its TY tag, its lines up to its ER tag) for each record; text
    between records is not given to rispy, which can fail on it."""
    start, lines = 0, list[str]()
    for number, line in enumerate(_LINE_BREAK.split(text), start=1):
        if _RECORD_START.match(line):
            if lines:
                yield start, lines
            start, lines = number, []
        if start:
            lines.append(line)
            if _RECORD_END.match(line):
                yield start, lines
                start, lines = 0, []
    if lines:
        yield start, lines


def _text(record: dict[str, Any], *names: str) -> str | None:
    """The first of the named tags that holds text."""
    for name in names:
        value = record.get(name)
        if isinstance(value, list):  # a tag rispy does not expect twice, read as a list
            value = " ".join(value)
        if isinstance(value, str) and (text := normalise_whitespace(value)):
            return text
    return None


def _texts(record: dict[str, Any], *names: str) -> list[str]:
    values = [v for name in names for v in (record.get(name) or []) if isinstance(v, str)]
    return [text for text in (normalise_whitespace(v) for v in values) if text]


def _author(name: str) -> str:
    """ "Family, Given" or "Family, Given, Suffix" as "Given Family Suffix"."""
    family, _, rest = name.partition(",")
    given, _, suffix = rest.partition(",")
    return normalise_whitespace(" ".join((given, family, suffix))) if rest.strip() else name


def _date(value: str | None) -> tuple[int | None, str | None]:
    match = _DATE.match(value or "")
    return iso_date(*(part or None for part in match.groups())) if match else (None, None)


def _dates(record: dict[str, Any]) -> tuple[int | None, str | None]:
    year, date = _date(_text(record, "year", "publication_year"))
    also_year, also_date = _date(_text(record, "date"))
    if also_year is not None and year in (None, also_year) and len(also_date or "") > len(date or ""):
        return also_year, also_date
    return (year, date) if year is not None else (also_year, also_date)


def _first(values: list[str | None], normalise: Callable[[str], str | None]) -> str | None:
    return next((found for value in values if value and (found := normalise(value)) is not None), None)


def _paper(record: dict[str, Any], source: SourceRef, where: str) -> Paper | Rejected:
    abstract = _text(record, "abstract", "notes_abstract")
    if not abstract:
        return Rejected(source.line, "without an abstract", f"{where}: record has no abstract (AB or N2), or it is empty")
    urls = _texts(record, "urls")
    venue = _text(record, "alternate_title3", "secondary_title", "journal_name")
    arxiv_venue = _ARXIV_VENUE.match(venue or "")
    doi = _first([_text(record, "doi"), *urls], normalise_doi)
    database = " ".join(filter(None, (_text(record, "name_of_database"), _text(record, "database_provider"))))
    year, date = _dates(record)
    keywords = (normalise_whitespace(k) for keyword in _texts(record, "keywords") for k in keyword.split(";"))
    return Paper(
        abstract=abstract,
        source=source,
        title=_text(record, "title", "primary_title", "short_title"),
        authors=tuple(dict.fromkeys(_author(name) for name in _texts(record, "authors", "first_authors"))),
        venue=None if arxiv_venue else venue,
        year=year,
        date=date,
        categories=tuple(dict.fromkeys(k for k in keywords if k)),
        doi=doi,
        arxiv_id=_first([*urls, doi, arxiv_venue.group(1) if arxiv_venue else None], normalise_arxiv_id),
        pmid=normalise_pmid(_text(record, "accession_number") or "") if _PUBMED.search(database) else None,
        url=next((url for url in urls if url.startswith(WEB_SCHEMES) and is_valid_iri(url)), None),
        source_id=_text(record, "id"),
    )


def read(text: str, file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
    index = 0
    for line, lines in _records(text):
        where = f"{file_name}:{line}"
        parsed = rispy.loads("\n".join(lines))
        if not parsed:
            yield Rejected(
                line, "not a complete RIS record", f"{where}: record has no 'ER  - ' line before the next 'TY  - ' or the end of the file"
            )
            continue
        index += 1
        yield _paper(parsed[0], SourceRef(file_name=file_name, sha256=sha256, line=line, index=index, format=NAME), where)
