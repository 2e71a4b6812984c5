"""Extraction: the spaCy stage that finds concepts and claims in abstracts.

An extractor is any object with a ``name`` and an ``extract`` method that takes
linked papers and yields one :class:`kg.records.Extraction` per paper; the
build (``kg.pipeline.build``) runs every extractor it is given between
linking and graph building. With none, the graph is the bibliographic one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from kg.extract.model import MODEL_NAME, MODEL_PACKAGE, MODEL_VERSION, load_english
from kg.records import Extraction, LinkedPaper

__all__ = ["Extractor", "load_english", "MODEL_NAME", "MODEL_PACKAGE", "MODEL_VERSION"]


class Extractor(Protocol):
    name: str

    def extract(self, papers: Iterable[LinkedPaper]) -> Iterator[Extraction]: ...
