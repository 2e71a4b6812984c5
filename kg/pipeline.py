"""The build, stage by stage: read -> link papers -> extract -> link concepts -> graph -> store."""

from __future__ import annotations

import json
import struct
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pyoxigraph import Quad, Store

from kg.corpus import read_paths
from kg.extract import Extractor
from kg.extract.cache import decode_extraction, encode_extraction
from kg.graph import DEFAULT_STORE, broader_quads, concept_quads, extraction_quads, paper_quads, write_store
from kg.graph.state import STATE_FILE, BuildState
from kg.graph.store import store_target
from kg.incremental import Increment, add_papers, settings_digest
from kg.link import link_papers
from kg.link.concepts import ConceptLinker
from kg.link.hierarchy import head_noun_links, hearst_links, load_hearst_patterns, without_contradictions
from kg.records import BroaderLink, Concept, Extraction, LinkedPaper
from kg.stages import Stages

__all__ = ["BuildReport", "Linking", "build", "extract_jsonl", "graph_quads", "in_shard"]


@dataclass(frozen=True)
class BuildReport:
    files: int
    records: int  # papers as read, duplicates included
    papers: int  # distinct papers in the graph
    authors: int
    store: Path
    triples: int  # in the new store
    added: int | None = None  # papers added to the previous graph; None: built afresh
    rebuilt_because: str | None = None  # why it was built afresh

    @property
    def duplicates(self) -> int:
        return self.records - self.papers


#: Wraps a stream of per-paper items (papers, or extractions) and its length, e.g. in a tqdm bar.
Progress = Callable[[Iterable, int], Iterable]


