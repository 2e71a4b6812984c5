"""`kg build --timings`: seconds per stage and peak memory, as a JSON file."""

import json

from kg.pipeline import build
from kg.stages import Stages
from tests.test_views import PAPERS, HandExtractor

STAGES = ["read", "link papers", "extract", "link concepts", "write store"]  # a hand extractor keeps no build state


def test_every_stage_of_a_build_is_timed(tmp_path):
    (tmp_path / "papers.jsonl").write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n", encoding="utf-8")
    stages = Stages()
    build([tmp_path / "papers.jsonl"], store=tmp_path / "store", extractors=[HandExtractor()], stages=stages)
    record = stages.record()
    assert [s["stage"] for s in record["stages"]] == STAGES
    assert all(s["seconds"] >= 0 and s["peak_rss_mib"] > 0 for s in record["stages"])
    # The stages are parts of one build: together no longer than it.
    assert sum(s["seconds"] for s in record["stages"]) <= record["total_seconds"] + 0.05


def test_kg_build_writes_the_timings_file(run, tmp_path):
    corpus = tmp_path / "papers.jsonl"
    corpus.write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n", encoding="utf-8")
    out = tmp_path / "timings.json"
    code, _, err = run("build", corpus, "--no-extract", "--no-page", "--store", tmp_path / "store", "--timings", out, "-q")
    assert code == 0, err
    record = json.loads(out.read_text(encoding="utf-8"))
    assert [s["stage"] for s in record["stages"]] == ["read", "link papers", "build state", "write store"]
    assert record["peak_rss_mib"] >= max(s["peak_rss_mib"] for s in record["stages"])
    code, _, err = run("build", corpus, "--no-extract", "--no-page", "--store", tmp_path / "store", "--timings", tmp_path / "no" / "t.json")
    assert code == 2 and "cannot write the timings" in err and err.count("\n") == 1
