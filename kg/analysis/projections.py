"""RDF -> NetworkX: the store's graph as NetworkX graphs, read with SPARQL.

:func:`load_graph` reads papers, authors and concepts and every link between
them that the graph states (authorship, mention, proposal, the relations
between concepts, the concept hierarchy) into one undirected ``nx.Graph``,
keeping for each link the paper and sentence that support it. The analysis
projections are derived from it:

- :func:`paper_concept` — papers and the concepts they mention (bipartite,
  weight = mentions);
- :func:`concept_cooccurrence` — concepts, weight = papers mentioning both;
- :func:`coauthorship` — authors, weight = papers written together;
- :func:`author_concept` — authors and the concepts of their papers (weight =
  papers);
- :func:`typed_relations` — the directed method/dataset/task graph of the
  relations extraction found (evaluatedOn, usedFor, uses, outperforms,
  comparedWith, trainedOn, benchmarkFor) and
  the hierarchy.

Node ids are IRIs. Every node has ``kind`` ("paper", "author", "concept"),
``type`` ("Paper", "Author", "Method", "Dataset", "Task", "Metric") and
``label``; concepts also carry their alternative labels in ``names``, papers
whether their label is a title (``titled``) and their ``date`` ("2025",
"2025-08" or "2025-08-18"; None when the source gives none).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
from networkx.algorithms import bipartite
from pyoxigraph import Store

from kg.query.run import run_query

__all__ = [
    "Evidence",
    "Link",
    "author_concept",
    "coauthorship",
    "concept_cooccurrence",
    "load_graph",
    "paper_concept",
    "typed_relations",
]

QUERIES = Path(__file__).with_name("queries")
CONCEPT_TYPES = ("Method", "Dataset", "Task", "Metric")


@dataclass(frozen=True)
class Evidence:
    """The paper and sentence behind a link (``sentence`` is None for links a
    paper's metadata states, such as authorship, or a rule, such as head nouns)."""

    paper: str
    paper_label: str
    sentence: str | None


@dataclass(frozen=True)
class Link:
    """One statement of the graph between two nodes, in its own direction."""

    source: str
    relation: str  # "author of", "mentions", "proposes", "evaluatedOn", ..., "broader"
    target: str
    evidence: tuple[Evidence, ...]


def _order_value(name: str, value: str | None) -> tuple[bool, int | str]:
    """A sort key for one variable: unbound first; a ``start`` offset as a number."""
    if value is None:
        return (False, "")
    return (True, int(value) if name == "start" else value)


def _rows(store: Store, name: str, order: tuple[str, ...] = ()) -> list[dict]:
    """The rows of query ``name``; sorted here by the ``order`` variables (unbound
    first, numbers as numbers) when the query leaves the order to us."""
    result = run_query(store, (QUERIES / f"{name}.rq").read_text(encoding="utf-8"))
    rows = [{v: (s[v].value if s[v] is not None else None) for v in result.variables} for s in result.solutions]
    if order:
        rows.sort(key=lambda row: tuple(_order_value(v, row[v]) for v in order))
    return rows


def _add_link(graph: nx.Graph, link: Link) -> None:
    if graph.has_edge(link.source, link.target):
        graph.edges[link.source, link.target]["links"].append(link)
    else:
        graph.add_edge(link.source, link.target, links=[link])


def load_graph(store: Store) -> nx.Graph:
    """Papers, authors and concepts with every supported link between them."""
    graph = nx.Graph()
    for row in _rows(store, "concepts"):
        graph.add_node(row["node"], kind="concept", type=row["type"], label=row["label"], names=[row["label"]])
    for row in _rows(store, "concept-names"):
        if row["node"] in graph:
            graph.nodes[row["node"]]["names"].append(row["name"])
    paper_labels = {}
    for row in _rows(store, "papers"):
        paper_labels[row["node"]] = row["label"]
        names = [row["label"]] + ([row["title"]] if row["title"] and row["title"] != row["label"] else [])
        graph.add_node(
            row["node"], kind="paper", type="Paper", label=row["label"], names=names, titled=bool(row["title"]), date=row["issued"]
        )

    for row in _rows(store, "authorships"):
        graph.add_node(row["node"], kind="author", type="Author", label=row["name"], names=[row["name"]])
        _add_link(graph, Link(row["node"], "author of", row["paper"], (Evidence(row["paper"], paper_labels[row["paper"]], None),)))

    proposals = {(row["paper"], row["concept"]) for row in _rows(store, "proposals")}
    mentions: dict[tuple[str, str], list] = defaultdict(list)
    for row in _rows(store, "mentions", order=("paper", "start", "concept")):
        mentions[(row["paper"], row["concept"])].append(row)
    for (paper, concept), rows in mentions.items():
        first = min(rows, key=lambda r: int(r["start"]))
        relation = "proposes" if (paper, concept) in proposals else "mentions"
        _add_link(graph, Link(paper, relation, concept, (Evidence(paper, paper_labels[paper], first["sentence"]),)))
        graph.edges[paper, concept]["mentions"] = len(rows)

    relations: dict[tuple[str, str, str], list[Evidence]] = defaultdict(list)
    for row in _rows(store, "relations", order=("head", "relation", "tail", "paper", "sentence")):
        relations[(row["head"], row["relation"], row["tail"])].append(Evidence(row["paper"], paper_labels[row["paper"]], row["sentence"]))
    for row in _rows(store, "broader", order=("narrower", "broader", "rule", "paper")):
        paper = row["paper"]
        evidence = Evidence(paper, paper_labels[paper], row["sentence"]) if paper else Evidence("", f"rule: {row['rule']}", None)
        relations[(row["narrower"], "broader", row["broader"])].append(evidence)
    for (head, relation, tail), evidences in relations.items():
        if head in graph and tail in graph:
            _add_link(graph, Link(head, relation, tail, tuple(evidences)))
    return graph


def _nodes_of(graph: nx.Graph, kind: str) -> list[str]:
    return [n for n, data in graph.nodes(data=True) if data["kind"] == kind]


def paper_concept(graph: nx.Graph) -> nx.Graph:
    """Bipartite papers (``bipartite=0``) and concepts (``bipartite=1``); weight = mentions."""
    projection = nx.Graph()
    for node in _nodes_of(graph, "paper"):
        projection.add_node(node, **graph.nodes[node], bipartite=0)
    for node in _nodes_of(graph, "concept"):
        projection.add_node(node, **graph.nodes[node], bipartite=1)
    for u, v, data in graph.edges(data=True):
        kinds = {graph.nodes[u]["kind"], graph.nodes[v]["kind"]}
        if kinds == {"paper", "concept"}:
            projection.add_edge(u, v, weight=data.get("mentions", 1))
    return projection


def concept_cooccurrence(graph: nx.Graph) -> nx.Graph:
    """Concepts linked when papers mention both; weight = how many papers."""
    bipartite_graph = paper_concept(graph)
    concepts = [n for n, d in bipartite_graph.nodes(data=True) if d["bipartite"] == 1]
    return bipartite.weighted_projected_graph(bipartite_graph, concepts)


def coauthorship(graph: nx.Graph) -> nx.Graph:
    """Authors linked when they wrote papers together; weight = how many papers."""
    authored = nx.Graph()
    authors = _nodes_of(graph, "author")
    for node in authors:
        authored.add_node(node, **graph.nodes[node])
    for author in authors:
        for paper in graph[author]:
            if graph.nodes[paper]["kind"] == "paper":
                authored.add_edge(author, paper)
    return bipartite.weighted_projected_graph(authored, authors)


def author_concept(graph: nx.Graph) -> nx.Graph:
    """Authors linked to the concepts their papers mention; weight = how many papers."""
    projection = nx.Graph()
    for author in _nodes_of(graph, "author"):
        projection.add_node(author, **graph.nodes[author])
        for paper in graph[author]:
            if graph.nodes[paper]["kind"] != "paper":
                continue
            for concept in graph[paper]:
                if graph.nodes[concept]["kind"] == "concept":
                    if not projection.has_node(concept):
                        projection.add_node(concept, **graph.nodes[concept])
                    weight = projection.edges[author, concept]["weight"] + 1 if projection.has_edge(author, concept) else 1
                    projection.add_edge(author, concept, weight=weight)
    return projection


def typed_relations(graph: nx.Graph) -> nx.DiGraph:
    """Concepts and the directed relations between them (evaluatedOn, usedFor,
    uses, outperforms, comparedWith, trainedOn, benchmarkFor, broader); edge ``relations`` maps each to its evidence."""
    directed = nx.DiGraph()
    for _u, _v, data in graph.edges(data=True):
        for link in data["links"]:
            if graph.nodes[link.source]["kind"] == graph.nodes[link.target]["kind"] == "concept":
                for node in (link.source, link.target):
                    directed.add_node(node, **graph.nodes[node])
                if not directed.has_edge(link.source, link.target):
                    directed.add_edge(link.source, link.target, relations={})
                directed.edges[link.source, link.target]["relations"][link.relation] = link.evidence
    return directed
