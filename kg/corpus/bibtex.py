"""Reader for BibTeX and biblatex files, as Zotero, Mendeley and JabRef export them.

bibtexparser 2 splits the file into blocks and resolves ``@string`` macros;
``#`` concatenation, which it leaves as written (its issue #396), is evaluated
here as BibTeX does. ``@comment`` and ``@preamble`` blocks and text between
entries are not papers. An entry bibtexparser cannot read, or one whose key
an earlier entry already has (BibTeX keeps the first), is yielded as a
:class:`kg.records.Rejected` naming its line; the entries after it are read.

Fields, with LaTeX made text (:mod:`kg.corpus.latex`) where it is prose:
``title``; ``abstract`` (required); ``author`` ("Family, Given and Given
Family and {Org Name}": each name "Given Family", in order); ``journal``,
``journaltitle`` or ``booktitle`` the venue; ``year``, ``month`` (``jan`` ..
``dec``, a name or a number) and ``day``, or biblatex's ``date``; ``doi``
(or a doi.org ``url``); the arXiv id from ``eprint`` with ``archiveprefix``
or ``eprinttype`` arXiv, Mendeley's ``arxivid``, an arxiv.org ``url``, an
arXiv DOI or Google Scholar's ``journal = {arXiv preprint arXiv:...}`` (which
names no venue); ``pmid`` (or ``eprint`` with ``eprinttype = pubmed``);
``keywords`` split at "," or ";" the categories; ``url``; the citation key
the source id. An identifier that is not one is dropped.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

import bibtexparser
from bibtexparser.library import Library
from bibtexparser.middlewares import LibraryMiddleware, RemoveEnclosingMiddleware, ResolveStringReferencesMiddleware
from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names
from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock, Entry, ParsingFailedBlock

from kg.corpus.fields import is_valid_iri, iso_date, normalise_arxiv_id, normalise_doi, normalise_pmid, parse_iso_date
from kg.corpus.latex import to_text
from kg.records import Paper, Rejected, SourceRef
from kg.text import normalise_whitespace

__all__ = ["NAME", "SUFFIXES", "looks_like", "read"]

NAME = "bibtex"
SUFFIXES = (".bib", ".bibtex")

# bibtexparser logs each broken block to stderr; the reader reports it as a Rejected instead.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

_ENTRY_START = re.compile(r"@\s*[A-Za-z]+\s*[{(]")
# "a # {b} # "c"": the operators outside braces and quotes (a delimiter after a
# backslash is text, as bibtexparser's splitter reads it)
_MARKS = re.compile(r'(?<!\\)[{}"#]')
# BibTeX's standard styles define the months as macros (values as written: enclosed)
_MONTH_MACROS = {
    name[:3].lower(): "{" + name + "}"
    for name in ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
}
_ARXIV_JOURNAL = re.compile(r"^(?:arxiv\s+preprint\s+)?arxiv:\s*(\S+)", re.IGNORECASE)
_ESCAPED = re.compile(r"\\([_%&#$~])")  # "10.1000/a\_b" in a DOI or URL
_KEYWORD_SEPARATORS = re.compile(r"[,;]")


def looks_like(text: str) -> bool:
    for line in text[:4096].splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("%"):
            return _ENTRY_START.match(stripped) is not None
    return False


def _operands(value: str) -> list[str]:
    """The parts of a ``#`` concatenation (one part when there is none)."""
    parts, start, depth, quoted = [], 0, 0, False
    for mark in _MARKS.finditer(value):
        char = mark.group()
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif depth == 0 and char == '"':
            quoted = not quoted
        elif depth == 0 and not quoted and char == "#":
            parts.append(value[start : mark.start()])
            start = mark.end()
    return [*parts, value[start:]]


def _evaluate(value: str, macros: dict[str, str], depth: int = 0) -> str:
    """A field or ``@string`` value as BibTeX reads it: enclosed parts as
    written, numbers, macros by their value (an unknown one is empty)."""
    text = []
    for operand in (part.strip() for part in _operands(value)):
        if operand[:1] + operand[-1:] in ("{}", '""'):
            text.append(operand[1:-1])
        elif operand.isdigit():
            text.append(operand)
        elif depth < 10:  # a macro defined by itself is not expanded forever
            text.append(_evaluate(macros.get(operand.lower(), ""), macros, depth + 1))
    return "".join(text)


class _Concatenation(LibraryMiddleware):
    """Evaluates values that concatenate with ``#``; runs after bibtexparser
    resolved single macros and before it removes the enclosing braces."""

    @classmethod
    def metadata_key(cls) -> str:
        return "kg_concatenation"

    def transform(self, library: Library) -> Library:
        macros = _MONTH_MACROS | {string.key.lower(): string.value for string in library.strings}
        for entry in library.entries:
            for field in entry.fields:
                if isinstance(field.value, str) and len(_operands(field.value)) > 1:
                    field.value = "{" + _evaluate(field.value, macros) + "}"
        return library


