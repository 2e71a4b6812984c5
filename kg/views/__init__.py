"""Views: the graph, or the part of it a user asks about, as one self-contained
interactive HTML page (pyvis and vis-network; pyvis stays in this package).

    kg.analysis.load_graph(store)                 NetworkX graph
      -> maps.concept_map (the default) / maps.paper_map,
         selection.overview / neighbourhood / path_view / community_view,
         construct.construct_view (a SPARQL CONSTRUCT's triples)    View
      -> details.paper_details(store, view.paper_ids)              PaperDetails
      -> page.render_page(view, details) -> page.write_page(html, out)
         (or page.PageDraft(html, out), committed later: `kg build` does, with its store swap)

:func:`draw` does all of it for one :class:`ViewSpec`, as `kg viz` and
`kg build` do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kg.views.model import NODE_TYPES, PaperDetails, View, ViewEdge, ViewNode
from kg.views.page import DEFAULT_PAGE
from kg.views.selection import DEFAULT_LIMIT

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_PAGE",
    "NODE_TYPES",
    "PaperDetails",
    "View",
    "ViewEdge",
    "ViewNode",
    "ViewSpec",
    "default_out",
    "draft",
    "draw",
    "select_view",
]


@dataclass(frozen=True)
class ViewSpec:
    """What to draw: at most one of ``focus``, ``path``, ``community``, ``query``,
    ``papers`` (the paper map) and ``whole`` (every node: papers, authors and
    concepts); none: the concept map of the concepts in ``min_papers`` papers or more."""

    focus: str | None = None
    depth: int = 1
    path: tuple[str, str] | None = None
    community: int | None = None
    query: Path | None = None
    limit: int = DEFAULT_LIMIT
    title: str | None = None
    papers: bool = False
    whole: bool = False
    min_papers: int = 1


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:40].strip("-") or "view"


def default_out(spec: ViewSpec) -> Path:
    """Where `kg viz` writes a page unless told: exports/kg.html for the concept
    map, exports/kg-papers.html, kg-graph.html, kg-focus-NAME.html and so on for the others."""
    if spec.focus is not None:
        return DEFAULT_PAGE.with_name(f"kg-focus-{_slug(spec.focus)}.html")
    if spec.path is not None:
        return DEFAULT_PAGE.with_name(f"kg-path-{_slug(spec.path[0])}--{_slug(spec.path[1])}.html")
    if spec.community is not None:
        return DEFAULT_PAGE.with_name(f"kg-community-{spec.community}.html")
    if spec.query is not None:
        return DEFAULT_PAGE.with_name(f"kg-query-{_slug(spec.query.stem)}.html")
    if spec.papers:
        return DEFAULT_PAGE.with_name("kg-papers.html")
    if spec.whole:
        return DEFAULT_PAGE.with_name("kg-graph.html")
    return DEFAULT_PAGE


def select_view(store, graph, spec: ViewSpec) -> View:
    """The :class:`View` ``spec`` asks for, from ``graph`` (``kg.analysis.load_graph(store)``)."""
    from kg.errors import KgError
    from kg.views import maps, selection

    if spec.focus is not None:
        return selection.neighbourhood(graph, spec.focus, spec.depth, spec.limit, spec.title)
    if spec.path is not None:
        return selection.path_view(graph, spec.path[0], spec.path[1], title=spec.title)
    if spec.community is not None:
        return selection.community_view(graph, spec.community, spec.limit, title=spec.title)
    if spec.query is not None:
        from kg.views.construct import construct_view

        try:
            sparql = spec.query.read_text(encoding="utf-8")
        except OSError as exc:
            raise KgError(f"{spec.query}: cannot read the query ({exc.strerror or exc})") from exc
        return construct_view(store, graph, sparql, spec.limit, spec.title, source=str(spec.query))
    if spec.papers:
        return maps.paper_map(graph, spec.limit, spec.title)
    if spec.whole:
        return selection.overview(graph, spec.limit, spec.title)
    return maps.concept_map(graph, spec.limit, spec.min_papers, spec.title)


def draw(store, spec: ViewSpec = ViewSpec(), out: Path | None = None) -> tuple[View, Path]:
    """Draw what ``spec`` asks for from ``store`` (an open pyoxigraph Store) and
    write the page to ``out`` (default: :func:`default_out`)."""
    view, page = draft(store, spec, out)
    return view, page.commit()


def draft(store, spec: ViewSpec = ViewSpec(), out: Path | None = None):
    """:func:`draw`, but the page is only written beside ``out``: a
    :class:`~kg.views.page.PageDraft` to commit (or discard)."""
    from kg.analysis import load_graph
    from kg.views.details import paper_details
    from kg.views.page import PageDraft, render_page

    view = select_view(store, load_graph(store), spec)
    html = render_page(view, paper_details(store, view.paper_ids))
    return view, PageDraft(html, out or default_out(spec))
