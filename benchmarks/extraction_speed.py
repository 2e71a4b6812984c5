"""Extraction speed on the shipped corpus, against the bare spaCy pipeline it builds on.

All runs, in this process and on the same 266 abstracts, use one process and
the same batch size; the figure that matters is the ratio (our pipeline's
words/s over the bare en_core_web_sm tagger+parser+lemmatizer's). Each
pipeline runs ``--repeat`` times; the best run counts.

    taskset -c 0 python benchmarks/extraction_speed.py   # one core; prints a table, writes results/extraction_speed.json

``python3 -m cogapp -r README.md`` renders the README's table from the results.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
from pathlib import Path

from kg.corpus import read_paths
from kg.extract.model import DEFAULT_CONCEPTS, load_english
from kg.extract.pipeline import build_nlp
from kg.training.speed import measure_speed

RESULTS = Path(__file__).resolve().parent / "results" / "extraction_speed.json"
BARE = "en_core_web_sm (tagger, parser, lemmatizer)"
CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    texts = [paper.abstract for paper in read_paths([CORPUS])]
    pipelines = {
        BARE: load_english(),
        f"kg default (--concepts {DEFAULT_CONCEPTS})": build_nlp(),
        "kg rules only (--concepts rules)": build_nlp(concepts="rules"),
    }
    speeds = {name: measure_speed(nlp, texts, args.batch_size, args.repeat) for name, nlp in pipelines.items()}
    baseline = speeds[BARE]
    print(f"{len(texts)} abstracts, {sum(len(t.split()) for t in texts)} words, 1 process, batch {args.batch_size}, best of {args.repeat}")
    for name, speed in speeds.items():
        print(f"  {name:48} {speed:8.0f} words/s   {speed / baseline:5.2f}x the bare pipeline")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "abstracts": len(texts),
                "words": sum(len(t.split()) for t in texts),
                "words_per_second": {name: round(speed) for name, speed in speeds.items()},
                "ratio_to_bare": {name: round(speed / baseline, 3) for name, speed in speeds.items()},
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
