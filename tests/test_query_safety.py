"""A hostile or careless query, run by kg itself: no connection anywhere
(SERVICE), no crash (deep nesting), a time limit and a working Ctrl-C, a bounded
answer, and a one-line error for a remote endpoint's malformed answer
(issue 18: 7, 8, 9, 13). The commands run as real processes where a crash or a
hang of today's code would otherwise take pytest down with it."""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from pyoxigraph import Store

from kg.errors import QueryError
from kg.graph import open_store
from kg.pipeline import build
from kg.query import format_result, run_query
from tests.conftest import REPO

#: Three unbound triple patterns over the store's few thousand triples: about
#: 10^11 rows to count, hours of work for Oxigraph, none of it returning to Python.
CROSS = "?a ?b ?c . ?d ?e ?f . ?g ?h ?i"
COUNT_ALL = f"SELECT (COUNT(*) AS ?n) WHERE {{ {CROSS} }}"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A store of 300 tiny papers, built without extraction."""
    folder = tmp_path_factory.mktemp("safety")
    corpus = folder / "tiny.jsonl"
    records = [{"title": f"Paper {i}", "abstract": f"We study problem {i}.", "authors": [f"Author {i % 30}"]} for i in range(300)]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    build([corpus], store=folder / "store")
    return folder / "store"


def kg(*args) -> subprocess.Popen:
    """``python -m kg ARGS`` as a process (a segfault is its exit status, not pytest's)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    # Not ignored here, so not in the child: Ctrl-C acts as from a terminal, even where the test runner ignores it.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "kg", *map(str, args)], env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    finally:
        signal.signal(signal.SIGINT, previous)


def finish(process: subprocess.Popen, within: float) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"still running after {within} s: {err[-300:]}")
    return process.returncode, out, err


def one_line_error(err: str, *words: str) -> None:
    assert err.startswith("kg: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, err


# -- 7: SERVICE opens no connection ---------------------------------------------------


def _service_commands(port: int, tmp_path, store):
    url = f"<http://127.0.0.1:{port}/sparql>"
    construct = tmp_path / "service.rq"
    construct.write_text(f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SERVICE {url} {{ ?s ?p ?o }} }}\n", encoding="utf-8")
    question = tmp_path / "question.rq"
    question.write_text(f"# Asks elsewhere.\nSELECT * WHERE {{ SERVICE {url} {{ ?s ?p ?o }} }}\n", encoding="utf-8")
    select = f"SELECT * WHERE {{ SERVICE {url} {{ ?s ?p ?o }} }}"
    return {
        "query": ["query", select],
        "query --param": ["query", "-p", "x=1", f"SELECT * WHERE {{ BIND (?x AS ?y) SERVICE {url} {{ ?s ?p ?o }} }}"],
        "query, glued to a number": ["query", f"SELECT * WHERE {{ ?s ?p 1SERVICE {url} {{ ?s ?p ?o }} }}"],
        "query, behind an escaped #": [
            "query",
            f"PREFIX ex: <http://x/> SELECT * WHERE {{ VALUES ?x {{ ex:a\\# }} SERVICE {url} {{ ?s ?p ?o }} }}",
        ],
        "query, SERVICE:name": ["query", f"PREFIX : <http://127.0.0.1:{port}/> SELECT * WHERE {{ SERVICE:sparql {{ ?s ?p ?o }} }}"],
        "query, SERVICESILENT": ["query", f"SELECT * WHERE {{ SERVICESILENT{url} {{ ?s ?p ?o }} }}"],
        "query --endpoint": ["query", "--endpoint", f"http://127.0.0.1:{port}/query", select],
        "viz --query": ["viz", "--query", construct, "--out", tmp_path / "page.html"],
        "ask FILE.rq": ["ask", question],
    }


