"""Exports of the whole graph in standard RDF formats."""

from kg.export.serialize import EXPORT_FORMATS, export_graph, graph_triples, write_atomically

__all__ = ["EXPORT_FORMATS", "export_graph", "graph_triples", "write_atomically"]
