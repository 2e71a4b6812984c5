"""More gold-like training text from the gold itself: mention replacement.

Dai and Adel (2020, "An Analysis of Simple Data Augmentation for Named Entity
Recognition") replace each gold mention, with some probability, by another
mention of the same label drawn from the training set; the sentence around
it stays as written. The recogniser then sees each context with other names
in it, which helps most when, as with SciERC's 350 abstracts, the gold is
small. :func:`kg.extract.train.train_ner` gives the student one plain copy of
the gold and the others so altered (see the variants table there).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["mention_pool", "replace_mentions"]


def mention_pool(docs: Iterable[Doc]) -> dict[str, list[str]]:
    """Label -> the surface text of every gold mention with it, in document order."""
    pool: dict[str, list[str]] = {}
    for doc in docs:
        for ent in doc.ents:
            pool.setdefault(ent.label_, []).append(ent.text)
    return pool


def replace_mentions(nlp: Language, doc: Doc, pool: dict[str, list[str]], rng: random.Random, probability: float) -> Doc:
    """A new doc (tokenised by ``nlp``) in which each of ``doc.ents`` is, with
    ``probability``, replaced by a mention of its label drawn from ``pool``;
    the text between mentions is kept as it is."""
    pieces: list[str] = []
    mentions: list[tuple[int, int, str]] = []
    length = last = 0
    for ent in doc.ents:
        before = doc.text[last : ent.start_char]
        surface = rng.choice(pool[ent.label_]) if rng.random() < probability else ent.text
        mentions.append((length + len(before), length + len(before) + len(surface), ent.label_))
        pieces += [before, surface]
        length += len(before) + len(surface)
        last = ent.end_char
    pieces.append(doc.text[last:])
    new = nlp.make_doc("".join(pieces))
    # The new text may tokenise differently at a drawn mention's edges: widen
    # it to whole tokens, as the SciERC conversion does, and drop it in the
    # rare case that widening runs into the mention before.
    kept, end_token = [], 0
    for start, end, label in mentions:
        span = new.char_span(start, end, label=label, alignment_mode="expand")
        if span is not None and span.start >= end_token:
            kept.append(span)
            end_token = span.end
    new.ents = kept
    return new
