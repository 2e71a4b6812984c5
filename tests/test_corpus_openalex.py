"""OpenAlex works (tests/data/formats/openalex: W2741809807 from b-vitamins/openalex-python's
test fixtures, W1775749144 as OpenAlex's documentation shows it), and the JSON container
that reads them: documents, pages, JSON Lines, gzip, and records mapped by content."""

from __future__ import annotations

import gzip
import json
import warnings

import pytest
from pyoxigraph import Store

from kg.corpus import detect_format, load_source, read_file
from kg.errors import CorpusError, CorpusWarning
from tests.conftest import DATA

FORMATS = DATA / "formats" / "openalex"

# The abstract of "The state of OA" (PeerJ 6:e4375) as published: the inverted index rebuilt in word order.
STATE_OF_OA = (
    "Despite growing interest in Open Access (OA) to scholarly literature, there is an unmet need for large-scale, up-to-date, "
    "and reproducible studies assessing the prevalence and characteristics of OA. We address this need using oaDOI, an open "
    "online service that determines OA status for 67 million articles. We use three samples, each of 100,000 articles, to "
    "investigate OA in three populations: (1) all journal articles assigned a Crossref DOI, (2) recent journal articles "
    "indexed in Web of Science, and (3) articles viewed by users of Unpaywall, an open-source browser extension that lets "
    "users find OA articles using oaDOI. We estimate that at least 28% of the scholarly literature is OA (19M in total) and "
    "that this proportion is growing, driven particularly by growth in Gold and Hybrid. The most recent year analyzed (2015) "
    "also has the highest percentage of OA (45%). Because of this growth, and the fact that readers disproportionately access "
    "newer articles, we find that Unpaywall users encounter OA quite frequently: 47% of articles they view are OA. Notably, "
    "the most common mechanism for OA is not Gold, Green, or Hybrid OA, but rather an under-discussed category we dub Bronze: "
    "articles made free-to-read on the publisher website, without an explicit Open license. We also examine the citation "
    "impact of OA articles, corroborating the so-called open-access citation advantage: accounting for age and discipline, "
    "OA articles receive 18% more citations than average, an effect driven primarily by Green and Hybrid OA. We encourage "
    "further research using the free oaDOI service, as a way to inform OA policy and practice."
)
AUTHORS = (
    "Heather Piwowar",
    "Jason Priem",
    "Vincent Larivière",
    "Juan Pablo Alperín",
    "Lisa Matthias",
    "Bree Norlander",
    "Ashley Farley",
    "Jevin D. West",
    "Stefanie Haustein",
)


