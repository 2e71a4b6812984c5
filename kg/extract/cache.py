"""The extraction cache: what the pipeline found in an abstract, kept by the
abstract's content and the pipeline's version.

A build extracts only abstracts the cache does not hold for the current
pipeline (:func:`kg.extract.pipeline.pipeline_version`, which changes with
any code, data or weights of the extraction), so adding ten papers to a
built corpus extracts ten. It is one SQLite file (``.kg/extractions.sqlite``
beside the default store); records are compressed JSON, never pickles, so a
cache made on another machine (a shard, see ``kg extract --shard``) is safe
to read.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import astuple
from pathlib import Path

from kg.errors import KgError
from kg.records import AcronymDefinition, Claim, Extraction, LinkedPaper, Mention, Relation

__all__ = ["CacheError", "CachingExtractor", "ExtractionCache", "abstract_key", "decode_extraction", "encode_extraction"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS extraction (
    abstract TEXT NOT NULL,   -- sha256 of the abstract
    version TEXT NOT NULL,    -- the pipeline's version
    record BLOB NOT NULL,     -- zlib-compressed JSON of the Extraction (without the paper IRI)
    PRIMARY KEY (abstract, version)
)
"""


class CacheError(KgError):
    """The extraction cache cannot be read or written."""


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
    mentions, claims, relations, acronyms = json.loads(zlib.decompress(data))
    return Extraction(
        paper_iri,
        tuple(Mention(*m) for m in mentions),
        tuple(Claim(*c) for c in claims),
        tuple(Relation(*r) for r in relations),
        tuple(AcronymDefinition(*a) for a in acronyms),
    )


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
        except sqlite3.Error as exc:
            raise CacheError(f"{self.path}: cannot open the extraction cache ({exc}); remove it or pass --no-cache") from exc

    def keys(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT abstract FROM extraction WHERE version = ?", (self.version,))}

    def get(self, abstract: str, paper_iri: str) -> Extraction | None:
        row = self._db.execute("SELECT record FROM extraction WHERE abstract = ? AND version = ?", (abstract_key(abstract), self.version)).fetchone()
        return decode_extraction(row[0], paper_iri) if row else None

    def put_many(self, items: Iterable[tuple[str, Extraction]]) -> None:
        rows = [(abstract_key(abstract), self.version, encode_extraction(e)) for abstract, e in items]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO extraction VALUES (?, ?, ?)", rows)

    def merge_from(self, other: str | Path) -> int:
        """Copy the current version's records of another cache file (a shard's) into this one."""
        try:
            source = sqlite3.connect(f"file:{Path(other)}?mode=ro", uri=True)
            rows = source.execute("SELECT abstract, version, record FROM extraction WHERE version = ?", (self.version,)).fetchall()
            source.close()
        except sqlite3.Error as exc:
            raise CacheError(f"{other}: not an extraction cache ({exc})") from exc
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO extraction VALUES (?, ?, ?)", rows)
        return len(rows)

    def prune(self) -> None:
        """Forget records of other pipeline versions: they can never be used again."""
        with self._db:
            self._db.execute("DELETE FROM extraction WHERE version != ?", (self.version,))

    def close(self) -> None:
        self._db.close()


class CachingExtractor:
    """Wraps an extractor: cached abstracts come from the cache, the others are
    extracted (in one stream, in order) and stored. ``self.extracted`` counts them."""

    def __init__(self, inner, cache: ExtractionCache, batch: int = 256):
        self.inner = inner
        self.cache = cache
        self.name = inner.name
        self.version = getattr(inner, "version", None)
        self.batch = batch
        self.extracted = 0

    def extract(self, papers: Iterable[LinkedPaper]) -> Iterator[Extraction]:
        papers = list(papers)
        known = self.cache.keys()
        cached = [abstract_key(p.paper.abstract) in known for p in papers]
        missing = [p for p, hit in zip(papers, cached) if not hit]
        fresh = self.inner.extract(missing) if missing else iter(())
        pending: list[tuple[str, Extraction]] = []
        for paper, hit in zip(papers, cached):
            if hit:
                yield self.cache.get(paper.paper.abstract, paper.iri)
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
