"""The BibTeX reader (kg.corpus.bibtex) and the LaTeX it turns into text (kg.corpus.latex)."""

import shutil

import pytest

from kg.corpus import bibtex, read_file
from kg.corpus.latex import to_text
from kg.errors import CorpusError, CorpusWarning
from tests.conftest import DATA

LIBRARY = DATA / "formats" / "bibtex" / "library.bib"


def write(tmp_path, text, name="refs.bib"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def read(tmp_path, text):
    """The papers of a small file that has no bad record (a warning would fail the test)."""
    return list(read_file(write(tmp_path, text)))


def test_fixture_fields(recwarn):
    papers = {p.source_id: p for p in read_file(LIBRARY)}
    # (line, title, authors, venue, year, date, doi, arxiv id, url, keywords) as the fixture gives them
    assert {
        key: (p.source.line, p.title, p.authors, p.venue, p.year, p.date, p.doi, p.arxiv_id, p.url, p.categories)
        for key, p in papers.items()
    } == {
        "kastenholz": (
            8,
            "Computation of methodology-independent ionic solvation free energies from molecular simulations",  # \hyphen
            ("M. A. Kastenholz", "Philippe H. Hünenberger"),
            "J. Chem. Phys.",  # the @string macro jchph, its ~ a space
            2006,
            None,
            "10.1063/1.2172593",
            None,
            None,
            (),
        ),
        "itzhaki": (
            43,
            "Some remarks on 't Hooft's S-matrix for black holes",
            ("Nissan Itzhaki",),
            None,
            1996,
            "1996-03-11",
            None,
            "hep-th/9603067",  # eprinttype = arxiv
            None,
            (),
        ),
        "wassenberg": (
            59,
            "Faster Radix Sort via Virtual Memory and Write-Combining",
            ("Jan Wassenberg", "Peter Sanders"),
            None,
            2010,
            "2010-08-17",
            None,
            "1008.2849",  # its version dropped
            None,
            (),
        ),
        "fielding-http-spec-01": (
            77,  # the %% line above it is a comment
            "Hypertext Transfer Protocol – HTTP/1.0",  # {{...}} and "--"
            ("Henrik Nielsen", "Roy T. Fielding", "Tim Berners-Lee"),
            None,
            1994,
            "1994-12-20",  # month = dec, day = 20
            None,
            None,
            "https://datatracker.ietf.org/doc/draft-fielding-http-spec/01/",
            (),
        ),
        "ml4h": (
            93,
            "ml4h",
            ("Data Sciences Platform at Broad Institute of MIT and Harvard",),  # "and" inside braces
            None,
            2021,
            "2021-03",  # month = mar
            None,
            None,
            "https://github.com/broadinstitute/ml4h",
            (),
        ),
        "P.Widhalm2011": (
            106,
            "Identifying Faulty Traffic Detectors with Floating Car Data",
            ("P. Widhalm", "H. Koller", "W. Ponweiser"),  # each name in braces, kept whole
            "2011 IEEE Forum on Integrated and Sustainable Transportation Systems",
            2011,
            "2011-06",  # month = jun
            "10.1109/fists.2011.5973643",
            None,
            None,
            ("Data models", "Detectors", "Error analysis", "fault detection"),
        ),
    }
    assert papers["itzhaki"].abstract == (
        "We discuss the limitations of 't Hooft's proposal for the black hole S-matrix. We find that the validity of the "
        "S-matrix implies violation of the semi-classical approximation at scales large compared to the Planck scale. We also "
        "show that the effect of the centrifugal barrier on the S-matrix is crucial even for large transverse distances."
    )
    kastenholz = papers["kastenholz"].abstract
    assert kastenholz.startswith("The computation of ionic solvation free energies from atomistic simulations is")
    assert kastenholz.endswith("the electrostatic potential in molecular liquids (and inside cavities within them).")
    assert "  " not in kastenholz and "\n" not in kastenholz  # the field's line breaks and indents are one space each
    fielding = papers["fielding-http-spec-01"].abstract
    assert fielding.startswith("The Hypertext Transfer Protocol (HTTP) is an application-level protocol with the lightness")
    assert fielding.endswith("compatible with the most commonly used HTTP server and client programs implemented prior to November 1994.")
    assert papers["ml4h"].abstract == (
        "ML4H is a toolkit for machine learning on clinical data of all kinds including genetics, labs, imaging, clinical notes, and more."
    )
    widhalm = papers["P.Widhalm2011"].abstract
    assert widhalm.startswith("Virtually all ITS applications rely on accurate traffic data. Identification of faulty detectors")
    assert widhalm.endswith("the fault detection capability of our approach using data obtained from a microscopic traffic simulation.")
    assert [p.source.index for p in papers.values()] == [1, 2, 3, 4, 5, 6]
    assert {p.source.format for p in papers.values()} == {"bibtex"}
    (warning,) = recwarn.list  # the @preamble, @string and @Comment blocks are no records
    assert str(warning.message) == (
        f"{LIBRARY}: skipped 1 of 7 records (1 without an abstract; first at line 118: entry 'Corti_2009' has no abstract "
        "field, or it is empty); --strict makes this an error"
    )


def test_build_with_the_cli(tmp_path, monkeypatch, run):
    shutil.copy(LIBRARY, tmp_path / "library.bib")
    monkeypatch.chdir(tmp_path)
    code, out, err = run("build", "--no-extract", "library.bib")
    assert code == 0, err
    assert out.startswith("Built .kg/store: 6 papers (6 records from 1 files")  # the fixture's seven entries, one without an abstract
    query = (
        "SELECT ?issued (DATATYPE(?issued) AS ?type) ?name WHERE { ?paper dcterms:title ?title ; dcterms:issued ?issued ;"
        " kg:hasAuthorship ?a . ?a kg:authorPosition ?position ; kg:author/foaf:name ?name . FILTER(STRSTARTS(?title, 'Faster Radix'))"
        " } ORDER BY ?position"
    )
    code, out, err = run("query", "--format", "csv", query)
    assert code == 0, err
    assert out.splitlines() == [
        "issued,type,name",
        "2010-08-17,http://www.w3.org/2001/XMLSchema#date,Jan Wassenberg",
        "2010-08-17,http://www.w3.org/2001/XMLSchema#date,Peter Sanders",
    ]


def test_looks_like_reads_past_comments_and_blank_lines():
    assert bibtex.looks_like("% Encoding: UTF-8\n\n  @Article{key,\n")
    assert bibtex.looks_like("@ARTICLE (key, title = {T})")
    assert not bibtex.looks_like("Daily Papers\n\n@article{key,")  # the first content is not an entry
    assert not bibtex.looks_like("TY  - JOUR\nER  - \n")
    assert not bibtex.looks_like("@author on social media")


def test_string_macros_and_concatenation(tmp_path):
    (paper,) = read(
        tmp_path,
        "@string{acl = {Association for Computational Linguistics}}\n"
        '@String(pre = "Proceedings of the ")\n'
        '@string{first = "Ada"}\n'
        "@inproceedings{k, title = {Part } # 2, booktitle = pre # acl, author = first # { Lovelace and Alan Turing},\n"
        "  abstract = {We } # {study } # undefined # {things.}, month = jan # {~15}, year = 2019}\n",
    )
    assert paper.venue == "Proceedings of the Association for Computational Linguistics"
    assert paper.title == "Part 2" and paper.authors == ("Ada Lovelace", "Alan Turing")
    assert paper.abstract == "We study things."  # an undefined macro is empty, as in BibTeX
    assert paper.date is None and paper.year == 2019  # "January 15" names no month kg reads


def test_comment_and_preamble_blocks_are_not_papers(tmp_path):
    papers = read(
        tmp_path,
        "@comment{ an entry in a comment: @article{fake, title = {Fake}, abstract = {No.}} }\n"
        '@preamble{ "\\newcommand{\\noop}[1]{}" }\n'
        "Text between entries is a comment too.\n"
        "@article{real, title = {Real}, abstract = {Yes.}}\n",
    )
    assert [(p.source_id, p.source.line, p.source.index) for p in papers] == [("real", 4, 1)]


def test_a_malformed_entry_does_not_stop_the_rest(tmp_path):
    path = write(
        tmp_path,
        "@article{first, title = {First}, abstract = {One.}}\n\n"
        "@article{broken,\n  title = {Never closed,\n  year = 2020\n\n"
        "@article{last, title = {Last}, abstract = {Two.}}\n",
    )
    with pytest.warns(CorpusWarning, match=r"skipped 1 of 3 records \(1 not valid BibTeX; first at line 3: not a valid BibTeX entry \("):
        papers = list(read_file(path))
    assert [(p.source_id, p.source.line) for p in papers] == [("first", 1), ("last", 7)]


def test_a_repeated_key_keeps_the_first_entry(tmp_path):
    path = write(
        tmp_path,
        "@article{same, title = {First}, abstract = {One.}}\n@article{same, title = {Second}, abstract = {Two.}}\n"
        "@article{other, title = {T}, abstract = {A.}, title = {U}}\n",
    )
    with pytest.raises(CorpusError, match=r"refs.bib:2: key 'same' was already used at line 1; the first entry is kept"):
        list(read_file(path, strict=True))
    with pytest.warns(CorpusWarning, match=r"skipped 2 of 3 records \(1 not valid BibTeX, 1 with a repeated key;"):
        papers = list(read_file(path))
    assert [p.title for p in papers] == ["First"]


def test_an_entry_without_an_abstract_is_a_bad_record(tmp_path):
    path = write(tmp_path, "@article{a, title = {Only a title}, abstract = { }}\n")
    with pytest.raises(CorpusError, match=r"refs.bib:1: entry 'a' has no abstract field, or it is empty \(--strict"):
        list(read_file(path, strict=True))


@pytest.mark.parametrize(
    "fields, year, date",
    [
        ("year = 2024, month = may", 2024, "2024-05"),
        ("year = {2024}, month = {December}, day = {3}", 2024, "2024-12-03"),
        ("year = 2024, month = 11", 2024, "2024-11"),
        ("date = {2024-05-03}", 2024, "2024-05-03"),
        ("date = {2024-03/2024-05}", 2024, "2024-03"),  # a range starts at its first date
        ("date = {2024-02-30}, year = 2024", 2024, None),  # no such day: the year field instead
        ("year = {in press}", None, None),
    ],
)
def test_dates(tmp_path, fields, year, date):
    (paper,) = read(tmp_path, f"@article{{k, abstract = {{A.}}, {fields}}}\n")
    assert (paper.year, paper.date) == (year, date)


@pytest.mark.parametrize(
    "fields, arxiv_id, doi, venue",
    [
        ("eprint = {2101.00001v2}, archivePrefix = {arXiv}", "2101.00001", None, None),
        ("arxivId = {1706.03762}", "1706.03762", None, None),  # Mendeley
        ("url = {https://arxiv.org/abs/cs/0112017v1}", "cs/0112017", None, None),
        ("journal = {arXiv preprint arXiv:1810.04805}", "1810.04805", None, None),  # Google Scholar: no venue
        ("doi = {10.48550/arXiv.2502.05628}", "2502.05628", "10.48550/arxiv.2502.05628", None),
        ("eprint = {2101.00001}, eprinttype = {pubmed}", None, None, None),  # not arXiv's
        ("url = {https://doi.org/10.1000/ABC}, journal = {CoRR}", None, "10.1000/abc", "CoRR"),
        ("doi = {10.1000/a\\_b}", None, "10.1000/a_b", None),  # an escaped underscore
        ("doi = {not a doi}", None, None, None),  # dropped
    ],
)
def test_identifiers(tmp_path, fields, arxiv_id, doi, venue):
    (paper,) = read(tmp_path, f"@article{{k, abstract = {{A.}}, {fields}}}\n")
    assert (paper.arxiv_id, paper.doi, paper.venue) == (arxiv_id, doi, venue)


def test_pmid_keywords_and_url(tmp_path):
    (first, second) = read(
        tmp_path,
        "@article{a, abstract = {A.}, pmid = {23439512}, keywords = {graphs; deep learning, {GNN}, graphs}, url = {https://x.org/a b}}\n"
        "@article{b, abstract = {B.}, eprinttype = {pubmed}, eprint = {123}, url = {https://x.org/p}}\n",
    )
    assert first.pmid == "23439512" and first.categories == ("graphs", "deep learning", "GNN") and first.url is None  # a space: no IRI
    assert second.pmid == "123" and second.url == "https://x.org/p"


def test_author_names(tmp_path):
    (paper,) = read(
        tmp_path,
        '@article{k, abstract = {A.}, author = {M{\\"u}ller, Hans and Ludwig van Beethoven and Beeblebrox, IV, Zaphod and'
        " de la Cruz, Mar{\\'i}a and Donald~E. Knuth and {Barnes and Noble} and ada lovelace and others}}\n",
    )
    assert paper.authors == (
        "Hans Müller",
        "Ludwig van Beethoven",
        "Zaphod Beeblebrox IV",
        "María de la Cruz",
        "Donald E. Knuth",
        "Barnes and Noble",
        "ada lovelace",  # a name all in lower case is kept as written
    )


@pytest.mark.parametrize(
    "latex, text",
    [
        ('Schr{\\"o}dinger and \\"Ostlund', "Schrödinger and Östlund"),
        ("Caf\\'e, \\'{e}t\\'e, Stra{\\ss}e, \\c{c}a, \\v{s}, {\\o}", "Café, été, Straße, ça, š, ø"),
        ("\\emph{deep} and \\textbf{bold} \\textit{nets}", "deep and bold nets"),
        ("The {BERT} model for {{NLP}}", "The BERT model for NLP"),
        ("in $O(n^2)$ time, $\\alpha$-stable", "in O(n^2) time, α-stable"),
        ("as shown in \\cite{a}, \\citep[p.~3]{b} and \\parencite{c}; see \\ref{fig}.", "as shown in, and; see."),
        ("5\\% better, 3% worse, and so on", "5% better, 3% worse, and so on"),  # a bare % is no comment
        ("pages 1--10, a---b, ``quoted''", "pages 1–10, a—b, “quoted”"),
        ("J.~Chem. Phys.", "J.\u00a0Chem. Phys."),  # the reader's whitespace normalising makes it a space
        ("see \\url{https://x.org/a_b} or \\href{https://x.org}{the site}", "see https://x.org/a_b or the site"),
        ("methodology\\hyphen independent, a\\slash b", "methodology-independent, a/b"),
        ("plain text stays as it is", "plain text stays as it is"),
    ],
)
def test_latex_to_text(latex, text):
    assert to_text(latex) == text


def test_text_too_long_for_kg_is_not_converted():
    # it is skipped as too long (over 10,000 characters) anyway; converting it would take seconds
    value = "{\\'e} " * 5_000
    assert len(value) == 30_000 and to_text(value) == value
    assert to_text(value[:6_000]) == "é " * 1_000
