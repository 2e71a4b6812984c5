"""The HTTP front of ``kg serve``: what a client sends, checked before Oxigraph sees it.

The Oxigraph server has no switch to refuse ``SERVICE`` (it would open a
connection for any client), its parser overflows the stack on deep nesting
(one request ends the server), and its ``--timeout-s`` neither stops a
streaming answer nor changes a status already sent. So ``kg serve`` binds the
public address with this small standard-library server, which implements the
SPARQL 1.1 Protocol's side of the exchange:

* every ``query`` and ``update`` text, in the URL or the body, passes
  :func:`kg.query.guard.check_query` or gets 400;
* a query or update body is bounded (413) before it is read;
* read-only, updates and Graph Store writes get 403 without reaching Oxigraph;
* what passes goes to the Oxigraph server on a private 127.0.0.1 port, with
  the client's Host, Accept and Content-Type, and its status, Content-Type and
  body come back (so the YASGUI page at ``/`` works as before);
* the answer is held until it is complete or past :data:`HOLD_BYTES`, so a
  query still silent when its time is up gets 503, and one still streaming
  is cut (chunked, so the client sees it incomplete), never passed as whole.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import socketserver
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from kg.errors import QueryError
from kg.query.guard import MAX_QUERY_CHARS, check_query

__all__ = ["HOLD_BYTES", "MAX_BODY", "MAX_CLIENTS", "Front"]

#: Largest query or update body read, in bytes: a longest query percent-encoded.
MAX_BODY = 4 * MAX_QUERY_CHARS
#: An answer this long is streamed on instead of held for its status.
HOLD_BYTES = 1 << 20
#: Connections served at once (a thread each); one more is answered 503 at once.
MAX_CLIENTS = 64

_FORM = "application/x-www-form-urlencoded"
_SPARQL_BODY = {"/query": ("query", "application/sparql-query"), "/update": ("update", "application/sparql-update")}
_PASSED_BACK = ("Content-Type", "Content-Disposition", "Location", "Allow")


class _Refused(Exception):
    """A request answered by the front itself: an HTTP status and a one-line reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


class Front(ThreadingHTTPServer):
    """Binds ``address`` at once (an ``OSError`` if it cannot); forwards to ``backend_port``.

    ``check_backend`` runs between requests (every half second) and may raise
    to stop :meth:`serve_forever`.
    """

    daemon_threads = True

    def __init__(self, address: tuple[str, int], family: int, writable: bool, timeout: float) -> None:
        self.address_family = family
        self.writable = writable
        self.timeout_s = timeout
        self.backend_port = 0
        self.check_backend = lambda: None
        self._slots = threading.BoundedSemaphore(MAX_CLIENTS)
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer's own asks the resolver for the host's full name: a network lookup, and unneeded.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]  # (host, port), for AF_INET and AF_INET6 alike
        self.server_name, self.server_port = str(host), int(port)

    def service_actions(self) -> None:
        self.check_backend()

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    b"Content-Length: 18\r\nConnection: close\r\n\r\ntoo many clients.\n"
                )
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address) -> None:
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):  # a client that went away is no news; anything else is a bug
            print(f"kg: warning: a request from {client_address[0]} failed: {type(error).__name__}: {error}", file=sys.stderr)


