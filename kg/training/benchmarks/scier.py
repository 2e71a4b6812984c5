"""SciER (Zhang et al. 2024): Method, Dataset and Task mentions and 9 relation
types in sentences of 106 full-text machine-learning papers. **GPL-3.0**:
weights that learn from it carry its notice (``kg/extract/weights/*/LICENSE``).

The files live in ``shared/benchmarks/scier`` (its README: source, schema,
how the train offsets were recovered). Their text is the source's tokens
joined by spaces (``top - left corner``, ``4 2 . 2 %``). Benchmark figures are
measured on that text as it is, so they compare with published ones;
:func:`detokenise` rewrites it as prose (``top-left corner``, ``42.2%``) with
the offsets moved, for training a model that reads abstracts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kg.training.benchmarks import benchmark_rows

__all__ = ["SPLITS", "LABELS", "RELATIONS", "SciERSentence", "load_scier", "detokenise", "map_relation"]

SPLITS = ("train", "dev", "test", "test_ood")
LABELS = ("Method", "Dataset", "Task")
#: SciER label -> kg relation by (head type, tail type); pairs not listed have no kg relation.
RELATIONS = {
    ("Used-For", "Method", "Task"): "usedFor",
    ("Used-For", "Method", "Method"): "uses",
    ("Evaluated-With", "Method", "Dataset"): "evaluatedOn",
    ("Compare-With", "Method", "Method"): "comparedWith",
    ("Benchmark-For", "Dataset", "Task"): "benchmarkFor",
    ("Trained-With", "Method", "Dataset"): "trainedOn",
}


@dataclass(frozen=True)
class SciERSentence:
    doc_id: str
    index: int
    text: str
    entities: tuple[tuple[int, int, str], ...]  # (start, end, type), character offsets
    relations: tuple[tuple[int, str, int], ...]  # (head entity, SciER label, tail entity)


#: SciER's direction is the reverse of kg's: "dropout Used-For BERT" is "BERT uses dropout".
_REVERSED = {("Used-For", "Method", "Method")}


def map_relation(label: str, head_type: str, tail_type: str) -> tuple[str, bool] | None:
    """(kg relation, reversed) for a SciER relation, or None. Reversed means
    kg's head is SciER's tail ("MNIST Evaluated-With CNN" is the CNN's;
    "dropout Used-For BERT" is "BERT uses dropout")."""
    if (kind := RELATIONS.get((label, head_type, tail_type))) is not None:
        return kind, (label, head_type, tail_type) in _REVERSED
    if (kind := RELATIONS.get((label, tail_type, head_type))) is not None:
        return kind, True
    return None


def load_scier(split: str, root: str | Path | None = None) -> Iterator[SciERSentence]:
    """The sentences of one split, in file order."""
    for _path, _number, row in benchmark_rows(root, "scier", split):
        yield SciERSentence(
            str(row["doc_id"]),
            int(row["sentence_index"]),
            row["text"],
            tuple((e["start"], e["end"], e["type"]) for e in row["entities"]),
            tuple((r["head"], r["type"], r["tail"]) for r in row["relations"]),
        )


# A space goes away before closing punctuation and after opening brackets; a
# hyphen or slash between two words, and a point or comma inside a number, join.
_NO_SPACE_BEFORE = {",", ".", ";", ":", "?", "!", "%", ")", "]", "}", "'s", "n't", "'"}
_NO_SPACE_AFTER = {"(", "[", "{"}
_JOINERS = {"-", "/"}


def detokenise(text: str) -> tuple[str, list[int]]:
    """(prose, where each original character went), for moving offsets:
    ``new[mapping[i]] == text[i]`` for every kept character; a removed space
    maps to the next kept character."""
    tokens = [(m.start(), m.group()) for m in re.finditer(r"\S+", text)]
    out: list[str] = []
    mapping = [0] * (len(text) + 1)
    length = 0
    for i, (start, token) in enumerate(tokens):
        previous = tokens[i - 1][1] if i else None
        following = tokens[i + 1][1] if i + 1 < len(tokens) else None
        joined = previous is None or (
            token in _NO_SPACE_BEFORE
            or previous in _NO_SPACE_AFTER
            or (token in _JOINERS and previous[-1].isalnum() and following is not None and following[0].isalnum())
            or (previous in _JOINERS and i >= 2 and tokens[i - 2][1][-1].isalnum() and token[0].isalnum())
            or (token.isdigit() and len(previous) == 1 and previous.isdigit())
            or (token.isdigit() and previous == "." and i >= 2 and tokens[i - 2][1].isdigit())
            or (token == "." and previous.isdigit() and following is not None and following.isdigit())
        )
        gap_start = tokens[i - 1][0] + len(previous) if previous is not None else 0
        if not joined:
            out.append(" ")
            length += 1
        for k in range(gap_start, start):
            mapping[k] = length
        for k, char in enumerate(token):
            mapping[start + k] = length
            out.append(char)
            length += 1
    tail = tokens[-1][0] + len(tokens[-1][1]) if tokens else 0
    for k in range(tail, len(text) + 1):
        mapping[k] = length
    return "".join(out), mapping


def detokenised(sentence: SciERSentence) -> SciERSentence:
    """The sentence as prose, its entity offsets moved."""
    text, where = detokenise(sentence.text)
    entities = tuple((where[s], where[e - 1] + 1, t) for s, e, t in sentence.entities)
    return SciERSentence(sentence.doc_id, sentence.index, text, entities, sentence.relations)
