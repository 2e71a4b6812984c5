"""End-to-end `kg build` at scale: time, peak memory, parallel extraction and
incremental builds, on corpora made from the shipped one.

The scaled corpus (``make_corpus``) recombines the shipped abstracts: each
new abstract takes the sentences of one shipped abstract and swaps in one
sentence of another (seeded), gets a distinct id, a title when its base had
one, and that title's authors. Every abstract is new text, so every one is
extracted; concepts recur across them as in a real literature corpus.

For each size it runs, each in a fresh process (``kg build`` through
``python -m kg``), and reports wall time and peak RSS of that process:

* ``--jobs 1`` and ``--jobs 2``, cache off: the ratio is the parallel speed-up;
* an incremental build: the corpus plus a file of 10 new abstracts, given
  last, with the cache of the ``--jobs 2`` build: the ratio to the full
  build is the headline. ``--verify`` then builds the same inputs
  ``--afresh`` into another store and checks the two graphs are the same,
  triple for triple.

    python benchmarks/build_scale.py --sizes 1000 10000          # ~25 min on 2 cores
    python benchmarks/build_scale.py --sizes 10000 --jobs-list 2 --no-page --verify
    python benchmarks/build_scale.py --sizes 100000 --jobs-list 2 --no-incremental --no-page   # ~40 min

``--no-page`` passes ``--no-page`` to every build (no overview page, as the
README advises for huge corpora); compare peak memory across sizes only
between runs with the same options.

Writes ``benchmarks/results/build_scale.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "build_scale.json"
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def shipped_papers() -> list[dict]:
    sys.path.insert(0, str(REPO))
    from kg.corpus import read_paths

    return [{"abstract": p.abstract, "title": p.title, "authors": list(p.authors)} for p in read_paths([REPO / "corpus"])]


def make_corpus(size: int, out: Path, seed: int = 0, offset: int = 0) -> Path:
    """``size`` distinct abstracts as JSON Lines (ids from ``offset``)."""
    rng = random.Random(seed)
    papers = shipped_papers()
    sentences = [_SENTENCE.split(p["abstract"]) for p in papers]
    with out.open("w", encoding="utf-8") as handle:
        for number in range(offset, offset + size):
            base = rng.randrange(len(papers))
            donor = sentences[rng.randrange(len(papers))]
            text = list(sentences[base])
            text[rng.randrange(len(text))] = donor[rng.randrange(len(donor))]
            record = {"id": f"scaled-{number}", "abstract": " ".join(text) + f" (Variant {number}.)"}
            if papers[base]["title"]:
                record["title"] = f"{papers[base]['title']} [{number}]"
                record["authors"] = papers[base]["authors"]
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return out


def timed_build(corpus: list[Path], store: Path, *options: str, summary: bool = False) -> dict:
    """Run `kg build` in a child process; its wall time and peak RSS (and, with
    ``summary``, its summary line, which says whether it added papers or built afresh)."""
    command = [sys.executable, "-m", "kg", "build", *map(str, corpus), "--store", str(store), *options]
    if not summary:
        command.append("--quiet")
    start = time.perf_counter()
    child = subprocess.Popen(
        command, cwd=store.parent, stdout=subprocess.PIPE if summary else None, stderr=subprocess.DEVNULL if summary else None, text=True
    )
    output = child.stdout.read() if summary else ""
    _, status, usage = os.wait4(child.pid, 0)  # this child's own resource usage
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"kg build failed: {' '.join(command)}")
    # ru_maxrss is the build process's own peak (KiB); extraction workers are separate processes.
    row = {"seconds": round(seconds, 1), "peak_rss_mib": round(usage.ru_maxrss / 1024)}
    if summary:
        row["summary"] = output.strip().splitlines()[0]
    return row


def measure(size: int, jobs_list: list[int], incremental: bool, work: Path, options: tuple[str, ...] = (), verify: bool = False) -> dict:
    corpus = make_corpus(size, work / f"corpus-{size}.jsonl")
    words = sum(len(json.loads(line)["abstract"].split()) for line in corpus.open(encoding="utf-8"))
    row: dict = {"abstracts": size, "words": words, "build_options": list(options)}
    for jobs in jobs_list:
        store = work / f"store-{size}-j{jobs}" / "store"
        store.parent.mkdir(parents=True, exist_ok=True)
        row[f"jobs{jobs}"] = timed_build([corpus], store, "--jobs", str(jobs), "--cache", str(store.parent / "cache.sqlite"), *options)
        row[f"jobs{jobs}"]["words_per_s"] = round(words / row[f"jobs{jobs}"]["seconds"])
        print(f"{size} abstracts, --jobs {jobs}: {row[f'jobs{jobs}']}", flush=True)
    if len(jobs_list) > 1:
        row["parallel_speedup"] = round(row[f"jobs{jobs_list[0]}"]["seconds"] / row[f"jobs{jobs_list[-1]}"]["seconds"], 2)
    if incremental:
        jobs = jobs_list[-1]
        store = work / f"store-{size}-j{jobs}" / "store"
        extra = make_corpus(10, work / f"extra-{size}.jsonl", seed=1, offset=size)
        row["incremental_10"] = timed_build(
            [corpus, extra], store, "--jobs", str(jobs), "--cache", str(store.parent / "cache.sqlite"), *options, summary=True
        )
        row["incremental_ratio"] = round(row["incremental_10"]["seconds"] / row[f"jobs{jobs}"]["seconds"], 3)
        print(f"{size} abstracts + 10: {row['incremental_10']}, {row['incremental_ratio']:.1%} of the full build", flush=True)
        if verify:
            fresh = work / f"store-{size}-fresh" / "store"
            fresh.parent.mkdir(parents=True, exist_ok=True)
            timed_build([corpus, extra], fresh, "--cache", str(store.parent / "cache.sqlite"), "--afresh", *options)
            row["incremental_equals_afresh"] = same_graph(store, fresh)
            print(f"incremental store equals a fresh build: {row['incremental_equals_afresh']}", flush=True)
    return row


def same_graph(first: Path, second: Path) -> bool:
    from pyoxigraph import Store

    def triples(path: Path) -> list[str]:
        return sorted(str(quad) for quad in Store.read_only(str(path)))

    return triples(first) == triples(second)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--jobs-list", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--no-incremental", action="store_true")
    parser.add_argument("--verify", action="store_true", help="Check the incremental store against a fresh build of the same inputs.")
    parser.add_argument("--no-page", action="store_true", help="Pass --no-page to every build.")
    parser.add_argument("--work", type=Path, default=None, help="Keep corpora and stores here (default: a temporary folder).")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kg-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in args.sizes:
        row = measure(size, args.jobs_list, not args.no_incremental, work, ("--no-page",) if args.no_page else (), args.verify)
        rows.append(row)
        print(json.dumps(row))
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"runs": {}}
    for row in rows:  # runs with other build options are kept apart: "10000", "10000 --no-page"
        previous["runs"][" ".join([str(row["abstracts"]), *row["build_options"]])] = row
    previous["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version(), "note": "2 shared cores; other work ran at times"}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(previous, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
