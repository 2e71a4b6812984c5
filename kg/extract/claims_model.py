"""The claim classifier: how likely each sentence of an abstract is to state
one of the paper's findings (a result, a theorem, an observation).

Trained by :mod:`kg.training.train_claims` (config
``kg/training/configs/claims.cfg``) on CSAbstruct's rhetorical roles and on
the claim sentences of kg's own annotation of recent arXiv abstracts; the
shipped weights are in ``kg/extract/weights/claims``. It scores the sentences
of one abstract at a time, in three stages:

1. a spaCy bag-of-words ``textcat_multilabel`` gives each sentence a
   probability for each of :data:`LABELS`: the five rhetorical roles
   (:data:`ROLES`, taught by CSAbstruct) and ``claim`` (taught by both: a
   CSAbstruct ``result`` sentence, an annotated arXiv claim). It sees the
   lower-cased sentence with tokens for where it stands in the abstract in
   front (:func:`position_texts`: ``"xxpos4 xxlast we show that ..."``);
2. a logistic *context layer* (:class:`ContextLayer`) turns the label
   probabilities of the sentence and of its two neighbours, plus position
   features (:func:`context_features`), into a claim score: a sentence after
   a result is more likely a result;
3. a monotone map (:class:`Calibrator`, ``calibration.json``) turns that
   score into the probability that the sentence is a claim, fitted on
   predictions for abstracts the classifier had not been trained on.

:attr:`ClaimClassifier.threshold` (a calibrated probability) is the cut tuned
on kg's arXiv dev split. Scoring is deterministic: the same sentences always
get the same scores. Nothing here is imported by ``kg`` at start-up; spaCy is
loaded by :meth:`ClaimClassifier.load`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import ModelError

if TYPE_CHECKING:
    import numpy as np
    from spacy.language import Language

__all__ = [
    "CALIBRATION_FILE",
    "CLAIM_LABEL",
    "CONTEXT_FILE",
    "DEFAULT_WEIGHTS",
    "FEATURE_NAMES",
    "LABELS",
    "ROLES",
    "TEXTCAT_DIR",
    "Calibrator",
    "ClaimClassifier",
    "ContextLayer",
    "context_features",
    "position_texts",
]

#: The rhetorical roles the textcat predicts, in CSAbstruct's vocabulary.
ROLES = ("background", "objective", "method", "result", "other")
#: The textcat's own label for "this sentence is a claim".
CLAIM_LABEL = "claim"
#: Everything the textcat predicts, in the order the context layer reads it.
LABELS = (*ROLES, CLAIM_LABEL)
DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "weights" / "claims"
TEXTCAT_DIR = "textcat"
CONTEXT_FILE = "context.json"
CALIBRATION_FILE = "calibration.json"

_SHORT = {"background": "bg", "objective": "obj", "method": "meth", "result": "res", "other": "oth", "claim": "claim"}
#: The context layer's inputs, in order (``log_p_*``: log label probability
#: of the sentence, the previous one and the next one; ``*_none``: no such
#: neighbour; ``rel_pos``: index / (sentences - 1), 1.0 for a lone sentence).
FEATURE_NAMES = (
    *(f"self_log_p_{_SHORT[r]}" for r in LABELS),
    *(f"prev_log_p_{_SHORT[r]}" for r in LABELS),
    "prev_none",
    *(f"next_log_p_{_SHORT[r]}" for r in LABELS),
    "next_none",
    "rel_pos",
    "rel_pos_squared",
    "is_first",
    "is_last",
    "is_second_to_last",
    "length_min15_over10",
)


def _relative_position(index: int, count: int) -> float:
    return index / (count - 1) if count > 1 else 1.0


def position_texts(sentences: Sequence[str], buckets: int) -> list[str]:
    """What the textcat reads for each sentence of one abstract: the position
    tokens (``xxposB`` with B the bucket of the relative position, ``xxfirst``,
    ``xxlast``), then the sentence in lower case."""
    count = len(sentences)
    texts = []
    for index, sentence in enumerate(sentences):
        bucket = min(int(_relative_position(index, count) * buckets), buckets - 1)
        marks = [f"xxpos{bucket}"]
        if index == 0:
            marks.append("xxfirst")
        if index == count - 1:
            marks.append("xxlast")
        texts.append(" ".join(marks) + " " + " ".join(sentence.split()).lower())
    return texts


def context_features(label_probabilities: np.ndarray) -> np.ndarray:
    """The :data:`FEATURE_NAMES` row of each sentence of one abstract, from
    its ``(sentences, len(LABELS))`` label probabilities."""
    import numpy as np

    logp = np.log(np.clip(np.asarray(label_probabilities, dtype=np.float64), 1e-4, 1.0))
    count = len(logp)
    none = np.zeros(len(LABELS))
    rows = []
    for i in range(count):
        rel = _relative_position(i, count)
        prev = (logp[i - 1], [0.0]) if i > 0 else (none, [1.0])
        nxt = (logp[i + 1], [0.0]) if i < count - 1 else (none, [1.0])
        position = [rel, rel * rel, float(i == 0), float(i == count - 1), float(i == count - 2), min(count, 15) / 10]
        rows.append(np.concatenate([logp[i], prev[0], prev[1], nxt[0], nxt[1], position]))
    return np.array(rows, dtype=np.float64).reshape(count, len(FEATURE_NAMES))


@dataclass(frozen=True)
class ContextLayer:
    """Logistic regression over standardised :func:`context_features`:
    ``p = sigmoid(bias + sum(coef * (x - mean) / scale))``."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    bias: float
    feature_names: tuple[str, ...] = FEATURE_NAMES

    def __call__(self, features: np.ndarray) -> np.ndarray:
        import numpy as np

        z = (features - np.array(self.mean)) / np.array(self.scale)
        return 1.0 / (1.0 + np.exp(-(z @ np.array(self.coef) + self.bias)))

    @classmethod
    def fit(cls, features: np.ndarray, targets: np.ndarray, l2: float, iterations: int = 25) -> ContextLayer:
        """Maximum-likelihood fit with an L2 penalty (not on the bias), by
        Newton's method: deterministic, no learning rate to tune."""
        import numpy as np

        mean = features.mean(axis=0)
        scale = features.std(axis=0)
        scale[scale < 1e-9] = 1.0
        z = np.hstack([(features - mean) / scale, np.ones((len(features), 1))])
        penalty = np.full(z.shape[1], float(l2))
        penalty[-1] = 0.0
        w = np.zeros(z.shape[1])
        for _ in range(iterations):
            p = 1.0 / (1.0 + np.exp(-(z @ w)))
            gradient = z.T @ (p - targets) + penalty * w
            hessian = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty)
            step = np.linalg.solve(hessian, gradient)
            w -= step
            if np.abs(step).max() < 1e-10:
                break
        return cls(tuple(map(float, mean)), tuple(map(float, scale)), tuple(map(float, w[:-1])), float(w[-1]))

    def to_dict(self) -> dict:
        return {
            "feature_names": list(self.feature_names),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "bias": self.bias,
        }

    @classmethod
    def from_dict(cls, data: dict) -> ContextLayer:
        names = tuple(data["feature_names"])
        if names != FEATURE_NAMES:
            raise ModelError(f"context layer was fitted on features {names}, this kg computes {FEATURE_NAMES}")
        return cls(tuple(data["mean"]), tuple(data["scale"]), tuple(data["coef"]), float(data["bias"]), names)


