"""A new user's frictions with the command line (issue 21): `kg eval` without
../shared, outputs of a second --store, the PREFIX block for other endpoints,
long cells in tables, the shared options, and a missing dependency."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pyoxigraph
import pytest

from kg.cli import CELL_WIDTH, _default_output, cli
from kg.pipeline import build
from kg.query import list_queries
from kg.query.results import table
from kg.training import evaluation
from kg.training.benchmarks import benchmark_rows
from kg.training.evaluation import Pipeline
from kg.vocab import PREFIXES
from tests.conftest import REPO
from tests.test_eval_cli import _scirex_folder

ABSTRACT = "We study knowledge graphs of research papers, built from their abstracts alone. " * 4  # 320 characters, stored stripped
PAPERS = [
    {"title": "Graphs of papers", "abstract": ABSTRACT, "authors": ["Ada Lovelace"], "year": 2021},
    {"title": "More graphs", "abstract": "We study graphs again, with LoRA.", "authors": ["Ada Lovelace"], "year": 2022},
]


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    """A working directory holding the two papers, and a page of the main store that must stay as it is."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "papers.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PAPERS), encoding="utf-8")
    (tmp_path / "exports").mkdir()
    (tmp_path / "exports" / "kg.html").write_text("the main store's page\n", encoding="utf-8")
    return tmp_path


