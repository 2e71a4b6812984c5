"""PubMed XML (efetch answers, baseline files), read through kg.corpus.read_file.

The fixture, tests/data/formats/pubmed/efetch.xml, holds four real records
(its second line says where they came from): a structured abstract (PMID 27797938),
ORCIDs, a collective author and MathML (29963580), and, on its line 434 as
efetch wrote them, an article without an abstract (12091962) and a plain one (9997).
"""

import gzip
import time
from pathlib import Path

import pytest

from kg.corpus import detect_format, load_source, pubmed, read_file
from kg.errors import CorpusError, CorpusWarning
from kg.graph import open_store

EFETCH = Path(__file__).parent / "data" / "formats" / "pubmed" / "efetch.xml"
FIXTURE = EFETCH.read_text(encoding="utf-8")
NO_ABSTRACT = r"skipped 1 of 4 records \(1 without an abstract; first at line 434: PubMed article 12091962 has no abstract"
PLAIN = "Electron paramagnetic resonance and magnetic susceptibility studies of Chromatium flavocytochrome C552 and its diheme flavin-free subunit at temperatures below 45 degrees K are reported. The results show that in the intact protein and the subunit the two low-spin (S = 1/2) heme irons are distinguishable, giving rise to separate EPR signals. In the intact protein only, one of the heme irons exists in two different low spin environments in the pH range 5.5 to 10.5, while the other remains in a constant environment. Factors influencing the variable heme iron environment also influence flavin reactivity, indicating the existence of a mechanism for heme-flavin interaction."


def read_fixture(path=EFETCH, **options):
    with pytest.warns(CorpusWarning, match=NO_ABSTRACT):
        return list(read_file(path, **options))


def only(tmp_path, text, name="one.xml"):
    """The one paper read from a file holding ``text``."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    (paper,) = read_file(path)
    return paper


def plain_record(old: str, new: str) -> str:
    """The fixture's record 9997 alone, with ``old`` replaced by ``new``."""
    line = FIXTURE.splitlines()[433]
    record = line[line.index('<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"') :]
    assert old in record
    return "<PubmedArticleSet>" + record.replace(old, new) + "</PubmedArticleSet>"


def test_the_efetch_fixture_is_read_record_by_record():
    structured, orcids, plain = read_fixture()
    assert detect_format(load_source(EFETCH)) == "pubmed"  # .xml is claimed by atom too: content decides
    assert [(p.source.line, p.source.index, p.source.format) for p in (structured, orcids, plain)] == [
        (5, 1, "pubmed"),
        (249, 2, "pubmed"),
        (434, 4, "pubmed"),  # the third record, on the same line, is the one without an abstract
    ]

    assert structured.title == "Leucocyte telomere length, genetic variants at the TERT gene region and risk of pancreatic cancer."
    assert structured.authors[:3] == ("Ying Bao", "Jennifer Prescott", "Chen Yuan")
    assert structured.authors[-2:] == ("Laufey T Amundadottir", "Brian M Wolpin") and len(structured.authors) == 22  # its AuthorList
    assert structured.orcids == ()
    # four labelled sections, joined with their labels; <i>, <sub> and <sup> kept as text
    assert structured.abstract.startswith("OBJECTIVE: Telomere shortening occurs as an early event in pancreatic tumorigenesis")
    assert "(TERT) gene region" in structured.abstract and "p=0.002). The minor allele" in structured.abstract
    assert " cancer. DESIGN: We measured prediagnostic " in structured.abstract and "(comparing extreme quintiles" in structured.abstract
    assert "ptrend=0.048" in structured.abstract and "r2<0.25" in structured.abstract
    assert structured.abstract.endswith(
        "(p=0.023). CONCLUSIONS: Prediagnostic leucocyte telomere length and genetic variants at the TERT gene region were associated with risk of pancreatic cancer."
    )
    assert "Copyright" not in structured.abstract and "BMJ" not in structured.abstract
    assert (structured.year, structured.date) == (2016, "2016-10-21")  # ArticleDate, not the issue's 2017 Jun
    assert (structured.doi, structured.pmid, structured.source_id) == ("10.1136/gutjnl-2016-312510", "27797938", "27797938")
    assert structured.url == "https://pubmed.ncbi.nlm.nih.gov/27797938/" and structured.venue == "Gut"
    assert structured.categories[:2] == ("Adenocarcinoma", "Adult")  # 21 MeSH descriptors, then the one keyword
    assert structured.categories[-2:] == ("United States", "PANCREATIC CANCER") and len(structured.categories) == 22

    assert orcids.authors == (
        "Fumin Guo",
        "Dante Capaldi",
        "Miranda Kirby",
        "Khadija Sheikh",
        "Sarah Svenningsen",
        "David G McCormack",
        "Aaron Fenster",
        "Grace Parraga",
        "Canadian Respiratory Research Network",  # a CollectiveName
    )
    assert orcids.orcids == (
        None,
        "https://orcid.org/0000-0002-4590-7461",
        None,
        None,
        None,
        None,
        "https://orcid.org/0000-0003-3525-2788",
        None,
        None,
    )
    assert "(1) inhaled He 3 / Xe 129 MRI ventilation and apparent diffusion coefficients" in orcids.abstract  # MathML, as its text
    assert (orcids.year, orcids.date, orcids.venue) == (2018, "2018-06-28", "Journal of medical imaging (Bellingham, Wash.)")
    assert (orcids.doi, orcids.pmid) == ("10.1117/1.jmi.5.2.026002", "29963580")  # not a reference's ArticleId
    assert orcids.categories == (
        "asthma",
        "chronic obstructive lung disease",
        "image processing, biomarkers",
        "magnetic resonance imaging",
        "thoracic computed tomography",
    )

    assert plain.title == "Magnetic studies of Chromatium flavocytochrome C552. A mechanism for heme-flavin interaction."
    assert plain.authors == ("T C Strekas",) and plain.abstract == PLAIN
    assert (plain.year, plain.date, plain.venue) == (1976, "1976-09-28", "Biochimica et biophysica acta")  # PubDate: Sep 28
    assert (plain.doi, plain.pmid, plain.url) == ("10.1016/0005-2795(76)90109-4", "9997", "https://pubmed.ncbi.nlm.nih.gov/9997/")


