"""Corpus readers: one module per input format, each yielding :class:`kg.records.Paper`.

To add a format, write a module with ``NAME``, ``SUFFIXES``, ``looks_like(text)``
and ``read(text, source)``, and list it in ``READERS`` below.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kg.corpus import conference, daily, jsonl
from kg.errors import CorpusError
from kg.records import Paper

__all__ = ["READERS", "SourceText", "corpus_files", "detect_format", "read_file", "read_paths"]

#: Readers in the order content sniffing tries them; the last is the fallback for text.
READERS = {module.NAME: module for module in (jsonl, conference, daily)}

# Files in a corpus folder that are documentation, not papers.
_SKIPPED_NAMES = {"readme.md", "readme.txt", "readme", "license", "license.txt"}


@dataclass(frozen=True)
class SourceText:
    """A decoded input file and what identifies it in the graph."""

    path: Path
    text: str
    sha256: str

    @property
    def file_name(self) -> str:
        return self.path.name


def corpus_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand folders into their paper files (sorted, so builds are reproducible)."""
    files: list[Path] = []
    suffixes = {s for reader in READERS.values() for s in reader.SUFFIXES}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and p.suffix.lower() in suffixes
                and p.name.lower() not in _SKIPPED_NAMES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            if not found:
                raise CorpusError(f"{path}: folder holds no corpus files ({', '.join(sorted(suffixes))})")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise CorpusError(f"{path}: no such file or folder")
    return files


def load_source(path: Path) -> SourceText:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read ({exc.strerror})") from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "convert it first, e.g. iconv -f latin1 -t utf-8"
        ) from exc
    if not text.strip():
        raise CorpusError(f"{path}: file is empty")
    return SourceText(path=path, text=text, sha256=hashlib.sha256(data).hexdigest())


def detect_format(source: SourceText) -> str:
    """Pick a reader by extension when only one claims it, else by content
    (readers are tried in ``READERS`` order: the most particular first)."""
    suffix = source.path.suffix.lower()
    claimed = [name for name, reader in READERS.items() if suffix in reader.SUFFIXES]
    if len(claimed) == 1:
        return claimed[0]
    for name, reader in READERS.items():
        if reader.looks_like(source.text):
            return name
    raise CorpusError(f"{source.path}: unknown corpus format; force one with --format {'|'.join(READERS)}")


def read_file(path: str | Path, format: str | None = None) -> Iterator[Paper]:
    """Read one file with the given reader, or the one :func:`detect_format` picks."""
    source = load_source(Path(path))
    name = format or detect_format(source)
    if name not in READERS:
        raise CorpusError(f"unknown format {name!r}; choose one of {', '.join(READERS)}")
    count = 0
    for paper in READERS[name].read(source.text, source.file_name, source.sha256):
        count += 1
        yield paper
    if count == 0:
        raise CorpusError(f"{source.path}: no papers found when read as {name!r}; force another reader with --format")


def read_paths(paths: Iterable[str | Path], format: str | None = None) -> Iterator[Paper]:
    """Read every paper of the given files and folders, in a reproducible order."""
    for path in corpus_files(paths):
        yield from read_file(path, format)
