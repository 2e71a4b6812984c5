"""How far the claim classifier's confidences can be trusted: fitting the
monotone map from its score to a probability, and measuring the result.

- :func:`fit_isotonic` (pool-adjacent-violators) and :func:`fit_platt`
  (logistic on the score's logit, by Newton's method) return a
  :class:`~kg.extract.claims_model.Calibrator`, the map the runtime applies;
- :func:`reliability` bins confidences and compares each bin's mean
  confidence with how often its sentences are gold claims (the observed
  precision); :func:`expected_calibration_error` is the count-weighted mean of
  the gaps;
- :func:`claim_reliability` scores one split of kg's arXiv annotation with the
  shipped weights and returns both tables: every sentence, and the claims the
  pipeline emits (those at or above the threshold, whose confidence a user
  sees).

Print them (``dev`` for tuning; ``test`` is the held-out set)::

    python -m kg.training.calibration --split dev [--bins 10] [--weights DIR]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kg.errors import KgError
from kg.extract.claims_model import DEFAULT_WEIGHTS, Calibrator

__all__ = [
    "Bin",
    "ClaimReliability",
    "claim_reliability",
    "expected_calibration_error",
    "fit_isotonic",
    "fit_platt",
    "format_table",
    "main",
    "reliability",
]


def fit_isotonic(scores: Sequence[float] | np.ndarray, targets: Sequence[float] | np.ndarray) -> Calibrator:
    """The non-decreasing step function of ``scores`` closest to ``targets``
    in squared error (pool adjacent violators), as knots at each block's mean
    score; between knots the runtime interpolates linearly. Ties in score are
    pooled first, so the fit does not depend on the order of equal scores."""
    x = np.asarray(scores, dtype=np.float64)
    t = np.asarray(targets, dtype=np.float64)
    if len(x) == 0 or len(x) != len(t):
        raise KgError(f"isotonic calibration needs as many targets as scores (got {len(x)} and {len(t)}), at least one")
    unique, inverse = np.unique(x, return_inverse=True)
    weight = np.bincount(inverse).astype(np.float64)
    value = np.bincount(inverse, weights=t) / weight
    position = unique.copy()
    # Blocks as (weight, mean target, mean score); merge while a block is below its predecessor.
    blocks: list[list[float]] = []
    for w, v, s in zip(weight, value, position):
        blocks.append([w, v, s])
        while len(blocks) > 1 and blocks[-2][1] >= blocks[-1][1]:
            w2, v2, s2 = blocks.pop()
            w1, v1, s1 = blocks.pop()
            blocks.append([w1 + w2, (w1 * v1 + w2 * v2) / (w1 + w2), (w1 * s1 + w2 * s2) / (w1 + w2)])
    return Calibrator("isotonic", tuple(float(b[2]) for b in blocks), tuple(float(b[1]) for b in blocks))


def fit_platt(scores: Sequence[float] | np.ndarray, targets: Sequence[float] | np.ndarray, iterations: int = 50) -> Calibrator:
    """``p = sigmoid(a * logit(score) + b)`` by maximum likelihood (Newton's
    method), with Platt's smoothed targets ((n+ + 1) / (n+ + 2) for a claim,
    1 / (n- + 2) for a non-claim) so that a separable set keeps finite a."""
    s = np.clip(np.asarray(scores, dtype=np.float64), 1e-6, 1 - 1e-6)
    t = np.asarray(targets, dtype=np.float64)
    if len(s) == 0 or len(s) != len(t):
        raise KgError(f"Platt calibration needs as many targets as scores (got {len(s)} and {len(t)}), at least one")
    positives, negatives = float(t.sum()), float(len(t) - t.sum())
    smoothed = np.where(t > 0.5, (positives + 1) / (positives + 2), 1 / (negatives + 2))
    z = np.column_stack([np.log(s / (1 - s)), np.ones(len(s))])
    w = np.array([1.0, 0.0])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        gradient = z.T @ (p - smoothed)
        hessian = (z * (p * (1 - p))[:, None]).T @ z + 1e-9 * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return Calibrator("platt", (max(float(w[0]), 0.0),), (float(w[1]),))


@dataclass(frozen=True)
class Bin:
    """One bin of a reliability table: confidences in ``[low, high)`` (the
    last bin includes 1.0), how many, their mean, and the share of them that
    are gold claims."""

    low: float
    high: float
    count: int
    mean_confidence: float
    observed_precision: float


def reliability(confidences: Sequence[float] | np.ndarray, outcomes: Sequence[bool] | np.ndarray, bins: int = 10) -> list[Bin]:
    """The reliability table over ``bins`` equal-width bins of [0, 1]; empty
    bins are listed with count 0 (and NaN means)."""
    c = np.asarray(confidences, dtype=np.float64)
    o = np.asarray(outcomes, dtype=np.float64)
    if len(c) != len(o):
        raise KgError(f"a reliability table needs one outcome per confidence (got {len(c)} and {len(o)})")
    if bins < 1:
        raise KgError(f"a reliability table needs at least one bin, not {bins}")
    index = np.minimum((c * bins).astype(int), bins - 1)
    table = []
    for b in range(bins):
        mask = index == b
        count = int(mask.sum())
        table.append(
            Bin(
                b / bins,
                (b + 1) / bins,
                count,
                float(c[mask].mean()) if count else float("nan"),
                float(o[mask].mean()) if count else float("nan"),
            )
        )
    return table


def expected_calibration_error(table: Sequence[Bin]) -> float:
    """sum over bins of count / total * |mean confidence - observed precision| (0 for an empty table)."""
    total = sum(b.count for b in table)
    if not total:
        return 0.0
    return float(sum(b.count / total * abs(b.mean_confidence - b.observed_precision) for b in table if b.count))


@dataclass(frozen=True)
class ClaimReliability:
    """:func:`claim_reliability`'s answer: the split, the threshold, one table
    (and its ECE) over every sentence and one over the emitted claims."""

    split: str
    threshold: float
    sentences: list[Bin]
    claims: list[Bin]

    @property
    def ece_sentences(self) -> float:
        return expected_calibration_error(self.sentences)

    @property
    def ece_claims(self) -> float:
        return expected_calibration_error(self.claims)


def claim_reliability(
    split: str = "dev",
    weights: str | Path = DEFAULT_WEIGHTS,
    bins: int = 10,
    folder: Path | None = None,
    shared: Path | None = None,
) -> ClaimReliability:
    """Score every sentence of kg's arXiv annotation ``split`` (sentences as
    the pipeline splits them) with the classifier in ``weights``; a sentence
    is right when it is a gold claim. ``test`` is the held-out set: run it
    once, at the end."""
    from kg.extract.claims_model import ClaimClassifier
    from kg.training.train_claims import load_arxiv_claims

    classifier = ClaimClassifier.load(weights)
    abstracts = load_arxiv_claims(split, folder, shared)
    confidences: list[float] = []
    outcomes: list[bool] = []
    for abstract in abstracts:
        confidences += classifier.score(abstract.sentences)
        outcomes += abstract.claims
    emitted = [(c, o) for c, o in zip(confidences, outcomes) if c >= classifier.threshold]
    return ClaimReliability(
        split,
        classifier.threshold,
        reliability(confidences, outcomes, bins),
        reliability([c for c, _ in emitted], [o for _, o in emitted], bins),
    )


def format_table(table: Sequence[Bin]) -> str:
    """A plain-text table: one row per non-empty bin, then the ECE."""
    lines = ["confidence   count  mean conf.  observed precision", "-----------  -----  ----------  ------------------"]
    for b in table:
        if b.count:
            lines.append(f"{b.low:.1f} - {b.high:.1f}  {b.count:5d}  {b.mean_confidence:10.3f}  {b.observed_precision:18.3f}")
    lines.append(f"ECE {expected_calibration_error(table):.3f} over {sum(b.count for b in table)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.training.calibration", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=("train", "dev", "test"), help="kg's arXiv split (test: held out)")
    parser.add_argument("--bins", type=int, default=10, help="equal-width confidence bins (default 10)")
    parser.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS, help="claim classifier folder")
    args = parser.parse_args(argv)
    try:
        result = claim_reliability(args.split, args.weights, args.bins)
    except KgError as exc:
        print(f"kg: error: {exc}", file=sys.stderr)
        return exc.exit_code
    print(f"arXiv {result.split}: every sentence")
    print(format_table(result.sentences))
    print(f"\narXiv {result.split}: emitted claims (confidence >= threshold {result.threshold:.2f})")
    print(format_table(result.claims))
    return 0


if __name__ == "__main__":
    sys.exit(main())
