"""Incremental builds: add new papers to a built store instead of building it again.

A full build links concepts across the whole corpus, so a new paper can in
principle change what an old one's triples say. The build state a full build
leaves in the store (:mod:`kg.graph.state`) holds the corpus-wide tallies
those decisions come from; with it, adding papers touches only:

* the new papers' own triples (bibliographic, mentions, claims, relations);
* where old papers were read, when their file changed around them (lines
  appended to it: the file's digest, so its node, changes);
* the concepts they name (labels, surface forms and counts change);
* the ``skos:broader`` links those concepts take part in (head nouns, Hearst
  patterns, and the contradiction check between them).

It is exact, or it is not done: :func:`add_papers` declines, and the build
starts again, whenever the result could differ from a full build's: no
state or one from other code, extractors or settings; old papers changed,
removed or reordered (new ones may come anywhere: a new file in a folder, or
lines appended to a file); a new paper changes what a short form means
across the corpus where an old paper uses it bare, or which plural joins
which concept. Tests compare the store
with a full build's, triple for triple.
"""

from __future__ import annotations

import hashlib
import itertools
import shutil
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pyoxigraph import NamedNode, Quad, Store

from kg.extract import Extractor
from kg.graph.build import broader_quads, concept_quads, extraction_quads, paper_quads, source_quads
from kg.graph.state import FORMAT, STATE_FILE, BuildState, paper_fingerprint
from kg.graph.store import WRITE_CHUNK, Finish, update_store
from kg.link.concepts import ConceptLinker
from kg.link.hierarchy import head_noun_link, hearst_links, load_hearst_patterns
from kg.link.identity import component_iri, source_iri
from kg.records import BroaderLink, Concept, Extraction, LinkedPaper
from kg.vocab import ontology_file

__all__ = ["Increment", "add_papers", "settings_digest"]

_PACKAGE = Path(__file__).resolve().parent


def settings_digest(extractors: Sequence[Extractor]) -> str | None:
    """What a stored build state must match to be added to: the extractors and
    their versions, and kg's own code and data (which decide linking and
    triples). None when an extractor has no version: never incremental."""
    parts = []
    for extractor in extractors:
        version = getattr(extractor, "version", None)
        if version is None:
            return None
        parts.append(f"{extractor.name}={version}")
    code = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*")):
        # Training code never runs in a build: retraining changes the weights, which count.
        if path.is_file() and "__pycache__" not in path.parts and path.relative_to(_PACKAGE).parts[0] != "training":
            code.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
    # the ontology is in every store, and the relation signatures the builder reads come from it
    code.update(b"ontology/kg.ttl\0" + ontology_file("kg.ttl").read_bytes())
    return hashlib.sha256("\n".join([*parts, code.hexdigest()]).encode()).hexdigest()


@dataclass(frozen=True)
class Increment:
    """How a build went: ``added`` papers added to the previous graph, or
    built afresh (``added`` None) for the ``reason`` given."""

    added: int | None
    reason: str | None = None


class _Declined(Exception):
    """Only a full build gives the right graph; the message says why."""


@dataclass
class _Delta:
    """What adding the new papers changes: quads and build-state rows."""

    corpus: Sequence[LinkedPaper]  # every paper, in build order
    papers: Sequence[LinkedPaper]  # the new ones
    additions: set[Quad] = field(default_factory=set)
    removals: set[Quad] = field(default_factory=set)
    agents: dict[Quad, str] = field(default_factory=dict)  # removal candidate -> the hierarchy rule whose agent it describes
    definitions: list[tuple] = field(default_factory=list)
    bare_short_forms: set[str] = field(default_factory=set)
    cases: list[tuple] = field(default_factory=list)
    groups: list[tuple[str, str, str]] = field(default_factory=list)
    relation_ends: list[tuple[str, str, str, str]] = field(default_factory=list)
    concepts: list[Concept] = field(default_factory=list)
    removed_links: list[BroaderLink] = field(default_factory=list)
    added_links: list[BroaderLink] = field(default_factory=list)

    def apply(self, store: Store, folder: Path, stored_state: Path) -> None:
        shutil.copyfile(stored_state, folder / STATE_FILE)
        state = BuildState(folder / STATE_FILE, writable=True)
        try:
            state.set_papers(self.corpus)
            state.add_definitions(self.definitions)
            state.add_bare_short_forms(self.bare_short_forms)
            state.set_cases(self.cases)
            for row in self.groups:
                state.set_group(*row)
            for end in self.relation_ends:
                state.set_relation_end(*end)
            state.replace_links(self.removed_links, self.added_links)
            state.set_heads(self.concepts)
            # An agent's own triples go only with the last link its rule made.
            removals = {q for q in self.removals if q not in self.agents or not state.rule_in_use(self.agents[q])}
            state.commit()
        finally:
            state.close()
        for quad in removals:
            store.remove(quad)
        additions = iter(self.additions)
        while chunk := list(itertools.islice(additions, WRITE_CHUNK)):
            store.bulk_extend(chunk)