def test_a_gzipped_baseline_file_is_read_as_a_stream(tmp_path, monkeypatch):
    path = tmp_path / "pubmed25n0001.xml.gz"
    path.write_bytes(gzip.compress(EFETCH.read_bytes()))
    monkeypatch.setattr(pubmed, "read", None)  # never the whole decompressed text
    streamed = read_fixture(path)
    monkeypatch.undo()
    expected = read_fixture()
    assert [(p.source.line, p.title, p.abstract, p.date) for p in streamed] == [
        (p.source.line, p.title, p.abstract, p.date) for p in expected
    ]


PUB_DATES = [
    ("<MedlineDate>2024 Mar-Apr</MedlineDate>", 2024, "2024-03"),
    ("<MedlineDate>1998 Dec-1999 Jan</MedlineDate>", 1998, "1998-12"),
    ("<MedlineDate>Fall 2017</MedlineDate>", 2017, None),
    ("<Year>1990</Year><Season>Spring</Season>", 1990, None),
    ("<Year>2024</Year><Month>03</Month>", 2024, "2024-03"),
    ("<Year>2025</Year><Month>Feb</Month><Day>30</Day>", 2025, "2025-02"),  # no such day
]


@pytest.mark.parametrize("pub_date, year, date", PUB_DATES)
def test_issue_dates(tmp_path, pub_date, year, date):
    paper = only(tmp_path, plain_record("<Year>1976</Year><Month>Sep</Month><Day>28</Day>", pub_date))
    assert (paper.year, paper.date) == (year, date)


def test_authors_and_their_orcids(tmp_path):
    authors = (
        '<AuthorList><Author ValidYN="Y"><LastName>Lovelace</LastName><Initials>A</Initials>'
        '<Identifier Source="ORCID">0000000218250097</Identifier></Author>'
        '<Author ValidYN="N"><LastName>Withdrawn</LastName><ForeName>Name</ForeName></Author>'
        "<Author><LastName>Turing</LastName><ForeName>Alan M</ForeName><Suffix>Jr</Suffix>"
        '<Identifier Source="ORCID">http://orcid.org/0000-0001-5109-3700</Identifier></Author></AuthorList>'
        '<AuthorList Type="editors"><Author><LastName>Editor</LastName><ForeName>An</ForeName></Author></AuthorList>'
    )
    paper = only(
        tmp_path,
        plain_record(
            '<AuthorList CompleteYN="Y"><Author ValidYN="Y"><LastName>Strekas</LastName><ForeName>T C</ForeName><Initials>TC</Initials></Author></AuthorList>',
            authors,
        ),
    )
    assert paper.authors == ("A Lovelace", "Alan M Turing Jr")
    assert paper.orcids == ("https://orcid.org/0000-0002-1825-0097", "https://orcid.org/0000-0001-5109-3700")


@pytest.mark.parametrize(
    "sections, abstract",
    [
        (
            '<AbstractText Label="BACKGROUND">Why.</AbstractText><AbstractText Label="METHODS">How.</AbstractText>',
            "BACKGROUND: Why. METHODS: How.",
        ),
        ('<AbstractText Label="UNLABELLED">Just <b>this</b>.</AbstractText>', "Just this."),
    ],
)
def test_abstract_sections(tmp_path, sections, abstract):
    paper = only(tmp_path, plain_record(PLAIN.join(("<AbstractText>", "</AbstractText>")), sections))
    assert paper.abstract == abstract


