"""Training and measuring the claim classifier (:mod:`kg.extract.claims_model`).

Reproduce the shipped weights (``kg/extract/weights/claims``) from the
repository root, with CSAbstruct in ``../shared/benchmarks/csabstruct`` and
the arXiv abstracts in ``../shared/corpora/arxiv-cs-2025``::

    python -m kg.training.train_claims

It takes about a minute on an idle core (far longer on a loaded one) and is seeded (``[system] seed`` in
``kg/training/configs/claims.cfg``). The data: CSAbstruct train (every
sentence's rhetorical role; ``result`` is a claim) and kg's arXiv train split
(``annotations/arxiv-cs-2025/train.jsonl``: the listed claim sentences are
claims, every other sentence is not; roles unknown). kg's arXiv dev split is
for choices only; its test split is never read here.

1. The stage-1 textcat (``textcat_multilabel``: the five roles and
   ``claim``) is trained on CSAbstruct train and the arXiv train abstracts
   left out of one of ``arxiv_folds`` folds, once per fold, so that every
   arXiv train sentence gets label probabilities from a model that never saw
   its abstract; then once on all of it (the shipped textcat). An arXiv
   sentence teaches only ``claim``: its role outputs are missing values.
2. The context layer is fitted on those out-of-fold arXiv features.
3. The calibration (``calibration`` in the config: isotonic or Platt,
   :mod:`kg.training.calibration`) is fitted on out-of-fold scores of the
   whole classifier on arXiv train: per fold, a context layer fitted on the
   other folds scores the fold.
4. The threshold is the calibrated probability that maximises claim-sentence
   F1 on arXiv dev.
5. It measures arXiv dev and CSAbstruct dev (the figures variants are chosen
   on), and CSAbstruct's deduplicated test once; the report goes into the
   weights' ``context.json``, with what the weights were trained on and the
   licences.

``python -m kg.training.train_claims --evaluate [--split dev]`` re-measures
the shipped weights and their speed on CSAbstruct without training. Variants
tried and their figures: ``docs/experiments/claims.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kg.errors import CorpusError, KgError
from kg.extract.claims_model import (
    CLAIM_LABEL,
    DEFAULT_WEIGHTS,
    LABELS,
    ROLES,
    ClaimClassifier,
    ContextLayer,
    context_features,
    position_texts,
)
from kg.training.benchmarks.csabstruct import CsAbstract, load_csabstruct
from kg.training.scoring import Score, prf

if TYPE_CHECKING:
    import numpy as np
    from spacy.language import Language

__all__ = [
    "ARXIV",
    "CLAIMS_CONFIG",
    "CLAIM_CUES",
    "TRAINED_ON",
    "ClaimAbstract",
    "CueRule",
    "choose_threshold",
    "cue_claims",
    "evaluate_claims",
    "load_arxiv_claims",
    "load_claim_cues",
    "main",
    "score_sentences",
    "train_claims",
]

HERE = Path(__file__).resolve().parent
CLAIMS_CONFIG = HERE / "configs" / "claims.cfg"
CLAIM_CUES = HERE.parent / "extract" / "data" / "claim_cues.jsonl"
ARXIV = HERE.parents[1] / "annotations" / "arxiv-cs-2025"
#: Sentence splits of the annotated abstracts, by the English parser (slow to redo).
CACHE = Path.home() / ".cache" / "kg" / "claims"

#: What the shipped weights learn from, written into their ``context.json``.
TRAINED_ON = [
    {
        "name": "CSAbstruct train (Cohan et al. 2019)",
        "use": "rhetorical role of every sentence; result = claim",
        "source": "allenai/sequential_sentence_classification, data/CSAbstruct",
        "license": "Apache-2.0",
    },
    {
        "name": "kg arXiv annotation, train split (annotations/arxiv-cs-2025/train.jsonl)",
        "use": "claim sentences per tests/data/ANNOTATION.md; every other sentence a non-claim; the "
        "context layer and the calibration are fitted on its out-of-fold predictions",
        "source": "kg's own annotation of arXiv abstracts (arXiv metadata, ../shared/corpora/arxiv-cs-2025)",
        "license": "kg annotation, distributed under the project's MIT licence; abstract text not included",
    },
]


class _Abstract(Protocol):
    @property
    def doc_id(self) -> str: ...

    @property
    def sentences(self) -> tuple[str, ...]: ...

    @property
    def claims(self) -> tuple[bool, ...]: ...


@dataclass(frozen=True)
class ClaimAbstract:
    """One annotated arXiv abstract: its sentences as the pipeline splits
    them, their offsets, and whether each is a gold claim."""

    doc_id: str
    sentences: tuple[str, ...]
    bounds: tuple[tuple[int, int], ...]
    claims: tuple[bool, ...]


def _sentence_bounds(records: list[dict], texts: dict[str, str], cache: Path | None) -> dict[str, list[list[int]]]:
    """(start, end) of each non-blank sentence of every abstract, by the
    pinned English pipeline's parser (as ``kg_claims`` sees them); cached by
    the abstracts' digests and the model version."""
    from kg.extract.model import MODEL_VERSION

    key = hashlib.sha256(json.dumps([MODEL_VERSION, sorted(r["digest"] for r in records)]).encode()).hexdigest()[:16]
    path = cache / f"sentences-{key}.json" if cache is not None else None
    if path is not None and path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    from kg.extract.model import load_english

    nlp = load_english()
    ids = [r["id"] for r in records]
    bounds = {
        doc_id: [[s.start_char, s.end_char] for s in doc.sents if s.text.strip()]
        for doc_id, doc in zip(ids, nlp.pipe([texts[i] for i in ids], batch_size=32))
    }
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(bounds), encoding="utf-8")
    return bounds


