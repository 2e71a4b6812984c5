"""`kg push` when things go wrong: a chunk refused half-way, no update endpoint,
credentials (Basic, Digest, refused), secrets in URLs. The remote is a Graph
Store Protocol endpoint emulated in memory by http.server on 127.0.0.1, so
each failure can be made to happen exactly where the test wants it."""

from __future__ import annotations

import base64
import hashlib
import http.server
import re
import threading
import urllib.parse

import pytest
from pyoxigraph import Literal, NamedNode, Quad, Store

from kg.export.push import push
from kg.graph import open_store
from kg.query.http import RemoteError, request

USER, PASSWORD, TOKEN = "alice", "S3cretPW", "T0K3N42"
REALM, NONCE = "kg-test", "5ccc069c403ebaf9f0171e9517f40e41"
OLD = {b"<http://example.org/old> <http://example.org/p> <http://example.org/o> ."}
DEFAULT = None  # the default graph's key in GraphStore.graphs


def _md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()  # Digest's own algorithm


class GraphStore(http.server.ThreadingHTTPServer):
    """A Graph Store endpoint at /store and /gsp (whose update endpoint kg cannot guess), SPARQL Update at /update."""

    def __init__(self, auth: str | None = None, fail_on: int | None = None, refuse: int | None = None, token: bool = False):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.graphs: dict[str | None, set[bytes]] = {DEFAULT: set(OLD)}
        self.auth, self.fail_on, self.refuse, self.token = auth, fail_on, refuse, token
        self.uploads = 0  # PUTs and POSTs of triples
        self.seen: list[tuple[str, str]] = []

    def url(self, path: str = "/store", credentials: str = "") -> str:
        return f"http://{credentials}127.0.0.1:{self.server_port}{path}" + (f"?token={TOKEN}" if self.token else "")