def test_a_book_chapter_and_an_article_without_abstract_are_skipped(tmp_path):
    book = "<PubmedBookArticle><BookDocument><PMID>32809474</PMID><ArticleTitle>A chapter</ArticleTitle></BookDocument></PubmedBookArticle>"
    path = tmp_path / "mixed.xml"
    path.write_text(plain_record("<PubmedArticle>", book + "\n<PubmedArticle>"), encoding="utf-8")
    with pytest.warns(CorpusWarning, match=r"skipped 1 of 2 records \(1 not a journal article; first at line 1: a <PubmedBookArticle>"):
        (paper,) = read_file(path)
    assert (paper.pmid, paper.source.line, paper.source.index) == ("9997", 2, 2)
    with pytest.raises(CorpusError, match=r"^efetch.xml:434: PubMed article 12091962 has no abstract .*--strict refuses bad records"):
        list(read_file(EFETCH, strict=True))


@pytest.mark.parametrize(
    "text, message",
    [
        (FIXTURE.replace("</PubmedArticleSet>\n", ""), r"^broken.xml: not well-formed XML \(line 435, column 1\): no element found$"),
        (FIXTURE.replace("</ArticleTitle>", "</Title>", 1), r"^broken.xml: not well-formed XML \(line 22, column 134\): mismatched tag$"),
        (
            "<!DOCTYPE PubmedArticleSet SYSTEM 'pubmed.dtd'><PubmedArticleSet><PubmedArticle>&nbsp;</PubmedArticle></PubmedArticleSet>",
            r"^broken.xml: undefined XML entity &nbsp; \(line 1, column 81\)",
        ),
        (
            '<feed xmlns="http://www.w3.org/2005/Atom"/>',
            r"not PubMed XML: the root element is <feed> in namespace http://www.w3.org/2005/Atom, not <PubmedArticleSet>",
        ),
    ],
    ids=["truncated", "mismatched", "undefined entity", "not pubmed"],
)
def test_a_broken_file_is_a_one_line_error(tmp_path, text, message):
    path = tmp_path / "broken.xml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CorpusError, match=message) as caught:
        list(read_file(path, format="pubmed"))
    assert "\n" not in str(caught.value)


def billion_laughs(root: str) -> str:
    levels = "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10))
    return f'<?xml version="1.0"?>\n<!DOCTYPE {root} [<!ENTITY lol0 "lol">{levels}]>\n<{root}>&lol9;</{root}>\n'


def test_an_entity_bomb_is_refused_before_it_expands(tmp_path):
    path = tmp_path / "bomb.xml"
    path.write_text(billion_laughs("PubmedArticleSet"), encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(CorpusError, match=r"^bomb.xml: XML entity declarations are refused \(<!ENTITY lol0 ...> at line 2\)"):
        list(read_file(path))
    assert time.perf_counter() - started < 1  # refused at the first declaration


def test_kg_build_reads_pubmed_xml(tmp_path, monkeypatch, run):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "efetch.xml").write_bytes(EFETCH.read_bytes())
    code, out, err = run("build", "--no-extract", "efetch.xml")
    assert code == 0 and out.startswith("Built .kg/store: 3 papers (3 records from 1 files"), err
    assert err.startswith("kg: warning: efetch.xml: skipped 1 of 4 records (1 without an abstract")
    rows = open_store(".kg/store").query(
        "PREFIX dcterms: <http://purl.org/dc/terms/> PREFIX kg: <https://w3id.org/kg/ontology#> PREFIX foaf: <http://xmlns.com/foaf/0.1/> "
        "SELECT ?issued ?position ?name WHERE { ?paper dcterms:title ?title ; dcterms:issued ?issued ; kg:hasAuthorship ?a . "
        "?a kg:authorPosition ?position ; kg:author/foaf:name ?name . FILTER(STRSTARTS(?title, 'Development of a pulmonary')) } ORDER BY ?position"
    )
    found = [(row["issued"].value, row["issued"].datatype.value, int(row["position"].value), row["name"].value) for row in rows]
    assert {f[:2] for f in found} == {("2018-06-28", "http://www.w3.org/2001/XMLSchema#date")}
    assert [f[3] for f in found] == ["Fumin Guo", "Dante Capaldi", "Miranda Kirby", "Khadija Sheikh", "Sarah Svenningsen"] + [
        "David G McCormack",
        "Aaron Fenster",
        "Grace Parraga",
        "Canadian Respiratory Research Network",
    ]

    (tmp_path / "bomb.xml").write_text(billion_laughs("PubmedArticleSet"), encoding="utf-8")
    code, _, err = run("build", "--no-extract", "--store", "bomb-store", "bomb.xml")
    assert (code, err.count("\n")) == (2, 1) and err.startswith("kg: error: bomb.xml: XML entity declarations are refused"), err
