"""The README's generated parts: the functions its cog blocks call.

    python3 -m cogapp -r README.md        # regenerate every block (from the repository root; a minute or two)
    python3 -m cogapp --check README.md   # fail if any block is stale (tests/test_readme.py runs this)

A transcript (:func:`transcript`) is the real output of the commands it
shows, each run by bash (so pipes and ``echo $?`` work as written) with ``kg``
meaning ``python3 -m kg`` of this checkout, in a scratch folder whose
``corpus`` is the shipped corpus. The first command there, ``kg build``,
builds it afresh; every later one reads that store. Tables and figures
(:func:`table`, :func:`figures`) come from the committed
``benchmarks/results/*.json`` or are counted in that store.

Nothing that varies between runs reaches a transcript: progress bars are off
when the output is not a terminal, and no command shown prints a time. The
one normalisation, in :func:`_run`, drops trailing spaces (tabulate pads its
last column) and refuses output that names the scratch folder.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

__all__ = ["MORE_JSONL", "broken_copy", "figures", "python_example", "table", "transcript"]

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
CORPUS = "corpus"  # the scratch folder that holds the shipped corpus's build
BUILD = "kg build"
_KG = 'kg() { "$KG_README_PYTHON" -m kg "$@"; }'

#: The input of the README's "Bad input" transcript: six usable records, two without an abstract, one not JSON.
MORE_JSONL = (
    "\n".join(
        [
            '{"id": "m1", "abstract": "We propose a sparse attention method for long documents."}',
            '{"id": "m2", "abstract": "We evaluate retrieval-augmented generation on open-domain question answering."}',
            '{"id": "m3", "title": "A line cut short", "abstract": ',
            '{"id": "m4", "abstract": "Low-rank adaptation makes fine-tuning large language models cheap."}',
            '{"id": "m5", "title": "A record without an abstract"}',
            '{"id": "m6", "abstract": "We study out-of-distribution generalization of image classifiers."}',
            '{"id": "m7", "abstract": "   "}',
            '{"id": "m8", "abstract": "A benchmark of graph neural networks on molecular property prediction."}',
            '{"id": "m9", "abstract": "We measure how well knowledge graphs answer relational questions."}',
        ]
    )
    + "\n"
)


# -- transcripts ----------------------------------------------------------------


def transcript(*steps: str | tuple[str, ...], folder: str = CORPUS, files: Mapping[str, str | Callable[[Path], str]] | None = None) -> str:
    """A ```console block: each command after ``$ ``, then what it printed
    (stdout and stderr together, as a terminal shows them). A step that is a
    tuple is shown without blank lines between its commands. ``folder`` names
    the scratch folder to run in (any other than the corpus's starts empty);
    ``files`` are written there first, each given as text or made from the folder."""
    where = _folder(folder)
    built = _built() if folder == CORPUS else None
    for name, content in (files or {}).items():
        (where / name).write_text(content if isinstance(content, str) else content(where), encoding="utf-8")
    blocks = []
    for step in steps:
        lines = []
        for command in (step,) if isinstance(step, str) else step:
            lines.append(f"$ {command}")
            lines += built if command == BUILD and built is not None else _run(where, command)
        blocks.append("\n".join(lines))
    return "```console\n" + "\n\n".join(blocks) + "\n```\n"


@functools.cache
def _scratch() -> Path:
    root = Path(tempfile.mkdtemp(prefix="kg-readme-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


@functools.cache
def _folder(name: str) -> Path:
    folder = _scratch() / name
    folder.mkdir()
    if name == CORPUS:
        (folder / "corpus").symlink_to(REPO / "corpus")
    return folder


@functools.cache
def _built() -> list[str]:
    """What ``kg build`` printed when it built the corpus folder's store (once per process)."""
    return _run(_folder(CORPUS), BUILD)


_status: dict[Path, int] = {}  # each folder's last exit status, for `echo $?`


def _env() -> dict[str, str]:
    """This checkout's kg first on the path, and UTF-8 output whatever the locale."""
    path = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    return dict(os.environ, KG_README_PYTHON=sys.executable, PYTHONIOENCODING="utf-8", PYTHONPATH=path)


def _run(folder: Path, command: str) -> list[str]:
    script = f"{_KG}\n(exit {_status.get(folder, 0)})\n{command}\n"
    done = subprocess.run(["bash", "-c", script], cwd=folder, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode == 3 or done.returncode > 125 or "Traceback" in done.stdout:  # a bug, or bash could not run it
        raise RuntimeError(f"`{command}` failed (exit {done.returncode}):\n{done.stdout}")
    if str(_scratch()) in done.stdout:
        raise RuntimeError(f"`{command}` printed the scratch folder's path, which differs on every run:\n{done.stdout}")
    _status[folder] = done.returncode
    return [line.rstrip() for line in done.stdout.rstrip("\n").split("\n")] if done.stdout.strip() else []


def python_example(code: str) -> str:
    """A ```python block of ``code``, run in the corpus folder, whose top-level
    ``print(...)`` lines carry what each printed (one line each) as their comment."""
    _built()
    done = subprocess.run([sys.executable, "-c", code], cwd=_folder(CORPUS), env=_env(), capture_output=True, text=True, check=True)
    printed = iter(done.stdout.splitlines())
    lines = [f"{line}  # {next(printed)}" if line.startswith("print(") else line for line in code.strip("\n").split("\n")]
    if next(printed, None) is not None:
        raise RuntimeError(f"the example printed more lines than it has top-level print() calls:\n{done.stdout}")
    return "```python\n" + "\n".join(lines) + "\n```\n"


def broken_copy(folder: Path) -> str:
    """The folder's graph as Turtle with the three faults tests/test_interop.py
    also makes: a second ``skos:prefLabel``, a mention that starts after its
    end (the first mention by IRI), a mention of no paper."""
    import pyoxigraph as ox

    from kg.vocab import KG, RDF, SKOS, XSD, resource

    graph = ox.Store()
    graph.bulk_extend(ox.Store.read_only(str(folder / ".kg" / "store")).quads_for_pattern(None, None, None, ox.DefaultGraph()))
    mention = min((q.subject for q in graph.quads_for_pattern(None, RDF.type, KG.Mention)), key=str)
    for quad in list(graph.quads_for_pattern(mention, KG.startOffset, None)):
        graph.remove(quad)
    graph.add(ox.Quad(mention, KG.startOffset, ox.Literal("10000", datatype=XSD.integer)))
    graph.add(ox.Quad(resource("concept", "method-lora"), SKOS.prefLabel, ox.Literal("Low-Rank Adaptation")))
    graph.add(ox.Quad(resource("mention", "orphan"), RDF.type, KG.Mention))
    turtle = graph.dump(format=ox.RdfFormat.TURTLE, from_graph=ox.DefaultGraph())
    assert turtle is not None  # dump returns the bytes when given no output
    return turtle.decode("utf-8")


# -- figures counted in the store ----------------------------------------------


def _select(sparql: str) -> list[dict[str, str]]:
    """``kg query``'s rows, as plain strings, from the corpus folder's store."""
    _built()
    done = subprocess.run(
        [sys.executable, "-m", "kg", "query", sparql, "--format", "json"],
        cwd=_folder(CORPUS),
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    return [{name: term["value"] for name, term in row.items()} for row in json.loads(done.stdout)["results"]["bindings"]]


def _corpus() -> dict[str, str]:
    [counts] = _select("SELECT (COUNT(DISTINCT ?c) AS ?concepts) (COUNT(DISTINCT ?f) AS ?forms) WHERE { ?c kg:hasForm ?f }")
    [multi] = _select("SELECT (COUNT(*) AS ?n) WHERE { { SELECT ?c WHERE { ?c kg:hasForm ?f } GROUP BY ?c HAVING (COUNT(?f) > 1) } }")
    rules = _select(
        "SELECT ?rule (COUNT(?f) AS ?n) WHERE { ?f a kg:SurfaceForm ; kg:mergeRule ?rule } GROUP BY ?rule ORDER BY DESC(?n) ?rule"
    )
    links = {  # skos:broader links backed by each kind of evidence (every Hearst pattern together)
        r["kind"]: r["n"]
        for r in _select(
            "SELECT ?kind (COUNT(DISTINCT CONCAT(STR(?s), ' ', STR(?o))) AS ?n) "
            "WHERE { ?e a kg:BroaderEvidence ; kg:rule ?rule ; rdf:subject ?s ; rdf:object ?o "
            "BIND (IF(STRSTARTS(?rule, 'hearst:'), 'hearst', ?rule) AS ?kind) } GROUP BY ?kind"
        )
    }
    [wikidata] = _select("SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { ?c kg:hasForm ?f ; skos:exactMatch ?item }")
    return {
        "concepts": f"{int(counts['concepts']):,}",
        "forms": f"{int(counts['forms']):,}",
        "multi": f"{int(multi['n']):,}",
        "rules": ", ".join(f"{r['rule']} {int(r['n']):,}" for r in rules),
        "head_noun": f"{int(links.get('head-noun', 0)):,}",
        "hearst": f"{int(links.get('hearst', 0)):,}",
        "wikidata": f"{int(wikidata['n']):,}",
    }


def _lexicon() -> dict[str, str]:
    from kg.lexicon import load_lexicon

    entries = load_lexicon()
    return {"entries": f"{len(entries):,}", "wikidata": f"{sum(1 for e in entries if e.wikidata):,}"}


# -- tables and figures from benchmarks/results ---------------------------------


@functools.cache
def _results(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))


def _num(x: float) -> str:
    """A measurement with two or three significant figures: 0.3, 4.9, 36, 1,173."""
    return f"{x:.1f}" if x < 10 else f"{x:,.0f}"


def _met(met: bool) -> str:
    return "met" if met else "missed"


def _ratio(x: float) -> str:
    return f"{_num(x)}x"


def _span(values: Iterable[float], fmt: Callable[[float], str]) -> str:
    """``low–high`` as they are written, or one value when both write the same."""
    values = list(values)
    low, high = fmt(min(values)), fmt(max(values))
    return low if low == high else f"{low}–{high}"


def _rows(header: Iterable[str], rows: Iterable[Iterable[object]]) -> list[str]:
    header = list(header)
    return [f"| {' | '.join(header)} |", "|" + "---|" * len(header)] + [f"| {' | '.join(map(str, row))} |" for row in rows]


def _quality() -> list[str]:
    """F1 per benchmark, measure and label: one column per pipeline, then the published or measured baseline."""
    results = _results("quality")
    rows = results["rows"]
    baselines = {(b["benchmark"], b["measure"], b["label"]): b for b in results["baselines"]}
    pipelines = list(dict.fromkeys((r["pipeline"], r["role"]) for r in rows if r["role"]))
    lines = []
    for key in dict.fromkeys((r["benchmark"], r["measure"], r["label"]) for r in rows):
        same = [r for r in rows if (r["benchmark"], r["measure"], r["label"]) == key]
        scores = {(r["pipeline"], r["role"]): f"{100 * r['score']['f1']:.1f}" for r in same}
        if same[0]["role"]:
            cells = [scores.get(p, "") for p in pipelines]
        else:  # one trained component, the same in every pipeline (CSAbstruct's claims)
            cells = [f"{100 * same[0]['score']['f1']:.1f} ({same[0]['pipeline']})"] + [""] * (len(pipelines) - 1)
        base = baselines.get(key)
        lines.append([*key, *cells, f"{base['f1']:.1f}" if base else "", base["baseline"] if base else ""])
    return _rows(["benchmark", "measure", "label", *(f"{name} ({role})" for name, role in pipelines), "baseline F1", "baseline"], lines)


def _ablation() -> list[str]:
    from kg.extract.model import DEFAULT_CONCEPTS

    types = ("Method", "Dataset", "Task", "Metric")
    lines: list[str] = []
    for split, modes in _results("ablation").items():
        lines += [f"arXiv {split} ({'held out' if split == 'test' else 'where the default was chosen'}), F1:", ""]
        rows = []
        for mode, scores in modes.items():
            cells = [scores["concept mentions"][t][2] for t in ("all", *types)]
            cells += [scores["concepts by label"]["all"][2], scores["proposed concepts"]["all"][2]]
            rows.append([f"**{mode}** (default)" if mode == DEFAULT_CONCEPTS else mode, *(f"{c:.1f}" for c in cells)])
        lines += _rows(["concept mode", "mentions", *types, "by label", "proposed"], rows) + [""]
    return lines[:-1]


def _architecture() -> list[str]:
    """The recogniser's architecture trained on SciER train alone, beside spaCy's ``ner`` from scratch."""
    result = _results("scier_recogniser")
    baselines = {
        (b["benchmark"], b["label"]): b["f1"] for b in _results("quality")["baselines"] if b["measure"] == "concept mentions (3 types)"
    }
    rows = []
    for split in ("test", "test_ood"):
        r = result[split]
        base = " / ".join(
            f"{f1:.1f}" if (f1 := baselines.get((f"SciER {split}", t))) else "-" for t in ("all", "Method", "Task", "Dataset")
        )
        rows.append([split, f"**{r['all']:.1f}**", f"{r['Method']:.1f}", f"{r['Task']:.1f}", f"{r['Dataset']:.1f}", base])
    rows.append(["dev (checkpoint choice)", f"{result['dev_f1']:.1f}", "", "", "", ""])
    return _rows(["SciER split", "all", "Method", "Task", "Dataset", "spaCy `ner` from scratch (all / Method / Task / Dataset)"], rows)


def _relations() -> list[str]:
    """The relation model on SciER with gold entities, beside the cue rules."""
    scier = _results("relations")["scier"]
    kinds = ["evaluatedOn", "usedFor", "uses", "comparedWith", "trainedOn", "benchmarkFor", "micro"]
    rows = []
    for split in ("test", "test_ood"):
        model, rules = scier[split]["model"], scier[split]["rules"]
        rows.append(
            [split, *(f"{100 * model[k]['f1']:.1f}" if model[k]["gold"] else "-" for k in kinds), f"{100 * rules['micro']['f1']:.1f}"]
        )
    return _rows(["SciER split, gold entities", *kinds, "cue rules (micro)"], rows)


def _reliability() -> list[str]:
    """The claim classifier's reliability table, as benchmarks/quality.py recorded it."""
    found = _results("quality")["reliability"]
    head = (
        f"arXiv {found['split']}, every sentence (ECE {found['ece_sentences']:.3f}; "
        f"claims emitted at >= {found['threshold']:.2f}: ECE {found['ece_claims']:.3f}):"
    )
    rows = [
        [f"{b['low']:.1f}-{b['high']:.1f}", b["count"], f"{b['mean_confidence']:.3f}", f"{b['observed_precision']:.3f}"]
        for b in found["sentences"]
        if b["count"]
    ]
    return [head, "", *_rows(["confidence", "sentences", "mean confidence", "share that are claims"], rows)]


