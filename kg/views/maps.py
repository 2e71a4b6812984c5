"""Maps: the overview of ideas (:func:`concept_map`, what `kg viz` and
`kg build` draw) and the map of papers (:func:`paper_map`, `kg viz --papers`).

A **concept map** draws concepts only (papers, authors and claims are in each
concept's panel), sized by the papers mentioning them. Two concepts are
linked by co-occurrence weighted by **association strength**, VOSviewer's
normalisation: the papers mentioning both over the product of each one's
papers, times all papers, so 1.0 is what chance would give. Each concept
keeps its :data:`LINKS` strongest links (pairs seen in two papers or more
first), so hubs do not pull in everything. The typed relations extraction
found between drawn concepts are links of their own kind, the
:data:`RELATION_LINKS` best supported of each concept (its panel lists more). Colour is the
community (Louvain on the drawn concepts' co-occurrences, seeded), named in
the legend by its members with the most papers.

A **paper map** draws papers linked by the concepts they share, each
weighted by how rare it is (the IDF weighting of `kg similar`), each paper
keeping its :data:`LINKS` most similar. Untitled papers are drawn without a
label (their derived label is a sentence fragment, not a name).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable

import networkx as nx

from kg.analysis import Evidence
from kg.analysis.trends import trends as concept_trends
from kg.views.model import Group, PaperRef, Related, View, ViewEdge, ViewNode
from kg.views.selection import DEFAULT_LIMIT, counted, evidence_sample

__all__ = ["LINKS", "PLAIN_LINK", "concept_map", "paper_map"]

LINKS = 5
#: What each kind of map calls its plain (untyped) links.
PLAIN_LINK = {"concepts": "co-occurs with", "papers": "shares concepts with"}
RELATION_LINKS = 3  # stated relations drawn per concept, best supported first
#: Papers listed in a concept's panel (the rest are counted), relations listed.
PAPERS_LISTED = 8
RELATIONS_LISTED = 6
NAMED_BY = 3  # members naming a community in the legend
EVIDENCE_PAPERS = 10  # papers looked through for a co-occurrence link's sentences
_NOT_RELATIONS = {"mentions", "proposes", "author of"}


def _named(labels: Iterable[str]) -> str:
    """A community's name: its first NAMED_BY distinct labels (two concepts of different types may share one)."""
    return ", ".join(list(dict.fromkeys(labels))[:NAMED_BY])


def _papers_of(graph: nx.Graph, node: str) -> list[str]:
    return sorted(m for m in graph[node] if graph.nodes[m]["kind"] == "paper")


def _strongest(pairs: dict[tuple[str, str], tuple[float, int]], keep: int) -> set[tuple[str, str]]:
    """The pairs among each node's ``keep`` strongest (seen twice or more first, then strength)."""
    by_node: dict[str, list[tuple[tuple[bool, float, int], tuple[str, str]]]] = defaultdict(list)
    for pair, (strength, count) in pairs.items():
        rank = (count >= 2, strength, count)
        by_node[pair[0]].append((rank, pair))
        by_node[pair[1]].append((rank, pair))
    chosen: set[tuple[str, str]] = set()
    for ranked in by_node.values():
        ranked.sort(key=lambda item: (item[0], item[1]), reverse=True)
        chosen.update(pair for _, pair in ranked[:keep])
    return chosen


def _groups(nodes: Iterable[str], edges: Iterable[tuple[str, str, float]], size: dict[str, float], name, seed: int):
    """Louvain communities (sorted input, so the seed is enough): node -> number, and the groups,
    each named by ``name(members, most important first)``."""
    graph = nx.Graph()
    graph.add_nodes_from(sorted(nodes))
    graph.add_weighted_edges_from(sorted(edges))
    found = nx.community.louvain_communities(graph, weight="weight", seed=seed) if graph.number_of_edges() else []
    found = sorted((c for c in found if len(c) >= 2), key=lambda c: (-len(c), min(c)))
    number: dict[str, int] = {}
    groups = []
    for i, members in enumerate(found, start=1):
        best = sorted(members, key=lambda n: (-size[n], n))
        number.update((n, i) for n in members)
        groups.append(Group(i, name(best), len(members)))
    return number, tuple(groups)


def _mention_evidence(graph: nx.Graph, paper: str, concept: str) -> list[Evidence]:
    return [e for link in graph.edges[paper, concept]["links"] for e in link.evidence if e.sentence]


