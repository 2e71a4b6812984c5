"""Reader for JSON Lines, the documented interchange format: one paper per line,

    {"id"?, "title"?, "abstract", "authors"?: [..], "year"?, "date"?, "venue"?,
     "categories"?: [..], "url"?, "doi"?}

Only "abstract" is required. A "date" is ISO 8601, "2025-08", "2025-08-18" or
a timestamp starting so (its time is dropped); it gives the year when "year" is
missing and must agree with it when not. Unknown keys are ignored; blank lines are skipped.
A "url" that starts with http:// or https:// becomes the paper's foaf:page IRI,
so it must be a valid IRI (RFC 3987: no spaces or quotes, "%" only before two
hex digits); a record whose url is not is a bad record, not a failed build.
Lines end at "\n", "\r\n" or "\r" only (JSON strings may hold U+2028 and
other characters Python's splitlines counts as line breaks). A line that is
not a usable record (not JSON, not an object, no abstract, a field of the
wrong type) is yielded as a :class:`kg.records.Rejected` naming its line,
never raised, so one bad line does not stop the rest of the file.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Iterator
from typing import Any

from pyoxigraph import NamedNode

from kg.records import WEB_SCHEMES, Paper, Rejected, SourceRef
from kg.text import normalise_whitespace

__all__ = ["NAME", "SUFFIXES", "looks_like", "read", "normalise_doi"]

NAME = "jsonl"
SUFFIXES = (".jsonl", ".ndjson")

#: The years a record may give (``dcterms:issued`` is an ``xsd:gYear`` of four digits).
YEARS = range(1000, 10000)

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)


def looks_like(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.lstrip().startswith("{")


def normalise_doi(doi: str) -> str:
    """DOIs are case-insensitive: keep the bare, lower-cased form."""
    return _DOI_PREFIX.sub("", doi.strip()).lower()


class _Bad(Exception):
    """A record that cannot be used: ``kind`` counts it, the message explains it."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _text(value: Any, key: str, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key == "id" and math.isfinite(value):
        value = str(value)
    if not isinstance(value, str):
        raise _Bad("with a field of the wrong type", f"{where}: {key!r} must be a string, not {type(value).__name__}")
    return normalise_whitespace(value) or None


def _texts(value: Any, key: str, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Bad("with a field of the wrong type", f"{where}: {key!r} must be a list of strings")
    return tuple(t for t in (normalise_whitespace(v) for v in value) if t)


def _year(value: Any, where: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) <= 4:
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value in YEARS:
        return value
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
    raise _Bad("with a field of the wrong type", f"{where}: 'year' must be a four-digit year like 2025, not {shown}")


_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:[T ].*)?")


def _date(value: Any, year: int | None, where: str) -> tuple[int | None, str | None]:
    """(year, ISO date or year-month) from a record's ``date`` and its ``year``."""
    if value is None or value == "":
        return year, None
    match = _DATE.fullmatch(value.strip()) if isinstance(value, str) else None
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
    wrong = _Bad("with a field of the wrong type", f"{where}: 'date' must be an ISO date like 2025-08-18 or 2025-08, not {shown}")
    if match is None:
        raise wrong
    found, month, day = match.groups()
    try:
        datetime.date(int(found), int(month or 1), int(day or 1))
    except ValueError:
        raise wrong from None
    if int(found) not in YEARS:
        raise wrong
    if year is not None and year != int(found):
        raise _Bad("with a field of the wrong type", f"{where}: 'date' {value.strip()!r} is not in 'year' {year}")
    return int(found), "-".join(part for part in (found, month, day) if part) if month else None


def _url(value: Any, where: str) -> str | None:
    url = _text(value, "url", where)
    if url is not None and url.startswith(WEB_SCHEMES):
        try:
            NamedNode(url)  # Oxigraph's own check: what it refuses here would stop the build later
        except ValueError as exc:
            shown = repr(url) if len(repr(url)) <= 80 else repr(url)[:80] + "..."
            raise _Bad(
                "with a url that is not a valid IRI",
                f"{where}: 'url' must be a valid IRI, not {shown} ({exc}); percent-encode it (a space is %20)",
            ) from None
    return url


def _paper(record: Any, source: SourceRef, where: str) -> Paper:
    if not isinstance(record, dict):
        raise _Bad("not a JSON object", f"{where}: each line must be a JSON object, not {type(record).__name__}")
    abstract = _text(record.get("abstract"), "abstract", where)
    if not abstract:
        raise _Bad("without an abstract", f"{where}: paper has no 'abstract' (it is the one required key), or it is empty")
    doi = _text(record.get("doi"), "doi", where)
    year, date = _date(record.get("date"), _year(record.get("year"), where), where)
    return Paper(
        abstract=abstract,
        source=source,
        title=_text(record.get("title"), "title", where),
        authors=_texts(record.get("authors"), "authors", where),
        venue=_text(record.get("venue"), "venue", where),
        year=year,
        date=date,
        categories=_texts(record.get("categories"), "categories", where),
        doi=normalise_doi(doi) if doi else None,
        url=_url(record.get("url"), where),
        source_id=_text(record.get("id"), "id", where),
    )


def _lines(text: str) -> Iterator[str]:
    """``_LINE_BREAK.split(text)``, one line at a time: a list of every line of
    a large file would double the reader's memory."""
    start = 0
    for match in _LINE_BREAK.finditer(text):
        yield text[start : match.start()]
        start = match.end()
    yield text[start:]


def read(text: str, file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
    index = 0
    for number, line in enumerate(_lines(text), start=1):
        if not line.strip():
            continue
        where = f"{file_name}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            yield Rejected(number, "not JSON", f"{where}: not valid JSON ({exc.msg} at column {exc.colno})")
            continue
        except (ValueError, RecursionError) as exc:  # a 5000-digit number, arrays nested 100000 deep ...
            detail = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).split(";")[0]
            yield Rejected(number, "not JSON", f"{where}: not usable JSON ({detail})")
            continue
        index += 1
        source = SourceRef(file_name=file_name, sha256=sha256, line=number, index=index, format=NAME)
        try:
            paper = _paper(record, source, where)
        except _Bad as exc:
            yield Rejected(number, exc.kind, str(exc))
            continue
        yield paper
