"""HTTP to remote SPARQL services.

Credentials, first found wins: the user name and password in the URL
(``http://user:password@host/...``), ``KG_ENDPOINT_USER`` and
``KG_ENDPOINT_PASSWORD``, or a ``machine`` entry of ``~/.netrc`` (or
``$NETRC``) for the endpoint's host. They go out as HTTP Basic, or as Digest
when the server asks for it. Every URL kg prints passes through
:func:`redact` first, so no password or token (often in the query string)
reaches the terminal or a log.
"""

from __future__ import annotations

import http.client
import netrc
import os
import ssl
import urllib.error
import urllib.parse
import urllib.request

from kg.errors import KgError

__all__ = ["RemoteError", "check_url", "redact", "request"]

TIMEOUT_S = 120
HIDDEN = "***"
PUBLIC_PARAMETERS = {"default", "graph"}


class RemoteError(KgError):
    """A remote endpoint refused a request or could not be reached.

    ``status`` is the HTTP status when the endpoint answered; ``timed_out``
    says kg stopped waiting, so the endpoint may still have done the request.
    """

    def __init__(self, message: str, status: int | None = None, timed_out: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.timed_out = timed_out


def redact(url: str) -> str:
    """``url`` fit to print: user name, password and query string (where tokens ride) hidden,
    but for the Graph Store Protocol's own ``default`` and ``graph``, which name a graph."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - a "port" that is not a number may be half a password
    except ValueError:
        return "<a malformed URL>"
    _, at, host = parts.netloc.rpartition("@")
    shown = [p for p in parts.query.split("&") if urllib.parse.unquote_plus(p.partition("=")[0]) in PUBLIC_PARAMETERS]
    if len(shown) < len([p for p in parts.query.split("&") if p]):
        shown.insert(0, HIDDEN)
    return urllib.parse.urlunsplit((parts.scheme, f"{HIDDEN}@{host}" if at else host, parts.path, "&".join(shown), ""))


def _secrets(url: str) -> list[str]:
    """What :func:`redact` hides in ``url``, raw and decoded, longest first: to scrub it from a server's words."""
    parts = urllib.parse.urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    hidden = [value for name, value in urllib.parse.parse_qsl(parts.query) if name not in PUBLIC_PARAMETERS]
    found = {userinfo, *userinfo.split(":", 1), *hidden}
    found |= {urllib.parse.unquote(s) for s in found}
    return sorted((s for s in found if len(s) > 2), key=len, reverse=True)


def _credentials(url: str) -> tuple[str, str] | None:
    parts = urllib.parse.urlsplit(url)
    if parts.username is not None:
        return urllib.parse.unquote(parts.username), urllib.parse.unquote(parts.password or "")
    user, password = os.environ.get("KG_ENDPOINT_USER"), os.environ.get("KG_ENDPOINT_PASSWORD")
    if user is not None and password is not None:
        return user, password
    try:
        entry = netrc.netrc(os.environ.get("NETRC")).authenticators(parts.hostname or "")
    except (FileNotFoundError, netrc.NetrcParseError, OSError):
        return None
    return (entry[0], entry[2]) if entry else None


class _HearsEarlyAnswers(http.client.HTTPConnection):
    """A server refusing a request (a 401 for Digest's first, unsigned try)
    may answer and hang up before the body is sent; stop sending then, so the
    answer is read (and Digest retries) instead of a broken pipe reported."""

    def send(self, data) -> None:
        try:
            super().send(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # getresponse() reads the answer, or says there was none


class _HTTPConnection(_HearsEarlyAnswers, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_HearsEarlyAnswers, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(_HTTPConnection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req):
        return self.do_open(_HTTPSConnection, req, context=ssl.create_default_context())


def _opener(origin: str, credentials: tuple[str, str] | None) -> urllib.request.OpenerDirector:
    handlers: list[urllib.request.BaseHandler] = [_HTTPHandler(), _HTTPSHandler()]
    if credentials:
        # Basic goes with the first request (servers that take it never ask);
        # Digest answers the server's challenge.
        passwords = urllib.request.HTTPPasswordMgrWithPriorAuth()
        passwords.add_password(None, origin, *credentials, is_authenticated=True)
        handlers += [urllib.request.HTTPBasicAuthHandler(passwords), urllib.request.HTTPDigestAuthHandler(passwords)]
    return urllib.request.build_opener(*handlers)


def _refusal(code: int, parts: urllib.parse.SplitResult, credentials: bool) -> str:
    where = f"KG_ENDPOINT_USER and KG_ENDPOINT_PASSWORD, or a ~/.netrc entry for {parts.hostname}"
    if parts.username is not None:
        where = "the user name and password in the URL"
    if code == 401 and credentials:
        return f"the endpoint refused the credentials (HTTP 401); check {where}"
    if code == 401:
        return f"the endpoint asks for credentials (HTTP 401); set {where}"
    return f"the endpoint forbids this request (HTTP 403); it needs credentials allowed to do it ({where})"


def _body(error: urllib.error.HTTPError) -> bytes:
    """The start of an error answer's body, or nothing where it cannot be read (Digest's own errors have none)."""
    try:
        return error.read(4096) if getattr(error, "fp", None) else b""
    except (OSError, http.client.HTTPException):
        return b""


def _printable(text: str, url: str) -> str:
    for secret in _secrets(url):
        text = text.replace(secret, HIDDEN)
    return "".join(c if c.isprintable() else "?" for c in text)


def check_url(url: str) -> urllib.parse.SplitResult:
    """``url``'s parts, if kg can send a request there; else a :class:`RemoteError` saying why."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        raise RemoteError(f"{redact(url)}: not a valid URL") from exc
    if any(c.isspace() or not c.isprintable() for c in url):
        raise RemoteError(f"{redact(url)}: not a valid URL (spaces and control characters must be %-encoded)")
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise RemoteError(f"{redact(url)}: not an http(s) URL")
    return parts


def request(
    url: str, method: str = "GET", data: bytes | None = None, headers: dict[str, str] | None = None, *, timeout: float = TIMEOUT_S
) -> bytes:
    """Send one request; a failure is a :class:`RemoteError` naming the endpoint (redacted) and the reason."""
    parts = check_url(url)
    credentials = _credentials(url)
    host = parts.netloc.rpartition("@")[2]
    plain = urllib.parse.urlunsplit(parts._replace(netloc=host))  # the password goes in a header, not the URL
    shown = f"{method} {redact(url)}"
    try:
        with _opener(f"{parts.scheme}://{host}", credentials).open(
            urllib.request.Request(plain, data=data, method=method, headers=headers or {}), timeout=timeout
        ) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        if exc.code in {401, 403}:
            raise RemoteError(f"{shown}: {_refusal(exc.code, parts, credentials is not None)}", exc.code) from exc
        detail = _body(exc).decode("utf-8", "replace").strip().splitlines()
        reason = _printable(detail[0][:200] if detail else str(exc.reason), url)
        raise RemoteError(f"{shown}: HTTP {exc.code} ({reason})", exc.code) from exc
    except ValueError as exc:  # urllib's Digest handler, on a challenge in a scheme it does not know
        raise RemoteError(
            f"{shown}: the endpoint asks for an authentication scheme kg does not speak (HTTP 401; kg speaks Basic and Digest)", 401
        ) from exc
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        cause = getattr(exc, "reason", exc)  # URLError wraps the OSError (or its message)
        timed_out = isinstance(cause, TimeoutError)
        what = f"no answer within {timeout:g} s" if timed_out else f"cannot reach the endpoint ({_printable(str(cause), url)})"
        raise RemoteError(f"{shown}: {what}", timed_out=timed_out) from exc
