"""The RIS reader (kg.corpus.ris)."""

import shutil

import pytest

from kg.corpus import read_file, ris
from kg.errors import CorpusError, CorpusWarning
from tests.conftest import DATA

LIBRARY = DATA / "formats" / "ris" / "library.ris"


def write(tmp_path, text, name="refs.ris"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def record(*tags):
    return "TY  - JOUR\n" + "".join(f"{tag}\n" for tag in tags) + "ER  - \n"


def read(tmp_path, text):
    """The papers of a small file that has no bad record (a warning would fail the test)."""
    return list(read_file(write(tmp_path, text)))


def summary(papers):
    return [
        (p.source.line, p.source.index, p.title, p.authors, p.venue, p.year, p.date, p.doi, p.url, p.source_id, p.categories)
        for p in papers
    ]


EXPECTED = [
    (
        3,  # the file starts with two blank lines
        1,
        "EndNote: The Only Reference I Can Remember",
        ("A. Nonymous Smith", "J. Doe", "N. Ote End", "E. Rence Ref"),  # repeated AU tags, in order
        "Journal of Reference Management",  # T2
        2024,
        None,
        "10.1234/endnote.joke.2024",
        "https://www.endnote.com/",  # the first of two UR
        "123",
        ("citation", "reference", "library", "wizardry", "coffee", "procrastination", "EndNote", "RIS"),  # one KW, a line each
    ),
    (
        40,
        2,
        "Title of reference",
        ("Karl Marx", "Astrid Lindgren"),
        "Lorem",
        2014,
        None,
        None,
        "http://example_url.com",
        "12345",
        ("Pippi", "Nordwind", "Piraten"),
    ),
    (
        64,
        3,
        "Состояние рецепторного аппарата эндометрия и метаболизм эстрогенов при гиперплазиях эндометрия в позднем репродуктивном периоде",  # ST
        ("Yu E. Dobrokhotova", "R. O. Yusupova", "R. I. Ozerova", "L. Z. Fayzullin", "V. N. Karnaukhov"),
        "Gynecology, Obstetrics and Perinatology",  # JO
        2009,
        None,
        None,
        None,
        None,
        (),
    ),
]
WARNING = "skipped 1 of 4 records (1 without an abstract; first at line 83: record has no abstract (AB or N2), or it is empty)"


def test_fixture_fields(recwarn):
    papers = list(read_file(LIBRARY))
    assert summary(papers) == EXPECTED
    assert papers[0].abstract == (
        "This is a test article about the mysterious world of EndNote libraries. Legend says if you cite yourself three times "
        "in a row, EndNote will grant you a coffee break."
    )
    assert (
        papers[1].abstract.startswith("BACKGROUND: Lorem ipsum dolor sit amet") and " RESULTS: Donec quam felis" in papers[1].abstract
    )  # N2
    assert papers[2].abstract.endswith("metabolism in endometrial hyperplasia in the late reproductive period")  # a continued AB line
    assert {p.source.format for p in papers} == {"ris"}
    (warning,) = recwarn.list  # the Shannon record has no abstract
    assert str(warning.message) == f"{LIBRARY}: {WARNING}; --strict makes this an error"


def test_crlf_line_endings_read_the_same(tmp_path, recwarn):
    path = write(tmp_path, LIBRARY.read_text(encoding="utf-8").replace("\n", "\r\n"), name="library.ris")
    assert summary(read_file(path)) == EXPECTED
    assert WARNING in str(recwarn.list[0].message)


def test_build_with_the_cli(tmp_path, monkeypatch, run):
    shutil.copy(LIBRARY, tmp_path / "library.ris")
    monkeypatch.chdir(tmp_path)
    code, out, err = run("build", "--no-extract", "library.ris")
    assert code == 0, err
    assert out.startswith("Built .kg/store: 3 papers (3 records from 1 files")  # four records, one without an abstract
    query = (
        "SELECT ?issued (DATATYPE(?issued) AS ?type) ?name WHERE { ?paper dcterms:title 'EndNote: The Only Reference I Can Remember' ;"
        " dcterms:issued ?issued ; kg:hasAuthorship ?a . ?a kg:authorPosition ?position ; kg:author/foaf:name ?name } ORDER BY ?position"
    )
    code, out, err = run("query", "--format", "csv", query)
    assert code == 0, err
    gyear = "http://www.w3.org/2001/XMLSchema#gYear"
    assert out.splitlines() == ["issued,type,name", *(f"2024,{gyear},{name}" for name in EXPECTED[0][3])]


def test_looks_like_finds_a_type_line_in_the_head():
    assert ris.looks_like("\n\nTY  - JOUR\nER  - \n")
    assert ris.looks_like("Provider: Example\r\n\r\nTY  - CHAP\r\n")
    assert not ris.looks_like("@article{key, title = {TY  - JOUR}}")
    assert not ris.looks_like("TY - JOUR\n")  # one space: not the RIS tag layout
    assert not ris.looks_like("x" * 5000 + "\nTY  - JOUR\n")  # only the head is read


def test_ab_wins_over_n2_and_n2_serves_alone(tmp_path):
    first, second = read(tmp_path, record("AB  - The abstract.", "N2  - A note.") + record("N2  - Only the note."))
    assert (first.abstract, second.abstract) == ("The abstract.", "Only the note.")


def test_a_record_without_an_abstract_is_a_bad_record(tmp_path):
    path = write(tmp_path, record("TI  - A title", "AB  -  "))
    with pytest.raises(CorpusError, match=r"refs.ris:1: record has no abstract \(AB or N2\), or it is empty \(--strict"):
        list(read_file(path, strict=True))


def test_a_record_without_an_end_does_not_swallow_the_next(tmp_path):
    path = write(tmp_path, "TY  - JOUR\nTI  - Cut off\nAB  - Never ended.\n" + record("TI  - Whole", "AB  - Complete."))
    with pytest.warns(
        CorpusWarning, match=r"skipped 1 of 2 records \(1 not a complete RIS record; first at line 1: record has no 'ER  - ' line"
    ):
        papers = list(read_file(path))
    assert [(p.title, p.source.line, p.source.index) for p in papers] == [("Whole", 4, 1)]


def test_text_between_records_is_ignored(tmp_path):
    # rispy alone would read "TYPO" as the next record's start and fail on the line after it
    papers = read(tmp_path, "Exported by a tool\n" + record("AB  - One.") + "TYPO in a note\nmore of it\n2.\n" + record("AB  - Two."))
    assert [(p.abstract, p.source.line, p.source.index) for p in papers] == [("One.", 2, 1), ("Two.", 8, 2)]


def test_authors_as_exporters_write_them(tmp_path):
    (paper,) = read(
        tmp_path,
        record(
            "AB  - A.", "A1  - Lovelace, Ada", "A1  - Turing,Alan M.", "A1  - King, Martin Luther, Jr.", "A1  - World Health Organization"
        ),
    )
    assert paper.authors == ("Ada Lovelace", "Alan M. Turing", "Martin Luther King Jr.", "World Health Organization")


@pytest.mark.parametrize(
    "tags, year, date",
    [
        (("PY  - 2024/05/03/",), 2024, "2024-05-03"),
        (("PY  - 1948/07//",), 1948, "1948-07"),
        (("PY  - 2024", "DA  - 2024/05/03/"), 2024, "2024-05-03"),  # Zotero: the year in PY, the date in DA
        (("PY  - 2024", "DA  - 2023/12/01/"), 2024, None),  # a DA of another year is another date
        (("DA  - 2024/05",), 2024, "2024-05"),
        (("Y1  - 2014//",), 2014, None),
        (("PY  - 2025/02/30/",), 2025, "2025-02"),  # no such day
        (("PY  - in press",), None, None),
    ],
)
def test_dates(tmp_path, tags, year, date):
    (paper,) = read(tmp_path, record("AB  - A.", *tags))
    assert (paper.year, paper.date) == (year, date)


def test_identifiers(tmp_path):
    papers = read(
        tmp_path,
        record("AB  - A.", "UR  - https://doi.org/10.1000/ABC", "UR  - http://arxiv.org/abs/2101.00001v2")
        + record("AB  - B.", "DO  - 10.48550/arXiv.2502.05628", "JO  - arXiv preprint arXiv:2502.05628")
        + record("AB  - C.", "AN  - 23439512", "DB  - PubMed", "UR  - https://x.org/a b; https://x.org/p")
        + record("AB  - D.", "AN  - WOS:000123", "DO  - not a doi", "KW  - graphs; deep learning", "KW  - graphs"),
    )
    assert [(p.doi, p.arxiv_id, p.pmid, p.venue, p.url) for p in papers] == [
        ("10.1000/abc", "2101.00001", None, None, "https://doi.org/10.1000/ABC"),
        ("10.48550/arxiv.2502.05628", "2502.05628", None, None, None),  # the arXiv venue names no journal
        (None, None, "23439512", None, "https://x.org/p"),  # a url with a space is no IRI: the next one
        (None, None, None, None, None),  # AN is a PubMed id only in a PubMed record
    ]
    assert papers[3].categories == ("graphs", "deep learning")
