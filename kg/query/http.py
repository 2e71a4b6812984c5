"""HTTP to remote SPARQL services, with credentials from the environment or
~/.netrc (never from the command line, where other users' `ps` would see them).

``KG_ENDPOINT_USER`` and ``KG_ENDPOINT_PASSWORD`` give HTTP Basic
credentials for any endpoint; otherwise a ``machine`` entry of ``~/.netrc``
(or ``$NETRC``) for the endpoint's host does.
"""

from __future__ import annotations

import base64
import netrc
import os
import urllib.error
import urllib.parse
import urllib.request

from kg.errors import KgError

__all__ = ["RemoteError", "request"]

TIMEOUT_S = 120


class RemoteError(KgError):
    """A remote endpoint refused a request or could not be reached."""


def _credentials(url: str) -> tuple[str, str] | None:
    user, password = os.environ.get("KG_ENDPOINT_USER"), os.environ.get("KG_ENDPOINT_PASSWORD")
    if user is not None and password is not None:
        return user, password
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        entry = netrc.netrc(os.environ.get("NETRC")).authenticators(host)
    except (FileNotFoundError, netrc.NetrcParseError, OSError):
        return None
    return (entry[0], entry[2]) if entry else None


def request(url: str, method: str = "GET", data: bytes | None = None, headers: dict[str, str] | None = None) -> bytes:
    """Send one request; a failure is a :class:`RemoteError` naming the endpoint and the reason."""
    if urllib.parse.urlsplit(url).scheme not in {"http", "https"}:
        raise RemoteError(f"{url}: not an http(s) URL")
    headers = dict(headers or {})
    credentials = _credentials(url)
    if credentials:
        token = base64.b64encode(f"{credentials[0]}:{credentials[1]}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {token}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers), timeout=TIMEOUT_S) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", "replace").strip().splitlines()
        reason = detail[0][:200] if detail else exc.reason
        raise RemoteError(f"{method} {url.split('?')[0]}: HTTP {exc.code} ({reason})") from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise RemoteError(f"{url.split('?')[0]}: cannot reach the endpoint ({reason})") from exc
