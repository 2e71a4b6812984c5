"""Drawing a table: the rows of a SELECT answer (`kg ask --viz`, `kg query
--viz`) as a graph page, the same page as every other view.

Patterns (:class:`~kg.query.library.DrawPattern`: a library question's
``# draw:`` header, or ``kg query --draw``) say how: for each row and each
pattern ``?s P ?o``, the values of columns ``s`` and ``o`` are nodes and a
link labelled ``P`` joins them. An IRI is the node of the graph it names,
typed and labelled from the store; a literal is a node of its own text
("Other"), so that the papers of one award, say, gather around it. Without
patterns each row is a star: its first column's node linked to each other IRI
of the row, the link labelled with the column's name.

Every link a row draws carries the row's evidence (its ``evidence...Paper``
and ``evidence...Sentence`` columns); a link with a paper at one end, only
the evidence from that paper. The row's cells that are drawn as no node (a
count, a label, a literal of a star) are lines of its first link's tooltip.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pyoxigraph import BlankNode, Literal, NamedNode, Store

from kg.analysis import Evidence
from kg.errors import KgError, QueryError
from kg.query.library import DrawPattern
from kg.query.run import run_query
from kg.views.construct import CLASS_TYPES, LABELS, compact
from kg.views.model import View, ViewEdge, ViewNode
from kg.views.page import DEFAULT_PAGE
from kg.views.selection import evidence_sample

__all__ = [
    "EmptyAnswerError",
    "answer_out",
    "answer_title",
    "asked_view",
    "answer_view",
    "check_columns",
    "draw_answer",
    "render_answer",
    "star",
]

_EVIDENCE = re.compile(r"evidence(\w*?)(Paper|Sentence)?")
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
#: Lines of a link's tooltip from its rows' other cells.
MAX_FACTS = 8
TEXT = "text:"  # the id of a literal's node: this prefix and its text


class EmptyAnswerError(KgError):
    """The answer drawn has no rows (exit code 1, as `kg path` without a path)."""

    exit_code = 1


def check_columns(patterns: Iterable[DrawPattern], columns: Sequence[str], where: str = "--draw") -> None:
    """A one-line error unless every column the patterns name is one of ``columns``."""
    unknown = sorted({c for p in patterns for c in p.columns() if c not in columns})
    if unknown:
        raise QueryError(
            f"{where} names {', '.join('?' + c for c in unknown)}, which the query does not select "
            f"(its columns: {', '.join('?' + c for c in columns) or 'none'})"
        )


def star(columns: Sequence[str]) -> tuple[DrawPattern, ...]:
    """Each row as a star: its first column linked to each other column (but evidence), labelled by the column's name."""
    return tuple(DrawPattern(columns[0], column, column) for column in columns[1:] if not _EVIDENCE.fullmatch(column))


def _node_id(term) -> str | None:
    if isinstance(term, NamedNode):
        return term.value
    if isinstance(term, BlankNode):
        return f"_:{term.value}"
    if isinstance(term, Literal):
        return TEXT + term.value
    return None


def _cell(term) -> str:
    """A cell as a tooltip line shows it: an IRI prefixed, a blank node as ``_:b0``, a literal's text."""
    if isinstance(term, NamedNode):
        return compact(term.value)
    return f"_:{term.value}" if isinstance(term, BlankNode) else term.value


@dataclass
class _Node:
    type: str = "Other"
    label: str = ""
    papers: int = 0


