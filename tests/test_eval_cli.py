"""`kg eval` and its scoring (kg.training.evaluation): SciER and SciREX scored
on tiny hand-made rows, the report's order and baselines, and the command's
skip and exit behaviour with a benchmarks folder holding only SciREX."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from kg.extract.spans import ConceptSpan, RelationSpan
from kg.training import evaluation
from kg.training.benchmarks.scier import SciERSentence
from kg.training.benchmarks.scirex import SciREXSection, load_scirex, split_of
from kg.training.evaluation import EvalRow, Locations, Pipeline, result_table, run_benchmarks, score_scier, score_scirex
from kg.training.scoring import prf

# SciREX README ("Splits"): the first test id and the first dev id of its hash split;
# 0e37c8f1... is a test paper its README lists as no abstract (a first section over 600 words).
SCIREX_TEST, SCIREX_DEV, SCIREX_LONG = (
    "007ab5528b3bd310a80d553cccad4b78dc496b02",
    "0012de6bec1f25599e4f02517637e531a71909b9",
    "0e37c8f19eefeb0c20d92f5cb4df4153077c116b",
)
TEXT = "We compare BERT with ELMo for NER on CoNLL by F1 ."


def _at(word: str) -> tuple[int, int]:
    start = TEXT.index(word)
    return start, start + len(word)


def _concept(word: str, kind: str) -> ConceptSpan:
    return ConceptSpan(*_at(word), kind, word, 1.0, "test")


def _relation(head: int, kind: str, tail: int) -> RelationSpan:
    return RelationSpan(head, kind, tail, 0, len(TEXT), 1.0, "test")


def _by(rows: list[EvalRow], measure: str, label: str = "all"):
    return next(r.score for r in rows if r.measure == measure and r.label == label)


def test_scier_scores_concepts_and_mapped_relations():
    entities = ((*_at("BERT"), "Method"), (*_at("ELMo"), "Method"), (*_at("NER"), "Task"), (*_at("CoNLL"), "Dataset"))
    relations = (
        (0, "Compare-With", 1),  # comparedWith, either way round
        (0, "Used-For", 2),  # usedFor: Method -> Task
        (3, "Evaluated-With", 0),  # SciER's head is the dataset: kg's evaluatedOn is BERT -> CoNLL
        (3, "Benchmark-For", 2),  # benchmarkFor
        (1, "Part-Of", 0),  # no kg relation: not scored
    )
    sentence = SciERSentence("doc", 0, TEXT, entities, relations)
    concepts = [
        _concept("BERT", "Method"),
        _concept("ELMo", "Method"),
        _concept("NER", "Task"),
        _concept("CoNLL", "Method"),
        _concept("F1", "Metric"),
    ]
    found = [
        _relation(1, "outperforms", 0),  # a comparison with a winner is SciER's Compare-With: right
        _relation(0, "usedFor", 2),  # right
        _relation(0, "evaluatedOn", 3),  # right spans and kind (CoNLL's type is wrong, its span is not)
        _relation(0, "uses", 4),  # its tail is a Metric, dropped with it: not predicted
        _relation(3, "evaluatedOn", 0),  # the wrong way round: wrong
    ]
    rows = score_scier("SciER test", "rules", [sentence], [(concepts, found)])
    # 4 of the 5 concepts are scored (F1, a Metric, is dropped): BERT, ELMo, NER right, CoNLL's type wrong.
    assert _by(rows, "concept mentions (3 types)") == prf({1, 2, 3, 4}, {1, 2, 3, 5})
    method, dataset = _by(rows, "concept mentions (3 types)", "Method"), _by(rows, "concept mentions (3 types)", "Dataset")
    assert (method.gold, method.predicted, method.correct) == (2, 3, 2)
    assert (dataset.gold, dataset.predicted, dataset.correct) == (1, 0, 0)
    # 4 mapped gold relations; 4 predicted once the Metric's is dropped; 3 right.
    overall = _by(rows, "relations (mapped)")
    assert (overall.gold, overall.predicted, overall.correct) == (4, 4, 3)
    compared = _by(rows, "relations (mapped)", "comparedWith")
    assert (compared.gold, compared.predicted, compared.correct) == (1, 1, 1)
    assert _by(rows, "relations (mapped)", "benchmarkFor").recall == 0.0
    assert not any(r.label in {"outperforms", "uses"} for r in rows)


def test_scirex_scores_exact_spans_and_types():
    section = SciREXSection("paper", 1, TEXT, ((*_at("BERT"), "Method"), (*_at("CoNLL"), "Dataset")))
    predicted = [_concept("BERT", "Method"), _concept("CoNLL", "Method"), _concept("F1", "Metric")]
    rows = score_scirex("SciREX test (hash split)", "rules", [section], [predicted])
    assert _by(rows, "concept mentions (4 types)") == prf({1, 2}, {1, 3, 4})
    assert _by(rows, "concept mentions (4 types)", "Dataset").correct == 0


def _scirex_folder(root: Path) -> Path:
    rows = []
    for doc_id in (SCIREX_TEST, SCIREX_DEV, SCIREX_LONG):
        sections = [
            {"text": "document: A title", "entities": []},
            {
                "text": "We train BERT on CoNLL .",
                "entities": [
                    {"start": 9, "end": 13, "type": "Method", "text": "BERT"},
                    {"start": 17, "end": 22, "type": "Material", "text": "CoNLL"},
                ],
            },
        ]
        rows.append(json.dumps({"doc_id": doc_id, "sections": sections, "relations": []}))
    (root / "scirex").mkdir(parents=True)
    (root / "scirex" / "abstracts.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root


def test_scirex_held_out_split_keeps_test_abstracts_only(tmp_path):
    assert (split_of(SCIREX_TEST), split_of(SCIREX_DEV), split_of(SCIREX_LONG)) == ("test", "dev", "test")
    sections = list(load_scirex("test", _scirex_folder(tmp_path)))
    assert {s.doc_id for s in sections} == {SCIREX_TEST}  # the dev paper and the README's non-abstract are left out
    assert sections[1].entities == ((9, 13, "Method"), (17, 22, "Dataset"))  # Material is kg's Dataset


def test_report_puts_pipelines_and_baselines_side_by_side():
    score = prf({1}, {1})
    rows = [
        EvalRow("SciER test", "model", "concept mentions (3 types)", "all", score, "default"),
        EvalRow("SciER test", "model", "concept mentions (3 types)", "Method", score, "default"),
        EvalRow("SciER test", "rules", "concept mentions (3 types)", "all", score, "baseline"),
        EvalRow("SciER test", "rules", "concept mentions (3 types)", "Method", score, "baseline"),
    ]
    header, table = result_table(rows)
    pipeline, label, baseline = header.index("pipeline"), header.index("label"), header.index("baseline F1")
    assert [(r[label], r[pipeline]) for r in table] == [
        ("all", "model (default)"),
        ("all", "rules (baseline)"),
        ("Method", "model (default)"),
        ("Method", "rules (baseline)"),
    ]
    # The figures for spaCy's ner trained from scratch on SciER train: 68.5 overall, Method 70.9.
    assert [r[baseline] for r in table] == ["68.5", "68.5", "70.9", "70.9"]


def test_cli_knows_every_benchmark():
    from kg.cli import _EVAL_NAMES

    assert _EVAL_NAMES == evaluation.NAMES


def test_held_out_arxiv_runs_only_when_named(tmp_path):
    where = Locations(tmp_path, tmp_path, tmp_path / "devset.jsonl", tmp_path)  # nothing there: nothing runs
    _, skipped = run_benchmarks((), where)
    titles = [title for title, _ in skipped]
    assert "arXiv dev" in titles and "arXiv test" not in titles and len(titles) == len(evaluation.BENCHMARKS) - 1
    _, skipped = run_benchmarks(("arxiv-test",), where)
    assert [title for title, _ in skipped] == ["arXiv test"]
    with pytest.raises(ValueError, match="unknown benchmark"):
        run_benchmarks(("scierc", "nope"), where)


def test_eval_runs_what_it_finds_and_says_where_the_rest_is_expected(run, tmp_path, monkeypatch):
    # One quick pipeline keeps the test fast; the skip and exit behaviour does not depend on which.
    monkeypatch.setattr(evaluation, "PIPELINES", (Pipeline("default", "rules", {"concepts": "rules", "use_claims": False}),))
    benchmarks = _scirex_folder(tmp_path / "benchmarks")
    shared = tmp_path / "shared"
    code, out, err = run(
        "eval", "--benchmarks", benchmarks, "--shared", shared, "--devset", tmp_path / "none.jsonl", "--format", "json", "-q"
    )
    assert code == 0
    *skipped, recap = err.splitlines()
    # Everything but SciREX and the held-out arXiv test set: SciER test and test_ood, SciERC, CSAbstruct, the dev set, arXiv dev.
    assert len(skipped) == 6 and all(line.startswith("kg: skipped ") for line in skipped)
    assert recap.startswith("kg: ran 1 (SciREX test (hash split)); skipped 6 (")
    assert any(str(benchmarks / "scier" / "test.jsonl") in line and "--benchmarks DIR" in line for line in skipped)
    assert any(str(shared / "corpora" / "arxiv-cs-2025" / "abstracts.jsonl.gz") in line and "--shared DIR" in line for line in skipped)
    assert any(str(tmp_path / "none.jsonl") in line and "--devset" in line for line in skipped)
    rows = json.loads(out)
    assert {r["benchmark"] for r in rows} == {"SciREX test (hash split)"}
    assert {r["pipeline"] for r in rows} == {"rules (default)"}
    assert next(r for r in rows if r["label"] == "all")["gold"] == 2  # the test paper's BERT and CoNLL


def test_eval_exits_2_when_nothing_could_run(run, tmp_path):
    code, out, err = run(
        "eval", "--benchmarks", tmp_path, "--shared", tmp_path, "--devset", tmp_path / "none.jsonl", "--only", "scier", "--only", "devset"
    )
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert [line.split(":")[1].strip() for line in lines[:-1]] == ["skipped SciER test", "skipped SciER test_ood", "skipped dev set"]
    assert lines[-1].startswith("kg: error: no benchmark could run")


def _quality():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "quality.py"
    spec = importlib.util.spec_from_file_location("quality", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_quality_never_runs_the_held_out_set_unless_asked():
    quality = _quality()
    assert "arxiv-test" not in quality.benchmark_names((), held_out=False)
    assert "arxiv-test" not in quality.benchmark_names(("arxiv-test", "devset"), held_out=False)
    assert "arxiv-test" in quality.benchmark_names((), held_out=True)
