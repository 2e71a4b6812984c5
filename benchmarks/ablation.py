"""Which concept sources earn their place: every concept mode of ``kg build``
(the trained recogniser alone, with the lexicon, with all rules, the rules
first, the rules alone) scored on kg's arXiv annotation, in one run.

    python benchmarks/ablation.py                       # the dev split (where the default was chosen)
    python benchmarks/ablation.py --held-out            # the final run: test too

Writes ``results/ablation.json``, from which ``python3 -m cogapp -r README.md``
renders the README's table. The held-out test split is scored only with
``--held-out``, once the default is chosen.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results" / "ablation.json"

sys.path.insert(0, str(REPO))

from kg.extract.model import CONCEPT_MODES
from kg.extract.pipeline import build_nlp
from kg.training.evaluation import evaluate_arxiv

MEASURES = ("concept mentions", "concepts by label")


def measure(splits: list[str]) -> dict:
    """{split: {mode: {measure: {type: [P, R, F1]}}}}."""
    results: dict = {}
    for mode in CONCEPT_MODES:
        nlp = build_nlp(concepts=mode, use_claims=False)
        for split in splits:
            rows = [r for r in evaluate_arxiv(nlp, split) if r.measure in MEASURES + ("proposed concepts",)]
            table = results.setdefault(split, {}).setdefault(mode, {})
            for r in rows:
                table.setdefault(r.measure, {})[r.label] = [
                    round(100 * r.score.precision, 1),
                    round(100 * r.score.recall, 1),
                    round(100 * r.score.f1, 1),
                ]
            print(f"{split:5} {mode:14} " + "  ".join(f"{m}: {table[m]['all'][2]:.1f}" for m in MEASURES), flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out", action="store_true", help="Also score the held-out test split (the final run only).")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    results = measure(["dev", "test"] if args.held_out else ["dev"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
