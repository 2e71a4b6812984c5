"""Bad input, table-driven: every command turns it into one line on stderr and
a documented exit code (2 bad input or usage, 1 a finding), never a
traceback, and no failing call changes the store (its sorted N-Triples are
byte-identical before and after) or a previous export.

Also: bad records are skipped with one warning per file that counts them
(``--strict`` makes them errors), and hostile text is only ever data.
"""

import json
import shutil

import pyoxigraph
import pytest
import rdflib

from kg.export import export_graph, export_void
from kg.graph import open_store
from kg.pipeline import build
from tests.test_build_store import sorted_ntriples

GOOD = {
    "title": "Sparse Attention for Long Documents",
    "abstract": "We propose SparseNet for long documents. It beats BERT on SQuAD.",
    "authors": ["Ada Lovelace", "Alan Turing"],
    "venue": "ICLR 2025",
    "year": 2025,
}
TINY = [
    GOOD,
    {
        "title": "Graph Neural Networks at Scale",
        "abstract": "We scale graph neural networks to billions of edges.",
        "authors": ["Alan Turing"],
    },
    {"title": "A Lonely Paper", "abstract": "Nobody cites this lonely paper about cats.", "authors": ["Grace Hopper"]},
]


def jsonl(*records) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


# name -> content of the bad inputs, each next to a good record where it is a record-level problem
INPUTS = {
    "empty.txt": b"",
    "blank.md": "  \n\u00a0\n\u200b\n".encode(),
    "binary.txt": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
    "latin1.txt": ("Caf\u00e9 au lait is good. " * 20).encode("latin-1"),
    "utf16.txt": "An abstract about cats.".encode("utf-16"),
    "allbad.jsonl": jsonl({"title": "no abstract"}, "not json at all").encode(),
    "notjson.jsonl": jsonl(GOOD, '{"abstract": "cut off'),
    "noabstract.jsonl": jsonl(GOOD, {"title": "Only a title"}),
    "emptyabstract.jsonl": jsonl(GOOD, {"title": "Blank", "abstract": " \u200b\t "}),
    "huge.jsonl": jsonl(GOOD, {"title": "A megabyte", "abstract": "word " * 200_000}),
    "longword.jsonl": jsonl(GOOD, {"abstract": "We study (" + "(" * 5000 + " brackets."}),
    "repeated.jsonl": jsonl(
        GOOD | {"doi": "10.1234/x"}, GOOD | {"doi": "https://doi.org/10.1234/X", "abstract": "A different abstract altogether."}
    ),
    "sameid.jsonl": jsonl(GOOD | {"id": "p1"}, {"id": "p1", "abstract": "Version two says something else."}),
    "badyear.jsonl": jsonl(GOOD, {"abstract": "A paper from the future.", "year": "soon"}),
    "deep.jsonl": jsonl(GOOD, "[" * 100_000),
    "notobject.jsonl": jsonl(GOOD, '["abstract", "in a list"]'),
    "listing.txt": "Daily Papers\n\nWe propose a method for cats. It works well on dogs, too, and on every other pet we tried.\n",
    "select.rq": "SELECT ?s WHERE { ?s ?p ?o }",
    "broken.ttl": '@prefix a: <http://x/> .\na:b a:c "unterminated .\n',
    "notes.txt": "not RDF",
    "latin1.rq": b"SELECT ?s WHERE { ?s ?p \xe9 }",
    "storefile": "a file where a store folder should be",
}
INPUTS = {name: data.encode() if isinstance(data, str) else data for name, data in INPUTS.items()}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A working directory: the tiny corpus built into .kg/store (no extraction),
    its exports in exports/, and the bad inputs in inputs/."""
    root = tmp_path_factory.mktemp("bad-input")
    (root / "tiny.jsonl").write_text(jsonl(*TINY), encoding="utf-8")
    build([root / "tiny.jsonl"], store=root / ".kg" / "store")
    store = open_store(root / ".kg" / "store")
    for fmt in ("ttl", "nt", "jsonld", "trig"):
        export_graph(store, root / "exports" / f"kg.{fmt}", fmt)
    export_void(store, root / "exports" / "void.ttl")
    (root / "inputs").mkdir()
    for name, data in INPUTS.items():
        (root / "inputs" / name).write_bytes(data)
    (root / "inputs" / "emptyfolder").mkdir()
    (root / "inputs" / "docsonly").mkdir()
    (root / "inputs" / "docsonly" / "paper.pdf").write_bytes(b"%PDF-1.4")
    return root


def snapshot(root) -> tuple[bytes, dict[str, bytes]]:
    """The store's sorted N-Triples and the bytes of every file under exports/."""
    return sorted_ntriples(root / ".kg" / "store"), {p.name: p.read_bytes() for p in sorted((root / "exports").iterdir())}


