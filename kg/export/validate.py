"""SHACL validation of the graph against ``ontology/shapes.ttl``, with pySHACL.

The ontology (``ontology/kg.ttl``) is mixed into the data graph so that
``sh:class kg:Concept`` accepts a ``kg:Method``: a store and its exports hold
it already, a file from elsewhere may not. A store is read through an
N-Triples dump; a file through rdflib's parsers (format from its extension),
a TriG or N-Quads file as the union of all its graphs, default and named.

Reading a file never reaches out: rdflib would fetch a JSON-LD ``@context``
(or ``@import``) named by an http(s) URL, so a Python audit hook, the
mechanism rdflib's security notes give, refuses every URL that is not a
local file while kg reads one.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import urllib.parse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from kg.errors import KgError

__all__ = ["ValidationError", "Violation", "ValidationReport", "validate_file", "validate_graph", "validate_store"]

_FORMATS = {
    ".ttl": "turtle",
    ".nt": "nt",
    ".jsonld": "json-ld",
    ".json": "json-ld",
    ".trig": "trig",
    ".nq": "nquads",
    ".rdf": "xml",
    ".xml": "xml",
}


class ValidationError(KgError):
    """The graph to validate cannot be read."""


@dataclass(frozen=True)
class Violation:
    focus: str  # the node that breaks the shape
    path: str  # the property (or "" for a node-level constraint)
    constraint: str  # e.g. "MinCountConstraintComponent"
    message: str
    value: str  # the offending value, if any
    shape: str


@dataclass(frozen=True)
class ValidationReport:
    conforms: bool
    triples: int
    violations: tuple[Violation, ...]

    def summary(self) -> list[tuple[str, str, str, int]]:
        """(constraint, path, an example message, count) for each kind of violation, most frequent first."""
        counts = Counter((v.constraint, v.path) for v in self.violations)
        example: dict[tuple[str, str], str] = {}
        for v in self.violations:
            example.setdefault((v.constraint, v.path), v.message)
        return [(c, p, example[(c, p)], n) for (c, p), n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def _shapes_and_ontology():
    import rdflib

    from kg.vocab import ontology_file

    shapes, ontology = rdflib.Graph(), rdflib.Graph()
    shapes.parse(ontology_file("shapes.ttl"), format="turtle")
    ontology.parse(ontology_file("kg.ttl"), format="turtle")
    return shapes, ontology


def _local(term) -> str:
    text = str(term) if term is not None else ""
    return text.rsplit("#", 1)[-1] if "#" in text else text


def _compact(iri: str) -> str:
    from pyoxigraph import NamedNode

    from kg.query.results import compact

    return compact(NamedNode(iri))


def _path_text(results, path) -> str:
    """A property path as SPARQL writes it: ``kg:startOffset``, ``^kg:hasMention``."""
    from rdflib import BNode
    from rdflib.namespace import SH

    if path is None:
        return ""
    if isinstance(path, BNode):
        inverse = results.value(path, SH.inversePath)
        return f"^{_compact(str(inverse))}" if inverse is not None else "(complex path)"
    return _compact(str(path))


def validate_graph(data) -> ValidationReport:
    """Validate an ``rdflib.Graph``."""
    import pyshacl
    from rdflib.namespace import SH

    shapes, ontology = _shapes_and_ontology()
    triples = len(data)
    conforms, results, _ = pyshacl.validate(data, shacl_graph=shapes, ont_graph=ontology, inference="none", allow_warnings=True)
    violations = []
    for result in results.subjects(predicate=SH.resultSeverity):
        violations.append(
            Violation(
                focus=str(results.value(result, SH.focusNode)),
                path=_path_text(results, results.value(result, SH.resultPath)),
                constraint=_local(results.value(result, SH.sourceConstraintComponent)),
                message=str(results.value(result, SH.resultMessage) or ""),
                value=str(results.value(result, SH.value) or ""),
                shape=str(results.value(result, SH.sourceShape) or ""),
            )
        )
    violations.sort(key=lambda v: (v.constraint, v.path, v.focus, v.value))
    return ValidationReport(bool(conforms), triples, tuple(violations))


def validate_store(store) -> ValidationReport:
    """Validate the content of a pyoxigraph ``Store``."""
    import rdflib
    from pyoxigraph import DefaultGraph, RdfFormat

    data = rdflib.Graph()
    data.parse(data=store.dump(format=RdfFormat.N_TRIPLES, from_graph=DefaultGraph()), format="nt")
    return validate_graph(data)


def validate_file(path: str | Path) -> ValidationReport:
    """Validate an RDF file (Turtle, N-Triples, JSON-LD, TriG, N-Quads, RDF/XML)."""
    import rdflib

    path = Path(path)
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValidationError(f"{path}: unknown RDF format; use .ttl, .nt, .jsonld, .trig, .nq or .rdf")
    if not path.is_file():
        raise ValidationError(f"{path}: no such file")
    quads = fmt in {"trig", "nquads"}
    data = rdflib.Dataset() if quads else rdflib.Graph()
    try:
        with _offline():
            data.parse(path, format=fmt)
    except _RemoteFetch as refused:
        from kg.query.http import redact

        raise ValidationError(
            f"{path}: names the remote JSON-LD context {redact(refused.url)}, and kg never fetches anything from the network; "
            "save the context as a file beside it and name it by its file name"
        ) from None
    except Exception as exc:  # rdflib raises many types for bad input
        raise ValidationError(f"{path}: not valid {fmt}: {_parse_problem(exc)}") from exc
    if quads:  # Dataset.triples() reads only the default graph: take every graph's
        assert isinstance(data, rdflib.Dataset)  # made one above for quads
        union = rdflib.Graph()
        for subject, predicate, obj, _ in data.quads((None, None, None, None)):
            union.add((subject, predicate, obj))
        data = union
    return validate_graph(data)


class _RemoteFetch(Exception):
    def __init__(self, url: str):
        super().__init__(url)
        self.url = url


_OFFLINE = contextvars.ContextVar("kg_offline", default=False)
_HOOKED = False


def _refuse_remote(event: str, args: tuple) -> None:
    # The event urllib raises before it opens any URL; a file: URL of this machine stays local.
    if event == "urllib.Request" and _OFFLINE.get():
        url = urllib.parse.urlsplit(str(args[0]))
        if url.scheme.lower() != "file" or url.netloc.lower() not in ("", "localhost"):
            raise _RemoteFetch(str(args[0]))


@contextlib.contextmanager
def _offline():
    """Refuse, in this thread, every URL but a local file's while the block runs."""
    global _HOOKED
    if not _HOOKED:  # an audit hook cannot be removed; it does nothing outside this block
        sys.addaudithook(_refuse_remote)
        _HOOKED = True
    token = _OFFLINE.set(True)
    try:
        yield
    finally:
        _OFFLINE.reset(token)


def _parse_problem(exc: Exception) -> str:
    """rdflib's parse error in a few words: "at line 2: newline found in string literal"."""
    import re

    text = str(exc).strip()
    if not text:
        return type(exc).__name__
    where = re.match(r"at line (\d+)", text)
    why = re.search(r"Bad syntax \((.*?)\) at \^", text)
    if where and why:
        return f"at line {where[1]}: {why[1]}"
    detail = " ".join(text.split())
    return detail if len(detail) <= 200 else detail[:200].rsplit(" ", 1)[0] + " ..."
