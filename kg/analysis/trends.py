"""Concepts over time: papers mentioning each concept per period (year,
quarter or month, from the papers' dates), and which concepts rise and fall.

A concept's **growth** is the weighted least-squares slope of its share of
each period's papers (weights: the period's papers, so a thin month counts
for little), divided by its mean share: +0.25 means its share grows by a
quarter of its average every period. Growth is only computed for concepts
with at least ``min_papers`` dated papers (by default :data:`MIN_PAPERS`, or
one in :data:`SUPPORT_PER` of the dated papers when that is more), and when
there are two periods or more, so a few papers' noise never ranks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import networkx as nx

__all__ = ["MIN_PAPERS", "PERIODS", "ConceptTrend", "Trends", "period_of", "trends"]

PERIODS = ("auto", "year", "quarter", "month")
#: ``auto`` counts by month up to this many months, by quarter up to AUTO_QUARTERS quarters, else by year.
AUTO_MONTHS = 24
AUTO_QUARTERS = 24
MIN_PAPERS = 5
SUPPORT_PER = 1000
#: ``auto`` counts by year when more than this share of the dated papers give only a year.
YEAR_ONLY_SHARE = 0.2


@dataclass(frozen=True)
class ConceptTrend:
    iri: str
    label: str
    type: str
    counts: tuple[int, ...]  # papers mentioning it in each period of :attr:`Trends.periods`
    total: int  # its dated papers
    growth: float | None  # None: below the minimum support


@dataclass(frozen=True)
class Trends:
    period: str  # "year", "quarter" or "month"
    periods: tuple[str, ...]  # every period from the first to the last dated paper, gaps included
    papers: tuple[int, ...]  # dated papers in each period
    undated: int  # papers without a date this precise
    concepts: tuple[ConceptTrend, ...]  # every concept with a dated paper, most papers first
    min_papers: int

    def ranked(self, limit: int = 10, falling: bool = False) -> list[ConceptTrend]:
        """The fastest-rising (or -falling) concepts with enough support; ties: more papers first."""
        sign = 1 if falling else -1
        found = [c for c in self.concepts if c.growth is not None and (c.growth < 0 if falling else c.growth > 0)]
        found.sort(key=lambda c: (sign * (c.growth or 0.0), -c.total, c.label, c.iri))
        return found[:limit] if limit else found

    @cached_property
    def _by_iri(self) -> dict[str, ConceptTrend]:
        return {c.iri: c for c in self.concepts}

    def get(self, iri: str) -> ConceptTrend | None:
        """The trend of one concept (a map asks for thousands: a lookup, not a scan)."""
        return self._by_iri.get(iri)


def period_of(date: str | None, period: str) -> str | None:
    """The period ("2025", "2025-Q3", "2025-08") a date ("2025", "2025-08" or "2025-08-18") falls in;
    None when the date is missing or less precise than ``period``."""
    if not date:
        return None
    if period == "year":
        return date[:4]
    if len(date) < 7:
        return None
    if period == "quarter":
        return f"{date[:4]}-Q{(int(date[5:7]) - 1) // 3 + 1}"
    return date[:7]


def _choose(dates: list[str]) -> str:
    if not dates or sum(len(d) < 7 for d in dates) > YEAR_ONLY_SHARE * len(dates):
        return "year"
    months = [int(d[:4]) * 12 + int(d[5:7]) - 1 for d in dates if len(d) >= 7]
    span = max(months) - min(months) + 1
    return "month" if span <= AUTO_MONTHS else "quarter" if span <= 3 * AUTO_QUARTERS else "year"


def _following(first: str, last: str, period: str) -> list[str]:
    """Every period from ``first`` to ``last``."""

    def index(key: str) -> int:
        if period == "year":
            return int(key)
        if period == "quarter":
            return int(key[:4]) * 4 + int(key[-1]) - 1
        return int(key[:4]) * 12 + int(key[5:7]) - 1

    def key(i: int) -> str:
        if period == "year":
            return str(i)
        if period == "quarter":
            return f"{i // 4}-Q{i % 4 + 1}"
        return f"{i // 12}-{i % 12 + 1:02d}"

    return [key(i) for i in range(index(first), index(last) + 1)]


def _growth(counts: Iterable[int], papers: Iterable[int]) -> float:
    """Weighted least-squares slope of share over period index, over the mean share."""
    points = [(t, c / n, n) for t, (c, n) in enumerate(zip(counts, papers, strict=True)) if n]
    weight = sum(n for _, _, n in points)
    mean_t = sum(t * n for t, _, n in points) / weight
    mean_share = sum(s * n for _, s, n in points) / weight
    spread = sum(n * (t - mean_t) ** 2 for t, _, n in points)
    if spread == 0 or mean_share == 0:
        return 0.0
    slope = sum(n * (t - mean_t) * (s - mean_share) for t, s, n in points) / spread
    return slope / mean_share


def trends(graph: nx.Graph, period: str = "auto", min_papers: int | None = None) -> Trends:
    """Papers per period for every concept of ``graph`` (:func:`kg.analysis.load_graph`)."""
    if period not in PERIODS:
        raise ValueError(f"period must be one of {', '.join(PERIODS)}, not {period!r}")
    papers = {n: d.get("date") for n, d in graph.nodes(data=True) if d["kind"] == "paper"}
    if period == "auto":
        period = _choose([d for d in papers.values() if d])
    of_paper = {p: key for p, date in papers.items() if (key := period_of(date, period)) is not None}
    if min_papers is None:
        min_papers = max(MIN_PAPERS, round(len(of_paper) / SUPPORT_PER))
    if not of_paper:
        return Trends(period, (), (), len(papers), (), min_papers)
    periods = _following(min(of_paper.values()), max(of_paper.values()), period)
    position = {key: i for i, key in enumerate(periods)}
    per_period = Counter(of_paper.values())
    totals = tuple(per_period[key] for key in periods)
    found = []
    for node, data in graph.nodes(data=True):
        if data["kind"] != "concept":
            continue
        counts = [0] * len(periods)
        for paper in graph[node]:
            if paper in of_paper:
                counts[position[of_paper[paper]]] += 1
        total = sum(counts)
        if not total:
            continue
        supported = total >= min_papers and len(periods) >= 2
        growth = round(_growth(counts, totals), 4) if supported else None
        found.append(ConceptTrend(node, data["label"], data["type"], tuple(counts), total, growth))
    found.sort(key=lambda c: (-c.total, c.label, c.iri))
    return Trends(period, tuple(periods), totals, len(papers) - len(of_paper), tuple(found), min_papers)
