"""Rendering a :class:`~kg.views.model.View` as one self-contained HTML page.

The nodes and edges of a graph view are held by a pyvis ``Network`` (nodes added with
``add_node``, edges given in bulk as vis edge dicts, since pyvis's
``add_edge`` scans every edge already added), positioned by the seeded
layout of :mod:`kg.views.layout` with physics off, so the page opens
settled. A map (:mod:`kg.views.maps`) is written as vis data directly, laid
out by :func:`~kg.views.layout.map_layout`; what only its panel, tooltips,
search and filters need (sentences, papers, names, trends, their strings in
one text table) comes after the scripts, so the browser reads it after the
first drawing. The page comes from this package's own Jinja template
(``templates/page.html``), not pyvis's, which links Bootstrap from a CDN even
with ``cdn_resources='in_line'``: vis-network's script and style (from
pyvis's bundled copy), the page's own script and style and the data are all
inline, and a Content-Security-Policy forbids every request and every script
but those (by hash), so nothing leaves the page and no markup in the corpus
can run. Corpus text reaches the page only as JSON inside data blocks (with
``<``, ``>`` and ``&`` escaped) and is put on screen with ``textContent`` or
vis-network's text tooltips, never as HTML.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from kg.errors import KgError
from kg.views.layout import layout, map_layout
from kg.views.maps import PLAIN_LINK
from kg.views.model import PaperDetails, View, ViewNode

__all__ = ["DEFAULT_PAGE", "STYLE", "PageDraft", "render_page", "script_json", "write_page"]

DEFAULT_PAGE = Path("exports") / "kg.html"
TEMPLATES = Path(__file__).with_name("templates")
VIS_VERSION = "9.1.2"
MAX_LABEL = 32  # characters of a label drawn on the canvas (the tooltip has it all)
MAX_SENTENCE = 320
MAP_SENTENCE = 240  # a map's sentences are cut shorter: a 5,000-concept map holds some 60,000
# From this many nodes, links are not labelled on the canvas (the relation stays in their tooltips
# and the info panel: drawing thousands of labels makes every redraw take seconds) and hide while
# the view is dragged or zoomed.
BIG = 1000

#: Colour (Okabe-Ito, readable with colour-blindness) and vis-network shape of each node type.
STYLE = {
    "Paper": ("#0072B2", "square"),
    "Author": ("#E69F00", "triangle"),
    "Method": ("#009E73", "dot"),
    "Dataset": ("#CC79A7", "diamond"),
    "Task": ("#D55E00", "hexagon"),
    "Metric": ("#56B4E9", "triangleDown"),
    "Claim": ("#F0E442", "star"),
    "Other": ("#999999", "dot"),
}
#: Community colours of the maps (Paul Tol's "muted" scheme, distinct with colour-blindness); later communities are grey.
GROUP_COLOURS = ("#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499")
NO_GROUP = "#BBBBBB"
# The legend's swatches: each shape as an SVG path in a 20x20 box.
_SWATCH = {
    "square": "M3 3h14v14H3z",
    "triangle": "M10 2l8.5 15h-17z",
    "dot": "M10 2a8 8 0 1 0 0.01 0z",
    "diamond": "M10 1l9 9-9 9-9-9z",
    "hexagon": "M10 1.5l7.4 4.25v8.5L10 18.5l-7.4-4.25v-8.5z",
    "triangleDown": "M1.5 3h17L10 18z",
    "star": "M10 1.5l2.5 5.5 6 .6-4.5 4 1.3 5.9L10 14.5l-5.3 3 1.3-5.9-4.5-4 6-.6z",
}


def _darker(colour: str, factor: float = 0.7) -> str:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(int(c * factor) for c in (r, g, b)))


def _options(nodes: int) -> dict:
    groups = {
        name: {
            "shape": shape,
            "color": {
                "background": colour,
                "border": _darker(colour),
                "highlight": {"background": colour, "border": "#000000"},
                "hover": {"background": colour, "border": "#000000"},
            },
        }
        for name, (colour, shape) in STYLE.items()
    }
    return {
        "groups": groups,
        "nodes": {
            "borderWidth": 1,
            "font": {"size": 14, "face": "sans-serif", "strokeWidth": 3, "strokeColor": "#ffffff"},
            "scaling": {"min": 7, "max": 28, "label": {"enabled": True, "min": 11, "max": 16, "drawThreshold": 8, "maxVisible": 18}},
        },
        "edges": {
            "smooth": False,
            "width": 1,
            "selectionWidth": 2,
            "color": {"color": "#a0a8b0", "highlight": "#303030", "hover": "#303030"},
            "font": {"size": 10, "color": "#505050", "strokeWidth": 3, "strokeColor": "#ffffff", "align": "middle"},
            "arrows": {"to": {"scaleFactor": 0.5}},
        },
        "physics": {"enabled": False},
        "layout": {"improvedLayout": False, "randomSeed": 0},
        "interaction": {"hover": True, "tooltipDelay": 150, "hideEdgesOnDrag": nodes >= BIG, "hideEdgesOnZoom": nodes >= BIG},
    }


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _evidence(evidence) -> list[list[str]]:
    return [[e.paper_label, _short(e.sentence, MAX_SENTENCE)] for e in evidence]


def group_colour(number: int) -> str:
    return GROUP_COLOURS[number - 1] if 1 <= number <= len(GROUP_COLOURS) else NO_GROUP


def _network(view: View):
    """The view as a pyvis Network: positioned nodes, edges, vis options."""
    from pyvis.network import Network

    positions = layout([n.id for n in view.nodes], [(e.source, e.target) for e in view.edges], {n.id: n.score for n in view.nodes})
    top = max((n.score for n in view.nodes), default=0.0)
    net = Network(height="100%", width="100%", directed=False, heading=view.title, cdn_resources="in_line")
    net.options = _options(len(view.nodes))
    for node in view.nodes:
        x, y = positions[node.id]
        extra = {"borderWidth": 5} if node.role else {}
        net.add_node(
            node.id,
            label=_short(node.label, MAX_LABEL),
            shape=STYLE[node.type][1],
            group=node.type,
            value=round(math.sqrt(node.score / top), 4) if top > 0 else 0.5,
            x=x,
            y=y,
            kgLabel=node.label,
            kgPapers=node.papers,
            kgEvidence=_evidence(node.evidence),
            kgMore=node.more_evidence,
            kgFacts=list(node.facts),
            **extra,
        )
    known = set(net.node_ids)
    big = len(view.nodes) >= BIG
    for number, edge in enumerate(view.edges):
        if edge.source not in known or edge.target not in known:
            raise ValueError(f"edge {edge.source} -> {edge.target} has an end that is not drawn")
        # Bulk: pyvis's add_edge looks through every edge already added, quadratic at scale.
        net.edges.append(
            {
                "id": f"e{number}",
                "from": edge.source,
                "to": edge.target,
                **({} if big else {"label": " + ".join(edge.relations)}),
                "kgRelation": " + ".join(edge.relations),
                "arrows": "to" if edge.directed else "",
                "kgEvidence": _evidence(edge.evidence),
                "kgMore": edge.more_evidence,
                "kgFacts": list(edge.facts),
            }
        )
    return net


class _Texts:
    """A map's strings (papers' labels, sentences, names) held once, in first-use order, and referred to by number:
    the same sentence backs a concept, its links and its relations, so a 5,000-concept page is a fraction of the size."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.index.setdefault(text, len(self.index))

    def evidence(self, evidence) -> list[list[int]]:
        return [[self(e.paper_label), self(_short(e.sentence, MAP_SENTENCE))] for e in evidence]

    @property
    def table(self) -> list[str]:
        return list(self.index)


