"""Canonical labels for concept spans, within one abstract.

"Out-of-Distribution (OOD) generalization", "OOD generalization" and
"out-of-distribution generalizations" all get "out-of-distribution
generalization": the parenthesised short form is dropped, defined short forms
are expanded when their long form is an ordinary phrase, a sentence-initial
capital is lowered, and the head noun is made singular. Names keep their case
("LoRA", "Waymo Open", "GPT-4").
"""

from __future__ import annotations

import re

from spacy.tokens import Span, Token

__all__ = ["canonical_label", "is_plain_phrase", "singular"]

_PLURAL_ACRONYM = re.compile(r"^[A-Z][A-Z0-9\-]*[A-Z0-9]s$")


def is_plain_phrase(text: str) -> bool:
    """True when no word has a capital past its first letter ("Large Language
    Models", "out-of-distribution"), false for coined names ("HYPerspherical")."""
    return all(part[1:] == part[1:].lower() for word in text.split() for part in word.split("-") if part)


def singular(token: Token) -> str:
    if _PLURAL_ACRONYM.match(token.text):
        return token.text[:-1]
    if token.tag_ in {"NNS", "NNPS"} and token.text.islower() and token.lemma_:
        return token.lemma_
    return token.text


def _lower_if_ordinary(text: str, first: bool, title_words: int) -> str:
    # A capital that only marks a sentence start, or a title-cased phrase, is not part of the name.
    if text[:1].isupper() and text[1:] == text[1:].lower() and (first or title_words > 1):
        return text.lower()
    return text


def canonical_label(span: Span, expansions: dict[str, str] | None = None) -> str:
    """The label of ``span``; ``expansions`` maps short forms to the labels of their long forms."""
    expansions = expansions or {}
    tokens: list[Token] = []
    skip_until = -1
    for token in span:
        if token.i <= skip_until:
            continue
        if token.text == "(":  # drop a parenthesised short form inside the span
            close = next((t.i for t in span if t.i > token.i and t.text == ")"), None)
            if close is not None:
                skip_until = close
                continue
        tokens.append(token)
    if not tokens:
        return span.text
    all_plain = is_plain_phrase(" ".join(t.text for t in tokens))
    title_words = sum(1 for t in tokens if t.text[:1].isupper() and t.text[1:] == t.text[1:].lower())
    parts = []
    for position, token in enumerate(tokens):
        is_last = position == len(tokens) - 1
        text = singular(token) if is_last else token.text
        if text in expansions:
            text = expansions[text]
        elif all_plain:
            text = _lower_if_ordinary(text, position == 0, title_words)
        parts.append(text + (token.whitespace_ if not is_last else ""))
    label = "".join(parts)
    return re.sub(r"\s+", " ", label).strip()
