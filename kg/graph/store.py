"""The persistent graph store: an Oxigraph (RocksDB) folder, the same on-disk
format the ``oxigraph`` server opens, so a built store can be served as it is.

Writes never touch the live store: a build fills a new folder beside it and
swaps it in with renames once it is complete, under an exclusive lock, so a
failed or interrupted build leaves the previous graph exactly as it was.

kg replaces only folders it can prove it wrote: every store it builds holds a
marker file (:data:`MARKER`), and so does the staging folder a build fills
(``.NAME.new``). A ``--store`` that holds anything else (a thesis, the corpus,
an Oxigraph database kg did not build) is refused before anything is written;
so is anything of someone else's in the way of the swap. A ``--store`` that is
a symbolic link keeps pointing where it pointed: the folder it points to is
the one swapped, beside itself.

Every store kg builds holds its ontology (``ontology/kg.ttl``) in the default
graph beside the data, so a query can follow ``rdfs:subClassOf`` (``?c
a/rdfs:subClassOf* kg:Concept``) and every export validates against
``ontology/shapes.ttl`` on its own. An incremental build copies the store,
ontology and all.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import shutil
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pyoxigraph import Quad, Store

from kg.errors import KgWarning, StoreError
from kg.interrupts import held
from kg.vocab import ontology_quads

__all__ = [
    "DEFAULT_STORE",
    "MARKER",
    "STATE_FILE",
    "Edit",
    "Finish",
    "open_store",
    "store_lock",
    "store_target",
    "update_store",
    "write_store",
]

#: Where ``kg build`` puts the store when no ``--store`` is given.
DEFAULT_STORE = Path(".kg") / "store"
#: The file that marks a folder as written by kg (Oxigraph ignores files it does not own).
MARKER = "kg-store"
#: The build state's file name (:mod:`kg.graph.state`). A store that kg built before
#: there was a marker has it, and counts as kg's: the next build adds the marker.
STATE_FILE = "kg-build.sqlite"
_MARKER_TEXT = "This folder was written by kg (`kg build`): a graph store, or one being built. kg replaces it on the next build.\n"

#: What a build may do with the complete new store folder before the swap. It may
#: return a function that is run with the swap, all or nothing with it (``kg build``
#: puts its page in place this way).
Finish = Callable[[Path], Callable[[], None] | None]


def _sibling(path: Path, suffix: str) -> Path:
    return path.with_name(f".{path.name}.{suffix}")


def _real(path: str | Path) -> Path:
    # A symlink's target: the link itself is never moved or replaced.
    return Path(os.path.realpath(path))


def _kg_made(folder: Path) -> bool:
    """Whether kg provably wrote ``folder``: it holds the marker (or, built before there was one, the build state)."""
    return folder.is_dir() and not folder.is_symlink() and ((folder / MARKER).is_file() or (folder / STATE_FILE).is_file())


def _mark(folder: Path) -> None:
    (folder / MARKER).write_text(_MARKER_TEXT, encoding="utf-8")


def store_target(path: str | Path) -> Path:
    """The folder a build of ``path`` writes (a symlink's target), once it is
    sure it may: nothing there yet, an empty folder, or a store kg wrote.
    Anything else is a :class:`StoreError` that says why, and nothing is touched."""
    real = _real(path)
    if real.is_symlink():  # realpath stops at a loop
        raise StoreError(f"{path}: is a symbolic link that leads nowhere (a loop); choose another --store")
    if real == real.parent:
        raise StoreError(f"{path}: the root folder cannot be a graph store; choose a folder of its own for --store")
    here = Path.cwd().resolve()
    if real == here or real in here.parents:
        raise StoreError(f"{path}: is the working directory (or holds it); choose a folder of its own for --store")
    try:
        if real.exists() and not real.is_dir():
            raise StoreError(f"{path}: exists and is not a graph store folder; choose another --store")
        if real.is_dir() and not _kg_made(real) and any(real.iterdir()):
            raise StoreError(
                f"{path}: is not a graph store kg built (it has no {MARKER} file), so kg will not replace what is in it; "
                "choose another --store, or empty the folder yourself"
            )
    except OSError as exc:
        raise StoreError(f"{path}: cannot look into it ({exc.strerror or exc}); choose another --store") from exc
    return real


def _recover(path: Path) -> None:
    """Finish a swap that was interrupted between its two renames (call it
    holding the store's lock)."""
    old = _sibling(path, "old")
    if not path.exists() and _kg_made(old):
        old.rename(path)


def open_store(path: str | Path = DEFAULT_STORE) -> Store:
    """Open a built store for reading."""
    real = _real(path)
    if not real.exists() and _sibling(real, "old").exists():
        # A build was killed between its two renames, or one is between them
        # right now: wait for the lock, so as not to undo a swap in progress.
        try:
            with store_lock(real, wait=True):
                _recover(real)
        except StoreError:
            pass  # no lock to be had (a read-only folder): open what is there
    # Every Oxigraph (RocksDB) folder has a CURRENT file: without one, there is no store to open.
    if not (real / "CURRENT").is_file():
        raise StoreError(f"{path}: no graph store here; build one with `kg build` (or pass --store)")
    try:
        return Store.read_only(str(real))
    except OSError as exc:
        raise StoreError(f"{path}: cannot open the graph store ({exc})") from exc
    except RuntimeError as exc:  # RocksDB's "Corruption: ...", e.g. a truncated .sst file
        raise StoreError(f"{path}: the graph store is damaged and cannot be read ({exc}); build it again with `kg build`") from exc


@contextmanager
def store_lock(path: str | Path, wait: bool = False) -> Iterator[None]:
    """Hold the store's write lock; a second writer is refused, not queued
    (unless ``wait``)."""
    real = _real(path)
    lock = real.with_name(real.name + ".lock")
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        # Neither truncated nor ever removed: a file of that name that kg did not write stays as it was.
        handle = os.open(lock, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StoreError(f"{path}: cannot create a store here ({exc.strerror or exc}); choose another --store") from exc
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError as exc:
            raise StoreError(f"{path}: another kg command is writing this store; wait for it to finish") from exc
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)


def write_store(quads: Iterable[Quad], path: str | Path = DEFAULT_STORE, finish: Finish | None = None) -> None:
    """Write ``quads``, and the ontology's, into a new store that replaces the
    one at ``path`` once complete; if anything fails on the way, the new store is discarded.
    ``finish(folder)`` may add files to the new store's folder before the swap
    (see :data:`Finish`). ``path`` must be a folder kg may replace (:func:`store_target`)."""
    store_target(path)  # refused before even the lock file is made
    with store_lock(path):
        _recover(_real(path))
        _replace(store_target(path), lambda new: _fill(new, itertools.chain(ontology_quads(), quads)), finish, path)


#: What :func:`update_store`'s edit function gets: a writable copy of the store, and the copy's folder.
Edit = Callable[[Store, Path], None]


def update_store(path: str | Path, plan: Callable[[Path], Edit | None], finish: Finish | None = None) -> bool:
    """Change the store at ``path`` instead of rebuilding it, under its lock.

    ``plan(path)`` looks at the live store and returns None when it cannot
    say how to change it, or a function that edits a copy of it (a
    checkpoint: hard links, cheap); the copy replaces the live store once
    that function (and ``finish``, as in :func:`write_store`) returns, so a
    failure leaves the live store as it was. Returns whether it changed the
    store; a folder that is no store kg built is left alone (False).
    """
    with store_lock(path):
        real = _real(path)
        _recover(real)
        if not _kg_made(real):
            return False
        edit = plan(real)
        if edit is None:
            return False

        def fill(new: Path) -> None:
            Store.read_only(str(real)).backup(str(new))
            store = Store(str(new))
            edit(store, new)
            store.flush()

        _replace(real, fill, finish, path)
        return True


def _clear_leftover(folder: Path, shown: str | Path) -> None:
    """Remove what a killed build left at ``folder``; refuse anything that kg did not write."""
    if not folder.exists() and not folder.is_symlink():
        return
    if _kg_made(folder):
        shutil.rmtree(folder)
        return
    try:
        folder.rmdir()  # an empty folder: nothing to lose (a build killed as it made it)
    except OSError as exc:
        raise StoreError(f"{shown}: {folder} is in the way of the new store and kg did not make it; move it away") from exc


def _replace(path: Path, fill: Callable[[Path], None], finish: Finish | None, shown: str | Path) -> None:
    """Fill a new store in a staging folder beside ``path`` and swap it in (call it holding the lock)."""
    staging, old = _sibling(path, "new"), _sibling(path, "old")
    try:
        _clear_leftover(staging, shown)
        _clear_leftover(old, shown)
        staging.mkdir()
        try:
            _mark(staging)  # first, so that what a killed build leaves is provably kg's
            new = staging / "store"
            fill(new)
            _mark(new)
            commit = finish(new) if finish is not None else None
            with _deferred_signals(shown):
                before = _swap(path, new, old)
                if commit is not None:
                    try:
                        commit()
                    except BaseException:
                        _unswap(path, new, old, before)
                        raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            if path.exists():  # swapped, or undone: what is at .old now is a previous store
                shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        raise StoreError(f"{shown}: cannot write the new store ({exc.strerror or exc}); the previous one is unchanged") from exc


def _swap(path: Path, new: Path, old: Path) -> str:
    """Put ``new`` at ``path``; returns what was there: "store" (moved to ``old``), "empty" or "nothing"."""
    before = "nothing" if not path.exists() else "store" if any(path.iterdir()) else "empty"
    if before == "store":
        os.rename(path, old)
    try:
        os.rename(new, path)  # over an empty folder too
    except BaseException:
        if before == "store":
            os.rename(old, path)
        raise
    return before


def _unswap(path: Path, new: Path, old: Path, before: str) -> None:
    os.rename(path, new)
    if before == "store":
        os.rename(old, path)
    elif before == "empty":
        path.mkdir()


@contextmanager
def _deferred_signals(shown: str | Path) -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM for the few renames of a swap, so that it is
    done or undone, never half done. One that comes meanwhile is too late to
    stop the build: it completes, and says so."""
    with held() as caught:
        yield
    if caught:
        warnings.warn(
            f"{shown}: interrupted as the new store was swapped in, too late to stop: the build completed", KgWarning, stacklevel=2
        )


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