SERVICE = "SELECT ?s WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }"
LIBRARY_HINT = "no such query file or library query"
CASES = [
    # readers, through kg build: whole files that cannot be read are errors
    (["build", "--no-extract", "inputs/empty.txt"], 2, "inputs/empty.txt: file is empty"),
    (["build", "--no-extract", "inputs/blank.md"], 2, "inputs/blank.md: file is empty"),
    (["build", "inputs/binary.txt"], 2, "inputs/binary.txt: a binary file, not text (NUL byte at offset 8)"),
    (["build", "--no-extract", "inputs/latin1.txt"], 2, "inputs/latin1.txt: not UTF-8 text (byte 0xe9 at offset 3); convert it first"),
    (["build", "--no-extract", "inputs/utf16.txt"], 2, "inputs/utf16.txt: UTF-16 text, not UTF-8; convert it first"),
    (
        ["build", "--no-extract", "inputs/allbad.jsonl"],
        2,
        "inputs/allbad.jsonl: no usable papers, all 2 records are bad (1 not JSON, 1 without an abstract; first at line 1",
    ),
    (
        ["build", "--no-extract", "--format", "jsonl", "inputs/listing.txt"],
        2,
        "inputs/listing.txt: no usable papers, all 2 records are bad (2 not JSON",
    ),
    (["build", "--no-extract", "inputs/missing.jsonl"], 2, "inputs/missing.jsonl: no such file or folder"),
    (["build", "--no-extract", "inputs/emptyfolder"], 2, "inputs/emptyfolder: folder holds no corpus files"),
    (["build", "--no-extract", "inputs/docsonly"], 2, "inputs/docsonly: folder holds no corpus files"),
    # bad records with --strict: the first one is an error naming its line
    (["build", "--no-extract", "--strict", "inputs/notjson.jsonl"], 2, "notjson.jsonl:2: not valid JSON (Unterminated string"),
    (["build", "--no-extract", "--strict", "inputs/noabstract.jsonl"], 2, "noabstract.jsonl:2: paper has no 'abstract'"),
    (
        ["build", "--no-extract", "--strict", "inputs/emptyabstract.jsonl"],
        2,
        "emptyabstract.jsonl:2: paper has no 'abstract' (it is the one required key), or it is empty",
    ),
    (["build", "--no-extract", "--strict", "inputs/huge.jsonl"], 2, "huge.jsonl:2: abstract of 999999 characters (at most 10000)"),
    (
        ["build", "--no-extract", "--strict", "inputs/longword.jsonl"],
        2,
        "longword.jsonl:2: abstract has a run of 5001 characters without a space (at most 500)",
    ),
    (
        ["build", "--no-extract", "--strict", "inputs/repeated.jsonl"],
        2,
        "repeated.jsonl:2: DOI 10.1234/x was already read at repeated.jsonl:1 with a different abstract",
    ),
    (
        ["build", "--no-extract", "--strict", "inputs/sameid.jsonl"],
        2,
        "sameid.jsonl:2: id 'p1' was already read at sameid.jsonl:1 with a different abstract",
    ),
    (
        ["build", "--no-extract", "--strict", "inputs/badyear.jsonl"],
        2,
        "badyear.jsonl:2: 'year' must be a four-digit year like 2025, not 'soon'",
    ),
    (["build", "--no-extract", "--strict", "inputs/deep.jsonl"], 2, "deep.jsonl:2: not usable JSON (nested too deeply)"),
    (["build", "--no-extract", "--strict", "inputs/notobject.jsonl"], 2, "notobject.jsonl:2: each line must be a JSON object, not list"),
    # build: options and the store's place
    (["build", "--no-extract", "--store", "inputs/storefile", "tiny.jsonl"], 2, "inputs/storefile: exists and is not a graph store folder"),
    (["build", "--no-extract", "--store", "inputs/storefile/store", "tiny.jsonl"], 2, "inputs/storefile/store: cannot create a store here"),
    (["build", "--jobs", "0"], 2, "Invalid value for '--jobs' / '-j': 0 is not in the range x>=1"),
    # extract
    (["extract", "--strict", "inputs/notjson.jsonl"], 2, "notjson.jsonl:2: not valid JSON"),
    (["extract", "--out", "out.jsonl", "inputs/utf16.txt"], 2, "inputs/utf16.txt: UTF-16 text, not UTF-8"),
    (["extract", "--shard", "3/2", "tiny.jsonl"], 2, "'3/2': expected I/N with 0 <= I < N"),
    # query
    (["query", "SELECT ?x WHERE { ?x ?y }"], 2, "malformed SPARQL query at line 1, column 26"),
    (["query", "SELECT ?x WHERE { ?x nope:p ?y }"], 2, "unknown prefix; declare it with PREFIX"),
    (["query", "DROP ALL"], 2, "DROP is SPARQL Update: kg query only reads"),
    (["query", "PREFIX ex: <http://example.org/>\nINSERT DATA { ex:a ex:b ex:c }"], 2, "INSERT is SPARQL Update: kg query only reads"),
    (["query", "-f", "inputs/missing.rq"], 2, "inputs/missing.rq: " + LIBRARY_HINT),
    (["query", "-f", "inputs/latin1.rq"], 2, "inputs/latin1.rq: cannot read query file"),
    (["query", "-f", "papers-of-author"], 2, "query 'papers-of-author' needs --param author=VALUE"),
    (["query", "-f", ""], 2, "no query named: give a .rq file or a library query's name"),
    (
        ["query", "-p", "author=caf\udcff", "-f", "papers-of-author"],
        0,
        None,
    ),  # bytes that are not UTF-8 on the command line: no match, no crash
    (["query", "-f", "papers-of-author", "ASK {}"], 2, "give a query as an argument or with -f FILE, not both"),
    (["query", "--param", "oops", "ASK {}"], 2, "--param 'oops': expected NAME=VALUE"),
    (["query", "-p", "s=<not an iri>", "SELECT ?s WHERE { ?s ?p ?o }"], 2, "parameter value '<not an iri>' is not a valid IRI"),
    (["query", "-p", "nope=1", "SELECT ?s WHERE { ?s ?p ?o }"], 2, "?nope"),  # a parameter the query does not use
    (["query", SERVICE], 2, "SERVICE (federated query) is refused"),
    (["query", "--store", "inputs/nostore", "ASK {}"], 2, "inputs/nostore: no graph store here; build one with `kg build`"),
    (["query", "--endpoint", "notaurl", "ASK {}"], 2, "notaurl: not an http(s) URL"),
    # export: a failed export leaves the previous files as they were
    (["export", "--license", "not an iri"], 2, "--license 'not an iri' is not an IRI"),
    (["export", "--format", "xml"], 2, "Invalid value for '--format'"),
    (["export", "--out", "exports"], 2, "exports is a folder; give a file name, e.g. exports/kg.ttl"),
    (["export", "--format", "all", "--out", "tiny.jsonl"], 2, "tiny.jsonl is a file; with --format all, --out names a folder"),
    (["export", "--out", "tiny.jsonl/kg.ttl"], 2, "tiny.jsonl is a file, not a folder"),
    # viz
    (["viz", "--focus", "Nobody At All"], 2, "no concept, paper or author is called 'Nobody At All'"),
    (["viz", "--query", "inputs/missing.rq"], 2, "inputs/missing.rq: cannot read the query (No such file or directory)"),
    (["viz", "--query", "inputs/select.rq"], 2, "--query draws a CONSTRUCT or DESCRIBE query's triples; this is a SELECT query"),
    (["viz", "--depth", "2"], 2, "--depth goes with --focus"),
    (["viz", "--community", "99"], 2, "there is no community 99"),
    (["viz", "--focus", "Ada Lovelace", "--community", "1"], 2, "--focus and --community: choose one of them"),
    # validate, ask, concept, path, similar, top
    (["validate", "inputs/missing.ttl"], 2, "inputs/missing.ttl: no such file"),
    (["validate", "inputs/broken.ttl"], 2, "inputs/broken.ttl: not valid turtle: at line 2: newline found in string literal"),
    (["validate", "inputs/notes.txt"], 2, "inputs/notes.txt: unknown RDF format"),
    (["ask", "no-such-question"], 2, "no-such-question: " + LIBRARY_HINT),
    (["ask", "papers-of-author"], 2, "missing --author: papers-of-author takes --author VALUE"),
    (["ask", "papers-of-author", "--author", "Nobody"], 2, "no author is called 'Nobody' (parameter author)"),
    (["ask", "papers-of-author", "--author", "Ada Lovelace", "--author", "Alan Turing"], 2, "--author given twice"),
    (["concept", "Nothing Whatsoever"], 2, "no concept is called 'Nothing Whatsoever'"),
    (["concept", "caf\udcff"], 2, "no concept is called 'caf\\udcff'"),
    (["communities", "--resolution", "0"], 2, "Invalid value for '--resolution': 0.0 is not in the range x>0"),
    (["path", "Nobody", "Ada Lovelace"], 2, "no concept, paper or author is called 'Nobody'"),
    (["path", "Ada Lovelace", "Grace Hopper"], 1, "no path from 'Ada Lovelace' to 'Grace Hopper'"),
    (["similar", "No Such Paper"], 2, "no Paper is called 'No Such Paper'"),
    (["top", "--type", "Planet"], 2, "Invalid value for '--type': 'Planet' is not one of"),
    (["serve", "--port", "0"], 2, "Invalid value for '--port': 0 is not in the range 1<=x<=65535"),
    (["push", "--endpoint", "notaurl"], 2, "not an http(s) URL"),
    (["push", "--endpoint", "http://127.0.0.1:9/store", "--graph", "not an iri"], 2, "'not an iri' is not an IRI"),
    (["no-such-command"], 2, "No such command 'no-such-command'"),
]


