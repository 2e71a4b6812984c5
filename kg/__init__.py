"""kg: research-paper abstracts in, a knowledge graph out.

The pipeline, one sub-package per stage::

    corpus/   read listings and JSON Lines        -> Paper records
    link/     merge duplicates, mint stable IRIs  -> LinkedPaper records
    extract/  spaCy: concepts, claims, evidence   -> Extraction records
    link/     concepts merged across the corpus,  -> Concept, BroaderLink records
              each merge explained; hierarchy
    graph/    records -> RDF, the Oxigraph store
    query/    SPARQL with bound parameters, the named query library
    export/   Turtle, N-Triples, JSON-LD

    analysis/ RDF -> NetworkX: centrality, communities, paths, similar papers

``kg.pipeline.build`` runs the stages; ``kg.cli`` is the command line over it;
``kg.open(store)`` (:mod:`kg.api`) answers questions from Python.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("kg")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__", "open"]


def open(store=".kg/store"):  # noqa: A001 - kg.open(), like sqlite3.connect()
    """Open a built store: a :class:`kg.api.KnowledgeGraph` (imported here, so `import kg` stays light)."""
    from kg.api import open as open_graph

    return open_graph(store)
