"""Measuring the extractor (``kg eval``, ``benchmarks/quality.py``): every
benchmark of :data:`BENCHMARKS` through every pipeline of :data:`PIPELINES`,
each figure beside its published or measured baseline (:data:`BASELINES`).

Every figure is strict precision / recall / F1 (:mod:`kg.training.scoring`):

- SciER test and test_ood (sentences as given, tokens joined by spaces): the
  concept stage's mentions, exact span and type, on Method, Dataset and Task
  (Metric predictions are dropped: SciER has no Metric); relations of the
  mapped types (:data:`kg.training.benchmarks.scier.RELATIONS`), end to end:
  both argument spans exact and the kg relation type. ``comparedWith`` is
  symmetric, and a predicted ``outperforms`` counts as ``comparedWith``
  (SciER's Compare-With is any comparison, a stated winner or not).
- SciREX held-out (the ``test`` part of its README's hash split,
  ``abstracts.jsonl`` sections): concept mentions, exact span and type
  (Material counted as Dataset).
- SciERC test entities: ``kg_ner`` alone on the 6 SciERC labels (exact span
  and label, nested gold mentions included, so they count as misses), and the
  whole concept stage on our 4 types (Material counted as Dataset).
- SciERC test relations we map: USED-FOR Method->Task = usedFor,
  EVALUATE-FOR Material->Method = evaluatedOn (reversed), COMPARE
  Method-Method = outperforms (either direction); exact spans of both ends.
- CSAbstruct test, deduplicated against train and dev: claim (result) sentences.
- The dev set (``tests/data/devset.jsonl``) and kg's arXiv annotation
  (``annotations/arxiv-cs-2025``; ``test`` is held out and runs only when
  named): concept mentions (exact span and
  type), concepts per paper by label, proposed concepts, claims (a predicted
  sentence matches a gold one that it overlaps by at least half) and
  relations per paper by labels. Labels are compared by their folded words,
  with the lexicon's aliases mapped to their names, and a predicted label
  that is the surface form of a gold concept of the same abstract (an
  acronym whose long form is the gold label) counted as that concept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from spacy.language import Language

from kg.errors import CorpusError, KgError
from kg.extract.lexicons import load_lexicons
from kg.extract.pipeline import CLAIMS_WEIGHTS, DEFAULT_CONCEPTS, NER_COMPONENT
from kg.extract.spans import ClaimSpan, ConceptSpan, RelationSpan
from kg.text import match_key
from kg.training.scoring import Score, prf, score_entities

__all__ = [
    "ARXIV",
    "BASELINES",
    "BENCHMARKS",
    "DEVSET",
    "NAMES",
    "PIPELINES",
    "RESULT_HEADER",
    "Benchmark",
    "EvalRow",
    "Locations",
    "Pipeline",
    "evaluate_arxiv",
    "evaluate_claims",
    "evaluate_devset",
    "evaluate_records",
    "evaluate_scier",
    "evaluate_scierc",
    "evaluate_scirex",
    "ordered",
    "result_table",
    "run_benchmarks",
    "score_scier",
    "score_scirex",
]

# In the repository, wherever kg eval runs from.
DEVSET = Path(__file__).resolve().parents[2] / "tests" / "data" / "devset.jsonl"
ARXIV = Path(__file__).resolve().parents[2] / "annotations" / "arxiv-cs-2025"
CLAIM_OVERLAP = 0.5
#: Wraps a stream of parsed Docs in a progress bar: ``progress(docs, total)``.
Progress = Callable[[Iterable, int], Iterable]


@dataclass(frozen=True)
class EvalRow:
    benchmark: str
    pipeline: str  # which extraction pipeline produced the figures
    measure: str
    label: str
    score: Score
    role: str = ""  # the pipeline's role in the run (default, baseline); empty for a benchmark of no pipeline


def _label_key():
    aliases = {}
    for entry in load_lexicons().known:
        for name in (entry.name, *entry.aliases):
            aliases[match_key(name)] = match_key(entry.name)

    def key(label: str) -> str:
        folded = match_key(label)
        return aliases.get(folded, folded)

    return key


def pipeline_name(nlp: Language) -> str:
    """The pipeline's concept mode (``build_nlp(concepts=...)``)."""
    if nlp.has_pipe("kg_concepts") and (mode := getattr(nlp.get_pipe("kg_concepts"), "mode", None)):
        return str(mode)
    return f"rules + {NER_COMPONENT}" if nlp.has_pipe(NER_COMPONENT) else "rules"