def load_arxiv_claims(
    split: str, folder: Path | None = None, shared: Path | None = None, cache: Path | None = CACHE
) -> list[ClaimAbstract]:
    """kg's arXiv annotation ``split`` as claim sentences (text from
    ``../shared``). A sentence is a gold claim when it covers at least half of
    an annotated claim (as :mod:`kg.training.evaluation` matches them)."""
    from kg.training.annotation import read_records
    from kg.training.arxiv import abstracts, corpus_path, text_digest

    path = (folder or ARXIV) / f"{split}.jsonl"
    if not path.is_file():
        raise CorpusError(f"no arXiv annotation split {split!r} at {path}")
    records = read_records(path)
    texts = abstracts([r["id"] for r in records], corpus_path(shared))
    changed = [r["id"] for r in records if r["id"] not in texts or text_digest(texts[r["id"]]) != r["digest"]]
    if changed:
        raise CorpusError(f"{len(changed)} annotated abstracts (first {changed[0]}) are missing or changed in {corpus_path(shared)}")
    bounds = _sentence_bounds(records, texts, cache)
    out = []
    for record in records:
        text, gold = texts[record["id"]], [(c["start"], c["end"]) for c in record["claims"]]
        spans = [tuple(b) for b in bounds[record["id"]]]
        claims = tuple(any(min(e, ge) - max(s, gs) >= 0.5 * (ge - gs) for gs, ge in gold) for s, e in spans)
        out.append(ClaimAbstract(record["id"], tuple(text[s:e] for s, e in spans), tuple(spans), claims))  # type: ignore[arg-type]
    return out


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


def score_sentences(abstracts: Sequence[_Abstract], predicted: Sequence[Sequence[bool]]) -> Score:
    """Precision / recall / F1 of the claim sentences."""
    gold = {(a.doc_id, i) for a in abstracts for i, c in enumerate(a.claims) if c}
    pred = {(a.doc_id, i) for a, flags in zip(abstracts, predicted) for i, f in enumerate(flags) if f}
    return prf(gold, pred)