def _speed() -> list[str]:
    result = _results("extraction_speed")
    rows = [[name, f"{speed:,}", f"{result['ratio_to_bare'][name]:.2f}x"] for name, speed in result["words_per_second"].items()]
    return _rows(["pipeline", "words/s", "against the bare pipeline"], rows)


def _hostile() -> list[str]:
    before, now = _results("hostile-before")["totals"], _results("hostile")["totals"]
    return _rows(["", "before", "now"], ([name, before.get(name, ""), value] for name, value in now.items()))


def _concept_map() -> list[str]:
    rows = [
        [
            r["store"],
            f"{r['concepts']:,}",
            f"{r['links']:,}",
            f"{r['generate_s']:.1f}",
            f"{r['bytes'] / 1e6:.1f}",
            f"{r['drawn_ms']:.0f}",
            f"{r['drawn_spread_ms'][0]}, {r['drawn_spread_ms'][1]}",
            r["labels"],
            r["overlaps"],
        ]
        for r in _results("concept_map")["rows"]
    ]
    header = ["build", "concepts", "links", "generate (s)", "page (MB)", "first settled drawing (ms, median)", "fastest, slowest (ms)"]
    return _rows([*header, "labels drawn", "label overlaps"], rows)


def _views() -> list[str]:
    rows = [
        [
            f"{r['nodes']:,}",
            f"{r['edges']:,}",
            f"{r['generate_s']:.2f} s",
            f"{r['layout_s']:.2f} s",
            f"{r['bytes'] / 1e6:.1f} MB",
            f"{r['drawn_ms'] / 1000:.2f} s",
            f"{r['redraw_ms']:.0f} ms",
        ]
        for r in _results("views")["rows"]
    ]
    return _rows(["nodes", "links", "generate page", "of which layout", "file size", "drawn (settled)", "redraw"], rows)


