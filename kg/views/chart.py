"""The trend chart of `kg trends`: each concept's share of each period's
papers, drawn by matplotlib as SVG inside one offline HTML page.

The SVG is deterministic (fixed hash salt, no date, text as text) and
concept names are never read as mathtext, so a "$" in a name stays a
character. The page allows no request and no script.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path

from kg.analysis.trends import ConceptTrend, Trends

__all__ = ["DEFAULT_CHART", "trend_page"]

DEFAULT_CHART = Path("exports") / "kg-trends.html"
#: Okabe-Ito colours and line styles, so a series is told apart without colour too.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
STYLES = ("-", "--", "-.", ":")
MAX_NAME = 40


def _short(text: str) -> str:
    return text if len(text) <= MAX_NAME else text[: MAX_NAME - 1] + "…"


def _panel(axes, trends: Trends, series: Sequence[ConceptTrend], title: str) -> None:
    xs = range(len(trends.periods))
    for i, concept in enumerate(series):
        shares = [100 * c / n if n else float("nan") for c, n in zip(concept.counts, trends.papers, strict=True)]
        axes.plot(
            xs,
            shares,
            color=COLOURS[i % len(COLOURS)],
            linestyle=STYLES[(i // len(COLOURS)) % len(STYLES)],
            marker="o",
            markersize=3,
            linewidth=1.6,
            label=f"{_short(concept.label)} ({concept.total})",
        )
    axes.set_title(title, loc="left", fontsize=11)
    axes.set_ylabel(f"% of the {trends.period}'s papers")
    step = max(1, len(trends.periods) // 12)
    axes.set_xticks(list(xs)[::step], list(trends.periods)[::step], rotation=45, ha="right", fontsize=8)
    axes.grid(True, color="#e5e5e5", linewidth=0.6)
    axes.spines[["top", "right"]].set_visible(False)
    if series:
        axes.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        axes.text(0.5, 0.5, "none with enough papers", transform=axes.transAxes, ha="center", color="#777777")


def _svg(trends: Trends, panels: Sequence[tuple[str, Sequence[ConceptTrend]]]) -> str:
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    # Deterministic bytes, text as text, and "$" in a name never read as mathtext.
    with matplotlib.rc_context({"svg.hashsalt": "kg", "svg.fonttype": "none", "text.parse_math": False, "font.family": "DejaVu Sans"}):
        figure = Figure(figsize=(9.5, 3.4 * len(panels)), layout="constrained")
        for axes, (title, series) in zip(figure.subplots(len(panels), 1, squeeze=False)[:, 0], panels, strict=True):
            _panel(axes, trends, series, title)
        out = io.StringIO()
        figure.savefig(out, format="svg", metadata={"Date": None})
    text = out.getvalue()
    return text[text.index("<svg") :]


def trend_page(trends: Trends, panels: Sequence[tuple[str, Sequence[ConceptTrend]]], title: str) -> str:
    """One HTML page: the chart of ``panels`` ((heading, concepts) each) and its numbers as a table."""
    rows = []
    for heading, series in panels:
        for c in series:
            growth = "" if c.growth is None else f"{c.growth:+.3f}"
            cells = "".join(f"<td>{n}</td>" for n in c.counts)
            rows.append(
                f"<tr><td>{escape(heading)}</td><th scope=row>{escape(c.label)}</th><td>{escape(c.type)}</td><td>{growth}</td>{cells}</tr>"
            )
    head = "".join(f"<th scope=col>{escape(p)}</th>" for p in trends.periods)
    papers = "".join(f"<td>{n}</td>" for n in trends.papers)
    csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="generator" content="kg trends (matplotlib)">
<title>{escape(title)}</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #1d1d1f; }}
h1 {{ font-size: 18px; }} p {{ color: #555; }}
table {{ border-collapse: collapse; font-size: 12px; margin-top: 12px; }}
th, td {{ border: 1px solid #ddd; padding: 2px 6px; text-align: right; }} th[scope=row], td:first-child {{ text-align: left; }}
svg {{ max-width: 100%; height: auto; }}
</style>
</head>
<body>
<h1>{escape(title)}</h1>
<p>Share of each {escape(trends.period)}'s papers that mention each concept ({sum(trends.papers):,} dated papers{
        f", {trends.undated:,} without a date this precise" if trends.undated else ""
    }). Growth: the share's weighted
least-squares slope per {escape(trends.period)}, over its mean share; only for concepts in {trends.min_papers}+ dated papers.</p>
{_svg(trends, panels)}
<table>
<thead><tr><th scope=col></th><th scope=col>concept</th><th scope=col>type</th><th scope=col>growth</th>{head}</tr></thead>
<tbody>
<tr><td></td><th scope=row>all papers</th><td></td><td></td>{papers}</tr>
{"".join(row + chr(10) for row in rows)}</tbody>
</table>
</body>
</html>
"""
