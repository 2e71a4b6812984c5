"""Training and measuring the claim classifier on CSAbstruct.

Reproduce the shipped weights (``kg/extract/weights/claims``) from the
repository root, with CSAbstruct in ``../shared/benchmarks/csabstruct``::

    python -m kg.extract.train_claims

(``python -m kg.extract.train claims`` runs the same function.) It takes a
few minutes on one CPU and is seeded (``[system] seed`` in
``kg/extract/configs/claims.cfg``):

1. trains the stage-1 textcat (roles, with position tokens) on train, for
   the config's ``max_epochs``;
2. trains it again on each of ``folds`` parts of train left out in turn, so
   that every train sentence gets role probabilities from a model that never
   saw it, and fits the context layer (:class:`~kg.extract.claims_model.
   ContextLayer`) on those;
3. picks the threshold that maximises result-sentence F1 on dev;
4. measures, once, on the deduplicated test split (the 32 test abstracts that
   also occur in train or dev dropped): the cue rules alone
   (``kg/extract/data/claim_cues.jsonl``, a sentence is a claim when any rule
   matches), the textcat alone (its ``result`` probability, own threshold
   from dev) and the shipped two-stage classifier. The scores go into the
   weights' ``context.json``.

The cue rules are a baseline only: used as extra inputs of the context layer
they moved dev F1 by +0.3 points (bootstrap over dev abstracts: better in 67%
of resamples), i.e. not measurably, so the shipped classifier does without.

``python -m kg.extract.train_claims --evaluate [--split dev]`` re-measures
the shipped weights and their speed without training.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import KgError
from kg.extract.benchmarks.csabstruct import CLAIM_LABEL, CsAbstract, load_csabstruct
from kg.extract.claims_model import (
    DEFAULT_WEIGHTS,
    ROLES,
    ClaimClassifier,
    ContextLayer,
    context_features,
    position_texts,
)
from kg.extract.scoring import Score, prf

if TYPE_CHECKING:
    import numpy as np
    from spacy.language import Language

__all__ = [
    "CLAIMS_CONFIG",
    "CLAIM_CUES",
    "CueRule",
    "choose_threshold",
    "cue_claims",
    "evaluate_claims",
    "load_claim_cues",
    "main",
    "score_sentences",
    "train_claims",
]

HERE = Path(__file__).resolve().parent
CLAIMS_CONFIG = HERE / "configs" / "claims.cfg"
CLAIM_CUES = HERE / "data" / "claim_cues.jsonl"


@dataclass(frozen=True)
class CueRule:
    """One cue phrase: a case-insensitive regular expression; a sentence it
    matches is a claim (``decision``) under the cue baseline."""

    id: str
    pattern: re.Pattern
    decision: str = "claim"


def load_claim_cues(path: str | Path = CLAIM_CUES) -> tuple[CueRule, ...]:
    """Read the cue rules, one JSON object per line with ``id``, ``pattern``
    and ``decision``; ids must be unique."""
    path = Path(path)
    rules: list[CueRule] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            rule = CueRule(row["id"], re.compile(row["pattern"], re.IGNORECASE), row.get("decision", "claim"))
        except (ValueError, KeyError, re.error) as exc:
            raise KgError(f"{path}:{number}: not a claim cue rule ({exc})") from exc
        if any(r.id == rule.id for r in rules):
            raise KgError(f"{path}:{number}: duplicate cue rule id {rule.id!r}")
        rules.append(rule)
    return tuple(rules)


def cue_claims(sentences: Sequence[str], rules: Sequence[CueRule]) -> list[bool]:
    """The cue baseline: whether any ``claim`` rule matches each sentence."""
    claim_rules = [r.pattern for r in rules if r.decision == "claim"]
    return [any(p.search(s) for p in claim_rules) for s in sentences]


def score_sentences(abstracts: Sequence[CsAbstract], predicted: Sequence[Sequence[bool]]) -> Score:
    """Precision / recall / F1 of the claim (``result``) sentences."""
    gold = {(a.doc_id, i) for a in abstracts for i, c in enumerate(a.claims) if c}
    pred = {(a.doc_id, i) for a, flags in zip(abstracts, predicted) for i, f in enumerate(flags) if f}
    return prf(gold, pred)


def choose_threshold(
    abstracts: Sequence[CsAbstract], scores: Sequence[Sequence[float]], grid: Sequence[float]
) -> tuple[float, Score]:
    """The threshold of ``grid`` (start, stop inclusive, step) with the best
    F1 on ``abstracts``; the lowest of equals."""
    start, stop, step = grid
    best: tuple[float, Score] | None = None
    for k in range(int(round((stop - start) / step)) + 1):
        threshold = round(start + k * step, 6)
        score = score_sentences(abstracts, [[s >= threshold for s in row] for row in scores])
        if best is None or score.f1 > best[1].f1:
            best = (threshold, score)
    assert best is not None
    return best


def _load_config(config_path: Path):
    from spacy.util import load_config

    return load_config(config_path, interpolate=False)


def _train_textcat(config, abstracts: Sequence[CsAbstract], buckets: int) -> Language:
    """Stage 1, trained on ``abstracts`` as the config says (seeded)."""
    from spacy.training import Example
    from spacy.util import fix_random_seed, load_model_from_config, registry

    seed = int(config["system"]["seed"])
    fix_random_seed(seed)
    nlp = load_model_from_config(config, auto_fill=True, validate=True)
    textcat = nlp.get_pipe("textcat")
    for role in ROLES:
        textcat.add_label(role)
    examples = []
    for abstract in abstracts:
        for text, label in zip(position_texts(abstract.sentences, buckets), abstract.labels):
            cats = {role: float(role == label) for role in ROLES}
            examples.append(Example.from_dict(nlp.make_doc(text), {"cats": cats}))
    training = config["training"]
    resolved = registry.resolve({"optimizer": training["optimizer"], "batcher": training["batcher"]})
    optimizer, batcher = resolved["optimizer"], resolved["batcher"]
    nlp.initialize(lambda: examples, sgd=optimizer)
    shuffler = random.Random(seed)
    for _ in range(int(training["max_epochs"])):
        shuffler.shuffle(examples)
        for batch in batcher(examples):
            nlp.update(batch, drop=float(training["dropout"]), sgd=optimizer)
    return nlp


def _role_probabilities(nlp: Language, abstracts: Sequence[CsAbstract], buckets: int) -> list[np.ndarray]:
    import numpy as np

    out = []
    for abstract in abstracts:
        docs = nlp.pipe(position_texts(abstract.sentences, buckets))
        out.append(np.array([[d.cats[r] for r in ROLES] for d in docs]))
    return out


def _log(quiet: bool, message: str) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def train_claims(
    output_dir: str | Path = DEFAULT_WEIGHTS,
    benchmarks_root: str | Path | None = None,
    config_path: str | Path = CLAIMS_CONFIG,
    quiet: bool = False,
) -> dict:
    """Train on CSAbstruct train, tune on dev, measure on deduplicated test,
    write the classifier to ``output_dir``; return the report (also saved in
    its ``context.json``)."""
    import numpy as np

    config = _load_config(Path(config_path))
    settings = config["claims"]
    buckets, folds, grid = int(settings["position_buckets"]), int(settings["folds"]), settings["threshold_grid"]
    train = load_csabstruct("train", benchmarks_root).abstracts
    dev = load_csabstruct("dev", benchmarks_root).abstracts
    test_split = load_csabstruct("test", benchmarks_root, deduplicate=True)
    test = test_split.abstracts
    started = time.perf_counter()

    _log(quiet, f"claims: training the textcat on {len(train)} train abstracts")
    nlp = _train_textcat(config, train, buckets)
    out_of_fold: list = [None] * len(train)
    for fold in range(folds):
        _log(quiet, f"claims: out-of-fold role probabilities, fold {fold + 1}/{folds}")
        held_out = [i for i in range(len(train)) if i % folds == fold]
        fold_nlp = _train_textcat(config, [a for i, a in enumerate(train) if i % folds != fold], buckets)
        for i, probs in zip(held_out, _role_probabilities(fold_nlp, [train[i] for i in held_out], buckets)):
            out_of_fold[i] = probs
    features = np.vstack([context_features(p) for p in out_of_fold])
    targets = np.array([c for a in train for c in a.claims], dtype=np.float64)
    layer = ContextLayer.fit(features, targets, l2=float(settings["context_l2"]))

    classifier = ClaimClassifier(nlp, layer, threshold=0.5, position_buckets=buckets)
    result = ROLES.index(CLAIM_LABEL)
    dev_textcat = [list(p[:, result]) for p in _role_probabilities(nlp, dev, buckets)]
    textcat_threshold, textcat_dev = choose_threshold(dev, dev_textcat, grid)
    threshold, dev_score = choose_threshold(dev, [classifier.score(a.sentences) for a in dev], grid)
    classifier.threshold = threshold
    rules = load_claim_cues()
    cues_dev = score_sentences(dev, [cue_claims(a.sentences, rules) for a in dev])

    test_textcat = [p[:, result] for p in _role_probabilities(nlp, test, buckets)]
    report = {
        "benchmark": "CSAbstruct; claim = a sentence labelled 'result'",
        "train_abstracts": len(train),
        "dev_abstracts": len(dev),
        "test_abstracts": len(test),
        "test_dropped_as_duplicates": list(test_split.dropped),
        "seed": int(config["system"]["seed"]),
        "textcat_threshold": textcat_threshold,
        "dev": {"cues": _row(cues_dev), "textcat": _row(textcat_dev), "classifier": _row(dev_score)},
        "test": {
            "cues": _row(score_sentences(test, [cue_claims(a.sentences, rules) for a in test])),
            "textcat": _row(score_sentences(test, [[s >= textcat_threshold for s in row] for row in test_textcat])),
            "classifier": _row(score_sentences(test, [classifier.is_claim(a.sentences) for a in test])),
        },
        "training_seconds": round(time.perf_counter() - started, 1),
    }
    classifier.save(output_dir, report=report)
    for split in ("dev", "test"):
        for name, row in report[split].items():
            _log(quiet, f"claims: {split:4} {name:10} P {row['precision']:.3f}  R {row['recall']:.3f}  F1 {row['f1']:.3f}")
    _log(quiet, f"claims: threshold {threshold:.2f}; wrote {output_dir}")
    return report


def _row(score: Score) -> dict:
    return {
        "precision": round(score.precision, 4),
        "recall": round(score.recall, 4),
        "f1": round(score.f1, 4),
        "gold": score.gold,
        "predicted": score.predicted,
        "correct": score.correct,
    }


def evaluate_claims(
    weights: str | Path = DEFAULT_WEIGHTS, split: str = "test", benchmarks_root: str | Path | None = None
) -> tuple[Score, float]:
    """Score saved weights on a split (test deduplicated) at their threshold;
    return the score and the speed in sentences per second (one process,
    one abstract per call, as the pipeline calls it)."""
    classifier = ClaimClassifier.load(weights)
    abstracts = load_csabstruct(split, benchmarks_root).abstracts
    started = time.perf_counter()
    predicted = [classifier.is_claim(a.sentences) for a in abstracts]
    elapsed = time.perf_counter() - started
    return score_sentences(abstracts, predicted), sum(len(a.sentences) for a in abstracts) / elapsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.extract.train_claims", description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_WEIGHTS, help="weights folder to write or read")
    parser.add_argument("--root", type=Path, default=None, help="folder holding csabstruct/")
    parser.add_argument("--config", type=Path, default=CLAIMS_CONFIG)
    parser.add_argument("--evaluate", action="store_true", help="measure the weights in --output, do not train")
    parser.add_argument("--split", default="test", choices=("train", "dev", "test"))
    args = parser.parse_args(argv)
    try:
        if args.evaluate:
            score, speed = evaluate_claims(args.output, args.split, args.root)
            print(f"claims on CSAbstruct {args.split}: {score.as_row()}; {speed:,.0f} sentences/s")
        else:
            train_claims(args.output, args.root, args.config)
    except KgError as exc:
        print(f"kg: error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
