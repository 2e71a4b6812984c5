"""The Python API: one object over a built store, for notebooks and scripts.

    import kg

    graph = kg.open()                      # .kg/store, as built by `kg build`
    graph.concept("OOD generalization")    # [ConceptReport(...)]
    graph.top(types=("Dataset",), limit=5) # [Ranked(...)]
    graph.path("Yue Wang", "3D reconstruction")
    graph.similar("LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models")
    graph.query("SELECT ?p WHERE { ?p a kg:Paper }")
    graph.ask("methods-on-dataset", dataset="Waymo")

Every method returns plain frozen dataclasses (or lists of dicts for raw
SPARQL), the same answers the commands print. The NetworkX graph is loaded
from the store on first use and kept; ``graph.networkx`` exposes it.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from kg.graph import DEFAULT_STORE, open_store

__all__ = ["KnowledgeGraph", "open"]


class KnowledgeGraph:
    def __init__(self, store: str | Path = DEFAULT_STORE):
        self.store_path = Path(store)
        self.store = open_store(self.store_path)
        self._graph = None

    @property
    def networkx(self):
        """Papers, authors and concepts with their links (:func:`kg.analysis.load_graph`)."""
        if self._graph is None:
            from kg.analysis import load_graph

            self._graph = load_graph(self.store)
        return self._graph

    def query(self, sparql: str, **params: str) -> list[dict]:
        """Rows of a SELECT query as dicts of plain strings; ``params`` are bound, never pasted."""
        from kg.query import run_query

        result = run_query(self.store, sparql, params)
        return [{v: (row[v].value if row[v] is not None else None) for v in result.variables} for row in result.solutions]

    def ask(self, name: str, evidence: bool = True, **params: str):
        """A named question of the library (`kg ask`): an Answer with columns and rows."""
        from kg.query.ask import ask

        return ask(self.store, name, params, evidence=evidence)

    def concept(self, name: str, concept_type: str | None = None):
        from kg.query.concepts import describe_concepts

        return describe_concepts(self.store, name, concept_type)

    def top(self, measure: str = "specificity", types: Collection[str] | None = None, limit: int = 10):
        from kg.analysis import NODE_TYPES, top

        return top(self.networkx, measure, tuple(types or NODE_TYPES), limit)

    def communities(self, resolution: float = 1.0, seed: int = 0):
        from kg.analysis import communities

        return communities(self.networkx, resolution=resolution, seed=seed)

    def path(self, source: str, target: str, k: int = 3, through: Collection[str] | None = None, max_hops: int = 8):
        from kg.analysis import paths, resolve

        graph = self.networkx
        return paths(graph, resolve(graph, source), resolve(graph, target), k, through, max_hops)

    def similar(self, paper: str, limit: int = 10):
        from kg.analysis import resolve, similar

        return similar(self.networkx, resolve(self.networkx, paper, {"Paper"}), limit)


def open(store: str | Path = DEFAULT_STORE) -> KnowledgeGraph:  # noqa: A001 - kg.open, like sqlite3.connect
    """Open a built store (read-only)."""
    return KnowledgeGraph(store)