class _Handler(http.server.BaseHTTPRequestHandler):
    server: GraphStore

    def log_message(self, *args):
        pass

    def _answer(self, code: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _authorized(self) -> bool:
        header = self.headers.get("Authorization", "")
        if self.server.auth == "basic":
            return header == "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        if self.server.auth == "digest":  # RFC 2617, qop=auth
            if not header.startswith("Digest "):
                return False
            fields = urllib.request.parse_keqv_list(urllib.request.parse_http_list(header[len("Digest ") :]))
            expected = _md5(
                ":".join(
                    [
                        _md5(f"{USER}:{REALM}:{PASSWORD}"),
                        NONCE,
                        fields["nc"],
                        fields["cnonce"],
                        "auth",
                        _md5(f"{self.command}:{fields['uri']}"),
                    ]
                )
            )
            return fields["username"] == USER and fields["nonce"] == NONCE and fields["response"] == expected
        return True

    def _handle(self) -> None:
        server = self.server
        path, _, query = self.path.partition("?")
        params = urllib.parse.parse_qs(query, keep_blank_values=True)
        server.seen.append((self.command, path))
        if server.refuse or not self._authorized() or (server.token and params.get("token") != [TOKEN]):
            challenge = f'Digest realm="{REALM}", nonce="{NONCE}", qop="auth"' if server.auth == "digest" else f'Basic realm="{REALM}"'
            # Answered before the body is read, and the connection closed, as servers do.
            self.close_connection = True
            return self._answer(server.refuse or 401, b"go away\n", {"WWW-Authenticate": challenge, "Connection": "close"})
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if path not in {"/store", "/gsp", "/update"}:
            return self._answer(404, b"no such endpoint\n")
        if path == "/update":
            return self._update(urllib.parse.parse_qs(body.decode())["update"][0])
        graph = params["graph"][0] if "graph" in params else DEFAULT
        if self.command == "DELETE":
            return self._answer(204 if server.graphs.pop(graph, None) is not None else 404)
        server.uploads += 1
        if server.uploads == server.fail_on:
            return self._answer(500, b"disk full\n")
        lines = set(body.splitlines())
        server.graphs[graph] = lines if self.command == "PUT" else server.graphs.get(graph, set()) | lines
        self._answer(204)

    def _update(self, statement: str) -> None:
        graphs = self.server.graphs
        if drop := re.fullmatch(r"DROP SILENT GRAPH <([^>]+)>", statement):
            graphs.pop(drop[1], None)
            return self._answer(204)
        move = re.fullmatch(r"MOVE GRAPH <([^>]+)> TO (?:DEFAULT|GRAPH <([^>]+)>)", statement)
        if not move or move[1] not in graphs:
            return self._answer(400, f"bad update at {self.path}\n".encode())  # as some servers do: quoting the URL
        graphs[move[2]] = graphs.pop(move[1])  # move[2] is None for DEFAULT
        self._answer(204)

    do_PUT = do_POST = do_DELETE = _handle


@pytest.fixture
def serve():
    servers = []

    def start(**options) -> GraphStore:
        server = GraphStore(**options)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def no_credentials(monkeypatch, tmp_path):
    for name in ("KG_ENDPOINT_USER", "KG_ENDPOINT_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))


@pytest.fixture(scope="module")
def pushed(corpus_store):
    """The corpus store's triples as the server holds them (N-Triples lines), and how many chunks of 2,000 they make."""
    from pyoxigraph import RdfFormat, serialize

    from kg.export.serialize import graph_triples

    triples = graph_triples(open_store(corpus_store))
    assert len(triples) > 4000  # so that --chunk-size 2000 makes at least 3 chunks
    return set(serialize(triples, format=RdfFormat.N_TRIPLES).splitlines()), -(-len(triples) // 2000)


def big_store(megabytes: int) -> Store:
    """A store whose N-Triples are larger than the sockets' buffers, so a server hanging up early breaks the pipe."""
    store = Store()
    for i in range(megabytes * 256):
        store.add(Quad(NamedNode(f"http://example.org/s{i}"), NamedNode("http://example.org/p"), Literal("x" * 4096)))
    return store


# -- a failed push leaves the remote as it was, and says so --------------------------------------


def test_a_chunked_push_without_update_endpoint_is_refused_before_sending(serve, corpus_store, run):
    server = serve()
    code, out, err = run("push", "--endpoint", server.url("/gsp"), "--chunk-size", "2000", "--store", corpus_store)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--in-place" in err and "--update-endpoint" in err and "nothing was sent" in err
    assert server.seen == [] and server.graphs == {DEFAULT: OLD}


def test_in_place_says_how_much_arrived(serve, corpus_store, pushed, run):
    server = serve(fail_on=2)
    code, _, err = run("push", "--endpoint", server.url("/gsp"), "--chunk-size", "2000", "--in-place", "--store", corpus_store)
    assert code == 2 and err.count("\n") == 1
    assert "HTTP 500 (disk full)" in err and f"holds only the first 1 of {pushed[1]} chunks; rerun kg push" in err
    server.fail_on = None
    code, out, err = run("push", "--endpoint", server.url("/gsp"), "--chunk-size", "2000", "--in-place", "--store", corpus_store)
    assert code == 0 and "in place, chunk by chunk" in out, err
    assert server.graphs == {DEFAULT: pushed[0]}


def test_a_staged_push_that_fails_leaves_the_remote_unchanged_and_no_staging_graph(serve, corpus_store, run):
    server = serve(fail_on=2)
    code, _, err = run("push", "--endpoint", server.url(), "--chunk-size", "2000", "--store", corpus_store)
    assert code == 2 and err.count("\n") == 1
    assert "sending chunk 2 of" in err and "the remote graph is unchanged; kg dropped its staging graph" in err
    assert server.graphs == {DEFAULT: OLD}


def test_a_staged_push_replaces_the_default_graph_and_only_it(serve, corpus_store, pushed, run):
    server = serve()
    server.graphs["http://example.org/theirs"] = set(OLD)
    code, out, err = run("push", "--endpoint", server.url(), "--chunk-size", "2000", "--store", corpus_store)
    assert code == 0, err
    assert f"in {pushed[1]} request(s) to the default graph" in out and "replaced atomically" in out
    assert server.graphs == {DEFAULT: pushed[0], "http://example.org/theirs": OLD}
    code, out, err = run("push", "--endpoint", server.url(), "--graph", "http://example.org/g", "--store", corpus_store)
    assert code == 0 and "to <http://example.org/g>" in out, err
    assert server.graphs["http://example.org/g"] == pushed[0] and server.graphs[DEFAULT] == pushed[0]


def test_a_guessed_update_endpoint_that_is_not_there_stops_the_push_before_sending(serve, corpus_store, run):
    server = serve()
    code, _, err = run("push", "--endpoint", server.url("/nothing/store"), "--chunk-size", "2000", "--store", corpus_store)
    assert code == 2 and "guessed from --endpoint" in err and "nothing was sent" in err
    assert [method for method, _ in server.seen] == ["POST"] and server.graphs == {DEFAULT: OLD}


def test_an_interrupted_push_drops_its_staging_graph(serve, corpus_store):
    from kg.export.push import PushInterrupted

    server = serve()

    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(PushInterrupted, match="the remote graph is unchanged; kg dropped its staging graph") as caught:
        push(open_store(corpus_store), server.url(), chunk_size=2000, progress=interrupt)
    assert caught.value.exit_code == 130 and server.graphs == {DEFAULT: OLD}


# -- credentials: Basic, Digest, refusals, and never printed --------------------------------------


def test_credentials_in_the_url_are_used_and_never_printed(serve, corpus_store, run):
    server = serve(auth="basic", token=True)
    url = server.url(credentials=f"{USER}:{PASSWORD}@")
    code, out, err = run("push", "--endpoint", url, "--chunk-size", "2000", "--store", corpus_store)
    assert code == 0, err
    assert f"at http://***@127.0.0.1:{server.server_port}/store?***," in out
    wrong = url.replace(PASSWORD, PASSWORD + "x")
    code, out2, err2 = run("push", "--endpoint", wrong, "--chunk-size", "2000", "--store", corpus_store)
    assert code == 2 and "the endpoint refused the credentials (HTTP 401)" in err2
    assert "the remote graph is unchanged" in err2
    for secret in (PASSWORD, TOKEN, USER):
        assert secret not in out + err + out2 + err2


def test_a_remote_query_never_prints_the_password_or_token(serve, run):
    server = serve(auth="basic", token=True)
    code, out, err = run("query", "--endpoint", server.url("/query", credentials=f"{USER}:{PASSWORD}@"), "ASK { ?s ?p ?o }")
    assert code == 2 and f"http://***@127.0.0.1:{server.server_port}/query?***: HTTP 404" in err
    for secret in (PASSWORD, TOKEN, USER):
        assert secret not in out + err


def test_a_server_error_quoting_the_url_does_not_leak_the_token(serve):
    server = serve(token=True)
    with pytest.raises(RemoteError) as caught:
        request(server.url("/update") + "&graph=http%3A%2F%2Fe%2Fg", "POST", b"update=nonsense")
    message = str(caught.value)
    assert "HTTP 400 (bad update at /update?token=***&graph=" in message and "?***&graph=" in message
    assert TOKEN not in message


def test_digest_authentication(serve, corpus_store, pushed, monkeypatch, run):
    server = serve(auth="digest")
    monkeypatch.setenv("KG_ENDPOINT_USER", USER)
    monkeypatch.setenv("KG_ENDPOINT_PASSWORD", PASSWORD)
    code, out, err = run("push", "--endpoint", server.url(), "--chunk-size", "2000", "--store", corpus_store)
    assert code == 0, err
    assert server.graphs == {DEFAULT: pushed[0]}
    assert PASSWORD not in out + err


def test_digest_with_a_body_larger_than_the_socket_buffers(serve, monkeypatch):
    """The server refuses the unsigned first try before reading the 16 MB body and hangs up: kg must read its 401 and sign."""
    server = serve(auth="digest")
    monkeypatch.setenv("KG_ENDPOINT_USER", USER)
    monkeypatch.setenv("KG_ENDPOINT_PASSWORD", PASSWORD)
    report = push(big_store(16), server.url())
    assert report.chunks == 1 and len(server.graphs[DEFAULT]) == 16 * 256


@pytest.mark.parametrize(
    ("refuse", "credentials", "expected"),
    [
        (
            401,
            False,
            "the endpoint asks for credentials (HTTP 401); set KG_ENDPOINT_USER and KG_ENDPOINT_PASSWORD, or a ~/.netrc entry for 127.0.0.1",
        ),
        (401, True, "the endpoint refused the credentials (HTTP 401)"),
        (403, True, "the endpoint forbids this request (HTTP 403)"),
    ],
)
def test_refusals_are_reported_plainly_not_as_a_broken_pipe(serve, monkeypatch, refuse, credentials, expected):
    server = serve(refuse=refuse)
    if credentials:
        monkeypatch.setenv("KG_ENDPOINT_USER", USER)
        monkeypatch.setenv("KG_ENDPOINT_PASSWORD", PASSWORD)
    with pytest.raises(RemoteError, match=re.escape(expected)) as caught:
        push(big_store(16), server.url())
    assert "the remote graph is unchanged" in str(caught.value) and "pipe" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://alice:S3cretPW@host:8/store?token=abc", "http://***@host:8/store?***"),
        ("https://host/store?graph=http%3A%2F%2Fe%2Fg&key=abc", "https://host/store?***&graph=http%3A%2F%2Fe%2Fg"),
        ("http://host/store?default", "http://host/store?default"),
        ("http://alice:pa/ss@host/store", "<a malformed URL>"),  # "pa" would be read as the port
    ],
)
def test_redact(url, shown):
    from kg.query.http import redact

    assert redact(url) == shown
