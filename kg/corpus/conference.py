"""Reader for conference listings: headings, then per paper a title line (maybe
ending "(SPOTLIGHT)" or "(ORAL)"), an author line and one or more abstract
paragraphs.

A heading directly above a paper is its category; a heading directly above
another heading is an area that holds the categories below it. The venue comes
from the listing's first line ("USC at ICLR 2025" gives "ICLR 2025").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kg.corpus.blocks import Block, is_heading, is_prose, split_blocks
from kg.records import Paper, SourceRef

__all__ = ["NAME", "SUFFIXES", "looks_like", "read", "split_authors"]

NAME = "conference"
SUFFIXES = (".txt", ".md")

_AWARD = re.compile(r"\s*\((spotlight|oral|poster|highlight|best paper)\)\s*$", re.IGNORECASE)
_VENUE = re.compile(r"\b(?:at|@)\s+(?P<venue>[A-Z][\w-]*(?: [A-Z][\w-]*)* (?P<year>(?:19|20)\d\d))\b")
_AUTHOR_SEPARATORS = re.compile(r"\s*,\s*|\s*;\s*|\s+and\s+|\s*&\s*")
# Lower-case words that may sit inside a personal name.
_NAME_PARTICLES = {"de", "da", "di", "del", "della", "der", "den", "van", "von", "la", "le", "du", "dos", "bin", "al", "y"}
MAX_NAME_WORDS = 6


def split_authors(line: str) -> list[str]:
    return [name for name in _AUTHOR_SEPARATORS.split(line.strip()) if name]


def _is_name(name: str) -> bool:
    words = name.split()
    if not 1 <= len(words) <= MAX_NAME_WORDS:
        return False
    return all(w[0].isupper() or w.lower() in _NAME_PARTICLES for w in words) and not re.search(r"[:?!()\d]", name)


def _is_author_line(block: Block) -> bool:
    names = split_authors(block.text)
    return bool(names) and all(_is_name(n) for n in names)


def _is_paper_start(blocks: list[Block], i: int) -> bool:
    return i + 2 < len(blocks) and not is_prose(blocks[i]) and _is_author_line(blocks[i + 1]) and is_prose(blocks[i + 2])


def looks_like(text: str) -> bool:
    blocks = split_blocks(text)
    return any(_is_paper_start(blocks, i) for i in range(len(blocks)))


def _venue(blocks: list[Block]) -> tuple[str | None, int | None]:
    if blocks and (match := _VENUE.search(blocks[0].text)):
        return match["venue"], int(match["year"])
    return None, None


def read(text: str, file_name: str, sha256: str) -> Iterator[Paper]:
    blocks = split_blocks(text)
    venue, year = _venue(blocks)
    area = category = None
    pending: list[Block] = []  # non-paper blocks since the previous paper
    index = 0
    i = 0
    while i < len(blocks):
        if not _is_paper_start(blocks, i):
            pending.append(blocks[i])
            i += 1
            continue
        if pending and is_heading(pending[-1]):
            category = pending[-1].text
            if len(pending) >= 2 and is_heading(pending[-2]):
                area = pending[-2].text
        pending = []

        title_block, author_block = blocks[i], blocks[i + 1]
        paragraphs = [blocks[i + 2].text]
        i += 3
        # An abstract may run over several paragraphs: prose that does not start a new paper.
        while i < len(blocks) and is_prose(blocks[i]) and not _is_paper_start(blocks, i):
            paragraphs.append(blocks[i].text)
            i += 1

        title, award = title_block.text, None
        if match := _AWARD.search(title):
            title, award = title[: match.start()], match[1].title()
        index += 1
        yield Paper(
            abstract=" ".join(paragraphs),
            source=SourceRef(file_name=file_name, sha256=sha256, line=title_block.line, index=index, format=NAME),
            title=title,
            authors=tuple(split_authors(author_block.text)),
            venue=venue,
            year=year,
            area=area,
            categories=(category,) if category else (),
            award=award,
        )
