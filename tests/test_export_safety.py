"""Exports and validation under failure and attack (issue 18): the files of
one export change together or not at all, keep their modes, hold the default
graph as the store does, VoID that other stores read right, and a validator
that reads every graph of a quad file and never fetches a JSON-LD context."""

from __future__ import annotations

import errno
import http.server
import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from typing import ClassVar

import pyoxigraph
import pytest
import rdflib

from kg.export import export_graph, export_void, graph_triples
from kg.graph import open_store

RAPPER = shutil.which("rapper")
EXPORTS = ["kg.ttl", "kg.nt", "kg.jsonld", "kg.trig", "void.ttl"]  # what `kg export --format all` writes
VOID = rdflib.Namespace("http://rdfs.org/ns/void#")


@pytest.fixture(scope="module")
def store(corpus_store):
    return open_store(corpus_store)


@pytest.fixture
def previous(tmp_path):
    """A folder holding a previous export: one distinct line per file, so any change shows."""
    folder = tmp_path / "exports"
    folder.mkdir()
    for name in EXPORTS:
        (folder / name).write_bytes(f"# previous {name}\n".encode())
    return folder


def unchanged(folder) -> bool:
    """Every file of the previous export is byte-identical, and nothing else (no temporary) is there."""
    return sorted(p.name for p in folder.iterdir()) == sorted(EXPORTS) and all(
        (folder / name).read_bytes() == f"# previous {name}\n".encode() for name in EXPORTS
    )


def fail_on_the_nth_file(monkeypatch, n: int, error: BaseException) -> list[str]:
    """Make writing the ``n``-th temporary file raise ``error``; return the temporaries opened."""
    real = tempfile.NamedTemporaryFile
    opened: list[str] = []

    def opening(*args, **kwargs):
        handle = real(*args, **kwargs)
        opened.append(handle.name)
        if len(opened) == n:

            def write(data):
                raise error

            handle.write = write
        return handle

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", opening)
    return opened


# -- item 3: all files of one export change together, or none ---------------------------------


def test_a_full_disk_on_the_third_file_changes_no_file_of_the_export(corpus_store, previous, monkeypatch, run):
    opened = fail_on_the_nth_file(monkeypatch, 3, OSError(errno.ENOSPC, "No space left on device"))
    code, out, err = run("export", "--format", "all", "--out", previous, "--store", corpus_store)
    assert len(opened) == 3 and code == 2 and out == ""
    assert err.startswith("kg: error: ") and "No space left on device" in err and "unchanged" in err and err.count("\n") == 1
    assert unchanged(previous)


def test_ctrl_c_while_writing_an_export_changes_no_file(corpus_store, previous, monkeypatch, run):
    fail_on_the_nth_file(monkeypatch, 3, KeyboardInterrupt())
    code, _, err = run("export", "--format", "all", "--out", previous, "--store", corpus_store)
    assert (code, err.strip()) == (130, "kg: aborted")
    assert unchanged(previous)


def test_a_real_write_failure_past_the_file_size_limit_changes_no_file(corpus_store, previous, tmp_path):
    # The kernel refuses to grow a file past RLIMIT_FSIZE (EFBIG; Python ignores SIGXFSZ): a real
    # failed write, as on a full disk. The limit lets kg.ttl through and stops kg.nt, the largest.
    sizes = {}
    for fmt in ("ttl", "nt"):
        export_graph(open_store(corpus_store), tmp_path / f"size.{fmt}", fmt)
        sizes[fmt] = (tmp_path / f"size.{fmt}").stat().st_size
    assert sizes["ttl"] < sizes["nt"]
    limit = (sizes["ttl"] + sizes["nt"]) // 2

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    command = [sys.executable, "-m", "kg", "export", "--format", "all", "--out", str(previous), "--store", str(corpus_store)]
    finished = subprocess.run(command, capture_output=True, text=True, preexec_fn=limited, timeout=120, check=False)
    assert finished.returncode == 2, finished.stderr
    assert "kg.nt: cannot write the export (File too large)" in finished.stderr and finished.stderr.count("\n") == 1
    assert unchanged(previous)


def test_a_rename_failing_after_others_says_which_files_were_replaced(corpus_store, previous, monkeypatch, run):
    # All temporaries are written by then; renames in one folder all but never fail. If one does,
    # the files cannot all stay as they were, so the message says exactly which changed.
    real, renamed = os.replace, []

    def replace(source, target):
        if len(renamed) == 2:
            raise OSError(errno.EIO, "Input/output error")
        real(source, target)
        renamed.append(target)

    monkeypatch.setattr(os, "replace", replace)
    code, _, err = run("export", "--format", "all", "--out", previous, "--store", corpus_store)
    assert code == 2 and err.count("\n") == 1
    assert (
        f"{previous / 'kg.jsonld'}: cannot write the export (Input/output error); {previous / 'kg.ttl'}, {previous / 'kg.nt'} already hold the new export"
        in err
    )
    assert [p.name for p in previous.iterdir() if p.name.startswith(".")] == []  # no temporary left


