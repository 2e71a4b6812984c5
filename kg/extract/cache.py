"""The extraction cache: what the pipeline found in an abstract, kept by the
abstract's content and the pipeline's version.

A build extracts only abstracts the cache does not hold for the current
pipeline (:func:`kg.extract.pipeline.pipeline_version`, which changes with
any code, data or weights of the extraction), so adding ten papers to a
built corpus extracts ten. It is one SQLite file (``.kg/extractions.sqlite``
beside the default store); records are compressed JSON, never pickles.

A cache file may come from another machine (a shard, see ``kg extract
--shard``) or be damaged, so no record is trusted: :func:`read_record`, the
only way one is read, bounds its decompressed size and checks every field
against the abstract it claims to describe. A record that fails is never
used nor merged; its paper is extracted afresh, with one warning per file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import astuple
from pathlib import Path

from kg.errors import KgError, KgWarning
from kg.records import (
    CONCEPT_TYPES,
    RELATION_TYPES,
    AcronymDefinition,
    Claim,
    Extraction,
    LinkedPaper,
    Mention,
    Relation,
)

__all__ = [
    "CacheError",
    "CacheWarning",
    "CachingExtractor",
    "ExtractionCache",
    "InvalidRecord",
    "Shard",
    "abstract_key",
    "decode_extraction",
    "encode_extraction",
    "read_record",
]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS extraction (
    abstract TEXT NOT NULL,   -- sha256 of the abstract
    version TEXT NOT NULL,    -- the pipeline's version
    record BLOB NOT NULL,     -- zlib-compressed JSON of the Extraction (without the paper IRI)
    PRIMARY KEY (abstract, version)
)
"""
_COLUMNS = ["abstract", "version", "record"]

#: A record's JSON may take this many bytes per character of its abstract, plus
#: the floor: ten times the most the shipped corpus needs (3), so only a broken
#: or hostile record (a zlib bomb) reaches it.
_BYTES_PER_CHAR, _BYTES_FLOOR = 32, 64 * 1024


class CacheError(KgError):
    """The extraction cache, or a shard given to merge, cannot be read or written."""


class CacheWarning(KgWarning):
    """Records of a cache file failed validation; their papers were extracted afresh."""


class InvalidRecord(ValueError):
    """A cached record that does not describe its abstract (the message says how)."""


def abstract_key(abstract: str) -> str:
    return hashlib.sha256(abstract.encode("utf-8")).hexdigest()