class _Handler(BaseHTTPRequestHandler):
    server: Front
    server_version, sys_version = "kg-serve", ""
    protocol_version = "HTTP/1.1"  # for chunked answers, whose end a client can tell from a cut
    error_content_type = "text/plain; charset=utf-8"
    error_message_format = "%(message)s\n"

    def setup(self) -> None:
        # The stubs call it a ClassVar; socketserver reads it from the instance in setup().
        self.timeout = self.server.timeout_s  # type: ignore[misc]  # a client silent this long is dropped
        super().setup()

    def log_message(self, format, *args) -> None:
        pass  # like the Oxigraph server: no line per request

    def do_GET(self) -> None:
        self._answer(self._get)

    do_HEAD = do_GET

    def do_POST(self) -> None:
        self._answer(self._post)

    def do_PUT(self) -> None:
        self._answer(self._store_write)

    def do_DELETE(self) -> None:
        self._answer(self._store_write)

    # -- what a request may be ----------------------------------------------

    def _answer(self, handle) -> None:
        try:
            handle()
        except _Refused as refusal:
            self._refuse(refusal.status, str(refusal))

    def _target(self) -> tuple[str, str]:
        """The request's path and query string, with every SPARQL text in the latter checked."""
        if "#" in self.path:  # servers disagree on whether a fragment is part of the query string
            raise _Refused(400, "a request target may not hold a fragment (#)")
        path, _, query = self.path.partition("?")
        _check_form(query, "query", "update")
        return path, query

    def _get(self) -> None:
        self._target()
        self._forward()

    def _post(self) -> None:
        path, _ = self._target()
        if path.startswith("/store"):
            return self._store_write()
        if path not in _SPARQL_BODY:
            raise _Refused(405, f"POST {path} is not supported: queries go to /query, updates to /update")
        if path == "/update" and not self.server.writable:
            raise _Refused(403, "the server is read-only (start it with `kg serve --writable` to accept updates)")
        name, media_type = _SPARQL_BODY[path]
        content_type = _media_type(self.headers.get("Content-Type"))
        if content_type not in (media_type, _FORM):
            raise _Refused(415, f"send the {name} as {media_type} or {_FORM}, not {content_type or 'no Content-Type'}")
        length = self._length()
        if length > MAX_BODY:
            raise _Refused(413, f"request body of {length:,} bytes refused: at most {MAX_BODY:,}")
        body = self.rfile.read(length)
        text = _utf8(body)
        if content_type == _FORM:
            _check_form(text, "query", "update")
        else:
            _check(text)
        self._forward([body], len(body))

    def _store_write(self) -> None:
        path, _ = self._target()
        if not path.startswith("/store"):
            raise _Refused(405, f"{self.command} {path} is not supported: Graph Store writes go to /store")
        if not self.server.writable:
            raise _Refused(403, "the server is read-only (start it with `kg serve --writable` to accept Graph Store writes)")
        if self.command == "DELETE":
            return self._forward()
        # Graph data is not checked, only passed on: streamed, so its size costs no memory.
        length = self._length()
        self._forward(_read(self.rfile, length), length)

    def _length(self) -> int:
        if "Transfer-Encoding" in self.headers:
            raise _Refused(411, "send the body with a Content-Length, not chunked")
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise _Refused(400, "Content-Length is not a number") from None
        if length < 0:
            raise _Refused(400, "Content-Length is negative")
        return length

    # -- forwarding -----------------------------------------------------------

    def _forward(self, body: Iterable[bytes] = (), length: int | None = None) -> None:
        """Send the request on to Oxigraph and its answer back, within the time limit."""
        connection = http.client.HTTPConnection("127.0.0.1", self.server.backend_port, timeout=self.server.timeout_s)
        deadline = time.monotonic() + self.server.timeout_s
        try:
            try:
                connection.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                # Oxigraph makes relative IRIs (and new graphs' names) from the Host the client used.
                connection.putheader("Host", self.headers.get("Host") or f"{self.server.server_name}:{self.server.server_port}")
                for name in ("Accept", "Content-Type"):
                    if self.headers.get(name):
                        connection.putheader(name, self.headers[name])
                if length is not None:
                    connection.putheader("Content-Length", str(length))
                connection.endheaders()
                for block in body:
                    connection.send(block)
            except ValueError as exc:  # a header value http.client will not send (a line break in it)
                raise _Refused(400, f"bad request header: {exc}") from None
            except OSError:
                raise _Refused(502, "the Oxigraph server behind kg serve did not answer") from None
            sock = connection.sock  # kept: http.client lets go of it once the answer says it closes
            try:
                sock.settimeout(_left(deadline))
                response = connection.getresponse()
                held, complete = _hold(response, sock, deadline)
            except TimeoutError:
                raise _Refused(503, f"the request ran over kg serve's limit of {self.server.timeout_s:g} s (--timeout)") from None
            except (OSError, http.client.HTTPException):
                raise _Refused(502, "the Oxigraph server behind kg serve did not answer") from None
            self._pass_back(response, sock, deadline, held, complete)
        finally:
            connection.close()

    def _pass_back(self, response: http.client.HTTPResponse, sock: socket.socket, deadline: float, held: bytes, complete: bool) -> None:
        self.send_response(response.status)
        for name in _PASSED_BACK:
            if value := response.getheader(name):
                self.send_header(name, value)
        chunked = not complete and self.request_version != "HTTP/1.0"
        if complete and self.command != "HEAD" and response.status not in (204, 304):
            self.send_header("Content-Length", str(len(held)))
        elif self.command == "HEAD" and (length := response.getheader("Content-Length")):
            self.send_header("Content-Length", length)
        elif chunked:
            self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        if complete:
            self.wfile.write(held)
            return
        write = (lambda data: self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))) if chunked else self.wfile.write
        write(held)
        try:
            while data := _read_by(response, sock, deadline):
                write(data)
        except (TimeoutError, OSError, http.client.HTTPException):
            return  # past the limit, or Oxigraph failed: cut, without the last chunk, so the client sees it
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    def _refuse(self, status: int, reason: str) -> None:
        body = (reason + "\n").encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def _check(text: str) -> None:
    try:
        check_query(text)
    except QueryError as exc:
        raise _Refused(400, str(exc)) from None


def _check_form(encoded: str, *names: str) -> None:
    """Check each named field of a form (or URL query string) as Oxigraph will decode it."""
    try:
        fields = urllib.parse.parse_qsl(encoded, keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        raise _Refused(400, "a form field is not UTF-8 once decoded") from None
    for name, value in fields:
        if name in names:
            _check(value)


def _utf8(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise _Refused(400, "the request body is not UTF-8") from None


def _media_type(header: str | None) -> str:
    """The media type of a Content-Type, as Oxigraph reads it: parameters dropped, lower case."""
    return (header or "").partition(";")[0].strip().lower()


def _read(stream, length: int, block: int = 1 << 16) -> Iterator[bytes]:
    while length > 0:
        data = stream.read(min(block, length))
        if not data:
            return
        length -= len(data)
        yield data


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _read_by(response: http.client.HTTPResponse, sock: socket.socket, deadline: float) -> bytes:
    sock.settimeout(_left(deadline))
    return response.read1(1 << 16)


def _hold(response: http.client.HTTPResponse, sock: socket.socket, deadline: float) -> tuple[bytes, bool]:
    """Read the answer until it ends (True) or passes :data:`HOLD_BYTES` (False)."""
    held = bytearray()
    while len(held) < HOLD_BYTES:
        data = _read_by(response, sock, deadline)
        if not data:
            return bytes(held), True
        held += data
    return bytes(held), False