def test_a_folder_in_the_way_is_found_before_anything_is_written(corpus_store, previous, run):
    (previous / "kg.jsonld").unlink()
    (previous / "kg.jsonld").mkdir()
    code, _, err = run("export", "--format", "all", "--out", previous, "--store", corpus_store)
    assert code == 2 and "kg.jsonld: cannot write the export" in err
    assert all((previous / name).read_bytes() == f"# previous {name}\n".encode() for name in EXPORTS if name != "kg.jsonld")
    assert sorted(p.name for p in previous.iterdir()) == sorted(EXPORTS)


def test_a_failed_export_removes_the_folders_it_made(corpus_store, tmp_path, monkeypatch, run):
    fail_on_the_nth_file(monkeypatch, 2, OSError(errno.ENOSPC, "No space left on device"))
    code, _, _ = run("export", "--format", "all", "--out", tmp_path / "new" / "exports", "--store", corpus_store)
    assert code == 2 and list(tmp_path.iterdir()) == []


def test_an_export_writes_through_a_symbolic_link(store, tmp_path):
    real = tmp_path / "elsewhere.ttl"
    real.write_text("previous")
    link = tmp_path / "kg.ttl"
    link.symlink_to(real)
    export_graph(store, link, "ttl")
    assert link.is_symlink() and real.read_bytes().startswith(b"@prefix")


# -- item 13: an export replaced keeps its mode; a new one gets the umask's -----------------------------


@pytest.fixture
def umask():
    def set_umask(mask: int) -> None:
        os.umask(mask)

    before = os.umask(0o022)
    os.umask(before)
    yield set_umask
    os.umask(before)


@pytest.mark.parametrize(("mode", "mask"), [(0o600, 0o022), (0o644, 0o077), (0o640, 0o002)])
def test_overwriting_an_export_keeps_its_mode(store, tmp_path, umask, mode, mask):
    for name, write in [("kg.ttl", lambda path: export_graph(store, path, "ttl")), ("void.ttl", lambda path: export_void(store, path))]:
        path = tmp_path / name
        path.write_text("previous")
        path.chmod(mode)
        umask(mask)
        write(path)
        assert stat.S_IMODE(path.stat().st_mode) == mode, name


def test_a_new_export_gets_the_umask_default(store, tmp_path, umask):
    umask(0o027)
    export_graph(store, tmp_path / "kg.nt", "nt")
    assert stat.S_IMODE((tmp_path / "kg.nt").stat().st_mode) == 0o640  # 0666 less the umask, as open() gives


# -- item 14: one graph model; VoID other stores read right; a validator that can fail ------------------

GRAPHS = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"
DEFAULT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


def test_the_trig_export_holds_the_default_graph_as_the_store_does(store, tmp_path):
    path = tmp_path / "kg.trig"
    count = export_graph(store, path, "trig")
    loaded = pyoxigraph.Store()
    loaded.load(path=str(path), format=pyoxigraph.RdfFormat.TRIG)
    dataset = rdflib.Dataset()
    dataset.parse(path, format="trig")
    in_store = [(s["g"].value, int(s["n"].value)) for s in store.query(GRAPHS)]
    assert in_store == [] == [(s["g"].value, int(s["n"].value)) for s in loaded.query(GRAPHS)]
    assert list(dataset.query(GRAPHS)) == []  # rdflib: no named graph either
    [[stored]] = [[int(s["n"].value)] for s in store.query(DEFAULT)]
    assert stored == count == len(dataset.default_graph) == len(loaded)
    same = {q.triple for q in loaded} == set(graph_triples(store))
    assert same, "the TriG export read back differs from the store"


@pytest.mark.skipif(RAPPER is None, reason="rapper (Debian raptor2-utils) is not installed")
def test_rapper_reads_the_trig_export_as_the_default_graph(store, tmp_path):
    path = tmp_path / "kg.trig"
    count = export_graph(store, path, "trig")
    quads = subprocess.run([RAPPER, "-q", "-i", "trig", "-o", "nquads", str(path)], capture_output=True, text=True, check=True).stdout
    triples = subprocess.run([RAPPER, "-q", "-i", "trig", "-o", "ntriples", str(path)], capture_output=True, text=True, check=True).stdout
    plain = set(triples.splitlines())
    named = [line for line in quads.splitlines() if line not in plain]
    assert not named, f"rapper reads {len(named)} quads in a named graph, e.g. {named[0]}"
    assert len(plain) == count


def test_a_named_graph_only_when_asked(store, tmp_path, run, corpus_store):
    graph = "https://example.org/graph/kg"
    code, out, err = run("export", "--format", "nq", "--graph", graph, "--out", tmp_path / "kg.nq", "--store", corpus_store)
    assert code == 0, err
    assert f"(in graph <{graph}>)" in out
    lines = (tmp_path / "kg.nq").read_text(encoding="utf-8").splitlines()
    assert lines and all(line.endswith(f" <{graph}> .") for line in lines) and lines == sorted(lines)
    code, _, err = run("export", "--format", "ttl", "--graph", graph, "--out", tmp_path / "kg.ttl", "--store", corpus_store)
    assert code == 2 and "only for TriG and N-Quads" in err and not (tmp_path / "kg.ttl").exists()
    code, _, err = run("export", "--format", "trig", "--graph", "not an iri", "--out", tmp_path / "kg.trig", "--store", corpus_store)
    assert code == 2 and "not an absolute IRI" in err and not (tmp_path / "kg.trig").exists()


