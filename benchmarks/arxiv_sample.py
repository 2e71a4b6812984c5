"""A sample of ``../shared/corpora/arxiv-cs-2025`` as kg JSON Lines, for
real-text builds (scale and view benchmarks, README screenshots).

    python benchmarks/arxiv_sample.py --size 20000 --out /tmp/arxiv-20k.jsonl

The sample is seeded (``--seed``), leaves out the 80 abstracts of kg's
held-out test set (so no one looks at extractor output on them), and keeps
each record's title, authors, categories and date. The text stays out of the
repository: write it outside it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.training.arxiv import draw, read_corpus  # noqa: E402


def write_sample(size: int, out: Path, seed: int = 0, shared: Path | None = None) -> int:
    """Write ``size`` abstracts (all when 0) to ``out``; how many were written."""
    path = shared / "corpora" / "arxiv-cs-2025" / "abstracts.jsonl.gz" if shared else None
    held_out = set(draw(path)[0])
    records = [r for r in read_corpus(path) if r["id"] not in held_out]
    random.Random(seed).shuffle(records)
    chosen = sorted(records[:size] if size else records, key=lambda r: r["id"])
    with out.open("w", encoding="utf-8") as handle:
        for r in chosen:
            record = {
                "id": f"arXiv:{r['id']}",
                "title": r["title"],
                "authors": [a.strip() for a in r["authors"].split(",") if a.strip()],
                "abstract": r["abstract"],
                "date": r["date"],
                "categories": r["categories"],
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(chosen)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=20000, help="abstracts to write (0: all)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shared", type=Path, help="the folder holding corpora/ (default: ../shared)")
    args = parser.parse_args()
    print(f"{write_sample(args.size, args.out, args.seed, args.shared):,} abstracts -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