def _rows(benchmark: str, nlp: Language | str, measure: str, scores) -> list[EvalRow]:
    name = nlp if isinstance(nlp, str) else pipeline_name(nlp)
    rows = [EvalRow(benchmark, name, measure, "all", scores.overall)]
    rows += [EvalRow(benchmark, name, measure, label, score) for label, score in scores.per_label.items()]
    return rows


def _pipe(nlp: Language, texts: list[str], progress: Progress | None) -> Iterator:
    docs = nlp.pipe(texts)
    return iter(progress(docs, len(texts))) if progress is not None else docs


def _match_claims(gold: set[tuple], predicted: list[tuple]) -> set[tuple]:
    """Predicted claim sentences, each replaced by the gold sentence it overlaps by half or more."""
    matched = set()
    for doc, start, end in predicted:
        best = next(
            (g for g in gold if g[0] == doc and min(end, g[2]) - max(start, g[1]) >= CLAIM_OVERLAP * (g[2] - g[1])),
            None,
        )
        matched.add(best or (doc, start, end))
    return matched


def evaluate_devset(nlp: Language, path: Path = DEVSET, progress: Progress | None = None) -> list[EvalRow]:
    records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    for record in records:
        record["id"] = f"{record['source']}#{record['index']}"
    return evaluate_records(nlp, "dev set", records, [r["abstract"] for r in records], progress)


def evaluate_arxiv(
    nlp: Language, split: str, folder: Path = ARXIV, shared: Path | None = None, progress: Progress | None = None
) -> list[EvalRow]:
    """kg's own annotation of arXiv abstracts (``annotations/arxiv-cs-2025``):
    ``dev`` for choices, ``test`` held out."""
    from kg.training.annotation import read_records
    from kg.training.arxiv import abstracts, corpus_path, text_digest

    records = read_records(folder / f"{split}.jsonl")
    texts = abstracts([r["id"] for r in records], corpus_path(shared))
    missing = [r["id"] for r in records if r["id"] not in texts or text_digest(texts[r["id"]]) != r["digest"]]
    if missing:
        raise CorpusError(f"{len(missing)} annotated abstracts (first {missing[0]}) are missing or changed in {corpus_path(shared)}")
    for record in records:
        record["abstract"] = texts[record["id"]]
    return evaluate_records(nlp, f"arXiv {split}", records, [texts[r["id"]] for r in records], progress)


#: The annotation's paper-level fields and the relation each states for the proposed method.
PAPER_RELATIONS = {"tasks": "usedFor", "datasets": "evaluatedOn", "methods": "uses"}


def _own_method(record: dict) -> str | None:
    """The paper's proposed Method label its paper-level relations belong to:
    the one mentioned most often, the earliest on a tie (as kg_paper_relations picks it)."""
    counts: dict[str, list[int]] = {}
    for c in record["concepts"]:
        if c.get("proposed") and c["type"] == "Method":
            counts.setdefault(c["label"], []).append(c["start"])
    return min(counts, key=lambda label: (-len(counts[label]), min(counts[label]))) if counts else None


