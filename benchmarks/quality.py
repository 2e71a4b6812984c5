"""Extraction quality, measured: ``kg eval``'s benchmarks through the default
and baseline pipelines (kg.training.evaluation), written for the README.

    python benchmarks/quality.py                       # prints the table, writes results/quality.json
    python benchmarks/quality.py --readme README.md    # and the F1 table between the <!-- quality --> markers
    python benchmarks/quality.py --only devset --only arxiv-dev --readme /tmp/README.md   # a quick run
    python benchmarks/quality.py --held-out --readme README.md   # the final run: arXiv test included

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


def readme_table(rows) -> list[str]:
    """F1 per benchmark, measure and label: one column per pipeline, then the published or measured baseline."""
    pipelines = list(dict.fromkeys((r.pipeline, r.role) for r in rows if r.role))
    head = ["| benchmark | measure | label | " + " | ".join(f"{name} ({role})" for name, role in pipelines) + " | baseline F1 | baseline |"]
    head.append("|---|---|---|" + "---|" * len(pipelines) + "---|---|")
    lines, seen = [], set()
    for r in ordered(rows):
        key = (r.benchmark, r.measure, r.label)
        if key in seen:
            continue
        seen.add(key)
        same = {(x.pipeline, x.role): x.score for x in rows if (x.benchmark, x.measure, x.label) == key}
        if r.role:
            cells = [f"{100 * same[p].f1:.1f}" if p in same else "" for p in pipelines]
        else:  # one trained component, the same in every pipeline (CSAbstruct's claims)
            cells = [f"{100 * r.score.f1:.1f} ({r.pipeline})"] + [""] * (len(pipelines) - 1)
        baseline, whose = BASELINES.get(key, (None, ""))
        lines.append(f"| {' | '.join(key)} | " + " | ".join(cells) + f" | {'' if baseline is None else f'{baseline:.1f}'} | {whose} |")
    return head + lines


def replace_block(text: str, name: str, lines: list[str]) -> str:
    """``text`` with ``lines`` between ``<!-- name -->`` and ``<!-- /name -->``."""
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    i, j = text.index(start) + len(start), text.index(end)
    return text[:i] + "\n" + "\n".join(lines) + "\n" + text[j:]


def architecture_table() -> list[str]:
    """The recogniser's architecture trained on SciER train alone (``python -m
    kg.training.recogniser --scier-only``), from its results file."""
    result = json.loads((RESULTS.parent / "scier_recogniser.json").read_text(encoding="utf-8"))
    baseline = {"test": (68.5, 70.9, 67.1, 58.2), "test_ood": (50.9, None, None, None)}
    lines = [
        "| SciER split | all | Method | Task | Dataset | spaCy `ner` from scratch (all / Method / Task / Dataset) |",
        "|---|---|---|---|---|---|",
    ]
    for split in ("test", "test_ood"):
        r = result[split]
        base = " / ".join("-" if b is None else f"{b:.1f}" for b in baseline[split])
        lines.append(f"| {split} | **{r['all']:.1f}** | {r['Method']:.1f} | {r['Task']:.1f} | {r['Dataset']:.1f} | {base} |")
    lines.append(f"| dev (checkpoint choice) | {result['dev_f1']:.1f} | | | | |")
    return lines


def relations_table() -> list[str]:
    """The relation model's architecture on SciER with gold entities, beside the cue rules
    (``python -m kg.training.relations train`` writes the results file)."""
    result = json.loads((RESULTS.parent / "relations.json").read_text(encoding="utf-8"))
    kinds = ["evaluatedOn", "usedFor", "uses", "comparedWith", "trainedOn", "benchmarkFor", "micro"]
    lines = ["| SciER split, gold entities | " + " | ".join(kinds) + " | cue rules (micro) |", "|---|" + "---|" * (len(kinds) + 1)]
    for split in ("test", "test_ood"):
        model, rules = result["scier"][split]["model"], result["scier"][split]["rules"]
        cells = [f"{100 * model[k]['f1']:.1f}" if model[k]["gold"] else "-" for k in kinds]
        lines.append(f"| {split} | " + " | ".join(cells) + f" | {100 * rules['micro']['f1']:.1f} |")
    return lines


def reliability_table(split: str) -> list[str]:
    """The claim classifier's reliability on one split of kg's arXiv annotation."""
    from kg.training.calibration import claim_reliability

    found = claim_reliability(split)
    lines = [
        f"arXiv {split}, every sentence (ECE {found.ece_sentences:.3f}; claims emitted at >= {found.threshold:.2f}: ECE {found.ece_claims:.3f}):",
        "",
    ]
    lines += ["| confidence | sentences | mean confidence | share that are claims |", "|---|---|---|---|"]
    lines += [
        f"| {b.low:.1f}-{b.high:.1f} | {b.count} | {b.mean_confidence:.3f} | {b.observed_precision:.3f} |"
        for b in found.sentences
        if b.count
    ]
    return lines


def write_readme(readme: Path, rows, held_out: bool = False) -> None:
    """The generated tables between their markers: quality, and where the file
    has their markers, the architecture's SciER figures and claims' reliability."""
    text = replace_block(readme.read_text(encoding="utf-8"), "quality", readme_table(rows))
    if "<!-- architecture -->" in text:
        text = replace_block(text, "architecture", architecture_table())
    if "<!-- relations -->" in text:
        text = replace_block(text, "relations", relations_table())
    if "<!-- reliability -->" in text:
        text = replace_block(text, "reliability", reliability_table("test" if held_out else "dev"))
    readme.write_text(text, encoding="utf-8")


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
    parser.add_argument("--readme", type=Path, help="Write the F1 table between the <!-- quality --> markers of this file.")
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
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out} ({seconds:.0f} s)")
    if args.readme:
        write_readme(args.readme, rows, args.held_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