def choose_threshold(abstracts: Sequence[_Abstract], scores: Sequence[Sequence[float]], grid: Sequence[float]) -> tuple[float, Score]:
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


def _train_textcat(config, csabstruct: Sequence[CsAbstract], arxiv: Sequence[ClaimAbstract], buckets: int, repeats: int) -> Language:
    """Stage 1, trained as the config says (seeded): a CSAbstruct sentence
    teaches every role and ``claim`` (= ``result``); an arXiv sentence, seen
    ``repeats`` times an epoch, teaches ``claim`` only."""
    from spacy.training import Example
    from spacy.util import fix_random_seed, load_model_from_config, registry

    seed = int(config["system"]["seed"])
    fix_random_seed(seed)
    nlp = load_model_from_config(config, auto_fill=True, validate=True)
    textcat = nlp.get_pipe("textcat")
    for label in LABELS:
        textcat.add_label(label)  # type: ignore[attr-defined]
    examples = []
    for abstract in csabstruct:
        for text, label in zip(position_texts(abstract.sentences, buckets), abstract.labels):
            cats = {role: float(role == label) for role in ROLES}
            cats[CLAIM_LABEL] = float(label == "result")
            examples.append(Example.from_dict(nlp.make_doc(text), {"cats": cats}))
    for claim_abstract in arxiv:
        for text, is_claim in zip(position_texts(claim_abstract.sentences, buckets), claim_abstract.claims):
            example = Example.from_dict(nlp.make_doc(text), {"cats": {CLAIM_LABEL: float(is_claim)}})
            examples += [example] * repeats
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


def _label_probabilities(nlp: Language, abstracts: Sequence[_Abstract], buckets: int) -> list[np.ndarray]:
    import numpy as np

    out = []
    for abstract in abstracts:
        docs = nlp.pipe(position_texts(abstract.sentences, buckets))
        out.append(np.array([[d.cats[label] for label in LABELS] for d in docs]).reshape(-1, len(LABELS)))
    return out


def _log(quiet: bool, message: str) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def _fit_calibration(method: str, scores, targets):
    from kg.extract.claims_model import IDENTITY
    from kg.training.calibration import fit_isotonic, fit_platt

    fits = {"isotonic": fit_isotonic, "platt": fit_platt}
    if method == "identity":
        return IDENTITY
    if method not in fits:
        raise KgError(f"unknown calibration {method!r} in the claims config; use isotonic, platt or identity")
    return fits[method](scores, targets)


def _stage_one(config, train: Sequence[CsAbstract], arxiv: Sequence[ClaimAbstract], cache: Path | None, quiet: bool):
    """(out-of-fold label probabilities of each arXiv train abstract, the
    textcat trained on everything), from ``cache`` when the settings and data
    that decide them are the same."""
    import numpy as np
    import spacy

    settings = config["claims"]
    buckets, folds, repeats = int(settings["position_buckets"]), int(settings["arxiv_folds"]), int(settings["arxiv_repeats"])
    decided_by = {
        "sections": {k: config[k] for k in ("system", "nlp", "components", "training")},
        "settings": [buckets, folds, repeats],
        "csabstruct": [[a.doc_id, a.sentences, a.labels] for a in train],
        "arxiv": [[a.doc_id, a.sentences, a.claims] for a in arxiv],
        "spacy": spacy.__version__,
    }
    key = hashlib.sha256(json.dumps(decided_by, sort_keys=True, default=str).encode()).hexdigest()[:16]
    folder = cache / f"stage1-{key}" if cache is not None else None
    if folder is not None and (folder / "done").is_file():
        _log(quiet, f"claims: stage 1 from the cache {folder}")
        stored = np.load(folder / "out_of_fold.npz")
        return [stored[str(i)] for i in range(len(arxiv))], spacy.load(folder / "textcat")
    out_of_fold: list = [None] * len(arxiv)
    for fold in range(folds):
        _log(quiet, f"claims: out-of-fold label probabilities, fold {fold + 1}/{folds}")
        held_out = [i for i in range(len(arxiv)) if i % folds == fold]
        fold_nlp = _train_textcat(config, train, [a for i, a in enumerate(arxiv) if i % folds != fold], buckets, repeats)
        for i, probs in zip(held_out, _label_probabilities(fold_nlp, [arxiv[i] for i in held_out], buckets)):
            out_of_fold[i] = probs
    _log(quiet, f"claims: training the textcat on {len(train)} CSAbstruct and {len(arxiv)} arXiv train abstracts")
    nlp = _train_textcat(config, train, arxiv, buckets, repeats)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        np.savez(folder / "out_of_fold.npz", **{str(i): p for i, p in enumerate(out_of_fold)})
        nlp.to_disk(folder / "textcat")
        (folder / "done").write_text("", encoding="utf-8")
    return out_of_fold, nlp


