"""Reader for JSON: kg's own JSON Lines, and the container for the JSON that
OpenAlex, Semantic Scholar, the arXiv metadata snapshot and CSL JSON exports give.

kg's JSON Lines, the documented interchange format, is one paper per line,

    {"id"?, "title"?, "abstract", "authors"?: [..], "year"?, "date"?, "venue"?,
     "categories"?: [..], "url"?, "doi"?, "arxiv_id"?, "pmid"?}

Only "abstract" is required. "authors" may also be one string, as arXiv
lists them ("A. Smith, B. Jones and C. Lee"; semicolons, when present,
separate "Surname, Given" names). "doi", "arxiv_id" and "pmid" identify the
paper across sources (:mod:`kg.corpus.fields` normalises them). A "date" is ISO 8601, "2025-08", "2025-08-18" or
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

The container. A file whose first line that is not blank is ``[`` or ``{``
alone (as pretty-printed JSON starts) or starts ``[{``, ``[]`` or ``[null``
(a minified array) is a JSON document; anything else is JSON Lines. A
document, or a line, holds records: an array of them (a ``null`` in it is
skipped: Semantic Scholar's batch API answers null for an id it does not
know), an object with a list of them under "results" (an OpenAlex API page)
or "data" (a Semantic Scholar search or bulk-search page) and no "abstract",
or a single record; several documents may follow one another, as ``jq``
writes them. A record's line is the line where it starts. A document that
stops being JSON is one Rejected where it breaks; the records before are kept.
Each record goes to the first :class:`Mapper` that ``matches`` it: OpenAlex,
Semantic Scholar, the arXiv snapshot, CSL JSON, then kg's own mapping above;
its ``SourceRef.format`` names that mapper. A mapper's own reader
(``--format openalex`` ...) maps every record with that mapper.
"""

from __future__ import annotations

import datetime
import functools
import itertools
import json
import math
import re
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pyoxigraph import NamedNode

from kg.corpus.fields import YEARS, is_valid_iri, normalise_arxiv_id, normalise_doi, normalise_pmid, split_author_list
from kg.records import WEB_SCHEMES, Paper, Rejected, SourceRef
from kg.text import normalise_whitespace

__all__ = [
    "NAME",
    "SUFFIXES",
    "BadRecord",
    "Mapper",
    "MAPPER",
    "looks_like",
    "read",
    "read_lines",
    "first_record_matches",
    "string",
    "member",
    "members",
    "known",
    "web_page",
    "people",
    "distinct",
    "year",
]

NAME = "jsonl"
SUFFIXES = (".jsonl", ".ndjson")

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# A pretty-printed document's first line, or a minified array's start.
_DOCUMENT = re.compile(r"[\[{]|\[\s*(?:[{\]]|null\b).*")
_SPACE = re.compile(r"[ \t\n\r]*")
_PAGE_KEYS = ("results", "data")
_DECODE = json.JSONDecoder().raw_decode
#: How much of a file's beginning a mapper's ``looks_like`` parses.
_HEAD = 1 << 16