def test_void_names_kg_own_vocabulary_and_needs_no_escapes(store, tmp_path):
    path = tmp_path / "void.ttl"
    export_void(store, path)
    text = path.read_text(encoding="utf-8")
    assert "\\" not in text  # no `\#` (Virtuoso misreads it); the literals hold no backslash either
    void = rdflib.Graph().parse(path, format="turtle")
    [dataset] = void.subjects(rdflib.RDF.type, VOID.Dataset)
    assert str(dataset).startswith("https://w3id.org/kg/dataset/")
    vocabularies = {str(v) for v in void.objects(dataset, VOID.vocabulary)}
    assert "https://w3id.org/kg/ontology#" in vocabularies and "http://purl.org/dc/terms/" in vocabularies
    assert not any(
        v.startswith("https://w3id.org/kg/") and v != "https://w3id.org/kg/ontology#" for v in vocabularies
    )  # resources are no vocabulary
    partitions = set(void.objects(dataset, VOID.classPartition))
    assert partitions and all(f"<{p}>" in text for p in partitions)  # written in full


@pytest.mark.skipif(RAPPER is None, reason="rapper (Debian raptor2-utils) is not installed")
def test_rapper_reads_void_as_rdflib_does(store, tmp_path):
    path = tmp_path / "void.ttl"
    count = export_void(store, path)
    finished = subprocess.run([RAPPER, "-i", "turtle", "-c", str(path)], capture_output=True, text=True, check=True)
    assert f"returned {count} triples" in finished.stderr


ORPHAN = "<https://w3id.org/kg/mention/orphan> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://w3id.org/kg/ontology#Mention>"  # a mention of no paper


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("named.trig", f"<https://example.org/g> {{ {ORPHAN} . }}\n"),
        ("named.nq", f"{ORPHAN} <https://example.org/g> .\n"),
    ],
)
def test_validate_reads_the_named_graphs_of_quad_files(tmp_path, run, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, out, err = run("validate", path)
    assert code == 1, out + err
    assert out.startswith("Does not conform:") and "in 1 triples" in out and "MinCountConstraintComponent" in out


def test_validate_counts_the_default_and_named_graphs_of_a_trig_export(store, tmp_path, run, corpus_store):
    path = tmp_path / "kg.trig"
    run("export", "--format", "trig", "--graph", "https://example.org/g", "--out", path, "--store", corpus_store)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f"{ORPHAN} .\n")  # in the default graph
    code, out, _ = run("validate", path)
    assert code == 1 and f"in {len(store) + 1} triples" in out


# -- item 7: a JSON-LD context is read from a local file, never fetched -----------------------------------


class _Counting(http.server.BaseHTTPRequestHandler):
    requests: ClassVar[list[str]] = []

    def do_GET(self):  # noqa: N802 - the http.server API
        self.requests.append(self.path)
        body = json.dumps({"@context": {"kg": "https://w3id.org/kg/ontology#"}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/ld+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def context_server():
    server = http.server.HTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Counting.requests.clear()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def _jsonld(path, context) -> None:
    path.write_text(json.dumps({"@context": context, "@id": "https://w3id.org/kg/paper/x", "@type": "kg:Paper"}), encoding="utf-8")


def test_validate_never_fetches_a_remote_jsonld_context(tmp_path, run, context_server):
    url = f"{context_server}/context.jsonld"
    path = tmp_path / "remote.jsonld"
    _jsonld(path, url)
    code, out, err = run("validate", path)
    assert _Counting.requests == []  # not one request reached the server
    assert (code, out) == (2, "")
    assert err.startswith(f"kg: error: {path}: ") and url in err and "never fetches" in err and err.count("\n") == 1


def test_a_local_context_that_names_a_remote_one_is_refused_too(tmp_path, run, context_server):
    (tmp_path / "local.jsonld").write_text(json.dumps({"@context": [f"{context_server}/deeper.jsonld"]}), encoding="utf-8")
    path = tmp_path / "data.jsonld"
    _jsonld(path, "local.jsonld")
    code, _, err = run("validate", path)
    assert _Counting.requests == []
    assert code == 2 and f"{context_server}/deeper.jsonld" in err


def test_a_context_in_a_local_file_is_read(tmp_path, run):
    (tmp_path / "local.jsonld").write_text(json.dumps({"@context": {"kg": "https://w3id.org/kg/ontology#"}}), encoding="utf-8")
    path = tmp_path / "data.jsonld"
    _jsonld(path, "local.jsonld")
    code, out, err = run("validate", path)
    assert code == 1 and err == "" and "in 1 triples" in out  # read (a paper without its required properties), not refused
