"""kg_proposed: which concepts the paper itself introduces.

A concept is proposed when the paper names it as its own contribution:
"we propose/introduce/present X", "X, a novel ...", "dubbed/called X". Every
mention of a proposed concept's label is marked, so "LoRA3D" is proposed
throughout the LoRA3D abstract.

:func:`introduced_names` is shared with kg_concepts, which uses it to find
names the paper coins (and their type: a benchmark or dataset when the text
says so, else a method).
"""

from __future__ import annotations

import re

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from kg.extract.spans import ConceptSpan

__all__ = ["ProposedMarker", "introduced_names", "is_name_like", "name_span"]

INTRODUCING_VERBS = {"propose", "introduce", "present", "develop", "design", "build", "create", "construct", "release", "curate", "collect", "contribute"}
NAMING_VERBS = {"dub", "call", "name", "term", "coin"}
NEW_WORDS = {"novel", "new", "first"}
DATASET_HEADS = {"benchmark", "dataset", "corpus", "suite", "testbed", "database"}
_NAME_SHAPE = re.compile(r"[A-Z].*[A-Z0-9]|[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]")


def is_name_like(token: Token) -> bool:
    """A coined name: capitals past the first letter, or letters with digits."""
    return bool(_NAME_SHAPE.search(token.text)) and any(c.isalpha() for c in token.text)


def _capitalised(token: Token) -> bool:
    return token.text[:1].isupper() and not token.is_sent_start and token.pos_ in {"PROPN", "NOUN", "ADJ"}


def _name_tokens(root: Token) -> list[Span]:
    """Names in the phrase headed by ``root`` (not inside its clauses): coined
    tokens ("LoRA3D") and runs of capitalised words ("Data Maps")."""
    tokens = []
    stack = [root]
    while stack:
        token = stack.pop()
        tokens.append(token)
        stack.extend(c for c in token.children if c.dep_ not in {"relcl", "acl", "advcl", "ccomp"} and not (c.dep_ == "prep" and c.lower_ != "as"))
    names, run = [], []
    for token in sorted(tokens, key=lambda t: t.i) + [None]:
        if token is not None and _capitalised(token) and (not run or token.i == run[-1].i + 1):
            run.append(token)
            continue
        if len(run) > 1:
            names.append(_with_hyphenated_start(run[0].doc[run[0].i : run[-1].i + 1]))
        elif run and is_name_like(run[0]):
            names.append(name_span(run[0]))
        run = [token] if token is not None and _capitalised(token) else []
        if token is not None and not run and is_name_like(token):
            names.append(name_span(token))
    return names


def _with_hyphenated_start(span: Span) -> Span:
    """"Retrieval-Augmented Semantic Parsing", not "Augmented Semantic Parsing"."""
    doc, start = span.doc, span.start
    while start >= 2 and doc[start - 1].text == "-" and not doc[start - 1].whitespace_ and not doc[start - 2].whitespace_ and doc[start - 2].text[:1].isupper():
        start -= 2
    return doc[start : span.end]


def _type_hint(root: Token) -> str:
    heads = [root, *(c for c in root.children if c.dep_ == "appos")]
    if root.dep_ == "appos":
        heads.append(root.head)
    return "Dataset" if any(t.lemma_.lower() in DATASET_HEADS for t in heads) else "Method"


def name_span(token: Token) -> Span:
    """The name with any hyphen-joined parts ("SC-OmniGS", "GPT-4")."""
    doc = token.doc
    start, end = token.i, token.i + 1
    while start >= 2 and doc[start - 1].text == "-" and not doc[start - 1].whitespace_ and not doc[start - 2].whitespace_:
        start -= 2
    while end + 1 < len(doc) and doc[end].text == "-" and not doc[end - 1].whitespace_ and not doc[end].whitespace_:
        end += 2
    return doc[start:end]


def _subject_is_we(verb: Token) -> bool:
    """"we propose X", and "we investigate Y and introduce X" (the subject is the first verb's)."""
    while True:
        if any(c.dep_ == "nsubj" and c.lower_ == "we" for c in verb.children):
            return True
        if verb.dep_ != "conj" or verb.head.pos_ not in {"VERB", "AUX"}:
            return False
        verb = verb.head


def introduced_names(doc: Doc) -> list[tuple[Span, str, str]]:
    """(name span, type hint, rule id) for every name the abstract introduces."""
    found: dict[int, tuple[Span, str, str]] = {}
    for verb in doc:
        lemma = verb.lemma_.lower()
        if lemma in INTRODUCING_VERBS and _subject_is_we(verb):
            for obj in (c for c in verb.children if c.dep_ in {"dobj", "attr"}):
                for name in _name_tokens(obj):
                    found.setdefault(name.start, (name, _type_hint(obj), "we-propose"))
                # "a solution for X, LM-Infinite, which ...": a name in apposition deeper in the phrase.
                for token in obj.subtree:
                    if token.dep_ == "appos" and is_name_like(token):
                        name = name_span(token)
                        found.setdefault(name.start, (name, _type_hint(obj), "we-propose"))
        elif lemma in NAMING_VERBS and verb.tag_ in {"VBN", "VBD", "VBZ", "VBP"}:
            for name in (t for c in verb.children if c.dep_ in {"oprd", "dobj", "attr", "xcomp"} for t in c.subtree):
                if is_name_like(name):
                    found.setdefault(name.i, (name_span(name), "Method", "dubbed"))
    for token in doc:
        appositions = [c for c in token.children if c.dep_ == "appos"]
        for appos in appositions:
            new = any(c.lower_ in NEW_WORDS for c in appos.children)
            if new and is_name_like(token):
                found.setdefault(token.i, (name_span(token), _type_hint(appos), "name-a-novel"))
    return sorted(found.values(), key=lambda item: item[0].start)


class ProposedMarker:
    """Marks ``proposed`` on ``doc._.kg_concepts`` whose label the paper introduces."""

    def __call__(self, doc: Doc) -> Doc:
        concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
        introduced = {(span.start_char, span.end_char) for span, _, _ in introduced_names(doc)}
        labels = {c.label for c in concepts if any(s < c.end and c.start < e for s, e in introduced)}
        doc._.kg_concepts = [c._replace(proposed=c.label in labels) for c in concepts]
        return doc


@Language.factory("kg_proposed")
def make_proposed_marker(nlp: Language, name: str) -> ProposedMarker:
    return ProposedMarker()
