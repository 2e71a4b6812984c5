"""The command line, run in-process (and once as `python -m kg`)."""

import subprocess
import sys

import click
import pytest

from kg.cli import cli

COMMANDS = sorted(cli.commands)


def test_every_command_has_help(run):
    code, out, _ = run("--help")
    assert code == 0 and all(name in out for name in COMMANDS)
    for name in COMMANDS:
        code, out, _ = run(name, "--help")
        assert code == 0 and "Usage: kg " + name in out
        assert cli.commands[name].help and len(cli.commands[name].help) > 40


def test_version(run):
    code, out, _ = run("--version")
    assert code == 0 and out.startswith("kg, version ")


def test_python_dash_m_kg():
    done = subprocess.run([sys.executable, "-m", "kg", "--help"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "build" in done.stdout


def test_end_to_end_build_query_export_from_the_repo_layout(workdir, run):
    code, out, err = run("build")
    assert code == 0, err
    assert out.startswith("Built .kg/store: 266 papers (266 records from 2 files, 0 duplicates merged)")
    code, out, _ = run("query", "-f", "papers-of-author", "--param", "author=Yue Wang")
    assert code == 0 and "PhysBench" in out and out.rstrip().endswith("(4 rows)")
    code, out, _ = run("query", "--format", "csv", "SELECT (COUNT(*) AS ?n) WHERE { ?p a foaf:Person }")
    assert code == 0 and out.splitlines()[1].isdigit()
    code, out, _ = run("export")
    assert code == 0 and (workdir / "exports" / "kg.ttl").stat().st_size > 100_000
    assert out.splitlines()[0].startswith("Wrote ") and out.splitlines()[0].endswith("exports/kg.ttl")
    assert out.splitlines()[-1] == "Wrote the VoID description to exports/void.ttl" and (workdir / "exports" / "void.ttl").exists()
    code, _, _ = run("export", "--format", "nt", "--out", "out/graph.nt")
    assert code == 0 and (workdir / "out" / "graph.nt").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (("build", "missing-folder"), "kg: error: missing-folder: no such file or folder"),
        (("query", "SELECT ?x WHERE { ?x ?y }"), "kg: error: malformed SPARQL query at line 1, column 26"),
        (("query", "-f", "papers-of-author"), "needs --param author=VALUE"),
        (("query", "-f", "no-such-query"), "kg: error: no-such-query: no such query file or library query"),
        (("query", "--param", "oops", "ASK {}"), "--param 'oops': expected NAME=VALUE"),
        (("export", "--format", "xml"), "Invalid value for '--format'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(workdir, run, args, message):
    run("build", "-q", "corpus/000_ced0abb0ca10cf40.txt")
    code, out, err = run(*args)
    assert code == 2
    assert message in err and "Traceback" not in err
    assert len(err.splitlines()) == 1


def test_commands_need_a_store(tmp_path, monkeypatch, run):
    monkeypatch.chdir(tmp_path)
    code, _, err = run("query", "ASK {}")
    assert code == 2 and err == "kg: error: .kg/store: no graph store here; build one with `kg build` (or pass --store)\n"


def test_debug_shows_the_traceback(tmp_path, monkeypatch):
    from kg.cli import main
    from kg.errors import StoreError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError):
        main(["--debug", "export"])


def test_query_list_describes_the_library(run):
    code, out, _ = run("query", "--list")
    assert code == 0 and "papers-of-author: Which papers did this person write" in out
    assert "--param author=" in out


def test_click_group_is_the_documented_entry_point():
    assert isinstance(cli, click.Group)