def concept_map(graph: nx.Graph, limit: int = DEFAULT_LIMIT, min_papers: int = 1, title: str | None = None, seed: int = 0) -> View:
    """The concepts mentioned by at least ``min_papers`` papers, the ``limit`` with most papers (0: all)."""
    papers_of = {n: _papers_of(graph, n) for n, d in graph.nodes(data=True) if d["kind"] == "concept"}
    candidates = sorted(
        (n for n, p in papers_of.items() if len(p) >= min_papers), key=lambda n: (-len(papers_of[n]), graph.nodes[n]["label"], n)
    )
    chosen = candidates[:limit] if limit else candidates
    keep = set(chosen)
    total_papers = sum(1 for _, d in graph.nodes(data=True) if d["kind"] == "paper") or 1
    size = {n: float(len(papers_of[n])) for n in chosen}

    together: Counter[tuple[str, str]] = Counter()
    for paper, data in graph.nodes(data=True):
        if data["kind"] == "paper":
            mentioned = sorted(m for m in graph[paper] if m in keep)
            together.update((a, b) for i, a in enumerate(mentioned) for b in mentioned[i + 1 :])
    strength = {pair: (count * total_papers / (size[pair[0]] * size[pair[1]]), count) for pair, count in together.items()}
    cooccurring = _strongest(strength, LINKS)

    stated: dict[tuple[str, str], list] = defaultdict(list)
    for u, v, data in graph.subgraph(keep).edges(data=True):
        for link in data["links"]:
            if link.relation not in _NOT_RELATIONS:
                stated[(min(u, v), max(u, v))].append(link)
    # The best-supported relations of each concept are drawn (all are in its panel).
    support = {pair: float(sum(len(link.evidence) for link in links)) for pair, links in stated.items()}
    drawn = _strongest({pair: (n, int(n)) for pair, n in support.items()}, RELATION_LINKS)
    relations = {pair: links for pair, links in stated.items() if pair in drawn}

    numbers, groups = _groups(
        chosen, ((u, v, c) for (u, v), c in together.items()), size, lambda best: _named(graph.nodes[n]["label"] for n in best), seed
    )
    timeline = concept_trends(graph)

    edges = []
    for pair in sorted(cooccurring | set(relations)):
        links = sorted(relations.get(pair, []), key=lambda link: (link.relation, link.source))
        assoc, count = strength.get(pair, (0.0, 0))
        if links:
            shown, more = evidence_sample(e for link in links for e in link.evidence)
            directed = all(link.source == links[0].source for link in links)
            source, target = (links[0].source, links[0].target) if directed else pair
            kinds = tuple(sorted({link.relation for link in links}))
        else:
            both = sorted(set(papers_of[pair[0]]) & set(papers_of[pair[1]]))
            # The sentences naming each concept in (some of) the papers mentioning both.
            shown, _ = evidence_sample(e for p in both[:EVIDENCE_PAPERS] for c in pair for e in _mention_evidence(graph, p, c))
            more = max(0, count - len({e.paper for e in shown}))
            directed, (source, target), kinds = False, pair, (PLAIN_LINK["concepts"],)
        edges.append(ViewEdge(source, target, kinds, directed, shown, more, round(assoc, 3), count))

    nodes = []
    for n in sorted(keep):
        data = graph.nodes[n]
        papers = papers_of[n]
        refs = sorted(papers, key=lambda p: (graph.nodes[p].get("date") or "", graph.nodes[p]["label"]), reverse=True)
        found = [e for p in papers for e in _mention_evidence(graph, p, n)]
        shown, more = evidence_sample(found)
        ranked = []  # the best-supported relations first
        for m in graph[n]:
            for link in graph.edges[n, m]["links"]:
                if link.relation not in _NOT_RELATIONS:
                    other = graph.nodes[link.target if link.source == n else link.source]["label"]
                    said = tuple(e for e in link.evidence if e.sentence)[:1]
                    ranked.append((-len(link.evidence), link.relation, other, Related(link.relation, link.source == n, other, said)))
        related = [r for *_, r in sorted(ranked, key=lambda item: item[:3] + (not item[3].outgoing,))]
        trend = timeline.get(n)
        nodes.append(
            ViewNode(
                n,
                data["label"],
                data["type"],
                len(papers),
                size[n],
                shown,
                more,
                group=numbers.get(n, 0),
                names=tuple(sorted(set(data.get("names", [data["label"]])))),
                trend=trend.counts if trend else (),
                paper_refs=tuple(
                    PaperRef(p, graph.nodes[p]["label"], graph.nodes[p].get("titled", True), graph.nodes[p].get("date"))
                    for p in refs[:PAPERS_LISTED]
                ),
                more_papers=max(0, len(papers) - PAPERS_LISTED),
                related=tuple(related[:RELATIONS_LISTED]),
            )
        )
    total = len(papers_of)
    notice = None
    if not total:
        notice = "The graph has no concepts (was it built with --no-extract?): `kg viz --whole` draws its papers and authors."
    elif len(chosen) < total:
        notice = (
            f"A map of the {counted(len(chosen), 'concept')} with the most papers, of {counted(total, 'concept')} in the graph"
            + (f" ({counted(len(candidates), 'concept')} in {min_papers}+ papers)" if min_papers > 1 else "")
            + ". `kg viz --limit 0` maps them all; `kg viz --focus NAME` draws one with its papers, `kg viz --papers` maps papers."
        )
    return View(
        title or f"kg: a map of {counted(len(chosen), 'concept')}",
        tuple(nodes),
        tuple(edges),
        notice,
        kind="concepts",
        groups=groups,
        period=timeline.period,
        periods=timeline.periods,
    )