_BACKENDS = {
    "rdflib-memory": "rdflib in memory",
    "rdflib-bdb": "rdflib + BerkeleyDB",
    "pyoxigraph": "pyoxigraph (RocksDB)",
    "oxrdflib": "rdflib + oxrdflib",
}
_CHOSEN = "pyoxigraph"
_REFERENCE = "rdflib-memory"
_QUERIES = ("a_author_papers", "b_coauthors", "c_papers_per_topic")


def _store_backends() -> list[str]:
    """The largest size of benchmarks/store_backends.py's run; the chosen backend in bold."""
    size = _results("store_backends")["sizes"][-1]
    rows = []
    for r in size["results"]:
        disk = r["load"]["disk_mb"]
        cells = [
            f"{size['dataset']['target_triples'] // 1000}k",
            _BACKENDS[r["backend"]],
            f"{r['load']['seconds']:.2f} s",
            *(f"{1000 * r['queries'][q]['median_s']:.0f} ms" for q in _QUERIES),
            f"{r['turtle']['seconds']:.2f} s",
            "–" if disk is None else f"{_num(disk)} MB",
        ]
        rows.append(cells if r["backend"] != _CHOSEN else cells[:1] + [f"**{c}**" for c in cells[1:]])
    return _rows(["triples", "backend", "load", "Q(a)", "Q(b)", "Q(c)", "Turtle", "on disk"], rows)


