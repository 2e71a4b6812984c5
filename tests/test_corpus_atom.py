"""Atom feeds, above all arXiv API answers, read through kg.corpus.read_file.

Fixtures in tests/data/formats/atom/ (each says where it came from on its second line):
arxiv.xml, three entries of a 2026 API answer; arxiv-2016.xml, two entries of
a 2016 one (the older layout: namespaces declared on each element, summaries
wrapped over lines); arxiv-error.xml and arxiv-empty.xml, the API's answers to
a bad id and to a query that matches nothing; rfc4287.xml, the RFC's example feed.
"""

import gzip
import time
from pathlib import Path

import pytest

from kg.corpus import atom, detect_format, load_source, read_file
from kg.errors import CorpusError, CorpusWarning
from kg.graph import open_store

DATA = Path(__file__).parent / "data" / "formats" / "atom"
ARXIV = DATA / "arxiv.xml"
FIXTURE = ARXIV.read_text(encoding="utf-8")
CHECKERBOARD = (
    "We discuss the effects of quenched disorder on a model of charge density wave (CDW) ordering on the square lattice. "
    "Our model may be applicable to the cuprate superconductors, where a random electrostatic potential exists in the CuO2 "
    "planes as a result of the presence of charged dopants. We argue that the presence of a random potential can affect the "
    "unidirectionality of the CDW order, characterized by an Ising order parameter. Coupling to a unidirectional CDW, the "
    "random potential can lead to the formation of domains with 90 degree relative orientation, thus tending to restore the "
    "rotational symmetry of the underlying lattice. We find that the correlation length of the Ising order can be significantly "
    "larger than the CDW correlation length. For a checkerboard CDW on the other hand, disorder generates spatial anisotropies "
    "on short length scales and thus some degree of unidirectionality. We quantify these disorder effects and suggest new "
    "techniques for analyzing the local density of states (LDOS) data measured in scanning tunneling microscopy experiments."
)


