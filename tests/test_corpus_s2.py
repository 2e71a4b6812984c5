"""Semantic Scholar paper JSON (tests/data/formats/s2: Graph API responses recorded in
danielnsilva/semanticscholar's tests, and bulk-dataset lines of the same papers)."""

from __future__ import annotations

import pytest

from kg.corpus import detect_format, load_source, read_file
from kg.errors import CorpusError
from tests.conftest import DATA
from tests.test_corpus_openalex import built_papers, quietly

FORMATS = DATA / "formats" / "s2"

TURING = (
    "I propose to consider the question, “Can machines think?”♣ This should begin with definitions of the meaning of the terms "
    "“machine” and “think”. The definitions might be framed so as to reflect so far as possible the normal use of the words, but "
    "this attitude is dangerous. If the meaning of the words “machine” and “think” are to be found by examining how they are "
    "commonly used it is difficult to escape the conclusion that the meaning and the answer to the question, “Can machines think?” "
    "is to be sought in a statistical survey such as a Gallup poll."
)


def test_a_paper_maps_every_field():
    (paper,) = read_file(FORMATS / "paper.json")
    assert (paper.title, paper.authors, paper.abstract) == ("Computing Machinery and Intelligence", ("A. Turing",), TURING)
    assert (paper.year, paper.date, paper.doi, paper.arxiv_id, paper.pmid) == (1950, "1950-10-01", "10.1093/mind/lix.236.433", None, None)
    assert paper.venue == "The Philosophy of Artificial Intelligence"  # "venue" before "journal.name" (Mind)
    assert paper.categories == ("Computer Science", "Sociology")
    assert paper.url == "https://www.semanticscholar.org/paper/2d5673caa9e6af3a7b82a43f19ee920992db07ad"
    assert (paper.source_id, paper.source.format) == ("2d5673caa9e6af3a7b82a43f19ee920992db07ad", "s2")


def test_a_batch_skips_the_null_of_an_unknown_id():
    papers = list(read_file(FORMATS / "batch.json"))
    assert [(p.source.index, p.title) for p in papers] == [
        (1, "How Much Should We Trust Differences-in-Differences Estimates?"),
        (2, "The Miracle of Microfinance? Evidence from a Randomized Evaluation"),
        (3, "Improving Third-Party Audits and Regulatory Compliance in India"),
    ]
    assert papers[1].authors == ("E. Duflo", "A. Banerjee", "R. Glennerster", "Cynthia Kinnan")
    assert [(p.year, p.date, p.doi) for p in papers] == [
        (2001, "2001-10-01", "10.2139/ssrn.288970"),
        (2013, "2013-04-10", "10.2139/ssrn.2250500"),
        (2023, None, "10.1257/rct.1355"),  # no publicationDate: the year alone
    ]
    assert papers[0].venue == "Experimental & Empirical Studies eJournal"  # "venue" is empty: journal.name
    assert papers[2].categories == ("Environmental Science", "Business", "Economics")  # no fieldsOfStudy: s2FieldsOfStudy
    assert detect_format(load_source(FORMATS / "batch.json")) == "s2"


def test_a_search_page_of_titles_alone_has_no_usable_paper():
    with pytest.raises(CorpusError, match=r"search.json: no usable papers, all 2 records are bad \(2 without an abstract; first at line 1"):
        list(read_file(FORMATS / "search.json"))


def test_bulk_dataset_lines():
    with pytest.raises(CorpusError, match=r"all 2 records are bad \(2 without an abstract; .*'papers' dataset lines never have one"):
        list(read_file(FORMATS / "papers-dataset.jsonl"))
    papers, warnings = quietly(FORMATS / "abstracts-dataset.jsonl")
    assert not warnings
    assert [(p.source_id, p.doi, p.title, p.source.format) for p in papers] == [
        ("470667", "10.2139/ssrn.288970", None, "s2"),
        ("3142471", "10.2139/ssrn.2250500", None, "s2"),
    ]
    assert papers[0].abstract.startswith("Most Difference-in-Difference (DD) papers rely on many years of data")


def test_build_keeps_title_author_order_and_date(tmp_path, run):
    papers = built_papers(run, tmp_path, FORMATS / "batch.json")
    assert papers["How Much Should We Trust Differences-in-Differences Estimates?"] == (
        "2001-10-01",
        ("Marianne Bertrand", "E. Duflo", "S. Mullainathan"),
    )
    assert papers["Improving Third-Party Audits and Regulatory Compliance in India"][0] == "2023"
