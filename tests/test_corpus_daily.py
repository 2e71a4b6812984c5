"""The daily-papers listing (corpus/003_...txt): 240 untitled abstracts."""

import pytest

from kg.corpus import read_file
from kg.text import normalise_whitespace
from tests.conftest import DAILY


@pytest.fixture(scope="module")
def papers():
    return list(read_file(DAILY))


def test_reads_240_untitled_abstracts_one_per_paragraph(papers):
    paragraphs = [p for p in DAILY.read_text(encoding="utf-8").split("\n\n") if p.strip()]
    assert paragraphs[0].strip() == "Daily Papers"  # the listing's heading, not a paper
    assert len(papers) == 240
    # None merged into a neighbour: each record is exactly one paragraph of the file.
    assert [p.abstract for p in papers] == [normalise_whitespace(p) for p in paragraphs[1:]]
    assert len({p.abstract for p in papers}) == 240


def test_untitled_papers_get_a_derived_label_never_a_title(papers):
    for paper in papers:
        assert paper.title is None and paper.title_is_derived
        label = paper.display_label
        assert paper.abstract.startswith(label.rstrip("…"))
    assert papers[0].display_label == "Large language models (LLMs) such as GPT-4 sometimes appear to be creative…"


def test_listing_heading_is_the_venue_and_lines_are_recorded(papers):
    assert {p.venue for p in papers} == {"Daily Papers"}
    assert papers[0].source.line == 3 and papers[-1].source.index == 240
