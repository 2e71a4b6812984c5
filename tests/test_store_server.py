"""The store folder is one the Oxigraph server opens as it is (started for real)."""

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

from kg.graph import open_store

# Look beside this Python first: pip puts the server's launcher there.
SERVER = shutil.which("oxigraph", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def sparql_csv(url: str, query: str) -> str:
    request = urllib.request.Request(f"{url}/query?{urllib.parse.urlencode({'query': query})}", headers={"Accept": "text/csv"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.read().decode("utf-8")


@pytest.mark.skipif(SERVER is None, reason="the oxigraph server (PyPI package `oxigraph`, a test dependency) is not installed")
def test_oxigraph_server_serves_the_built_store(corpus_store, tmp_path):
    expected = len(open_store(corpus_store))
    served = tmp_path / "served"
    shutil.copytree(corpus_store, served)  # the server takes the folder's lock; leave the fixture's alone
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [SERVER, "serve-read-only", "--location", str(served), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                answer = sparql_csv(url, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        assert answer.split() == ["n", str(expected)]
    finally:
        server.terminate()
        server.wait(timeout=10)
