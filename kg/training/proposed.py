"""Training and measuring kg_proposed on kg's arXiv annotation.

Reproduce the shipped weights (``kg/extract/weights/proposed/model.json``)
from the repository root, with the corpus in ``../shared/corpora/arxiv-cs-2025``::

    python -m kg.training.proposed train

It parses the 250 train abstracts once (cached under ``.kg/cache/proposed``),
describes every gold concept label by its cues
(:func:`kg.extract.components.proposed.label_features`), fits an L2
logistic model on them (deterministic full-batch gradient descent, no
sampling) and picks the threshold that maximises proposed-label F1 over
5-fold cross-validation on train. The dev split is for choices only.

    python -m kg.training.proposed evaluate [--split dev] [--concepts gold|rules|model+lexicon|...]

measures the shipped weights: ``gold`` puts the split's gold concept spans
into ``doc._.kg_concepts`` and runs only ``kg_proposed`` (its own errors);
a concept mode of ``build_nlp`` scores it on that stage's concepts, end to end, as
``kg.training.evaluation.evaluate_arxiv`` does (its "proposed concepts" row).
Variants tried and their figures: ``docs/experiments/proposed.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from kg.extract.components.proposed import DEFAULT_WEIGHTS, ProposedMarker, ProposedModel, known_names, label_features, model_families
from kg.extract.spans import ConceptSpan
from kg.training.evaluation import ARXIV, _label_key
from kg.training.scoring import Score, prf

__all__ = ["gold_concepts", "load_split", "label_examples", "fit", "score_marker", "train", "main"]

CACHE = Path(".kg") / "cache" / "proposed"
L2 = 0.001
EPOCHS = 400
FOLDS = 5


def gold_concepts(record: dict) -> list[ConceptSpan]:
    """A record's gold concept spans as kg_concepts would hold them, none proposed yet."""
    return [ConceptSpan(c["start"], c["end"], c["type"], c["label"], 1.0, "gold", False) for c in record["concepts"]]


def load_split(split: str, concepts: str | None = None, cache: Path = CACHE, folder: Path = ARXIV) -> tuple[list[dict], list]:
    """(records, parsed docs) of an arXiv split. ``concepts`` (a concept mode of
    ``build_nlp``: "rules", "model+lexicon", ...) runs the pipeline up to
    kg_concepts (the docs then carry its ``kg_concepts``); ``None`` only the
    pinned English pipeline. Docs are cached by split, the records' texts,
    the mode and the code and data of the stages before kg_proposed."""
    from spacy.tokens import DocBin

    import kg.extract.components  # noqa: F401  (the Doc extensions)
    from kg.training.annotation import read_records
    from kg.training.arxiv import abstracts, text_digest

    records = read_records(folder / f"{split}.jsonl")
    nlp = _pipeline(concepts)
    digest = text_digest("".join(r["digest"] for r in records) + (_stage_digest() if concepts else ""))
    path = Path(cache) / f"{split}-{concepts or 'parse'}-{digest}.spacy"
    if path.exists():
        return records, list(DocBin().from_disk(path).get_docs(nlp.vocab))
    texts = abstracts([r["id"] for r in records])
    bin_ = DocBin(store_user_data=True)
    docs = list(nlp.pipe(texts[r["id"]] for r in records))
    for doc, record in zip(docs, records):
        if text_digest(doc.text) != record["digest"]:
            raise ValueError(f"abstract {record['id']} changed in the corpus since it was annotated")
        bin_.add(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    bin_.to_disk(path)
    return records, docs


def _stage_digest() -> str:
    """A digest of kg/extract's files and the lexicon, kg_proposed's own left out (they do not change its input)."""
    import hashlib

    from kg.lexicon import LEXICON_PATH

    package = Path(__file__).resolve().parents[1] / "extract"
    own = {package / "components" / "proposed.py", DEFAULT_WEIGHTS}
    digest = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.is_file() and p.suffix != ".pyc" and p not in own):
        digest.update(str(path.relative_to(package)).encode() + path.read_bytes())
    digest.update(Path(LEXICON_PATH).read_bytes())
    return digest.hexdigest()[:16]