def _backend_ratios() -> dict[str, str]:
    """How many times faster the chosen backend is than the reference, per size (``load_100k``, ``qb_10k`` ...)."""
    found = {}
    for size in _results("store_backends")["sizes"]:
        by = {r["backend"]: r for r in size["results"]}
        ref, chosen = by[_REFERENCE], by[_CHOSEN]
        label = f"{size['dataset']['target_triples'] // 1000}k"
        found[f"load_{label}"] = f"{ref['load']['seconds'] / chosen['load']['seconds']:.1f}x"
        found[f"turtle_{label}"] = f"{ref['turtle']['seconds'] / chosen['turtle']['seconds']:.1f}x"
        for q in _QUERIES:
            found[f"q{q[0]}_{label}"] = f"{ref['queries'][q]['median_s'] / chosen['queries'][q]['median_s']:.1f}x"
    return found


def _latency_ms(entry: dict) -> str:
    return _num(entry["p50_ms"]) + ("~" if entry.get("timed_runs") == 1 else "")


def _versus(entry: dict) -> str:
    """rdflib's p50 over pyoxigraph's, as benchmarks/query_latency.py recorded it."""
    if (entry.get("rdflib") or {}).get("error"):
        return "rdflib fails"
    speedup = entry.get("speedup_vs_rdflib")
    if not speedup:
        return ""
    return {"lower": "> ", "upper": "< ", None: ""}[speedup["bound"]] + f"{speedup['ratio']:g}x"


