"""`kg serve` facing a hostile or careless client (the real server, started as
users start it): no SERVICE call leaves it, a deeply nested or oversized
request is refused and the server stays up, a runaway query answers an error
in time, a busy port is one line, and a stop leaves no process behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from kg.pipeline import build

SERVER = shutil.which("oxigraph", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
pytestmark = pytest.mark.skipif(SERVER is None, reason="the Oxigraph server (PyPI `oxigraph`, a kg dependency) is not installed")

PAPERS = [
    {
        "id": "p1",
        "title": "Neural radiance fields on Waymo",
        "abstract": "We propose a method for neural radiance fields evaluated on Waymo.",
        "year": 2023,
        "authors": ["Ada Lovelace"],
    },
    {
        "id": "p2",
        "title": "Gaussian splatting on KITTI",
        "abstract": "Gaussian splatting on KITTI improves rendering speed.",
        "year": 2024,
        "authors": ["Alan Turing"],
    },
]
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny")
    corpus = folder / "tiny.jsonl"
    corpus.write_text("".join(json.dumps(paper) + "\n" for paper in PAPERS), encoding="utf-8")
    build([corpus], store=folder / "store")
    return folder / "store"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(store: Path, *options: str) -> tuple[subprocess.Popen, str]:
    """`kg serve` in a subprocess, once it answers; its base URL."""
    port = free_port()
    command = [sys.executable, "-m", "kg", "serve", "--store", str(store), "--port", str(port), *options]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=20).close()
            return process, f"http://127.0.0.1:{port}"
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise AssertionError(process.communicate(timeout=20)) from None
            time.sleep(0.1)


def stop(process: subprocess.Popen) -> tuple[str, str]:
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 0 and "Stopped." in out, err
    return out, err


@pytest.fixture(scope="module")
def server(tiny_store):
    process, url = start(tiny_store)
    yield url
    stop(process)


def call(url: str, data: bytes | None = None, content_type: str | None = None, timeout: float = 10) -> tuple[int, str, str]:
    """(status, Content-Type, body) of one request, error statuses included."""
    headers = {"Accept": "application/sparql-results+json"}
    if content_type:
        headers["Content-Type"] = content_type
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=timeout) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode("utf-8")


def get(url: str, query: str, **kwargs) -> tuple[int, str, str]:
    return call(f"{url}/query?{urllib.parse.urlencode({'query': query})}", **kwargs)


def count(url: str) -> int:
    status, content_type, body = get(url, COUNT)
    assert status == 200 and content_type.startswith("application/sparql-results+json"), body
    return int(json.loads(body)["results"]["bindings"][0]["n"]["value"])


@pytest.fixture
def trap(listener):
    """The listener of tests/conftest.py as a SPARQL endpoint URL, and its accepted connections."""
    port, accepted = listener
    return f"http://127.0.0.1:{port}/sparql", accepted


# -- item 7: SERVICE never leaves the server ----------------------------------


def test_service_is_refused_by_get_and_both_posts_and_no_connection_is_made(server, trap):
    target, accepted = trap
    query = f"SELECT * WHERE {{ SERVICE <{target}> {{ ?s ?p ?o }} }}"
    answers = [
        get(server, query),
        call(f"{server}/query", urllib.parse.urlencode({"query": query}).encode(), "application/x-www-form-urlencoded"),
        call(f"{server}/query", query.encode(), "application/sparql-query; charset=utf-8"),
    ]
    time.sleep(0.5)  # time for a connection the server might have opened late
    assert len(accepted) == 0
    for status, content_type, body in answers:
        assert (status, content_type) == (400, "text/plain; charset=utf-8")
        assert "SERVICE" in body and body.count("\n") == 1
    assert count(server) > 0  # and it still answers


def test_service_in_the_url_of_a_post_is_refused_too(server, trap):
    """Oxigraph reads `query` from the URL of a form POST as well as its body."""
    target, accepted = trap
    query = urllib.parse.urlencode({"query": f"SELECT * {{ SERVICE <{target}> {{ ?s ?p ?o }} }}"})
    status, _, body = call(f"{server}/query?{query}", b"default-graph-uri=urn%3Ax", "application/x-www-form-urlencoded")
    time.sleep(0.5)
    assert status == 400 and "SERVICE" in body and len(accepted) == 0


def test_a_writable_server_refuses_service_in_an_update(tiny_store, tmp_path, trap):
    target, accepted = trap
    served = tmp_path / "store"
    shutil.copytree(tiny_store, served)  # a writable server takes the store's lock
    process, url = start(served, "--writable")
    try:
        update = f"INSERT {{ <urn:a> <urn:b> ?o }} WHERE {{ SERVICE <{target}> {{ ?s ?p ?o }} }}"
        status, _, body = call(f"{url}/update", update.encode(), "application/sparql-update")
        status_load, _, body_load = call(f"{url}/update", f"LOAD <{target}/data.ttl>".encode(), "application/sparql-update")
        time.sleep(0.5)
        assert status == 400 and "SERVICE" in body and len(accepted) == 0
        assert status_load == 400 and "LOAD" in body_load
        before = count(url)
        status, _, body = call(f"{url}/update", b"INSERT DATA { <urn:a> <urn:b> <urn:c> }", "application/sparql-update")
        assert status == 204, body  # updates without SERVICE go through
        assert count(url) == before + 1
    finally:
        stop(process)


# -- item 8: a hostile request is refused and the server stays up ---------------


def test_a_query_nested_5000_deep_gets_400_and_the_server_keeps_serving(tiny_store):
    process, url = start(tiny_store)  # its own: before the front, this request ended the server
    try:
        query = "SELECT * WHERE { FILTER(" + "(" * 5000 + "1" + ")" * 5000 + ") }"
        status, content_type, body = call(f"{url}/query", query.encode(), "application/sparql-query")
        assert (status, content_type) == (400, "text/plain; charset=utf-8") and "nested too deeply" in body
        assert count(url) > 0
    finally:
        stop(process)


def test_a_body_over_the_bound_gets_413_before_it_is_sent(server):
    port = int(server.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\nContent-Length: 50000000\r\n\r\n")
        answer = sock.recv(65536).decode("latin-1")  # no body sent: the front answers from the header alone
    assert answer.startswith("HTTP/1.1 413 ")
    assert count(server) > 0


def test_clients_past_the_bound_get_503_and_the_server_recovers(server):
    from kg.query.front import MAX_CLIENTS

    port = int(server.rsplit(":", 1)[1])
    idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(MAX_CLIENTS)]
    try:
        assert get(server, COUNT)[0] == 503
    finally:
        for sock in idle:
            sock.close()
    deadline = time.monotonic() + 10
    while get(server, COUNT)[0] == 503 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert count(server) > 0


def test_read_only_refuses_updates_and_graph_store_writes(server):
    before = count(server)
    assert call(f"{server}/update", b"CLEAR ALL", "application/sparql-update")[0] == 403
    assert call(f"{server}/update", b"update=CLEAR%20ALL", "application/x-www-form-urlencoded")[0] == 403
    put = urllib.request.Request(
        f"{server}/store?default", data=b"<urn:a> <urn:b> <urn:c> .", method="PUT", headers={"Content-Type": "application/n-triples"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(put, timeout=10)
    assert refused.value.code == 403
    assert count(server) == before


# -- the protocol still works ---------------------------------------------------


def test_select_by_get_and_by_both_posts_answers_json(server, tiny_store):
    from kg.graph import open_store

    expected = len(open_store(tiny_store))
    assert count(server) == expected
    for data, content_type in [
        (urllib.parse.urlencode({"query": COUNT}).encode(), "application/x-www-form-urlencoded"),
        (COUNT.encode(), "application/sparql-query"),
    ]:
        status, answer_type, body = call(f"{server}/query", data, content_type)
        assert status == 200 and answer_type.startswith("application/sparql-results+json")
        assert json.loads(body)["results"]["bindings"][0]["n"]["value"] == str(expected)


def test_a_malformed_query_gets_oxigraphs_400(server):
    status, _, body = get(server, "SELECT WHERE {")
    assert status == 400 and body


def test_the_yasgui_page_and_its_assets_still_load(server):
    with urllib.request.urlopen(f"{server}/", timeout=10) as page:
        assert page.status == 200 and page.headers["Content-Type"].startswith("text/html")
        html = page.read().decode("utf-8", "replace")
    assert "yasgui" in html.lower()
    with urllib.request.urlopen(f"{server}/yasgui.min.js", timeout=10) as script:
        assert script.status == 200 and len(script.read()) > 10_000


# -- item 9: a runaway query answers in time ------------------------------------


def test_a_cross_product_gets_503_within_the_timeout_and_the_server_keeps_serving(tiny_store):
    process, url = start(tiny_store, "--timeout", "2")
    try:
        # 46 triples to the sixth power: hours of counting.
        runaway = "SELECT (COUNT(*) AS ?n) WHERE { " + " ".join(f"?s{i} ?p{i} ?o{i} ." for i in range(6)) + " }"
        started = time.monotonic()
        status, content_type, body = get(url, runaway, timeout=30)
        took = time.monotonic() - started
        assert (status, content_type) == (503, "text/plain; charset=utf-8") and "--timeout" in body
        assert 1.5 < took < 8  # 2 s, and a loaded machine's slack
        assert count(url) > 0
    finally:
        stop(process)


# -- item 12: a busy port, and stopping -----------------------------------------


def test_serving_is_announced_only_once_the_server_answers(tiny_store):
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "kg", "serve", "--store", str(tiny_store), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout.readline().startswith("Serving ")
        assert count(f"http://127.0.0.1:{port}") > 0  # at once: no waiting after the announcement
    finally:
        stop(process)


def test_a_busy_port_is_one_line_exit_2_and_nothing_is_announced(tiny_store):
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "kg", "serve", "--store", str(tiny_store), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr == f"kg: error: port {port} is in use (choose another with --port)\n"
    assert done.stdout == "" and "panicked" not in done.stderr and "backtrace" not in done.stderr.lower()


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the Oxigraph process through /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_and_sigterm_stop_both_servers(tiny_store, signum):
    process, url = start(tiny_store)
    backend = children(process.pid)
    assert len(backend) == 1 and "oxigraph" in Path(f"/proc/{backend[0]}/cmdline").read_text()
    assert count(url) > 0
    process.send_signal(signum)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 0 and out.endswith("Stopped.\n") and err == ""
    assert not Path(f"/proc/{backend[0]}").exists()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the Oxigraph process through /proc")
def test_the_oxigraph_server_dying_stops_kg_serve_with_one_line(tiny_store):
    process, _ = start(tiny_store)
    os.kill(children(process.pid)[0], signal.SIGKILL)
    _, err = process.communicate(timeout=20)
    assert process.returncode == 2 and err == "kg: error: the Oxigraph server stopped: killed by SIGKILL\n"


def test_a_backend_that_cannot_start_is_one_line(tiny_store, tmp_path, monkeypatch, run):
    """The Oxigraph program failing is its own error line, not its backtrace, and nothing is announced."""
    fake = tmp_path / "bin" / "oxigraph"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Error: the database is busy' >&2\necho 'Stack backtrace:' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr("kg.query.serve.server_program", lambda: str(fake))
    code, out, err = run("serve", "--store", tiny_store, "--port", free_port())
    assert (code, out) == (2, "")
    assert err == "kg: error: the Oxigraph server did not start: the database is busy\n"
