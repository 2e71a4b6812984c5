"""What a build remembers beside its graph, so the next build can add papers
instead of starting again (:mod:`kg.incremental`).

One SQLite file inside the store's folder (:data:`STATE_FILE`), written into
the new folder before it is swapped in, so the store and its state always
change together. It holds the corpus-wide tallies concept linking decides
from (acronym definitions and which short forms labels use bare, label
case, each concept's labels and surface forms, the first relation end of
each concept and its paper), every ``skos:broader`` link before
contradictions are dropped, the head-noun suffixes of each concept, and
each paper's fingerprint and sources in build order. Plain rows and JSON,
no pickles.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import astuple, replace
from pathlib import Path
from typing import cast

from kg.graph.store import STATE_FILE  # its name: the store module tells kg's stores by it too
from kg.link.concepts import ConceptLinker
from kg.link.hierarchy import HEAD_NOUN_RULE, head_suffixes
from kg.records import BroaderLink, Concept, LinkedPaper, SourceRef

__all__ = ["STATE_FILE", "BuildState", "paper_fingerprint"]

#: Bumped when the tables below change meaning: an older state is then ignored.
FORMAT = "4"

_SCHEMA = """
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE paper (position INTEGER PRIMARY KEY, iri TEXT NOT NULL, fingerprint TEXT NOT NULL, sources TEXT NOT NULL);
CREATE UNIQUE INDEX paper_iri ON paper (iri);
CREATE TABLE definition (short TEXT, long_key TEXT, label TEXT, abstracts INTEGER NOT NULL, PRIMARY KEY (short, long_key, label));
CREATE TABLE bare_short (short TEXT PRIMARY KEY);
CREATE TABLE label_case (type TEXT, key TEXT, lowercase INTEGER NOT NULL, PRIMARY KEY (type, key));
CREATE TABLE concept_group (type TEXT, key TEXT, data TEXT NOT NULL, PRIMARY KEY (type, key));
CREATE TABLE relation_end (type TEXT, key TEXT, paper TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (type, key));
CREATE TABLE broader (narrower TEXT NOT NULL, broader TEXT NOT NULL, rule TEXT NOT NULL, paper TEXT, start INTEGER, end INTEGER, confidence REAL NOT NULL);
CREATE INDEX broader_pair ON broader (narrower, broader);
CREATE TABLE head (iri TEXT PRIMARY KEY, type TEXT NOT NULL, label TEXT NOT NULL);
CREATE TABLE suffix (type TEXT NOT NULL, key TEXT NOT NULL, iri TEXT NOT NULL);
CREATE INDEX suffix_key ON suffix (type, key);
CREATE INDEX suffix_iri ON suffix (iri);
"""


def paper_fingerprint(paper: LinkedPaper) -> str:
    """Changes with anything of the paper its triples show but where it was read:
    record, authors (a changed file, e.g. one with lines appended, changes only
    the sources of the papers it had)."""
    # source=None only inside this hashed repr: a Paper never escapes with it, so the field keeps its type.
    unplaced = replace(paper, paper=replace(paper.paper, source=cast(SourceRef, None)), sources=())
    return hashlib.sha256(repr(unplaced).encode("utf-8")).hexdigest()


def _sources_json(paper: LinkedPaper) -> str:
    return json.dumps([astuple(source) for source in paper.sources], ensure_ascii=False)


def _link_row(link: BroaderLink) -> tuple:
    return (link.narrower, link.broader, link.rule, link.paper_iri, link.start, link.end, link.confidence)


def _link(row: Sequence) -> BroaderLink:
    narrower, broader, rule, paper, start, end, confidence = row
    return BroaderLink(narrower, broader, rule, confidence, paper, start, end)


class BuildState:
    """A store's build state, open for reading (``writable=False``) or writing."""

    def __init__(self, path: Path, writable: bool = False):
        self.path = Path(path)
        self._db = sqlite3.connect(str(self.path)) if writable else sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)

    # -- a full build writes everything ---------------------------------------

    @classmethod
    def create(
        cls,
        path: Path,
        settings: str,
        papers: Sequence[LinkedPaper],
        linker: ConceptLinker | None,
        links: Iterable[BroaderLink],
        concepts: Iterable[Concept],
    ) -> None:
        state = cls(path, writable=True)
        db = state._db
        with db:
            db.executescript(_SCHEMA)
            db.executemany("INSERT INTO meta VALUES (?, ?)", [("format", FORMAT), ("settings", settings)])
            state.set_papers(papers)
            if linker is not None:
                db.executemany("INSERT INTO definition VALUES (?, ?, ?, ?)", linker.definition_rows())
                db.executemany("INSERT INTO label_case VALUES (?, ?, ?)", linker.case_rows())
                state.add_bare_short_forms(linker.bare_short_forms())
                db.executemany("INSERT INTO concept_group VALUES (?, ?, ?)", linker.group_rows())
                db.executemany("INSERT INTO relation_end VALUES (?, ?, ?, ?)", linker.relation_end_rows())
            db.executemany("INSERT INTO broader VALUES (?, ?, ?, ?, ?, ?, ?)", map(_link_row, links))
            state.set_heads(concepts, replace=False)
        state.close()

    # -- reading ----------------------------------------------------------------

    def meta(self, name: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def papers(self) -> Iterator[tuple[str, str, tuple[SourceRef, ...]]]:
        """(IRI, fingerprint, sources) of each paper, in build order."""
        for iri, fingerprint, sources in self._db.execute("SELECT iri, fingerprint, sources FROM paper ORDER BY position"):
            yield iri, fingerprint, tuple(SourceRef(*source) for source in json.loads(sources))

    def definition_rows(self) -> Iterator[tuple]:
        return self._db.execute("SELECT short, long_key, label, abstracts FROM definition")

    def bare_short_forms_among(self, shorts: Iterable[str]) -> list[str]:
        """Which of ``shorts`` some stored paper used without defining it."""
        return [s for s in sorted(shorts) if self._db.execute("SELECT 1 FROM bare_short WHERE short = ?", (s,)).fetchone()]

    def case_rows(self) -> Iterator[tuple]:
        return self._db.execute("SELECT type, key, lowercase FROM label_case")

    def concept_keys(self) -> set[tuple[str, str]]:
        """Every concept of the stored corpus, as (type, key)."""
        return set(self._db.execute("SELECT type, key FROM concept_group UNION SELECT type, key FROM relation_end"))

    def concept_data(self, concept_type: str, key: str) -> tuple[str | None, tuple[str, str] | None]:
        """The stored group (JSON) of one concept, and its first relation end (paper IRI, JSON)."""
        group = self._db.execute("SELECT data FROM concept_group WHERE type = ? AND key = ?", (concept_type, key)).fetchone()
        end = self._db.execute("SELECT paper, data FROM relation_end WHERE type = ? AND key = ?", (concept_type, key)).fetchone()
        return (group[0] if group else None), (tuple(end) if end else None)

    def heads_ending_in(self, concept_type: str, key: str) -> list[tuple[str, str, str]]:
        """(IRI, type, prefLabel) of the concepts whose label ends in words with ``key``."""
        return self._db.execute(
            "SELECT head.iri, head.type, head.label FROM suffix JOIN head ON head.iri = suffix.iri WHERE suffix.type = ? AND suffix.key = ?",
            (concept_type, key),
        ).fetchall()

    def head_noun_link(self, iri: str) -> BroaderLink | None:
        row = self._db.execute("SELECT * FROM broader WHERE narrower = ? AND rule = ?", (iri, HEAD_NOUN_RULE)).fetchone()
        return _link(row) if row else None

    def links_between(self, narrower: str, broader: str) -> list[BroaderLink]:
        return [_link(row) for row in self._db.execute("SELECT * FROM broader WHERE narrower = ? AND broader = ?", (narrower, broader))]

    def rule_in_use(self, rule: str) -> bool:
        """Whether some link of ``rule`` survives the contradiction check."""
        return (
            self._db.execute(
                "SELECT 1 FROM broader AS a WHERE rule = ? AND NOT EXISTS "
                "(SELECT 1 FROM broader AS b WHERE b.narrower = a.broader AND b.broader = a.narrower) LIMIT 1",
                (rule,),
            ).fetchone()
            is not None
        )

    # -- an incremental build updates it ----------------------------------------

    def set_papers(self, papers: Iterable[LinkedPaper]) -> None:
        """The corpus's papers, in build order (replacing those stored)."""
        self._db.execute("DELETE FROM paper")
        rows = ((i, p.iri, paper_fingerprint(p), _sources_json(p)) for i, p in enumerate(papers))
        self._db.executemany("INSERT INTO paper VALUES (?, ?, ?, ?)", rows)

    def add_definitions(self, rows: Iterable[tuple[str, str, str, int]]) -> None:
        self._db.executemany(
            "INSERT INTO definition VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET abstracts = abstracts + excluded.abstracts", rows
        )

    def add_bare_short_forms(self, shorts: Iterable[str]) -> None:
        self._db.executemany("INSERT OR IGNORE INTO bare_short VALUES (?)", ((s,) for s in sorted(shorts)))

    def set_cases(self, rows: Iterable[tuple[str, str, bool]]) -> None:
        self._db.executemany("INSERT OR REPLACE INTO label_case VALUES (?, ?, ?)", rows)

    def set_group(self, concept_type: str, key: str, data: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO concept_group VALUES (?, ?, ?)", (concept_type, key, data))

    def set_relation_end(self, concept_type: str, key: str, paper: str, data: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO relation_end VALUES (?, ?, ?, ?)", (concept_type, key, paper, data))

    def replace_links(self, removed: Iterable[BroaderLink], added: Iterable[BroaderLink]) -> None:
        for link in removed:
            self._db.execute(
                "DELETE FROM broader WHERE rowid = (SELECT rowid FROM broader WHERE narrower IS ? AND broader IS ? AND rule IS ? "
                "AND paper IS ? AND start IS ? AND end IS ? AND confidence IS ? LIMIT 1)",
                _link_row(link),
            )
        self._db.executemany("INSERT INTO broader VALUES (?, ?, ?, ?, ?, ?, ?)", map(_link_row, added))

    def set_heads(self, concepts: Iterable[Concept], replace: bool = True) -> None:
        """(Re)write the head-noun suffixes of ``concepts`` (by their prefLabel)."""
        for concept in concepts:
            if replace:
                self._db.execute("DELETE FROM head WHERE iri = ?", (concept.iri,))
                self._db.execute("DELETE FROM suffix WHERE iri = ?", (concept.iri,))
            suffixes = head_suffixes(concept.pref_label)
            if suffixes:
                self._db.execute("INSERT INTO head VALUES (?, ?, ?)", (concept.iri, concept.type, concept.pref_label))
                self._db.executemany("INSERT INTO suffix VALUES (?, ?, ?)", ((concept.type, key, concept.iri) for key in suffixes))

    def commit(self) -> None:
        self._db.commit()

    def close(self) -> None:
        self._db.close()