def paper_map(graph: nx.Graph, limit: int = DEFAULT_LIMIT, title: str | None = None, seed: int = 0) -> View:
    """Papers linked by the concepts they share (IDF-weighted); the ``limit`` with most concepts (0: all)."""
    concepts_of = {
        n: sorted(m for m in graph[n] if graph.nodes[m]["kind"] == "concept") for n, d in graph.nodes(data=True) if d["kind"] == "paper"
    }
    total = len(concepts_of)
    candidates = sorted((p for p, c in concepts_of.items() if c), key=lambda p: (-len(concepts_of[p]), graph.nodes[p]["label"], p))
    chosen = candidates[:limit] if limit else candidates
    keep = set(chosen)
    mentioning: dict[str, list[str]] = defaultdict(list)
    for p in chosen:
        for c in concepts_of[p]:
            mentioning[c].append(p)
    weight = {c: math.log(total / sum(1 for m in graph[c] if graph.nodes[m]["kind"] == "paper")) for c in mentioning}
    shared: dict[tuple[str, str], list[str]] = defaultdict(list)
    for c, papers in mentioning.items():
        if weight[c] > 0:
            for i, a in enumerate(papers):
                for b in papers[i + 1 :]:
                    shared[(a, b)].append(c)
    similarity = {pair: (sum(weight[c] for c in cs), len(cs)) for pair, cs in shared.items()}
    # Rank by similarity alone: two papers sharing one rare concept are alike.
    linked = _strongest({pair: (s, 2) for pair, (s, _) in similarity.items()}, LINKS)

    def label(node: str) -> str:
        return graph.nodes[node]["label"]

    size = {p: float(len(concepts_of[p])) for p in chosen}

    def characteristic(members: list[str]) -> str:
        """A community of papers is named by the concepts most of its papers share, rare ones first."""
        counts = Counter(c for p in members for c in concepts_of[p])
        best = sorted(counts, key=lambda c: (-counts[c] * weight.get(c, 0.0), label(c), c))
        return _named(label(c) for c in best)

    numbers, groups = _groups(chosen, ((u, v, similarity[(u, v)][0]) for u, v in linked), size, characteristic, seed)

    edges = []
    for pair in sorted(linked):
        concepts = sorted(shared[pair], key=lambda c: (-weight[c], label(c)))
        score, count = similarity[pair]
        facts = ("shared: " + ", ".join(label(c) for c in concepts[:6]) + (f" and {len(concepts) - 6} more" if len(concepts) > 6 else ""),)
        edges.append(ViewEdge(pair[0], pair[1], (PLAIN_LINK["papers"],), False, (), 0, round(score, 3), count, facts))
    nodes = []
    for p in sorted(keep):
        data = graph.nodes[p]
        names = tuple(sorted(set(data.get("names", [data["label"]]))))
        facts = ("concepts: " + ", ".join(label(c) for c in concepts_of[p][:12]) + (" ..." if len(concepts_of[p]) > 12 else ""),)
        nodes.append(
            ViewNode(
                p,
                data["label"],
                "Paper",
                0,
                size[p],
                facts=facts,
                group=numbers.get(p, 0),
                names=names,
                drawn_label=data.get("titled", True),
            )
        )
    notice = None
    if len(chosen) < total:
        notice = (
            f"A map of the {counted(len(chosen), 'paper')} naming the most concepts, of {counted(total, 'paper')}. "
            "`kg viz --papers --limit 0` maps them all; `kg similar PAPER` lists one paper's closest."
        )
    return View(title or f"kg: a map of {counted(len(chosen), 'paper')}", tuple(nodes), tuple(edges), notice, kind="papers", groups=groups)