@pytest.mark.parametrize("args, code, message", CASES, ids=[f"{i:02d}-{' '.join(c[0])[:50]}" for i, c in enumerate(CASES)])
def test_bad_input_is_one_line_a_documented_code_and_changes_nothing(site, monkeypatch, run, args, code, message):
    monkeypatch.chdir(site)
    before = snapshot(site)
    got, _, err = run(*args)
    if message is None:  # not an error: nothing on stderr
        assert (got, err) == (code, "")
    else:
        assert (got, err.count("\n")) == (code, 1), err
        assert message in err and err.startswith("kg: ") and "Traceback" not in err
    assert snapshot(site) == before
    assert not (site / "out.jsonl").exists()


def test_the_table_covers_every_stage():
    assert len(CASES) >= 25
    commands = {args[0] for args, _, _ in CASES}
    assert {"build", "extract", "query", "export", "viz", "validate", "ask", "concept", "path", "similar"} <= commands


def test_debug_shows_the_traceback_instead(site, monkeypatch):
    from kg.cli import main
    from kg.errors import CorpusError

    monkeypatch.chdir(site)
    with pytest.raises(CorpusError, match="file is empty"):
        main(["--debug", "build", "--no-extract", "inputs/empty.txt"])


# Bad records without --strict: skipped, one warning per file that counts them --------------------------

