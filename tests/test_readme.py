"""The README is generated: every transcript is a real run and every table
comes from benchmarks/results (docs/readme.py), and `cog --check` fails the
suite when README.md is not what its cog blocks make."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from docs import readme

REPO = Path(__file__).resolve().parent.parent
HINT = "README.md is out of date: run `python3 -m cogapp -r README.md`"


def test_the_readme_is_what_its_cog_blocks_generate():
    # One fresh `kg build` of the shipped corpus (the README's first transcript) and every command shown after it.
    done = subprocess.run(
        [sys.executable, "-m", "cogapp", "--check", "--diff", "--check-fail-msg", HINT, "README.md"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"{HINT}\n{done.stdout}{done.stderr}"


def test_no_cog_code_shows_on_github():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"\[\[\[cog(.*?)\]\]\]", text, flags=re.S)
    assert len(blocks) > 20  # the transcripts and the tables
    # `-->` would end the HTML comment that hides the code; an inline comment may not hold `--` at all (CommonMark 0.29).
    assert not [code for code in blocks if "-->" in code]
    assert not [code for code in blocks if "\n" not in code and "--" in code]


def test_a_transcript_shows_each_command_with_its_output_and_exit_status():
    shown = readme.transcript(("kg query 'SELECT * WHERE { ?s ?p ?o }' --store missing", "echo $?"), "echo two", folder="no-store")
    lines = shown.splitlines()
    assert lines[:2] == ["```console", "$ kg query 'SELECT * WHERE { ?s ?p ?o }' --store missing"]
    assert lines[2].startswith("kg: error: ")  # no store there: exit 2, as the README's exit codes say
    assert lines[3:] == ["$ echo $?", "2", "", "$ echo two", "two", "```"]


def test_tables_render_what_the_results_file_says(tmp_path, monkeypatch):
    score = {"precision": 1.0, "recall": 0.5, "f1": 2 / 3, "gold": 2, "predicted": 1, "correct": 1}  # 1 right of 2 gold
    none = {"precision": 0.0, "recall": 0.0, "f1": 0.0, "gold": 2, "predicted": 0, "correct": 0}
    key = {"benchmark": "SciER test", "measure": "concept mentions (3 types)", "label": "all"}
    quality = {
        "rows": [
            {**key, "pipeline": "model", "score": score, "role": "default"},
            {**key, "pipeline": "rules", "score": none, "role": "baseline"},
        ],
        "baselines": [{**key, "f1": 68.5, "baseline": "spaCy ner from scratch"}],
    }
    (tmp_path / "quality.json").write_text(json.dumps(quality), encoding="utf-8")
    monkeypatch.setattr(readme, "RESULTS", tmp_path)
    readme._results.cache_clear()
    try:
        lines = readme.table("quality").splitlines()
    finally:
        readme._results.cache_clear()
    assert lines[0] == "| benchmark | measure | label | model (default) | rules (baseline) | baseline F1 | baseline |"
    assert lines[2:] == ["| SciER test | concept mentions (3 types) | all | 66.7 | 0.0 | 68.5 | spaCy ner from scratch |"]


def test_the_hostile_table_sets_before_beside_now(tmp_path, monkeypatch):
    (tmp_path / "hostile.json").write_text(json.dumps({"totals": {"cases": 3}}), encoding="utf-8")
    (tmp_path / "hostile-before.json").write_text(json.dumps({"totals": {"cases": 2}}), encoding="utf-8")
    monkeypatch.setattr(readme, "RESULTS", tmp_path)
    readme._results.cache_clear()
    try:
        assert readme.table("hostile").splitlines()[2] == "| cases | 2 | 3 |"
    finally:
        readme._results.cache_clear()


def test_figures_fill_a_template_with_counts_from_the_lexicon_file():
    rows = [line.split("\t") for line in (REPO / "kg" / "data" / "lexicon.tsv").read_text(encoding="utf-8").splitlines()]
    entries = [row for row in rows if row[0].strip() and not row[0].startswith("#")]
    with_items = [row for row in entries if len(row) > 2 and row[2]]
    assert readme.figures("lexicon", "{wikidata} of {entries}") == f"{len(with_items)} of {len(entries)}\n"
