"""`kg build` on real text at scale: nested seeded samples of the 2025-26
arXiv abstracts (``../shared/corpora/arxiv-cs-2025``), each built afresh in
its own process with the default extraction, ``--jobs`` workers and the
overview page.

For each size: wall seconds per stage (``kg build --timings``: read, link
papers, extract, link concepts, write store, build state, page), peak memory
of the build's process and of its largest worker, triples, papers, distinct
concepts and authors. Across sizes, each figure's growth exponent: the slope
of log(figure) on log(abstracts), least squares (1.0 is linear).

    python benchmarks/build_real.py --sizes 10000 50000            # ~40 min on 2 cores
    python benchmarks/build_real.py --sizes 10000 50000 0          # 0: all 111,857 (~1 h 50 min)

The samples are :func:`benchmarks.arxiv_sample.write_sample` (seed 0, the
held-out test set left out); the text is written to a temporary folder, never
into the repository. Writes ``benchmarks/results/build_real.json``; a size
already there is replaced, others are kept.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from arxiv_sample import write_sample  # noqa: E402

RESULTS = REPO / "benchmarks" / "results" / "build_real.json"
COUNTS = """SELECT
  (SUM(IF(?class = kg:Paper, 1, 0)) AS ?papers)
  (SUM(IF(?class = foaf:Person, 1, 0)) AS ?authors)
  (SUM(IF(?class IN (kg:Method, kg:Dataset, kg:Task, kg:Metric), 1, 0)) AS ?concepts)
WHERE { ?node a ?class }"""
#: The figures whose growth is fitted, as (row key, stage name or None).
GROWTH = ("seconds", "peak_rss_mib", "triples", "concepts", "authors")


def build(corpus: Path, store: Path, jobs: int) -> dict:
    """One fresh `kg build` in a child process: its wall time, timings and what it built."""
    timings = store.parent / "timings.json"
    command = [sys.executable, "-m", "kg", "build", str(corpus), "--store", str(store), "--jobs", str(jobs)]
    command += ["--no-cache", "--afresh", "--timings", str(timings), "--out", str(store.parent / "kg.html"), "--quiet"]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=store.parent, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"kg build failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    record = json.loads(timings.read_text(encoding="utf-8"))
    from kg.graph import open_store
    from kg.query import run_query

    graph = open_store(store)
    (counts,) = run_query(graph, COUNTS).solutions
    return {
        "seconds": round(seconds, 1),
        "stages": {s["stage"]: s["seconds"] for s in record["stages"]},
        "peak_rss_mib": record["peak_rss_mib"],
        "workers_peak_rss_mib": record["workers_peak_rss_mib"],
        "triples": len(graph),
        **{name: int(counts[name].value) for name in ("papers", "concepts", "authors")},
    }


def exponent(sizes: list[int], values: list[float]) -> float | None:
    """The least-squares slope of log(value) on log(size)."""
    points = [(math.log(s), math.log(v)) for s, v in zip(sizes, values) if v > 0]
    if len(points) < 2:
        return None
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    return round(sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points), 2)


def growth(runs: dict) -> dict:
    rows = sorted(runs.values(), key=lambda r: r["abstracts"])
    sizes = [r["abstracts"] for r in rows]
    fitted = {key: exponent(sizes, [r[key] for r in rows]) for key in GROWTH}
    stages = sorted({s for r in rows for s in r["stages"]})
    fitted.update({f"stage {s}": exponent(sizes, [r["stages"].get(s, 0.0) for r in rows]) for s in stages})
    return fitted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 50000], help="abstracts per build (0: all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--shared", type=Path, help="the folder holding corpora/ (default: ../shared)")
    parser.add_argument("--work", type=Path, help="keep samples and stores here (default: a temporary folder)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kg-real-"))
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"runs": {}}
    for size in args.sizes:
        folder = work / f"arxiv-{size or 'all'}"
        folder.mkdir(parents=True, exist_ok=True)
        corpus = folder / "abstracts.jsonl"
        written = write_sample(size, corpus, shared=args.shared)
        words = sum(len(json.loads(line)["abstract"].split()) for line in corpus.open(encoding="utf-8"))
        row = {"abstracts": written, "words": words, "jobs": args.jobs, **build(corpus, folder / "store", args.jobs)}
        row["words_per_s"] = round(words / row["seconds"])
        previous["runs"][str(written)] = row
        print(json.dumps(row), flush=True)
        corpus.unlink()  # the text stays out of the results and off the disk
    previous["growth"] = growth(previous["runs"])
    previous["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version(), "note": "2 shared cores"}
    RESULTS.write_text(json.dumps(previous, indent=1) + "\n")
    print(json.dumps(previous["growth"]))
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
