"""The JSON Lines interchange format."""

import json

import pytest

from kg.corpus import read_file
from kg.errors import CorpusError


def write(tmp_path, *lines, name="papers.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_full_record(tmp_path):
    record = {
        "id": 17, "title": "A  Title", "abstract": "We study things.\u00a0It works.",
        "authors": ["Ada Lovelace", "Alan Turing"], "year": "2024", "venue": "NeurIPS 2024",
        "categories": ["ML"], "url": "https://example.org/p", "doi": "https://doi.org/10.1234/ABC",
    }
    (paper,) = read_file(write(tmp_path, json.dumps(record)))
    assert paper.title == "A Title" and paper.abstract == "We study things. It works."
    assert paper.authors == ("Ada Lovelace", "Alan Turing") and paper.year == 2024
    assert paper.doi == "10.1234/abc" and paper.source_id == "17" and paper.categories == ("ML",)
    assert paper.source.format == "jsonl" and paper.source.line == 1


def test_missing_title_and_unknown_keys(tmp_path):
    path = write(tmp_path, "", json.dumps({"abstract": "Only an abstract here.", "arxiv_id": "2401.1", "score": [1, 2]}))
    (paper,) = read_file(path)
    assert paper.title is None and paper.display_label == "Only an abstract here."
    assert paper.source.line == 2  # the blank first line is skipped but counted


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"abstract": "x"', "papers.jsonl:1: not valid JSON"),
        ('["abstract"]', "papers.jsonl:1: each line must be a JSON object"),
        ('{"title": "no abstract"}', "papers.jsonl:1: paper has no 'abstract'"),
        ('{"abstract": "x", "authors": "A, B", "year": "soon"}', "papers.jsonl:1: 'year' must be a whole number"),
        ('{"abstract": "x", "authors": [1]}', "papers.jsonl:1: 'authors' must be a list of strings"),
        ('{"abstract": 3}', "papers.jsonl:1: 'abstract' must be a string"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path, line, message):
    with pytest.raises(CorpusError, match=message):
        list(read_file(write(tmp_path, line)))
