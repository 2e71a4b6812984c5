"""Corpus readers: one module per input format, each yielding :class:`kg.records.Paper`.

To add a format, write a module with ``NAME``, ``SUFFIXES``, ``looks_like(head)``
(given the file's first 64 KB of text) and ``read(text, file_name, sha256)``,
and list it in ``READERS`` below. ``read`` may also yield
:class:`kg.records.Rejected` for a record it cannot use. A reader of a line
format may also have ``read_lines(lines, file_name, sha256)``: a gzipped file
(recognised by its magic bytes, named ``x.jsonl.gz`` or not) is then read as a
stream of lines and never held decompressed (JSON Lines, PubMed and Atom XML);
other readers get its whole text.

Bad input is handled at two levels. A whole file that cannot be read (missing,
not a regular file, empty, binary, UTF-16, not UTF-8, no papers in it) is an
error. A single bad record (a line that is not JSON or has no abstract, an
abstract over ``MAX_ABSTRACT_CHARS``, a url that is no valid IRI, a paper
the same file repeats with a different abstract) is skipped, and each file's skips are
reported in one :class:`kg.errors.CorpusWarning` that counts them;
``strict=True`` makes the first one an error instead.

File names are corpus data too: every message and the graph name a file by
:func:`shown`, so a name that is not UTF-8 or holds terminal escapes is
neither a crash nor a command to the terminal.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import io
import os
import stat
import warnings
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.corpus import arxiv, atom, bibtex, conference, csljson, daily, jsonl, openalex, pubmed, ris, semanticscholar
from kg.errors import CorpusError, CorpusWarning
from kg.records import Paper, Rejected
from kg.text import is_blank, match_key

__all__ = [
    "MAX_ABSTRACT_CHARS",
    "MAX_FIELD_CHARS",
    "MAX_WORD_CHARS",
    "READERS",
    "SourceText",
    "corpus_files",
    "detect_format",
    "load_source",
    "read_file",
    "read_paths",
    "shown",
]

#: Longer "abstracts" are skipped: five times the longest the shipped corpus
#: holds (1,974 characters); a megabyte of text is a pasted paper or a broken
#: file, and would cost the extraction minutes.
MAX_ABSTRACT_CHARS = 10_000
#: An abstract with a longer run of characters without a space is skipped: the
#: corpus's longest is 77 (a URL), and spaCy's tokenizer takes time quadratic
#: in such a run when it is made of punctuation ("((((...": 2,000 take 1 s).
MAX_WORD_CHARS = 500
#: Longer titles, names, venues, categories, DOIs, URLs or ids are skipped too.
MAX_FIELD_CHARS = 2_000

#: Readers in the order content sniffing tries them (the most particular
#: first); the last is the fallback for text.
READERS = {
    module.NAME: module for module in (pubmed, atom, bibtex, ris, openalex, semanticscholar, arxiv, csljson, jsonl, conference, daily)
}

# Files in a corpus folder that are documentation, not papers.
_SKIPPED_NAMES = {"readme.md", "readme.txt", "readme", "license", "license.txt"}


def _escape(char: str) -> str:
    if "\udc80" <= char <= "\udcff":  # a byte that is not UTF-8, as os.fsdecode keeps it
        return f"\\x{ord(char) - 0xDC00:02x}"
    return repr(char)[1:-1]  # \x1b, \u202e ...


def shown(path: str | Path) -> str:
    """A file name fit for a terminal and for the graph: characters that are
    not printable (controls such as ESC, bidi overrides, bytes that are not
    UTF-8) written as Python escapes, as ``ls -b`` does; the rest as it is."""
    return "".join(c if c.isprintable() else _escape(c) for c in os.fsdecode(path))


def _not_regular(mode: int) -> str | None:
    """What a path is when it is not a regular file: reading a FIFO or a
    device would wait for a writer, or never end (/dev/zero)."""
    if stat.S_ISREG(mode):
        return None
    kinds = {
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISSOCK: "a socket",
        stat.S_ISDIR: "a folder",
    }
    return next((kind for test, kind in kinds.items() if test(mode)), "of an unknown kind")


#: How much of a gzipped file is decompressed to recognise its format and
#: check its encoding before it is read as a stream.
HEAD_BYTES = 1 << 16


@dataclass(frozen=True)
class SourceText:
    """An input file and what identifies it in the graph (the hash of its bytes
    as stored, so compressed when it is gzipped).

    ``text`` is the whole decoded file; ``head`` its beginning, enough to
    recognise the format; ``lines()`` a gzipped file's lines one at a time,
    which is how it is read without ever holding it decompressed.
    """

    path: Path
    sha256: str
    data: bytes  # the file's bytes, gzip-compressed when ``compressed``
    compressed: bool = False
    head: str = ""
    decoded: str | None = field(default=None, repr=False)  # the text of a file that is not compressed

    @property
    def file_name(self) -> str:
        return shown(self.path.name)

    @property
    def text(self) -> str:
        if self.decoded is not None:
            return self.decoded
        return _decode(self.path, self._stream().read())

    def lines(self) -> Iterator[str]:
        """The lines of a gzipped file's text, without their ends (\\n, \\r\\n
        or \\r), decompressed as they are read."""
        stream = io.TextIOWrapper(self._stream(), encoding="utf-8-sig", newline="")
        number = 0
        try:
            for number, line in enumerate(stream, start=1):  # noqa: B007 - read in the except below
                yield line.rstrip("\r\n")
        except UnicodeDecodeError:
            raise CorpusError(
                f"{shown(self.path)}: not UTF-8 text after line {number}; convert it first, e.g. iconv -f latin1 -t utf-8"
            ) from None
        except (OSError, EOFError, zlib.error) as exc:
            raise CorpusError(f"{shown(self.path)}: broken gzip data after line {number} ({exc})") from None

    def _stream(self) -> gzip.GzipFile:
        return gzip.GzipFile(fileobj=io.BytesIO(self.data), mode="rb")


def _suffix(path: Path) -> str:
    """The suffix that names the format: ``.jsonl`` for ``x.jsonl.gz``."""
    name = path.name.lower()
    return Path(name[:-3]).suffix if name.endswith(".gz") else Path(name).suffix


def corpus_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand folders into their paper files (sorted, so builds are reproducible)."""
    files: list[Path] = []
    suffixes = {s for reader in READERS.values() for s in reader.SUFFIXES}
    suffixes |= {s + ".gz" for s in suffixes}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and (_suffix(p) + (".gz" if p.name.lower().endswith(".gz") else "")) in suffixes
                and p.name.lower() not in _SKIPPED_NAMES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            if not found:
                raise CorpusError(f"{shown(path)}: folder holds no corpus files ({', '.join(sorted(suffixes))})")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            try:
                kind = _not_regular(path.stat().st_mode)
            except FileNotFoundError:
                raise CorpusError(f"{shown(path)}: no such file or folder") from None
            except OSError as exc:
                raise CorpusError(f"{shown(path)}: cannot read ({exc.strerror or exc})") from None
            raise CorpusError(f"{shown(path)}: not a regular file ({kind}); give corpus files or folders")
    return files


