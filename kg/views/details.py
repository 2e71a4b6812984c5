"""What a click on a paper shows (title, authors, venue, claims), read from
the store with the SPARQL queries in ``kg/views/queries/``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from pathlib import Path

from pyoxigraph import Store

from kg.query.run import run_query
from kg.views.model import PaperDetails

__all__ = ["paper_details"]

QUERIES = Path(__file__).with_name("queries")


def _rows(store: Store, name: str) -> list[dict[str, str | None]]:
    result = run_query(store, (QUERIES / f"{name}.rq").read_text(encoding="utf-8"))
    return [{v: (s[v].value if s[v] is not None else None) for v in result.variables} for s in result.solutions]


def paper_details(store: Store, papers: Collection[str]) -> dict[str, PaperDetails]:
    """Details of each paper IRI in ``papers`` that the store knows."""
    wanted = set(papers)
    if not wanted:
        return {}
    authors: dict[str, list[str]] = defaultdict(list)
    for row in _rows(store, "paper-authors"):
        if row["paper"] in wanted:
            name = row["name"]
            assert name is not None  # a required variable of paper-authors.rq
            authors[row["paper"]].append(name)
    claims: dict[str, list[str]] = defaultdict(list)
    for row in _rows(store, "paper-claims"):
        sentence = row["sentence"]
        assert sentence is not None  # a required variable of paper-claims.rq
        if row["paper"] in wanted and sentence not in claims[row["paper"]]:
            claims[row["paper"]].append(sentence)
    details: dict[str, PaperDetails] = {}
    for row in _rows(store, "paper-info"):
        iri = row["paper"]
        if iri in wanted and iri not in details:
            title = row["title"] or row["label"]
            assert title is not None  # rdfs:label is a required variable of paper-info.rq
            details[iri] = PaperDetails(iri, title, tuple(authors[iri]), row["venue"], row["year"], tuple(claims[iri]))
    return details