def _query_latency() -> list[str]:
    sizes = _results("query_latency")["sizes"]
    labels = [f"{s['dataset']['target_triples'] / 1e6:g}M" if s["dataset"]["target_triples"] >= 1e6 else "10k" for s in sizes]
    rows = []
    for name in sizes[0]["queries"]:
        row = [f"`{name}`"]
        for s in sizes:
            entry = s["queries"][name]
            row += [_latency_ms(entry), _versus(entry)]
        rows.append(row)
    header = ["query"] + [column for label in labels for column in (label, "vs rdflib")]
    return _rows(header, rows)


def _latency() -> dict[str, str]:
    report = _results("query_latency")
    by = {s["dataset"]["target_triples"]: s for s in report["sizes"]}
    small, million, big = by[10_000]["queries"], by[1_000_000]["queries"], by[5_000_000]
    targets = report["targets"]
    heaviest = targets["ge_10x_rdflib_on_heaviest_at_1M"]["query"]
    ratios = [e["speedup_vs_rdflib"]["ratio"] for e in small.values() if (e.get("speedup_vs_rdflib") or {}).get("ratio")]
    slowest_1m = max(million.values(), key=lambda e: e["p50_ms"])
    slowest_5m_name, slowest_5m = max(big["queries"].items(), key=lambda item: item[1]["p50_ms"])
    within_5m = sum(1 for e in big["queries"].values() if e["p50_ms"] <= 100)
    return {
        "corpus_triples": f"{report['corpus']['triples'] / 1000:.0f}k",
        "corpus_papers": f"{report['corpus']['papers']:,}",
        "queries": f"{len(million)}",
        "within_1m": f"{len(targets['p50_le_100ms_at_1M']['within'])}",
        "latency_met": _met(targets["p50_le_100ms_at_1M"]["met"]),
        "heaviest_met": _met(targets["ge_10x_rdflib_on_heaviest_at_1M"]["met"]),
        "slowest_1m": f"{slowest_1m['p50_ms']:.0f}",
        "heaviest": heaviest,
        "heaviest_1m": f"{million[heaviest]['p50_ms']:.0f}",
        "heaviest_rdflib_1m": f"{million[heaviest]['rdflib']['p50_ms'] / 1000:.1f}",
        "heaviest_ratio_1m": f"{million[heaviest]['speedup_vs_rdflib']['ratio']:g}x",
        "rdflib_runs": f"{len(ratios)}",
        "rdflib_p50_10k": _span((e["p50_ms"] for e in small.values() if (e.get("speedup_vs_rdflib") or {}).get("ratio")), _num),
        "rdflib_ratios_10k": f"{min(ratios):,g}x–{max(ratios):,g}x",
        "rdflib_median_10k": f"{statistics.median(ratios):,g}x",
        "papers_5m": f"{big['dataset']['papers']:,}",
        "slowest_5m": slowest_5m_name,
        "slowest_5m_ms": f"{slowest_5m['p50_ms']:.0f}",
        "slowest_5m_ratio": f"{slowest_5m['speedup_vs_rdflib']['ratio']:g}x",
        "within_5m": f"{within_5m}",
        "over_5m": f"{len(big['queries']) - within_5m}",
        "rows_1m": f"{million[heaviest]['rows']:,}",
        "rows_5m": f"{big['queries'][heaviest]['rows']:,}",
    }


