"""Reader for JSON Lines, the documented interchange format: one paper per line,

    {"id"?, "title"?, "abstract", "authors"?: [..], "year"?, "venue"?,
     "categories"?: [..], "url"?, "doi"?}

Only "abstract" is required. Unknown keys are ignored; blank lines are skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from kg.errors import CorpusError
from kg.records import Paper, SourceRef
from kg.text import normalise_whitespace

__all__ = ["NAME", "SUFFIXES", "looks_like", "read", "normalise_doi"]

NAME = "jsonl"
SUFFIXES = (".jsonl", ".ndjson")

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)


def looks_like(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.lstrip().startswith("{")


def normalise_doi(doi: str) -> str:
    """DOIs are case-insensitive: keep the bare, lower-cased form."""
    return _DOI_PREFIX.sub("", doi.strip()).lower()


def _text(value: Any, key: str, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key == "id":
        value = str(value)
    if not isinstance(value, str):
        raise CorpusError(f"{where}: {key!r} must be a string, not {type(value).__name__}")
    return normalise_whitespace(value) or None


def _texts(value: Any, key: str, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CorpusError(f"{where}: {key!r} must be a list of strings")
    return tuple(t for t in (normalise_whitespace(v) for v in value) if t)


def _year(value: Any, where: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    raise CorpusError(f"{where}: 'year' must be a whole number like 2025, not {value!r}")


def _paper(record: Any, source: SourceRef, where: str) -> Paper:
    if not isinstance(record, dict):
        raise CorpusError(f"{where}: each line must be a JSON object, not {type(record).__name__}")
    abstract = _text(record.get("abstract"), "abstract", where)
    if not abstract:
        raise CorpusError(f"{where}: paper has no 'abstract' (it is the one required key)")
    doi = _text(record.get("doi"), "doi", where)
    return Paper(
        abstract=abstract,
        source=source,
        title=_text(record.get("title"), "title", where),
        authors=_texts(record.get("authors"), "authors", where),
        venue=_text(record.get("venue"), "venue", where),
        year=_year(record.get("year"), where),
        categories=_texts(record.get("categories"), "categories", where),
        doi=normalise_doi(doi) if doi else None,
        url=_text(record.get("url"), "url", where),
        source_id=_text(record.get("id"), "id", where),
    )


def read(text: str, file_name: str, sha256: str) -> Iterator[Paper]:
    index = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{file_name}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
        index += 1
        source = SourceRef(file_name=file_name, sha256=sha256, line=number, index=index, format=NAME)
        yield _paper(record, source, where)
