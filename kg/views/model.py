"""What a page draws: plain frozen dataclasses passed from selection
(:mod:`kg.views.selection`, :mod:`kg.views.construct`) to rendering
(:mod:`kg.views.page`)."""

from __future__ import annotations

from dataclasses import dataclass

from kg.analysis import Evidence

__all__ = ["NODE_TYPES", "Group", "PaperDetails", "PaperRef", "Related", "View", "ViewEdge", "ViewNode"]

#: Node types a page knows how to draw, in legend order; anything else is "Other".
NODE_TYPES = ("Paper", "Author", "Method", "Dataset", "Task", "Metric", "Claim", "Other")


@dataclass(frozen=True)
class PaperRef:
    """A paper listed in a concept's panel: its title, or its derived label (``titled`` False)."""

    iri: str
    label: str
    titled: bool
    date: str | None


@dataclass(frozen=True)
class Related:
    """A typed relation of a concept, as its panel lists it."""

    relation: str  # "evaluatedOn", "broader" ...
    outgoing: bool  # the concept is the relation's subject
    other: str  # the other concept's label
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class Group:
    """A community of a map, named by its most central members."""

    number: int  # 1 = the largest
    name: str
    size: int


@dataclass(frozen=True)
class ViewNode:
    id: str  # the IRI (or "_:b0" for a blank node of a CONSTRUCT result)
    label: str
    type: str  # one of NODE_TYPES
    papers: int = 0  # papers it is linked to in the whole graph (authors: papers written)
    score: float = 0.0  # PageRank in the whole graph (0 when unknown): drawn as size
    evidence: tuple[Evidence, ...] = ()  # a few sentences behind it, each with its paper
    more_evidence: int = 0  # sentences behind it not listed in ``evidence``
    facts: tuple[str, ...] = ()  # other lines for its tooltip, e.g. literals of a CONSTRUCT result
    role: str = ""  # "focus" for the node asked about, "end" for a path's ends
    # Maps only (View.kind "concepts" or "papers"):
    group: int = 0  # its community's number (0: none)
    names: tuple[str, ...] = ()  # every name it is known by, for search
    trend: tuple[int, ...] = ()  # papers per period of View.periods
    paper_refs: tuple[PaperRef, ...] = ()  # some of its papers
    more_papers: int = 0
    related: tuple[Related, ...] = ()
    drawn_label: bool = True  # False: its label is not a name (a derived label), so the map writes none


@dataclass(frozen=True)
class ViewEdge:
    source: str
    target: str
    relations: tuple[str, ...]  # "mentions", "author of", "evaluatedOn", "kg:uses" ...
    directed: bool  # every statement reads source -> target (else: both ways)
    evidence: tuple[Evidence, ...] = ()
    more_evidence: int = 0
    strength: float = 0.0  # maps: association strength (co-occurrences over the expected), or similarity
    shared: int = 0  # maps: papers mentioning both (concepts) or concepts shared (papers)
    facts: tuple[str, ...] = ()  # other lines for its tooltip, e.g. the concepts two papers share


@dataclass(frozen=True)
class View:
    """One page's graph: what is drawn, and what was left out and why."""

    title: str
    nodes: tuple[ViewNode, ...]
    edges: tuple[ViewEdge, ...]
    notice: str | None = None  # said on the page, e.g. that only the most central part is drawn
    kind: str = "graph"  # "graph"; or a map: "concepts" (the overview) or "papers"
    groups: tuple[Group, ...] = ()  # a map's communities, largest first
    period: str = ""  # a map's trend periods: "year", "quarter" or "month"
    periods: tuple[str, ...] = ()
    sized_by: str = "centrality (PageRank) in the whole graph"  # a graph's legend: what a node's size says

    @property
    def paper_ids(self) -> tuple[str, ...]:
        return tuple(n.id for n in self.nodes if n.type == "Paper")


@dataclass(frozen=True)
class PaperDetails:
    """What a click on a paper shows."""

    iri: str
    title: str  # the title, or the derived label of an untitled paper
    authors: tuple[str, ...]  # in author-list order
    venue: str | None
    year: str | None
    claims: tuple[str, ...]  # claim sentences, in abstract order