def _write_rate() -> dict[str, str]:
    writers = _results("write_rate")["writers"]
    kg, parsing, base = writers["kg write_store"], writers["kg write_store (parsing)"], writers["Store.bulk_load (baseline)"]
    target = _results("write_rate")["target"]
    return {
        "write_rate": f"{kg['triples_per_s'] / 1000:.0f}k",
        "bulk_load_rate": f"{base['triples_per_s'] / 1000:.0f}k",
        "write_share": f"{100 * kg['triples_per_s'] / base['triples_per_s']:.0f}%",
        "parsing_share": f"{100 * parsing['triples_per_s'] / base['triples_per_s']:.0f}%",
        "write_target": f"{100 * target['kg_share_of_bulk_load_ge']:.0f}%",
        "write_met": _met(target["met"]),
    }


_OPERATIONS = {
    "top pagerank": "`top` pagerank",
    "top degree": "`top` degree",
    "top betweenness": "`top` betweenness",
    "communities": "`communities`",
    "path (k=3)": "`paths` (k=3)",
    "similar": "`similar`",
}


def _analysis() -> list[str]:
    report = _results("analysis_times")
    corpus, scaled = report["stores"]
    growth = report["growth_scaled_over_corpus"]

    def ms(timed: dict) -> str:
        return _num(1000 * timed["median_s"])

    def row(name: str, small: dict, large: dict, ratio: float, grew: float) -> list[str]:
        return [
            name,
            f"{ms(small['kg'])} / {ms(small['baseline'])}",
            f"{ms(large['kg'])} / {ms(large['baseline'])}",
            _ratio(ratio),
            f"{grew:.1f}x",
        ]

    load_ratio = scaled["load_graph"]["kg"]["median_s"] / scaled["load_graph"]["baseline"]["median_s"]
    rows = [row("`load_graph` (bare: its SPARQL reads)", corpus["load_graph"], scaled["load_graph"], load_ratio, growth["load_graph"])]
    for key, name in _OPERATIONS.items():
        large = scaled["operations"][key]
        rows.append(row(name, corpus["operations"][key], large, large["ratio_kg_to_baseline"], growth[key]))
    return _rows(["step", "corpus: kg / bare", "10x: kg / bare", "kg/bare at 10x", "10x time / corpus time"], rows)


