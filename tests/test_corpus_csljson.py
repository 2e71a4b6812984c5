"""CSL JSON (tests/data/formats/csl-json/library.json: three items of manubot's CSL JSON
test data: an arXiv report with literal names, a PubMed article, a Crossref article
without an abstract)."""

from __future__ import annotations

import json

from kg.corpus import detect_format, load_source, read_file
from tests.conftest import DATA
from tests.test_corpus_openalex import built_papers, quietly

LIBRARY = DATA / "formats" / "csl-json" / "library.json"
SCIHUB_AUTHORS = (
    "Daniel S Himmelstein",
    "Ariel Rodriguez Romero",
    "Jacob G Levernier",
    "Thomas Anthony Munro",
    "Stephen Reid McLaughlin",
    "Bastian Greshake Tzovaras",
    "Casey S Greene",
)


def test_items_map_every_field():
    (joss, scihub), (warning,) = quietly(LIBRARY)
    assert joss.title == "Journal of Open Source Software (JOSS): design and first-year review"
    assert joss.authors[:3] == ("Arfon M Smith", "Kyle E Niemeyer", "Daniel S Katz") and len(joss.authors) == 16
    assert joss.abstract.startswith("This article describes the motivation, design, and progress of the Journal of Open Source")
    assert (joss.year, joss.date) == (2017, "2017-07-07")  # date-parts given as strings
    assert (joss.doi, joss.arxiv_id, joss.venue, joss.source_id) == ("10.7717/peerj-cs.147", "1707.02264", "arXiv", "oGNtTmrp")
    assert scihub.authors == SCIHUB_AUTHORS
    assert (scihub.date, scihub.doi, scihub.pmid, scihub.venue) == ("2018-03-01", "10.7554/elife.32822", "29424689", "eLife")
    assert (scihub.url, scihub.source.line, scihub.source.format) == ("https://www.ncbi.nlm.nih.gov/pubmed/29424689", 73, "csl-json")
    assert "1 without an abstract; first at line 126:" in warning  # the Crossref item
    assert detect_format(load_source(LIBRARY)) == "csl-json"


def test_keywords_orcids_particles_and_year_month(tmp_path):
    item = {
        "id": 7,
        "type": "article-journal",
        "title": "Symphonies",
        "abstract": "On nine symphonies.",
        "author": [
            {"given": "Ludwig", "non-dropping-particle": "van", "family": "Beethoven", "ORCID": "http://orcid.org/0000-0002-1825-0097"},
            {"literal": "The Vienna Orchestra"},
        ],
        "issued": {"date-parts": [[1824, 5]]},
        "keyword": "music, symphony, Music",
    }
    (tmp_path / "export.json").write_text(json.dumps([item], indent="\t"), encoding="utf-8")
    (paper,) = read_file(tmp_path / "export.json")
    assert paper.authors == ("Ludwig van Beethoven", "The Vienna Orchestra")
    assert paper.orcids == ("https://orcid.org/0000-0002-1825-0097", None)
    assert (paper.year, paper.date, paper.categories, paper.source_id) == (1824, "1824-05", ("music", "symphony"), "7")


def test_build_keeps_title_author_order_and_date(tmp_path, run):
    papers = built_papers(run, tmp_path, LIBRARY)
    title = "Sci-Hub provides access to nearly all scholarly literature."
    assert papers[title] == ("2018-03-01", SCIHUB_AUTHORS)