def write(tmp_path, text, name="feed.xml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_an_arxiv_api_answer():
    fuzzing, deep, survey = read_file(ARXIV)
    assert detect_format(load_source(ARXIV)) == "atom"  # .xml is claimed by pubmed too: content decides
    assert [(p.source.line, p.source.index, p.source.format) for p in (fuzzing, deep, survey)] == [
        (11, 1, "atom"),
        (43, 2, "atom"),
        (68, 3, "atom"),
    ]

    assert fuzzing.title == "Active Fuzzing for Testing and Securing Cyber-Physical Systems"
    assert fuzzing.authors == ("Yuqi Chen", "Bohan Xuan", "Christopher M. Poskitt", "Jun Sun", "Fan Zhang")
    assert fuzzing.abstract.startswith("Cyber-physical systems (CPSs) in critical infrastructure face a pervasive threat from attackers,")
    assert fuzzing.abstract.endswith("implementing them as anomaly detectors and early warning systems.")
    assert (fuzzing.year, fuzzing.date) == (2020, "2020-05-28")  # published (v1), not updated (v2, 2020-07-16)
    assert fuzzing.categories == ("cs.SE", "cs.CR", "cs.LG")
    assert (fuzzing.doi, fuzzing.arxiv_id) == ("10.1145/3395363.3397376", "2005.14124")
    assert (
        fuzzing.venue
        == "In Proc. ACM SIGSOFT International Symposium on Software Testing and Analysis (ISSTA 2020), pages 14-26. ACM, 2020"
    )
    assert (fuzzing.url, fuzzing.source_id) == ("https://arxiv.org/abs/2005.14124v2", "http://arxiv.org/abs/2005.14124v2")
    assert "ISSTA 2020)" not in fuzzing.abstract and fuzzing.orcids == ()  # arxiv:comment is not read

    assert deep.title == "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques"
    assert deep.authors == ("Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker") and deep.categories == ("cs.SE", "cs.LG")
    assert (deep.date, deep.doi, deep.arxiv_id) == ("2022-02-24", "10.1109/icstw55395.2022.00035", "2202.12139")
    assert survey.authors[0] == "Iva Kertusha" and (survey.doi, survey.venue, survey.date) == (None, None, "2025-03-07")


def test_an_arxiv_api_answer_of_2016():
    checkerboard, luttinger = read_file(DATA / "arxiv-2016.xml")
    assert checkerboard.title == "From stripe to checkerboard order on the square lattice in the presence of quenched disorder"
    assert checkerboard.abstract == CHECKERBOARD
    assert checkerboard.authors == ("Adrian Del Maestro", "Bernd Rosenow", "Subir Sachdev")
    assert (checkerboard.arxiv_id, checkerboard.doi, checkerboard.date) == ("cond-mat/0603029", "10.1103/physrevb.74.024520", "2006-03-02")
    assert checkerboard.categories == ("cond-mat.str-el", "cond-mat.supr-con") and checkerboard.venue == "Phys. Rev. B 74, 024520 (2006)"
    assert checkerboard.url == "http://arxiv.org/abs/cond-mat/0603029v1"
    assert (luttinger.source.line, luttinger.authors, luttinger.arxiv_id) == (51, ("Adrian Del Maestro",), "1201.4869")


def test_a_plain_atom_feed():
    (paper,) = read_file(DATA / "rfc4287.xml")
    assert (paper.title, paper.abstract) == ("Atom-Powered Robots Run Amok", "Some text.")
    assert paper.authors == ("John Doe",)  # the feed's author, as the entry has none
    assert (paper.year, paper.date) == (None, None)  # no published; updated is not the issue date
    assert paper.url == "http://example.org/2003/12/13/atom03"  # a link without rel is the alternate one
    assert (paper.source_id, paper.arxiv_id, paper.doi) == ("urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a", None, None)


EDITS = [
    ('<arxiv:primary_category term="cs.SE"/>', '<arxiv:primary_category term="cs.LG"/>', "categories", ("cs.LG", "cs.SE", "cs.CR")),
    ("<arxiv:doi>10.1145/3395363.3397376</arxiv:doi>", "<arxiv:doi>not-a-doi 10.1000/TWO 10.1000/three</arxiv:doi>", "doi", "10.1000/two"),
    (
        '<link href="https://arxiv.org/abs/2005.14124v2" rel="alternate"',
        '<link href="https://arxiv.org/abs/a b" rel="alternate"',
        "url",
        None,
    ),
    (
        "<title>Active Fuzzing",
        '<title type="html">&lt;i&gt;Active&lt;/i&gt; Fuzzing',
        "title",
        "Active Fuzzing for Testing and Securing Cyber-Physical Systems",
    ),
]


@pytest.mark.parametrize("old, new, field, value", EDITS, ids=["primary first", "first doi", "bad url", "html title"])
def test_entry_fields(tmp_path, old, new, field, value):
    assert old in FIXTURE  # its first place is the first entry's
    first = next(iter(read_file(write(tmp_path, FIXTURE.replace(old, new, 1)))))
    assert getattr(first, field) == value


@pytest.mark.parametrize(
    "summary",
    [
        '<summary type="html">&lt;p&gt;Some &lt;b&gt;bold&lt;/b&gt; text.&lt;/p&gt;&lt;p&gt;And&amp;nbsp;more.&lt;/p&gt;</summary>',
        '<summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Some <b>bold</b> text. </p><p>And\u00a0more.</p></div></summary>',
    ],
    ids=["html", "xhtml"],
)
def test_summaries_with_markup_are_read_as_text(tmp_path, summary):
    (paper,) = read_file(write(tmp_path, (DATA / "rfc4287.xml").read_text().replace("<summary>Some text.</summary>", summary)))
    assert paper.abstract == "Some bold text. And more."


def test_an_entry_without_summary_is_skipped(tmp_path):
    path = write(
        tmp_path, FIXTURE.replace("<summary>Deep Learning", "<content>Deep Learning").replace("results.</summary>", "results.</content>")
    )
    with pytest.warns(
        CorpusWarning, match=r"skipped 1 of 3 records \(1 without an abstract; first at line 43: Atom entry has no <summary>"
    ):
        papers = list(read_file(path))
    assert [p.arxiv_id for p in papers] == ["2005.14124", "2503.05378"]


def test_a_gzipped_feed_is_read_as_a_stream(tmp_path, monkeypatch):
    path = tmp_path / "arxiv.atom.gz"
    path.write_bytes(gzip.compress(ARXIV.read_bytes()))
    monkeypatch.setattr(atom, "read", None)  # never the whole decompressed text
    assert [(p.source.line, p.arxiv_id) for p in read_file(path)] == [(11, "2005.14124"), (43, "2202.12139"), (68, "2503.05378")]


@pytest.mark.parametrize(
    "head, found",
    [
        ('<?xml version="1.0"?>\n<!-- a comment -->\n<atom:feed xmlns:atom="http://www.w3.org/2005/Atom">', True),
        ("<feed xmlns='http://www.w3.org/2005/Atom' xml:lang='en'>", True),
        ('<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>', False),  # RSS that links its Atom feed
        ("<feed><entry>", False),
        ('An abstract quoting <feed xmlns="http://www.w3.org/2005/Atom">', False),  # prose, not XML
    ],
)
def test_looks_like(head, found):
    assert atom.looks_like(head) is found


@pytest.mark.parametrize(
    "name, message",
    [
        (
            "arxiv-error.xml",
            r"^arxiv-error.xml: the arXiv API answered with an error, not papers: incorrect id format for abc \(https://arxiv.org/api/errors#",
        ),
        ("arxiv-empty.xml", r"^arxiv-empty.xml: the feed holds no entries \(opensearch:totalResults is 0"),
    ],
)
def test_the_arxiv_api_errors_are_file_errors(name, message):
    with pytest.raises(CorpusError, match=message):
        list(read_file(DATA / name))


@pytest.mark.parametrize(
    "text, message",
    [
        (FIXTURE.replace("</feed>", "</fed>"), r"^feed.xml: not well-formed XML \(line 92, column 3\): mismatched tag$"),
        # cut after the first entry's "  </entry>": the file ends at line 42, column 11
        (FIXTURE[: FIXTURE.index("</entry>") + 8], r"^feed.xml: not well-formed XML \(line 42, column 11\): no element found$"),
        (
            "<PubmedArticleSet/>",
            r"^feed.xml: not an Atom feed: the root element is <PubmedArticleSet>, not <feed> in namespace http://www.w3.org/2005/Atom",
        ),
    ],
    ids=["mismatched", "truncated", "not atom"],
)
def test_a_broken_feed_is_a_one_line_error(tmp_path, text, message):
    with pytest.raises(CorpusError, match=message) as caught:
        list(read_file(write(tmp_path, text), format="atom"))
    assert "\n" not in str(caught.value)


def test_an_entity_bomb_is_refused_before_it_expands(tmp_path):
    levels = "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10))
    bomb = f'<?xml version="1.0"?>\n<!DOCTYPE feed [<!ENTITY lol0 "lol">{levels}]>\n<feed xmlns="http://www.w3.org/2005/Atom"><entry><summary>&lol9;</summary></entry></feed>'
    started = time.perf_counter()
    with pytest.raises(CorpusError, match=r"^bomb.atom: XML entity declarations are refused \(<!ENTITY lol0 ...> at line 2\)"):
        list(read_file(write(tmp_path, bomb, "bomb.atom")))
    assert time.perf_counter() - started < 1  # refused at the first declaration


def test_kg_build_reads_an_arxiv_feed(tmp_path, monkeypatch, run):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "arxiv.xml").write_bytes(ARXIV.read_bytes())
    code, out, err = run("build", "--no-extract", "arxiv.xml")
    assert code == 0 and out.startswith("Built .kg/store: 3 papers (3 records from 1 files"), err
    rows = open_store(".kg/store").query(
        "PREFIX dcterms: <http://purl.org/dc/terms/> PREFIX kg: <https://w3id.org/kg/ontology#> PREFIX foaf: <http://xmlns.com/foaf/0.1/> "
        "SELECT ?issued ?position ?name WHERE { ?paper dcterms:title 'Active Fuzzing for Testing and Securing Cyber-Physical Systems' ; "
        "dcterms:issued ?issued ; kg:hasAuthorship ?a . ?a kg:authorPosition ?position ; kg:author/foaf:name ?name } ORDER BY ?position"
    )
    found = [(row["issued"].value, row["issued"].datatype.value, row["name"].value) for row in rows]
    assert {f[:2] for f in found} == {("2020-05-28", "http://www.w3.org/2001/XMLSchema#date")}
    assert [f[2] for f in found] == ["Yuqi Chen", "Bohan Xuan", "Christopher M. Poskitt", "Jun Sun", "Fan Zhang"]
