"""Interoperability: exports read by independent parsers (Oxigraph, rdflib,
Raptor's `rapper`), the VoID description, SHACL validation, the SPARQL
server (`kg serve`, started for real), and pushing to / querying a remote
SPARQL endpoint (a real Oxigraph server on localhost)."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pyoxigraph
import pytest
import rdflib

from kg.export import export_graph, export_void, graph_triples
from kg.export.validate import validate_graph
from kg.graph import open_store

RAPPER = shutil.which("rapper")
SERVER = shutil.which("oxigraph", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
needs_server = pytest.mark.skipif(SERVER is None, reason="the Oxigraph server (PyPI `oxigraph`, a kg dependency) is not installed")


@pytest.fixture(scope="module")
def store(extracted_store):
    return open_store(extracted_store)


# -- exports read by independent parsers ------------------------------------


@pytest.mark.skipif(RAPPER is None, reason="rapper (Debian raptor2-utils, installed by .ci/run) is not installed")
@pytest.mark.parametrize(("fmt", "syntax"), [("ttl", "turtle"), ("nt", "ntriples"), ("trig", "trig")])
def test_rapper_reads_every_triple_of_the_exports(store, tmp_path, fmt, syntax):
    path = tmp_path / f"kg.{fmt}"
    count = export_graph(store, path, fmt)
    assert count == len(store) > 50_000
    finished = subprocess.run([RAPPER, "-i", syntax, "-c", str(path)], capture_output=True, text=True, check=True)
    assert f"returned {count} triples" in finished.stderr


def test_trig_holds_the_default_graph_as_the_store_does_or_the_graph_named(store, tmp_path):
    path = tmp_path / "kg.trig"
    export_graph(store, path, "trig")
    quads = list(pyoxigraph.parse(path=str(path), format=pyoxigraph.RdfFormat.TRIG))
    assert {q.graph_name for q in quads} == {pyoxigraph.DefaultGraph()}
    same = {q.triple for q in quads} == set(graph_triples(store))
    assert same, "the TriG export read back differs from the store"
    graph = pyoxigraph.NamedNode("https://example.org/graph/kg")
    export_graph(store, path, "trig", graph=graph.value)
    assert {q.graph_name for q in pyoxigraph.parse(path=str(path), format=pyoxigraph.RdfFormat.TRIG)} == {graph}


def test_void_describes_the_dataset(store, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764460800")  # 2025-11-30: a fixed date makes the file repeatable
    first, second = tmp_path / "a.ttl", tmp_path / "b.ttl"
    export_void(store, first)
    export_void(store, second)
    assert first.read_bytes() == second.read_bytes()
    void = rdflib.Graph().parse(first, format="turtle")
    [dataset] = void.subjects(rdflib.RDF.type, rdflib.URIRef("http://rdfs.org/ns/void#Dataset"))
    VOID = rdflib.Namespace("http://rdfs.org/ns/void#")
    assert int(void.value(dataset, VOID.triples)) == len(store)
    assert str(void.value(dataset, rdflib.DCTERMS.created)) == "2025-11-30"
    assert void.value(dataset, rdflib.DCTERMS.license) is not None
    papers = [p for p in void.objects(dataset, VOID.classPartition) if str(void.value(p, VOID["class"])).endswith("#Paper")]
    assert [int(void.value(p, VOID.entities)) for p in papers] == [266]  # the shipped corpus's papers
    used = {int(void.value(p, VOID.triples)) for p in void.objects(dataset, VOID.propertyPartition)}
    assert sum(int(void.value(p, VOID.triples)) for p in void.objects(dataset, VOID.propertyPartition)) == len(store) and used


# -- SHACL -----------------------------------------------------------------------


def test_the_built_corpus_conforms(extracted_store, run):
    code, out, err = run("validate", "--store", extracted_store)
    assert (code, err) == (0, "") and out.startswith("Conforms:")


def test_a_broken_graph_is_caught_with_readable_violations(store, tmp_path, run):
    data = rdflib.Graph().parse(data=store.dump(format=pyoxigraph.RdfFormat.N_TRIPLES, from_graph=pyoxigraph.DefaultGraph()), format="nt")
    KG = rdflib.Namespace("https://w3id.org/kg/ontology#")
    SKOS = rdflib.namespace.SKOS
    concept = rdflib.URIRef("https://w3id.org/kg/concept/method-lora")
    data.add((concept, SKOS.prefLabel, rdflib.Literal("Low-Rank Adaptation")))  # a second prefLabel
    mention = next(data.subjects(rdflib.RDF.type, KG.Mention))
    data.set((mention, KG.startOffset, rdflib.Literal(10_000)))  # start after end
    orphan = rdflib.URIRef("https://w3id.org/kg/mention/orphan")
    data.add((orphan, rdflib.RDF.type, KG.Mention))  # tied to no paper
    report = validate_graph(data)
    assert not report.conforms
    found = {(v.focus, v.constraint, v.path) for v in report.violations}
    assert (str(concept), "MaxCountConstraintComponent", "skos:prefLabel") in found
    assert (str(mention), "LessThanConstraintComponent", "kg:startOffset") in found
    assert {(str(orphan), "MinCountConstraintComponent", path) for path in ("kg:inPaper", "^kg:hasMention")} <= found
    path = tmp_path / "broken.ttl"
    data.serialize(path, format="turtle")
    code, out, _ = run("validate", path)
    assert code == 1 and out.startswith("Does not conform:") and "LessThanConstraintComponent" in out


def test_validate_errors_are_exit_2(tmp_path, run):
    bad = tmp_path / "bad.ttl"
    bad.write_text("<a> <b> .\n")
    code, _, err = run("validate", bad)
    assert code == 2 and err.startswith(f"kg: error: {bad}: not valid turtle") and err.count("\n") == 1


# -- kg serve ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url: str, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except urllib.error.HTTPError:
            return  # the server answers
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def sparql(url: str, query: str) -> dict:
    request = urllib.request.Request(
        f"{url}?{urllib.parse.urlencode({'query': query})}", headers={"Accept": "application/sparql-results+json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@needs_server
def test_serve_answers_sparql_read_only_on_localhost_and_stops_on_ctrl_c(extracted_store, tmp_path):
    served = tmp_path / "store"
    shutil.copytree(extracted_store, served)
    port = free_port()
    command = [sys.executable, "-m", "kg", "serve", "--store", str(served), "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(f"http://127.0.0.1:{port}/")
        answer = sparql(f"http://127.0.0.1:{port}/query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        assert int(answer["results"]["bindings"][0]["n"]["value"]) == len(open_store(extracted_store))
        update = urllib.request.Request(f"http://127.0.0.1:{port}/update", data=b"update=CLEAR%20ALL", method="POST")
        with pytest.raises(urllib.error.HTTPError):  # read-only: no updates
            urllib.request.urlopen(update, timeout=5)
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode("utf-8", "replace")
        assert "yasgui" in page.lower()  # the query page
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert f"http://127.0.0.1:{port}/query" in out and "read-only" in out and "Stopped." in out


# -- kg push and kg query --endpoint -------------------------------------------------


@pytest.fixture
def remote(tmp_path):
    """A writable Oxigraph server on localhost whose default graph is the union of its named graphs."""
    if SERVER is None:
        pytest.skip("the Oxigraph server is not installed")
    port = free_port()
    process = subprocess.Popen(
        [SERVER, "serve", "--location", str(tmp_path / "remote"), "--bind", f"127.0.0.1:{port}", "--union-default-graph"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(url + "/")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def remote_count(url: str) -> dict[str, int]:
    answer = sparql(url + "/query", "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
    return {row["g"]["value"]: int(row["n"]["value"]) for row in answer["results"]["bindings"]}


def remote_default_count(url: str) -> int:
    answer = sparql(url + "/query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    return int(answer["results"]["bindings"][0]["n"]["value"])


def test_push_replaces_the_default_graph_atomically_in_chunks(corpus_store, remote, run):
    expected = len(open_store(corpus_store))
    code, out, err = run("push", "--endpoint", remote + "/store", "--chunk-size", "1500", "--store", corpus_store)
    assert code == 0, err
    assert "replaced atomically" in out and f"in {-(-expected // 1500)} request(s)" in out
    assert (
        remote_count(remote) == {} and remote_default_count(remote) == expected
    )  # the default graph, as in the store; the staging graph is gone
    code, _, _ = run("push", "--endpoint", remote + "/store", "--store", corpus_store)
    assert code == 0 and remote_count(remote) == {} and remote_default_count(remote) == expected  # pushed twice: replaced, not doubled


def _sample_params(query) -> list[str]:
    """--param arguments for a library query: the example its header gives, or one from the corpus."""
    import re

    overrides = {
        ("paper-sources", "paper"): "<https://w3id.org/kg/paper/d71e16807b37c59b>",  # LoRA3D
        ("shared-concepts", "other"): "LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models",
        ("papers-in-category", "category"): "Applied AI",
    }
    arguments = []
    for name, description in query.params.items():
        example = re.search(r'e\.g\. "?([^"]+?)"?(?: or |$)', description)
        value = overrides.get((query.name, name)) or (example and example[1])
        assert value, f"{query.name}: give --param {name} an example in its header"
        arguments += ["-p", f"{name}={value}"]
    return arguments


def test_every_named_query_answers_the_same_remotely_as_locally(extracted_store, remote, run):
    from kg.query import list_queries

    assert run("push", "--endpoint", remote + "/store", "--store", extracted_store)[0] == 0
    for query in list_queries():
        arguments = ["query", "-f", query.name, *_sample_params(query), "--format", "csv"]
        code, local, err = run(*arguments, "--store", extracted_store)
        assert code == 0, err
        code, remote_answer, err = run(*arguments, "--endpoint", remote + "/query")
        assert code == 0, err
        assert len(local.splitlines()) > 1, f"{query.name}: the sample finds nothing, so the comparison proves nothing"
        assert sorted(remote_answer.splitlines()) == sorted(local.splitlines()), query.name


def test_remote_parameters_are_only_values(corpus_store, remote, run):
    run("push", "--endpoint", remote + "/store", "--store", corpus_store)
    hostile = 'x" } ; DROP ALL ; #'
    code, out, _ = run(
        "query", "-p", f"name={hostile}", "--endpoint", remote + "/query", "SELECT ?name ?person WHERE { ?person foaf:name ?name }"
    )
    assert code == 0 and "(0 rows)" in out
    assert remote_default_count(remote)  # nothing was dropped


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: list = []

    def do_PUT(self):  # noqa: N802 - the http.server API
        self.seen.append(self.headers.get("Authorization"))
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_push_takes_credentials_from_the_environment_or_netrc(corpus_store, tmp_path, monkeypatch, run):
    server = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/gsp"
    try:
        _Recorder.seen.clear()
        monkeypatch.setenv("KG_ENDPOINT_USER", "ann")
        monkeypatch.setenv("KG_ENDPOINT_PASSWORD", "s3cret")
        assert run("push", "--endpoint", url, "--store", corpus_store)[0] == 0
        monkeypatch.delenv("KG_ENDPOINT_USER")
        monkeypatch.delenv("KG_ENDPOINT_PASSWORD")
        netrc = tmp_path / "netrc"
        netrc.write_text("machine 127.0.0.1 login bob password hunter2\n")
        netrc.chmod(0o600)
        monkeypatch.setenv("NETRC", str(netrc))
        assert run("push", "--endpoint", url, "--store", corpus_store)[0] == 0
    finally:
        server.shutdown()
    assert _Recorder.seen == ["Basic YW5uOnMzY3JldA==", "Basic Ym9iOmh1bnRlcjI="]  # ann:s3cret, bob:hunter2
    code, out, _ = run("push", "--help")
    assert "password" not in out.replace("KG_ENDPOINT_PASSWORD", "")


def test_unreachable_endpoint_is_one_line_and_exit_2(corpus_store, run):
    code, _, err = run("push", "--endpoint", f"http://127.0.0.1:{free_port()}/store", "--store", corpus_store)
    assert code == 2 and "cannot reach the endpoint" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "SELECT ?v ?x WHERE { { ?x rdfs:label ?l FILTER (?l = ?v) } } ORDER BY ?v",
            "SELECT (TERM AS ?v) ?x WHERE { { ?x rdfs:label ?l FILTER (?l = TERM) } } ORDER BY (TERM)",
        ),
        ('# ?v in a comment\nASK { ?x ?y "?v" , <http://e/#v> , ?v }', '# ?v in a comment\nASK { ?x ?y "?v" , <http://e/#v> , TERM }'),
        (
            "SELECT ?v (COUNT(?x) AS ?n) WHERE { ?x a ?v } GROUP BY ?v",
            "SELECT (TERM AS ?v) (COUNT(?x) AS ?n) WHERE { ?x a TERM } GROUP BY (TERM)",
        ),
        ("CONSTRUCT { ?x a ?v } WHERE { ?x a ?v }", "CONSTRUCT { ?x a TERM } WHERE { ?x a TERM }"),
    ],
)
def test_remote_parameters_are_substituted_as_terms(query, expected):
    from kg.query.binding import bind_terms as _bind

    hostile = 'x" } ; DROP ALL ; #'
    bound = _bind(query, {"v": hostile})
    assert bound == expected.replace("TERM", str(pyoxigraph.Literal(hostile)))
    pyoxigraph.Store().query(bound, prefixes={"rdfs": "http://www.w3.org/2000/01/rdf-schema#"})  # still one valid query