class BadRecord(Exception):
    """A record that cannot be used: ``kind`` counts it, the message explains it."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Mapper:
    """How one source's JSON records become papers: ``to_paper(record, source,
    where)`` raises :class:`BadRecord` for a record it cannot use."""

    name: str
    matches: Callable[[dict[str, Any]], bool]
    to_paper: Callable[[dict[str, Any], SourceRef, str], Paper]

    # A mapper is a whole reader (kg.corpus's contract), with itself forced on every record.
    def looks_like(self, text: str) -> bool:
        return first_record_matches(text, self.matches)

    def read(self, text: str, file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
        return read(text, file_name, sha256, self)

    def read_lines(self, lines: Iterable[str], file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
        return read_lines(lines, file_name, sha256, self)


def _first_line(text: str) -> str:
    return next((line for line in _lines(text) if line.strip()), "")


def _is_document(first_line: str) -> bool:
    return _DOCUMENT.fullmatch(first_line.strip()) is not None


def looks_like(text: str) -> bool:
    first = _first_line(text[:_HEAD])
    return first.lstrip().startswith("{") or _is_document(first)


def first_record_matches(text: str, matches: Callable[[dict[str, Any]], bool]) -> bool:
    """Whether the first record at the beginning of ``text`` is one ``matches``
    accepts (a mapper's ``looks_like``); a record cut off by the end of the
    beginning is no answer."""
    head = text[:_HEAD]
    first = _first_line(head)
    try:
        if _is_document(first):
            record = next((value for _, value in _values(head)), None)
        else:
            record = next(iter(_page_items(json.loads(first))), None)
    except (ValueError, RecursionError):
        return False
    return isinstance(record, dict) and matches(record)


# -- helpers the mappers share ----------------------------------------------------------


def string(value: Any, key: str, where: str, number: bool = False) -> str | None:
    """A string field, whitespace normalised (None if blank); ``number`` also
    takes a number, as ids often are."""
    if value is None:
        return None
    if number and isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        value = str(value)
    if not isinstance(value, str):
        raise BadRecord("with a field of the wrong type", f"{where}: {key!r} must be a string, not {type(value).__name__}")
    return normalise_whitespace(value) or None


def member(record: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    """An object field ({} when missing or null)."""
    value = record.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRecord("with a field of the wrong type", f"{where}: {key!r} must be a JSON object, not {type(value).__name__}")
    return value


def members(record: dict[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    """A list-of-objects field ([] when missing or null; null items skipped)."""
    value = record.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value if item is not None):
        raise BadRecord("with a field of the wrong type", f"{where}: {key!r} must be a list of JSON objects")
    return [item for item in value if item is not None]


def known(value: Any, normalise: Callable[[str], str | None]) -> str | None:
    """A source's identifier, normalised; one that is not one (or not a string)
    is dropped, not held against the paper."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    return normalise(value) if isinstance(value, str) else None


def web_page(value: Any, key: str, where: str) -> str | None:
    """A url field; a web address that is not a valid IRI is dropped."""
    url = string(value, key, where)
    return url if url is None or is_valid_iri(url) else None


def people(named: Iterable[tuple[str | None, str | None]]) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
    """(authors, orcids) from (name, ORCID) pairs: a nameless one is dropped,
    and no ORCID at all gives no orcids."""
    authors: list[str] = []
    orcids: list[str | None] = []
    for name, orcid in named:
        if name:
            authors.append(name)
            orcids.append(orcid)
    return tuple(authors), tuple(orcids) if any(orcids) else ()


def distinct(names: Iterable[str | None]) -> tuple[str, ...]:
    """The names that are not blank, each once (the first spelling, whatever its case)."""
    kept: dict[str, str] = {}
    for name in names:
        if name:
            kept.setdefault(name.casefold(), name)
    return tuple(kept.values())


def year(value: Any) -> int | None:
    """A year a source gives as a number (or digits); anything else is None."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value in YEARS else None


# -- kg's own records -------------------------------------------------------------------


def _texts(value: Any, key: str, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = list(split_author_list(value)) if key == "authors" else [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRecord("with a field of the wrong type", f"{where}: {key!r} must be a list of strings")
    return tuple(t for t in (normalise_whitespace(v) for v in value) if t)


def _year(value: Any, where: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) <= 4:
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value in YEARS:
        return value
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
    raise BadRecord("with a field of the wrong type", f"{where}: 'year' must be a four-digit year like 2025, not {shown}")


_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:[T ].*)?")


def _date(value: Any, year: int | None, where: str) -> tuple[int | None, str | None]:
    """(year, ISO date or year-month) from a record's ``date`` and its ``year``."""
    if value is None or value == "":
        return year, None
    match = _DATE.fullmatch(value.strip()) if isinstance(value, str) else None
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
    wrong = BadRecord("with a field of the wrong type", f"{where}: 'date' must be an ISO date like 2025-08-18 or 2025-08, not {shown}")
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
        raise BadRecord("with a field of the wrong type", f"{where}: 'date' {value.strip()!r} is not in 'year' {year}")
    return int(found), "-".join(part for part in (found, month, day) if part) if month else None


def _url(value: Any, where: str) -> str | None:
    url = string(value, "url", where)
    if url is not None and url.startswith(WEB_SCHEMES):
        try:
            NamedNode(url)  # Oxigraph's own check: what it refuses here would stop the build later
        except ValueError as exc:
            shown = repr(url) if len(repr(url)) <= 80 else repr(url)[:80] + "..."
            raise BadRecord(
                "with a url that is not a valid IRI",
                f"{where}: 'url' must be a valid IRI, not {shown} ({exc}); percent-encode it (a space is %20)",
            ) from None
    return url


def _identifier(record: dict[str, Any], key: str, normalise: Callable[[str], str | None], where: str) -> str | None:
    value = record.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and key == "pmid":
        value = str(value)
    found_text = string(value, key, where)
    if found_text is None:
        return None
    if (found := normalise(found_text)) is None:
        shown = repr(found_text) if len(repr(found_text)) <= 40 else repr(found_text)[:40] + "..."
        raise BadRecord(f"with an invalid {key}", f"{where}: {key!r} {shown} is not a valid {_KINDS[key]}")
    return found


_KINDS = {"doi": "DOI (10.NNNN/...)", "arxiv_id": "arXiv id (2502.05628 or cs/0112017)", "pmid": "PubMed id (digits)"}


def _paper(record: dict[str, Any], source: SourceRef, where: str) -> Paper:
    abstract = string(record.get("abstract"), "abstract", where)
    if not abstract:
        raise BadRecord("without an abstract", f"{where}: paper has no 'abstract' (it is the one required key), or it is empty")
    doi = _identifier(record, "doi", normalise_doi, where)
    found_year, date = _date(record.get("date"), _year(record.get("year"), where), where)
    return Paper(
        abstract=abstract,
        source=source,
        title=string(record.get("title"), "title", where),
        authors=_texts(record.get("authors"), "authors", where),
        venue=string(record.get("venue"), "venue", where),
        year=found_year,
        date=date,
        categories=_texts(record.get("categories"), "categories", where),
        doi=doi,
        arxiv_id=_identifier(record, "arxiv_id", normalise_arxiv_id, where),
        pmid=_identifier(record, "pmid", normalise_pmid, where),
        url=_url(record.get("url"), where),
        source_id=string(record.get("id"), "id", where, number=True),
    )


MAPPER = Mapper(NAME, lambda record: True, _paper)


@functools.cache
def _mappers() -> tuple[Mapper, ...]:
    # imported here: the mapper modules import this one
    from kg.corpus import arxiv, csljson, openalex, semanticscholar

    return (openalex.MAPPER, semanticscholar.MAPPER, arxiv.MAPPER, csljson.MAPPER, MAPPER)


def _mapped(record: Any, line: int, index: int, file_name: str, sha256: str, mapper: Mapper | None, unit: str) -> Paper | Rejected:
    where = f"{file_name}:{line}"
    if not isinstance(record, dict):
        return Rejected(line, "not a JSON object", f"{where}: each {unit} must be a JSON object, not {type(record).__name__}")
    chosen = mapper or next(m for m in _mappers() if m.matches(record))
    try:
        return chosen.to_paper(record, SourceRef(file_name=file_name, sha256=sha256, line=line, index=index, format=chosen.name), where)
    except BadRecord as exc:
        return Rejected(line, exc.kind, str(exc))


# -- the container ----------------------------------------------------------------------


def _page_items(value: Any) -> list[Any]:
    """The records of one JSON value: a page's items, or the value itself."""
    if isinstance(value, dict) and "abstract" not in value:
        for key in _PAGE_KEYS:
            if isinstance(value.get(key), list):
                return [item for item in value[key] if item is not None]
    return [value]


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


Walk = Generator[tuple[int, Any], None, int]


def _array(text: str, pos: int) -> Walk:
    """(offset, item) for each item of the array at ``pos``; returns the offset after it."""
    pos = _skip(text, pos + 1)
    if text.startswith("]", pos):
        return pos + 1
    while True:
        value, end = _DECODE(text, pos)
        if value is not None:
            yield pos, value
        pos = _skip(text, end)
        if text.startswith(",", pos):
            pos = _skip(text, pos + 1)
        elif text.startswith("]", pos):
            return pos + 1
        else:
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)