def evaluate_records(
    nlp: Language, benchmark: str, records: list[dict], texts: list[str], progress: Progress | None = None
) -> list[EvalRow]:
    """Concept mentions (exact span and type), concepts per paper by label,
    proposed concepts, claim sentences, relations per paper by labels (the
    sentence-level ones and the paper-level ones of the proposed method),
    against annotation records in the guideline's format (``id``,
    ``concepts``, ``claims``, ``relations``, ``paper``)."""
    key = _label_key()
    gold: dict[str, set[tuple]] = {name: set() for name in ("mentions", "labels", "proposed", "claims", "relations")}
    pred: dict[str, set[tuple]] = {name: set() for name in ("mentions", "labels", "proposed", "relations")}

    def label_key(surface: dict[str, str], label: str) -> str:
        return surface.get(key(label), key(label))

    predicted_claims: list[tuple] = []
    for record, text, doc in zip(records, texts, _pipe(nlp, texts, progress)):
        doc_id = record["id"]
        # A predicted label that is the surface form of a gold concept (an acronym
        # for a gold long form, say) names that concept: compare it as that label.
        surface = {key(text[c["start"] : c["end"]]): key(c["label"]) for c in record["concepts"]}
        for c in record["concepts"]:
            gold["mentions"].add((doc_id, c["start"], c["end"], c["type"]))
            gold["labels"].add((doc_id, key(c["label"]), c["type"]))
            if c.get("proposed"):
                gold["proposed"].add((doc_id, key(c["label"]), "proposed"))
        gold["claims"] |= {(doc_id, c["start"], c["end"]) for c in record["claims"]}
        gold["relations"] |= {(doc_id, key(r["head"]), key(r["tail"]), r["type"]) for r in record["relations"]}
        # The paper-level relations of its proposed method count too: the graph states them.
        if (own := _own_method(record)) is not None:
            for field, relation in PAPER_RELATIONS.items():
                gold["relations"] |= {(doc_id, key(own), key(tail), relation) for tail in (record.get("paper") or {}).get(field, [])}
        concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
        for c in concepts:
            pred["mentions"].add((doc_id, c.start, c.end, c.type))
            pred["labels"].add((doc_id, label_key(surface, c.label), c.type))
            if c.proposed:
                pred["proposed"].add((doc_id, label_key(surface, c.label), "proposed"))
        predicted_claims += [(doc_id, c.start, c.end) for c in (ClaimSpan(*t) for t in doc._.kg_claims or [])]
        for r in (RelationSpan(*t) for t in doc._.kg_relations or []):
            pred["relations"].add(
                (doc_id, label_key(surface, concepts[r.head].label), label_key(surface, concepts[r.tail].label), r.relation)
            )
    name = pipeline_name(nlp)
    rows = _rows(benchmark, nlp, "concept mentions", score_entities(gold["mentions"], pred["mentions"]))
    rows += _rows(benchmark, nlp, "concepts by label", score_entities(gold["labels"], pred["labels"]))
    rows.append(EvalRow(benchmark, name, "proposed concepts", "all", prf(gold["proposed"], pred["proposed"])))
    if nlp.has_pipe("kg_claims"):
        claims = _match_claims(gold["claims"], predicted_claims)
        rows.append(EvalRow(benchmark, name, "claim sentences", "all", prf(gold["claims"], claims)))
    rows += _rows(benchmark, nlp, "relations by label", score_entities(gold["relations"], pred["relations"]))
    return rows


def _scierc_relations(doc_key: str, sdoc) -> set[tuple]:
    gold = set()
    for r in sdoc.relations:
        head, tail = sdoc.entities[r.head], sdoc.entities[r.tail]
        if r.label == "USED-FOR" and head.label == "Method" and tail.label == "Task":
            gold.add((doc_key, head.start, head.end, tail.start, tail.end, "usedFor"))
        elif r.label == "EVALUATE-FOR" and head.label == "Material" and tail.label == "Method":
            gold.add((doc_key, tail.start, tail.end, head.start, head.end, "evaluatedOn"))
        elif r.label == "COMPARE" and head.label == tail.label == "Method":
            ends = sorted([(head.start, head.end), (tail.start, tail.end)])
            gold.add((doc_key, *ends[0], *ends[1], "outperforms"))
    return gold