def _read_regular(path: Path) -> bytes:
    """The bytes of ``path``, refusing anything but a regular file (checked on
    the open file: the path may have been swapped since it was listed)."""
    # O_NONBLOCK: opening a FIFO must not wait for a writer; a regular file ignores it
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as file:
        if (kind := _not_regular(os.fstat(fd).st_mode)) is not None:
            raise CorpusError(f"{shown(path)}: not a regular file ({kind}); give corpus files or folders")
        return file.read()


def _utf16_without_bom(data: bytes) -> str | None:
    """ "UTF-16LE" or "UTF-16BE" when the NUL bytes fall on every other byte, as
    in UTF-16 text that is mostly Latin letters, and the whole file decodes so."""
    head = data[: 4096 // 2 * 2]
    units = len(head) // 2
    for encoding, zeros, others in (("UTF-16LE", head[1::2], head[0::2]), ("UTF-16BE", head[0::2], head[1::2])):
        if units and zeros.count(0) * 2 >= units and others.count(0) == 0:
            try:
                text = data.decode(encoding.lower())
            except UnicodeDecodeError:
                return None
            return encoding if "\x00" not in text else None
    return None


def load_source(path: Path) -> SourceText:
    name = shown(path)
    try:
        data = _read_regular(path)
    except OSError as exc:
        raise CorpusError(f"{name}: cannot read ({exc.strerror or exc})") from exc
    sha256 = hashlib.sha256(data).hexdigest()
    if not data.startswith(b"\x1f\x8b"):
        text = _decode(path, data)
        return SourceText(path=path, sha256=sha256, data=data, head=text[:HEAD_BYTES], decoded=text)
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb") as stream:
            head = stream.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise CorpusError(f"{name}: not readable gzip data ({exc})") from None
    # the head is checked as a whole file is; a character cut at its end is not an error
    text = _decode(path, head, partial=len(head) == HEAD_BYTES)
    return SourceText(path=path, sha256=sha256, data=data, compressed=True, head=text)


def _decode(path: Path, data: bytes, partial: bool = False) -> str:
    """The text of ``data``, refusing what is not UTF-8 text with a one-line
    CorpusError that says what it is instead."""
    name = shown(path)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CorpusError(f"{name}: UTF-16 text, not UTF-8; convert it first, e.g. iconv -f utf-16 -t utf-8")
    if (encoding := _utf16_without_bom(data)) is not None:
        raise CorpusError(
            f"{name}: {encoding} text (UTF-16 without a byte-order mark), not UTF-8; convert it first, e.g. iconv -f {encoding.lower()} -t utf-8"
        )
    if (nul := data.find(b"\x00")) >= 0:
        raise CorpusError(f"{name}: a binary file, not text (NUL byte at offset {nul}); remove it or give only the corpus files")
    try:
        text = data.decode("utf-8-sig") if not partial else codecs.getincrementaldecoder("utf-8-sig")().decode(data)
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{name}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); convert it first, e.g. iconv -f latin1 -t utf-8"
        ) from exc
    if is_blank(text):
        raise CorpusError(f"{name}: file is empty (or holds only spaces and invisible characters)")
    return text