def _pipeline(concepts: str | None):
    from kg.extract.model import load_english
    from kg.extract.pipeline import build_nlp

    if concepts is None:
        return load_english()
    nlp = build_nlp(concepts=concepts, use_claims=False)
    keep = nlp.pipe_names[: nlp.pipe_names.index("kg_concepts") + 1]
    for name in nlp.pipe_names[len(keep) :]:
        nlp.remove_pipe(name)
    return nlp


def label_examples(
    records: list[dict], docs: list, known: frozenset[str], families: frozenset[str] = frozenset()
) -> list[tuple[str, str, set[str], bool]]:
    """(record id, label, cues, gold proposed) for every gold concept label."""
    examples = []
    for record, doc in zip(records, docs):
        proposed = {c["label"] for c in record["concepts"] if c["proposed"]}
        for label, feats in label_features(doc, gold_concepts(record), known, families).items():
            examples.append((record["id"], label, feats, label in proposed))
    return examples


def pipeline_examples(
    records: list[dict], docs: list, known: frozenset[str], families: frozenset[str] = frozenset()
) -> list[tuple[str, str, set[str], bool]]:
    """(record id, label, cues, gold proposed) for every concept label the
    pipeline found (the docs' ``kg_concepts``), proposed when it names a gold
    proposed concept as evaluate_records matches them (folded label, or the
    surface form of a gold mention)."""
    key = _label_key()
    examples = []
    for record, doc in zip(records, docs):
        surface = {key(doc.text[c["start"] : c["end"]]): key(c["label"]) for c in record["concepts"]}
        proposed = {key(c["label"]) for c in record["concepts"] if c["proposed"]}
        concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
        for label, feats in label_features(doc, concepts, known, families).items():
            examples.append((record["id"], label, feats, surface.get(key(label), key(label)) in proposed))
    return examples


def fit(examples: Sequence[tuple[str, str, set[str], bool]], l2: float = L2, epochs: int = EPOCHS) -> ProposedModel:
    """An L2-regularised logistic model over the cues, by full-batch gradient descent (Adam), deterministic."""
    import numpy as np

    names = sorted({f for _, _, feats, _ in examples for f in feats})
    index = {f: i for i, f in enumerate(names)}
    x = np.zeros((len(examples), len(names)), dtype=np.float64)
    for row, (_, _, feats, _) in enumerate(examples):
        x[row, [index[f] for f in feats]] = 1.0
    y = np.array([float(p) for *_, p in examples])
    w, b = np.zeros(len(names)), 0.0
    m, v, mb, vb = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0
    rate, beta1, beta2 = 0.1, 0.9, 0.999
    for step in range(1, epochs + 1):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        grad = x.T @ (p - y) / len(y) + l2 * w
        grad_b = float(np.mean(p - y))
        m, v = beta1 * m + (1 - beta1) * grad, beta2 * v + (1 - beta2) * grad**2
        mb, vb = beta1 * mb + (1 - beta1) * grad_b, beta2 * vb + (1 - beta2) * grad_b**2
        correction = np.sqrt(1 - beta2**step) / (1 - beta1**step)
        w -= rate * correction * m / (np.sqrt(v) + 1e-8)
        b -= rate * correction * mb / (np.sqrt(vb) + 1e-8)
    weights = {f: round(float(w[i]), 4) for f, i in index.items() if abs(w[i]) >= 1e-4}
    return ProposedModel(weights, round(float(b), 4))


def _f1_at(scored: list[tuple[float, bool]], threshold: float) -> float:
    tp = sum(1 for s, g in scored if s >= threshold and g)
    predicted = sum(1 for s, _ in scored if s >= threshold)
    gold = sum(1 for _, g in scored if g)
    return 0.0 if not tp else 2 * tp / (predicted + gold)


def cross_validated_threshold(examples, extra=(), folds: int = FOLDS, **fit_args) -> tuple[float, float]:
    """(threshold, F1): the threshold maximising label F1 on ``examples`` over
    held-out folds of train (folds by abstract; each fold's model also learns
    from the ``extra`` examples of the other folds' abstracts)."""
    ids = sorted({e[0] for e in [*examples, *extra]})
    fold_of = {doc_id: i % folds for i, doc_id in enumerate(ids)}
    scored = []
    for k in range(folds):
        model = fit([e for e in [*examples, *extra] if fold_of[e[0]] != k], **fit_args)
        scored += [(model.score(e[2]) if "only-applied" not in e[2] else 0.0, e[3]) for e in examples if fold_of[e[0]] == k]
    candidates = [t / 100 for t in range(5, 96)]
    best = max(candidates, key=lambda t: (_f1_at(scored, t), -abs(t - 0.5)))
    return best, _f1_at(scored, best)


