"""Deterministic serialisation of the store's graph, written safely.

Triples are sorted (subject, predicate, object) before writing, and the
prefixes are always the same, so the same graph gives the same bytes. Every
export, like the triples in the store, is in the default graph, the
ontology's among them (:mod:`kg.graph.store`), so an export validates against
``ontology/shapes.ttl`` on its own; TriG and N-Quads put it in a named graph
only when asked (``graph=``).

The files of one export (say the four formats and ``void.ttl``) are first
written to temporaries beside their targets, all of them, and only then
renamed into place: they change together, or, when a write fails (a full
disk) or Ctrl-C comes, not at all. kg then removes the temporaries it made,
nothing else. A file replaced keeps its permissions.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO

from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, Store, Triple, serialize

from kg.errors import KgError, KgWarning
from kg.interrupts import held
from kg.vocab import PREFIXES

__all__ = [
    "EXPORT_FORMATS",
    "QUAD_FORMATS",
    "DEFAULT_EXPORT",
    "DEFAULT_VOID",
    "PartlyReplaced",
    "export_files",
    "export_graph",
    "export_void",
    "graph_triples",
    "Staged",
    "write_atomically",
    "write_together",
]

EXPORT_FORMATS = {
    "ttl": RdfFormat.TURTLE,
    "nt": RdfFormat.N_TRIPLES,
    "jsonld": RdfFormat.JSON_LD,
    "trig": RdfFormat.TRIG,
    "nq": RdfFormat.N_QUADS,
}
QUAD_FORMATS = ("trig", "nq")
DEFAULT_EXPORT = Path("exports") / "kg"
DEFAULT_VOID = Path("exports") / "void.ttl"


def graph_triples(store: Store) -> list[Triple]:
    """The default graph's triples in a stable order."""
    triples = [Triple(q.subject, q.predicate, q.object) for q in store.quads_for_pattern(None, None, None, DefaultGraph())]
    triples.sort(key=lambda t: (str(t.subject), str(t.predicate), str(t.object)))
    return triples


# -- writing files together ---------------------------------------------------------------


