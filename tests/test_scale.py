"""Scale features: parallel extraction, the extraction cache (incremental
builds) and shards, each giving exactly the graph a plain build gives."""

from __future__ import annotations

import json
import shutil

import pytest

from kg.corpus import read_paths
from kg.extract.cache import ExtractionCache, decode_extraction, encode_extraction
from kg.extract.extractor import SpacyExtractor
from kg.link import link_papers
from kg.pipeline import in_shard
from tests.conftest import CONFERENCE, CORPUS
from tests.test_build_store import sorted_ntriples


@pytest.fixture(scope="module")
def conference_papers():
    return link_papers(read_paths([CONFERENCE]))


def test_two_worker_processes_give_the_same_extractions_in_the_same_order(conference_papers):
    one = list(SpacyExtractor(jobs=1).extract(conference_papers))
    two = list(SpacyExtractor(jobs=2, batch_size=4).extract(conference_papers))  # several chunks per worker
    assert two == one and len(one) == 26


def test_cache_records_round_trip_exactly(conference_papers):
    for extraction in SpacyExtractor().extract(conference_papers[:3]):
        assert decode_extraction(encode_extraction(extraction), extraction.paper_iri) == extraction


def test_incremental_build_extracts_only_new_abstracts_and_gives_the_same_graph(tmp_path, run, extracted_store):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    daily = corpus / "003_8e9b74060a1da4c6.txt"
    paragraphs = daily.read_text(encoding="utf-8").split("\n\n")
    held_back, kept = paragraphs[-10:], paragraphs[:-10]
    daily.write_text("\n\n".join(kept), encoding="utf-8")
    store, cache = tmp_path / "store", tmp_path / "cache.sqlite"
    code, out, err = run("build", corpus, "--store", store, "--cache", cache)
    assert code == 0, err
    assert "256 abstracts extracted, 0 from the cache" in out
    daily.write_text("\n\n".join(kept + held_back), encoding="utf-8")  # ten papers added
    code, out, _ = run("build", corpus, "--store", store, "--cache", cache)
    assert code == 0 and "10 abstracts extracted, 0 from the cache (added 10 new papers to the previous graph)" in out
    assert sorted_ntriples(store) == sorted_ntriples(extracted_store)  # as if built in one go


def test_a_pipeline_change_invalidates_the_cache(tmp_path, conference_papers):
    first = ExtractionCache(tmp_path / "c.sqlite", "version-1")
    extraction = next(SpacyExtractor().extract(conference_papers[:1]))
    first.put_many([(conference_papers[0].paper.abstract, extraction)])
    assert first.get(conference_papers[0].paper.abstract, extraction.paper_iri) == extraction
    assert ExtractionCache(tmp_path / "c.sqlite", "version-2").get(conference_papers[0].paper.abstract, extraction.paper_iri) is None


def test_the_recognisers_weights_count_only_for_builds_that_run_it(monkeypatch):
    from kg.extract import pipeline

    rules, model = pipeline.pipeline_version("rules"), pipeline.pipeline_version("model")
    assert len({rules, model, pipeline.pipeline_version("model+lexicon")}) == 3  # the mode is part of it
    monkeypatch.setattr(pipeline, "CONCEPT_WEIGHTS", pipeline.CONCEPT_WEIGHTS.with_name("claims"))  # as if these were its weights
    assert pipeline.pipeline_version("rules") != rules  # they no longer count without it
    assert pipeline.pipeline_version("model") == model  # with it, every file counts


def test_shards_cover_every_paper_once_and_rebuild_the_same_graph(tmp_path, run, extracted_store):
    outputs, caches = [], []
    for index in range(3):
        out, cache = tmp_path / f"shard-{index}.jsonl", tmp_path / f"shard-{index}.sqlite"
        code, _, err = run("extract", CORPUS, "--shard", f"{index}/3", "--out", out, "--cache", cache, "--quiet")
        assert code == 0, err
        outputs.append(out.read_text(encoding="utf-8").splitlines())
        caches.append(cache)
    code, full, _ = run("extract", CORPUS, "--quiet")
    ids = [json.loads(line)["id"] for lines in outputs for line in lines]
    assert len(ids) == len(set(ids)) == 266 and all(outputs)  # each paper in exactly one shard, no shard empty
    assert sorted(line for lines in outputs for line in lines) == sorted(full.splitlines())
    store = tmp_path / "store"
    arguments = ["build", CORPUS, "--store", store, "--cache", tmp_path / "build.sqlite"]
    for cache in reversed(caches):  # any order
        arguments += ["--cache-from", cache]
    code, out, _ = run(*arguments)
    assert code == 0 and "0 abstracts extracted, 266 from the cache" in out
    assert sorted_ntriples(store) == sorted_ntriples(extracted_store)


def test_shard_is_a_fixed_function_of_the_paper():
    iri = "https://w3id.org/kg/paper/d71e16807b37c59b"
    assert [in_shard(iri, (i, 4)) for i in range(4)].count(True) == 1
    assert in_shard(iri, (int("d71e16807b37c59b", 16) % 4, 4))


def test_bad_shard_is_a_usage_error(run):
    code, _, err = run("extract", CORPUS, "--shard", "3/3")
    assert code == 2 and "expected I/N with 0 <= I < N" in err


def test_a_pool_with_an_idle_worker_shuts_down(tmp_path):
    """Fewer papers than one batch leave a worker waiting on the queue; the pool
    must still close (terminating it there could hang the build for ever)."""
    import subprocess
    import sys

    script = (
        "from kg.corpus import read_paths; from kg.link import link_papers; "
        "from kg.extract.extractor import SpacyExtractor; from kg.extract.cache import CachingExtractor, ExtractionCache; "
        f"papers = link_papers(read_paths([{str(CONFERENCE)!r}]))[:3]; "
        "print(len(list(SpacyExtractor(jobs=2).extract(papers)))); "
        # behind the cache, and a consumer that stops early: both once left a worker hanging
        f"print(len(list(CachingExtractor(SpacyExtractor(jobs=2), ExtractionCache({str(tmp_path / 'c.sqlite')!r}, 'v')).extract(papers)))); "
        "stream = SpacyExtractor(jobs=2).extract(papers); next(stream); stream.close(); print('closed')"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240)
    assert done.stdout.split() == ["3", "3", "closed"], done.stderr