def quietly(path, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        papers = list(read_file(path, **options))
    return papers, [str(w.message) for w in caught]


def built_papers(run, tmp_path, *inputs) -> dict[str, tuple[str, tuple[str, ...]]]:
    """`kg build --no-extract` of ``inputs``: each paper's title -> (dcterms:issued, its authors in order)."""
    code, _, err = run("build", "--no-extract", "--no-page", "-q", "--store", tmp_path / "store", *inputs)
    assert code == 0, err
    store = Store.read_only(str(tmp_path / "store"))
    rows = store.query(
        """PREFIX kg: <https://w3id.org/kg/ontology#> PREFIX dcterms: <http://purl.org/dc/terms/>
        SELECT ?title ?issued ?name WHERE {
          ?p dcterms:title ?title ; dcterms:issued ?issued ; kg:hasAuthorship ?a .
          ?a kg:authorPosition ?position ; kg:author [ <http://xmlns.com/foaf/0.1/name> ?name ] }
        ORDER BY ?title ?position"""
    )
    papers: dict[str, tuple[str, tuple[str, ...]]] = {}
    for row in rows:
        issued, names = papers.get(row["title"].value, (row["issued"].value, ()))
        papers[row["title"].value] = (issued, (*names, row["name"].value))
    return papers


def test_a_single_work_maps_every_field():
    (paper,) = read_file(FORMATS / "work.json")
    assert paper.title == "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles"
    assert paper.abstract == STATE_OF_OA
    assert paper.authors == AUTHORS
    assert paper.orcids[:2] == ("https://orcid.org/0000-0003-1613-5981", "https://orcid.org/0000-0001-6187-6610")
    assert len(paper.orcids) == len(AUTHORS)
    assert (paper.year, paper.date) == (2018, "2018-02-13")
    assert (paper.doi, paper.pmid, paper.arxiv_id) == ("10.7717/peerj.4375", "29456894", None)
    assert (paper.venue, paper.url, paper.source_id) == ("PeerJ", "https://doi.org/10.7717/peerj.4375", "W2741809807")
    # the primary topic, then the keywords
    assert paper.categories == (
        "scientometrics and bibliometrics research",
        "Scholarly Communication",
        "Web of science",
        "Open Science",
        "Citation analysis",
    )
    assert (paper.source.format, paper.source.line) == ("openalex", 1)


def test_an_api_page_skips_the_work_without_an_abstract():
    papers, (warning,) = quietly(FORMATS / "page.json")
    assert [(p.source_id, p.source.index) for p in papers] == [("W2741809807", 2)]
    assert papers[0].source.line == 18  # where the work's object starts in the pretty-printed page
    assert "skipped 1 of 2 records (1 without an abstract; first at line 9:" in warning
    assert detect_format(load_source(FORMATS / "page.json")) == "openalex"


def test_snapshot_lines_are_read_from_gzip_as_a_stream():
    papers, (warning,) = quietly(FORMATS / "works-snapshot.jsonl.gz")
    assert [(p.source_id, p.source.line, p.abstract == STATE_OF_OA) for p in papers] == [("W2741809807", 1, True)]
    assert "first at line 2: work has no abstract" in warning


def test_an_arxiv_location_gives_the_arxiv_id(tmp_path):
    # shaped as OpenAlex gives a journal article with an arXiv copy among its locations
    work = {
        "id": "https://openalex.org/W1",
        "abstract_inverted_index": {"supremacy": [2], "Quantum": [0, 1]},
        "locations": [{"landing_page_url": "https://doi.org/10.1038/x"}, {"landing_page_url": "http://arxiv.org/abs/1910.11333v2"}],
        "publication_year": 2019,
    }
    path = tmp_path / "works.jsonl"
    path.write_text(json.dumps(work) + "\n", encoding="utf-8")
    (paper,) = read_file(path)
    assert (paper.arxiv_id, paper.abstract, paper.year, paper.date) == ("1910.11333", "Quantum Quantum supremacy", 2019, None)
    assert paper.url == "https://openalex.org/W1"  # no landing page: the work's own IRI


def test_records_are_mapped_by_content_and_a_format_can_be_forced(tmp_path):
    own = {"abstract": "A paper in kg's own format.", "authors": ["Ada Lovelace"]}
    work = {"id": "https://openalex.org/W2", "abstract_inverted_index": {"An": [0], "OpenAlex": [1], "work.": [2]}}
    path = tmp_path / "mixed.jsonl"
    path.write_text(f"{json.dumps(own)}\n{json.dumps(work)}\n", encoding="utf-8")
    assert [(p.source.format, p.abstract) for p in read_file(path)] == [
        ("jsonl", "A paper in kg's own format."),
        ("openalex", "An OpenAlex work."),
    ]
    with pytest.raises(CorpusError, match=r"mixed.jsonl:1: work has no abstract .*--strict"):
        list(read_file(path, format="openalex", strict=True))


def test_a_one_line_page_and_a_broken_document(tmp_path):
    page = {"meta": {"count": 2}, "results": [{"id": "https://openalex.org/W3", "abstract_inverted_index": {"One.": [0]}}]}
    (tmp_path / "page.jsonl").write_text(json.dumps(page) + "\n", encoding="utf-8")
    assert [p.source_id for p in read_file(tmp_path / "page.jsonl")] == ["W3"]
    broken = json.dumps([page["results"][0]], indent=2).replace('"One."', '"One.",', 1)
    (tmp_path / "broken.json").write_text(broken, encoding="utf-8")
    with pytest.raises(CorpusError, match=r"broken.json:5: not valid JSON \(Expecting ':' delimiter at column 13\)"):
        list(read_file(tmp_path / "broken.json", strict=True))


def test_gzipped_page_is_read_whole(tmp_path):
    path = tmp_path / "page.json.gz"
    path.write_bytes(gzip.compress((FORMATS / "page.json").read_bytes()))
    with pytest.warns(CorpusWarning, match="1 without an abstract"):
        assert [p.source_id for p in read_file(path)] == ["W2741809807"]


def test_build_keeps_title_author_order_and_date(tmp_path, run):
    papers = built_papers(run, tmp_path, FORMATS / "work.json")
    title = "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles"
    assert papers == {title: ("2018-02-13", AUTHORS)}
