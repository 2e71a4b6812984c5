"""Formatting query answers: a table for people; CSV, TSV and the SPARQL 1.1
JSON results format for programs; Turtle for CONSTRUCT/DESCRIBE answers.

What is shown to people never holds a control character raw (:func:`printable`):
a value from a remote endpoint or a file name can carry terminal escape
sequences. CSV, TSV and JSON are data and keep every value exact (JSON and
Turtle escape controls themselves).
"""

from __future__ import annotations

import re

from pyoxigraph import BlankNode, Literal, NamedNode, QueryBoolean, QueryResultsFormat, QuerySolutions, RdfFormat, serialize
from tabulate import tabulate

from kg.errors import QueryError
from kg.query.run import QueryResult
from kg.vocab import PREFIXES

__all__ = ["RESULT_FORMATS", "format_result", "compact", "printable"]

RESULT_FORMATS = ("table", "csv", "tsv", "json")
_BY_LENGTH = sorted(PREFIXES.items(), key=lambda item: -len(item[1]))
_LOCAL_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
# C0 controls but tab and newline, DEL and C1: ESC (and C1's CSI) start the sequences
# that retitle a terminal, clear it or rewrite what it shows; CR overwrites the line.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with each control character a terminal would act on written as a Python escape (``\\x1b``, ``\\r``)."""
    return _CONTROLS.sub(lambda match: repr(match.group())[1:-1], text)


def compact(term) -> str:
    """A short, readable form of a term for tables: prefixed IRIs, bare literals."""
    if term is None:
        return ""
    if isinstance(term, NamedNode):
        for prefix, namespace in _BY_LENGTH:
            local = term.value[len(namespace) :]
            if term.value.startswith(namespace) and local and set(local) <= _LOCAL_NAME_CHARS:
                return f"{prefix}:{local}"
        return f"<{term.value}>"
    if isinstance(term, BlankNode):
        return f"_:{term.value}"
    if isinstance(term, Literal):
        return term.value
    return str(term)


_STANDARD_FORMATS = {"csv": QueryResultsFormat.CSV, "tsv": QueryResultsFormat.TSV, "json": QueryResultsFormat.JSON}


def format_result(result: QueryResult, fmt: str = "table") -> str:
    """``csv``, ``tsv`` and ``json`` are the W3C SPARQL 1.1 results formats (full IRIs).

    Answers are computed as they are read, so a query that fails on the way
    (a SERVICE that cannot be reached ...) raises :class:`QueryError` here.
    """
    try:
        return _format(result, fmt)
    except (OSError, RuntimeError, ValueError) as exc:
        raise QueryError(f"query failed while computing its answer: {exc}") from exc


def _format(result: QueryResult, fmt: str) -> str:
    if result.kind == "graph":
        turtle = serialize(result.triples, format=RdfFormat.TURTLE, prefixes=PREFIXES)
        assert turtle is not None  # without an output, serialize returns the bytes
        return turtle.decode("utf-8")
    if fmt in _STANDARD_FORMATS and not (result.kind == "ask" and fmt != "json"):
        answer = result.raw
        assert isinstance(answer, QuerySolutions | QueryBoolean)  # not "graph", handled above
        written = answer.serialize(format=_STANDARD_FORMATS[fmt])
        assert written is not None  # without an output, serialize returns the bytes
        text = written.decode("utf-8")
        return text if text.endswith("\n") else text + "\n"
    if result.kind == "ask":
        return ("true" if bool(result.raw) else "false") + "\n"
    rows = [[printable(compact(solution[v])) for v in result.variables] for solution in result.solutions]
    table = tabulate(rows, headers=result.variables, tablefmt="simple", disable_numparse=True)
    return f"{table}\n({len(rows)} row{'s' if len(rows) != 1 else ''})\n"