def _object(text: str, start: int) -> Walk:
    """The records of the object at ``start``: a page's items, as they are
    read, or the object itself; returns the offset after it."""
    fields: dict[str, Any] = {}
    page = False
    pos = _skip(text, start + 1)
    while not text.startswith("}", pos):
        if fields or page:
            if not text.startswith(",", pos):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
            pos = _skip(text, pos + 1)
        if not text.startswith('"', pos):
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
        key, pos = _DECODE(text, pos)
        pos = _skip(text, pos)
        if not text.startswith(":", pos):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
        pos = _skip(text, pos + 1)
        if key in _PAGE_KEYS and text.startswith("[", pos) and "abstract" not in fields:
            page = True
            pos = yield from _array(text, pos)
        else:
            fields[key], pos = _DECODE(text, pos)
        pos = _skip(text, pos)
    if not page:
        yield start, fields
    return pos + 1


def _values(text: str) -> Iterator[tuple[int, Any]]:
    """(offset, record) for each record of the documents in ``text``."""
    pos = _skip(text, 0)
    while pos < len(text):
        if text.startswith("[", pos):
            pos = yield from _array(text, pos)
        elif text.startswith("{", pos):
            pos = yield from _object(text, pos)
        else:  # a bare value: a record that is not an object
            value, end = _DECODE(text, pos)
            yield pos, value
            pos = end
        pos = _skip(text, pos)


