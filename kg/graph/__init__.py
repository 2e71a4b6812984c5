"""Graph building (records -> RDF) and the persistent store."""

from kg.graph.build import broader_quads, concept_quads, extraction_quads, paper_quads
from kg.graph.store import DEFAULT_STORE, open_store, write_store

__all__ = ["DEFAULT_STORE", "broader_quads", "concept_quads", "extraction_quads", "open_store", "paper_quads", "write_store"]
