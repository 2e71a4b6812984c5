"""kg_claims: the sentences of an abstract that state the paper's findings.

Each sentence is scored by the claim classifier (``kg.extract.claims_model``,
shipped weights in ``kg/extract/weights/claims``, trained on CSAbstruct and
kg's arXiv annotation); those at or above its threshold are claims. A
claim's confidence is the classifier's calibrated probability that the
sentence is a claim: of the claims at 0.9, about nine in ten are (measured
with ``python -m kg.training.calibration``).

Sets ``doc._.kg_claims``: a list of :class:`kg.extract.spans.ClaimSpan`.
"""

from __future__ import annotations

from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.spans import ClaimSpan

__all__ = ["ClaimFinder"]

COMPONENT = "kg_claims"


class ClaimFinder:
    def __init__(self, weights: Path):
        from kg.extract.claims_model import ClaimClassifier

        self.classifier = ClaimClassifier.load(weights)

    def __call__(self, doc: Doc) -> Doc:
        sentences = [s for s in doc.sents if s.text.strip()]
        scores = self.classifier.score([s.text for s in sentences]) if sentences else []
        threshold = self.classifier.threshold
        doc._.kg_claims = [
            ClaimSpan(s.start_char, s.end_char, round(float(score), 4), f"{COMPONENT}#textcat")
            for s, score in zip(sentences, scores)
            if score >= threshold
        ]
        return doc


@Language.factory("kg_claims", default_config={"weights": ""})
def make_claim_finder(nlp: Language, name: str, weights: str) -> ClaimFinder:
    return ClaimFinder(Path(weights))
