"""Graph building (records -> RDF) and the persistent store."""

from kg.graph.build import ConceptLabels, extraction_quads, paper_quads
from kg.graph.store import DEFAULT_STORE, open_store, write_store

__all__ = ["ConceptLabels", "DEFAULT_STORE", "extraction_quads", "open_store", "paper_quads", "write_store"]
