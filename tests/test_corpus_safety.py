"""Hostile corpus files and records, table-driven through ``kg build --no-extract``:
a value that would make an invalid IRI is a bad record (skipped with the
counted warning, an error under ``--strict``), a file that is not a regular
file or is UTF-16 without a byte-order mark is a one-line exit-2 error, and a
file name that is not UTF-8 or holds terminal escapes is read fine and named
escaped, in messages and in the graph. Never a traceback, never exit 3.
"""

import json
import os
import threading

import pytest
from pyoxigraph import NamedNode

from kg.graph import open_store
from kg.vocab import BASE, ontology_quads

GOOD = {"title": "Sparse Attention", "abstract": "We propose SparseNet for long documents. It beats BERT on SQuAD."}
OTHER = "A second paper about graph neural networks and their scaling."
ESC = "bad\x1b[31mred\x07"  # a colour escape and a bell: what a terminal would obey
ESC_SHOWN = "bad\\x1b[31mred\\x07"


def jsonl(*records) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records).encode()


def one_line_error(code: int, err: str, message: str) -> None:
    assert (code, err.count("\n")) == (2, 1), err
    assert err.startswith("kg: error: ") and message in err, err
    assert "Traceback" not in err and "internal error" not in err and "\x1b" not in err


def file_names(store) -> set[str]:
    rows = open_store(store).query("SELECT ?name WHERE { ?file <https://w3id.org/kg/ontology#fileName> ?name }")
    return {row["name"].value for row in rows}


# Item 5: a value that cannot be an IRI is a bad record, not a crash -------------------------------------------

BAD_URLS = [
    ("space", "http://example.org/a paper", "Invalid IRI code point ' '"),
    ("quote", 'http://example.org/a"b', "Invalid IRI code point '\"'"),
    ("percent", "http://example.org/%zz", "Invalid IRI percent encoding '%zz'"),
    ("bracket", "https://[example.org/x", "Invalid character '[' in host"),
    ("angle", "http://example.org/<b>", "Invalid IRI code point '<'"),
    ("surrogate", "http://example.org/\ud800", "Invalid IRI code point"),  # a lone surrogate is read as U+FFFD
]


@pytest.mark.parametrize("url, why", [c[1:] for c in BAD_URLS], ids=[c[0] for c in BAD_URLS])
def test_a_url_that_is_no_iri_is_a_bad_record(workdir, run, url, why):
    (workdir / "urls.jsonl").write_bytes(jsonl(GOOD, {"abstract": OTHER, "url": url}))
    code, _, err = run("build", "--no-extract", "--quiet", "urls.jsonl")
    assert code == 0 and err.count("\n") == 1, err
    assert err.startswith("kg: warning: urls.jsonl: skipped 1 of 2 records (1 with a url that is not a valid IRI; first at line 2: 'url' ")
    assert why in err and "percent-encode it" in err
    papers = list(open_store(".kg/store").query("SELECT ?p WHERE { ?p a <https://w3id.org/kg/ontology#Paper> }"))
    assert len(papers) == 1

    code, _, err = run("build", "--no-extract", "--strict", "--store", "strict-store", "urls.jsonl")
    one_line_error(code, err, "urls.jsonl:2: 'url' ")
    assert not (workdir / "strict-store").exists()


def test_hostile_values_in_every_field_give_only_valid_iris(workdir, run):
    """Every field a record can hold, filled with what breaks IRIs: the build
    keeps the papers whose url is a valid IRI, and every IRI in the graph is
    one kg minted, a vocabulary term or a page that parses."""
    hostile = 'a b"c<d>{e}|f\\g^h`i[j]%zz\x1b[31m\u202e'
    records = [
        {
            "abstract": f"Paper {i} about hostile fields and more.",
            "title": hostile,
            "authors": [hostile, "Ada " + hostile],
            "venue": hostile,
            "categories": [hostile, "[x]"],
            "doi": f"10.1234/{hostile}{i}",
            "id": f"{hostile}{i}",
            "year": 2024,
            "url": url,
        }
        for i, url in enumerate(["https://example.org/ok?a=1&b=%20#frag", "www.example.org/not a web iri", "http://example.org/" + hostile])
    ]
    (workdir / "hostile.jsonl").write_bytes(jsonl(*records))
    code, _, err = run("build", "--no-extract", "--quiet", "hostile.jsonl")
    assert code == 0 and "skipped 1 of 3 records (1 with a url that is not a valid IRI; first at line 3" in err, err
    store = open_store(".kg/store")
    iris = {term.value for quad in store for term in (quad.subject, quad.predicate, quad.object) if isinstance(term, NamedNode)}
    pages = {row["page"] for row in store.query("SELECT ?page WHERE { ?p <http://xmlns.com/foaf/0.1/page> ?page }")}
    assert {getattr(p, "value", None) for p in pages} >= {"https://example.org/ok?a=1&b=%20#frag"}
    assert "www.example.org/not a web iri" in {p.value for p in pages}  # not a web address: kept as a literal
    vocabulary = {t.value for q in ontology_quads() for t in (q.subject, q.predicate, q.object) if isinstance(t, NamedNode)}
    for iri in iris - vocabulary - {"https://example.org/ok?a=1&b=%20#frag"}:
        assert iri.startswith((BASE, "http://www.w3.org/", "http://purl.org/", "http://xmlns.com/")), iri
        assert iri.isascii() and not any(c in iri for c in ' "<>{}|\\^`%'), iri


