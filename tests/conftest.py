"""Shared fixtures: the shipped corpus, stores built from it once per session
(with and without extraction), and a helper that runs the CLI in-process."""

from __future__ import annotations

import shutil
import socket
import threading
from pathlib import Path

import pytest

from kg.cli import main
from kg.pipeline import build

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "corpus"
CONFERENCE = CORPUS / "000_ced0abb0ca10cf40.txt"
DAILY = CORPUS / "003_8e9b74060a1da4c6.txt"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def corpus_store(tmp_path_factory) -> Path:
    """The store built from the shipped corpus (read-only for tests)."""
    store = tmp_path_factory.mktemp("corpus") / "store"
    build([CORPUS], store=store)
    return store


@pytest.fixture(scope="session")
def extracted_store(tmp_path_factory) -> Path:
    """The store built from the shipped corpus with extraction, as `kg build` does (read-only for tests)."""
    from kg.extract.extractor import SpacyExtractor

    store = tmp_path_factory.mktemp("extracted") / "store"
    build([CORPUS], store=store, extractors=[SpacyExtractor()])
    return store


@pytest.fixture(scope="session")
def rules_store(tmp_path_factory) -> Path:
    """The shipped corpus built with the recogniser-free concept rules (`--concepts rules`):
    the concept-linking and analysis tests pin what the linking and analysis stages
    make of that extraction, which the rules were tuned on; the default recogniser is
    tested on kg's arXiv annotation (tests/test_recogniser.py, `kg eval`) and end to end."""
    from kg.extract.extractor import SpacyExtractor

    store = tmp_path_factory.mktemp("rules") / "store"
    build([CORPUS], store=store, extractors=[SpacyExtractor(concepts="rules")])
    return store


@pytest.fixture
def run(capsys):
    """Run ``kg ARGS...`` in-process; return (exit code, stdout, stderr)."""

    def invoke(*args: str) -> tuple[int, str, str]:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    """A fresh working directory holding a copy of the shipped corpus."""
    shutil.copytree(CORPUS, tmp_path / "corpus")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def listener():
    """A TCP listener on 127.0.0.1 that counts the connections made to it: (port, the accepted list)."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted = []

    def accept() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(connection)
            connection.close()

    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[1], accepted
    server.close()
