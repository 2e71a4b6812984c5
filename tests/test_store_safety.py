"""What `kg build --store` may replace, and what a failed build leaves.

kg replaces only a folder it can prove it wrote (its marker file, or the
build state of a store built before there was a marker): a thesis folder, the
corpus folder, an Oxigraph database kg did not build, a folder of someone
else's named like the build's own `.NAME.new` / `.NAME.old` are refused,
exit 2, nothing touched. A `--store` symlink stays a link. The page is written
before the swap and put in place with it, so a page that cannot be written,
or a Ctrl-C while it is drawn, leaves the store and the page as they were.
Paths kg cannot use as a store (`/`, `.`, a damaged store) are one-line errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, Store

from kg.errors import KgWarning
from kg.graph import open_store
from kg.pipeline import build
from tests.conftest import REPO

OLD = [
    {"title": "Sparse Attention for Long Documents", "abstract": "We propose SparseNet for long documents.", "authors": ["Ada Lovelace"]},
    {"title": "Graph Networks at Scale", "abstract": "We scale graph networks to billions of edges.", "authors": ["Alan Turing"]},
]
NEW = OLD + [{"title": "A Third Paper", "abstract": "We study a third thing.", "authors": ["Grace Hopper"]}]
MARKER, STATE_FILE = "kg-store", "kg-build.sqlite"  # kg.graph.store's names, spelt out: the README tells users them
REFUSED = "is not a graph store kg built (it has no kg-store file), so kg will not replace what is in it"


def jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def content(store: Path) -> list[str]:
    return sorted(str(q) for q in open_store(store))


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)  # exports/ and the extraction cache land here
    return tmp_path


# -- item 1: only a folder kg wrote is replaced --------------------------------------------


def _thesis(folder: Path) -> Path:
    folder.mkdir()
    (folder / "thesis.tex").write_text("\\documentclass{book}\n", encoding="utf-8")
    return folder


def _corpus_itself(folder: Path) -> Path:
    folder.mkdir()
    jsonl(folder / "papers.jsonl", OLD)
    return folder


def _foreign_oxigraph(folder: Path) -> Path:
    store = Store(str(folder))
    store.add(Quad(NamedNode("http://example.org/mine"), NamedNode("http://example.org/says"), Literal("keep me"), DefaultGraph()))
    store.flush()
    del store
    return folder


@pytest.mark.parametrize("make", [_thesis, _corpus_itself, _foreign_oxigraph], ids=["thesis", "the-corpus-itself", "oxigraph-db"])
def test_build_refuses_a_folder_kg_did_not_write_and_touches_nothing(here, run, make):
    target = make(here / "target")
    inputs = target if make is _corpus_itself else jsonl(here / "in.jsonl", OLD)  # `kg build --store corpus corpus`
    before, around = snapshot(here), sorted(p.name for p in here.iterdir())
    # With extraction on: the refusal comes before the model or the cache beside the store is touched.
    code, out, err = run("build", "--quiet", "--store", target, inputs)
    assert (code, out) == (2, "")
    assert err == f"kg: error: {target}: {REFUSED}; choose another --store, or empty the folder yourself\n"
    assert snapshot(here) == before and sorted(p.name for p in here.iterdir()) == around  # no lock, no .new, no cache, no page


def test_a_store_built_before_the_marker_counts_as_kg_s_and_gets_one(here, run):
    store = here / "store"
    build([jsonl(here / "old.jsonl", OLD)], store=store)
    (store / MARKER).unlink()  # as older kg left it: an Oxigraph folder with the build state
    assert (store / STATE_FILE).is_file()
    assert run("build", "--no-extract", "--quiet", "--no-page", "--store", store, jsonl(here / "new.jsonl", NEW))[0] == 0
    assert (store / MARKER).is_file() and len([q for q in content(store) if "third thing" in q]) == 1


def test_an_empty_folder_becomes_the_store(here, run):
    (here / "store").mkdir()
    assert run("build", "--no-extract", "--quiet", "--no-page", "--store", "store", jsonl(here / "in.jsonl", OLD))[0] == 0
    assert (here / "store" / MARKER).is_file()


def test_a_symlinked_store_stays_a_link_to_the_same_folder(here, run):
    (here / "data").mkdir()
    (here / "link").symlink_to(here / "data" / "store")
    for records in (OLD, NEW):  # the first build makes the folder, the second swaps it
        assert (
            run("build", "--no-extract", "--quiet", "--no-page", "--afresh", "--store", "link", jsonl(here / "in.jsonl", records))[0] == 0
        )
        assert (here / "link").is_symlink() and os.readlink(here / "link") == str(here / "data" / "store")
    assert len(content(here / "data" / "store")) == len(content(here / "link")) > 0
    assert sorted(p.name for p in here.iterdir()) == ["data", "in.jsonl", "link"]
    assert sorted(p.name for p in (here / "data").iterdir()) == ["store", "store.lock"]  # no .store.old, no .store.new


@pytest.mark.parametrize("name", [".store.new", ".store.old"])
def test_a_folder_of_someone_else_s_named_like_the_build_s_own_is_never_removed(here, run, name):
    store = here / "store"
    build([jsonl(here / "old.jsonl", OLD)], store=store)
    before = content(store)
    mine = here / name
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n", encoding="utf-8")
    code, _, err = run("build", "--no-extract", "--quiet", "--no-page", "--store", store, jsonl(here / "new.jsonl", NEW))
    assert code == 2 and err == f"kg: error: {store}: {mine} is in the way of the new store and kg did not make it; move it away\n"
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "mine\n" and content(store) == before


def test_a_lock_file_kg_did_not_write_is_not_truncated(here, run):
    (here / "store.lock").write_text("someone's file\n", encoding="utf-8")
    assert run("build", "--no-extract", "--quiet", "--no-page", "--store", "store", jsonl(here / "in.jsonl", OLD))[0] == 0
    assert (here / "store.lock").read_text(encoding="utf-8") == "someone's file\n"


# -- item 13: paths that cannot be a store, a damaged store: exit 2, one line ---------------------


@pytest.mark.parametrize("where, why", [("/", "the root folder cannot be a graph store"), (".", "is the working directory (or holds it)")])
def test_root_or_working_directory_as_store_is_a_one_line_error(here, run, where, why):
    jsonl(here / "in.jsonl", OLD)
    before = snapshot(here)
    code, _, err = run("build", "--no-extract", "--quiet", "--store", where, "in.jsonl")
    assert code == 2 and err == f"kg: error: {where}: {why}; choose a folder of its own for --store\n"
    assert snapshot(here) == before
    code, _, err = run("query", "--store", where, "ASK { ?s ?p ?o }")
    assert code == 2 and err == f"kg: error: {where}: no graph store here; build one with `kg build` (or pass --store)\n"


@pytest.mark.parametrize(
    "command",
    [
        ["query", "SELECT * WHERE { ?s ?p ?o }"],
        ["export", "--out", "out.ttl"],
        ["validate"],
        ["viz", "--out", "out.html"],
        ["top"],
    ],
)
def test_a_damaged_store_is_a_one_line_error_for_every_reader(here, run, command):
    store = here / "store"
    build([jsonl(here / "in.jsonl", OLD)], store=store)
    for table in store.glob("*.sst"):
        os.truncate(table, 100)  # as a full disk or a bad copy leaves it
    code, out, err = run(*command, "--store", store)
    assert (code, out) == (2, "") and len(err.splitlines()) == 1
    assert err.startswith(f"kg: error: {store}: the graph store is damaged and cannot be read (Corruption: ") and err.endswith(
        "build it again with `kg build`\n"
    )


def test_a_build_over_a_damaged_store_builds_it_afresh(here, run):
    store = here / "store"
    build([jsonl(here / "in.jsonl", OLD)], store=store)
    for table in store.glob("*.sst"):
        os.truncate(table, 100)
    code, out, _ = run("build", "--no-extract", "--no-page", "--store", store, "in.jsonl")
    assert code == 0 and "(built afresh: the previous store cannot be read (Corruption: " in out
    assert len(content(store)) > 0


# -- item 2: the page goes with the swap, or nothing changes ------------------------------------


@pytest.fixture
def previous(here, run):
    """A store of OLD and its page, as `kg build` left them."""
    assert run("build", "--no-extract", "--quiet", "--store", "store", jsonl(here / "old.jsonl", OLD))[0] == 0
    jsonl(here / "new.jsonl", NEW)
    return content(here / "store"), (here / "store-exports" / "kg.html").read_bytes()


def _page_cannot_be_written_before_the_swap(here: Path) -> None:
    (here / "store-exports" / "kg.html").rename(here / "kg.html")
    (here / "store-exports").rmdir()
    (here / "store-exports").write_text("a file where the folder should be\n", encoding="utf-8")


def _page_cannot_be_put_in_place(here: Path) -> None:
    (here / "store-exports" / "kg.html").rename(here / "kg.html")
    (here / "store-exports" / "kg.html").mkdir()  # written beside it fine; the rename over it fails, after the store swap


@pytest.mark.parametrize(
    "spoil", [_page_cannot_be_written_before_the_swap, _page_cannot_be_put_in_place], ids=["exports-is-a-file", "page-is-a-folder"]
)
def test_a_page_that_cannot_be_written_leaves_the_store_as_it_was(here, run, previous, spoil):
    store_before, _ = previous
    spoil(here)
    exports = snapshot(here / "store-exports") if (here / "store-exports").is_dir() else None
    code, _, err = run("build", "--no-extract", "--quiet", "--store", "store", "new.jsonl")
    assert code == 2 and err.startswith("kg: error: store-exports/kg.html: cannot write the page (") and len(err.splitlines()) == 1
    assert content(here / "store") == store_before
    assert (snapshot(here / "store-exports") if exports is not None else None) == exports  # no temporary page left
    assert sorted(p.name for p in here.iterdir() if "store" in p.name) == ["store", "store-exports", "store.lock"]


# A `python -m kg build` whose page step takes as long as a test needs to interrupt it.
_SLOW_PAGE = """
import os, pathlib, time
import kg.views.page as page
_render = page.render_page
def render_page(*args, **kwargs):
    pathlib.Path(os.environ["KG_TEST_PAGE_STARTED"]).touch()
    time.sleep(60)
    return _render(*args, **kwargs)
