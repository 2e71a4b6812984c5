"""One paper from several sources is one node; gzipped inputs are read as
streams; identifiers and names normalise alike whichever reader found them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from pyoxigraph import Store

from kg.corpus import corpus_files, read_file
from kg.corpus.fields import (
    iso_date,
    normalise_arxiv_id,
    normalise_doi,
    normalise_orcid,
    normalise_pmid,
    parse_iso_date,
    split_author_list,
)
from kg.errors import CorpusError
from kg.link import link_papers
from kg.link.identity import paper_iri_for_key, text_key
from kg.records import Paper, SourceRef
from kg.vocab import KG

ABSTRACT = "We propose LoRA3D, a self-calibration pipeline for 3D geometric foundation models."


def paper(**fields) -> Paper:
    source = SourceRef(file_name="f", sha256="0" * 64, line=1, index=1, format=fields.pop("format", "jsonl"))
    return Paper(abstract=fields.pop("abstract", ABSTRACT), source=source, **fields)


@pytest.mark.parametrize(
    ("normalise", "value", "expected"),
    [
        (normalise_doi, "https://doi.org/10.1145/ABC.1", "10.1145/abc.1"),
        (normalise_doi, "doi: 10.1/X", "10.1/x"),
        (normalise_doi, "not a doi", None),
        (normalise_arxiv_id, "arXiv:2502.05628v3", "2502.05628"),
        (normalise_arxiv_id, "http://arxiv.org/abs/cs/0112017v1", "cs/0112017"),
        (normalise_arxiv_id, "https://arxiv.org/pdf/2401.01234.pdf", "2401.01234"),
        (normalise_arxiv_id, "10.48550/arXiv.2401.01234", "2401.01234"),
        (normalise_arxiv_id, "10.1145/3.4", None),
        (normalise_arxiv_id, "2401.1", None),
        (normalise_pmid, "PMID: 00123", "123"),
        (normalise_pmid, 38012345, "38012345"),
        (normalise_pmid, "12a", None),
        (normalise_orcid, "0000-0002-1825-009x", "https://orcid.org/0000-0002-1825-009X"),
        (normalise_orcid, "https://orcid.org/0000-0002-1825-0097", "https://orcid.org/0000-0002-1825-0097"),
        (normalise_orcid, "1825-0097", None),
    ],
)
def test_identifiers_normalise_alike(normalise, value, expected):
    assert normalise(value) == expected


def test_dates_keep_the_precision_the_source_has():
    assert iso_date(2024, "Mar", "5") == (2024, "2024-03-05")
    assert iso_date("2024", "september") == (2024, "2024-09")
    assert iso_date(2024, "2", 30) == (2024, "2024-02")  # no 30 February: the month is still right
    assert iso_date(2024) == (2024, None) and iso_date("soon") == (None, None)
    assert parse_iso_date("2025-08-18T10:00:00Z") == (2025, "2025-08-18")
    assert parse_iso_date("2025") == (2025, None) and parse_iso_date("2025-13") == (None, None)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Changshuai Wei, Robert C. Elston, Qing Lu", ("Changshuai Wei", "Robert C. Elston", "Qing Lu")),
        ("Ada Lovelace and Charles Babbage", ("Ada Lovelace", "Charles Babbage")),
        ("A. Smith, B. Jones, and C. Lee", ("A. Smith", "B. Jones", "C. Lee")),
        ("Lovelace, Ada; Babbage, Charles", ("Lovelace, Ada", "Babbage, Charles")),
        ("", ()),
    ],
)
def test_author_strings_split_into_people(text, names):
    assert split_author_list(text) == names


def test_records_sharing_any_identifier_are_one_paper():
    bib = paper(title="LoRA3D", doi="10.1/lora3d", arxiv_id="2412.07746", format="bibtex", abstract=ABSTRACT + " {\\em Fast}.")
    openalex = paper(doi="10.1/lora3d", orcids=("https://orcid.org/0000-0002-1825-0097",), authors=("Ziqi Lu",), format="openalex")
    arxiv = paper(arxiv_id="2412.07746", authors=("Ziqi Lu", "Heng Yang"), date="2024-12-10", year=2024, format="atom")
    other = paper(abstract="Another paper entirely, on cats.", doi="10.1/cats")
    linked = link_papers([arxiv, other, bib, openalex])
    assert len(linked) == 2
    merged = linked[0]
    assert [s.format for s in merged.sources] == ["atom", "bibtex", "openalex"]
    assert merged.iri == paper_iri_for_key("doi:10.1/lora3d").value  # the strongest identifier names it
    assert merged.paper.title == "LoRA3D" and merged.paper.date == "2024-12-10" and merged.paper.arxiv_id == "2412.07746"
    assert [a.name for a in merged.authors] == ["Ziqi Lu", "Heng Yang"]
    assert merged.authors[0].orcid == "https://orcid.org/0000-0002-1825-0097" and merged.authors[1].orcid is None


def test_a_record_that_links_two_groups_joins_them_in_input_order():
    by_arxiv = paper(arxiv_id="2412.07746", title="From arXiv", abstract="Words one.")
    by_doi = paper(doi="10.1/x", title="From the publisher", abstract="Words two.")
    both = paper(doi="10.1/x", arxiv_id="2412.07746", abstract="Words three.")
    (linked,) = link_papers([by_arxiv, by_doi, both])
    assert linked.paper.title == "From arXiv" and linked.paper.abstract == "Words one."
    assert linked.paper.doi == "10.1/x" and linked.iri == paper_iri_for_key("doi:10.1/x").value


def test_same_words_but_different_identifiers_stay_apart():
    assert len(link_papers([paper(doi="10.1/a"), paper(doi="10.1/b")])) == 2
    assert len(link_papers([paper(arxiv_id="2401.00001"), paper(arxiv_id="2401.00002")])) == 2
    assert len(link_papers([paper(doi="10.1/a"), paper(arxiv_id="2401.00002")])) == 1  # no kind disagrees


def test_iris_stay_what_they_were_and_arxiv_dois_name_the_eprint():
    assert link_papers([paper(doi="10.1/a")])[0].iri == paper_iri_for_key("doi:10.1/a").value
    assert link_papers([paper()])[0].iri == paper_iri_for_key(text_key(paper())).value
    arxiv_doi = link_papers([paper(doi="10.48550/arxiv.2412.07746")])[0]
    assert arxiv_doi.iri == link_papers([paper(arxiv_id="2412.07746")])[0].iri == paper_iri_for_key("arxiv:2412.07746").value
    # the publisher's DOI wins over arXiv's for the merged record
    (linked,) = link_papers([paper(doi="10.48550/arxiv.2412.07746"), paper(doi="10.1/pub", arxiv_id="2412.07746")])
    assert linked.paper.doi == "10.1/pub"


def test_names_that_share_an_orcid_are_one_person():
    orcid = "https://orcid.org/0000-0002-1825-0097"
    one = paper(authors=("Josiah Carberry",), orcids=(orcid,), abstract="First.")
    two = paper(authors=("J. Carberry",), orcids=(orcid,), abstract="Second.")
    a, b = link_papers([one, two])
    assert a.authors[0] is b.authors[0] and b.authors[0].name == "Josiah Carberry"


RECORDS = [
    {
        "id": "2502.05628",
        "title": "AnyEdit",
        "authors": "Houcheng Jiang, Junfeng Fang and Ningyu Zhang",
        "abstract": "We edit.",
        "date": "2025-02-11",
    },
    {"id": "2502.05629", "title": "Two", "authors": "", "abstract": "We also edit.", "categories": ["cs.CL"], "date": "2025-02-12"},
]


def write_gz(path, lines):
    with gzip.open(path, "wt", encoding="utf-8") as file:
        file.write("".join(json.dumps(r) + "\n" for r in lines))


def test_a_gzipped_jsonl_file_reads_as_its_text_would(tmp_path):
    write_gz(tmp_path / "abstracts.jsonl.gz", RECORDS)
    (tmp_path / "plain.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    zipped, plain = list(read_file(tmp_path / "abstracts.jsonl.gz")), list(read_file(tmp_path / "plain.jsonl"))
    assert [p.title for p in zipped] == ["AnyEdit", "Two"]
    assert zipped[0].authors == ("Houcheng Jiang", "Junfeng Fang", "Ningyu Zhang") and zipped[1].authors == ()
    assert zipped[0].date == "2025-02-11" and zipped[1].source.line == 2
    assert [(p.title, p.authors, p.date, p.abstract) for p in zipped] == [(p.title, p.authors, p.date, p.abstract) for p in plain]
    assert corpus_files([tmp_path]) == [tmp_path / "abstracts.jsonl.gz", tmp_path / "plain.jsonl"]


def test_gzip_is_recognised_by_its_bytes_and_broken_gzip_is_one_error(tmp_path):
    write_gz(tmp_path / "download", RECORDS)  # no extension at all: content decides
    assert [p.title for p in read_file(tmp_path / "download")] == ["AnyEdit", "Two"]
    data = (tmp_path / "download").read_bytes()
    (tmp_path / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(CorpusError, match=r"cut\.jsonl\.gz: (broken gzip data|not readable gzip data)"):
        list(read_file(tmp_path / "cut.jsonl.gz"))
    (tmp_path / "latin1.jsonl.gz").write_bytes(gzip.compress('{"abstract": "Caf\xe9"}\n'.encode("latin-1")))
    with pytest.raises(CorpusError, match="not UTF-8 text"):
        list(read_file(tmp_path / "latin1.jsonl.gz"))


def test_build_from_gzipped_jsonl_gives_dated_papers(tmp_path, run):
    write_gz(tmp_path / "abstracts.jsonl.gz", RECORDS)
    code, _, err = run("build", "--no-extract", "--no-page", "-q", "--store", tmp_path / "store", tmp_path / "abstracts.jsonl.gz")
    assert code == 0, err
    store = Store.read_only(str(tmp_path / "store"))
    rows = store.query(
        "SELECT ?title ?issued WHERE { ?p <http://purl.org/dc/terms/title> ?title ; <http://purl.org/dc/terms/issued> ?issued } ORDER BY ?title"
    )
    assert [(r["title"].value, r["issued"].value, r["issued"].datatype.value) for r in rows] == [
        ("AnyEdit", "2025-02-11", "http://www.w3.org/2001/XMLSchema#date"),
        ("Two", "2025-02-12", "http://www.w3.org/2001/XMLSchema#date"),
    ]


MERGED = Path(__file__).parent / "data" / "formats" / "merged"


def test_one_paper_from_bibtex_openalex_and_pubmed_is_one_node(tmp_path, run):
    """The BibTeX entry gives the DOI, PubMed only the PMID, OpenAlex both: one
    paper, every identifier and source kept, the most precise date, ORCIDs."""
    code, out, err = run("build", "--no-extract", "--no-page", "-q", "--store", tmp_path / "store", MERGED)
    assert code == 0, err
    store = Store.read_only(str(tmp_path / "store"))
    (row,) = store.query(
        """SELECT ?paper ?title ?doi ?pmid ?issued (COUNT(DISTINCT ?record) AS ?records) WHERE {
             ?paper a kg:Paper ; dcterms:title ?title ; bibo:doi ?doi ; bibo:pmid ?pmid ; dcterms:issued ?issued ;
                    prov:qualifiedDerivation ?record .
           } GROUP BY ?paper ?title ?doi ?pmid ?issued""",
        prefixes={
            "kg": KG.iri,
            "dcterms": "http://purl.org/dc/terms/",
            "bibo": "http://purl.org/ontology/bibo/",
            "prov": "http://www.w3.org/ns/prov#",
        },
    )
    assert row["paper"].value == paper_iri_for_key("doi:10.7717/peerj.4375").value
    assert row["title"].value == "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles"
    assert (row["doi"].value, row["pmid"].value, row["issued"].value, int(row["records"].value)) == (
        "10.7717/peerj.4375",
        "29456894",
        "2018-02-13",
        3,
    )
    orcids = {
        r["name"].value: r["orcid"].value
        for r in store.query(
            "SELECT ?name ?orcid WHERE { ?p <http://xmlns.com/foaf/0.1/name> ?name ; <https://w3id.org/kg/ontology#orcid> ?orcid }"
        )
    }
    assert orcids["Heather Piwowar"] == "https://orcid.org/0000-0003-1613-5981" and len(orcids) >= 5
