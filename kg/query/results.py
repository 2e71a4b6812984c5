"""Formatting query answers: a table for people; CSV, TSV and the SPARQL 1.1
JSON results format for programs; Turtle for CONSTRUCT/DESCRIBE answers.

What is shown to people never holds a control character raw (:func:`printable`):
a value from a remote endpoint or a file name can carry terminal escape
sequences. CSV, TSV and JSON are data and keep every value exact (JSON and
Turtle escape controls themselves). A table can also cut long cells (an
abstract) to a width, and narrow its widest columns to fit a terminal
(:func:`table`); the data formats never cut anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pyoxigraph import BlankNode, Literal, NamedNode, QueryBoolean, QueryResultsFormat, QuerySolutions, RdfFormat, serialize
from tabulate import tabulate

from kg.errors import QueryError
from kg.query.run import QueryResult
from kg.vocab import PREFIXES

__all__ = ["RESULT_FORMATS", "format_result", "compact", "prefix_block", "printable", "table"]

RESULT_FORMATS = ("table", "csv", "tsv", "json")
_BY_LENGTH = sorted(PREFIXES.items(), key=lambda item: -len(item[1]))
_LOCAL_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
# C0 controls but tab and newline, DEL and C1: ESC (and C1's CSI) start the sequences
# that retitle a terminal, clear it or rewrite what it shows; CR overwrites the line.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_GAP = 2  # spaces between the columns of tabulate's "simple" table
_PADDING = 2  # how much wider than its name tabulate makes a column (its MIN_PADDING)
_NARROWEST = 12  # fitting a table to a terminal narrows no column below this (or its own width)


def printable(text: str) -> str:
    """``text`` with each control character a terminal would act on written as a Python escape (``\\x1b``, ``\\r``)."""
    return _CONTROLS.sub(lambda match: repr(match.group())[1:-1], text)


def prefix_block() -> str:
    """The PREFIX lines of the prefixes kg predeclares (:data:`kg.vocab.PREFIXES`):
    put before a kg query, it runs where nothing is predeclared (another endpoint, YASGUI)."""
    return "".join(f"PREFIX {prefix}: <{namespace}>\n" for prefix, namespace in PREFIXES.items())


def table(header: Sequence[str], rows: Iterable[Sequence], max_width: int | None = None, columns: int | None = None) -> str:
    """``rows`` as an aligned table for people: control characters escaped
    (:func:`printable`), cells longer than ``max_width`` characters (None: no
    limit) cut with "…", and, given ``columns`` (a terminal's width), the widest
    columns narrowed until the table fits, none below 12 characters (their names
    cut too). Only text is cut, never a number."""
    names = [printable(str(name)) for name in header]
    cells = [[printable(cell) if isinstance(cell, str) else cell for cell in row] for row in rows]
    widths = _widths(names, cells, max_width, columns)
    # tabulate makes a column two wider than its name: a name is cut to fit its column.
    names = [_cut(name, max(width - _PADDING, 1)) for name, width in zip(names, widths)]
    cells = [[_cut(cell, width) if isinstance(cell, str) else cell for cell, width in zip(row, widths)] for row in cells]
    return tabulate(cells, headers=names, tablefmt="simple", disable_numparse=True)


def _text_width(cell) -> int:
    return max(map(len, str(cell).split("\n")))


def _widths(names: list[str], rows: list[list], max_width: int | None, columns: int | None) -> list[int]:
    """Each column's width: its widest cell (at most ``max_width``) or its name
    and padding, then narrowed, widest first, to fit ``columns``."""
    cells = [max(map(_text_width, column), default=0) for column in zip(*rows)] if rows else [0] * len(names)
    if max_width is not None:
        cells = [min(width, max(max_width, 1)) for width in cells]
    widths = [max(cell, len(name) + _PADDING) for cell, name in zip(cells, names)]
    if columns is not None:
        floors = [min(width, _NARROWEST) for width in widths]
        excess = sum(widths) + _GAP * (len(widths) - 1) - columns
        while excess > 0:
            widest = max(range(len(widths)), key=lambda i: widths[i] - floors[i])
            if widths[widest] <= floors[widest]:
                break  # every column is as narrow as it goes: the terminal wraps the rest
            widths[widest] -= 1
            excess -= 1
    return widths


def _cut(text: str, width: int) -> str:
    """Each line of ``text`` at most ``width`` characters, a longer one ending in "…"."""
    return "\n".join(line if len(line) <= width else line[: width - 1].rstrip() + "…" for line in text.split("\n"))


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


def format_result(result: QueryResult, fmt: str = "table", max_width: int | None = None, columns: int | None = None) -> str:
    """``csv``, ``tsv`` and ``json`` are the W3C SPARQL 1.1 results formats (full IRIs);
    ``table`` cuts cells to ``max_width`` and fits ``columns`` as :func:`table` does.

    Answers are computed as they are read, so a query that fails on the way
    (a SERVICE that cannot be reached ...) raises :class:`QueryError` here.
    """
    try:
        return _format(result, fmt, max_width, columns)
    except (OSError, RuntimeError, ValueError) as exc:
        raise QueryError(f"query failed while computing its answer: {exc}") from exc


def _format(result: QueryResult, fmt: str, max_width: int | None, columns: int | None) -> str:
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
    rows = [[compact(solution[v]) for v in result.variables] for solution in result.solutions]
    shown = table(result.variables, rows, max_width, columns)
    return f"{shown}\n({len(rows)} row{'s' if len(rows) != 1 else ''})\n"