class _Spill:
    """Extractions written to a temporary file as they come, read back in order
    as often as the concept stage needs: the build never holds them all."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()
        self.count = 0

    def add(self, extraction: Extraction) -> None:
        iri = extraction.paper_iri.encode("utf-8")
        record = encode_extraction(extraction)
        self._file.write(struct.pack(">II", len(iri), len(record)) + iri + record)
        self.count += 1

    def __iter__(self) -> Iterator[Extraction]:
        self._file.seek(0)
        for _ in range(self.count):
            iri_length, record_length = struct.unpack(">II", self._file.read(8))
            iri = self._file.read(iri_length).decode("utf-8")
            yield decode_extraction(self._file.read(record_length), iri)
        self._file.seek(0, 2)

    def close(self) -> None:
        self._file.close()


@dataclass
class Linking:
    """What concept linking decided for a whole corpus, kept for the build state."""

    linker: ConceptLinker | None = None
    links: list[BroaderLink] = field(default_factory=list)  # before contradictions are dropped
    concepts: list[Concept] = field(default_factory=list)


def graph_quads(
    papers: Sequence[LinkedPaper],
    extractors: Sequence[Extractor] = (),
    progress: Progress | None = None,
    linking: Linking | None = None,
    stages: Stages | None = None,
) -> Iterator[Quad]:
    """Every quad of the graph of ``papers``: bibliographic data, then what each
    extractor found. Once the stream ends, ``linking`` holds what concept
    linking decided, and ``stages`` the seconds of extraction and of concept
    linking (not of what the consumer did with the quads meanwhile)."""
    abstracts = {p.iri: p.paper.abstract for p in papers}
    stages = stages or Stages()

    def tracked(items: Iterable) -> Iterable:  # the bar follows the slow part: extraction when there is any
        return progress(items, len(papers)) if progress else items

    for linked in papers if extractors else tracked(papers):
        yield from paper_quads(linked)
    if not extractors:
        return
    # Which labels are one concept is a corpus-wide decision: extract everything
    # first (onto disk), then link concepts in three streaming passes.
    spill = _Spill()
    try:
        with stages("extract"):
            for number, extractor in enumerate(extractors):
                extractions = extractor.extract(papers)
                for extraction in tracked(extractions) if number == 0 else extractions:
                    spill.add(extraction)
        with stages("link concepts"):
            linker = ConceptLinker()
            linker.prepare(spill)
            patterns = load_hearst_patterns()
        links = []
        linking_time = 0.0
        for extraction in spill:
            start = time.perf_counter()
            concepts = linker.link(extraction)
            abstract = abstracts[extraction.paper_iri]
            links += hearst_links(extraction, abstract, concepts.concept_of, patterns)
            linking_time += time.perf_counter() - start
            yield from extraction_quads(extraction, abstract, concepts)
        stages.add("link concepts", linking_time)
    finally:
        spill.close()
    with stages("link concepts"):
        found = linker.concepts()
    for concept in found:
        yield from concept_quads(concept)
    with stages("link concepts"):
        links += head_noun_links(found)
        kept = without_contradictions(links)
    for link in kept:
        yield from broader_quads(link, abstracts)
    if linking is not None:
        linking.linker, linking.links, linking.concepts = linker, links, found


def build(
    paths: Iterable[str | Path],
    store: str | Path = DEFAULT_STORE,
    format: str | None = None,
    extractors: Sequence[Extractor] = (),
    progress: Progress | None = None,
    strict: bool = False,
    incremental: bool = True,
    finish: Callable[[Store], Callable[[], None] | None] | None = None,
    stages: Stages | None = None,
) -> BuildReport:
    """Read ``paths``, build their graph and make it the content of ``store``.

    The store then holds exactly the graph of these inputs; the previous
    content is replaced only once the new graph is complete. When the store
    holds the graph of the same papers but the last few, those are added to
    it (:mod:`kg.incremental`; ``incremental=False`` always builds it
    afresh), with the same result. ``progress`` may
    wrap the papers' stream (their extractions, when there are extractors) in
    a progress bar. Bad
    records are skipped with a warning, or refused when ``strict``
    (:func:`kg.corpus.read_file`). ``store`` must be a folder kg may replace
    (:func:`kg.graph.store.store_target`): checked first.

    ``finish(graph)`` gets the new graph, open for reading, before it
    replaces the previous one, and may return a function to run with the
    swap, all or nothing with it: ``kg build`` draws its page so, and a page
    it cannot write leaves store and page as they were. ``stages`` gets the
    seconds of each stage (:mod:`kg.stages`).
    """
    stages = stages or Stages()
    store_target(store)
    with stages("read"):
        records = list(read_paths(paths, format, strict))
    with stages("link papers"):
        linked = link_papers(records)
    settings = settings_digest(extractors)
    triples = 0

    def done(folder: Path) -> Callable[[], None] | None:
        nonlocal triples
        graph = Store.read_only(str(folder))
        triples = len(graph)
        if finish is None:
            return None
        with stages("page"):
            return finish(graph)

    increment = add_papers(store, linked, extractors, settings, progress, done) if incremental else Increment(None, "asked to")
    if increment.added is None:
        linking = Linking()

        def keep_state(folder: Path) -> Callable[[], None] | None:
            if settings is not None:
                with stages("build state"):
                    BuildState.create(folder / STATE_FILE, settings, linked, linking.linker, linking.links, linking.concepts)
            return done(folder)

        start = time.perf_counter()
        write_store(graph_quads(linked, extractors, progress, linking, stages), store, finish=keep_state)
        # Writing the store is interleaved with the stages that make its quads: it took the rest.
        stages.rest("write store", time.perf_counter() - start, ("extract", "link concepts", "build state", "page"))
    return BuildReport(
        files=len({(r.source.file_name, r.source.sha256) for r in records}),
        records=len(records),
        papers=len(linked),
        authors=len({a.iri for p in linked for a in p.authors}),
        store=Path(store),
        triples=triples,
        added=increment.added,
        rebuilt_because=increment.reason,
    )


def in_shard(paper_iri: str, shard: tuple[int, int]) -> bool:
    """Whether a paper belongs to shard ``index`` of ``count``: by its IRI's hash, so the
    same paper always lands in the same shard and every paper in exactly one."""
    index, count = shard
    return int(paper_iri.rsplit("/", 1)[1], 16) % count == index


def extract_jsonl(
    paths: Iterable[str | Path],
    extractor: Extractor,
    format: str | None = None,
    progress: Progress | None = None,
    shard: tuple[int, int] | None = None,
    strict: bool = False,
) -> Iterator[str]:
    """One JSON line per distinct paper of ``paths`` (of one ``shard``, if given):
    what ``extractor`` found (``kg extract``)."""
    from kg.extract.extractor import extraction_json

    linked = link_papers(read_paths(paths, format, strict))
    if shard is not None:
        linked = [p for p in linked if in_shard(p.iri, shard)]
    by_iri = {p.iri: p for p in linked}
    extractions = extractor.extract(linked)
    for extraction in progress(extractions, len(linked)) if progress else extractions:
        record = extraction_json(extraction, by_iri[extraction.paper_iri])
        yield json.dumps(record, ensure_ascii=False, sort_keys=False)
