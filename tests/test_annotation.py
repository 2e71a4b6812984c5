"""kg's own annotation: placing what annotators write, the stored sets, agreement."""

import json
from pathlib import Path

import pytest

from kg.training.annotation import agreement, convert, read_records
from kg.training.arxiv import DEV_SIZE, TEST_SIZE

ANNOTATIONS = Path(__file__).resolve().parents[1] / "annotations" / "arxiv-cs-2025"
TEXT = "We propose LoRA-X, which extends LoRA. LoRA-X beats LoRA on GLUE. Code is public."
BOUNDS = [(0, 38), (39, 65), (66, 81)]


def test_every_whole_word_occurrence_is_placed_and_the_longest_name_wins():
    raw = {
        "id": "x",
        "concepts": [
            {"text": "LoRA-X", "type": "Method", "label": "LoRA-X", "proposed": True},
            {"text": "LoRA", "type": "Method", "label": "LoRA"},
            {"text": "GLUE", "type": "Dataset", "label": "GLUE"},
        ],
        "claims": [1],
        "relations": [
            {"head": "LoRA-X", "type": "outperforms", "tail": "LoRA", "sentence": 1},
            {"head": "LoRA-X", "type": "evaluatedOn", "tail": "GLUE", "sentence": 1},
        ],
        "paper": {"datasets": ["GLUE"], "methods": ["LoRA"]},
    }
    record, problems = convert(raw, TEXT, BOUNDS)
    assert problems == []
    placed = [(TEXT[c["start"] : c["end"]], c["start"], c["proposed"]) for c in record["concepts"]]
    # "LoRA" inside "LoRA-X" is not a mention of LoRA; its two own occurrences are.
    assert placed == [("LoRA-X", 11, True), ("LoRA", 33, False), ("LoRA-X", 39, True), ("LoRA", 52, False), ("GLUE", 60, False)]
    assert record["claims"] == [{"start": 39, "end": 65}]
    assert [r["type"] for r in record["relations"]] == ["evaluatedOn", "outperforms"]
    assert record["paper"] == {"tasks": [], "datasets": ["GLUE"], "methods": ["LoRA"]}
    assert "abstract" not in record and all("text" not in c for c in record["concepts"])


def test_problems_name_what_cannot_be_placed_or_breaks_the_guideline():
    raw = {
        "id": "x",
        "concepts": [
            {"text": "LoRA", "type": "Method", "label": "LoRA"},
            {"text": "BERT", "type": "Method", "label": "BERT"},  # not in the text
            {"text": "GLUE", "type": "Benchmark", "label": "GLUE"},  # not a type
        ],
        "claims": [7],
        "relations": [{"head": "LoRA", "type": "evaluatedOn", "tail": "LoRA", "sentence": 1}],
    }
    _, problems = convert(raw, TEXT, BOUNDS)
    assert any("'BERT' does not occur" in p for p in problems)
    assert any("type 'Benchmark'" in p for p in problems)
    assert any("sentence 7" in p for p in problems)
    assert any("needs a Method label as head and a Dataset label as tail" in p for p in problems)


def test_agreement_is_one_for_identical_records_and_drops_with_a_missed_mention():
    raw = {"id": "x", "concepts": [{"text": "LoRA", "type": "Method"}, {"text": "GLUE", "type": "Dataset"}], "claims": [1]}
    a, _ = convert(raw, TEXT, BOUNDS)
    b, _ = convert({**raw, "concepts": raw["concepts"][:1]}, TEXT, BOUNDS)
    assert agreement([a], [a])["concepts"] == 1.0
    scores = agreement([a], [b])
    assert scores["Dataset"] == 0.0 and 0 < scores["concepts"] < 1 and scores["claims"] == 1.0


def test_the_stored_sets_are_disjoint_sized_as_drawn_and_hold_no_text():
    splits = {name: read_records(ANNOTATIONS / f"{name}.jsonl") for name in ("train", "dev", "test")}
    ids = {name: {r["id"] for r in records} for name, records in splits.items()}
    assert len(ids["test"]) == TEST_SIZE and len(ids["dev"]) == DEV_SIZE and len(ids["train"]) >= 250
    assert not (ids["test"] & ids["train"]) and not (ids["test"] & ids["dev"]) and not (ids["dev"] & ids["train"])
    for records in splits.values():
        for record in records:
            assert set(record) == {"id", "digest", "concepts", "claims", "relations", "paper", "annotator"}
            assert all(set(c) == {"start", "end", "type", "label", "proposed"} for c in record["concepts"])


@pytest.mark.parametrize("name", ["train", "dev", "test", "second"])
def test_stored_lines_are_sorted_json(name):
    for line in (ANNOTATIONS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        assert line == json.dumps(json.loads(line), sort_keys=True)


def test_paper_level_relations_belong_to_the_most_mentioned_proposed_method():
    from kg.training.evaluation import _own_method

    raw = {
        "id": "x",
        "concepts": [
            {"text": "LoRA-X", "type": "Method", "label": "LoRA-X", "proposed": True},
            {"text": "LoRA", "type": "Method", "label": "LoRA"},
        ],
    }
    record, _ = convert(raw, TEXT, BOUNDS)
    assert _own_method(record) == "LoRA-X"
    assert _own_method({**record, "concepts": [c for c in record["concepts"] if not c["proposed"]]}) is None