SKIPPED = [
    ("notjson.jsonl", "1 not JSON; first at line 2: not valid JSON (Unterminated string"),
    ("noabstract.jsonl", "1 without an abstract; first at line 2: paper has no 'abstract'"),
    ("emptyabstract.jsonl", "1 without an abstract; first at line 2"),
    ("huge.jsonl", "1 too long; first at line 2: abstract of 999999 characters (at most 10000)"),
    ("longword.jsonl", "1 too long; first at line 2: abstract has a run of 5001 characters without a space"),
    (
        "repeated.jsonl",
        "1 repeating a paper with a different abstract; first at line 2: DOI 10.1234/x was already read at repeated.jsonl:1",
    ),
    ("sameid.jsonl", "1 repeating a paper with a different abstract; first at line 2: id 'p1' was already read at sameid.jsonl:1"),
    ("badyear.jsonl", "1 with a field of the wrong type; first at line 2: 'year' must be a four-digit year"),
    ("deep.jsonl", "1 not JSON; first at line 2: not usable JSON (nested too deeply)"),
    ("notobject.jsonl", "1 not a JSON object; first at line 2"),
]


@pytest.mark.parametrize("name, counted", SKIPPED, ids=[s[0] for s in SKIPPED])
def test_bad_records_are_skipped_with_one_warning_that_counts_them(site, tmp_path, monkeypatch, run, name, counted):
    shutil.copytree(site / "inputs", tmp_path / "inputs")
    monkeypatch.chdir(tmp_path)  # the build also writes exports/kg.html: not into the site
    code, out, err = run("build", "--no-extract", "--quiet", "--store", tmp_path / "store", f"inputs/{name}")
    assert code == 0 and err.count("\n") == 1, err
    assert (
        err
        == f"kg: warning: inputs/{name}: skipped 1 of 2 records ({counted}"
        + err[len(f"kg: warning: inputs/{name}: skipped 1 of 2 records ({counted}") :]
    )
    assert err.rstrip().endswith("; --strict makes this an error")
    papers = "SELECT (COUNT(*) AS ?n) WHERE { ?p a kg:Paper }"
    code, out, _ = run("query", "--store", tmp_path / "store", "--format", "csv", papers)
    assert out.splitlines()[1] == "1"  # GOOD alone: the skipped record left nothing behind