class _LineCounter:
    """The 1-based line of each of a series of increasing offsets into a text."""

    def __init__(self, text: str):
        self.text, self.offset, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        self.line += sum(1 for _ in _LINE_BREAK.finditer(self.text, self.offset, pos))
        self.offset = pos
        return self.line


def _read_document(text: str, file_name: str, sha256: str, mapper: Mapper | None) -> Iterator[Paper | Rejected]:
    counter = _LineCounter(text)
    records = _values(text)
    for index in itertools.count(1):
        try:
            found = next(records, None)
        except json.JSONDecodeError as exc:
            line = counter.at(exc.pos)
            yield Rejected(line, "not JSON", f"{file_name}:{line}: not valid JSON ({exc.msg} at column {exc.colno})")
            return
        except (ValueError, RecursionError) as exc:  # a 5000-digit number, arrays nested 100000 deep ...
            detail = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).split(";")[0]
            yield Rejected(counter.line, "not JSON", f"{file_name}:{counter.line}: not usable JSON ({detail})")
            return
        if found is None:
            return
        pos, record = found
        yield _mapped(record, counter.at(pos), index, file_name, sha256, mapper, "record")


def _read_json_lines(lines: Iterable[str], first: int, file_name: str, sha256: str, mapper: Mapper | None) -> Iterator[Paper | Rejected]:
    index = 0
    for number, line in enumerate(lines, start=first):
        if not line.strip():
            continue
        where = f"{file_name}:{number}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            yield Rejected(number, "not JSON", f"{where}: not valid JSON ({exc.msg} at column {exc.colno})")
            continue
        except (ValueError, RecursionError) as exc:  # a 5000-digit number, arrays nested 100000 deep ...
            detail = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).split(";")[0]
            yield Rejected(number, "not JSON", f"{where}: not usable JSON ({detail})")
            continue
        records = _page_items(value)
        for record in records:
            index += 1
            yield _mapped(record, number, index, file_name, sha256, mapper, "line" if record is value else "record")


def _lines(text: str) -> Iterator[str]:
    """``_LINE_BREAK.split(text)``, one line at a time: a list of every line of
    a large file would double the reader's memory."""
    start = 0
    for match in _LINE_BREAK.finditer(text):
        yield text[start : match.start()]
        start = match.end()
    yield text[start:]


def read_lines(lines: Iterable[str], file_name: str, sha256: str, mapper: Mapper | None = None) -> Iterator[Paper | Rejected]:
    """Read JSON Lines from lines without their ends (a decompressing stream);
    a JSON document is gathered whole first, as it has to be parsed whole."""
    stream = iter(lines)
    for number, line in enumerate(stream, start=1):  # noqa: B007 - the first line that is not blank
        if line.strip():
            break
    else:
        return
    if _is_document(line):
        yield from _read_document("\n" * (number - 1) + "\n".join(itertools.chain([line], stream)), file_name, sha256, mapper)
    else:
        yield from _read_json_lines(itertools.chain([line], stream), number, file_name, sha256, mapper)


def read(text: str, file_name: str, sha256: str, mapper: Mapper | None = None) -> Iterator[Paper | Rejected]:
    """Read a JSON document or JSON Lines; ``mapper`` maps every record, else
    each goes to the first mapper that matches it."""
    if _is_document(_first_line(text)):
        return _read_document(text, file_name, sha256, mapper)
    return read_lines(_lines(text), file_name, sha256, mapper)