# Item 5: a file name that is not UTF-8 is read, and named escaped --------------------------------------------


def test_a_file_name_that_is_not_utf8_is_read_and_named_escaped(workdir, run):
    raw = os.fsencode(workdir) + b"/\xff\xfe.jsonl"
    with open(raw, "wb") as file:
        file.write(jsonl(GOOD, "not json"))
    code, out, err = run("build", "--no-extract", os.fsdecode(raw))
    assert code == 0 and "Built .kg/store: 1 papers" in out, err
    assert err.count("\n") == 1 and "\\xff\\xfe.jsonl: skipped 1 of 2 records" in err, err
    assert file_names(".kg/store") == {"\\xff\\xfe.jsonl"}

    os.mkdir(b"folder")  # found by walking a folder, too
    os.rename(raw, b"folder/\xff.jsonl")
    code, out, err = run("build", "--no-extract", "--strict", "folder")
    one_line_error(code, err, "kg: error: \\xff.jsonl:2: not valid JSON")


# Item 13: not a regular file, UTF-16 without a BOM: the right one-line error ---------------------------------


def _fifo(workdir):
    os.mkfifo(workdir / "pipe.jsonl")
    return "pipe.jsonl"


UNREADABLE = [
    ("fifo", _fifo, "pipe.jsonl: not a regular file (a FIFO)"),
    ("dev-null", lambda _: "/dev/null", "/dev/null: not a regular file (a character device)"),
    ("dev-zero", lambda _: "/dev/zero", "/dev/zero: not a regular file (a character device)"),
    (
        "utf16le",
        lambda w: _write(w, "le.txt", ("An abstract about cats. " * 20).encode("utf-16-le")),
        "le.txt: UTF-16LE text (UTF-16 without a byte-order mark), not UTF-8; convert it first, e.g. iconv -f utf-16le -t utf-8",
    ),
    (
        "utf16be",
        lambda w: _write(w, "be.jsonl", jsonl(GOOD).decode().encode("utf-16-be")),
        "be.jsonl: UTF-16BE text (UTF-16 without a byte-order mark), not UTF-8; convert it first, e.g. iconv -f utf-16be -t utf-8",
    ),
]


def _write(workdir, name: str, data: bytes) -> str:
    (workdir / name).write_bytes(data)
    return name


@pytest.mark.parametrize("make, message", [c[1:] for c in UNREADABLE], ids=[c[0] for c in UNREADABLE])
def test_a_file_kg_cannot_read_gets_the_right_one_line_error(workdir, run, make, message):
    path = make(workdir)
    result = []
    worker = threading.Thread(target=lambda: result.append(run("build", "--no-extract", path)), daemon=True)
    worker.start()
    worker.join(timeout=30)  # a FIFO or /dev/zero read to the end would never come back
    assert result, "kg build hung"
    one_line_error(result[0][0], result[0][2], message)
    assert not (workdir / ".kg").exists()


# Item 13: terminal escapes in file names are shown escaped, never obeyed -------------------------------------

ESCAPED = [
    ("warning", jsonl(GOOD, "not json"), ["build", "--no-extract"], 0, f"kg: warning: {ESC_SHOWN}.jsonl: skipped 1 of 2 records"),
    ("strict", jsonl(GOOD, "not json"), ["build", "--no-extract", "--strict"], 2, f"kg: error: {ESC_SHOWN}.jsonl:2: not valid JSON"),
    ("empty", b"", ["build", "--no-extract"], 2, f"kg: error: {ESC_SHOWN}.jsonl: file is empty"),
    ("all bad", jsonl("not json"), ["build", "--no-extract"], 2, f"kg: error: {ESC_SHOWN}.jsonl: no usable papers"),
    ("missing", None, ["build", "--no-extract"], 2, f"kg: error: {ESC_SHOWN}.jsonl: no such file or folder"),
]


@pytest.mark.parametrize("content, args, code, message", [c[1:] for c in ESCAPED], ids=[c[0] for c in ESCAPED])
def test_escapes_in_file_names_are_shown_escaped(workdir, run, content, args, code, message):
    if content is not None:
        (workdir / f"{ESC}.jsonl").write_bytes(content)
    got, _, err = run(*args, f"{ESC}.jsonl")
    assert got == code and err.count("\n") == 1 and err.startswith(message), err
    assert "\x1b" not in err and "\x07" not in err and "Traceback" not in err
    if code == 0:
        assert file_names(".kg/store") == {f"{ESC_SHOWN}.jsonl"}  # the graph names it as the message does
