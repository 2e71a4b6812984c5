"""Strict scoring of extracted spans and relations: precision, recall, F1.

Everything works on sets of plain tuples whose *last* element is the label,
so one function scores entities ``(doc_id, start, end, label)``, kg's own
concept mentions and relations ``(doc_id, head_start, head_end, tail_start,
tail_end, label)`` alike. A prediction counts only when its whole tuple is in
the gold set (exact boundaries and label): micro-averaged over all tuples,
and per label.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["Score", "Scores", "doc_entities", "prf", "score_entities"]


@dataclass(frozen=True)
class Score:
    """Precision, recall and F1 (0..1) from the three counts behind them."""

    precision: float
    recall: float
    f1: float
    gold: int
    predicted: int
    correct: int

    def as_row(self) -> str:
        """``P / R / F1`` in percent, with the counts."""
        return (
            f"P {100 * self.precision:5.1f}  R {100 * self.recall:5.1f}  F1 {100 * self.f1:5.1f}"
            f"  (gold {self.gold}, predicted {self.predicted}, correct {self.correct})"
        )


@dataclass(frozen=True)
class Scores:
    """The micro-averaged score over every label, and one per label."""

    overall: Score
    per_label: dict[str, Score] = field(default_factory=dict)


def prf(gold: set, predicted: set) -> Score:
    """Strict micro precision / recall / F1 of ``predicted`` against ``gold``."""
    correct = len(gold & predicted)
    precision = correct / len(predicted) if predicted else 0.0
    recall = correct / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Score(precision, recall, f1, len(gold), len(predicted), correct)


def score_entities(gold: Iterable[tuple], predicted: Iterable[tuple]) -> Scores:
    """Overall and per-label strict scores of tuples whose last element is the label.

    Labels are those found in either set; a label only ever predicted gets a
    row with ``gold == 0``.
    """
    gold, predicted = set(gold), set(predicted)
    labels = sorted({t[-1] for t in gold} | {t[-1] for t in predicted})
    per_label = {label: prf({t for t in gold if t[-1] == label}, {t for t in predicted if t[-1] == label}) for label in labels}
    return Scores(prf(gold, predicted), per_label)


def doc_entities(doc_id: str, doc, spans_key: str | None = None) -> set[tuple]:
    """A spaCy Doc's entities (or ``doc.spans[spans_key]``) as
    ``(doc_id, start_char, end_char, label)`` tuples."""
    spans = doc.ents if spans_key is None else doc.spans[spans_key]
    return {(doc_id, span.start_char, span.end_char, span.label_) for span in spans}
