"""The executors of the extraction (kg/extract/executors.py): this process,
forked worker processes (--jobs) and a Dask cluster (--cluster) give the same
extractions in the same order, hence the same graph byte for byte, with a
bounded number of chunks in flight; cluster failures are one-line errors."""

from __future__ import annotations

import itertools
import json
import os
import sys

import pytest

import kg.extract.executors as executors
import kg.extract.extractor as extractor_module
from kg.corpus import read_paths
from kg.errors import KgError
from kg.extract.executors import DaskCluster, InProcess, LocalProcesses, windowed
from kg.extract.extractor import SpacyExtractor, usable_cpus
from kg.extract.model import DEFAULT_CONCEPTS
from kg.link import link_papers
from tests.conftest import CONFERENCE
from tests.test_build_store import sorted_ntriples

distributed = pytest.importorskip("distributed")  # the test extra installs it (pyproject.toml)
dask = pytest.importorskip("dask")

PAPERS = 16  # of the 26 abstracts in the shipped conference page: enough for several chunks, quick to extract
CHUNK = 4  # papers per chunk, so that PAPERS make 4 chunks, more than a 1-worker window (2) holds
QUIET = {"scheduler_kwargs": {"dashboard_address": "127.0.0.1:0"}, "silence_logs": 50}  # a free loopback port, no log lines


@pytest.fixture(scope="module")
def papers():
    return link_papers(read_paths([CONFERENCE]))[:PAPERS]


@pytest.fixture(scope="module")
def scheduler():
    """A running Dask scheduler with 2 worker processes, as `--cluster tcp://...` finds one."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, **QUIET) as cluster:
        yield cluster.scheduler_address


class Counted:
    """The chunks of ``papers``, counting how many have been read."""

    def __init__(self, papers):
        pairs = [(linked.paper.abstract, linked.iri) for linked in papers]
        self.chunks = [pairs[i : i + CHUNK] for i in range(0, len(pairs), CHUNK)]
        self.read = 0

    def __iter__(self):
        for chunk in self.chunks:
            self.read += 1
            yield chunk


def test_every_executor_gives_the_same_extractions_in_order_with_a_bounded_window(papers, scheduler):
    expected = list(SpacyExtractor().extract(papers))
    for executor, window in [
        (InProcess(DEFAULT_CONCEPTS, CHUNK), 0),  # reads a chunk only when it extracts it
        (LocalProcesses(1, DEFAULT_CONCEPTS, CHUNK), 2),  # CHUNKS_PER_WORKER chunks for its one worker
        (DaskCluster(scheduler, DEFAULT_CONCEPTS, CHUNK), 4),  # 2 for each of the scheduler's 2 one-thread workers
    ]:
        counted, got = Counted(papers), []
        for taken, extractions in enumerate(executor.map(iter(counted)), start=1):
            # Chunks read but not yet given back are in flight: never more than the window.
            assert counted.read - taken <= window, type(executor).__name__
            got.extend(extractions)
        assert got == expected and len(got) == PAPERS, type(executor).__name__


def test_the_window_holds_back_a_slow_consumer():
    """A stub executor whose futures are done at once: only the consumer, taking
    one result at a time, lets more chunks be read and submitted."""
    submitted, done, in_flight = [], [], []

    class Done:
        def __init__(self, chunk):
            self.chunk = chunk

        def result(self):
            done.append(self.chunk)
            return self.chunk

    def submit(chunk):
        submitted.append(chunk)
        in_flight.append(len(submitted) - len(done))
        return Done(chunk)

    chunks = iter([[("text", f"iri{i}")] for i in range(10)])
    taken = []
    for result in windowed(submit, chunks, 3):
        assert len(submitted) <= len(taken) + 1 + 3  # this result and the window behind it, nothing more read
        taken.append(result)
    assert max(in_flight) == 3 and [c[0][1] for c in taken] == [f"iri{i}" for i in range(10)]


def corpus_jsonl(tmp_path, papers):
    path = tmp_path / "papers.jsonl"
    lines = (json.dumps({"title": p.paper.title, "abstract": p.paper.abstract, "authors": list(p.paper.authors)}) for p in papers)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.skipif(usable_cpus() < 2, reason="a 2-worker local cluster runs one worker on one CPU")
def test_a_local_cluster_builds_the_same_graph_byte_for_byte(tmp_path, run, papers, monkeypatch):
    monkeypatch.setattr(extractor_module, "BATCH_SIZE", CHUNK)  # several chunks, so that the cluster gets work
    corpus = corpus_jsonl(tmp_path, papers)
    stores = {}
    for name, options in [("alone", []), ("cluster", ["--cluster", "local:2"])]:
        stores[name] = tmp_path / name
        code, _, err = run("build", corpus, "--store", stores[name], "--no-cache", "--no-page", "--quiet", *options)
        assert (code, err) == (0, "")
    assert sorted_ntriples(stores["cluster"]) == sorted_ntriples(stores["alone"])


def test_an_unreachable_scheduler_is_a_one_line_error(tmp_path, run, papers, monkeypatch):
    monkeypatch.setattr(extractor_module, "BATCH_SIZE", CHUNK)
    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", 1.0)
    code, out, err = run("extract", corpus_jsonl(tmp_path, papers), "--cluster", "tcp://127.0.0.1:1")
    assert code == 2 and out == ""
    assert err.startswith("kg: error: tcp://127.0.0.1:1: cannot reach a Dask scheduler there") and err.count("\n") == 1


def test_a_scheduler_without_workers_is_a_one_line_error(papers):
    with distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=None, **QUIET) as empty:
        executor = DaskCluster(empty.scheduler_address, DEFAULT_CONCEPTS, CHUNK, connect_timeout=0.5)
        with pytest.raises(KgError, match=r"has no workers \(start some: dask worker tcp://127\.0\.0\.1:"):
            next(executor.map(iter(Counted(papers))))


def _die(items, concepts, batch_size):
    """A chunk's extraction that kills its worker process, as running out of memory does."""
    os._exit(1)