def _map_node(node: ViewNode, top: float) -> dict:
    """What a map draws of a node: shaped by type; the page's script colours it by community and labels it."""
    return {
        "id": node.id,
        "x": 0.0,
        "y": 0.0,
        "shape": STYLE[node.type][1],
        "value": round(math.sqrt(node.score / top), 4) if top > 0 else 0.5,
        "kgType": node.type,
        "kgLabel": node.label,
        "kgPapers": node.papers,
        "kgMore": node.more_evidence,
        "kgGroup": node.group,
        "kgDraw": node.drawn_label,
        "kgMorePapers": node.more_papers,
    }


def _node_details(node: ViewNode, texts: _Texts) -> dict:
    """What a map's panel, tooltips, search and period filter show of a node, and drawing does not need."""
    return {
        "kgEvidence": texts.evidence(node.evidence),
        "kgFacts": list(node.facts),
        "kgNames": list(node.names),
        "kgTrend": list(node.trend),
        "kgPaperList": [[texts(r.iri), texts(r.label), r.titled, r.date] for r in node.paper_refs],
        "kgRelated": [[r.relation, r.outgoing, texts(r.other), texts.evidence(r.evidence)] for r in node.related],
    }


def _map_data(view: View) -> tuple[list[dict], list[dict], dict, dict]:
    """A map's vis nodes (community colour, type shape; the page's script draws the labels),
    links (co-occurrence grey, width by strength; stated relations dark), options, and the
    details of each (sentences, papers, names, trends: the page reads them after drawing)
    with the text table they refer to."""
    strengths = [(e.source, e.target, math.log1p(e.strength) if e.strength else 1.0) for e in view.edges]
    positions = map_layout([n.id for n in view.nodes], strengths, {n.id: n.score for n in view.nodes})
    top = max((n.score for n in view.nodes), default=0.0)
    texts = _Texts()
    nodes, node_details = [], []
    for node in view.nodes:
        item = _map_node(node, top)
        item["x"], item["y"] = positions[node.id]
        nodes.append(item)
        node_details.append(_node_details(node, texts))
    options = _options(len(view.nodes))
    options["nodes"]["scaling"] = {"min": 6, "max": 40, "label": {"enabled": False}}
    options["edges"]["color"] = {"color": "#c3c9cf", "highlight": "#000000", "hover": "#000000"}
    # The page draws a map's labels itself; vis would still work out the fonts of every node and link.
    for kind in ("nodes", "edges"):
        del options[kind]["font"]
    options["interaction"].update(keyboard={"enabled": True, "bindToWindow": False}, hideEdgesOnDrag=len(view.nodes) >= BIG)
    widest = max((e.strength for e in view.edges), default=0.0)
    number_of = {n.id: i for i, n in enumerate(view.nodes)}
    edges, edge_details = [], []
    for edge in view.edges:
        typed = edge.relations != (PLAIN_LINK[view.kind],)
        width = 1 + 3 * math.log1p(edge.strength) / math.log1p(widest) if widest and not typed else 1.5
        item = {
            "from": number_of[edge.source],  # the node's place in the list: the page puts its id back
            "to": number_of[edge.target],
            "kgStrength": round(edge.strength, 2),
            "kgShared": edge.shared,
            "width": round(width, 2),
        }
        # What most links have or do not have is left out (the page fills it in, and numbers the links):
        # a fifth of a big map's bytes.
        if typed:
            item.update(kgTyped=True, kgRelation=" + ".join(edge.relations))
        if edge.directed:
            item["arrows"] = "to"
        if edge.more_evidence:
            item["kgMore"] = edge.more_evidence
        edges.append(item)
        edge_details.append({"kgEvidence": texts.evidence(edge.evidence), **({"kgFacts": list(edge.facts)} if edge.facts else {})})
    return nodes, edges, options, {"nodes": node_details, "edges": edge_details, "texts": texts.table}


