"""The spaCy extractor: abstracts in, :class:`kg.records.Extraction` records out.

Also the JSON form of an extraction, the contract ``kg extract`` writes: one
object per paper with ``id``, ``title``, ``concepts``, ``claims`` and
``relations`` (see the README).
"""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc

from kg.errors import KgError, KgWarning
from kg.extract.components.acronyms import Acronym
from kg.extract.components.labels import canonical_label
from kg.extract.model import DEFAULT_CONCEPTS
from kg.extract.spans import ClaimSpan, ConceptSpan, RelationSpan
from kg.records import AcronymDefinition, Claim, Extraction, LinkedPaper, Mention, Relation

__all__ = ["SpacyExtractor", "doc_to_extraction", "extraction_json", "usable_cpus"]

BATCH_SIZE = 64


def _sentence_bounds(doc: Doc) -> list[tuple[int, int]]:
    return [(s.start_char, s.end_char) for s in doc.sents]


def _sentence_of(bounds: list[tuple[int, int]], start: int, text_length: int) -> tuple[int, int]:
    return next(((s, e) for s, e in bounds if s <= start < e), (0, text_length))


def doc_to_extraction(doc: Doc, paper_iri: str) -> Extraction:
    """Turn the kg_* components' output on ``doc`` into records."""
    bounds = _sentence_bounds(doc)
    concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
    mentions = []
    for c in concepts:
        sentence_start, sentence_end = _sentence_of(bounds, c.start, len(doc.text))
        mentions.append(
            Mention(
                doc.text[c.start : c.end], c.type, c.start, c.end, sentence_start, sentence_end, c.confidence, c.source, c.label, c.proposed
            )
        )
    claims = tuple(
        Claim(doc.text[c.start : c.end], c.start, c.end, c.confidence, c.source) for c in (ClaimSpan(*t) for t in doc._.kg_claims or [])
    )
    relations: dict[tuple, Relation] = {}
    for r in (RelationSpan(*t) for t in doc._.kg_relations or []):
        head, tail = concepts[r.head], concepts[r.tail]
        key = (head.label, head.type, r.relation, tail.label, tail.type, r.start)
        relations.setdefault(
            key, Relation(head.label, head.type, r.relation, tail.label, tail.type, r.start, r.end, r.confidence, r.source)
        )
    return Extraction(paper_iri, tuple(mentions), claims, tuple(relations[k] for k in sorted(relations)), _acronym_definitions(doc))


def _acronym_definitions(doc: Doc) -> tuple[AcronymDefinition, ...]:
    """The short forms ``doc`` defines, with the canonical label of each long form
    (so the linking stage can apply them to papers that use the short form bare)."""
    definitions = []
    for acronym in (Acronym(*a) for a in doc._.kg_acronyms or []):
        long = doc.char_span(acronym.long_start, acronym.long_end, alignment_mode="expand")
        if long is None:
            continue
        start, end = min(acronym.short_start, acronym.long_start), max(acronym.short_end, acronym.long_end)
        definitions.append(AcronymDefinition(acronym.short, acronym.long, canonical_label(long), start, end))
    return tuple(definitions)


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity mask (taskset, a container's
    cpuset), which ``os.cpu_count()`` ignores; ``os.process_cpu_count()`` is that
    from Python 3.13 on."""
    if hasattr(os, "process_cpu_count"):
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # no affinity masks (macOS): every CPU


def _chunks(items: Iterable, size: int) -> Iterator[list]:
    chunk = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class SpacyExtractor:
    """Runs the kg spaCy pipeline over papers, in batches, through an executor
    (:mod:`kg.extract.executors`): this process; ``jobs`` > 1 worker processes
    (at most one per usable CPU: more only add the memory of a pipeline each);
    or the Dask ``cluster`` at an address (``tcp://HOST:PORT``, ``local:N``). Each
    worker loads the pipeline once, and every executor returns the same
    extractions in the same order as one process."""

    name = "kg_spacy"

    def __init__(
        self,
        nlp: Language | None = None,
        batch_size: int | None = None,
        concepts: str | None = None,
        jobs: int = 1,
        cluster: str | None = None,
    ):
        if cluster is not None and jobs > 1:
            raise KgError("--cluster and --jobs: choose one (a cluster's workers are its processes)")
        self._nlp = nlp
        self.batch_size = batch_size or BATCH_SIZE
        self.concepts = concepts or DEFAULT_CONCEPTS
        self.cluster = cluster
        cpus = usable_cpus()
        if jobs > cpus:
            warnings.warn(
                KgWarning(f"{jobs} extraction workers asked for, but this process can use {cpus} CPUs: running {cpus}"), stacklevel=2
            )
        self.jobs = min(jobs, cpus)

    @property
    def nlp(self) -> Language:
        """The pipeline, loaded on first use (so bad input fails before the model loads)."""
        if self._nlp is None:
            from kg.extract.pipeline import build_nlp

            self._nlp = build_nlp(concepts=self.concepts)
        return self._nlp

    @property
    def version(self) -> str:
        """Identifies everything that decides the output (for the extraction cache)."""
        from kg.extract.pipeline import pipeline_version

        return pipeline_version(self.concepts)

    def executor(self, chunks: int = 2):
        """Where ``chunks`` chunks are extracted: one batch (papers added to a built
        corpus) stays in this process, where workers would only cost their start-up."""
        from kg.extract import executors

        if self.cluster is not None and chunks > 1:
            return executors.DaskCluster(self.cluster, self.concepts, self.batch_size)
        if self.jobs > 1 and chunks > 1:
            return executors.LocalProcesses(self.jobs, self.concepts, self.batch_size)
        return executors.InProcess(self.concepts, self.batch_size, self.nlp)

    def extract(self, papers: Iterable[LinkedPaper]) -> Iterator[Extraction]:
        stream = ((linked.paper.abstract, linked.iri) for linked in papers)
        chunks = _chunks(stream, self.batch_size)
        first, second = next(chunks, None), next(chunks, None)
        if first is None:
            return
        executor = self.executor(1 if second is None else 2)
        for extractions in executor.map(itertools.chain([first], [second] if second else [], chunks)):
            yield from extractions


def extraction_json(extraction: Extraction, linked: LinkedPaper) -> dict:
    """The documented per-paper JSON object of ``kg extract``."""
    paper = linked.paper
    return {
        "id": paper.source_id or linked.iri.rsplit("/", 1)[1],
        "title": paper.title,
        "concepts": [
            {
                "type": m.concept_type,
                "text": m.text,
                "start": m.start,
                "end": m.end,
                "label": m.label or m.text,
                "proposed": m.proposed,
                "confidence": m.confidence,
            }
            for m in extraction.mentions
        ],
        "claims": [{"text": c.text, "start": c.start, "end": c.end, "confidence": c.confidence} for c in extraction.claims],
        "relations": [{"head": r.head, "type": r.relation, "tail": r.tail, "start": r.start, "end": r.end} for r in extraction.relations],
    }