def encode_extraction(extraction: Extraction) -> bytes:
    """Positional JSON (field order of the records), without the paper IRI."""
    record = [
        [astuple(m) for m in extraction.mentions],
        [astuple(c) for c in extraction.claims],
        [astuple(r) for r in extraction.relations],
        [astuple(a) for a in extraction.acronyms],
    ]
    return zlib.compress(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def decode_extraction(data: bytes, paper_iri: str) -> Extraction:
    """A record this process wrote itself (the build's spill file); cached ones go through :func:`read_record`."""
    mentions, claims, relations, acronyms = json.loads(zlib.decompress(data))
    return Extraction(
        paper_iri,
        tuple(Mention(*m) for m in mentions),
        tuple(Claim(*c) for c in claims),
        tuple(Relation(*r) for r in relations),
        tuple(AcronymDefinition(*a) for a in acronyms),
    )


def _size_limit(abstract_length: int) -> int:
    return _BYTES_FLOOR + _BYTES_PER_CHAR * abstract_length


def _stored_limit(abstract_length: int) -> int:
    """The most bytes a record within the size limit takes compressed (zlib's worst case):
    a larger one is refused unread."""
    limit = _size_limit(abstract_length)
    return limit + limit // 1000 + 64


def _inflate(data: object, limit: int) -> bytes:
    if data is None:
        raise InvalidRecord("too large to hold a valid record")
    if not isinstance(data, bytes):
        raise InvalidRecord("not a BLOB")
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(data, limit + 1)  # stops there: a zlib bomb costs no more
    except zlib.error as exc:
        raise InvalidRecord(f"not zlib data ({exc})") from None
    if len(raw) > limit:
        raise InvalidRecord(f"over {limit} bytes once decompressed")
    if not inflater.eof or inflater.unused_data:
        raise InvalidRecord("truncated or trailing zlib data")
    return raw


def _text(value) -> bool:
    return isinstance(value, str) and value != ""


def _offset(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _confidence(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1  # NaN fails too


#: Each record's fields, as encode_extraction writes them: (name, check).
_FIELDS: dict[type, list[tuple[str, Callable[[object], bool]]]] = {
    Mention: [
        ("text", _text),
        ("concept_type", CONCEPT_TYPES.__contains__),
        ("start", _offset),
        ("end", _offset),
        ("sentence_start", _offset),
        ("sentence_end", _offset),
        ("confidence", _confidence),
        ("component", _text),
        ("label", lambda v: v is None or isinstance(v, str)),
        ("proposed", lambda v: isinstance(v, bool)),
    ],
    Claim: [("text", _text), ("start", _offset), ("end", _offset), ("confidence", _confidence), ("component", _text)],
    Relation: [
        ("head", _text),
        ("head_type", CONCEPT_TYPES.__contains__),
        ("relation", RELATION_TYPES.__contains__),
        ("tail", _text),
        ("tail_type", CONCEPT_TYPES.__contains__),
        ("start", _offset),
        ("end", _offset),
        ("confidence", _confidence),
        ("component", _text),
    ],
    AcronymDefinition: [("short", _text), ("long", _text), ("long_label", _text), ("start", _offset), ("end", _offset)],
}


def _records(items: object, kind: type, abstract: str) -> tuple:
    name = kind.__name__.lower()
    if not isinstance(items, list):
        raise InvalidRecord(f"its {name}s are not a list")
    fields, records = _FIELDS[kind], []
    for number, item in enumerate(items, 1):
        if not isinstance(item, list) or len(item) != len(fields):
            raise InvalidRecord(f"{name} {number} is not a list of {len(fields)} fields")
        for (field, check), value in zip(fields, item):
            if not check(value):
                raise InvalidRecord(f"{name} {number}: bad {field} {json.dumps(value)[:40]}")
        record = kind(*item)
        if not 0 <= record.start < record.end <= len(abstract):
            raise InvalidRecord(f"{name} {number}: offsets {record.start}-{record.end} outside the {len(abstract)}-character abstract")
        span = abstract[record.start : record.end]
        if kind is Mention and not 0 <= record.sentence_start <= record.start < record.sentence_end <= len(abstract):
            raise InvalidRecord(f"{name} {number}: sentence {record.sentence_start}-{record.sentence_end} does not hold it")
        if kind in (Mention, Claim) and record.text != span:
            raise InvalidRecord(f"{name} {number}: text is not the abstract's at {record.start}-{record.end}")
        if kind is AcronymDefinition and not (record.short in span and record.long in span):
            raise InvalidRecord(f"{name} {number}: forms are not in the abstract at {record.start}-{record.end}")
        records.append(record)
    return tuple(records)


def read_record(data: object, abstract: str, paper_iri: str) -> Extraction:
    """The extraction a cached record holds for ``abstract``, once checked: at most
    a sane size decompressed, every field of the right type, offsets inside the
    abstract, texts equal to its slices, types known. Else :class:`InvalidRecord`."""
    raw = _inflate(data, _size_limit(len(abstract)))
    try:
        parts = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, nested too deeply
        raise InvalidRecord(f"not JSON ({type(exc).__name__})") from None
    if not isinstance(parts, list) or len(parts) != 4:
        raise InvalidRecord("not a list of mentions, claims, relations and acronyms")
    kinds = (Mention, Claim, Relation, AcronymDefinition)
    return Extraction(paper_iri, *(_records(part, kind, abstract) for part, kind in zip(parts, kinds)))


class _Rejections:
    """The records of one cache file that failed validation, for one warning line."""

    def __init__(self, path: object):
        self.path, self.count = path, 0
        self.first: str | None = None

    def add(self, problem: InvalidRecord) -> None:
        self.count += 1
        self.first = self.first or str(problem)

    def warn(self) -> None:
        if self.count:
            warnings.warn(
                CacheWarning(
                    f"{self.path}: ignored {self.count} extraction record{'s' if self.count > 1 else ''} that did not pass "
                    f"validation (first: {self.first}); their papers are extracted afresh"
                ),
                stacklevel=3,
            )


def _check_schema(db: sqlite3.Connection) -> None:
    columns = [row[1] for row in db.execute("PRAGMA table_info(extraction)")]
    if columns != _COLUMNS:
        raise sqlite3.DatabaseError(f"no table extraction({', '.join(_COLUMNS)})")


def _sized_record(db: sqlite3.Connection, key: str, version: str, abstract: str) -> tuple | None:
    """(record,) for one abstract, the record None when it is too large to be valid (it is never loaded)."""
    return db.execute(
        "SELECT CASE WHEN length(record) <= ? THEN record END FROM extraction WHERE abstract = ? AND version = ?",
        (_stored_limit(len(abstract)), key, version),
    ).fetchone()


class Shard:
    """Another cache file (e.g. one ``kg extract --shard --cache`` filled) to take
    records from. Opened as immutable, so SQLite never writes to it or beside it.
    Not an SQLite file, another schema, or records of only another pipeline
    version: :class:`CacheError` now, before a build spends hours extracting
    what the user meant to take from it."""

    def __init__(self, path: str | Path, version: str):
        self.path, self.version, self._db = Path(path), version, None
        if not self.path.is_file():  # a FIFO would block the open
            raise CacheError(f"{self.path}: not a regular file (give the file `kg extract --cache` wrote)")
        try:
            self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            _check_schema(self._db)
            some, current = self._db.execute(
                "SELECT EXISTS (SELECT 1 FROM extraction), EXISTS (SELECT 1 FROM extraction WHERE version = ?)", (version,)
            ).fetchone()
        except sqlite3.Error as exc:
            self.close()
            raise CacheError(f"{self.path}: not an extraction cache ({exc}); give the file `kg extract --cache` wrote") from exc
        if some and not current:
            raise CacheError(
                f"{self.path}: its extractions are from another pipeline version (another kg, or --ner on one side only), "
                "so none can be used: extract it again with this kg, or leave it out"
            )

    def records(self, abstracts: dict[str, str]) -> Iterator[tuple[str, object]]:
        """(key, record) of this version for each of ``abstracts`` (by key) the shard holds; too large a record is None."""
        cap = _stored_limit(max(map(len, abstracts.values()), default=0))
        assert self._db is not None  # opened by __init__, which raises when it cannot
        try:
            rows = self._db.execute(
                "SELECT abstract, CASE WHEN length(record) <= ? THEN record END FROM extraction WHERE version = ?", (cap, self.version)
            )
            for key, record in rows:
                if isinstance(key, str) and key in abstracts:
                    yield key, record
        except sqlite3.Error as exc:
            raise CacheError(f"{self.path}: cannot be read ({exc})") from exc

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


class ExtractionCache:
    """Extractions by abstract, for one pipeline ``version``; ``path=None`` keeps them in memory."""

    def __init__(self, path: str | Path | None, version: str):
        self.path = Path(path) if path else None
        self.version = version
        try:
            if self.path:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path) if self.path else ":memory:", timeout=60)
            self._db.execute(_SCHEMA)
            _check_schema(self._db)
        except sqlite3.Error as exc:
            raise CacheError(f"{self.path}: cannot open the extraction cache ({exc}); remove it or pass --no-cache") from exc

    def get(self, abstract: str, paper_iri: str) -> Extraction | None:
        """The abstract's extraction; None when there is none, or none that passes :func:`read_record`."""
        row = _sized_record(self._db, abstract_key(abstract), self.version, abstract)
        try:
            return read_record(row[0], abstract, paper_iri) if row else None
        except InvalidRecord:
            return None

    def gather(self, abstracts: dict[str, str], shards: Iterable[Shard] = ()) -> set[str]:
        """The keys of ``abstracts`` (key -> abstract) that have a valid record, once the
        shards' valid records for the others are merged in (one transaction: all or
        nothing). Only records of these abstracts can be checked, so only they are merged.
        Each file's invalid records are one warning."""
        usable, bad = set(), _Rejections(self.path or "the extraction cache")
        for key, abstract in abstracts.items():
            row = _sized_record(self._db, key, self.version, abstract)
            if row:
                try:
                    read_record(row[0], abstract, "")
                    usable.add(key)
                except InvalidRecord as problem:
                    bad.add(problem)  # the fresh extraction replaces it
        bad.warn()
        try:
            with self._db:
                for shard in shards:
                    bad = _Rejections(shard.path)
                    for key, record in shard.records(abstracts):
                        if key in usable:
                            continue
                        try:
                            read_record(record, abstracts[key], "")
                        except InvalidRecord as problem:
                            bad.add(problem)
                            continue
                        self._db.execute("INSERT OR REPLACE INTO extraction VALUES (?, ?, ?)", (key, self.version, record))
                        usable.add(key)
                    bad.warn()
        except sqlite3.Error as exc:
            raise CacheError(f"{self.path}: cannot write the extraction cache ({exc}); nothing was merged") from exc
        return usable

    def put_many(self, items: Iterable[tuple[str, Extraction]]) -> None:
        rows = [(abstract_key(abstract), self.version, encode_extraction(e)) for abstract, e in items]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO extraction VALUES (?, ?, ?)", rows)

    def prune(self) -> None:
        """Forget records of other pipeline versions: they can never be used again."""
        with self._db:
            self._db.execute("DELETE FROM extraction WHERE version != ?", (self.version,))

    def close(self) -> None:
        self._db.close()


class CachingExtractor:
    """Wraps an extractor: abstracts with a valid record in the cache (or in one of
    ``shards``, merged into it first) come from there, the others are extracted
    (in one stream, in order) and stored. ``self.extracted`` counts them."""

    def __init__(self, inner, cache: ExtractionCache, batch: int = 256, shards: Iterable[Shard] = ()):
        self.inner = inner
        self.cache = cache
        self.shards = tuple(shards)
        self.name = inner.name
        self.version = getattr(inner, "version", None)
        self.batch = batch
        self.extracted = 0

    def extract(self, papers: Iterable[LinkedPaper]) -> Iterator[Extraction]:
        papers = list(papers)
        abstracts = {abstract_key(p.paper.abstract): p.paper.abstract for p in papers}
        # Validated up front, so every paper without a usable record joins the one extraction stream.
        usable = self.cache.gather(abstracts, self.shards)
        cached = [abstract_key(p.paper.abstract) in usable for p in papers]
        missing = [p for p, hit in zip(papers, cached) if not hit]
        fresh = self.inner.extract(missing) if missing else iter(())
        pending: list[tuple[str, Extraction]] = []
        for paper, hit in zip(papers, cached):
            if hit:
                extraction = self.cache.get(paper.paper.abstract, paper.iri)
                if extraction is None:
                    raise CacheError(f"{self.cache.path}: a record changed while this build read it (another kg command?); build again")
                yield extraction
                continue
            extraction = next(fresh)
            self.extracted += 1
            pending.append((paper.paper.abstract, extraction))
            if len(pending) >= self.batch:
                self.cache.put_many(pending)
                pending = []
            yield extraction
        self.cache.put_many(pending)
        for _ in fresh:  # run the extractor to its end, so it can shut down its workers
            pass
