"""The extraction stage's knowledge, loaded from data files in ``kg/extract/data``
(and the shared lexicon of known names, ``kg/data/lexicon.tsv``).

Each loader reads its file afresh and returns new objects, so building two
pipelines never shares or duplicates state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kg.lexicon import LexiconEntry, load_lexicon

__all__ = [
    "DATA_DIR",
    "LexiconEntry",
    "Lexicons",
    "load_lexicons",
    "read_jsonl",
]

DATA_DIR = Path(__file__).with_name("data")


@dataclass(frozen=True)
class Lexicons:
    heads: dict[str, str]  # head lemma -> concept type
    generic_words: frozenset[str]
    stop_acronyms: frozenset[str]
    aspect_words: frozenset[str]  # "capability" in "OOD generalization capability"
    known: tuple[LexiconEntry, ...]


def _rows(path: Path) -> list[list[str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_lexicons(data_dir: Path = DATA_DIR) -> Lexicons:
    return Lexicons(
        heads={row[0]: row[1] for row in _rows(data_dir / "concept_heads.tsv")},
        generic_words=frozenset(row[0] for row in _rows(data_dir / "generic_words.txt")),
        stop_acronyms=frozenset(row[0] for row in _rows(data_dir / "stop_acronyms.txt")),
        aspect_words=frozenset(row[0] for row in _rows(data_dir / "aspect_words.txt")),
        known=load_lexicon(),
    )
