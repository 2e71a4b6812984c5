"""Analysis: the store's graph as NetworkX graphs (projections, read with
SPARQL) and the algorithms behind `kg top`, `kg communities`, `kg path` and
`kg similar`. NetworkX stays in this package."""

from kg.analysis.centrality import DEFAULT_MEASURE, MEASURES, NODE_TYPES, Ranked, top
from kg.analysis.communities import Community, communities
from kg.analysis.names import UnknownNameError, find_nodes, resolve
from kg.analysis.paths import Hop, Path, PathError, paths
from kg.analysis.projections import (
    Evidence,
    Link,
    author_concept,
    coauthorship,
    concept_cooccurrence,
    load_graph,
    paper_concept,
    typed_relations,
)
from kg.analysis.similarity import SimilarPaper, similar

__all__ = [
    "DEFAULT_MEASURE",
    "MEASURES",
    "NODE_TYPES",
    "Community",
    "Evidence",
    "Hop",
    "Link",
    "Path",
    "PathError",
    "Ranked",
    "SimilarPaper",
    "UnknownNameError",
    "author_concept",
    "coauthorship",
    "communities",
    "concept_cooccurrence",
    "find_nodes",
    "load_graph",
    "paper_concept",
    "paths",
    "resolve",
    "similar",
    "top",
    "typed_relations",
]