@pytest.mark.parametrize(
    "case",
    [
        "query",
        "query --param",
        "query, glued to a number",
        "query, behind an escaped #",
        "query, SERVICE:name",
        "query, SERVICESILENT",
        "query --endpoint",
        "viz --query",
        "ask FILE.rq",
    ],
)
def test_service_is_refused_before_any_connection(case, listener, store, tmp_path):
    port, accepted = listener
    args = _service_commands(port, tmp_path, store)[case]
    code, _, err = finish(kg(*args, "--store", store), within=60)
    time.sleep(0.2)  # a connection still on its way would be counted now
    assert len(accepted) == 0
    assert code == 2
    one_line_error(err, "SERVICE")
    assert not (tmp_path / "page.html").exists()


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * WHERE { VALUES ?x { ex:a\\# } SERVICE URL { ?s ?p ?o } }",  # an escaped # in a local name is no comment
        "SELECT * WHERE { VALUES ?x { <http://x/\\u0041#> } SERVICE URL { ?s ?p ?o } }",  # nor one in an IRI with a \\u escape
        "SELECT * WHERE { VALUES ?x { ex:a\\'b } SERVICE URL { ?s ?p ?o } } #'",  # an escaped ' starts no string
        "SELECT * WHERE { SERVICESILENT URL { ?s ?p ?o } }",
        "SELECT * WHERE { VALUES ?x { 1 } ?s ?p 1SERVICE URL { ?s ?p ?o } }",
        "SELECT * WHERE { VALUES ?x { 1 } ?s ?p 1.SERVICE URL { ?s ?p ?o } }",
        "SELECT * WHERE { VALUES ?x { UNDEF }SERVICE URL { ?s ?p ?o } }",
        "PREFIX : <URL> SELECT * WHERE { SERVICE:sparql { ?s ?p ?o } }",
    ],
    ids=["escaped #", "IRI escape", "escaped '", "SERVICESILENT", "1SERVICE", "1.SERVICE", "UNDEF}SERVICE", "SERVICE:name"],
)
def test_no_spelling_of_service_reaches_out(query, listener):
    port, accepted = listener
    with pytest.raises(QueryError, match="SERVICE"):
        run_query(
            Store(),
            "PREFIX ex: <http://x/>\n"
            + query.replace("<URL>", f"<http://127.0.0.1:{port}/>").replace("URL", f"<http://127.0.0.1:{port}/sparql>"),
        )
    time.sleep(0.1)
    assert len(accepted) == 0


# -- 8: deep queries are refused or run; none crashes ------------------------------------


def test_five_thousand_parentheses_are_an_error_not_a_crash(store):
    deep = "SELECT * WHERE { FILTER (" + "(" * 5000 + "true" + ")" * 5000 + ") }"
    for extra in ([], ["-p", "x=1"]):
        query = deep.replace("true", "?x") if extra else deep
        code, _, err = finish(kg("query", *extra, query, "--store", store), within=60)
        assert code == 2, err[-300:]
        one_line_error(err, "nested too deeply")


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * WHERE { FILTER (" + "!" * 50_000 + "true) }",  # 50 KB: 9 KB of `!` overflow Oxigraph's 8 MB main-thread stack
        "SELECT * WHERE { ?s ?p ?o FILTER (" + " || ".join(["false"] * 20_000) + ") }",  # 9,400 terms overflow it
    ],
    ids=["50,000 !", "20,000 ||"],
)
def test_deep_operator_chains_are_an_error_not_a_crash(query, store, tmp_path):
    (tmp_path / "deep.rq").write_text(query, encoding="utf-8")  # (longer than one command-line argument may be)
    code, _, err = finish(kg("query", "--format", "csv", "-f", tmp_path / "deep.rq", "--store", store, "--timeout", "0"), within=120)
    assert code == 2, err[-300:]
    one_line_error(err, "too complex")


# -- 9: a time limit, and Ctrl-C or kill stop a query at once ----------------------------


def test_timeout_stops_a_query_that_never_returns(store):
    started = time.monotonic()
    code, _, err = finish(kg("query", "--timeout", "2", COUNT_ALL, "--store", store), within=30)
    assert time.monotonic() - started < 10
    assert code == 2
    one_line_error(err, "ran past --timeout 2 s")


def test_ask_has_the_time_limit_too(store, tmp_path):
    question = tmp_path / "count-all.rq"
    question.write_text(f"# Counts a cross product.\n{COUNT_ALL}\n", encoding="utf-8")
    code, _, err = finish(kg("ask", question, "--timeout", "2", "--store", store), within=30)
    assert code == 2
    one_line_error(err, "ran past --timeout 2 s")


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_and_kill_stop_a_running_query(how, store):
    process = kg("query", COUNT_ALL, "--store", store)
    time.sleep(1.5)  # past start-up: the query is running
    assert process.poll() is None
    process.send_signal(how)
    stopped = time.monotonic()
    code, out, err = finish(process, within=15)
    assert time.monotonic() - stopped < 5
    assert (code, out, err.strip()) == (130, "", "kg: aborted")  # (click ends the line the terminal's ^C is on first)


def test_ctrl_c_stops_a_drawing_query(store, tmp_path):
    query = tmp_path / "cross.rq"
    query.write_text(f"CONSTRUCT {{ ?a ?b ?c }} WHERE {{ {CROSS} }} ORDER BY ?a\n", encoding="utf-8")
    process = kg("viz", "--query", query, "--out", tmp_path / "page.html", "--store", store)
    time.sleep(2.5)
    process.send_signal(signal.SIGINT)
    code, _, err = finish(process, within=15)
    assert (code, err.strip()) == (130, "kg: aborted")
    assert not (tmp_path / "page.html").exists()


