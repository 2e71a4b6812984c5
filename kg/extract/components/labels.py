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
_ACRONYM = re.compile(r"^[A-Z][A-Z0-9]+s?$")
_BRITISH_IZATION = re.compile(r"(?<=[a-z])isation(?=s?\b)")


def is_plain_phrase(text: str) -> bool:
    """True when no word has a capital past its first letter ("Large Language
    Models", "out-of-distribution"), false for coined names ("HYPerspherical")."""
    words = [w for w in text.split() if not _ACRONYM.match(w)]  # "OOD" is a short form, not a coined name
    return all(part[1:] == part[1:].lower() for word in words for part in word.split("-") if part)


def singular(token: Token) -> str:
    if _PLURAL_ACRONYM.match(token.text):
        return token.text[:-1]
    if token.tag_ in {"NNS", "NNPS"} and token.text[1:].islower():
        lemma = token.lemma_.lower() if token.lemma_.lower() != token.lower_ else _plural_to_singular(token.lower_)
        return lemma[:1].upper() + lemma[1:] if token.text[:1].isupper() else lemma
    return token.text


def _plural_to_singular(word: str) -> str:
    """English plural rules for words the lemmatizer leaves alone (proper nouns: "Models")."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _is_title_word(word: str) -> bool:
    parts = [p for p in word.split("-") if p.isalpha() and len(p) > 2]
    return bool(parts) and all(p[0].isupper() and p[1:].islower() for p in parts)


def _lower_ordinary_capitals(label: str) -> str:
    """Lower capitals that only mark a sentence start ("Diffusion models") or a
    wholly title-cased phrase ("Large Language Models"); "Waymo Open dataset"
    keeps its capitals."""
    words = label.split(" ")
    titled = [_is_title_word(w) for w in words]
    # Upper-case short forms ("OOD Detection") neither start nor break a title-cased phrase.
    ordinary = [t for w, t in zip(words, titled) if not (w.isupper() and len(w) > 1)]
    if ordinary and all(ordinary):
        return " ".join(w.lower() if t else w for w, t in zip(words, titled))
    first = words[0]
    capitalised = titled[0] or (first[:1].isupper() and first[1:] == first[1:].lower())
    if capitalised and not any(titled[1:]):
        return " ".join([first.lower(), *words[1:]])
    return label


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
    all_plain = is_plain_phrase("".join(t.text_with_ws for t in tokens))
    parts = []
    for position, token in enumerate(tokens):
        is_last = position == len(tokens) - 1
        text = singular(token) if is_last else token.text
        if not all_plain:
            text = expansions.get(text, text)
        parts.append(text + (token.whitespace_ if not is_last else ""))
    label = re.sub(r"\s+", " ", "".join(parts)).strip()
    if not all_plain:
        return label
    label = _BRITISH_IZATION.sub("ization", _lower_ordinary_capitals(label))
    return " ".join(expansions.get(word, word) for word in label.split(" "))
