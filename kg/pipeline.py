"""The build, stage by stage: read -> link -> extract -> graph -> store."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pyoxigraph import Quad

from kg.corpus import read_paths
from kg.extract import Extractor
from kg.graph import DEFAULT_STORE, extraction_quads, paper_quads, write_store
from kg.link import link_papers
from kg.records import LinkedPaper

__all__ = ["BuildReport", "build", "graph_quads"]


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
    for linked in progress(papers) if progress else papers:
        yield from paper_quads(linked)
    for extractor in extractors:
        for extraction in extractor.extract(papers):
            yield from extraction_quads(extraction, abstracts[extraction.paper_iri])


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