def script_json(value) -> str:
    """JSON for a ``<script>`` data block: ``<``, ``>``, ``&`` (and JS line separators) escaped,
    so no text in it can close the block or open markup; keys sorted, for stable bytes."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def _csp_hash(script: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii") + "'"


@lru_cache(maxsize=1)
def _assets() -> dict[str, str]:
    import pyvis

    vis = Path(pyvis.__file__).parent / "templates" / "lib" / f"vis-{VIS_VERSION}"
    assets = {
        "vis_js": (vis / "vis-network.min.js").read_text(encoding="utf-8"),
        "vis_css": (vis / "vis-network.css").read_text(encoding="utf-8"),
        "page_js": (TEMPLATES / "view.js").read_text(encoding="utf-8"),
        "map_js": (TEMPLATES / "map.js").read_text(encoding="utf-8"),
        "page_css": (TEMPLATES / "view.css").read_text(encoding="utf-8"),
    }
    for name, text in assets.items():
        closing = "</script" if name.endswith("_js") else "</style"
        if closing in text.lower():
            raise KgError(f"{name} contains {closing!r} and cannot be inlined")
    return assets


@lru_cache(maxsize=1)
def _template():
    from jinja2 import Environment, FileSystemLoader

    return Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, keep_trailing_newline=True).get_template("page.html")


def _map_info(view: View) -> dict | None:
    if view.kind == "graph":
        return None
    return {
        "kind": view.kind,
        "groups": [
            {
                "number": g.number,
                "name": g.name,
                "size": g.size,
                "colour": group_colour(g.number),
                "border": _darker(group_colour(g.number)),
            }
            for g in view.groups
        ],
        "period": view.period,
        "periods": list(view.periods),
        "otherColour": NO_GROUP,
        "otherBorder": _darker(NO_GROUP),
        "link": PLAIN_LINK[view.kind],
        "typedColour": {"color": "#5a5a5a", "highlight": "#000000", "hover": "#000000"},
    }


def render_page(view: View, papers: Mapping[str, PaperDetails] | None = None) -> str:
    """The page for ``view``; ``papers`` are what a click on each paper shows."""
    from markupsafe import Markup

    details: dict | None = None
    if view.kind == "graph":
        net = _network(view)
        nodes, edges, heading, _height, _width, vis_options = net.get_network_data()
        options, drawn = json.loads(vis_options), set(net.node_map)
    else:
        nodes, edges, options, details = _map_data(view)
        heading, drawn = view.title, {n.id for n in view.nodes}
    counts = Counter(n.type for n in view.nodes)
    types = [
        {"name": name, "colour": colour, "path": _SWATCH[shape], "count": counts[name]}
        for name, (colour, shape) in STYLE.items()
        if counts[name] or (view.kind == "graph" and name != "Other")
    ]
    data = {
        "nodes": nodes,
        "edges": edges,
        "options": options,
        "papers": {
            iri: {"title": p.title, "authors": list(p.authors), "venue": p.venue, "year": p.year, "claims": list(p.claims)}
            for iri, p in sorted((papers or {}).items())
            if iri in drawn
        },
        "types": [t["name"] for t in types],
        "map": _map_info(view),
    }
    assets = _assets()
    return _template().render(
        title=heading,
        notice=view.notice,
        node_count=len(nodes),
        edge_count=len(edges),
        big=len(nodes) >= BIG,
        sized_by=view.sized_by,
        types=types,
        kind=view.kind,
        groups=data["map"]["groups"] if data["map"] else [],
        other_colour=NO_GROUP,
        data=Markup(script_json(data)),
        details=Markup(script_json(details)) if details is not None else "",
        vis_js=Markup(assets["vis_js"]),
        vis_css=Markup(assets["vis_css"]),
        page_js=Markup(assets["page_js"]),
        page_css=Markup(assets["page_css"]),
        map_js=Markup(assets["map_js"]) if view.kind != "graph" else "",
        script_hashes=Markup(" ".join(_csp_hash(assets[k]) for k in ("vis_js", "page_js", "map_js")[: 3 if view.kind != "graph" else 2])),
    )


class PageDraft:
    """A page written in full to a temporary file beside ``out``; :meth:`commit`
    renames it into place (in one step, so it can go with a store swap, as in
    ``kg build``), :meth:`discard` removes it unless it was committed."""

    def __init__(self, html: str, out: str | Path):
        from kg.export.serialize import Staged

        self.out = Path(out)
        with self._errors():
            self._staged = Staged([(self.out, lambda handle: handle.write(html.encode("utf-8")))])

    def commit(self) -> Path:
        with self._errors():
            self._staged.commit()
        return self.out

    def discard(self) -> None:
        self._staged.discard()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except OSError as exc:
            raise KgError(f"{self.out}: cannot write the page ({exc.strerror or exc})") from exc


def write_page(html: str, out: str | Path) -> Path:
    """Write ``html`` to ``out`` atomically (a temporary file renamed into place)."""
    return PageDraft(html, out).commit()
