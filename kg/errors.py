"""Errors the library raises for expected problems.

Each message names the bad input and, where there is one, the fix. The CLI
prints the message on one line and exits with the error's ``exit_code``.

Warnings (:class:`KgWarning`) go through Python's :mod:`warnings`: a problem
kg can step around, such as a corpus record it had to skip. The CLI prints
each as one ``kg: warning:`` line; a library user can turn them into errors
with ``warnings.simplefilter("error", KgWarning)``.
"""

__all__ = ["KgError", "CorpusError", "QueryError", "StoreError", "ModelError", "KgWarning", "CorpusWarning"]


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


class KgWarning(UserWarning):
    """Base class: a problem kg stepped around (and says how to avoid)."""


class CorpusWarning(KgWarning):
    """Records of an input file were skipped (bad JSON, no abstract, too long ...)."""
