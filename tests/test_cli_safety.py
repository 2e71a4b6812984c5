"""Safety of the command line against a careless or hostile user (issue 18):
worker processes that a Ctrl-C or a kill ends at once, terminal escapes never
echoed raw, absurd arguments answered in one line, and relations whose ends
break the ontology's domain and range never written."""

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

from kg.corpus import read_paths
from tests.conftest import CORPUS, REPO

# -- parallel extraction: bounded, and stopped by Ctrl-C or kill at any moment ----


def _session_processes(session: int) -> list[str]:
    """The live (not zombie) processes of session ``session``, as "pid command" lines, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm)": state ppid pgrp session ...
        if fields[0] != "Z" and int(fields[3]) == session:
            found.append(f"{entry.name} {stat[: stat.rindex(')') + 1]}")
    return found


@pytest.fixture(scope="module")
def many_papers(tmp_path_factory) -> Path:
    """1,330 papers (the shipped corpus five times over, retitled): two workers are still extracting long after the first results."""
    papers = list(read_paths([CORPUS]))
    path = tmp_path_factory.mktemp("many") / "many.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for copy in range(5):
            for number, paper in enumerate(papers):
                handle.write(
                    json.dumps({"title": f"Copy {copy} of paper {number}", "abstract": paper.abstract, "authors": ["Ada Lovelace"]}) + "\n"
                )
    return path


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="--jobs 2 runs one process on one CPU")
@pytest.mark.parametrize(
    "sent, to_group, moment",
    [
        (signal.SIGINT, True, "extracting"),  # Ctrl-C: the terminal signals the whole process group
        (signal.SIGINT, True, "starting"),  # ... while the workers are still loading the model
        (signal.SIGTERM, True, "extracting"),  # `timeout`, a service manager: the whole group
        (signal.SIGTERM, False, "starting"),  # `kill PID`: the parent alone, which must stop the workers
    ],
    ids=["ctrl-c", "ctrl-c-while-starting", "kill-group", "kill-parent-while-starting"],
)
def test_an_interrupted_parallel_extraction_stops_every_worker_at_once(many_papers, tmp_path, sent, to_group, moment):
    out = tmp_path / "out.jsonl"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "kg", "extract", "--jobs", "2", "--quiet", str(many_papers)]
    with out.open("w") as stdout:
        process = subprocess.Popen(command, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        # "starting": both workers forked; "extracting": the first extractions have come back
        while len(_session_processes(process.pid)) < 3 if moment == "starting" else out.stat().st_size == 0:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, f"never got to {moment}"
            time.sleep(0.02)
        assert len(_session_processes(process.pid)) == 3  # the parent and its two workers
        if to_group:
            os.killpg(process.pid, sent)
        else:
            process.send_signal(sent)
        _, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130 and err.strip() == "kg: aborted", err  # (click ends the line the terminal's ^C is on first)
    assert _session_processes(process.pid) == []  # no worker left behind


def test_jobs_beyond_the_cpus_are_capped_with_a_warning(run, tmp_path):
    from kg.extract.extractor import SpacyExtractor, usable_cpus

    cpus = usable_cpus()
    assert 1 <= cpus <= (os.cpu_count() or cpus)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        extractor = SpacyExtractor(jobs=1000)
    assert extractor.jobs == cpus
    assert [str(w.message) for w in caught] == [f"1000 extraction workers asked for, but this process can use {cpus} CPUs: running {cpus}"]
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"title": "T", "abstract": "We propose SparseNet for long documents."}) + "\n", encoding="utf-8")
    code, out, err = run("extract", "--jobs", "1000", "--quiet", one)
    assert code == 0 and json.loads(out)["title"] == "T"
    assert err == f"kg: warning: 1000 extraction workers asked for, but this process can use {cpus} CPUs: running {cpus}\n"


# -- relations keep to the ontology's domain and range -------------------------

RELATION_SIGNATURES = {
    "evaluatedOn": ("Method", "Dataset"),
    "usedFor": ("Method", "Task"),
    "uses": ("Method", "Method"),
    "outperforms": ("Method", "Method"),
    "comparedWith": ("Method", "Method"),
    "trainedOn": ("Method", "Dataset"),
    "benchmarkFor": ("Dataset", "Task"),
}


def test_a_relation_whose_linked_ends_break_its_domain_or_range_is_not_written():
    from kg.graph.build import extraction_quads
    from kg.link.concepts import link_concepts
    from kg.records import Extraction, Mention, Relation
    from kg.vocab import KG

    abstract = "FooNet is evaluated on domain generalization, on reinforcement learning and on ImageNet."
    names = [
        ("FooNet", "Method"),
        ("domain generalization", "Dataset"),
        ("reinforcement learning", "Method"),
        ("reinforcement learning", "Dataset"),
        ("ImageNet", "Dataset"),
    ]
    mentions = [
        Mention(text, t, abstract.index(text), abstract.index(text) + len(text), 0, len(abstract), 0.9, "test") for text, t in names
    ]
    relations = tuple(
        Relation(head, head_type, "evaluatedOn", tail, tail_type, 0, len(abstract), 0.9, "test")
        for head, head_type, tail, tail_type in [
            ("FooNet", "Method", "domain generalization", "Dataset"),  # the lexicon makes the tail a Task
            ("reinforcement learning", "Method", "reinforcement learning", "Dataset"),  # ... and this one itself
            ("FooNet", "Method", "ImageNet", "Dataset"),  # the one that fits
        ]
    )
    extraction = Extraction("https://w3id.org/kg/paper/0123456789abcdef", tuple(mentions), (), relations)
    concepts = link_concepts([extraction])
    quads = list(extraction_quads(extraction, abstract, concepts))
    stated = [(q.subject.value.rsplit("/", 1)[1], q.object.value.rsplit("/", 1)[1]) for q in quads if q.predicate == KG.evaluatedOn]
    assert stated == [("method-foonet", "dataset-imagenet")]
    assert sum(q.object == KG.RelationMention for q in quads) == 1  # no evidence node for the two left out


def test_the_shipped_corpus_has_no_relation_against_its_declared_domain_and_range(extracted_store):
    from kg.graph import open_store
    from kg.query import run_query

    graph = open_store(extracted_store)
    for relation, (domain, range_) in RELATION_SIGNATURES.items():
        sparql = f"SELECT ?h ?t WHERE {{ ?h kg:{relation} ?t . FILTER (?h = ?t || NOT EXISTS {{ ?h a kg:{domain} }} || NOT EXISTS {{ ?t a kg:{range_} }}) }}"
        assert [(s["h"].value, s["t"].value) for s in run_query(graph, sparql).raw] == [], relation
    count = next(iter(run_query(graph, "SELECT (COUNT(*) AS ?n) WHERE { ?h kg:evaluatedOn ?t }").raw))["n"]
    assert int(count.value) > 10  # the check saw the relations


# -- terminal escape sequences are never echoed raw -----------------------------

ESCAPES = "\x1b]0;pwned\x07\x1b[2J"  # retitle the terminal window, clear the screen
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J"


@pytest.fixture
def terminal(monkeypatch):
    """click.echo writes as to a terminal (to a pipe it strips some sequences itself, not all)."""
    import click.utils

    monkeypatch.setattr(click.utils, "should_strip_ansi", lambda stream=None, color=None: False)


@pytest.fixture
def hostile_store(tmp_path) -> Path:
    """A store built from a file whose name, and a title in it, hold terminal escapes."""
    from kg.pipeline import build

    corpus = tmp_path / f"paper{ESCAPES}.jsonl"
    corpus.write_text(
        json.dumps({"title": f"Evil {ESCAPES} title", "abstract": "We propose SparseNet for long documents.", "authors": ["Ada Lovelace"]})
        + "\n",
        encoding="utf-8",
    )
    build([corpus], store=tmp_path / "store")
    return tmp_path / "store"


def test_query_tables_show_control_characters_escaped(terminal, run, hostile_store):
    for sparql in [
        "SELECT ?t WHERE { ?p dcterms:title ?t }",
        "SELECT ?f WHERE { ?s kg:fileName ?f }",
        'SELECT ("\\u001B]0;pwned\\u0007\\u001B[2J" AS ?x) {}',
    ]:
        code, out, err = run("query", "--store", hostile_store, sparql)
        assert code == 0 and "\x1b" not in out and "\x07" not in out, (sparql, out, err)
    assert SHOWN in out  # a remote endpoint's answer, say: shown, escaped
    code, out, _ = run("query", "--store", hostile_store, "--format", "csv", sparql)
    assert code == 0 and out == f"x\r\n{ESCAPES}\r\n"  # CSV is data: exact


def test_tables_of_other_commands_show_control_characters_escaped(terminal, run, tmp_path):
    evil = tmp_path / "evil.ttl"
    evil.write_text(
        "@prefix kg: <https://w3id.org/kg/ontology#> .\n"
        '<https://w3id.org/kg/paper/0000000000000001> a kg:Paper ; kg:mentions "evil\\u001B]0;pwned\\u0007\\u001B[2J" .\n',
        encoding="utf-8",
    )
    code, out, _ = run("validate", evil)  # the violations table shows the offending value
    assert code == 1 and f"evil{SHOWN}" in out and "\x1b" not in out and "\x07" not in out


def test_error_and_warning_lines_show_control_characters_escaped(terminal, run, tmp_path):
    code, _, err = run("build", "--no-extract", "--store", tmp_path / "store", tmp_path / f"missing{ESCAPES}.jsonl")
    assert code == 2 and "\x1b" not in err and "\x07" not in err
    assert err.startswith("kg: error: ") and f"missing{SHOWN}.jsonl" in err and len(err.splitlines()) == 1
    corpus = tmp_path / f"bad{ESCAPES}.jsonl"
    corpus.write_text(json.dumps({"title": "T", "abstract": "We propose SparseNet."}) + "\nnot json\n", encoding="utf-8")
    code, _, err = run("build", "--no-extract", "--no-page", "--quiet", "--store", tmp_path / "store", corpus)
    assert code == 0 and err.startswith("kg: warning: ") and f"bad{SHOWN}.jsonl" in err, err
    assert "\x1b" not in err and "\x07" not in err
    code, _, err = run("ask", "--store", tmp_path / "store", f"no{ESCAPES}such")  # a message quoting what the user typed
    assert code == 2 and err.startswith(f"kg: error: no{SHOWN}such: no such query") and "\x1b" not in err and "\x07" not in err


# -- absurd arguments: a clear answer or one line, never a hang -----------------


def test_a_path_from_a_thing_to_itself_is_a_one_line_error(run, corpus_store):
    code, out, err = run("path", "--store", corpus_store, "Yue Wang", "yue wang")
    assert code == 2 and out == "" and err == "kg: error: both ends are 'Yue Wang': a path needs two different things\n"


def test_absurdly_many_paths_are_refused_at_once(extracted_store):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-m", "kg", "path", "-k", "1000000000", "LoRA", "ImageNet", "--store", str(extracted_store)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr == "kg: error: Invalid value for '-k' / '--paths': 1000000000 is not in the range 1<=x<=100. (see `kg path --help`)\n"
    )


def test_paths_longer_than_max_hops_end_the_search():
    """The search stops at the first path over --max-hops instead of listing all k
    (here: every simple path of a complete graph, billions)."""
    script = (
        "import networkx as nx; from kg.analysis import paths; wide = nx.complete_graph(12); "
        "nx.set_node_attributes(wide, {n: {'label': str(n), 'type': 'Method', 'kind': 'concept'} for n in wide}); "
        "nx.set_edge_attributes(wide, {e: {'links': []} for e in wide.edges}); "
        "print([len(p.hops) for p in paths(wide, 0, 1, k=10**9, max_hops=2)])"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout == f"{[1] + [2] * 10}\n", done.stderr  # the edge, then one path through each other node


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0"])
def test_a_resolution_that_is_not_a_positive_finite_number_is_a_one_line_error(run, corpus_store, value):
    code, out, err = run("communities", "--store", corpus_store, "--resolution", value)
    assert code == 2 and out == "" and err.startswith("kg: error: Invalid value for '--resolution': ") and len(err.splitlines()) == 1


def test_no_communities_is_said_in_words(run, corpus_store):
    code, out, err = run("communities", "--store", corpus_store, "--resolution", "1e308")
    assert code == 0 and out == ""
    assert err == "kg: no community of 3 or more concepts at --resolution 1e+308 (a lower resolution gives fewer, larger ones)\n"
