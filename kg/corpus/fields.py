"""Field normalisers every reader shares, so that the same paper read from two
formats gives the same identifiers, dates and names (and so one node).

Each returns ``None`` for a value it cannot make sense of; a reader decides
whether that makes the record bad (see :mod:`kg.corpus`).
"""

from __future__ import annotations

import datetime
import re

from pyoxigraph import NamedNode

from kg.records import WEB_SCHEMES
from kg.text import normalise_whitespace

__all__ = [
    "YEARS",
    "MONTHS",
    "normalise_doi",
    "normalise_arxiv_id",
    "normalise_pmid",
    "normalise_orcid",
    "iso_date",
    "parse_iso_date",
    "is_valid_iri",
    "split_author_list",
]

#: The years a record may give (``dcterms:issued`` is an ``xsd:gYear`` of four digits).
YEARS = range(1000, 10000)
#: Month names and abbreviations as BibTeX, RIS and MEDLINE write them.
MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}

_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d+/.+)$", re.IGNORECASE)
# arXiv's DataCite DOIs name the e-print itself: 10.48550/arXiv.2502.05628
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV = re.compile(
    r"^(?:https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/|arxiv:\s*)?"
    r"(\d{4}\.\d{4,5}|[a-z][a-z.-]*/\d{7})(?:v\d+)?(?:\.pdf)?$",
    re.IGNORECASE,
)
_PMID = re.compile(r"^(?:pmid:\s*|https?://pubmed\.ncbi\.nlm\.nih\.gov/)?(\d{1,9})/?$", re.IGNORECASE)
_ORCID = re.compile(r"^(?:https?://orcid\.org/)?(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$", re.IGNORECASE)
_ISO = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[T ].*)?")


def normalise_doi(doi: str) -> str | None:
    """The bare, lower-cased DOI (DOIs are case-insensitive), without a
    ``https://doi.org/`` or ``doi:`` prefix; None if it is not a DOI."""
    match = _DOI.match(normalise_whitespace(doi))
    return match.group(1).lower() if match else None


def normalise_arxiv_id(value: str) -> str | None:
    """An arXiv identifier without prefix or version ("2502.05628",
    "cs/0112017"), from an id, an abs/pdf URL, or an arXiv DOI."""
    value = normalise_whitespace(value)
    if (doi := normalise_doi(value)) is not None:
        if (arxiv := _ARXIV_DOI.match(doi)) is None:
            return None
        value = arxiv.group(1)
    match = _ARXIV.match(value)
    return match.group(1).lower() if match else None


def normalise_pmid(value: str | int) -> str | None:
    match = _PMID.match(normalise_whitespace(str(value)))
    return str(int(match.group(1))) if match and int(match.group(1)) > 0 else None


def normalise_orcid(value: str) -> str | None:
    """The ORCID iD as its https://orcid.org/ IRI (the form ORCID asks for)."""
    match = _ORCID.match(normalise_whitespace(value))
    return f"https://orcid.org/{match.group(1).upper()}" if match else None


def iso_date(year: int | str | None, month: int | str | None = None, day: int | str | None = None) -> tuple[int | None, str | None]:
    """(year, ISO date) from parts as sources give them: ``month`` may be a
    number or a name ("Mar", "march"); the date is "YYYY-MM-DD" or "YYYY-MM"
    when the source is that precise, else None. A part that does not make a
    real date is dropped with the ones after it ("2025-02-30" gives 2025-02)."""
    try:
        found = int(str(year).strip()) if year is not None and str(year).strip() else None
    except ValueError:
        return None, None
    if found is None or found not in YEARS:
        return None, None
    number = _month(month)
    if number is None:
        return found, None
    try:
        day_number = int(str(day).strip()) if day is not None and str(day).strip() else None
        if day_number is not None:
            datetime.date(found, number, day_number)
            return found, f"{found:04d}-{number:02d}-{day_number:02d}"
    except ValueError:
        pass
    return found, f"{found:04d}-{number:02d}"


def parse_iso_date(value: str) -> tuple[int | None, str | None]:
    """(year, date) from "2025", "2025-08", "2025-08-18" or a timestamp starting
    so; (None, None) if it is none of those."""
    match = _ISO.fullmatch(normalise_whitespace(value))
    if match is None:
        return None, None
    year, month, day = match.groups()
    found, date = iso_date(year, month, day)
    if month and (date is None or (day and len(date) != 10)):
        return None, None  # "2025-13" or "2025-02-30": not a date, not a year either
    return found, date


def _month(month: int | str | None) -> int | None:
    if month is None:
        return None
    text = str(month).strip().lower().rstrip(".")
    number = MONTHS.get(text) if not text.isdigit() else int(text)
    return number if number is not None and 1 <= number <= 12 else None


def is_valid_iri(url: str) -> bool:
    """Whether Oxigraph accepts ``url`` as an IRI (what it refuses would stop the
    build later); only asked of urls that start with :data:`WEB_SCHEMES`."""
    if not url.startswith(WEB_SCHEMES):
        return True
    try:
        NamedNode(url)
    except ValueError:
        return False
    return True


_AND = re.compile(r",?\s+and\s+|\s*&\s*|\s*;\s*")


def split_author_list(text: str) -> tuple[str, ...]:
    """Authors from one string as arXiv and many exports write them:
    "A. Smith, B. Jones and C. Lee" or "Smith, A.; Jones, B." (semicolons
    separate people when present, so "Surname, Given" stays whole)."""
    text = normalise_whitespace(text)
    if not text:
        return ()
    if ";" in text:
        parts = text.split(";")
    else:
        parts = [p for chunk in _AND.split(text) for p in chunk.split(",")]
    return tuple(name for name in (normalise_whitespace(p) for p in parts) if name)