def add_papers(
    store: str | Path,
    papers: Sequence[LinkedPaper],
    extractors: Sequence[Extractor],
    settings: str | None,
    progress=None,
    finish: Finish | None = None,
) -> Increment:
    """Make ``store`` the graph of ``papers`` by adding those its last build
    lacked, if that gives exactly a full build's graph; otherwise change
    nothing and say why. ``settings`` is :func:`settings_digest` of
    ``extractors``; ``progress`` may wrap the new papers' extractions in a bar;
    ``finish`` is as in :func:`kg.graph.store.write_store`."""
    if settings is None:
        return Increment(None, "an extractor without a version")
    outcome = [Increment(None, "no store yet")]

    def plan(folder: Path):
        stored = folder / STATE_FILE
        try:
            try:
                Store.read_only(str(folder))
            except (OSError, RuntimeError) as exc:  # damaged (a truncated file): a full build replaces it
                raise _Declined(f"the previous store cannot be read ({exc})") from exc
            if not stored.is_file():
                raise _Declined("the store has no build state")
            try:
                state = BuildState(stored)
                try:
                    delta = _plan(state, settings, papers, extractors, progress)
                finally:
                    state.close()
            except sqlite3.Error as exc:
                raise _Declined(f"its build state is unreadable ({exc})") from exc
        except _Declined as declined:
            outcome[0] = Increment(None, str(declined))
            return None
        outcome[0] = Increment(len(delta.papers))
        return lambda new_store, new_folder: delta.apply(new_store, new_folder, stored)

    update_store(store, plan, finish)
    return outcome[0]


def _plan(state: BuildState, settings: str, papers: Sequence[LinkedPaper], extractors: Sequence[Extractor], progress) -> _Delta:
    if state.meta("format") != FORMAT or state.meta("settings") != settings:
        raise _Declined("it was built by other code, extractors or settings")
    where = {paper.iri: index for index, paper in enumerate(papers)}
    delta = _Delta(corpus=papers, papers=())
    last, old = -1, set()
    for iri, fingerprint, sources in state.papers():
        index = where.get(iri)
        if index is None:
            raise _Declined(f"a paper was removed, or its abstract changed ({iri})")
        if index < last:
            raise _Declined("the old papers come in another order")
        paper, last = papers[index], index
        if paper_fingerprint(paper) != fingerprint:
            raise _Declined(f"a paper changed ({iri})")
        if paper.sources != sources:  # its file changed around it, e.g. lines were appended
            _replace(delta, source_quads(iri, sources), source_quads(iri, paper.sources))
        old.add(iri)
    delta.papers = [paper for paper in papers if paper.iri not in old]
    # A file node goes only when no paper is read from that file any more.
    files = {source_iri(source) for paper in papers for source in paper.sources}
    delta.removals = {q for q in delta.removals if q.subject not in files}
    for paper in delta.papers:
        delta.additions.update(paper_quads(paper))
    if not extractors or not delta.papers:
        return delta
    extractions: list[Extraction] = []
    for number, extractor in enumerate(extractors):
        found = extractor.extract(delta.papers)
        extractions += progress(found, len(delta.papers)) if progress and number == 0 else found
    return _link(state, delta, extractions, {p.iri: p.paper.abstract for p in papers}, where)


