"""Interrupted builds: `kg build` of the shipped corpus (with extraction) runs
as a subprocess over a store that holds a different, smaller graph, and is
killed mid-way (kill -9, Ctrl-C, kill). The previous store still opens and
gives the same answers, byte for byte; a second build while the first runs is
refused; the next build succeeds."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from kg.cli import main
from kg.graph import open_store
from kg.pipeline import build
from kg.query import format_result, run_query
from tests.conftest import CORPUS, REPO
from tests.test_build_store import sorted_ntriples

TINY = [
    {"title": "Sparse Attention for Long Documents", "abstract": "We propose SparseNet for long documents.", "authors": ["Ada Lovelace"]},
    {
        "title": "Graph Networks at Scale",
        "abstract": "We scale graph networks to billions of edges.",
        "authors": ["Ada Lovelace", "Alan Turing"],
    },
]
QUERIES = [
    "SELECT (COUNT(*) AS ?papers) WHERE { ?p a kg:Paper }",
    "SELECT ?title WHERE { ?p dcterms:title ?title } ORDER BY ?title",
    "SELECT ?name (COUNT(?p) AS ?n) WHERE { ?p dcterms:creator/foaf:name ?name } GROUP BY ?name ORDER BY ?name",
]
REFUSED = "another kg command is writing this store; wait for it to finish"


def answers(store) -> tuple[bytes, list[str]]:
    graph = open_store(store)
    return sorted_ntriples(store), [format_result(run_query(graph, q), "csv") for q in QUERIES]


@pytest.fixture
def previous(tmp_path):
    """A store holding the two TINY papers, and its answers."""
    corpus = tmp_path / "tiny.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in TINY) + "\n", encoding="utf-8")
    store = tmp_path / "store"
    build([corpus], store=store)
    before = answers(store)
    assert before[1][0] == "papers\r\n2\r\n"  # the two TINY papers (CSV results end lines with CRLF)
    return store, corpus, before


def start_build(store, cwd) -> subprocess.Popen:
    """`python -m kg build corpus/` into ``store``, returned once it is filling the new store."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "kg", "build", str(CORPUS), "--store", str(store), "--no-cache", "--quiet"]
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    new = store.with_name(f".{store.name}.new")
    deadline = time.monotonic() + 120
    while not new.exists():  # appears when reading and linking are done and the graph starts to flow in
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the build never started to write"
        time.sleep(0.05)
    time.sleep(1.0)  # mid-way: loading the model, extracting
    assert process.poll() is None, "the build finished before it could be interrupted"
    return process


def test_kill_9_mid_build_keeps_the_previous_store_and_a_second_build_is_refused(previous, tmp_path, capsys):
    store, corpus, before = previous
    process = start_build(store, tmp_path)
    try:
        # While it runs, another build of the same store is refused, not queued.
        code = main(["build", "--no-extract", "--quiet", "--store", str(store), str(corpus)])
        assert code == 2 and capsys.readouterr().err == f"kg: error: {store}: {REFUSED}\n"
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    assert answers(store) == before
    # The next build succeeds (and clears what the killed one left beside the store).
    assert main(["build", "--no-extract", "--quiet", "--store", str(store), str(CORPUS)]) == 0
    assert answers(store)[1][0] == "papers\r\n266\r\n"  # the shipped corpus: 26 conference + 240 daily papers
    # its page goes beside the store (STORE-exports/), never into the main exports/
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith((".store", "store"))) == ["store", "store-exports", "store.lock"]


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_ctrl_c_or_kill_mid_build_keeps_the_previous_store_and_cleans_up(previous, tmp_path, sent):
    store, _, before = previous
    process = start_build(store, tmp_path)
    process.send_signal(sent)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and err.strip().splitlines()[-1] == "kg: aborted", err
    assert "Traceback" not in err
    assert answers(store) == before
    assert not store.with_name(f".{store.name}.new").exists()  # the half-written store was discarded