def evaluate_scierc(nlp: Language, root: Path | None = None, progress: Progress | None = None) -> list[EvalRow]:
    from kg.training.benchmarks.scierc import gold_entities, load_scierc

    docs = load_scierc("test", root)
    ours = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}
    gold_six = gold_entities(docs)
    gold_four = {(d, s, e, ours[label]) for d, s, e, label in gold_six if label in ours}
    gold_relations: set[tuple] = set()
    ner_pred, concept_pred, relation_pred = set(), set(), set()
    for sdoc, doc in zip(docs, _pipe(nlp, [d.text for d in docs], progress)):
        key = sdoc.doc_key
        ner_pred |= {(key, e.start_char, e.end_char, e.label_) for e in doc.ents}
        concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
        concept_pred |= {(key, c.start, c.end, c.type) for c in concepts}
        gold_relations |= _scierc_relations(key, sdoc)
        for r in (RelationSpan(*t) for t in doc._.kg_relations or []):
            head, tail = concepts[r.head], concepts[r.tail]
            ends = [(head.start, head.end), (tail.start, tail.end)]
            if r.relation in ("outperforms", "comparedWith"):  # SciERC's COMPARE says nothing of who wins
                ends.sort()
            if r.relation in ("usedFor", "evaluatedOn", "outperforms", "comparedWith"):
                relation_pred.add((key, *ends[0], *ends[1], "outperforms" if r.relation == "comparedWith" else r.relation))
    rows = []
    # Only a recogniser of SciERC's own labels is scored on them (kg's recogniser has our 4 types).
    if nlp.has_pipe(NER_COMPONENT) and "OtherScientificTerm" in getattr(nlp.get_pipe(NER_COMPONENT), "labels", ()):
        rows += _rows("SciERC test", nlp, "kg_ner entities (6 labels)", score_entities(gold_six, ner_pred))
    rows += _rows("SciERC test", nlp, "concepts (4 types)", score_entities(gold_four, concept_pred))
    rows += _rows("SciERC test", nlp, "relations (mapped)", score_entities(gold_relations, relation_pred))
    return rows


def evaluate_claims(root: Path | None = None) -> list[EvalRow]:
    from kg.extract.claims_model import ClaimClassifier
    from kg.training.benchmarks.csabstruct import load_csabstruct

    classifier = ClaimClassifier.load(CLAIMS_WEIGHTS)
    gold, predicted = set(), set()
    for abstract in load_csabstruct("test", root, deduplicate=True):
        scores = classifier.score(list(abstract.sentences))
        gold |= {(abstract.doc_id, i) for i, is_claim in enumerate(abstract.claims) if is_claim}
        predicted |= {(abstract.doc_id, i) for i, score in enumerate(scores) if score >= classifier.threshold}
    return [EvalRow("CSAbstruct test (dedup.)", "kg_claims", "claim sentences", "all", prf(gold, predicted))]


# SciER and SciREX ------------------------------------------------------------

SCIER_TYPES = ("Method", "Dataset", "Task")
#: A predicted kg relation scored as another on SciER (Compare-With names no winner).
SCIER_AS = {"outperforms": "comparedWith"}


def _relation_key(key: tuple, head: tuple[int, int], tail: tuple[int, int], kind: str) -> tuple:
    if kind == "comparedWith":
        head, tail = sorted([head, tail])
    return (*key, *head, *tail, kind)


def _scier_gold(key: tuple, sentence) -> tuple[set, set]:
    from kg.training.benchmarks.scier import map_relation

    entities = {(*key, start, end, kind) for start, end, kind in sentence.entities}
    relations = set()
    for h, label, t in sentence.relations:
        (hs, he, head_type), (ts, te, tail_type) = sentence.entities[h], sentence.entities[t]
        if (mapped := map_relation(label, head_type, tail_type)) is None:
            continue
        kind, reverse = mapped
        ends = ((ts, te), (hs, he)) if reverse else ((hs, he), (ts, te))
        relations.add(_relation_key(key, *ends, kind))
    return entities, relations


def _scier_predicted(key: tuple, concepts: list[ConceptSpan], relations: list[RelationSpan]) -> tuple[set, set]:
    from kg.training.benchmarks.scier import RELATIONS

    kinds = set(RELATIONS.values())
    kept = {i for i, c in enumerate(concepts) if c.type in SCIER_TYPES}  # no Metric in SciER
    entities = {(*key, concepts[i].start, concepts[i].end, concepts[i].type) for i in kept}
    scored = set()
    for r in relations:
        kind = SCIER_AS.get(r.relation, r.relation)
        if kind in kinds and r.head in kept and r.tail in kept:
            head, tail = concepts[r.head], concepts[r.tail]
            scored.add(_relation_key(key, (head.start, head.end), (tail.start, tail.end), kind))
    return entities, scored


