"""Errors the library raises for expected problems.

Each message names the bad input and, where there is one, the fix. The CLI
prints the message on one line and exits with the error's ``exit_code``.
"""

__all__ = ["KgError", "CorpusError", "QueryError", "StoreError", "ModelError"]


class KgError(Exception):
    """Base class: an expected problem the user can fix."""

    exit_code = 2


class CorpusError(KgError):
    """An input file is missing, unreadable or not in the expected format."""


class QueryError(KgError):
    """A SPARQL query is malformed or cannot run."""


class StoreError(KgError):
    """The graph store is missing, locked or unreadable."""


class ModelError(KgError):
    """The pinned spaCy model is not installed."""
