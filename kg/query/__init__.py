"""SPARQL over the store: running queries with bound parameters, the named
query library, and result formatting."""

from kg.query.library import NamedQuery, find_query, list_queries
from kg.query.results import RESULT_FORMATS, format_result
from kg.query.run import QueryResult, parse_param, run_query

__all__ = [
    "NamedQuery",
    "QueryResult",
    "RESULT_FORMATS",
    "find_query",
    "format_result",
    "list_queries",
    "parse_param",
    "run_query",
]
