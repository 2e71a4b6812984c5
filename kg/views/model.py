"""What a page draws: plain frozen dataclasses passed from selection
(:mod:`kg.views.selection`, :mod:`kg.views.construct`) to rendering
(:mod:`kg.views.page`)."""

from __future__ import annotations

from dataclasses import dataclass

from kg.analysis import Evidence

__all__ = ["NODE_TYPES", "PaperDetails", "View", "ViewEdge", "ViewNode"]

#: Node types a page knows how to draw, in legend order; anything else is "Other".
NODE_TYPES = ("Paper", "Author", "Method", "Dataset", "Task", "Metric", "Claim", "Other")


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


@dataclass(frozen=True)
class ViewEdge:
    source: str
    target: str
    relations: tuple[str, ...]  # "mentions", "author of", "evaluatedOn", "kg:uses" ...
    directed: bool  # every statement reads source -> target (else: both ways)
    evidence: tuple[Evidence, ...] = ()
    more_evidence: int = 0


@dataclass(frozen=True)
class View:
    """One page's graph: what is drawn, and what was left out and why."""

    title: str
    nodes: tuple[ViewNode, ...]
    edges: tuple[ViewEdge, ...]
    notice: str | None = None  # said on the page, e.g. that only the most central part is drawn

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
