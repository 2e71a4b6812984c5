"""Reader for plain abstract listings such as Hugging Face's "Daily Papers":
one abstract per paragraph, no titles or authors. A heading line at the top
(e.g. "Daily Papers") names the listing and becomes the papers' venue.
"""

from __future__ import annotations

from collections.abc import Iterator

from kg.corpus.blocks import is_heading, split_blocks
from kg.records import Paper, SourceRef

__all__ = ["NAME", "SUFFIXES", "looks_like", "read"]

NAME = "daily"
SUFFIXES = (".txt", ".md")


def looks_like(text: str) -> bool:
    """The fallback for text: any paragraph that is not a heading is an abstract."""
    return any(not is_heading(block) for block in split_blocks(text))


def read(text: str, file_name: str, sha256: str) -> Iterator[Paper]:
    blocks = split_blocks(text)
    venue = blocks[0].text if blocks and is_heading(blocks[0]) else None
    index = 0
    for block in blocks:
        if is_heading(block):
            continue
        index += 1
        yield Paper(
            abstract=block.text,
            source=SourceRef(file_name=file_name, sha256=sha256, line=block.line, index=index, format=NAME),
            venue=venue,
        )