def detect_format(source: SourceText) -> str:
    """Pick a reader by extension when only one claims it, else by content
    (readers are tried in ``READERS`` order: the most particular first)."""
    suffix = _suffix(source.path)
    claimed = [name for name, reader in READERS.items() if suffix in reader.SUFFIXES]
    if len(claimed) == 1:
        return claimed[0]
    for name, reader in READERS.items():
        if reader.looks_like(source.head):
            return name
    raise CorpusError(f"{shown(source.path)}: unknown corpus format; force one with --format {'|'.join(READERS)}")


@dataclass
class _Seen:
    """What earlier records of a file said, to catch a paper it repeats with a
    different abstract. Across files that is not an error: two sources of one
    paper may word or mark up its abstract differently (linking merges them)."""

    by_doi: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # doi -> (where, abstract key)
    by_id: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # id -> (where, abstract key)

    def conflict(self, paper: Paper, where: str) -> str | None:
        """Why ``paper`` contradicts an earlier record, or None (and remember it)."""
        # a digest, not the folded abstract itself: 100k records would keep 140 MB of keys
        key = hashlib.sha256(match_key(paper.abstract).encode("utf-8", "surrogatepass")).digest()
        claims: list[tuple[dict[Any, tuple[str, bytes]], object, str]] = []  # (table, its key, what it names)
        if paper.doi:
            claims.append((self.by_doi, paper.doi, f"DOI {paper.doi}"))
        if paper.source_id:
            claims.append((self.by_id, paper.source_id, f"id {paper.source_id!r}"))
        for table, name, what in claims:
            earlier = table.get(name)
            if earlier is not None and earlier[1] != key:
                return f"{where}: {what} was already read at {earlier[0]} with a different abstract; the first is kept"
        for table, name, _ in claims:
            table.setdefault(name, (where, key))
        return None


