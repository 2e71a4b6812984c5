"""SciERC (Luan et al. 2018): entities, relations and coreference in 500
computer-science abstracts (350 train / 50 dev / 100 test).

kg trains its concept recogniser on it. The files live outside the package,
in ``shared/benchmarks/scierc`` beside the repository (its README gives the
source, the schema and the published results). They are PTB-tokenised
(``-LRB-``, `````` ... ``''``); :func:`load_scierc` turns every abstract back
into natural text (:func:`detokenise`) and moves the entity offsets with it,
so a model trained on it sees what it will see in our corpus.

Two facts about the gold standard matter when training a spaCy ``ner``,
which holds one flat layer of entities on spaCy tokens; :func:`to_docs`
handles both and counts them (:class:`ConversionStats`):

* nested and overlapping mentions ("Recognition of proper nouns" contains
  "proper nouns"): only the longest of each overlapping group is kept
  (ties: the earlier). Scoring is still against *all* gold mentions
  (:func:`gold_entities`), so a dropped one counts as a miss;
* a mention whose ends are not spaCy token boundaries is widened to the
  enclosing tokens (``alignment_mode="expand"``) for training; it can never
  be predicted exactly, so it too is a miss when scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import CorpusError
from kg.training.benchmarks import benchmark_rows

if TYPE_CHECKING:  # spaCy stays out of import time
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = [
    "LABELS",
    "SPLITS",
    "ConversionStats",
    "SciercDoc",
    "SciercEntity",
    "SciercRelation",
    "detokenise",
    "gold_entities",
    "load_scierc",
    "to_docs",
]

SPLITS = ("train", "dev", "test")
LABELS = ("Method", "OtherScientificTerm", "Generic", "Task", "Material", "Metric")


# PTB escapes and their natural forms.
_PTB = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
    "``": '"',
    "''": '"',
    "`": "'",
}
# Tokens written with no space before them (PTB form): closing punctuation,
# closing quotes and clitics.
_NO_SPACE_BEFORE = {
    ",",
    ".",
    ";",
    ":",
    "?",
    "!",
    "%",
    "...",
    "-RRB-",
    "-RSB-",
    "-RCB-",
    ")",
    "]",
    "}",
    "''",
    "'",
    "'s",
    "'S",
    "n't",
    "N'T",
    "'re",
    "'ve",
    "'ll",
    "'d",
    "'m",
}
# Tokens written with no space after them: opening brackets and quotes.
_NO_SPACE_AFTER = {"-LRB-", "-LSB-", "-LCB-", "(", "[", "{", "``", "`"}


@dataclass(frozen=True)
class SciercEntity:
    """A mention: ``text[start:end]`` of its document (character offsets)."""

    start: int
    end: int
    label: str
    text: str


@dataclass(frozen=True)
class SciercRelation:
    """A binary relation; ``head`` and ``tail`` index the document's entities."""

    head: int
    tail: int
    label: str


@dataclass(frozen=True)
class SciercDoc:
    """One abstract as natural text, with every offset a character offset into it."""

    doc_key: str
    text: str
    sentences: tuple[tuple[int, int], ...]
    entities: tuple[SciercEntity, ...]
    relations: tuple[SciercRelation, ...] = ()
    clusters: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class ConversionStats:
    """What :func:`to_docs` did to the gold mentions.

    ``entities``: mentions considered (after the label filter); ``kept``: put
    on ``doc.ents``; ``nested_dropped``: left out because they overlap a longer
    kept mention; ``expanded``: mentions whose ends are not spaCy token
    boundaries, widened to the enclosing tokens (these can never be predicted
    exactly); ``unalignable``: mentions that even widening could not place.
    """

    docs: int
    entities: int
    kept: int
    nested_dropped: int
    expanded: int
    unalignable: int