def score_scier(benchmark: str, pipeline: str, sentences: Iterable, predictions: Iterable[tuple[list, list]]) -> list[EvalRow]:
    """Strict scores of predicted (concepts, relations), one pair per SciER
    sentence in the same order, as :class:`ConceptSpan` / :class:`RelationSpan` tuples."""
    gold_entities, gold_relations, entities, relations = set(), set(), set(), set()
    for sentence, (concepts, found) in zip(sentences, predictions, strict=True):
        key = (sentence.doc_id, sentence.index)
        ge, gr = _scier_gold(key, sentence)
        pe, pr = _scier_predicted(key, [ConceptSpan(*c) for c in concepts], [RelationSpan(*r) for r in found])
        gold_entities |= ge
        gold_relations |= gr
        entities |= pe
        relations |= pr
    rows = _rows(benchmark, pipeline, "concept mentions (3 types)", score_entities(gold_entities, entities))
    return rows + _rows(benchmark, pipeline, "relations (mapped)", score_entities(gold_relations, relations))


def evaluate_scier(nlp: Language, split: str = "test", root: Path | None = None, progress: Progress | None = None) -> list[EvalRow]:
    """SciER ``test`` or ``test_ood``, on the sentence text as given."""
    from kg.training.benchmarks.scier import load_scier

    sentences = list(load_scier(split, root))
    docs = _pipe(nlp, [s.text for s in sentences], progress)
    predictions = ((doc._.kg_concepts or [], doc._.kg_relations or []) for doc in docs)
    return score_scier(f"SciER {split}", pipeline_name(nlp), sentences, predictions)


def score_scirex(benchmark: str, pipeline: str, sections: Iterable, predictions: Iterable[list]) -> list[EvalRow]:
    """Strict mention scores of predicted concepts, one list per SciREX section in the same order."""
    gold, predicted = set(), set()
    for section, concepts in zip(sections, predictions, strict=True):
        key = (section.doc_id, section.index)
        gold |= {(*key, start, end, kind) for start, end, kind in section.entities}
        predicted |= {(*key, c.start, c.end, c.type) for c in (ConceptSpan(*t) for t in concepts)}
    return _rows(benchmark, pipeline, "concept mentions (4 types)", score_entities(gold, predicted))


def evaluate_scirex(nlp: Language, root: Path | None = None, progress: Progress | None = None) -> list[EvalRow]:
    """SciREX's held-out part (``test`` of its README's hash split), abstract sections."""
    from kg.training.benchmarks.scirex import load_scirex

    sections = list(load_scirex("test", root))
    docs = _pipe(nlp, [s.text for s in sections], progress)
    return score_scirex("SciREX test (hash split)", pipeline_name(nlp), sections, (doc._.kg_concepts or [] for doc in docs))


# What kg eval runs -------------------------------------------------------------


@dataclass(frozen=True)
class Pipeline:
    """One extraction pipeline every benchmark runs through."""

    role: str  # "default": what kg build runs; "baseline": what it is measured against
    name: str
    options: dict = field(default_factory=dict)  # build_nlp's keyword arguments

    def build(self) -> Language:
        from kg.extract.pipeline import build_nlp

        return build_nlp(**self.options)


#: The pipelines of a run, default first: the one place to change them.
PIPELINES = (
    Pipeline("default", DEFAULT_CONCEPTS, {"concepts": DEFAULT_CONCEPTS}),
    Pipeline("baseline", "rules", {"concepts": "rules"}),
)

_SCIER_NER = "spaCy ner from scratch on SciER train (issue 19)"
#: (benchmark, measure, label) -> (F1 in percent, whose): published or measured figures to print beside ours.
BASELINES: dict[tuple[str, str, str], tuple[float, str]] = {
    ("SciER test", "concept mentions (3 types)", "all"): (68.5, _SCIER_NER),
    ("SciER test", "concept mentions (3 types)", "Method"): (70.9, _SCIER_NER),
    ("SciER test", "concept mentions (3 types)", "Task"): (67.1, _SCIER_NER),
    ("SciER test", "concept mentions (3 types)", "Dataset"): (58.2, _SCIER_NER),
    ("SciER test_ood", "concept mentions (3 types)", "all"): (50.9, _SCIER_NER),
    ("SciERC test", "kg_ner entities (6 labels)", "all"): (64.2, "SciIE, Luan et al. 2018 (published)"),
}