def _describe(store: Store, iris: set[str]) -> dict[str, _Node]:
    """Type, label and papers (mentioning a concept, written by a person) of each IRI, from the store."""
    found = {iri: _Node(label=compact(iri)) for iri in iris}
    if not iris:
        return found
    values = " ".join(str(NamedNode(iri)) for iri in sorted(iris))
    properties = " ".join(str(NamedNode(p)) for p in [_RDF_TYPE, *LABELS])
    labels: dict[str, dict[str, str]] = defaultdict(dict)
    types: dict[str, set[str]] = defaultdict(set)
    sparql = (
        f"SELECT ?node ?property ?value WHERE {{ VALUES ?node {{ {values} }} VALUES ?property {{ {properties} }} ?node ?property ?value }}"
    )
    for s in run_query(store, sparql).solutions:
        node, prop, value = s["node"].value, s["property"].value, s["value"]
        if prop == _RDF_TYPE and value.value in CLASS_TYPES:
            types[node].add(CLASS_TYPES[value.value])
        elif prop != _RDF_TYPE and isinstance(value, Literal):
            labels[node].setdefault(prop, value.value)
    for node, kinds in types.items():
        found[node].type = sorted(kinds)[0]
    for node, by in labels.items():
        found[node].label = next(by[p] for p in LABELS if p in by)
    counts = run_query(
        store,
        f"SELECT ?node (COUNT(DISTINCT ?paper) AS ?papers) WHERE {{ {{ VALUES ?node {{ {values} }} ?paper kg:mentions ?node }} "
        f"UNION {{ VALUES ?node {{ {values} }} ?paper dcterms:creator ?node }} }} GROUP BY ?node",
    ).solutions
    for s in counts:
        found[s["node"].value].papers = int(s["papers"].value)
    return found


@dataclass
class _Link:
    statements: set[tuple[str, str, str]] = field(default_factory=set)
    evidence: set[Evidence] = field(default_factory=set)
    facts: set[str] = field(default_factory=set)


def _evidence_groups(columns: Sequence[str]) -> list[tuple[int | None, int]]:
    """(paper column, sentence column) of each evidence group: evidencePaper/evidenceSentence, evidenceOtherPaper/..."""
    groups: dict[str, dict[str, int]] = defaultdict(dict)
    for index, column in enumerate(columns):
        if match := _EVIDENCE.fullmatch(column):
            groups[match[1]][match[2] or "Sentence"] = index
    return [(group.get("Paper"), group["Sentence"]) for _, group in sorted(groups.items()) if "Sentence" in group]


def answer_view(
    store: Store,
    columns: Sequence[str],
    rows: Sequence[Sequence],
    patterns: Sequence[DrawPattern] | None,
    title: str,
    asked: Iterable[str] = (),
) -> View:
    """The rows (RDF terms, one per column; None where unbound) drawn by
    ``patterns`` (None: :func:`star`); the nodes of the ``asked`` columns (a
    question's parameters) are drawn as the nodes asked about."""
    stars = patterns is None
    drawing = tuple(patterns) if patterns is not None else star(columns) if columns else ()
    check_columns(drawing, columns)
    at = {c: i for i, c in enumerate(columns)}
    groups = _evidence_groups(columns)
    evidence_columns = {i for i, c in enumerate(columns) if _EVIDENCE.fullmatch(c)}

    def ends(row, pattern: DrawPattern):
        subject, obj = row[at[pattern.subject]], row[at[pattern.object]]
        if stars and not isinstance(obj, (NamedNode, BlankNode)):
            obj = None  # a star's literal is a line of the link's tooltip
        return subject, obj

    iris = {t.value for row in rows for p in drawing for t in ends(row, p) if isinstance(t, NamedNode)}
    iris |= {row[paper].value for row in rows for paper, _ in groups if paper is not None and isinstance(row[paper], NamedNode)}
    known = _describe(store, iris)
    nodes: dict[str, _Node] = {}
    links: dict[tuple[str, str], _Link] = defaultdict(_Link)
    in_rows: Counter[str] = Counter()  # drawn as size: the answer's hub is the largest
    for row in rows:
        evidence = []
        for paper, sentence in groups:
            if isinstance(row[sentence], Literal):
                iri = row[paper].value if paper is not None and row[paper] is not None else ""
                evidence.append(Evidence(iri, known[iri].label if iri in known else "", row[sentence].value))
        drawn_columns, first, row_nodes = set(), None, set()
        for pattern in drawing:
            subject, obj = ends(row, pattern)
            if subject is None:
                continue
            ids = []
            for column, term in ((pattern.subject, subject), (pattern.object, obj)):
                if (node := _node_id(term)) is not None:
                    nodes.setdefault(node, known.get(node) or _Node(label=term.value if isinstance(term, Literal) else node))
                    drawn_columns.add(column)
                    row_nodes.add(node)
                    ids.append(node)
            relation = _relation(row, at, pattern)
            if len(ids) < 2 or ids[0] == ids[1] or relation is None:
                continue
            source, target = ids
            link = links[(min(source, target), max(source, target))]
            link.statements.add((source, relation, target))
            papers = {n for n in ids if nodes[n].type == "Paper"}
            link.evidence.update(e for e in evidence if not papers or e.paper in papers)
            first = first or link
            if pattern.predicate_column:
                drawn_columns.add(pattern.predicate_column)
        in_rows.update(row_nodes)
        if first is not None:
            labels = {nodes[n].label for n in row_nodes}
            first.facts.update(
                f"{column}: {_cell(term)}"
                for column, term in zip(columns, row)
                if term is not None
                and column not in drawn_columns
                and at[column] not in evidence_columns
                and not (isinstance(term, Literal) and term.value in labels)
            )
    focus = {_node_id(row[at[c]]) for c in asked if c in at for row in rows} & set(nodes)
    return _view(nodes, links, in_rows, focus, title, len(rows))


