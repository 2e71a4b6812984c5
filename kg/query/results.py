"""Formatting query answers: a table for people; CSV, TSV and the SPARQL 1.1
JSON results format for programs; Turtle for CONSTRUCT/DESCRIBE answers."""

from __future__ import annotations

from pyoxigraph import BlankNode, Literal, NamedNode, QueryResultsFormat, RdfFormat, serialize
from tabulate import tabulate

from kg.errors import QueryError
from kg.query.run import QueryResult
from kg.vocab import PREFIXES

__all__ = ["RESULT_FORMATS", "format_result", "compact"]

RESULT_FORMATS = ("table", "csv", "tsv", "json")
_BY_LENGTH = sorted(PREFIXES.items(), key=lambda item: -len(item[1]))
_LOCAL_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


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
        return serialize(result.raw, format=RdfFormat.TURTLE, prefixes=PREFIXES).decode("utf-8")
    if fmt in _STANDARD_FORMATS and not (result.kind == "ask" and fmt != "json"):
        text = result.raw.serialize(format=_STANDARD_FORMATS[fmt]).decode("utf-8")
        return text if text.endswith("\n") else text + "\n"
    if result.kind == "ask":
        return ("true" if bool(result.raw) else "false") + "\n"
    rows = [[compact(solution[v]) for v in result.variables] for solution in result.raw]
    table = tabulate(rows, headers=result.variables, tablefmt="simple", disable_numparse=True)
    return f"{table}\n({len(rows)} row{'s' if len(rows) != 1 else ''})\n"
