"""Extraction quality, measured: ``kg eval``'s benchmarks through the default
and baseline pipelines (kg.training.evaluation), written for the README.

    python benchmarks/quality.py                       # prints the table, writes results/quality.json
    python benchmarks/quality.py --only devset --only arxiv-dev --out /tmp/quality.json   # a quick run
    python benchmarks/quality.py --held-out            # the final run: arXiv test included

The results also hold each row's published or measured baseline and the
claim classifier's reliability table (on test with ``--held-out``, else dev);
the README's tables are rendered from them by ``python3 -m cogapp -r README.md``
(``docs/readme.py``).

The held-out arXiv test set (``arxiv-test``) is evaluated only with
``--held-out``, even when ``--only`` names it. Benchmarks whose files are
missing are skipped, one line each on stderr, as ``kg eval`` does. It is not
a test: the figures are measured here and only reported by the README.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results" / "quality.json"
HELD_OUT = "arxiv-test"

sys.path.insert(0, str(REPO))

from kg.training.evaluation import BASELINES, NAMES, Locations, ordered, result_table, run_benchmarks


def benchmark_names(only: tuple[str, ...] | list[str], held_out: bool) -> tuple[str, ...]:
    """The benchmarks to run: those named (default: all), the held-out set only with ``held_out``."""
    names = tuple(only) or NAMES
    return tuple(name for name in names if held_out or name != HELD_OUT)


def reliability(split: str) -> dict:
    """The claim classifier's reliability table on one split of kg's arXiv annotation, as the results record it."""
    from kg.training.calibration import claim_reliability

    found = claim_reliability(split)
    return {
        "split": split,
        "threshold": found.threshold,
        "ece_sentences": found.ece_sentences,
        "ece_claims": found.ece_claims,
        "sentences": [asdict(b) for b in found.sentences],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=NAMES, default=[], help="Run only these benchmarks (repeatable).")
    parser.add_argument("--held-out", action="store_true", help="Also evaluate the held-out arXiv test set (the final run only).")
    parser.add_argument(
        "--benchmarks",
        type=Path,
        help="Folder holding scier/, scirex/, scierc/, csabstruct/ (default: ../shared/benchmarks beside the repository).",
    )
    parser.add_argument(
        "--shared", type=Path, help="Folder holding corpora/arxiv-cs-2025/abstracts.jsonl.gz (default: ../shared beside the repository)."
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    names = benchmark_names(args.only, args.held_out)
    if not names:
        parser.error("nothing to run: arxiv-test needs --held-out")
    where = Locations(args.benchmarks, args.shared, REPO / "tests" / "data" / "devset.jsonl")
    started = time.perf_counter()
    rows, skipped = run_benchmarks(names, where, on_skip=lambda title, why: print(f"skipped {title}: {why}", file=sys.stderr))
    seconds = time.perf_counter() - started
    if not rows:
        print("no benchmark could run", file=sys.stderr)
        return 2
    header, table = result_table(rows)
    from tabulate import tabulate

    print(tabulate(table, headers=header))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "benchmarks": list(names),
        "held_out": args.held_out,
        "seconds": round(seconds, 1),
        "skipped": [{"benchmark": title, "why": why} for title, why in skipped],
        "rows": [asdict(r) for r in ordered(rows)],
        "baselines": [
            {"benchmark": b, "measure": m, "label": label, "f1": f1, "baseline": whose} for (b, m, label), (f1, whose) in BASELINES.items()
        ],
        "reliability": reliability("test" if args.held_out else "dev"),
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out} ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
