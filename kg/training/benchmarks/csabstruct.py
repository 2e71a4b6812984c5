"""CSAbstruct (Cohan et al. 2019): the rhetorical role of every sentence of
2,189 computer-science abstracts (``background``, ``objective``, ``method``,
``result``, ``other``).

kg trains its claim classifier on it: a sentence labelled ``result`` is a claim
(:data:`CLAIM_LABEL`), every other label is not.

The files live outside the package, in ``shared/benchmarks/csabstruct`` beside
the repository (its README gives source, license and schema). The official test
split repeats 26 abstracts of train and 6 of dev verbatim; by default
:func:`load_csabstruct` drops them from ``test`` (matched by normalised text) so
that a reported figure is measured on unseen abstracts, and says which it
dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kg.errors import CorpusError
from kg.training.benchmarks import benchmark_rows

__all__ = [
    "CLAIM_LABEL",
    "LABELS",
    "SPLITS",
    "CsAbstract",
    "CsAbstructSplit",
    "load_csabstruct",
    "normalise_abstract",
]

SPLITS = ("train", "dev", "test")
LABELS = ("background", "objective", "method", "result", "other")
CLAIM_LABEL = "result"


@dataclass(frozen=True)
class CsAbstract:
    """One abstract: its sentences, the role of each, and the annotators'
    agreement on each role (between 0 and 1; all three the same length)."""

    doc_id: str
    sentences: tuple[str, ...]
    labels: tuple[str, ...]
    confidences: tuple[float, ...] = ()

    @property
    def claims(self) -> tuple[bool, ...]:
        """Whether each sentence is a claim (labelled ``result``)."""
        return tuple(label == CLAIM_LABEL for label in self.labels)


@dataclass(frozen=True)
class CsAbstructSplit:
    """The abstracts of one split, and the ``doc_id`` of each one dropped as a
    duplicate of an abstract in another split."""

    split: str
    abstracts: tuple[CsAbstract, ...]
    dropped: tuple[str, ...] = ()

    @property
    def n_dropped(self) -> int:
        return len(self.dropped)

    def __len__(self) -> int:
        return len(self.abstracts)

    def __iter__(self):
        return iter(self.abstracts)


def normalise_abstract(sentences: tuple[str, ...] | list[str]) -> str:
    """The text used to match duplicates: case-folded, whitespace collapsed."""
    return re.sub(r"\s+", " ", " ".join(sentences)).strip().casefold()


def _read(split: str, root: str | Path | None) -> tuple[CsAbstract, ...]:
    abstracts = []
    for path, number, row in benchmark_rows(root, "csabstruct", split):
        try:
            abstract = CsAbstract(
                doc_id=str(row["doc_id"]),
                sentences=tuple(row["sentences"]),
                labels=tuple(row["labels"]),
                confidences=tuple(float(c) for c in row.get("confs", ())),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise CorpusError(f"{path}:{number}: not a CSAbstruct record ({exc})") from exc
        if (
            len(abstract.sentences) != len(abstract.labels)
            or len(abstract.confidences) not in (0, len(abstract.labels))
            or not set(abstract.labels) <= set(LABELS)
        ):
            raise CorpusError(f"{path}:{number}: sentences and labels do not match")
        abstracts.append(abstract)
    return tuple(abstracts)


def load_csabstruct(split: str, root: str | Path | None = None, deduplicate: bool = True) -> CsAbstructSplit:
    """Read one split (``train``, ``dev`` or ``test``) of CSAbstruct.

    With ``deduplicate`` (the default), ``test`` loses every abstract whose
    normalised text also occurs in ``train`` or ``dev``; the result's
    ``dropped`` lists their ``doc_id``. Other splits are returned whole.
    """
    if split not in SPLITS:
        raise CorpusError(f"unknown CSAbstruct split {split!r}; use one of {', '.join(SPLITS)}")
    abstracts = _read(split, root)
    if not (deduplicate and split == "test"):
        return CsAbstructSplit(split, abstracts)
    seen = {normalise_abstract(a.sentences) for other in ("train", "dev") for a in _read(other, root)}
    kept = tuple(a for a in abstracts if normalise_abstract(a.sentences) not in seen)
    dropped = tuple(a.doc_id for a in abstracts if normalise_abstract(a.sentences) in seen)
    return CsAbstructSplit(split, kept, dropped)