def test_warnings_from_several_files_come_one_line_each(site, tmp_path, monkeypatch, run):
    shutil.copytree(site / "inputs", tmp_path / "inputs")
    monkeypatch.chdir(tmp_path)
    code, _, err = run("build", "--no-extract", "--quiet", "inputs/notjson.jsonl", "inputs/huge.jsonl", site / "tiny.jsonl")
    lines = err.splitlines()
    assert code == 0 and [line.split(":")[2].strip() for line in lines] == ["inputs/notjson.jsonl", "inputs/huge.jsonl"]


# Hostile text is data ---------------------------------------------------------------------------------------

HOSTILE_TITLES = [
    'Quotes " and """triple""" and \'\'\'single\'\'\'',
    'Back\\slash \\n \\u0041 \\" end\\',
    'x" } ; DROP ALL ; #',
    "<script>alert(1)</script> & <b>bold</b>",
    "@prefix ex: <http://evil/> . <a> <b> <c> . _:x ^^xsd:int @en",
    "Line one\nline two\r\nline three\u2028four",
]


def test_hostile_titles_survive_export_query_and_views(tmp_path, monkeypatch, run):
    monkeypatch.chdir(tmp_path)
    records = [
        {"title": t, "abstract": f"Paper number {i} studies hostile text.", "authors": [t[:30] + " Person"]}
        for i, t in enumerate(HOSTILE_TITLES)
    ]
    (tmp_path / "hostile.jsonl").write_text(jsonl(*records), encoding="utf-8")
    assert run("build", "--no-extract", "--quiet", "hostile.jsonl")[0] == 0
    expected = {" ".join(t.split()) for t in HOSTILE_TITLES}  # whitespace (newlines too) is normalised on reading
    for fmt, rdflib_format, oxigraph_format in (
        ("ttl", "turtle", pyoxigraph.RdfFormat.TURTLE),
        ("nt", "nt", pyoxigraph.RdfFormat.N_TRIPLES),
    ):
        assert run("export", "--format", fmt)[0] == 0
        path = tmp_path / "exports" / f"kg.{fmt}"
        assert {str(o) for o in rdflib.Graph().parse(path, format=rdflib_format).objects(None, rdflib.DCTERMS.title)} == expected
        titles = {
            q.object.value
            for q in pyoxigraph.parse(path=str(path), format=oxigraph_format)
            if q.predicate.value == str(rdflib.DCTERMS.title)
        }
        assert titles == expected
    # A bound value is only a string: it finds the paper with that title, and does nothing else.
    before = sorted_ntriples(tmp_path / ".kg" / "store")
    query = "SELECT ?title ?p WHERE { ?p dcterms:title ?title }"
    code, out, _ = run("query", "--format", "json", "-p", 'title=x" } ; DROP ALL ; #', query)
    bindings = json.loads(out)["results"]["bindings"]
    assert code == 0 and [b["title"]["value"] for b in bindings] == ['x" } ; DROP ALL ; #']
    code, out, _ = run("query", "-f", "papers-of-author", "-p", 'author=x" } ; DROP ALL ; #')
    assert code == 0 and out.rstrip().endswith("(0 rows)")
    assert sorted_ntriples(tmp_path / ".kg" / "store") == before
    # A page of the graph holds the titles as data, never as markup (without extraction, the concept map is empty).
    assert run("viz", "--whole")[0] == 0
    html = (tmp_path / "exports" / "kg-graph.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in html and "<b>bold</b>" not in html
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in html