@pytest.fixture
def other(here, run) -> Path:
    """A second store, runs/other, built beside the main one."""
    code, _, err = run("build", "--no-extract", "--quiet", "--store", "runs/other", "papers.jsonl")
    assert code == 0, err
    return here / "runs" / "other"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A store of the two papers (read-only for tests)."""
    folder = tmp_path_factory.mktemp("frictions")
    (folder / "papers.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PAPERS), encoding="utf-8")
    build([folder / "papers.jsonl"], store=folder / "store")
    return folder / "store"


# -- 1. kg eval without ../shared ------------------------------------------------------------------


def test_eval_names_the_option_and_the_file_for_every_benchmark_it_skips(run, tmp_path):
    missing = tmp_path / "nowhere"
    code, out, err = run("eval", "--benchmarks", missing, "--shared", missing, "--devset", missing / "dev.jsonl", "-q")
    assert code == 2 and out == ""
    *skipped, last = err.splitlines()
    # Every benchmark but the held-out arXiv test set: SciER test, test_ood, SciREX, SciERC, CSAbstruct, the dev set, arXiv dev.
    assert len(skipped) == 7 and last.startswith("kg: error: no benchmark could run (7 skipped")
    expected = {
        "SciER test": (missing / "scier" / "test.jsonl", "--benchmarks DIR"),
        "SciER test_ood": (missing / "scier" / "test_ood.jsonl", "--benchmarks DIR"),
        "SciREX test (hash split)": (missing / "scirex" / "abstracts.jsonl", "--benchmarks DIR"),
        "SciERC test": (missing / "scierc" / "test.jsonl", "--benchmarks DIR"),
        "CSAbstruct test (dedup.)": (missing / "csabstruct" / "test.jsonl", "--benchmarks DIR"),
        "dev set": (missing / "dev.jsonl", "--devset FILE"),
        "arXiv dev": (missing / "corpora" / "arxiv-cs-2025" / "abstracts.jsonl.gz", "--shared DIR"),
    }
    for line in skipped:
        title, why = line.removeprefix("kg: skipped ").split(": ", 1)
        path, option = expected.pop(title)
        assert why.startswith(f"expected {path}, which is not there; {option} names ")
    assert not expected and "root=PATH" not in err


def test_eval_runs_what_is_there_and_ends_with_what_it_skipped(run, tmp_path, monkeypatch):
    monkeypatch.setattr(evaluation, "PIPELINES", (Pipeline("default", "rules", {"concepts": "rules", "use_claims": False}),))
    benchmarks = _scirex_folder(tmp_path / "benchmarks")
    code, out, err = run("eval", "--benchmarks", benchmarks, "--shared", tmp_path, "--only", "scirex", "--only", "scier", "-q")
    assert code == 0 and out.startswith("benchmark ") and "SciREX test (hash split)" in out
    assert err.splitlines()[-1] == (
        "kg: ran 1 (SciREX test (hash split)); skipped 2 (SciER test, SciER test_ood): the lines above say which file each expects"
    )


def test_a_benchmark_file_that_cannot_be_read_names_the_option(tmp_path):
    with pytest.raises(Exception, match="scier/test.jsonl") as caught:
        next(benchmark_rows(tmp_path, "scier", "test"))
    message = str(caught.value)
    assert f"cannot read {tmp_path / 'scier' / 'test.jsonl'} (No such file or directory)" in message
    assert "DIR/scier/test.jsonl" in message and "`kg eval --benchmarks DIR`" in message and "root=PATH" not in message


def test_the_default_dev_set_is_found_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert evaluation.Locations().devset.is_file()  # the repository's, not ./tests/data/devset.jsonl


# -- 2. outputs of another --store go beside it ------------------------------------------------------


def test_build_with_another_store_writes_its_page_beside_it(here, run):
    code, out, err = run("build", "--no-extract", "--store", "runs/other", "papers.jsonl")
    assert code == 0, err
    assert out.splitlines()[-1].startswith("Wrote runs/other-exports/kg.html: ")
    assert (here / "runs" / "other-exports" / "kg.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert (here / "exports" / "kg.html").read_text(encoding="utf-8") == "the main store's page\n"


def test_build_page_goes_where_out_says(here, run):
    code, _, err = run("build", "--no-extract", "-q", "--store", "runs/other", "--out", "pages/overview.html", "papers.jsonl")
    assert code == 0, err
    assert (here / "pages" / "overview.html").is_file() and not (here / "runs" / "other-exports").exists()
    code, _, err = run("build", "--no-extract", "--no-page", "--out", "x.html", "papers.jsonl")
    assert code == 2 and "--out names the overview page, which --no-page leaves out" in err and not (here / ".kg").exists()


def test_the_default_store_keeps_exports_even_when_named(here, run):
    code, out, _ = run("build", "--no-extract", "--store", ".kg/store", "papers.jsonl")
    assert code == 0 and out.splitlines()[-1].startswith("Wrote exports/kg.html: ")
    assert (here / "exports" / "kg.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_export_viz_and_trends_of_another_store_go_beside_it(here, other, run):
    beside = here / "runs" / "other-exports"
    code, out, err = run("export", "--store", other)
    assert code == 0, err
    first, last = out.splitlines()
    assert first.startswith("Wrote ") and first.endswith(f" triples to {beside}/kg.ttl")
    assert last == f"Wrote the VoID description to {beside}/void.ttl"
    assert run("export", "--store", other, "--format", "all")[0] == 0
    assert run("viz", "--store", other, "--whole")[0] == 0
    code, _, err = run("trends", "--store", other, "--format", "csv")
    assert code == 0 and err.endswith(f"Wrote {beside}/kg-trends.html (open it in a browser).\n")
    written = {"kg.html", "kg.ttl", "kg.nt", "kg.jsonld", "kg.trig", "void.ttl", "kg-graph.html", "kg-trends.html"}
    assert {p.name for p in beside.iterdir()} == written
    assert [p.name for p in (here / "exports").iterdir()] == ["kg.html"]
    assert (here / "exports" / "kg.html").read_text(encoding="utf-8") == "the main store's page\n"


@pytest.mark.parametrize(
    "store, expected",
    [
        (None, "exports/kg.html"),
        (".kg/store", "exports/kg.html"),
        ("runs/a/store", "runs/a/store-exports/kg.html"),
        ("/data/kg", "/data/kg-exports/kg.html"),
    ],
)
def test_default_outputs_of_each_store(store, expected):
    assert str(_default_output(Path("exports") / "kg.html", Path(store) if store else None)) == expected


def test_a_store_named_dot_gets_its_folders_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _default_output(Path("exports"), Path(".")) == tmp_path.parent / f"{tmp_path.name}-exports"


# -- 3. kg query --prefixes ------------------------------------------------------------------------


def test_prefixes_are_the_ones_kg_query_binds(run):
    code, out, _ = run("query", "--prefixes")
    assert code == 0
    declared = {}
    for line in out.splitlines():
        keyword, prefix, iri = line.split(" ")
        assert keyword == "PREFIX" and prefix.endswith(":") and iri.startswith("<") and iri.endswith(">")
        declared[prefix[:-1]] = iri[1:-1]
    assert declared == PREFIXES


def test_library_queries_run_elsewhere_with_the_prefix_block(run):
    _, block, _ = run("query", "--prefixes")
    plain = pyoxigraph.Store()  # no prefixes= here: nothing is predeclared
    with pytest.raises(SyntaxError):
        plain.query(list_queries()[0].sparql)  # without the block, a library query does not even parse
    for named in list_queries():
        assert list(plain.query(block + named.sparql)) == []
    code, printed, _ = run("query", "--prefixes", "-f", "papers-of-author")
    assert code == 0 and printed.startswith(block) and "SELECT ?author" in printed
    assert list(plain.query(printed)) == []


# -- 4. long cells in tables -----------------------------------------------------------------------

ABSTRACTS = "SELECT ?title ?abstract WHERE { ?p dcterms:title ?title ; dcterms:abstract ?abstract } ORDER BY ?title"


def test_query_tables_cut_long_cells_and_the_data_formats_never_do(store, run):
    code, out, _ = run("query", "--store", store, ABSTRACTS)
    row = next(line for line in out.splitlines() if line.startswith("Graphs of papers"))
    cell = row.split("  ")[-1]
    assert code == 0 and len(cell) == CELL_WIDTH and cell.endswith("…") and ABSTRACT.startswith(cell[:-1])
    assert ABSTRACT.strip() in run("query", "--store", store, "--max-width", "0", ABSTRACTS)[1]
    assert run("query", "--store", store, "--max-width", "20", ABSTRACTS)[1].splitlines()[2].endswith("We study knowledge…")
    assert ABSTRACT.strip() in run("query", "--store", store, "--format", "csv", ABSTRACTS)[1]
    assert ABSTRACT.strip() in run("query", "--store", store, "--format", "tsv", ABSTRACTS)[1]
    bindings = json.loads(run("query", "--store", store, "--format", "json", ABSTRACTS)[1])["results"]["bindings"]
    assert bindings[0]["abstract"]["value"] == ABSTRACT.strip()


def test_a_table_on_a_terminal_fits_its_width(store, run, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("COLUMNS", "60")
    code, out, _ = run("query", "--store", store, ABSTRACTS)
    assert code == 0 and max(len(line) for line in out.splitlines()) == 60
    code, out, _ = run("query", "--store", store, "--max-width", "0", ABSTRACTS)  # asked for whole cells: the terminal wraps them
    assert ABSTRACT.strip() in out


def test_tables_of_other_commands_are_cut_too(store, run):
    code, out, _ = run("path", "Ada Lovelace", "Graphs of papers", "--store", store, "--max-width", "8")
    assert code == 0 and "Ada Lov…" in out and "Graphs…" in out and "Ada Lovelace" not in out
    code, out, _ = run("path", "Ada Lovelace", "Graphs of papers", "--store", store, "--max-width", "8", "--format", "csv")
    assert "Ada Lovelace" in out and "…" not in out


def test_table_narrows_the_widest_columns_first():
    shown = table(["short", "long", "n"], [["a" * 30, "b" * 100, 7]], columns=50)
    # 50 less two gaps of 2 and the number's column (its name and tabulate's padding of 2): 43 for the text,
    # the widest column narrowed first until both are 21 or 22.
    assert shown.splitlines() == [
        "short" + " " * 18 + "long" + " " * 20 + "n",
        "-" * 21 + "  " + "-" * 22 + "  ---",
        "a" * 20 + "…  " + "b" * 21 + "…  7",
    ]
    assert table(["short", "long"], [["a" * 30, "b" * 100]], max_width=8).splitlines()[2] == "aaaaaaa…  bbbbbbb…"
    # Controls are escaped, then measured: ESC shows as 4 characters, and the 9 fit a width of 9.
    assert table(["t"], [["x\x1b[2Jy"]], max_width=9) == "t\n---------\nx\\x1b[2Jy"
    assert table(["t"], [["x\x1b[2Jy"]], max_width=8) == "t\n--------\nx\\x1b[2…"


# -- 5. the shared options, and help for every command -------------------------------------------------


def _options(name: str) -> dict[str, click.Option]:
    return {p.name: p for p in cli.commands[name].params if isinstance(p, click.Option)}


def test_shared_options_say_the_same_everywhere():
    stores = {_options(name)["store"].help for name in cli.commands if "store" in _options(name)}
    assert stores == {"Graph store folder (default: .kg/store under the current directory)."}
    for name in cli.commands:
        options = _options(name)
        if "fmt" in options and "table" in options["fmt"].type.choices:
            assert options["fmt"].default == "table" and "max_width" in options, name
        if "limit" in options:
            assert options["limit"].help.endswith(" (0: all)."), name
        if "quiet" in options:
            assert options["quiet"].opts == ["--quiet", "-q"] and options["quiet"].help.startswith("No "), name
    tables = [name for name in cli.commands if "max_width" in _options(name)]
    assert {"query", "ask", "eval", "top", "communities", "path", "similar", "trends", "validate"} <= set(tables)


_EVERY_HELP = """
import runpy, sys
from kg.cli import cli
for name in sorted(cli.commands):
    sys.argv = ["kg", name, "--help"]
    try:
        runpy.run_module("kg", run_name="__main__")
    except SystemExit as exit:
        assert exit.code == 0, (name, exit.code)
heavy = sorted(m for m in ("pyoxigraph", "spacy", "networkx", "tabulate") if m in sys.modules)
print("heavy:", heavy)
"""


def test_python_dash_m_kg_help_works_for_every_command_without_heavy_imports():
    done = subprocess.run([sys.executable, "-c", _EVERY_HELP], capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr
    assert all(f"Usage: kg {name} " in done.stdout for name in cli.commands)
    assert done.stdout.splitlines()[-1] == "heavy: []"


# -- the last-resort error handler without a dependency ---------------------------------------------

_WITHOUT_PYOXIGRAPH = """
import sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "pyoxigraph":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Missing())
from kg.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_missing_dependency_is_one_line_not_a_traceback(tmp_path):
    command = [sys.executable, "-c", _WITHOUT_PYOXIGRAPH, "query", "ASK {}"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO)), check=False)
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr.startswith("kg: error: No module named 'pyoxigraph': kg is not installed with all its dependencies")
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