def train_claims(
    output_dir: str | Path = DEFAULT_WEIGHTS,
    benchmarks_root: str | Path | None = None,
    config_path: str | Path = CLAIMS_CONFIG,
    quiet: bool = False,
    arxiv_folder: Path | None = None,
    shared: Path | None = None,
    cache: Path | None = CACHE,
) -> dict:
    """Train on CSAbstruct train and kg's arXiv train split, calibrate on
    out-of-fold arXiv train predictions, choose the threshold on arXiv dev,
    write the classifier to ``output_dir``; return the report (also saved in
    its ``context.json``). Stage 1 (the six textcat trainings, most of the
    time) is cached in ``cache`` by its settings and data, so that a change
    to the later stages reruns in seconds; ``cache=None`` trains afresh."""
    import numpy as np

    from kg.training.calibration import expected_calibration_error, reliability

    config = _load_config(Path(config_path))
    settings = config["claims"]
    buckets, folds, grid = int(settings["position_buckets"]), int(settings["arxiv_folds"]), settings["threshold_grid"]
    l2 = float(settings["context_l2"])
    train = load_csabstruct("train", benchmarks_root).abstracts
    cs_dev = load_csabstruct("dev", benchmarks_root).abstracts
    test_split = load_csabstruct("test", benchmarks_root, deduplicate=True)
    arxiv = load_arxiv_claims("train", arxiv_folder, shared)
    arxiv_dev = load_arxiv_claims("dev", arxiv_folder, shared)
    started = time.perf_counter()

    out_of_fold, nlp = _stage_one(config, train, arxiv, cache, quiet)
    features = [context_features(p) for p in out_of_fold]
    targets = [np.array(a.claims, dtype=np.float64) for a in arxiv]
    layer = ContextLayer.fit(np.vstack(features), np.concatenate(targets), l2=l2)
    # Scores of the whole classifier for abstracts it was not trained on: per
    # fold, a context layer fitted on the other folds' out-of-fold features.
    held_scores = np.zeros(sum(len(t) for t in targets))
    offsets = np.cumsum([0] + [len(t) for t in targets])
    for fold in range(folds):
        inside = [i for i in range(len(arxiv)) if i % folds != fold]
        fold_layer = ContextLayer.fit(np.vstack([features[i] for i in inside]), np.concatenate([targets[i] for i in inside]), l2=l2)
        for i in range(fold, len(arxiv), folds):
            held_scores[offsets[i] : offsets[i + 1]] = fold_layer(features[i])
    held_targets = np.concatenate(targets)
    calibrator = _fit_calibration(str(settings["calibration"]), held_scores, held_targets)

    classifier = ClaimClassifier(nlp, layer, threshold=0.5, position_buckets=buckets, calibrator=calibrator)
    dev_scores = [classifier.score(a.sentences) for a in arxiv_dev]
    threshold, dev_score = choose_threshold(arxiv_dev, dev_scores, grid)
    classifier.threshold = threshold
    rules = load_claim_cues()
    dev_table = reliability([s for row in dev_scores for s in row], [c for a in arxiv_dev for c in a.claims])
    out_of_fold_table = reliability(calibrator(held_scores), held_targets)
    test = test_split.abstracts
    report = {
        "benchmarks": "kg arXiv annotation (claim sentences) and CSAbstruct (claim = a sentence labelled 'result')",
        "csabstruct_train_abstracts": len(train),
        "arxiv_train_abstracts": len(arxiv),
        "arxiv_dev_abstracts": len(arxiv_dev),
        "csabstruct_test_abstracts": len(test),
        "csabstruct_test_dropped_as_duplicates": list(test_split.dropped),
        "seed": int(config["system"]["seed"]),
        "calibration": calibrator.method,
        "calibration_fitted_on": f"out-of-fold scores on kg arXiv train ({folds} folds, {len(held_targets)} sentences)",
        "threshold_chosen_on": "kg arXiv dev (best claim-sentence F1, calibrated scale)",
        "ece": {
            "arxiv_train_out_of_fold": round(expected_calibration_error(out_of_fold_table), 4),
            "arxiv_dev": round(expected_calibration_error(dev_table), 4),
        },
        "arxiv_dev": {
            "cues": _row(score_sentences(arxiv_dev, [cue_claims(a.sentences, rules) for a in arxiv_dev])),
            "classifier": _row(dev_score),
        },
        "csabstruct_dev": {"classifier": _row(score_sentences(cs_dev, [classifier.is_claim(a.sentences) for a in cs_dev]))},
        "csabstruct_test": {"classifier": _row(score_sentences(test, [classifier.is_claim(a.sentences) for a in test]))},
        "training_seconds": round(time.perf_counter() - started, 1),
    }
    nlp.meta["name"] = "kg_claims_textcat"
    nlp.meta["sources"] = [{"name": t["name"], "url": t["source"], "license": t["license"]} for t in TRAINED_ON]
    classifier.save(output_dir, trained_on=TRAINED_ON, report=report)
    for split in ("arxiv_dev", "csabstruct_dev", "csabstruct_test"):
        for name, row in report[split].items():
            _log(quiet, f"claims: {split:15} {name:10} P {row['precision']:.3f}  R {row['recall']:.3f}  F1 {row['f1']:.3f}")
    _log(quiet, f"claims: threshold {threshold:.2f} ({calibrator.method}); ECE {report['ece']}; wrote {output_dir}")
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
    """Score saved weights on a CSAbstruct split (test deduplicated) at their
    threshold; return the score and the speed in sentences per second (one
    process, one abstract per call, as the pipeline calls it)."""
    classifier = ClaimClassifier.load(weights)
    abstracts = load_csabstruct(split, benchmarks_root).abstracts
    started = time.perf_counter()
    predicted = [classifier.is_claim(a.sentences) for a in abstracts]
    elapsed = time.perf_counter() - started
    return score_sentences(abstracts, predicted), sum(len(a.sentences) for a in abstracts) / elapsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.training.train_claims", description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_WEIGHTS, help="weights folder to write or read")
    parser.add_argument("--root", type=Path, default=None, help="folder holding csabstruct/")
    parser.add_argument("--config", type=Path, default=CLAIMS_CONFIG)
    parser.add_argument("--evaluate", action="store_true", help="measure the weights in --output on CSAbstruct, do not train")
    parser.add_argument("--split", default="test", choices=("train", "dev", "test"), help="CSAbstruct split for --evaluate")
    parser.add_argument("--no-cache", action="store_true", help=f"train stage 1 afresh, ignoring {CACHE}")
    args = parser.parse_args(argv)
    try:
        if args.evaluate:
            score, speed = evaluate_claims(args.output, args.split, args.root)
            print(f"claims on CSAbstruct {args.split}: {score.as_row()}; {speed:,.0f} sentences/s")
        else:
            train_claims(args.output, args.root, args.config, cache=None if args.no_cache else CACHE)
    except KgError as exc:
        print(f"kg: error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