def test_a_worker_that_dies_is_a_one_line_error(papers, monkeypatch):
    monkeypatch.setattr(executors, "extract_chunk", _die)  # sent to the workers by name: they import this module
    executor = DaskCluster("local:1", DEFAULT_CONCEPTS, CHUNK)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):  # no retry on a restarted worker
        with pytest.raises(KgError, match="a Dask worker of the local Dask cluster died extracting"):
            next(executor.map(iter(Counted(papers))))


def test_cluster_and_jobs_together_is_a_usage_error(run):
    code, _, err = run("build", "--cluster", "local:2", "--jobs", "2")
    assert code == 2 and "--cluster and --jobs: choose one" in err and err.count("\n") == 1


@pytest.mark.parametrize("address", ["local:0", "local:x", "scheduler"])
def test_a_bad_cluster_address_is_a_usage_error(run, address):
    code, _, err = run("extract", "--cluster", address)
    assert code == 2 and "Invalid value for '--cluster'" in err and err.count("\n") == 1


def test_without_dask_the_error_names_the_extra(tmp_path, run, papers, monkeypatch):
    monkeypatch.setattr(extractor_module, "BATCH_SIZE", CHUNK)
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ModuleNotFoundError
    code, _, err = run("extract", corpus_jsonl(tmp_path, papers), "--cluster", "local:1")
    assert code == 3 and err == "kg: error: --cluster needs Dask distributed, which is not installed: pip install 'kg[cluster]'\n"


def test_kg_help_does_not_import_dask():
    import subprocess

    code = "import sys, kg.cli; kg.cli.main(['build', '--help']); print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.rstrip().endswith("[]")


def test_one_chunk_stays_in_this_process(papers):
    """A single batch (papers added to a built corpus): no cluster is started for it."""
    executor = SpacyExtractor(cluster="tcp://127.0.0.1:1").executor(chunks=1)
    assert isinstance(executor, InProcess)
    assert list(itertools.chain.from_iterable(executor.map(iter([[(papers[0].paper.abstract, papers[0].iri)]]))))
