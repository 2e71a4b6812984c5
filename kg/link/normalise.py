"""Concept-label normalisation: the key two labels must share to name one concept.

``concept_key("Out-of-Distribution Generalisation")``, ``concept_key("out of
distribution generalization")`` and ``concept_key("the OOD-generalization")``
after acronym expansion all give ``"out-of-distribution-generalization"``:

- case and accents are folded; any run of characters other than letters and
  digits (hyphens, spaces, slashes, dashes) separates words; "+" is kept as
  "plus" so "C++" never meets "C";
- leading determiners go ("the", "a", "our" ... followed by a space);
- British spellings become American (-isation by rule, the rest from
  ``data/spellings.tsv``);
- a prefix from ``data/joinable_prefixes.txt`` is joined to the next word, so
  "pretraining", "pre-training" and "pre training" meet.

Plurals are not handled here: the extraction stage's labels already carry the
lemmatizer's singular ("diffusion models" -> "diffusion model"), and the
linking stage merges what is left only when the corpus shows both forms
(:mod:`kg.link.concepts`). The key keeps word order and every content word,
so "language model" and "large language model" stay apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from kg.text import fold

__all__ = ["DATA_DIR", "Normaliser", "concept_key", "load_normaliser"]

DATA_DIR = Path(__file__).with_name("data")
DETERMINERS = frozenset({"the", "a", "an", "our", "their", "its", "this", "these", "those", "that"})
_LEADING_DETERMINER = re.compile(rf"({'|'.join(sorted(DETERMINERS))})\s+")  # "a-0" and "A* search" keep their "a"
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")  # "3.5" stays one word: GPT-3.5 is not GPT-35
_ISATION = re.compile(r"(?<=[a-z])is(ations?)$")  # not -ised: "supervised"


def _rows(path: Path) -> list[list[str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]


@dataclass(frozen=True)
class Normaliser:
    spellings: dict[str, str]  # british word -> american word
    joinable_prefixes: frozenset[str]

    def words(self, label: str) -> list[str]:
        """The label's normalised words, determiner dropped, prefixes joined."""
        text = fold(label).strip()
        while (match := _LEADING_DETERMINER.match(text)) and text[match.end() :].strip():
            text = text[match.end() :]
        words = _WORD.findall(text.replace("+", " plus "))
        words = [self.spellings.get(w) or _ISATION.sub(r"iz\1", w) for w in words]
        joined: list[str] = []
        for word in words:
            if joined and joined[-1] in self.joinable_prefixes:
                joined[-1] += word
            else:
                joined.append(word)
        return joined

    def key(self, label: str) -> str:
        return "-".join(self.words(label))


@cache
def load_normaliser(data_dir: Path = DATA_DIR) -> Normaliser:
    return Normaliser(
        spellings={row[0]: row[1] for row in _rows(data_dir / "spellings.tsv")},
        joinable_prefixes=frozenset(row[0] for row in _rows(data_dir / "joinable_prefixes.txt")),
    )


def concept_key(label: str) -> str:
    """The normalised form of ``label`` (see the module docstring)."""
    return load_normaliser().key(label)