def write_atomically(target: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Run ``write`` on a temporary file next to ``target``, then rename it over ``target``."""
    write_together([(target, write)])


def write_together(writes: Iterable[tuple[str | Path, Callable[[IO[bytes]], object]]]) -> None:
    """Run each ``write`` on a temporary file beside its target; once all are
    written, rename them over their targets (:class:`Staged`, committed)."""
    Staged(writes).commit()


class Staged:
    """Files written in full to temporaries beside their targets; :meth:`commit`
    renames them all into place, :meth:`discard` removes them.

    The targets change together, or (on any error or Ctrl-C) not at all: the
    temporaries, and any folder made for them, are removed. A symbolic link
    is written through (it stays a link); an existing file keeps its mode, a
    new one gets the umask's. An ``OSError`` names the target; a target that
    is a folder or a device is one before anything is written. Should a
    rename fail after others, :class:`PartlyReplaced` says which.
    """

    def __init__(self, writes: Iterable[tuple[str | Path, Callable[[IO[bytes]], object]]]) -> None:
        self._writes = [(Path(target), write) for target, write in writes]
        self._destinations = [_destination(target) for target, _ in self._writes]
        self._temporaries: list[Path] = []
        self._folders: list[Path] = []  # made here, outermost first
        try:
            for (target, write), destination in zip(self._writes, self._destinations):
                try:
                    self._folders += [f for f in (destination.parent, *destination.parent.parents) if not f.exists()][::-1]
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    with held() as caught:  # no Ctrl-C between making a temporary and noting it
                        handle = tempfile.NamedTemporaryFile(
                            dir=destination.parent, prefix=f".{destination.name}.", suffix=".tmp", delete=False
                        )
                        self._temporaries.append(Path(handle.name))
                    if caught:
                        handle.close()
                        raise KeyboardInterrupt
                    with handle:
                        write(handle)
                        handle.flush()
                        os.fsync(handle.fileno())  # a full disk shows here at the latest, before any rename
                    os.chmod(handle.name, _mode(destination))
                except OSError as exc:
                    raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from exc
        except BaseException:
            self.discard()
            raise

    def commit(self) -> None:
        writes = self._writes
        try:
            with held() as caught:  # a Ctrl-C that comes during the renames is too late: they all happen
                for done, (temporary, destination) in enumerate(zip(self._temporaries, self._destinations)):
                    try:
                        os.replace(temporary, destination)
                    except OSError as exc:
                        target = str(writes[done][0])
                        if done:
                            raise PartlyReplaced(exc.errno, exc.strerror, target, [t for t, _ in writes[:done]]) from exc
                        raise OSError(exc.errno, exc.strerror, target) from exc
            if caught:
                warnings.warn(
                    f"{writes[0][0]}: interrupted as the files were put in place, too late to stop: they are all written",
                    KgWarning,
                    stacklevel=2,
                )
        except BaseException:
            self.discard()
            raise
        self._temporaries, self._folders = [], []  # theirs now: nothing left to discard

    def discard(self) -> None:
        _discard(self._temporaries, self._folders)
        self._temporaries, self._folders = [], []


class PartlyReplaced(OSError):
    """A rename failed after others succeeded: ``replaced`` hold their new content, the rest their previous one."""

    def __init__(self, code: int | None, message: str | None, filename: str, replaced: list[Path]):  # an OSError's errno and strerror
        super().__init__(code, message, filename)
        self.replaced = replaced


def _destination(target: Path) -> Path:
    real = Path(os.path.realpath(target))
    if real.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder", str(target))
    if real.exists() and not real.is_file():
        raise OSError(errno.EINVAL, "not a regular file", str(target))
    return real


def _mode(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask  # what open() would have given it; a temporary file is private


def _discard(temporaries: list[Path], folders: list[Path]) -> None:
    """Remove what a failed write made; a second Ctrl-C waits until that is done."""
    with held():
        for temporary in temporaries:
            temporary.unlink(missing_ok=True)
        for folder in reversed(folders):
            with contextlib.suppress(OSError):  # not empty: something else is in it now
                folder.rmdir()


# -- serialising ----------------------------------------------------------------------------


def _bytes(data: bytes | None) -> bytes:
    # pyoxigraph's serialize returns the bytes when given no output (its stub's None is for writing to one).
    assert data is not None
    return data


def _sorted_lines(data: bytes) -> bytes:
    # Canonical N-Triples / N-Quads, one statement a line, lines in byte order: `sort`-stable.
    lines = data.decode("utf-8").splitlines()
    lines.sort()
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


def _ntriples(triples: list[Triple]) -> bytes:
    return _sorted_lines(_bytes(serialize(triples, format=RdfFormat.N_TRIPLES)))


def _sorted_prefixes(turtle: bytes) -> bytes:
    # The serialiser's prefix order is its own; sort it so the bytes never depend on it.
    lines = turtle.split(b"\n")
    count = next((i for i, line in enumerate(lines) if not line.startswith(b"@prefix ")), len(lines))
    return b"\n".join(sorted(lines[:count]) + lines[count:])


_PLAIN_LOCAL = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9_-]*)?")  # a local name no serialiser escapes
_PREFIX_OF = {namespace: prefix for prefix, namespace in PREFIXES.items()}
_NESTED = any(a != b and b.startswith(a) for a in _PREFIX_OF for b in _PREFIX_OF)  # then an IRI can fall under two prefixes


def _prefixes(triples: list[Triple]) -> dict[str, str]:
    """PREFIXES less those under which an IRI of ``triples`` would need a
    backslash in its prefixed name (``graph:x\\#y``, ``source:a\\/b``):
    Virtuoso, among others, misreads those, so such IRIs are written in full."""
    iris = {term.value for t in triples for term in (t.subject, t.predicate, t.object) if isinstance(term, NamedNode)}
    escaped = set()
    for iri in iris:
        cut = max(iri.rfind("/"), iri.rfind("#")) + 1
        if not _NESTED and iri[:cut] in _PREFIX_OF and _PLAIN_LOCAL.fullmatch(iri, cut):
            continue  # the usual IRI: a plain name right after one namespace, and under no other
        escaped |= {p for p, ns in PREFIXES.items() if iri.startswith(ns) and not _PLAIN_LOCAL.fullmatch(iri, len(ns))}
    return {prefix: namespace for prefix, namespace in PREFIXES.items() if prefix not in escaped}


def _serialise(triples: list[Triple], fmt: str, graph: NamedNode | None, prefixes: dict[str, str]) -> bytes:
    if fmt == "nt":
        return _ntriples(triples)
    if fmt == "ttl":
        return _sorted_prefixes(_bytes(serialize(triples, format=RdfFormat.TURTLE, prefixes=prefixes)))
    if fmt in QUAD_FORMATS:
        quads = [Quad(t.subject, t.predicate, t.object, graph or DefaultGraph()) for t in triples]
        if fmt == "nq":
            return _sorted_lines(_bytes(serialize(quads, format=RdfFormat.N_QUADS)))
        return _sorted_prefixes(_bytes(serialize(quads, format=RdfFormat.TRIG, prefixes=prefixes)))
    return _bytes(serialize(triples, format=EXPORT_FORMATS[fmt], prefixes=PREFIXES))


def _void(store: Store, license_iri: str | None) -> tuple[bytes, int]:
    """The VoID description as Turtle, and its triple count."""
    from kg.export.void import DEFAULT_LICENSE, void_triples

    try:
        NamedNode(license_iri or DEFAULT_LICENSE)
    except ValueError as exc:
        raise KgError(f"--license {license_iri!r} is not an IRI (e.g. https://creativecommons.org/licenses/by/4.0/)") from exc
    triples = sorted(void_triples(store, license_iri or DEFAULT_LICENSE), key=lambda t: (str(t.subject), str(t.predicate), str(t.object)))
    return _serialise(triples, "ttl", None, _prefixes(triples)), len(triples)


def _graph_name(graph: str | None, formats: Iterable[str]) -> NamedNode | None:
    if graph is None:
        return None
    if not set(formats) & set(QUAD_FORMATS):
        raise KgError(f"a graph name ({graph}) is only for TriG and N-Quads exports, not {', '.join(formats) or 'VoID'}")
    try:
        return NamedNode(graph)
    except ValueError as exc:
        raise KgError(f"graph name {graph!r} is not an absolute IRI (e.g. https://example.org/graph/kg)") from exc


def _write(writes: list[tuple[Path, Callable[[IO[bytes]], object]]]) -> None:
    try:
        write_together(writes)
    except PartlyReplaced as exc:
        replaced = ", ".join(map(str, exc.replaced))
        raise KgError(
            f"{exc.filename}: cannot write the export ({exc.strerror}); {replaced} already hold the new export, the other files are unchanged"
        ) from exc
    except OSError as exc:
        unchanged = "the previous files are unchanged" if len(writes) > 1 else "the previous file is unchanged"
        raise KgError(f"{exc.filename or writes[0][0]}: cannot write the export ({exc.strerror or exc}); {unchanged}") from exc


def export_files(
    store: Store,
    outputs: Mapping[str, str | Path],
    void: str | Path | None = None,
    license_iri: str | None = None,
    graph: str | None = None,
) -> int:
    """Write the graph in each format of ``outputs`` (format -> file) and, with
    ``void``, its VoID description (:mod:`kg.export.void`) there; return the
    triple count.

    The files change together or not at all (:func:`write_together`). The
    graph is the default one; ``graph`` (an IRI) names it in TriG and N-Quads.
    """
    unknown = [fmt for fmt in outputs if fmt not in EXPORT_FORMATS]
    if unknown:
        raise KgError(f"unknown export format {unknown[0]!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    name = _graph_name(graph, outputs)
    void_data = _void(store, license_iri)[0] if void is not None else None  # first: a bad --license stops before any writing
    triples = graph_triples(store)
    prefixes = _prefixes(triples) if {"ttl", "trig"} & set(outputs) else PREFIXES

    def write_format(fmt: str) -> Callable[[IO[bytes]], object]:
        return lambda handle: handle.write(_serialise(triples, fmt, name, prefixes))

    writes = [(Path(out), write_format(fmt)) for fmt, out in outputs.items()]
    if void is not None and void_data is not None:  # void_data is None exactly when void is
        writes.append((Path(void), lambda handle: handle.write(void_data)))
    _write(writes)
    return len(triples)


def export_graph(store: Store, out: str | Path, fmt: str = "ttl", graph: str | None = None) -> int:
    """Write the graph to ``out`` in ``fmt`` (ttl, nt, jsonld, trig or nq); return the triple count.

    The graph is the default graph, as in the store; ``graph`` (an IRI) puts
    it in that named graph instead, in TriG and N-Quads.
    """
    return export_files(store, {fmt: out}, graph=graph)


def export_void(store: Store, out: str | Path = DEFAULT_VOID, license_iri: str | None = None) -> int:
    """Write the VoID description of the graph (:mod:`kg.export.void`); return its triple count."""
    data, count = _void(store, license_iri)
    _write([(Path(out), lambda handle: handle.write(data))])
    return count