@dataclass(frozen=True)
class Calibrator:
    """A non-decreasing map from the context layer's score to a probability.

    ``method`` is ``"isotonic"`` (the map is piecewise linear through the
    knots ``(x, y)``, flat beyond the ends: isotonic regression's blocks, each
    at its mean score), ``"platt"`` (``sigmoid(a * logit(score) + b)``, with
    ``x = (a,)`` and ``y = (b,)``) or ``"identity"``. The fits are in
    :mod:`kg.training.calibration`."""

    method: str
    x: tuple[float, ...] = ()
    y: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.method not in ("isotonic", "platt", "identity"):
            raise ModelError(f"unknown calibration method {self.method!r}; use isotonic, platt or identity")
        if self.method == "isotonic" and (
            not self.x
            or len(self.x) != len(self.y)
            or any(b < a for a, b in zip(self.x, self.x[1:]))
            or any(b < a for a, b in zip(self.y, self.y[1:]))
        ):
            raise ModelError("an isotonic calibration needs as many y as x knots, both non-decreasing")
        if self.method == "platt" and (len(self.x) != 1 or len(self.y) != 1 or self.x[0] < 0):
            raise ModelError("a Platt calibration needs one slope a >= 0 (x) and one intercept b (y)")

    def __call__(self, scores: np.ndarray | Sequence[float]) -> np.ndarray:
        import numpy as np

        scores = np.asarray(scores, dtype=np.float64)
        if self.method == "isotonic":
            return np.interp(scores, self.x, self.y)
        if self.method == "platt":
            clipped = np.clip(scores, 1e-6, 1 - 1e-6)
            return 1.0 / (1.0 + np.exp(-(self.x[0] * np.log(clipped / (1 - clipped)) + self.y[0])))
        return scores

    def to_dict(self) -> dict:
        return {"method": self.method, "x": list(self.x), "y": list(self.y)}

    @classmethod
    def from_dict(cls, data: dict) -> Calibrator:
        try:
            return cls(str(data["method"]), tuple(map(float, data.get("x", ()))), tuple(map(float, data.get("y", ()))))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"not a claim calibration ({exc})") from exc