def detokenise(tokens: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """Natural text from PTB tokens, and each token's ``(start, end)`` in it.

    Brackets and quotes get their plain forms; there is no space before
    closing punctuation, closing brackets and quotes, ``'s`` and ``n't``, and
    none after opening brackets and quotes.
    """
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    offset = 0
    previous: str | None = None
    for token in tokens:
        surface = _PTB.get(token, token)
        if previous is not None and token not in _NO_SPACE_BEFORE and previous not in _NO_SPACE_AFTER:
            parts.append(" ")
            offset += 1
        parts.append(surface)
        spans.append((offset, offset + len(surface)))
        offset += len(surface)
        previous = token
    return "".join(parts), spans


def _parse(row: dict) -> SciercDoc:
    tokens = row["tokens"]
    text, spans = detokenise(tokens)
    entities = []
    for entity in row["entities"]:
        start, end = spans[entity["start"]][0], spans[entity["end"] - 1][1]
        entities.append(SciercEntity(start, end, entity["label"], text[start:end]))
    sentences = tuple((spans[start][0], spans[end - 1][1]) for start, end in row["sentence_spans"] if end > start)
    relations = tuple(SciercRelation(r["head"], r["tail"], r["label"]) for r in row["relations"])
    clusters = tuple(tuple(cluster) for cluster in row.get("clusters", ()))
    return SciercDoc(str(row["doc_key"]), text, sentences, tuple(entities), relations, clusters)


def load_scierc(split: str, root: str | Path | None = None) -> list[SciercDoc]:
    """Read one split (``train``, ``dev`` or ``test``) of SciERC, detokenised.

    ``root`` is the folder holding ``scierc/`` (default :data:`DEFAULT_ROOT`).
    """
    if split not in SPLITS:
        raise CorpusError(f"unknown SciERC split {split!r}; use one of {', '.join(SPLITS)}")
    docs = []
    for path, number, row in benchmark_rows(root, "scierc", split):
        try:
            docs.append(_parse(row))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise CorpusError(f"{path}:{number}: not a SciERC record ({exc!r})") from exc
    return docs


def gold_entities(docs: Iterable[SciercDoc], labels: Iterable[str] | None = None) -> set[tuple]:
    """Every gold mention, nested ones included, as ``(doc_key, start, end, label)``."""
    wanted = set(labels) if labels is not None else None
    return {(doc.doc_key, e.start, e.end, e.label) for doc in docs for e in doc.entities if wanted is None or e.label in wanted}


def to_docs(nlp: Language, docs: Iterable[SciercDoc], labels: Iterable[str] | None = None) -> tuple[list[Doc], ConversionStats]:
    """spaCy Docs (tokenised by ``nlp``'s tokenizer, nothing else run) whose
    ``doc.ents`` hold the gold mentions a flat ``ner`` can learn, with counts.

    Each mention is placed on spaCy tokens, widened to the enclosing tokens
    when its ends fall inside one; of overlapping mentions the longest is
    kept (ties: the earlier one). ``doc.user_data["doc_key"]`` is the SciERC
    key. ``labels`` keeps only those labels (default: all).
    """
    wanted = set(labels) if labels is not None else None
    out: list[Doc] = []
    n_docs = n_entities = kept_total = nested = expanded = unalignable = 0
    for sdoc in docs:
        doc = nlp.make_doc(sdoc.text)
        doc.user_data["doc_key"] = sdoc.doc_key
        n_docs += 1
        candidates = []
        for e in sdoc.entities:
            if wanted is not None and e.label not in wanted:
                continue
            n_entities += 1
            span = doc.char_span(e.start, e.end, label=e.label)
            if span is None:
                span = doc.char_span(e.start, e.end, label=e.label, alignment_mode="expand")
                if span is None or len(span) == 0:
                    unalignable += 1
                    continue
                expanded += 1
            candidates.append(span)
        taken: set[int] = set()
        kept = []
        for span in sorted(candidates, key=lambda s: (-(s.end - s.start), s.start)):
            tokens = range(span.start, span.end)
            if taken.isdisjoint(tokens):
                taken.update(tokens)
                kept.append(span)
            else:
                nested += 1
        doc.ents = sorted(kept, key=lambda s: s.start)
        kept_total += len(kept)
        out.append(doc)
    return out, ConversionStats(n_docs, n_entities, kept_total, nested, expanded, unalignable)