def _analysis_figures() -> dict[str, str]:
    report = _results("analysis_times")
    corpus, scaled = report["stores"]

    def seconds(timed: dict) -> str:
        return f"{timed['median_s']:.2f}" if timed["median_s"] < 1 else f"{timed['median_s']:.1f}"

    return {
        "corpus_nodes": f"{corpus['graph']['nodes']:,}",
        "corpus_edges": f"{corpus['graph']['edges']:,}",
        "scaled_nodes": f"{scaled['graph']['nodes']:,}",
        "scaled_edges": f"{scaled['graph']['edges']:,}",
        "repeats": f"{report['config']['repeats']}",
        "load_growth": f"{report['growth_scaled_over_corpus']['load_graph']:.0f}x",
        "betweenness_10x": f"{scaled['operations']['top betweenness']['kg']['median_s']:.0f} s",
        "paths_10x": f"{1000 * scaled['operations']['path (k=3)']['kg']['median_s']:.0f} ms",
        "degree_10x": f"{1000 * scaled['operations']['top degree']['kg']['median_s']:.0f} ms",
        "load_graph": f"{seconds(corpus['load_graph']['kg'])} s / {seconds(scaled['load_graph']['kg'])} s",
        "load_graph_bare": f"{seconds(corpus['load_graph']['baseline'])} s / {seconds(scaled['load_graph']['baseline'])} s",
        "load_graph_ratio": " / ".join(
            _ratio(s["load_graph"]["kg"]["median_s"] / s["load_graph"]["baseline"]["median_s"]) for s in (corpus, scaled)
        ),
    }


def _viz() -> dict[str, str]:
    corpus, scaled = _results("viz_time")["stores"]

    def seconds(x: float) -> str:
        return f"{x:.2f}" if x < 1 else f"{x:.1f}"

    default = [s["views"]["kg viz"] for s in (corpus, scaled)]
    views = [view for s in (corpus, scaled) for view in s["views"].values()]
    return {
        "draw": " / ".join(f"{seconds(v['draw_s'])} s" for v in default),
        "draw_load_graph": " / ".join(f"{seconds(v['steps_s']['load_graph'])} s" for v in default),
        "draw_ratio": " / ".join(_ratio(v["draw_over_load_graph"]) for v in default),
        "load_share_10x": f"{100 * default[1]['steps_s']['load_graph'] / default[1]['draw_s']:.0f}%",
        "details_corpus": _span((v["steps_s"]["paper_details"] for v in corpus["views"].values()), lambda x: f"{x:.2f}"),
        "details_10x": _span((v["steps_s"]["paper_details"] for v in scaled["views"].values()), lambda x: f"{x:.2f}"),
        "pyvis": _span((v["baseline_pyvis_alone_s"] for v in views), lambda x: f"{x:.2f}"),
        "cli_corpus": f"{corpus['cli_kg_viz_s']:.1f}",
        "cli_10x": f"{scaled['cli_kg_viz_s']:.1f}",
    }


def _build_scale() -> dict[str, str]:
    runs = _results("build_scale")["runs"]
    earlier = runs["10000 (earlier run: --jobs 1 and 2, before incremental builds)"]
    paged, bare, big = runs["10000"], runs["10000 --no-page"], runs["100000 --no-page"]

    def run(name: str, timed: dict) -> dict[str, str]:
        found = {f"{name}_s": f"{timed['seconds']:,.0f}", f"{name}_rss": f"{timed['peak_rss_mib']:,}"}
        if "words_per_s" in timed:
            found[f"{name}_wps"] = f"{timed['words_per_s']:,}"
        return found

    return {
        "words_10k": f"{earlier['words'] / 1e6:.2f}M",
        "words_100k": f"{big['words'] / 1e6:.1f}M",
        **run("jobs1", earlier["jobs1"]),
        **run("jobs2", earlier["jobs2"]),
        "speedup": f"{earlier['parallel_speedup']:.2f}x",
        "speedup_met": _met(earlier["parallel_speedup"] >= 1.6),
        "relinked_s": f"{earlier['incremental_10']['seconds']:.1f}",
        "relinked_rss": f"{earlier['incremental_10']['peak_rss_mib']:,}",
        "relinked_share": f"{100 * earlier['incremental_ratio']:.0f}%",
        **run("bare", bare["jobs2"]),
        "added_s": f"{bare['incremental_10']['seconds']:.1f}",
        "added_rss": f"{bare['incremental_10']['peak_rss_mib']:,}",
        "added_share": f"{100 * bare['incremental_ratio']:.1f}%",
        "added_met": _met(bare["incremental_ratio"] < 0.05),
        "added_equal": "equals" if bare["incremental_equals_afresh"] else "differs from",
        **run("paged", paged["jobs2"]),
        "paged_added_s": f"{paged['incremental_10']['seconds']:.1f}",
        "paged_added_rss": f"{paged['incremental_10']['peak_rss_mib']:,}",
        "paged_added_share": f"{100 * paged['incremental_ratio']:.1f}%",
        "page_s": f"{paged['incremental_10']['seconds'] - bare['incremental_10']['seconds']:.0f}",
        **run("big", big["jobs2"]),
        "big_min": f"{big['jobs2']['seconds'] / 60:.1f}",
        "big_met": _met(big["jobs2"]["seconds"] < 1800),
        "big_gb_met": _met(big["jobs2"]["peak_rss_mib"] < 4096),
        "big_growth": f"{big['jobs2']['peak_rss_mib'] / bare['jobs2']['peak_rss_mib']:.2f}x",
        "big_growth_met": _met(big["jobs2"]["peak_rss_mib"] < 2 * bare["jobs2"]["peak_rss_mib"]),
    }


