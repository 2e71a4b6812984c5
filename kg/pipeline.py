"""The build, stage by stage: read -> link papers -> extract -> link concepts -> graph -> store."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pyoxigraph import Quad

from kg.corpus import read_paths
from kg.extract import Extractor
from kg.graph import DEFAULT_STORE, broader_quads, concept_quads, extraction_quads, paper_quads, write_store
from kg.link import broader_links, link_concepts, link_papers
from kg.records import LinkedPaper

__all__ = ["BuildReport", "build", "extract_jsonl", "graph_quads"]


@dataclass(frozen=True)
class BuildReport:
    files: int
    records: int  # papers as read, duplicates included
    papers: int  # distinct papers in the graph
    authors: int
    store: Path

    @property
    def duplicates(self) -> int:
        return self.records - self.papers


Progress = Callable[[Sequence[LinkedPaper]], Iterable[LinkedPaper]]


def graph_quads(
    papers: Sequence[LinkedPaper], extractors: Sequence[Extractor] = (), progress: Progress | None = None
) -> Iterator[Quad]:
    """Every quad of the graph of ``papers``: bibliographic data, then what each extractor found."""
    abstracts = {p.iri: p.paper.abstract for p in papers}
    # The bar follows the slow part: extraction when there is any.
    tracked = progress(papers) if progress else papers
    for linked in papers if extractors else tracked:
        yield from paper_quads(linked)
    # Which labels are one concept is a corpus-wide decision: extract everything first.
    extractions = [e for number, extractor in enumerate(extractors) for e in extractor.extract(tracked if number == 0 else papers)]
    if not extractions:
        return
    concepts = link_concepts(extractions)
    for extraction in extractions:
        yield from extraction_quads(extraction, abstracts[extraction.paper_iri], concepts)
    for concept in concepts.concepts:
        yield from concept_quads(concept)
    for link in broader_links(extractions, abstracts, concepts):
        yield from broader_quads(link, abstracts)


def build(
    paths: Iterable[str | Path],
    store: str | Path = DEFAULT_STORE,
    format: str | None = None,
    extractors: Sequence[Extractor] = (),
    progress: Progress | None = None,
) -> BuildReport:
    """Read ``paths``, build their graph and make it the content of ``store``.

    The store then holds exactly the graph of these inputs; the previous
    content is replaced only once the new graph is complete. ``progress`` may
    wrap the papers as they go into the graph (e.g. in a tqdm bar).
    """
    records = list(read_paths(paths, format))
    linked = link_papers(records)
    write_store(graph_quads(linked, extractors, progress), store)
    return BuildReport(
        files=len({(r.source.file_name, r.source.sha256) for r in records}),
        records=len(records),
        papers=len(linked),
        authors=len({a.iri for p in linked for a in p.authors}),
        store=Path(store),
    )


def extract_jsonl(
    paths: Iterable[str | Path],
    extractor: Extractor,
    format: str | None = None,
    progress: Progress | None = None,
) -> Iterator[str]:
    """One JSON line per distinct paper of ``paths``: what ``extractor`` found (``kg extract``)."""
    from kg.extract.extractor import extraction_json

    linked = link_papers(read_paths(paths, format))
    by_iri = {p.iri: p for p in linked}
    for extraction in extractor.extract(progress(linked) if progress else linked):
        record = extraction_json(extraction, by_iri[extraction.paper_iri])
        yield json.dumps(record, ensure_ascii=False, sort_keys=False)
