"""Measuring the extractor (``kg eval``): SciERC test, CSAbstruct test and the
hand-checked dev set of the shipped corpus.

Every figure is strict precision / recall / F1 (:mod:`kg.extract.scoring`):

- SciERC test entities: ``kg_ner`` alone on the 6 SciERC labels (exact span
  and label, nested gold mentions included, so they count as misses), and the
  whole concept stage on our 4 types (Material counted as Dataset).
- SciERC test relations we map: USED-FOR Method->Task = usedFor,
  EVALUATE-FOR Material->Method = evaluatedOn (reversed), COMPARE
  Method-Method = outperforms (either direction); exact spans of both ends.
- CSAbstruct test, deduplicated against train and dev: claim (result) sentences.
- The dev set (``tests/data/devset.jsonl``): concept mentions (exact span and
  type), concepts per paper by label, proposed concepts, claims (a predicted
  sentence matches a gold one that it overlaps by at least half) and
  relations per paper by labels. Labels are compared by their folded words,
  with the lexicon's aliases mapped to their names, and a predicted label
  that is the surface form of a gold concept of the same abstract (an
  acronym whose long form is the gold label) counted as that concept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from spacy.language import Language

from kg.extract.lexicons import load_lexicons
from kg.extract.pipeline import CLAIMS_WEIGHTS, NER_COMPONENT
from kg.extract.scoring import Score, prf, score_entities
from kg.extract.spans import ClaimSpan, ConceptSpan, RelationSpan
from kg.text import match_key

__all__ = ["EvalRow", "DEVSET", "evaluate_devset", "evaluate_scierc", "evaluate_claims"]

DEVSET = Path("tests") / "data" / "devset.jsonl"
CLAIM_OVERLAP = 0.5


@dataclass(frozen=True)
class EvalRow:
    benchmark: str
    pipeline: str  # which extraction pipeline produced the figures
    measure: str
    label: str
    score: Score


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
    return f"rules + {NER_COMPONENT}" if nlp.has_pipe(NER_COMPONENT) else "rules"


def _rows(benchmark: str, nlp: Language, measure: str, scores) -> list[EvalRow]:
    name = pipeline_name(nlp)
    rows = [EvalRow(benchmark, name, measure, "all", scores.overall)]
    rows += [EvalRow(benchmark, name, measure, label, score) for label, score in scores.per_label.items()]
    return rows


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


def evaluate_devset(nlp: Language, path: Path = DEVSET) -> list[EvalRow]:
    records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    key = _label_key()
    gold = {name: set() for name in ("mentions", "labels", "proposed", "claims", "relations")}
    pred = {name: set() for name in ("mentions", "labels", "proposed", "relations")}
    predicted_claims: list[tuple] = []
    docs = nlp.pipe(r["abstract"] for r in records)
    for record, doc in zip(records, docs):
        doc_id = f"{record['source']}#{record['index']}"
        # A predicted label that is the surface form of a gold concept (an acronym
        # for a gold long form, say) names that concept: compare it as that label.
        surface = {key(c["text"]): key(c["label"]) for c in record["concepts"]}
        for c in record["concepts"]:
            gold["mentions"].add((doc_id, c["start"], c["end"], c["type"]))
            gold["labels"].add((doc_id, key(c["label"]), c["type"]))
            if c.get("proposed"):
                gold["proposed"].add((doc_id, key(c["label"]), "proposed"))
        gold["claims"] |= {(doc_id, c["start"], c["end"]) for c in record["claims"]}
        gold["relations"] |= {(doc_id, key(r["head"]), key(r["tail"]), r["type"]) for r in record["relations"]}
        concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
        def label_key(label: str) -> str:
            return surface.get(key(label), key(label))

        for c in concepts:
            pred["mentions"].add((doc_id, c.start, c.end, c.type))
            pred["labels"].add((doc_id, label_key(c.label), c.type))
            if c.proposed:
                pred["proposed"].add((doc_id, label_key(c.label), "proposed"))
        predicted_claims += [(doc_id, c.start, c.end) for c in (ClaimSpan(*t) for t in doc._.kg_claims or [])]
        for r in (RelationSpan(*t) for t in doc._.kg_relations or []):
            pred["relations"].add((doc_id, label_key(concepts[r.head].label), label_key(concepts[r.tail].label), r.relation))
    name = pipeline_name(nlp)
    rows = _rows("dev set", nlp, "concept mentions", score_entities(gold["mentions"], pred["mentions"]))
    rows += _rows("dev set", nlp, "concepts by label", score_entities(gold["labels"], pred["labels"]))
    rows.append(EvalRow("dev set", name, "proposed concepts", "all", prf(gold["proposed"], pred["proposed"])))
    if nlp.has_pipe("kg_claims"):
        claims = _match_claims(gold["claims"], predicted_claims)
        rows.append(EvalRow("dev set", name, "claim sentences", "all", prf(gold["claims"], claims)))
    rows += _rows("dev set", nlp, "relations by label", score_entities(gold["relations"], pred["relations"]))
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


def evaluate_scierc(nlp: Language, root: Path | None = None) -> list[EvalRow]:
    from kg.extract.benchmarks.scierc import gold_entities, load_scierc

    docs = load_scierc("test", root)
    ours = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}
    gold_six = gold_entities(docs)
    gold_four = {(d, s, e, ours[label]) for d, s, e, label in gold_six if label in ours}
    gold_relations: set[tuple] = set()
    ner_pred, concept_pred, relation_pred = set(), set(), set()
    for sdoc, doc in zip(docs, nlp.pipe(d.text for d in docs)):
        key = sdoc.doc_key
        ner_pred |= {(key, e.start_char, e.end_char, e.label_) for e in doc.ents}
        concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
        concept_pred |= {(key, c.start, c.end, c.type) for c in concepts}
        gold_relations |= _scierc_relations(key, sdoc)
        for r in (RelationSpan(*t) for t in doc._.kg_relations or []):
            head, tail = concepts[r.head], concepts[r.tail]
            ends = [(head.start, head.end), (tail.start, tail.end)]
            if r.relation == "outperforms":
                ends.sort()
            if r.relation != "uses":
                relation_pred.add((key, *ends[0], *ends[1], r.relation))
    rows = []
    if nlp.has_pipe(NER_COMPONENT):
        rows += _rows("SciERC test", nlp, "kg_ner entities (6 labels)", score_entities(gold_six, ner_pred))
    rows += _rows("SciERC test", nlp, "concepts (4 types)", score_entities(gold_four, concept_pred))
    rows += _rows("SciERC test", nlp, "relations (mapped)", score_entities(gold_relations, relation_pred))
    return rows


def evaluate_claims(root: Path | None = None) -> list[EvalRow]:
    from kg.extract.benchmarks.csabstruct import load_csabstruct
    from kg.extract.claims_model import ClaimClassifier

    classifier = ClaimClassifier.load(CLAIMS_WEIGHTS)
    gold, predicted = set(), set()
    for abstract in load_csabstruct("test", root, deduplicate=True):
        scores = classifier.score(list(abstract.sentences))
        gold |= {(abstract.doc_id, i) for i, is_claim in enumerate(abstract.claims) if is_claim}
        predicted |= {(abstract.doc_id, i) for i, score in enumerate(scores) if score >= classifier.threshold}
    return [EvalRow("CSAbstruct test (dedup.)", "kg_claims", "claim sentences", "all", prf(gold, predicted))]
