"""The persistent graph store: an Oxigraph (RocksDB) folder, the same on-disk
format the ``oxigraph`` server opens, so a built store can be served as it is.

Writes never touch the live store: a build fills a new folder beside it and
swaps it in with renames once it is complete, under an exclusive lock, so a
failed or interrupted build leaves the previous graph exactly as it was.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pyoxigraph import Quad, Store

from kg.errors import StoreError

__all__ = ["DEFAULT_STORE", "Edit", "open_store", "store_lock", "update_store", "write_store"]

#: Where ``kg build`` puts the store when no ``--store`` is given.
DEFAULT_STORE = Path(".kg") / "store"


def _sibling(path: Path, suffix: str) -> Path:
    return path.with_name(f".{path.name}.{suffix}")


def _recover(path: Path) -> None:
    """Finish a swap that was interrupted between its two renames (call it
    holding the store's lock)."""
    old = _sibling(path, "old")
    if not path.exists() and old.exists():
        old.rename(path)


def open_store(path: str | Path = DEFAULT_STORE) -> Store:
    """Open a built store for reading."""
    path = Path(path)
    if not path.exists() and _sibling(path, "old").exists():
        # A build was killed between its two renames, or one is between them
        # right now: wait for the lock, so as not to undo a swap in progress.
        try:
            with store_lock(path, wait=True):
                _recover(path)
        except StoreError:
            pass  # no lock to be had (a read-only folder): open what is there
    if not path.is_dir():
        raise StoreError(f"{path}: no graph store here; build one with `kg build` (or pass --store)")
    try:
        return Store.read_only(str(path))
    except OSError as exc:
        raise StoreError(f"{path}: cannot open the graph store ({exc})") from exc


@contextmanager
def store_lock(path: Path, wait: bool = False) -> Iterator[None]:
    """Hold the store's write lock; a second writer is refused, not queued
    (unless ``wait``)."""
    lock = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock, "w")
    except OSError as exc:
        raise StoreError(f"{path}: cannot create a store here ({exc.strerror or exc}); choose another --store") from exc
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError as exc:
            raise StoreError(f"{path}: another kg command is writing this store; wait for it to finish") from exc
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_store(quads: Iterable[Quad], path: str | Path = DEFAULT_STORE, finish: Callable[[Path], None] | None = None) -> None:
    """Write ``quads`` into a new store that replaces the one at ``path`` once
    complete; if anything fails on the way, the new store is discarded.
    ``finish(folder)`` may add files to the new store's folder before the swap."""

    def fill(new: Path) -> None:
        _fill(new, quads)
        if finish is not None:
            finish(new)

    path = Path(path)
    with store_lock(path):
        _recover(path)
        if path.exists() and not path.is_dir():
            raise StoreError(f"{path}: exists and is not a graph store folder; choose another --store")
        _replace(path, fill)


#: What :func:`update_store`'s edit function gets: a writable copy of the store, and the copy's folder.
Edit = Callable[[Store, Path], None]


def update_store(path: str | Path, plan: Callable[[Path], Edit | None]) -> bool:
    """Change the store at ``path`` instead of rebuilding it, under its lock.

    ``plan(path)`` looks at the live store and returns None when it cannot
    say how to change it, or a function that edits a copy of it (a
    checkpoint: hard links, cheap); the copy replaces the live store once
    that function returns, so a failure leaves the live store as it was.
    Returns whether it changed the store.
    """
    path = Path(path)
    with store_lock(path):
        _recover(path)
        if not path.is_dir():
            return False
        edit = plan(path)
        if edit is None:
            return False

        def fill(new: Path) -> None:
            Store.read_only(str(path)).backup(str(new))
            store = Store(str(new))
            edit(store, new)
            store.flush()

        _replace(path, fill)
        return True


def _replace(path: Path, fill: Callable[[Path], None]) -> None:
    """Fill a new folder beside ``path`` and swap it in (call it holding the lock)."""
    new, old = _sibling(path, "new"), _sibling(path, "old")
    shutil.rmtree(new, ignore_errors=True)  # left by a build that was killed
    try:
        fill(new)
        if path.exists():
            shutil.rmtree(old, ignore_errors=True)
            os.rename(path, old)
        os.rename(new, path)
    except OSError as exc:
        shutil.rmtree(new, ignore_errors=True)
        _recover(path)
        raise StoreError(f"{path}: cannot write the new store ({exc.strerror or exc}); the previous one is unchanged") from exc
    except BaseException:  # Ctrl-C, a failing stage: nothing moved yet, or the swap is undone
        shutil.rmtree(new, ignore_errors=True)
        _recover(path)
        raise
    shutil.rmtree(old, ignore_errors=True)


#: Quads per bulk load. Oxigraph's bulk loader buffers up to ~2 GB per thread
#: before it writes; one load per chunk keeps the build's memory flat as the
#: graph grows (1M triples: +170 MiB instead of +850 MiB) and is no slower.
WRITE_CHUNK = 200_000


def _fill(folder: Path, quads: Iterable[Quad]) -> None:
    store = Store(str(folder))
    stream = iter(quads)
    while chunk := list(itertools.islice(stream, WRITE_CHUNK)):
        store.bulk_extend(chunk)
    store.flush()
    store.optimize()
    # The store closes when its last reference goes, here, before its folder moves.