def _too_long(paper: Paper) -> str | None:
    if len(paper.abstract) > MAX_ABSTRACT_CHARS:
        return f"abstract of {len(paper.abstract)} characters (at most {MAX_ABSTRACT_CHARS})"
    longest = max(paper.abstract.split(" "), key=len)  # normalised: single spaces
    if len(longest) > MAX_WORD_CHARS:
        return f"abstract has a run of {len(longest)} characters without a space (at most {MAX_WORD_CHARS})"
    fields = {"title": paper.title, "venue": paper.venue, "area": paper.area, "doi": paper.doi, "url": paper.url, "id": paper.source_id}
    fields |= {f"author {i}": name for i, name in enumerate(paper.authors, 1)}
    fields |= {f"category {i}": name for i, name in enumerate(paper.categories, 1)}
    for name, value in fields.items():
        if value is not None and len(value) > MAX_FIELD_CHARS:
            return f"{name} of {len(value)} characters (at most {MAX_FIELD_CHARS})"
    return None


def _skips(file_name: str, skipped: list[Rejected]) -> str:
    """ "2 not JSON, 1 without an abstract; first at line 7: <reason>"."""
    kinds = Counter(r.kind for r in skipped)
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items(), key=lambda item: (-item[1], item[0])))
    first = skipped[0]
    reason = first.reason.split(": ", 1)[1] if first.reason.startswith(f"{file_name}:") else first.reason
    return f"{counts}; first at line {first.line}: {reason}"


def read_file(path: str | Path, format: str | None = None, strict: bool = False) -> Iterator[Paper]:
    """Read one file with the given reader, or the one :func:`detect_format` picks.

    Bad records are skipped with one :class:`CorpusWarning` for the file that
    counts them; with ``strict`` the first one raises :class:`CorpusError`.
    """
    path = Path(path)
    source = load_source(path)
    name = format or detect_format(source)
    if name not in READERS:
        raise CorpusError(f"unknown format {name!r}; choose one of {', '.join(READERS)}")
    seen = _Seen()
    count, skipped = 0, []
    reader = READERS[name]
    if source.compressed and hasattr(reader, "read_lines"):  # a stream, never decompressed whole
        records = reader.read_lines(source.lines(), source.file_name, source.sha256)
    else:
        records = reader.read(source.text, source.file_name, source.sha256)
    for record in records:
        if isinstance(record, Paper):
            where = f"{source.file_name}:{record.source.line}"
            if (long := _too_long(record)) is not None:
                record = Rejected(record.source.line, "too long", f"{where}: {long}")
            elif (conflict := seen.conflict(record, where)) is not None:
                record = Rejected(record.source.line, "repeating a paper with a different abstract", conflict)
        if isinstance(record, Rejected):
            if strict:
                raise CorpusError(f"{record.reason} (--strict refuses bad records; without it they are skipped with a warning)")
            skipped.append(record)
            continue
        count += 1
        yield record
    if count == 0:
        if skipped:
            which = f"all {len(skipped)} records are bad" if len(skipped) > 1 else "its one record is bad"
            raise CorpusError(f"{shown(path)}: no usable papers, {which} ({_skips(source.file_name, skipped)})")
        raise CorpusError(f"{shown(path)}: no papers found when read as {name!r}; force another reader with --format")
    if skipped:
        message = f"{shown(path)}: skipped {len(skipped)} of {count + len(skipped)} records ({_skips(source.file_name, skipped)}); --strict makes this an error"
        warnings.warn(CorpusWarning(message), stacklevel=2)


def read_paths(paths: Iterable[str | Path], format: str | None = None, strict: bool = False) -> Iterator[Paper]:
    """Read every paper of the given files and folders, in a reproducible order
    (bad records: see :func:`read_file`)."""
    for path in corpus_files(paths):
        yield from read_file(path, format, strict)
