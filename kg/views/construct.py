"""Drawing the answer of a SPARQL CONSTRUCT (or DESCRIBE) query: every IRI or
blank node of the returned triples is a node (named and typed from the graph
when the graph knows it, else from the triples' own labels and rdf:type),
every triple between two of them an edge labelled with its predicate, and
literal values become lines of their subject's tooltip."""

from __future__ import annotations

from collections import defaultdict

import networkx as nx
from pyoxigraph import BlankNode, Literal, NamedNode, Store

from kg.errors import QueryError
from kg.query.run import DEFAULT_TIMEOUT_S, QueryTimeout, run_query
from kg.views.model import View, ViewEdge, ViewNode
from kg.views.selection import DEFAULT_LIMIT, centrality, graph_node
from kg.vocab import PREFIXES

__all__ = ["CLASS_TYPES", "LABELS", "MAX_FACTS", "compact", "construct_view"]

_RDF_TYPE = PREFIXES["rdf"] + "type"
#: rdf:type classes that give a node of a query result its drawn type.
CLASS_TYPES = {
    PREFIXES["kg"] + "Paper": "Paper",
    PREFIXES["foaf"] + "Person": "Author",
    PREFIXES["kg"] + "Method": "Method",
    PREFIXES["kg"] + "Dataset": "Dataset",
    PREFIXES["kg"] + "Task": "Task",
    PREFIXES["kg"] + "Metric": "Metric",
    PREFIXES["kg"] + "Claim": "Claim",
}
#: Literal predicates that name a node, best first.
LABELS = [
    PREFIXES[p] + local
    for p, local in [("skos", "prefLabel"), ("foaf", "name"), ("rdfs", "label"), ("dcterms", "title"), ("kg", "sentence")]
]
MAX_FACTS = 6
MAX_FACT_CHARS = 200


def compact(iri: str) -> str:
    """``kg:uses`` for the IRI of kg:uses; the IRI itself under no known prefix."""
    best = max((ns for ns in PREFIXES.values() if iri.startswith(ns)), key=len, default=None)
    if best is None:
        return iri
    prefix = next(p for p, ns in PREFIXES.items() if ns == best)
    return f"{prefix}:{iri[len(best) :]}"


def _id(term) -> str | None:
    if isinstance(term, NamedNode):
        return term.value
    if isinstance(term, BlankNode):
        return f"_:{term.value}"
    return None


def construct_view(
    store: Store, graph: nx.Graph, sparql: str, limit: int = DEFAULT_LIMIT, title: str | None = None, source: str = "query"
) -> View:
    """The triples ``sparql`` (a CONSTRUCT or DESCRIBE query) returns, drawn;
    beyond ``limit`` nodes (0: no limit), the most central."""
    try:
        result = run_query(store, sparql, timeout=DEFAULT_TIMEOUT_S)  # the user's query: Ctrl-C and a time limit work
    except QueryTimeout as exc:
        raise QueryError(f"{source}: the query ran past {exc.timeout:g} s; narrow it (LIMIT, fewer unbound patterns)") from exc
    if result.kind != "graph":
        raise QueryError(f"{source}: --query draws a CONSTRUCT or DESCRIBE query's triples; this is a {result.kind.upper()} query")
    nodes: dict[str, dict] = {}
    links: dict[tuple[str, str], set[tuple[str, str, str]]] = defaultdict(set)

    def seen(node: str) -> dict:
        return nodes.setdefault(node, {"types": set(), "labels": {}, "facts": set()})

    for triple in result.triples:
        subject, predicate, obj = _id(triple.subject), triple.predicate.value, triple.object
        if subject is None:  # an RDF-star quoted triple: not drawn
            continue
        info = seen(subject)
        if predicate == _RDF_TYPE and isinstance(obj, NamedNode):
            info["types"].add(obj.value)
            info["facts"].add(f"a {compact(obj.value)}")
        elif isinstance(obj, Literal):
            info["labels"].setdefault(predicate, obj.value)
            value = obj.value if len(obj.value) <= MAX_FACT_CHARS else obj.value[: MAX_FACT_CHARS - 1] + "…"
            info["facts"].add(f"{compact(predicate)}: {value}")
        elif (target := _id(obj)) is not None:
            seen(target)
            pair = (min(subject, target), max(subject, target))
            links[pair].add((subject, compact(predicate), target))

    scores = centrality(graph) if graph.number_of_nodes() else {}
    degree: defaultdict[str, int] = defaultdict(int)
    for u, v in links:
        degree[u] += 1
        degree[v] += 1
    keep = sorted(nodes)
    notice = None
    if limit and len(keep) > limit:
        keep = sorted(keep, key=lambda n: (-scores.get(n, 0.0), -degree[n], n))[:limit]
        notice = f"The query returned {len(nodes):,} nodes; this page draws the {limit:,} most central. `--limit 0` draws all."
    kept = set(keep)
    view_nodes = []
    for node in sorted(kept):
        info = nodes[node]
        facts = tuple(sorted(info["facts"])[:MAX_FACTS])
        if node in graph:
            known = graph_node(graph, node, scores)
            view_nodes.append(
                ViewNode(known.id, known.label, known.type, known.papers, known.score, known.evidence, known.more_evidence, facts)
            )
            continue
        types = sorted(CLASS_TYPES[t] for t in info["types"] if t in CLASS_TYPES)
        label = next((info["labels"][p] for p in LABELS if p in info["labels"]), compact(node))
        view_nodes.append(ViewNode(node, label, types[0] if types else "Other", facts=facts))
    edges = []
    for (u, v), triples in sorted(links.items()):
        if u in kept and v in kept:
            ordered = sorted(triples)
            head, _, tail = ordered[0]
            edges.append(ViewEdge(head, tail, tuple(sorted({p for _, p, _ in ordered})), all(s == head for s, _, _ in ordered)))
    return View(title or f"kg: {source}", tuple(view_nodes), tuple(edges), notice)
