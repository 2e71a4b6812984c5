"""``kg serve``: the store over the SPARQL 1.1 Protocol, by the Oxigraph server.

The server is the ``oxigraph`` program from PyPI (which embeds the YASGUI
query page at ``/``), run on the store folder as it is: RocksDB, the format
``kg build`` writes. Read-only and bound to 127.0.0.1 unless asked otherwise;
a writable server holds the store's write lock, so no build swaps the store
under it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from kg.errors import KgError
from kg.graph.store import open_store, store_lock

__all__ = ["ServeError", "server_program", "serve"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7878


class ServeError(KgError):
    """The SPARQL server cannot start."""


def server_program() -> str:
    """The ``oxigraph`` launcher, looked up beside this Python first (where pip puts it)."""
    found = shutil.which("oxigraph", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    if found is None:
        raise ServeError("the Oxigraph server is not installed; run `pip install -e .` (it installs the `oxigraph` package)")
    return found


def serve(store: Path, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, writable: bool = False, announce: Callable[[str], None] = print) -> int:
    """Run the server until it stops or Ctrl-C; return its exit status (0 after Ctrl-C)."""
    store = Path(store)
    open_store(store)  # a clear error for a missing store, before the server starts
    mode = "serve" if writable else "serve-read-only"
    command = [server_program(), mode, "--location", str(store), "--bind", f"{host}:{port}"]
    with store_lock(store) if writable else contextlib.nullcontext():
        server = subprocess.Popen(command, stdin=subprocess.DEVNULL)
        shown = f"[{host}]" if ":" in host else host
        announce(
            f"Serving {store} {'read-write' if writable else 'read-only'} at http://{shown}:{port}/ "
            f"(SPARQL endpoint http://{shown}:{port}/query); Ctrl-C stops"
        )
        try:
            return server.wait()
        except KeyboardInterrupt:
            server.terminate()
            server.wait(timeout=10)
            announce("Stopped.")
            return 0
