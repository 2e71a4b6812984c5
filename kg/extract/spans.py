"""What the kg_* components leave on a Doc, as plain tuples.

They are NamedTuples of primitives so a Doc's ``user_data`` stays
msgpack-serialisable (spaCy ships docs between worker processes that way);
read them back with ``ConceptSpan(*item)`` after such a trip.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ConceptSpan", "RelationSpan", "ClaimSpan"]


class ConceptSpan(NamedTuple):
    start: int  # character offsets into the doc's text, end exclusive
    end: int
    type: str  # Method, Dataset, Task or Metric
    label: str  # canonical label
    confidence: float
    source: str  # component#rule that found it
    proposed: bool = False


class RelationSpan(NamedTuple):
    head: int  # index into doc._.kg_concepts
    relation: str  # one of kg.records.RELATION_TYPES
    tail: int
    start: int  # the evidence sentence's character offsets
    end: int
    confidence: float
    source: str


class ClaimSpan(NamedTuple):
    start: int  # the claim sentence's character offsets
    end: int
    confidence: float
    source: str