page.render_page = render_page
"""


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_ctrl_c_or_kill_during_the_page_step_leaves_store_and_page_as_they_were(here, previous, sent):
    store_before, page_before = previous
    shim = here / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(_SLOW_PAGE, encoding="utf-8")
    started = here / "page-started"
    env = dict(os.environ, PYTHONPATH=f"{shim}{os.pathsep}{REPO}", KG_TEST_PAGE_STARTED=str(started))
    command = [sys.executable, "-m", "kg", "build", "--no-extract", "--quiet", "--store", "store", "new.jsonl"]
    process = subprocess.Popen(command, cwd=here, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not started.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the page step never started"
        time.sleep(0.05)
    process.send_signal(sent)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130 and err.splitlines()[-1] == "kg: aborted" and "Traceback" not in err, err
    assert content(here / "store") == store_before
    assert snapshot(here / "store-exports") == {"kg.html": page_before}  # the previous page, no temporary beside it
    assert sorted(p.name for p in here.iterdir() if "store" in p.name) == ["store", "store-exports", "store.lock"]


def test_a_signal_during_the_swap_is_too_late_and_the_build_completes(here):
    store = here / "store"
    build([jsonl(here / "old.jsonl", OLD)], store=store)
    interrupt = lambda graph: lambda: os.kill(os.getpid(), signal.SIGINT)  # noqa: E731 - arrives mid-swap
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", KgWarning)
        report = build([jsonl(here / "new.jsonl", NEW)], store=store, finish=interrupt)
    assert [str(w.message) for w in caught] == [
        f"{store}: interrupted as the new store was swapped in, too late to stop: the build completed"
    ]
    assert report.papers == 3 and len([q for q in content(store) if "third thing" in q]) == 1
