"""The JSON Lines interchange format."""

import json

import pytest

from kg.corpus import read_file
from kg.errors import CorpusError, CorpusWarning


def write(tmp_path, *lines, name="papers.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_full_record(tmp_path):
    record = {
        "id": 17,
        "title": "A  Title",
        "abstract": "We study things.\u00a0It works.",
        "authors": ["Ada Lovelace", "Alan Turing"],
        "year": "2024",
        "venue": "NeurIPS 2024",
        "categories": ["ML"],
        "url": "https://example.org/p",
        "doi": "https://doi.org/10.1234/ABC",
    }
    (paper,) = read_file(write(tmp_path, json.dumps(record)))
    assert paper.title == "A Title" and paper.abstract == "We study things. It works."
    assert paper.authors == ("Ada Lovelace", "Alan Turing") and paper.year == 2024
    assert paper.doi == "10.1234/abc" and paper.source_id == "17" and paper.categories == ("ML",)
    assert paper.source.format == "jsonl" and paper.source.line == 1


def test_missing_title_and_unknown_keys(tmp_path):
    path = write(tmp_path, "", json.dumps({"abstract": "Only an abstract here.", "comments": "v2: 9 pages", "score": [1, 2]}))
    (paper,) = read_file(path)
    assert paper.title is None and paper.display_label == "Only an abstract here."
    assert paper.source.line == 2  # the blank first line is skipped but counted


BAD_LINES = [
    ('{"abstract": "x"', "papers.jsonl:1: not valid JSON", "not JSON"),
    ('["abstract"]', "papers.jsonl:1: each line must be a JSON object", "not a JSON object"),
    ('{"title": "no abstract"}', "papers.jsonl:1: paper has no 'abstract'", "without an abstract"),
    ('{"abstract": "  \\u200b "}', "papers.jsonl:1: paper has no 'abstract'", "without an abstract"),  # empty once normalised
    (
        '{"abstract": "x", "authors": "A, B", "year": "soon"}',
        "papers.jsonl:1: 'year' must be a four-digit year",
        "with a field of the wrong type",
    ),
    ('{"abstract": "x", "year": 99999}', "papers.jsonl:1: 'year' must be a four-digit year", "with a field of the wrong type"),
    ('{"abstract": "x", "authors": [1]}', "papers.jsonl:1: 'authors' must be a list of strings", "with a field of the wrong type"),
    ('{"abstract": 3}', "papers.jsonl:1: 'abstract' must be a string", "with a field of the wrong type"),
    ("[" * 100_000, "papers.jsonl:1: not usable JSON \\(nested too deeply\\)", "not JSON"),
    ('{"abstract": "x", "year": ' + "9" * 5000 + "}", "papers.jsonl:1: not usable JSON", "not JSON"),
]


@pytest.mark.parametrize("line, message, kind", BAD_LINES)
def test_bad_lines_name_file_and_line_in_strict_mode(tmp_path, line, message, kind):
    with pytest.raises(CorpusError, match=message + ".*--strict refuses bad records"):
        list(read_file(write(tmp_path, line), strict=True))


@pytest.mark.parametrize("line, message, kind", BAD_LINES)
def test_bad_lines_are_skipped_with_a_warning_that_counts_them(tmp_path, line, message, kind):
    good = json.dumps({"abstract": "A good paper."})
    path = write(tmp_path, good, line, good.replace("good", "fine"))
    with pytest.warns(CorpusWarning) as caught:
        papers = list(read_file(path))
    assert [p.abstract for p in papers] == ["A good paper.", "A fine paper."]
    assert [p.source.line for p in papers] == [1, 3]
    (warning,) = caught
    text = str(warning.message)
    assert text.startswith(f"{path}: skipped 1 of 3 records (1 {kind}; first at line 2: ")
    assert text.endswith("; --strict makes this an error") and "\n" not in text


def test_a_file_of_only_bad_lines_is_an_error(tmp_path):
    path = write(tmp_path, '{"title": "no abstract"}', "not json")
    with pytest.raises(
        CorpusError, match=r"papers.jsonl: no usable papers, all 2 records are bad \(1 not JSON, 1 without an abstract; first at line 1: "
    ):
        list(read_file(path))


def test_json_strings_may_hold_unicode_line_separators(tmp_path):
    # U+2028 is legal inside a JSON string; Python's splitlines would cut the line there.
    path = write(tmp_path, json.dumps({"abstract": "One\u2028two\u0085three."}, ensure_ascii=False), json.dumps({"abstract": "Next."}))
    papers = list(read_file(path))
    assert [(p.abstract, p.source.line) for p in papers] == [("One two three.", 1), ("Next.", 2)]


def test_lone_surrogates_become_replacement_characters(tmp_path):
    (paper,) = read_file(write(tmp_path, '{"abstract": "bad \\ud800 half.", "title": "T\\udfff"}'))
    assert paper.abstract == "bad \ufffd half." and paper.title == "T\ufffd"
    paper.abstract.encode("utf-8")  # writable, unlike the surrogate
