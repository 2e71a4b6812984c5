"""Papers like a given paper: the concepts they share, each weighted by how
rare it is in the corpus (inverse document frequency, log(N / papers
mentioning it)), so sharing "LoRA" counts for more than sharing "accuracy"."""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx

__all__ = ["SimilarPaper", "similar"]


@dataclass(frozen=True)
class SharedConcept:
    iri: str
    label: str
    weight: float


@dataclass(frozen=True)
class SimilarPaper:
    rank: int
    iri: str
    label: str
    score: float  # sum of the shared concepts' weights
    shared: tuple[SharedConcept, ...]  # heaviest first


def _concepts(graph: nx.Graph, paper: str) -> set[str]:
    return {n for n in graph[paper] if graph.nodes[n]["kind"] == "concept"}


def similar(graph: nx.Graph, paper: str, limit: int = 10) -> list[SimilarPaper]:
    papers = [n for n, d in graph.nodes(data=True) if d["kind"] == "paper"]
    total = len(papers)

    def weight(concept: str) -> float:
        mentioning = sum(1 for n in graph[concept] if graph.nodes[n]["kind"] == "paper")
        return math.log(total / mentioning)

    mine = _concepts(graph, paper)
    weights = {c: weight(c) for c in mine}
    scored = []
    for other in papers:
        if other == paper:
            continue
        shared = mine & _concepts(graph, other)
        if shared:
            concepts = sorted((SharedConcept(c, graph.nodes[c]["label"], weights[c]) for c in shared), key=lambda s: (-s.weight, s.label))
            scored.append((sum(s.weight for s in concepts), other, tuple(concepts)))
    scored.sort(key=lambda item: (-item[0], graph.nodes[item[1]]["label"], item[1]))
    return [
        SimilarPaper(rank, iri, graph.nodes[iri]["label"], score, shared)
        for rank, (score, iri, shared) in enumerate(scored[:limit] if limit else scored, start=1)
    ]