@dataclass(frozen=True)
class Locations:
    """Where the benchmark files are: ``benchmarks`` holds scier/, scirex/,
    scierc/, csabstruct/ (default ``../shared/benchmarks`` beside the
    repository); ``shared`` holds the arXiv corpus (default ``../shared``)."""

    benchmarks: Path | None = None
    shared: Path | None = None
    devset: Path = DEVSET
    annotations: Path = ARXIV

    @property
    def root(self) -> Path:
        from kg.training.benchmarks import DEFAULT_ROOT

        return Path(self.benchmarks) if self.benchmarks is not None else DEFAULT_ROOT

    @property
    def corpus(self) -> Path:
        from kg.training.arxiv import corpus_path

        return corpus_path(self.shared)

    def benchmark_file(self, folder: str, name: str) -> tuple[Path, str]:
        hint = f"--benchmarks DIR names the folder holding {folder}/{name} (default: ../shared/benchmarks beside the repository)"
        return self.root / folder / name, hint

    def corpus_file(self) -> tuple[Path, str]:
        return (
            self.corpus,
            "--shared DIR names the folder holding corpora/arxiv-cs-2025/abstracts.jsonl.gz (default: ../shared beside the repository)",
        )


@dataclass(frozen=True)
class Benchmark:
    """One benchmark of ``kg eval``: the files it reads, and how to score a pipeline on it."""

    name: str  # kg eval --only NAME (several benchmarks may share one)
    title: str  # the benchmark column of its rows
    needs: Callable[[Locations], list[tuple[Path, str]]]  # (file, how to point elsewhere) for each file it reads
    run: Callable[[Any, Locations, Progress | None], list[EvalRow]]  # (pipeline or None, where, progress)
    per_pipeline: bool = True  # False: scores one trained component, the same for every pipeline
    held_out: bool = False  # runs only when asked for by name

    def missing(self, where: Locations) -> str | None:
        """Why it cannot run (the first file that is not there, and how to point elsewhere), or None."""
        for path, hint in self.needs(where):
            if not path.is_file():
                return f"expected {path}, which is not there; {hint}"
        return None


def _arxiv(split: str) -> Benchmark:
    def needs(where: Locations) -> list[tuple[Path, str]]:
        annotation = (where.annotations / f"{split}.jsonl", "kg's annotation of arXiv abstracts, in the repository")
        return [annotation, where.corpus_file()]

    return Benchmark(
        f"arxiv-{split}",
        f"arXiv {split}",
        needs,
        lambda nlp, where, progress: evaluate_arxiv(nlp, split, where.annotations, where.shared, progress),
        held_out=split == "test",
    )


def _scier(split: str) -> Benchmark:
    return Benchmark(
        "scier",
        f"SciER {split}",
        lambda where: [where.benchmark_file("scier", f"{split}.jsonl")],
        lambda nlp, where, progress: evaluate_scier(nlp, split, where.root, progress),
    )


#: Every benchmark, in the order of the report.
BENCHMARKS = (
    _scier("test"),
    _scier("test_ood"),
    Benchmark(
        "scirex",
        "SciREX test (hash split)",
        lambda where: [where.benchmark_file("scirex", "abstracts.jsonl")],
        lambda nlp, where, progress: evaluate_scirex(nlp, where.root, progress),
    ),
    Benchmark(
        "scierc",
        "SciERC test",
        lambda where: [where.benchmark_file("scierc", "test.jsonl")],
        lambda nlp, where, progress: evaluate_scierc(nlp, where.root, progress),
    ),
    Benchmark(
        "claims",
        "CSAbstruct test (dedup.)",
        lambda where: [where.benchmark_file("csabstruct", f"{split}.jsonl") for split in ("test", "train", "dev")],
        lambda nlp, where, progress: evaluate_claims(where.root),
        per_pipeline=False,
    ),
    Benchmark(
        "devset",
        "dev set",
        lambda where: [(where.devset, "--devset FILE names it (default: the repository's tests/data/devset.jsonl)")],
        lambda nlp, where, progress: evaluate_devset(nlp, where.devset, progress),
    ),
    _arxiv("dev"),
    _arxiv("test"),
)
NAMES = tuple(dict.fromkeys(b.name for b in BENCHMARKS))


