"""Measuring ``kg_paper_relations`` (kg/extract/components/paper_relations.py) given gold concepts.

The gold is the ``paper`` object of kg's arXiv annotation (tasks, datasets
and methods of the paper's proposed method). Each record's gold concept
spans and proposed flags are put into ``doc._.kg_concepts`` and only the
paper-level component runs, so its own errors are measured, not the
recogniser's. A prediction is a triple (paper, kind, tail label); precision,
recall and F1 are micro-averaged per kind and over all three.

    nice python -m kg.training.paper_relations --split train dev     # the rules
    nice python -m kg.training.paper_relations --split dev --logistic  # + the logistic variant

``--with-sentence-rules`` runs ``kg_relations`` first: the figures are then
of the union of its head relations and the paper-level ones, the answer the
graph gives to "which datasets is X evaluated on?". The logistic variant (a
numpy logistic regression over the same candidate features, trained on
arXiv train) is the alternative that was measured against the rules
(``docs/experiments/paper-relations.md``); nothing ships from it.
``annotations/arxiv-cs-2025/test.jsonl`` is read only when ``--split test``
is asked for by name.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from spacy.tokens import Doc

from kg.errors import CorpusError
from kg.extract.components.paper_relations import (
    COMPONENT,
    TAIL_TYPES,
    PaperCandidate,
    candidate_features,
    head_method,
    keep,
)
from kg.extract.spans import ConceptSpan, RelationSpan
from kg.training.scoring import Score, prf

__all__ = ["KINDS", "candidate_table", "fit_logistic", "gold_docs", "gold_triples", "main", "predicted_triples", "score_triples"]

ANNOTATIONS = Path(__file__).resolve().parents[2] / "annotations" / "arxiv-cs-2025"
#: Relation -> the key of the record's ``paper`` object.
KINDS = {"usedFor": "tasks", "evaluatedOn": "datasets", "uses": "methods"}


def gold_docs(split: str, nlp=None, folder: Path = ANNOTATIONS, shared: Path | None = None) -> list[tuple[dict, Doc]]:
    """(record, parsed Doc with the gold concepts in ``doc._.kg_concepts``) for every record of ``split``."""
    import kg.extract.components  # noqa: F401  (the Doc extensions)
    from kg.extract.model import load_english
    from kg.training.annotation import read_records
    from kg.training.arxiv import abstracts, corpus_path, text_digest

    records = read_records(folder / f"{split}.jsonl")
    texts = abstracts([r["id"] for r in records], corpus_path(shared))
    missing = [r["id"] for r in records if r["id"] not in texts or text_digest(texts[r["id"]]) != r["digest"]]
    if missing:
        raise CorpusError(f"{len(missing)} annotated abstracts (first {missing[0]}) are missing or changed in {corpus_path(shared)}")
    nlp = nlp or load_english()
    out = []
    for record, doc in zip(records, nlp.pipe(texts[r["id"]] for r in records), strict=True):
        doc._.kg_concepts = [
            ConceptSpan(c["start"], c["end"], c["type"], c["label"], 1.0, "gold", c["proposed"]) for c in record["concepts"]
        ]
        doc._.kg_relations = []
        out.append((record, doc))
    return out


def gold_triples(record: dict) -> set[tuple[str, str, str]]:
    return {(record["id"], kind, label) for kind, key in KINDS.items() for label in record["paper"].get(key, [])}


def predicted_triples(record: dict, doc: Doc, head_only: bool = True) -> set[tuple[str, str, str]]:
    """(paper, kind, tail label) of the relations on ``doc`` whose head is the paper's main proposed Method
    (every head, when ``head_only`` is false)."""
    concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
    head = head_method(concepts)
    found = set()
    for r in (RelationSpan(*t) for t in doc._.kg_relations or []):
        if r.relation in KINDS and (not head_only or (head is not None and concepts[r.head].label == concepts[head].label)):
            found.add((record["id"], r.relation, concepts[r.tail].label))
    return found


def score_triples(gold: set[tuple], predicted: set[tuple]) -> dict[str, Score]:
    """Per kind and "all"."""
    scores = {kind: prf({g for g in gold if g[1] == kind}, {p for p in predicted if p[1] == kind}) for kind in KINDS}
    scores["all"] = prf(gold, predicted)
    return scores


def run_rules(pairs: Sequence[tuple[dict, Doc]], with_sentence_rules: bool = False) -> dict[str, Score]:
    from kg.extract.components.paper_relations import PaperRelationFinder

    sentence = None
    if with_sentence_rules:
        from kg.extract.components.relations import make_relation_finder

        sentence = make_relation_finder(None, "kg_relations")
    finder = PaperRelationFinder()
    gold, predicted = set(), set()
    for record, doc in pairs:
        doc._.kg_relations = []
        if sentence is not None:
            sentence(doc)
        finder(doc)
        gold |= gold_triples(record)
        predicted |= predicted_triples(record, doc)
        doc._.kg_relations = []
    return score_triples(gold, predicted)


def candidate_table(pairs: Sequence[tuple[dict, Doc]]) -> list[tuple[dict, PaperCandidate, bool]]:
    """(record, candidate, in the gold) for every candidate of every record with a proposed Method."""
    rows = []
    for record, doc in pairs:
        concepts = [ConceptSpan(*c) for c in doc._.kg_concepts]
        head = head_method(concepts)
        if head is None:
            continue
        gold = gold_triples(record)
        rows += [(record, c, (record["id"], c.relation, c.label) in gold) for c in candidate_features(doc, concepts, head)]
    return rows


def fit_logistic(rows, relation: str, l2: float = 1.0, steps: int = 3000, rate: float = 0.5) -> Callable[[PaperCandidate], float]:
    """A logistic regression (numpy, full-batch gradient descent, deterministic) over the candidate features of one relation."""
    import numpy as np

    picked = [(c, y) for _, c, y in rows if c.relation == relation]
    names = sorted(picked[0][0].features)
    x = np.array([[c.features[n] for n in names] + [1.0] for c, _ in picked])
    y = np.array([float(label) for _, label in picked])
    w = np.zeros(x.shape[1])
    penalty = np.r_[np.ones(len(names)), 0.0]
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        w -= rate * (x.T @ (p - y) + l2 * penalty * w) / len(y)

    def probability(candidate: PaperCandidate) -> float:
        z = float(np.dot([candidate.features[n] for n in names] + [1.0], w))
        return 1 / (1 + np.exp(-z))

    return probability


def _score_decisions(pairs, rows, decide: Callable[[PaperCandidate], bool]) -> dict[str, Score]:
    gold = set().union(*(gold_triples(r) for r, _ in pairs))
    predicted = {(r["id"], c.relation, c.label) for r, c, _ in rows if decide(c)}
    return score_triples(gold, predicted)


def _print(title: str, scores: dict[str, Score]) -> None:
    cells = "  ".join(
        f"{kind} P {100 * s.precision:5.1f} R {100 * s.recall:5.1f} F {100 * s.f1:5.1f} (g{s.gold} p{s.predicted})"
        for kind, s in scores.items()
    )
    print(f"{title:34} {cells}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.training.paper_relations", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", nargs="+", default=["dev"], choices=["train", "dev", "test"])
    parser.add_argument("--with-sentence-rules", action="store_true", help="run kg_relations first and score the union")
    parser.add_argument("--logistic", action="store_true", help="also train the logistic variant on arXiv train and score it")
    args = parser.parse_args(argv)
    from kg.extract.model import load_english

    nlp = load_english()
    data = {split: gold_docs(split, nlp) for split in args.split}
    for split, pairs in data.items():
        _print(f"{split}: {COMPONENT} (rules)", run_rules(pairs))
        if args.with_sentence_rules:
            _print(f"{split}: kg_relations + {COMPONENT}", run_rules(pairs, with_sentence_rules=True))
        rows = candidate_table(pairs)
        _print(f"{split}: every candidate", _score_decisions(pairs, rows, lambda c: True))
        _print(f"{split}: keep() on candidates", _score_decisions(pairs, rows, lambda c: keep(c) is not None))
    if args.logistic:
        train_rows = candidate_table(data["train"] if "train" in data else gold_docs("train", nlp))
        for l2 in (1.0, 5.0):
            models = {relation: fit_logistic(train_rows, relation, l2=l2) for relation in TAIL_TYPES}

            def decide(candidate: PaperCandidate, models=models) -> bool:
                return models[candidate.relation](candidate) >= 0.5

            for split, pairs in data.items():
                _print(f"{split}: logistic l2={l2:g} t=0.5", _score_decisions(pairs, candidate_table(pairs), decide))
    return 0


if __name__ == "__main__":
    sys.exit(main())