def _relation(row, at: dict[str, int], pattern: DrawPattern) -> str | None:
    if pattern.predicate_column:
        term = row[at[pattern.predicate_column]]
        return None if term is None else _cell(term)
    return compact(pattern.predicate[1:-1]) if pattern.predicate.startswith("<") else pattern.predicate


def _view(nodes: dict[str, _Node], links: dict[tuple[str, str], _Link], in_rows: Counter[str], focus: set, title: str, rows: int) -> View:
    behind: defaultdict[str, set[Evidence]] = defaultdict(set)
    for pair, link in links.items():
        for end in pair:
            behind[end] |= link.evidence
    view_nodes = []
    for node in sorted(nodes):
        info = nodes[node]
        shown, more = evidence_sample(behind[node])
        view_nodes.append(
            ViewNode(node, info.label, info.type, info.papers, float(in_rows[node]), shown, more, role="focus" if node in focus else "")
        )
    edges = []
    for _, link in sorted(links.items()):
        head, _, tail = min(link.statements)
        shown, more = evidence_sample(link.evidence)
        facts = sorted(link.facts)
        if len(facts) > MAX_FACTS:
            facts = [*facts[: MAX_FACTS - 1], f"… and {len(facts) - MAX_FACTS + 1} more"]
        relations = tuple(sorted({r for _, r, _ in link.statements}))
        edges.append(ViewEdge(head, tail, relations, all(s == head for s, _, _ in link.statements), shown, more, facts=tuple(facts)))
    notice = None if rows else "The answer has no rows: there is nothing to draw."
    return View(title, tuple(view_nodes), tuple(edges), notice, sized_by="the rows of the answer that name it")


def answer_title(question: str, name: str, params: Iterable[tuple[str, str]]) -> str:
    """``kg: Which methods ...? (dataset: Waymo)``: the question and what it was asked with."""
    asked = ", ".join(f"{param}: {value}" for param, value in params)
    return f"kg: {question or name}" + (f" ({asked})" if asked else "")


def answer_out(name: str, values: Iterable[str] = ()) -> Path:
    """exports/kg-ask-NAME-VALUES.html: where a drawn answer goes unless told."""
    from kg.views import _slug

    return DEFAULT_PAGE.with_name("-".join(["kg-ask", _slug(name), *(_slug(v) for v in values)]) + ".html")


def render_answer(store: Store, view: View) -> str:
    from kg.views.details import paper_details
    from kg.views.page import render_page

    return render_page(view, paper_details(store, view.paper_ids))


def asked_view(answer) -> View:
    """The view of ``answer`` (:class:`kg.query.ask.Answer`), drawn as its
    query's ``# draw:`` header says (each row a star without one), titled with
    the question and its parameters, whose nodes are the nodes asked about."""
    if answer.store is None or answer.terms is None:
        raise KgError("this answer holds no store to draw from: ask it with kg.open().ask(...) or kg.query.ask.ask(store, ...)")
    title = answer_title(answer.question, answer.query, answer.params)
    return answer_view(answer.store, answer.terms.columns, answer.terms.rows, answer.drawing or None, title, dict(answer.params))


def draw_answer(answer, out: Path | None = None) -> Path:
    """Write the page of :func:`asked_view` to ``out`` (default :func:`answer_out`); the page's path."""
    from kg.views.page import write_page

    view = asked_view(answer)
    return write_page(render_answer(answer.store, view), out or answer_out(answer.query, [v for _, v in answer.params]))