def run_benchmarks(
    names: Iterable[str] = (),
    where: Locations = Locations(),
    pipelines: tuple[Pipeline, ...] | None = None,
    progress: Callable[[str], Progress] | None = None,
    on_skip: Callable[[str, str], None] | None = None,
) -> tuple[list[EvalRow], list[tuple[str, str]]]:
    """(rows, skipped): every benchmark named (none named: all but the held-out
    ones) through every pipeline. A benchmark whose files are missing or
    unreadable, or a pipeline that cannot be built, is skipped, as (title,
    why), and passed to ``on_skip`` when it is; ``progress(description)`` gives the progress bar of one pass.
    ``pipelines`` defaults to :data:`PIPELINES`."""
    names = set(names)
    pipelines = PIPELINES if pipelines is None else pipelines
    if unknown := names - set(NAMES):
        raise ValueError(f"unknown benchmark {min(unknown)!r}; expected one of {', '.join(NAMES)}")
    chosen = [b for b in BENCHMARKS if (b.name in names if names else not b.held_out)]
    skipped: list[tuple[str, str]] = []

    def skip(title: str, why: str) -> None:
        skipped.append((title, why))
        if on_skip is not None:
            on_skip(title, why)

    ready = []
    for benchmark in chosen:
        if (why := benchmark.missing(where)) is not None:
            skip(benchmark.title, why)
        else:
            ready.append(benchmark)
    built = []
    if any(b.per_pipeline for b in ready):
        for pipeline in pipelines:
            try:
                built.append((pipeline, pipeline.build()))
            except KgError as exc:  # weights not there yet, say: the other pipelines still run
                skip(f"pipeline {pipeline.name} ({pipeline.role})", str(exc))
    rows: list[EvalRow] = []
    for benchmark in ready:
        try:
            if benchmark.per_pipeline:
                found = []
                for pipeline, nlp in built:
                    bar = progress(f"{benchmark.title} ({pipeline.name})") if progress is not None else None
                    found += [replace(r, pipeline=pipeline.name, role=pipeline.role) for r in benchmark.run(nlp, where, bar)]
            else:
                found = benchmark.run(None, where, None)
        except CorpusError as exc:
            skip(benchmark.title, str(exc))
            continue
        rows += found
    return rows, skipped


RESULT_HEADER = ["benchmark", "measure", "label", "pipeline", "P", "R", "F1", "gold", "predicted", "correct", "baseline F1", "baseline"]


def ordered(rows: list[EvalRow]) -> list[EvalRow]:
    """Rows grouped by benchmark, measure and label (``all`` first), in the
    order they were measured, each label's pipelines side by side."""
    first: dict[tuple, int] = {}
    for i, r in enumerate(rows):
        first.setdefault((r.benchmark, r.measure), i)
        first.setdefault((r.benchmark, r.measure, r.label), i)
    return sorted(rows, key=lambda r: (first[(r.benchmark, r.measure)], r.label != "all", first[(r.benchmark, r.measure, r.label)]))


def result_table(rows: list[EvalRow]) -> tuple[list[str], list[list]]:
    """(header, rows) of the report: percentages with one decimal, each row
    with the published or measured baseline of its benchmark, measure and label."""
    table = []
    for r in ordered(rows):
        baseline, whose = BASELINES.get((r.benchmark, r.measure, r.label), (None, ""))
        pipeline = f"{r.pipeline} ({r.role})" if r.role else r.pipeline
        s = r.score
        table.append(
            [
                r.benchmark,
                r.measure,
                r.label,
                pipeline,
                f"{100 * s.precision:.1f}",
                f"{100 * s.recall:.1f}",
                f"{100 * s.f1:.1f}",
                s.gold,
                s.predicted,
                s.correct,
                "" if baseline is None else f"{baseline:.1f}",
                whose,
            ]
        )
    return RESULT_HEADER, table
