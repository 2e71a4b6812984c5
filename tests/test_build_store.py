"""Building into the store: exact content, determinism, no duplicates, and
nothing lost when a build fails."""

import json
import os

import pytest

from kg.errors import CorpusError, StoreError
from kg.export.serialize import _ntriples, graph_triples
from kg.graph import open_store
from kg.graph.store import store_lock, write_store
from kg.pipeline import build
from kg.query import run_query
from tests.conftest import CONFERENCE, CORPUS, DAILY


def sorted_ntriples(store_path) -> bytes:
    return _ntriples(graph_triples(open_store(store_path)))


def extra_jsonl(tmp_path):
    path = tmp_path / "more.jsonl"
    path.write_text(json.dumps({"title": "A new paper", "abstract": "We add one paper.", "authors": ["Yue Wang"]}) + "\n")
    return path


def test_two_builds_give_byte_identical_sorted_ntriples(tmp_path, corpus_store):
    again = tmp_path / "again"
    build([CORPUS], store=again)
    assert sorted_ntriples(again) == sorted_ntriples(corpus_store)


def test_reading_the_same_files_twice_adds_nothing(tmp_path, corpus_store):
    twice = tmp_path / "twice"
    report = build([CONFERENCE, DAILY, CONFERENCE], store=twice)
    assert report.records == 26 + 240 + 26 and report.papers == 266 and report.duplicates == 26
    assert sorted_ntriples(twice) == sorted_ntriples(corpus_store)


def test_store_holds_exactly_the_last_builds_inputs(tmp_path, corpus_store):
    store = tmp_path / "store"
    build([CORPUS, extra_jsonl(tmp_path)], store=store)
    papers = "SELECT (COUNT(*) AS ?n) WHERE { ?p a kg:Paper }"
    assert next(iter(run_query(open_store(store), papers).raw))["n"].value == "267"
    build([CORPUS], store=store)
    assert sorted_ntriples(store) == sorted_ntriples(corpus_store)


def test_failed_build_leaves_previous_store_untouched(tmp_path):
    store = tmp_path / "store"
    build([CONFERENCE], store=store)
    before = sorted_ntriples(store)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"abstract": "fine"}\n{"title": "no abstract"}\n')
    with pytest.raises(CorpusError, match="bad.jsonl:2"):
        build([DAILY, bad], store=store, strict=True)
    assert sorted_ntriples(store) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "store", "store.lock"]


def test_error_while_writing_discards_the_new_store(tmp_path):
    store = tmp_path / "store"
    build([CONFERENCE], store=store)
    before = sorted_ntriples(store)

    def failing_quads():
        yield from list(open_store(store))
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        write_store(failing_quads(), store)
    assert sorted_ntriples(store) == before
    assert not (tmp_path / ".store.new").exists()


def test_second_writer_is_refused(tmp_path):
    store = tmp_path / "store"
    with store_lock(store):
        with pytest.raises(StoreError, match="another kg command is writing"):
            build([CONFERENCE], store=store)


def test_swap_interrupted_between_renames_is_recovered(tmp_path, corpus_store):
    store = tmp_path / "store"
    build([CORPUS], store=store)
    os.rename(store, tmp_path / ".store.old")  # as if killed after the first rename
    assert sorted_ntriples(store) == sorted_ntriples(corpus_store)


def test_missing_store_says_how_to_build_one(tmp_path):
    with pytest.raises(StoreError, match="kg build"):
        open_store(tmp_path / "nothing")
