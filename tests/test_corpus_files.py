"""Finding corpus files, choosing readers, and refusing unreadable input."""

import json
import shutil

import pytest

from kg.corpus import corpus_files, detect_format, load_source, read_file, read_paths
from kg.errors import CorpusError
from tests.conftest import CONFERENCE, CORPUS, DAILY


def test_folders_expand_to_sorted_corpus_files_without_docs():
    assert corpus_files([CORPUS]) == [CONFERENCE, DAILY]  # corpus/README.md is skipped


@pytest.mark.parametrize("path, expected", [(CONFERENCE, "conference"), (DAILY, "daily")])
def test_format_detected_by_content(tmp_path, path, expected):
    assert detect_format(load_source(path)) == expected
    renamed = tmp_path / "listing.md"  # the extension does not decide between text readers
    shutil.copy(path, renamed)
    assert detect_format(load_source(renamed)) == expected


def test_jsonl_detected_even_with_txt_extension(tmp_path):
    path = tmp_path / "papers.txt"
    path.write_text(json.dumps({"abstract": "A long abstract that is not a heading. " * 10}) + "\n")
    assert detect_format(load_source(path)) == "jsonl"


def test_format_can_be_forced():
    # Read as a plain listing, the conference file's paragraphs are all "abstracts".
    papers = list(read_file(CONFERENCE, format="daily"))
    assert len(papers) > 26 and all(p.title is None for p in papers)


def test_whole_corpus_reads_266_papers():
    assert len(list(read_paths([CORPUS]))) == 26 + 240


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "file is empty"),
        ("  \n\u00a0\n".encode(), "file is empty"),  # only (non-breaking) spaces
        (b"Caf\xe9 au lait is good. " * 20, "not UTF-8 text \\(byte 0xe9 at offset 3\\)"),
    ],
)
def test_unreadable_files_are_refused_with_the_reason(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(CorpusError, match=message):
        list(read_paths([path]))


def test_missing_path_and_empty_folder(tmp_path):
    with pytest.raises(CorpusError, match="no such file or folder"):
        list(read_paths([tmp_path / "nope"]))
    with pytest.raises(CorpusError, match="folder holds no corpus files"):
        list(read_paths([tmp_path]))
