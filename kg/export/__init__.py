"""Exports of the whole graph in standard RDF formats, its VoID description,
SHACL validation, and upload to other triple stores."""

from kg.export.serialize import EXPORT_FORMATS, export_files, export_graph, export_void, graph_triples, write_atomically, write_together

__all__ = ["EXPORT_FORMATS", "export_files", "export_graph", "export_void", "graph_triples", "write_atomically", "write_together"]