_REAL_STAGES = ("read", "link papers", "extract", "link concepts", "write store", "build state", "page")


def _build_real() -> list[str]:
    """Real-text builds (benchmarks/build_real.py): one row per size, then how each figure grows."""
    found = _results("build_real")
    runs = sorted(found["runs"].values(), key=lambda r: r["abstracts"])
    header = ["abstracts", "words", "wall", "words/s", *(f"{s} s" for s in _REAL_STAGES), "link + write", "peak RSS (build, worker)"]
    header += ["triples", "concepts", "authors"]
    rows = []
    for r in runs:
        stages = r["stages"]
        reduce = (stages.get("link concepts", 0) + stages.get("write store", 0) + stages.get("build state", 0)) / r["seconds"]
        rows.append(
            [f"{r['abstracts']:,}", f"{r['words'] / 1e6:.1f}M", f"{r['seconds'] / 60:.1f} min", f"{r['words_per_s']:,}"]
            + [f"{stages.get(s, 0):,.0f}" for s in _REAL_STAGES]
            + [f"{100 * reduce:.0f}%", f"{r['peak_rss_mib']:,}, {r['workers_peak_rss_mib']:,} MiB"]
            + [f"{r['triples'] / 1e6:.2f}M", f"{r['concepts']:,}", f"{r['authors']:,}"]
        )
    growth = found["growth"]

    def fitted(key: str) -> str:
        return "" if growth.get(key) is None else f"n^{growth[key]:.2f}"

    rows.append(
        ["growth (fitted)", "", fitted("seconds"), "", *(fitted(f"stage {s}") for s in _REAL_STAGES), "", fitted("peak_rss_mib")]
        + [fitted("triples"), fitted("concepts"), fitted("authors")]
    )
    return _rows(header, rows)


_TABLES: dict[str, Callable[[], list[str]]] = {
    "ablation": _ablation,
    "build-real": _build_real,
    "analysis": _analysis,
    "architecture": _architecture,
    "concept-map": _concept_map,
    "hostile": _hostile,
    "quality": _quality,
    "query-latency": _query_latency,
    "relations": _relations,
    "reliability": _reliability,
    "speed": _speed,
    "store-backends": _store_backends,
    "views": _views,
}


def _executors() -> dict[str, str]:
    run = _results("executors")
    seconds = {name.replace("--", "").replace(" ", "-").replace(":", "-"): f"{value:.1f}" for name, value in run["seconds"].items()}
    return {
        "abstracts": str(run["abstracts"]),
        "batch": str(run["batch_size"]),
        "same": "the same" if run["same_extractions"] else "NOT the same",
        **seconds,
    }


_FIGURES: dict[str, Callable[[], dict[str, str]]] = {
    "analysis": _analysis_figures,
    "executors": _executors,
    "build-scale": _build_scale,
    "corpus": _corpus,
    "lexicon": _lexicon,
    "performance": lambda: {**_latency(), **_write_rate(), **_analysis_figures(), **_viz()},
    "query-latency": _latency,
    "store-backends": _backend_ratios,
    "viz": _viz,
    "write-rate": _write_rate,
}


def table(name: str) -> str:
    """The Markdown table (or tables) called ``name``, from its results file."""
    return "\n".join(_TABLES[name]()) + "\n"


def figures(name: str, template: str) -> str:
    """``template`` (README text with ``{placeholders}``) filled with the figures called ``name``."""
    return template.strip("\n").format_map(_FIGURES[name]()) + "\n"