def test_an_answer_is_bounded(store, monkeypatch):
    monkeypatch.setattr("kg.query.run.MAX_ANSWER_BYTES", 1_000_000)
    with pytest.raises(QueryError, match="the answer is larger than"):
        run_query(open_store(store), f"SELECT * WHERE {{ {CROSS} }}", timeout=30)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY ?p",
        "SELECT ?s ?o WHERE { ?s dcterms:title ?o } ORDER BY ?o LIMIT 5",
        "SELECT * WHERE { ?s foaf:name ?name } ORDER BY ?name LIMIT 3",
        "ASK { ?s a kg:Paper }",
        "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o ; dcterms:title 'Paper 7' }",
    ],
    ids=["group", "order", "star", "ask", "construct"],
)
def test_a_timed_query_answers_as_an_untimed_one(query, store):
    graph = open_store(store)
    for fmt in ("table", "csv", "json"):
        assert format_result(run_query(graph, query, timeout=30), fmt) == format_result(run_query(graph, query), fmt)
    bound = "SELECT ?o WHERE { ?s dcterms:title ?o }"
    assert format_result(run_query(graph, bound, {"o": "Paper 7"}, timeout=30)) == format_result(run_query(graph, bound, {"o": "Paper 7"}))


# -- 13: a remote endpoint's malformed answer is a one-line error -----------------------


class _Endpoint(http.server.BaseHTTPRequestHandler):
    """Answers a POST to each path of ANSWERS with its content type and body, after its delay."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        content_type, body, delay = ANSWERS[self.path]
        time.sleep(delay)
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


SOLUTIONS = json.dumps({"head": {"vars": ["s"]}, "results": {"bindings": [{"s": {"type": "uri", "value": "http://x/1"}}]}}).encode()
ANSWERS = {
    "/html": ("text/html", b"<!DOCTYPE html><html><body>Please log in</body></html>", 0),
    "/truncated": ("application/sparql-results+json", SOLUTIONS[:-9], 0),
    "/xml": (
        "application/sparql-results+xml",
        b'<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/></sparql>',
        0,
    ),
    "/binary": ("application/octet-stream", b"\x1b]0;owned\x07\x00\xff\xfe\x89PNG", 0),
    "/empty": ("application/sparql-results+json", b"", 0),
    "/boolean": ("application/sparql-results+json", b'{"head": {}, "boolean": true}', 0),
    "/undeclared": (
        "application/sparql-results+json",
        b'{"head": {"vars": ["s"]}, "results": {"bindings": [{"t": {"type": "uri", "value": "http://x/"}}]}}',
        0,
    ),
    "/turtle": ("text/html", b"<html><body>not turtle</body></html>", 0),
    "/good": ("application/sparql-results+json", SOLUTIONS, 0),
    "/slow": ("application/sparql-results+json", SOLUTIONS, 4),
}


@pytest.fixture(scope="module")
def endpoint():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize("path", ["/html", "/truncated", "/xml", "/binary", "/empty", "/boolean", "/undeclared"])
def test_a_malformed_remote_answer_is_one_line_exit_2(path, endpoint, run):
    code, out, err = run("query", "--endpoint", endpoint + path, "SELECT ?s WHERE { ?s ?p ?o }")
    assert (code, out) == (2, "")
    one_line_error(err, "the endpoint's answer is not SPARQL JSON results")
    assert "\x1b" not in err and "\x00" not in err


def test_a_malformed_remote_graph_is_one_line_exit_2(endpoint, run):
    code, _, err = run("query", "--endpoint", endpoint + "/turtle", "CONSTRUCT WHERE { ?s ?p ?o }")
    assert code == 2
    one_line_error(err, "the endpoint's answer is not RDF in Turtle")


def test_a_remote_answer_still_reads(endpoint, run):
    code, out, err = run("query", "--endpoint", endpoint + "/good", "--format", "csv", "SELECT ?s WHERE { ?s ?p ?o }")
    assert (code, out, err) == (0, "s\r\nhttp://x/1\r\n", "")


def test_a_slow_endpoint_meets_the_timeout(endpoint, run):
    started = time.monotonic()
    code, _, err = run("query", "--endpoint", endpoint + "/slow", "--timeout", "1", "SELECT ?s WHERE { ?s ?p ?o }")
    assert time.monotonic() - started < 3
    assert code == 2
    one_line_error(err, "ran past --timeout 1 s")
