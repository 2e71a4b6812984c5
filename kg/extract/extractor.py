"""The spaCy extractor: abstracts in, :class:`kg.records.Extraction` records out.

Also the JSON form of an extraction, the contract ``kg extract`` writes: one
object per paper with ``id``, ``title``, ``concepts``, ``claims`` and
``relations`` (see the README).
"""

from __future__ import annotations

import itertools
import os
import signal
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


_worker_nlp = None  # each worker process's own pipeline, built once by _start_worker


def _start_worker(concepts: str) -> None:
    global _worker_nlp
    # Ctrl-C reaches the whole process group: the parent alone handles it and
    # stops the workers (they were forked with SIGINT blocked, so none was missed
    # before this line; ignoring it discards one pending). SIGTERM, what stopping
    # them sends, ends a worker at once, whatever handler it inherited.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from kg.extract.pipeline import build_nlp

    _worker_nlp = build_nlp(concepts=concepts)


def _extract_chunk(items: list[tuple[str, str]]) -> list[Extraction]:
    assert _worker_nlp is not None  # built by _start_worker, the pool's initializer
    return [doc_to_extraction(doc, iri) for doc, iri in _worker_nlp.pipe(items, as_tuples=True, batch_size=BATCH_SIZE)]


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity mask (taskset, a container's
    cpuset), which ``os.cpu_count()`` ignores; ``os.process_cpu_count()`` is that
    from Python 3.13 on."""
    if hasattr(os, "process_cpu_count"):
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # no affinity masks (macOS): every CPU


def _in_workers(chunks: Iterator[list], jobs: int, concepts: str) -> Iterator[Extraction]:
    """The extractions of ``chunks``, in order, from ``jobs`` forked worker processes.

    Whatever ends this generator (the last chunk, an error, Ctrl-C, SIGTERM, a
    consumer that stops early), the workers are gone when it returns: nothing is
    left running, and a worker that dies (out of memory) is an error, not a hang.
    """
    import multiprocessing
    from collections import deque
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    before = set(multiprocessing.active_children())
    # With fork, the first submit starts every worker; SIGINT stays blocked for it (see _start_worker).
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker, initargs=(concepts,))
        window = deque([pool.submit(_extract_chunk, next(chunks))])
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
    workers = set(multiprocessing.active_children()) - before
    try:
        # Two chunks per worker in flight: none waits for work, and memory stays bounded.
        window.extend(pool.submit(_extract_chunk, chunk) for chunk in itertools.islice(chunks, 2 * jobs - 1))
        while window:
            extractions = window.popleft().result()
            window.extend(pool.submit(_extract_chunk, chunk) for chunk in itertools.islice(chunks, 1))
            yield from extractions
    except BrokenProcessPool as exc:
        raise KgError("an extraction worker process died (out of memory? try fewer --jobs)") from exc
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.join()


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
    """Runs the kg spaCy pipeline over papers, in batches; ``jobs`` > 1 runs that
    many worker processes (at most one per usable CPU: more only add the memory
    of a pipeline each), each loading the pipeline once, and returns the same
    extractions in the same order as one process."""

    name = "kg_spacy"

    def __init__(self, nlp: Language | None = None, batch_size: int = BATCH_SIZE, concepts: str | None = None, jobs: int = 1):
        self._nlp = nlp
        self.batch_size = batch_size
        self.concepts = concepts or DEFAULT_CONCEPTS
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

    def extract(self, papers: Iterable[LinkedPaper]) -> Iterator[Extraction]:
        stream = ((linked.paper.abstract, linked.iri) for linked in papers)
        chunks = _chunks(stream, self.batch_size)
        first, second = next(chunks, []), next(chunks, None)
        if self.jobs <= 1 or second is None:  # one batch (papers added to a built corpus): workers would only cost their start-up
            for doc, iri in self.nlp.pipe(
                itertools.chain(first, second or [], itertools.chain.from_iterable(chunks)), as_tuples=True, batch_size=self.batch_size
            ):
                yield doc_to_extraction(doc, iri)
            return
        yield from _in_workers(itertools.chain([first, second], chunks), self.jobs, self.concepts)


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
