"""The arXiv metadata snapshot (tests/data/formats/arxiv: three lines of Kaggle's
arxiv-metadata-oai-snapshot.json, new- and old-style identifiers)."""

from __future__ import annotations

import json

from kg.corpus import detect_format, load_source, read_file
from tests.conftest import DATA
from tests.test_corpus_openalex import built_papers

SNAPSHOT = DATA / "formats" / "arxiv" / "arxiv-metadata-oai-snapshot.json"


def test_snapshot_lines_map_every_field():
    first, second, old = read_file(SNAPSHOT)
    assert first.title == "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    # authors_parsed, not the LaTeX of the authors string ("C. Bal\'azs")
    assert first.authors == ("C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan")
    assert first.abstract.startswith("A fully differential calculation in perturbative quantum chromodynamics is presented for")
    assert first.abstract.endswith("enhanced sensitivity to the signal can be obtained with judicious selection of events.")
    assert (first.year, first.date) == (2007, "2007-04-02")  # the first version, not update_date 2008-11-26
    assert (first.arxiv_id, first.doi, first.venue) == ("0704.0001", "10.1103/physrevd.76.013009", "Phys.Rev.D76:013009,2007")
    assert (first.categories, first.url, first.source_id) == (("hep-ph",), "https://arxiv.org/abs/0704.0001", "0704.0001")
    assert (second.authors, second.categories, second.doi, second.date) == (
        ("Ileana Streinu", "Louis Theran"),
        ("math.CO", "cs.CG"),
        None,
        "2007-03-31",
    )
    assert (old.arxiv_id, old.url, old.date) == ("hep-th/9608091", "https://arxiv.org/abs/hep-th/9608091", "1996-08-14")
    assert old.authors == ("D. Fioravanti", "A. Mariottini", "E. Quattrini", "F. Ravanini")  # affiliations dropped
    assert [p.source.line for p in (first, second, old)] == [1, 2, 3] and first.source.format == "arxiv"
    assert detect_format(load_source(SNAPSHOT)) == "arxiv"


def test_without_versions_the_update_date_and_the_authors_string(tmp_path):
    line = {"id": "2502.05628", "abstract": "We test.", "authors": "A. Smith and B. Jones", "update_date": "2025-02-10", "versions": []}
    (tmp_path / "snapshot.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    (paper,) = read_file(tmp_path / "snapshot.jsonl")
    assert (paper.authors, paper.date, paper.source.format) == (("A. Smith", "B. Jones"), "2025-02-10", "arxiv")


def test_build_keeps_title_author_order_and_date(tmp_path, run):
    papers = built_papers(run, tmp_path, SNAPSHOT)
    assert papers["Sparsity-certifying Graph Decompositions"] == ("2007-03-31", ("Ileana Streinu", "Louis Theran"))
