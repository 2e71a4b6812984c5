"""``kg serve``: the store over the SPARQL 1.1 Protocol, by the Oxigraph server.

The server is the ``oxigraph`` program from PyPI (which embeds the YASGUI
query page at ``/``), run on the store folder as it is: RocksDB, the format
``kg build`` writes. It listens on a private 127.0.0.1 port only; the address
clients use belongs to kg's front (:mod:`kg.query.front`), which refuses what
Oxigraph cannot be told to refuse (SERVICE, deep nesting, oversized bodies,
writes when read-only) and bounds each request's time. Read-only and bound to
127.0.0.1 unless asked otherwise; a writable server holds the store's write
lock, so no build swaps the store under it.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kg.errors import KgError
from kg.graph.store import open_store, store_lock
from kg.query.front import Front

__all__ = ["DEFAULT_TIMEOUT", "ServeError", "serve", "server_program"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7878
#: Seconds a request may take: long for any query of the library, short for a runaway.
DEFAULT_TIMEOUT = 60
#: Seconds the Oxigraph server may take to open the store and listen.
STARTUP_SECONDS = 60


class ServeError(KgError):
    """The SPARQL server cannot start, or stopped."""


def server_program() -> str:
    """The ``oxigraph`` launcher, looked up beside this Python first (where pip puts it)."""
    found = shutil.which("oxigraph", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    if found is None:
        raise ServeError("the Oxigraph server is not installed; run `pip install -e .` (it installs the `oxigraph` package)")
    return found


def serve(
    store: Path,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    writable: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve until Ctrl-C or SIGTERM (then announce "Stopped."); :class:`ServeError` if it cannot start or stops."""
    store = Path(store)
    open_store(store)  # a clear error for a missing store, before anything starts
    # The front binds first, so a busy port is said before anything starts.
    with (
        store_lock(store) if writable else contextlib.nullcontext(),
        _bind(host, port, writable, timeout) as front,
        _backend(store, writable, timeout) as (backend_port, check),
    ):
        front.backend_port, front.check_backend = backend_port, check
        shown = f"[{host}]" if ":" in host else host
        announce(
            f"Serving {store} {'read-write' if writable else 'read-only'} at http://{shown}:{port}/ "
            f"(SPARQL endpoint http://{shown}:{port}/query); Ctrl-C stops"
        )
        with _hangup_stops():
            try:
                front.serve_forever()
            except KeyboardInterrupt:
                announce("Stopped.")


def _bind(host: str, port: int, writable: bool, timeout: float) -> Front:
    """The front, listening on ``host:port`` already."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as exc:
        raise ServeError(f"cannot serve on host {host!r}: {exc.strerror}") from None
    try:
        return Front((host, port), family, writable, timeout)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(f"port {port} is in use (choose another with --port)") from None
        if exc.errno == errno.EACCES:
            raise ServeError(f"port {port} needs privileges kg does not have (choose one above 1023 with --port)") from None
        raise ServeError(f"cannot serve on {host} port {port}: {exc.strerror}") from None


@contextlib.contextmanager
def _backend(store: Path, writable: bool, timeout: float):
    """The Oxigraph server on a free private port, until the block ends; yields the port and a liveness check."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        server_program(),
        "serve" if writable else "serve-read-only",
        "--location",
        str(store),
        "--bind",
        f"127.0.0.1:{port}",
        # A second after the front gives up (Oxigraph counts whole seconds): the front answers, Oxigraph stops the work.
        "--timeout-s",
        str(math.ceil(timeout) + 1),
    ]
    with tempfile.TemporaryFile() as log:
        # Its own session: a terminal's Ctrl-C reaches kg alone, which stops it once the front is closed.
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)

        def check() -> None:
            if process.poll() is not None:
                raise ServeError(f"the Oxigraph server stopped: {_reason(log, process.returncode)}")

        try:
            deadline = time.monotonic() + STARTUP_SECONDS
            while not _answers(port):
                if process.poll() is not None:
                    raise ServeError(f"the Oxigraph server did not start: {_reason(log, process.returncode)}")
                if time.monotonic() > deadline:
                    raise ServeError(f"the Oxigraph server did not start within {STARTUP_SECONDS} s")
                time.sleep(0.05)
            yield port, check
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def _reason(log, status: int) -> str:
    """Oxigraph's own error line (``Error: ...``, before its backtrace), else its exit status."""
    log.seek(0)
    lines = [line.strip() for line in log.read().decode("utf-8", "replace").splitlines() if line.strip()]
    for line in lines:
        if line.startswith("Error:"):
            return line.removeprefix("Error:").strip()
    return f"killed by {signal.Signals(-status).name}" if status < 0 else f"exit status {status}"


@contextlib.contextmanager
def _hangup_stops():
    """While serving, SIGTERM and a closed terminal (SIGHUP) stop the server as Ctrl-C does."""
    previous = {signum: signal.signal(signum, signal.default_int_handler) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
