"""The extraction executors side by side: this process, ``--jobs 2`` and
``--cluster local:2``, on the first N abstracts of the shipped corpus (default:
all 266), in one run.

Each time is the wall clock of a fresh extractor's whole extraction, start-up
included (loading the pipeline, starting workers or the LocalCluster), as a
build pays it; every executor's extractions are checked equal to this
process's.

    python benchmarks/executors.py [--papers N]   # prints a table, writes results/executors.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kg.corpus import read_paths
from kg.extract.extractor import BATCH_SIZE, SpacyExtractor, usable_cpus
from kg.link import link_papers

RESULTS = Path(__file__).resolve().parent / "results" / "executors.json"
CORPUS = Path(__file__).resolve().parent.parent / "corpus"
RUNS = {"in-process": {}, "--jobs 2": {"jobs": 2}, "--cluster local:2": {"cluster": "local:2"}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=266, help="How many abstracts of the shipped corpus (at most all of them).")
    args = parser.parse_args()

    papers = link_papers(read_paths([CORPUS]))[: args.papers]
    seconds, expected = {}, None
    for name, options in RUNS.items():
        start = time.perf_counter()
        extractions = list(SpacyExtractor(**options).extract(papers))  # type: ignore[arg-type]
        seconds[name] = time.perf_counter() - start
        expected = expected if expected is not None else extractions
        assert extractions == expected, f"{name} gave other extractions"
    print(f"{len(papers)} abstracts, batch {BATCH_SIZE}, {usable_cpus()} usable CPUs; wall clock, start-up included")
    for name, took in seconds.items():
        print(f"  {name:20} {took:7.2f} s   {len(papers) / took:6.1f} abstracts/s")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "abstracts": len(papers),
                "batch_size": BATCH_SIZE,
                "seconds": {name: round(took, 2) for name, took in seconds.items()},
                "abstracts_per_second": {name: round(len(papers) / took, 1) for name, took in seconds.items()},
                "same_extractions": True,
                "usable_cpus": usable_cpus(),
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
