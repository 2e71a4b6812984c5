"""Split plain-text listings into paragraphs ("blocks") that remember their line."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kg.text import normalise_whitespace

__all__ = ["Block", "split_blocks", "is_heading", "is_prose"]

HEADING_MAX_CHARS = 80
# Line breaks as editors count them (str.splitlines also breaks at U+2028, form feeds ...).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
PROSE_MIN_CHARS = 200


@dataclass(frozen=True)
class Block:
    text: str  # whitespace-normalised
    line: int  # 1-based line where the block starts


def split_blocks(text: str) -> list[Block]:
    """Paragraphs separated by blank lines; lines holding only (non-breaking)
    spaces count as blank, and a paragraph's lines are joined with one space.
    Lines end at \n, \r\n or \r only, so line numbers are an editor's."""
    blocks: list[Block] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(_LINE_BREAK.split(text), start=1):
        if normalise_whitespace(line):
            if not current:
                start = number
            current.append(line)
        elif current:
            blocks.append(Block(normalise_whitespace(" ".join(current)), start))
            current = []
    if current:
        blocks.append(Block(normalise_whitespace(" ".join(current)), start))
    return blocks


def is_heading(block: Block) -> bool:
    """A short line that is not a sentence: a section heading or a listing's title."""
    return len(block.text) <= HEADING_MAX_CHARS and not re.search(r"[.!?]$", block.text)


def is_prose(block: Block) -> bool:
    """A paragraph of running text, such as an abstract."""
    return len(block.text) >= PROSE_MIN_CHARS and bool(re.search(r"[.!?][\"')\]]*\s", block.text + " "))
