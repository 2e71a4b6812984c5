"""Deterministic serialisation of the store's graph.

Triples are sorted (subject, predicate, object) before writing, and the
prefixes are always the same, so the same graph gives the same bytes. Files are
written beside their target and renamed into place, so a failed export never
leaves a half-written file where the previous one was.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from pyoxigraph import DefaultGraph, Quad, RdfFormat, Store, Triple, serialize

from kg.errors import KgError
from kg.vocab import PREFIXES

__all__ = ["EXPORT_FORMATS", "DEFAULT_EXPORT", "DEFAULT_VOID", "export_graph", "export_void", "graph_triples", "write_atomically"]

EXPORT_FORMATS = {"ttl": RdfFormat.TURTLE, "nt": RdfFormat.N_TRIPLES, "jsonld": RdfFormat.JSON_LD, "trig": RdfFormat.TRIG}
DEFAULT_EXPORT = Path("exports") / "kg"
DEFAULT_VOID = Path("exports") / "void.ttl"


def graph_triples(store: Store) -> list[Triple]:
    """The default graph's triples in a stable order."""
    triples = [Triple(q.subject, q.predicate, q.object) for q in store.quads_for_pattern(None, None, None, DefaultGraph())]
    triples.sort(key=lambda t: (str(t.subject), str(t.predicate), str(t.object)))
    return triples


def write_atomically(target: Path, write: Callable[[BinaryIO], None]) -> None:
    """Run ``write`` on a temporary file next to ``target``, then rename it over ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            write(handle)
        os.chmod(handle.name, 0o666 & ~_umask())  # a temporary file is private; an export is not
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _ntriples(triples: list[Triple]) -> bytes:
    # Canonical N-Triples, one triple a line, lines in byte order: `sort`-stable.
    lines = serialize(triples, format=RdfFormat.N_TRIPLES).decode("utf-8").splitlines()
    lines.sort()
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


def _sorted_prefixes(turtle: bytes) -> bytes:
    # The serialiser's prefix order is its own; sort it so the bytes never depend on it.
    lines = turtle.split(b"\n")
    count = next((i for i, line in enumerate(lines) if not line.startswith(b"@prefix ")), len(lines))
    return b"\n".join(sorted(lines[:count]) + lines[count:])


def _write(out: str | Path, data: bytes) -> None:
    try:
        write_atomically(Path(out), lambda handle: handle.write(data))
    except OSError as exc:
        raise KgError(f"{out}: cannot write the export ({exc.strerror or exc})") from exc


def _turtle(triples: list[Triple]) -> bytes:
    return _sorted_prefixes(serialize(triples, format=RdfFormat.TURTLE, prefixes=PREFIXES))


def export_graph(store: Store, out: str | Path, fmt: str = "ttl") -> int:
    """Write the graph to ``out`` in ``fmt`` (ttl, nt, jsonld or trig); return the triple count.

    TriG puts the whole graph in one named graph, the build's
    (:func:`kg.export.void.build_graph_iri`), so it loads beside other builds.
    """
    from kg.export.void import build_graph_iri

    if fmt not in EXPORT_FORMATS:
        raise KgError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    triples = graph_triples(store)
    if fmt == "nt":
        data = _ntriples(triples)
    elif fmt == "ttl":
        data = _turtle(triples)
    elif fmt == "trig":
        graph = build_graph_iri(store)
        data = _sorted_prefixes(serialize([Quad(t.subject, t.predicate, t.object, graph) for t in triples], format=RdfFormat.TRIG, prefixes=PREFIXES))
    else:
        data = serialize(triples, format=EXPORT_FORMATS[fmt], prefixes=PREFIXES)
    _write(out, data)
    return len(triples)


def export_void(store: Store, out: str | Path = DEFAULT_VOID, license_iri: str | None = None) -> int:
    """Write the VoID description of the graph (:mod:`kg.export.void`); return its triple count."""
    from kg.export.void import DEFAULT_LICENSE, void_triples

    from pyoxigraph import NamedNode

    try:
        NamedNode(license_iri or DEFAULT_LICENSE)
    except ValueError as exc:
        raise KgError(f"--license {license_iri!r} is not an IRI (e.g. https://creativecommons.org/licenses/by/4.0/)") from exc
    triples = sorted(void_triples(store, license_iri or DEFAULT_LICENSE), key=lambda t: (str(t.subject), str(t.predicate), str(t.object)))
    _write(out, _turtle(triples))
    return len(triples)
