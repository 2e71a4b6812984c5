"""The lexicon of well-known concepts (``kg/data/lexicon.tsv``), shared by two
stages: extraction finds its names in text, concept linking merges aliases
into one concept and links it out to Wikidata."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LEXICON_PATH", "LexiconEntry", "load_lexicon", "wikidata_iri"]

LEXICON_PATH = Path(__file__).with_name("data") / "lexicon.tsv"
_QID = re.compile(r"^Q[1-9][0-9]*$")


@dataclass(frozen=True)
class LexiconEntry:
    name: str  # canonical label
    type: str  # one of kg.records.CONCEPT_TYPES
    wikidata: str | None  # a Wikidata item ID such as "Q17069496"
    aliases: tuple[str, ...]
    line: int  # where the entry is in the file, for merge explanations


def wikidata_iri(qid: str) -> str:
    return f"http://www.wikidata.org/entity/{qid}"


def load_lexicon(path: Path = LEXICON_PATH) -> tuple[LexiconEntry, ...]:
    """Read the lexicon afresh; a malformed row is a ValueError naming its line."""
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        name, concept_type, wikidata, aliases = (line.split("\t") + ["", ""])[:4]
        if wikidata and not _QID.match(wikidata):
            raise ValueError(f"{path}:{number}: {wikidata!r} is not a Wikidata item ID (Q followed by digits)")
        entries.append(LexiconEntry(name, concept_type, wikidata or None, tuple(a for a in aliases.split("|") if a), number))
    return tuple(entries)