def _parse(text: str) -> Library:
    stack = [ResolveStringReferencesMiddleware(), _Concatenation(), RemoveEnclosingMiddleware()]
    return bibtexparser.parse_string(text, parse_stack=stack)


def _prose(value: str | None) -> str | None:
    # whitespace collapsed first too: kg.corpus.latex's length limit is for text, not a field's indents
    return (normalise_whitespace(to_text(normalise_whitespace(value))) or None) if value else None


def _plain(value: str | None) -> str | None:
    """An identifier or URL: LaTeX escapes undone, nothing else converted."""
    return (normalise_whitespace(_ESCAPED.sub(r"\1", value)) or None) if value else None


def _authors(value: str | None) -> tuple[str, ...]:
    names = []
    for written in split_multiple_persons_names(value or ""):
        name = normalise_whitespace(to_text(parse_single_name_into_parts(written, strict=False).merge_first_name_first))
        if name and name.lower() != "others":  # "and others" is BibTeX's "et al."
            names.append(name)
    return tuple(names)


def _date(fields: dict[str, str]) -> tuple[int | None, str | None]:
    if fields.get("date"):  # biblatex; a range "2024-03/2024-05" starts at its first date
        year, date = parse_iso_date(fields["date"].split("/")[0])
        if year is not None:
            return year, date
    return iso_date(fields.get("year"), fields.get("month"), fields.get("day"))


def _arxiv_id(fields: dict[str, str], doi: str | None, url: str | None) -> str | None:
    kind = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip().lower()
    journal = _ARXIV_JOURNAL.match(fields.get("journal", "").strip())
    for candidate in (
        fields.get("eprint") if kind == "arxiv" else None,
        fields.get("arxivid"),
        url,
        doi,
        journal.group(1) if journal else None,
    ):
        if candidate and (found := normalise_arxiv_id(candidate)) is not None:
            return found
    return None


def _url(fields: dict[str, str]) -> str | None:
    url = _plain(fields.get("url"))
    return url if url is not None and is_valid_iri(url) else None


def _keywords(value: str | None) -> tuple[str, ...]:
    words = (normalise_whitespace(word) for word in _KEYWORD_SEPARATORS.split(to_text(value or "")))
    return tuple(dict.fromkeys(word for word in words if word))


def _record(entry: Entry, source: SourceRef, where: str) -> Paper | Rejected:
    # field names are case-insensitive; a repeated one keeps its first value, as BibTeX does
    fields: dict[str, str] = {}
    for field in entry.fields:
        if isinstance(field.value, str):
            fields.setdefault(field.key.lower(), field.value)
    abstract = _prose(fields.get("abstract"))
    if not abstract:
        return Rejected(source.line, "without an abstract", f"{where}: entry {entry.key!r} has no abstract field, or it is empty")
    url = _url(fields)
    doi = normalise_doi(_plain(fields.get("doi")) or "") or (normalise_doi(url) if url else None)
    year, date = _date(fields)
    journal = fields.get("journal") if not _ARXIV_JOURNAL.match(fields.get("journal", "").strip()) else None
    eprint_pmid = fields.get("eprint") if (fields.get("eprinttype") or "").strip().lower() == "pubmed" else None
    return Paper(
        abstract=abstract,
        source=source,
        title=_prose(fields.get("title")),
        authors=_authors(fields.get("author")),
        venue=_prose(journal or fields.get("journaltitle") or fields.get("booktitle")),
        year=year,
        date=date,
        categories=_keywords(fields.get("keywords")),
        doi=doi,
        arxiv_id=_arxiv_id(fields, doi, url),
        pmid=normalise_pmid(_plain(fields.get("pmid") or eprint_pmid) or ""),
        url=url,
        source_id=normalise_whitespace(entry.key) or None,
    )


def _failure(block: ParsingFailedBlock) -> str:
    if isinstance(block, DuplicateFieldKeyBlock):
        return f"field {', '.join(sorted(block.duplicate_keys))} given twice"
    reason = getattr(block.error, "abort_reason", None) or str(block.error)
    return normalise_whitespace(reason) or type(block.error).__name__


def read(text: str, file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
    index = 0
    for block in _parse(text).blocks:
        line = (block.start_line or 0) + 1  # bibtexparser counts lines from 0
        where = f"{file_name}:{line}"
        if isinstance(block, DuplicateBlockKeyBlock):
            if isinstance(block.ignore_error_block, Entry):  # a repeated @string: the first is used
                first = (block.previous_block.start_line or 0) + 1
                yield Rejected(
                    line, "with a repeated key", f"{where}: key {block.key!r} was already used at line {first}; the first entry is kept"
                )
        elif isinstance(block, ParsingFailedBlock):
            yield Rejected(line, "not valid BibTeX", f"{where}: not a valid BibTeX entry ({_failure(block)})")
        elif isinstance(block, Entry):
            index += 1
            yield _record(block, SourceRef(file_name=file_name, sha256=sha256, line=line, index=index, format=NAME), where)