IDENTITY = Calibrator("identity")


class ClaimClassifier:
    """Scores the sentences of one abstract: the calibrated probability that
    each states a finding of the paper. ``threshold`` (tuned on kg's arXiv
    dev split, on the calibrated scale) is the probability from which a
    sentence counts as a claim."""

    def __init__(
        self,
        nlp: Language,
        context: ContextLayer,
        threshold: float,
        position_buckets: int,
        calibrator: Calibrator = IDENTITY,
    ):
        self.nlp = nlp
        self.context = context
        self.threshold = float(threshold)
        self.position_buckets = int(position_buckets)
        self.calibrator = calibrator

    @classmethod
    def load(cls, path: str | Path = DEFAULT_WEIGHTS) -> ClaimClassifier:
        """Load weights written by :meth:`save` (by default, the shipped ones)."""
        import spacy

        path = Path(path)
        try:
            meta = json.loads((path / CONTEXT_FILE).read_text(encoding="utf-8"))
            calibration = json.loads((path / CALIBRATION_FILE).read_text(encoding="utf-8"))
            nlp = spacy.load(path / TEXTCAT_DIR)
            labels = tuple(nlp.get_pipe("textcat").labels)  # type: ignore[attr-defined]
        except (OSError, ValueError, KeyError) as exc:
            raise ModelError(
                f"cannot load the claim classifier from {path} ({exc}); rebuild it with `python -m kg.training.train_claims`"
            ) from exc
        if set(labels) != set(LABELS):
            raise ModelError(f"the claim textcat in {path} predicts {labels}, this kg reads {LABELS}")
        return cls(
            nlp,
            ContextLayer.from_dict(meta["context_layer"]),
            meta["threshold"],
            meta["position_buckets"],
            Calibrator.from_dict(calibration),
        )

    def save(self, path: str | Path, **metadata) -> None:
        """Write the textcat, ``calibration.json`` and ``context.json`` (layer,
        threshold, position buckets and any ``metadata``) into ``path``."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        self.nlp.to_disk(path / TEXTCAT_DIR)
        meta = {
            "threshold": self.threshold,
            "position_buckets": self.position_buckets,
            "labels": list(LABELS),
            "context_layer": self.context.to_dict(),
            **metadata,
        }
        (path / CONTEXT_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        (path / CALIBRATION_FILE).write_text(json.dumps(self.calibrator.to_dict(), indent=1) + "\n", encoding="utf-8")

    def label_probabilities(self, abstract_sentences: Sequence[str]) -> np.ndarray:
        """Stage 1: the ``(sentences, len(LABELS))`` label probabilities."""
        import numpy as np

        texts = position_texts(abstract_sentences, self.position_buckets)
        docs = self.nlp.pipe(texts, batch_size=max(len(texts), 1))
        return np.array([[doc.cats[r] for r in LABELS] for doc in docs], dtype=np.float64).reshape(len(texts), len(LABELS))

    def raw_scores(self, abstract_sentences: Sequence[str]) -> list[float]:
        """Stages 1 and 2: the context layer's score of each sentence, before calibration."""
        if not abstract_sentences:
            return []
        return [float(p) for p in self.context(context_features(self.label_probabilities(abstract_sentences)))]

    def score(self, abstract_sentences: Sequence[str]) -> list[float]:
        """The calibrated probability that each sentence of ONE abstract (in order) is a claim."""
        if not abstract_sentences:
            return []
        return [float(p) for p in self.calibrator(self.raw_scores(abstract_sentences))]

    def is_claim(self, abstract_sentences: Sequence[str]) -> list[bool]:
        """Whether each sentence scores at or above :attr:`threshold`."""
        return [s >= self.threshold for s in self.score(abstract_sentences)]

    def __repr__(self) -> str:
        return (
            f"ClaimClassifier(threshold={self.threshold:.2f}, position_buckets={self.position_buckets}, "
            f"calibration={self.calibrator.method})"
        )
