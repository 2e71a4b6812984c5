"""Exports of the whole graph in standard RDF formats, its VoID description,
SHACL validation, and upload to other triple stores."""

from kg.export.serialize import EXPORT_FORMATS, export_graph, export_void, graph_triples, write_atomically

__all__ = ["EXPORT_FORMATS", "export_graph", "export_void", "graph_triples", "write_atomically"]