def _link(state: BuildState, delta: _Delta, extractions: list, abstracts: dict[str, str], where: dict[str, int]) -> _Delta:
    linker = ConceptLinker()
    cases = {(t, k): bool(lower) for t, k, lower in state.case_rows()}
    linker.resume(state.definition_rows(), ((t, k, lower) for (t, k), lower in cases.items()))
    # The corpus-wide tables must not move, or old papers' concepts would.
    linker.finish_definitions()
    acronyms = linker.acronym_table()
    tally = ConceptLinker()
    for extraction in extractions:
        linker.add_definitions(extraction)
        tally.add_definitions(extraction)
    linker.finish_definitions()
    # A short form's new meaning matters only where an old paper used it bare.
    changed = {short for short, _ in set(acronyms.items()) ^ set(linker.acronym_table().items())}
    used = state.bare_short_forms_among(changed)
    if used:
        raise _Declined(f"the new papers change what {used[0]} means across the corpus")
    linker.finish_labels()
    plurals = linker.plural_targets()
    for extraction in extractions:
        linker.add_labels(extraction)
    linker.finish_labels()
    now = linker.plural_targets()
    moved = next((key for key in cases if now.get(key) != plurals.get(key)), None)
    if moved is not None:
        raise _Declined(f"the new papers change which concept the plural {moved[1]!r} joins")
    delta.definitions = list(tally.definition_rows())
    delta.cases = [(t, k, lower) for t, k, lower in linker.case_rows() if cases.get((t, k)) != lower]

    patterns = load_hearst_patterns()
    hearst = []
    for extraction in extractions:
        concepts = linker.link(extraction)
        abstract = abstracts[extraction.paper_iri]
        delta.additions.update(extraction_quads(extraction, abstract, concepts))
        hearst += hearst_links(extraction, abstract, concepts.concept_of, patterns)

    touched = sorted(linker.touched())
    known = state.concept_keys()
    new_ends = {(t, k): (paper, data) for t, k, paper, data in linker.relation_end_rows()}
    for concept_type, key in touched:
        stored_group, stored_end = state.concept_data(concept_type, key)
        # The corpus's first relation end names a concept no mention names: a new paper's, if it comes first.
        first_end = new_end = new_ends.get((concept_type, key))
        if stored_end is not None and (new_end is None or where[stored_end[0]] < where[new_end[0]]):
            first_end = stored_end
        elif new_end is not None:
            delta.relation_ends.append((concept_type, key, *new_end))
        before = linker.stored_concept(concept_type, key, stored_group, stored_end[1] if stored_end else None)
        after, group = linker.merge_stored(concept_type, key, stored_group, first_end[1] if first_end else None)
        _replace(delta, concept_quads(before) if before else (), concept_quads(after))
        delta.concepts.append(after)
        if group is not None:
            delta.groups.append((concept_type, key, group))
    delta.bare_short_forms = linker.bare_short_forms()
    exists = set(touched).union(known).__contains__
    _relink_hierarchy(state, delta, hearst, [k for k in touched if k not in known], exists, abstracts)
    return delta


def _replace(delta: _Delta, before: Iterable[Quad], after: Iterable[Quad]) -> None:
    before, after = set(before), set(after)
    delta.removals |= before - after
    delta.additions |= after - before


def _relink_hierarchy(state: BuildState, delta: _Delta, hearst: list[BroaderLink], new_keys, exists, abstracts: dict[str, str]) -> None:
    """Head-noun links of the concepts whose label changed or that a new concept
    may now be the nearest head of; the new papers' Hearst links; then the
    contradiction check on every pair these touch."""
    heads = {c.iri: (c.type, c.pref_label) for c in delta.concepts}
    for concept_type, key in new_keys:
        for iri, head_type, label in state.heads_ending_in(concept_type, key):
            heads.setdefault(iri, (head_type, label))
    for iri, (concept_type, label) in sorted(heads.items()):
        before, after = state.head_noun_link(iri), head_noun_link(iri, concept_type, label, exists)
        if before != after:
            delta.removed_links += [before] if before else []
            delta.added_links += [after] if after else []
    delta.added_links += hearst

    pairs = {(link.narrower, link.broader) for link in delta.removed_links + delta.added_links}
    pairs |= {(b, n) for n, b in pairs}
    old = {pair: state.links_between(*pair) for pair in pairs}
    new = {pair: list(links) for pair, links in old.items()}
    for link in delta.removed_links:
        new[(link.narrower, link.broader)].remove(link)
    for link in delta.added_links:
        new[(link.narrower, link.broader)].append(link)

    def kept(links: dict) -> set[BroaderLink]:
        return {link for (n, b), found in links.items() if not links[(b, n)] for link in found}

    quads_before = {q for link in kept(old) for q in broader_quads(link, abstracts)}
    quads_after = {q for link in kept(new) for q in broader_quads(link, abstracts)}
    _replace(delta, quads_before, quads_after)
    agents = {component_iri(f"kg_hierarchy#{link.rule}"): link.rule for links in old.values() for link in links}
    delta.agents = {q: agents[q.subject] for q in delta.removals if isinstance(q.subject, NamedNode) and q.subject in agents}
