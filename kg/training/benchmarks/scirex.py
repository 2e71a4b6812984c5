"""SciREX (Jain et al. 2020): Method, Task, Metric and Material mentions in
306 full-text machine-learning papers. Apache-2.0.

kg reads ``shared/benchmarks/scirex/abstracts.jsonl`` (each paper's opening
sections; its README: source, schema, detokenisation). Only SciREX's training
documents are there, so the held-out part is the hash split that README
proposes ("Splits": 239 train, 34 dev, 33 test), less the records the README
says are no abstract (8 that run into the paper's body, 3 with no abstract).
Material is kg's Dataset.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kg.training.benchmarks import benchmark_rows

__all__ = ["NOT_ABSTRACTS", "SPLITS", "TYPES", "SciREXSection", "load_scirex", "split_of"]

SPLITS = ("train", "dev", "test")
#: SciREX type -> kg concept type.
TYPES = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}
#: abstracts.jsonl records that are no abstract (README, "abstracts.jsonl: what the first
#: section really is"): a first section over 600 words, then title only or a stray glyph.
NOT_ABSTRACTS = frozenset(
    {
        "00b1cdc5bd77bf27f9b1ca630365eeeb456913b4",
        "0523e14247d74c4505cd5e32e1f0495f291ec432",
        "06150e6e69a379c27e1d0100fcd7660f073cbacf",
        "07cca2bdd0dc2fee02889e17789748eba9d06ffa",
        "0e37c8f19eefeb0c20d92f5cb4df4153077c116b",
        "1001c09821f6910b5b8038a3c5993456ba966946",
        "1bb5520bbc168e54c553758a76c6d953933bd8eb",
        "2116b2eaaece4af9c28c32af2728f3d49b792cf9",
        "27c761258329eddb90b64d52679ff190cb4527b5",
        "28eceb438da0b841bbd3d02684dbfa263838ed60",
        "40193e7ba0fbd7153a1fe15e95563463b67c71f3",
    }
)


@dataclass(frozen=True)
class SciREXSection:
    doc_id: str
    index: int  # the section's place in the record
    text: str
    entities: tuple[tuple[int, int, str], ...]  # (start, end, kg type), character offsets into text


def split_of(doc_id: str) -> str:
    """The README's hash split: a tenth dev, a tenth test, the rest train."""
    bucket = int(hashlib.sha1(doc_id.encode("utf-8")).hexdigest(), 16) % 10
    return "dev" if bucket == 0 else "test" if bucket == 1 else "train"


def load_scirex(split: str = "test", root: str | Path | None = None) -> Iterator[SciREXSection]:
    """The sections of ``abstracts.jsonl`` whose paper is in ``split``, in file order."""
    if split not in SPLITS:
        raise ValueError(f"SciREX split {split!r}: expected one of {', '.join(SPLITS)}")
    for _path, _number, row in benchmark_rows(root, "scirex", "abstracts"):
        doc_id = str(row["doc_id"])
        if doc_id in NOT_ABSTRACTS or split_of(doc_id) != split:
            continue
        for index, section in enumerate(row["sections"]):
            entities = tuple((e["start"], e["end"], TYPES[e["type"]]) for e in section["entities"])
            yield SciREXSection(doc_id, index, section["text"], entities)
