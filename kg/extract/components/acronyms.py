"""kg_acronyms: short forms defined in an abstract, resolved to their long forms.

Finds "long form (SF)" and "SF (long form)" definitions with the
Schwartz–Hearst algorithm (Schwartz & Hearst 2003, the method scispacy's
abbreviation detector also uses), so that "HYPerspherical OOD generalization
(HYPO)" and every later "HYPO" point to one concept.

Sets ``doc._.kg_acronyms``: a list of ``Acronym`` tuples (character offsets of
the short and long form in the doc, and their texts), first definition of
each short form only.
"""

from __future__ import annotations

from typing import NamedTuple

from spacy.language import Language
from spacy.tokens import Doc, Span

__all__ = ["Acronym", "AcronymDetector", "find_acronyms", "best_long_form", "looks_like_short_form"]

MAX_SHORT_FORM_CHARS = 10
MAX_INNER_TOKENS = 8


class Acronym(NamedTuple):
    short_start: int
    short_end: int
    long_start: int
    long_end: int
    short: str
    long: str


def looks_like_short_form(text: str) -> bool:
    return (
        2 <= len(text) <= MAX_SHORT_FORM_CHARS
        and text[0].isalnum()
        and any(c.isupper() for c in text)
        and not text.isdigit()
        and len(text.split()) == 1
    )


def initials_long_form(short: str, candidate: str) -> str | None:
    """The last words of ``candidate`` whose initials spell ``short`` (hyphenated
    parts count as words): "Probabilistic Principal Component Analysis" for
    PPCA, where Schwartz–Hearst alone stops at "Principal ...". A plural "s"
    of the short form ("LLMs") is ignored."""
    letters = short[:-1] if short.endswith("s") and short[:-1].isupper() else short
    letters = "".join(c for c in letters if c.isalpha()).lower()
    words = candidate.split()
    for count in range(1, len(words) + 1):
        tail = words[-count:]
        initials = "".join(part[0] for word in tail for part in word.split("-") if part).lower()
        if initials == letters:
            return " ".join(tail)
        if len(initials) > len(letters):
            return None
    return None


def best_long_form(short: str, candidate: str) -> str | None:
    """Initials first, then Schwartz–Hearst: the shortest suffix of ``candidate`` (starting at a word)
    in which the short form's characters appear in order, its first character
    at the start of a word. None when there is none."""
    s, c = len(short) - 1, len(candidate) - 1
    if by_initials := initials_long_form(short, candidate):
        return by_initials
    while s >= 0:
        char = short[s].lower()
        if not char.isalnum():
            s -= 1
            continue
        while c >= 0 and (candidate[c].lower() != char or (s == 0 and c > 0 and candidate[c - 1].isalnum())):
            c -= 1
        if c < 0:
            return None
        c -= 1
        s -= 1
    start = candidate.rfind(" ", 0, c + 1) + 1
    long_form = candidate[start:]
    if len(long_form) <= len(short) or long_form.lower() == short.lower():
        return None
    return long_form


def _window(span: Span, short: str) -> Span:
    """The words before a parenthesis that may hold a long form of ``short``."""
    max_words = min(len(short) + 5, len(short) * 2)
    words, start = 0, span.end
    while start > span.sent.start and words < max_words:
        token = span.doc[start - 1]
        if token.text in {".", ";", ":", "(", ")", "[", "]"} or (token.text == "," and words > 0):
            break
        start -= 1
        if not token.is_punct:
            words += 1
    return span.doc[start : span.end]


def find_acronyms(doc: Doc) -> list[Acronym]:
    found: dict[str, Acronym] = {}
    for open_paren in (t for t in doc if t.text == "("):
        close = next((t.i for t in doc[open_paren.i + 1 : open_paren.i + 2 + MAX_INNER_TOKENS] if t.text == ")"), None)
        if close is None or close == open_paren.i + 1:
            continue
        inner = doc[open_paren.i + 1 : close]
        end = open_paren.i
        while end > open_paren.sent.start and doc[end - 1].tag_ == "POS":  # "guiding large language models' (LLMs) behaviour"
            end -= 1
        before = doc[open_paren.sent.start : end]
        if looks_like_short_form(inner.text) and len(before):
            window = _window(before, inner.text)
            long_form = best_long_form(inner.text, window.text)
            if long_form:
                long_start = window.end_char - len(long_form)
                definition = Acronym(inner.start_char, inner.end_char, long_start, window.end_char, inner.text, long_form)
                found.setdefault(inner.text, definition)
        elif len(before) and looks_like_short_form(before[-1].text) and len(inner) > 1:
            short = before[-1]
            long_form = best_long_form(short.text, inner.text)
            if long_form:
                long_start = inner.end_char - len(long_form)
                definition = Acronym(short.idx, short.idx + len(short), long_start, inner.end_char, short.text, long_form)
                found.setdefault(short.text, definition)
    return sorted(found.values())


class AcronymDetector:
    """Sets ``doc._.kg_acronyms`` (list of :class:`Acronym`)."""

    def __call__(self, doc: Doc) -> Doc:
        doc._.kg_acronyms = find_acronyms(doc)
        return doc


@Language.factory("kg_acronyms")
def make_acronym_detector(nlp: Language, name: str) -> AcronymDetector:
    return AcronymDetector()