def score_marker(marker: Callable, records: list[dict], docs: list, gold: bool = True, errors: list | None = None) -> Score:
    """Proposed-label P/R/F1 of ``marker`` (a Doc -> Doc callable) on a split,
    by label as evaluate_records scores it: on gold concepts, or on the
    concepts the docs carry."""
    key = _label_key()
    gold_set, predicted = set(), set()
    for record, doc in zip(records, docs):
        surface = {key(doc.text[c["start"] : c["end"]]): key(c["label"]) for c in record["concepts"]}
        want = {(record["id"], key(c["label"])) for c in record["concepts"] if c["proposed"]}
        if gold:
            doc._.kg_concepts = gold_concepts(record)
        else:
            doc._.kg_concepts = [ConceptSpan(*c)._replace(proposed=False) for c in doc._.kg_concepts or []]
        doc = marker(doc)
        got = {
            (record["id"], surface.get(key(c.label), key(c.label))) for c in map(lambda t: ConceptSpan(*t), doc._.kg_concepts) if c.proposed
        }
        gold_set |= want
        predicted |= got
        if errors is not None:
            errors += [("missed", *e) for e in sorted(want - got)] + [("wrong", *e) for e in sorted(got - want)]
    return prf(gold_set, predicted)


def train(out: Path = DEFAULT_WEIGHTS, l2: float = L2) -> dict:
    """Fit on train's gold concept labels and on the labels the rule concept
    stage finds in train (so the model also sees descriptions and fragments it
    makes); the threshold is the one best on gold concepts over 5 folds."""
    known, families = known_names(), model_families()
    records, docs = load_split("train")
    gold = label_examples(records, docs, known, families)
    _, rule_docs = load_split("train", "rules")
    rules = pipeline_examples(records, rule_docs, known, families)
    threshold, cv_f1 = cross_validated_threshold(gold, rules, l2=l2)
    model = fit(gold + rules, l2=l2)
    model.threshold = threshold
    data = model.to_dict()
    data["trained_on"] = (
        f"annotations/arxiv-cs-2025/train.jsonl: {len(records)} abstracts, {len(gold)} gold concept labels "
        f"and {len(rules)} labels of the rule concept stage"
    )
    data["train_cv_f1_gold_concepts"] = round(cv_f1, 4)
    data["l2"] = l2
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return data


def _fmt(score: Score) -> str:
    return (
        f"P {100 * score.precision:.1f} R {100 * score.recall:.1f} F1 {100 * score.f1:.1f} (gold {score.gold}, predicted {score.predicted})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.training.proposed", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    t = commands.add_parser("train", help="fit the shipped weights on arXiv train")
    t.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS)
    e = commands.add_parser("evaluate", help="measure weights on an arXiv split")
    e.add_argument("--split", default="dev", choices=["train", "dev"])
    e.add_argument("--concepts", default="gold", help="gold, or a concept mode of build_nlp (rules, model+lexicon, ...)")
    e.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS)
    e.add_argument("--errors", action="store_true", help="list the missed and wrong labels")
    args = parser.parse_args(argv)
    if args.command == "train":
        data = train(args.out)
        print(
            f"wrote {args.out}: {len(data['weights'])} cues, threshold {data['threshold']}, train 5-fold F1 (gold concepts) {100 * data['train_cv_f1_gold_concepts']:.1f}"
        )
        return 0
    marker = ProposedMarker(ProposedModel.load(args.weights), known_names(), model_families())
    records, docs = load_split(args.split, None if args.concepts == "gold" else args.concepts)
    errors: list = []
    print(f"arXiv {args.split}, {args.concepts} concepts: {_fmt(score_marker(marker, records, docs, args.concepts == 'gold', errors))}")
    if args.errors:
        for kind, doc_id, label in errors:
            print(f"  {kind:6} {doc_id} {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
