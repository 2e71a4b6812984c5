"""The ``kg`` command: a thin layer that parses options, calls the library and
maps errors to exit codes.

Exit codes: 0 success; 1 findings (reserved for checks such as validation);
2 bad input or usage (one line on stderr); 3 an unexpected internal error, or
a dependency not installed; 130 interrupted (Ctrl-C or SIGTERM). ``--debug``
shows the traceback instead of the one-line message. Warnings
(:class:`kg.errors.KgWarning`, e.g. skipped corpus records) are one
``kg: warning:`` line each on stderr.

Outputs derived from a store (the overview page, exports, pages, charts) go
to exports/ for the default store and to STORE-exports/ beside any other
(:func:`_default_output`), unless an option names the file.
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import sys
import threading
import warnings
from pathlib import Path

import click

from kg import __version__
from kg.errors import KgError, KgWarning
from kg.extract.model import CONCEPT_MODES, DEFAULT_CONCEPTS

EXIT_INTERNAL = 3
DEFAULT_CORPUS = Path("corpus")
#: Characters of a table cell unless --max-width says otherwise.
CELL_WIDTH = 80

# -- options shared by several commands ------------------------------------------------------

_STORE_OPTION = click.option(
    "--store",
    type=click.Path(path_type=Path),
    default=None,
    help="Graph store folder (default: .kg/store under the current directory).",
)


def _format_option(*choices: str, help: str | None = None):
    """``--format``, one of ``choices``, the first by default."""
    return click.option("--format", "fmt", type=click.Choice(choices), default=choices[0], show_default=True, help=help)


def _table_options(*formats: str):
    """``--format`` (``table``, the default, or one of ``formats``) and ``--max-width``, for a command that prints a table."""
    width = click.option(
        "--max-width",
        type=click.IntRange(min=0),
        default=None,
        metavar="N",
        help=f"Cut table cells longer than N characters, ending them with … (default: {CELL_WIDTH}, "
        "and on a terminal the table fits its width; 0: whole cells). Other formats are never cut.",
    )
    return lambda command: _format_option("table", *formats)(width(command))


def _page_out_option(default: str):
    """``--out``/``-o`` for a command that writes a page, whose default is ``default``."""
    return click.option(
        "--out",
        "-o",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help=f"Where --viz writes the page (default: {default}; with another --store, in STORE-exports/ beside it).",
    )


def _limit_option(default: int, what: str):
    """``--limit N``, how many of ``what`` are shown; 0 is all of them."""
    return click.option("--limit", type=click.IntRange(min=0), default=default, show_default=True, help=f"{what} (0: all).")


def _quiet_option(what: str):
    """``--quiet``/``-q``: ``what`` is left out."""
    return click.option("--quiet", "-q", is_flag=True, help=f"No {what}.")


_CORPUS_FORMAT_OPTION = click.option(
    "--format",
    "corpus_format",
    type=click.Choice(["auto", "pubmed", "atom", "bibtex", "ris", "openalex", "s2", "arxiv", "csl-json", "jsonl", "conference", "daily"]),
    default="auto",
    show_default=True,
    help="Force one reader for every input instead of detecting it per file.",
)
_STRICT_OPTION = click.option(
    "--strict",
    is_flag=True,
    help="Stop at the first bad record (a line that is not JSON, no abstract, too long ...) instead of skipping it with a warning.",
)
_CONCEPTS_OPTION = click.option(
    "--concepts",
    type=click.Choice(CONCEPT_MODES),
    default=DEFAULT_CONCEPTS,
    show_default=True,
    help='How concepts are found: the trained recogniser alone (default), with the lexicon, with all rules, or the rules alone (README, "Quality, measured").',
)


def _progress(description: str, quiet: bool):
    """A function that wraps a stream of per-paper items in a progress bar on stderr."""
    from tqdm import tqdm

    def wrap(items, total: int):
        return tqdm(items, total=total, desc=description, unit=" papers", file=sys.stderr, disable=True if quiet else None)

    return wrap


_JOBS_OPTION = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Extraction worker processes on this machine (each loads the model once; at most one per CPU kg may use, with a warning when capped); "
    "results are the same for any number.",
)


def _cluster_address(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from kg.extract.executors import parse_cluster

    try:
        if value is not None:
            parse_cluster(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from exc
    return value


_CLUSTER_OPTION = click.option(
    "--cluster",
    metavar="ADDRESS|local:N",
    default=None,
    callback=_cluster_address,
    help="Extract on a Dask cluster instead (pip install 'kg[cluster]'): tcp://HOST:PORT connects to a running scheduler "
    "whose workers have kg installed; local:N starts N worker processes on this machine (127.0.0.1 only, no dashboard) and stops them after. "
    "Work goes out in batches, a few per worker at a time; the graph is the same as without. Not with --jobs.",
)


def _jobs_options(command):
    return _JOBS_OPTION(_CLUSTER_OPTION(command))


def _check_executor(jobs: int, cluster: str | None) -> None:
    if cluster is not None and jobs > 1:
        raise click.UsageError("--cluster and --jobs: choose one (a cluster's workers are its processes)")


def _extractor(concepts: str, jobs: int = 1, cache: Path | None = None, merge: tuple[Path, ...] = (), cluster: str | None = None):
    """The spaCy extractor (in this process, ``jobs`` processes or the Dask ``cluster``),
    behind the extraction cache at ``cache`` when one (or a shard to merge) is given."""
    from kg.extract.extractor import SpacyExtractor

    extractor = SpacyExtractor(concepts=concepts, jobs=jobs, cluster=cluster)
    if cache is None and not merge:
        return extractor
    from kg.extract.cache import CachingExtractor, ExtractionCache, Shard

    # Every shard is checked (an SQLite cache of this pipeline version) before the
    # local cache is touched; --no-cache still takes their records, in memory.
    version = extractor.version
    shards = [Shard(path, version) for path in merge]
    return CachingExtractor(extractor, ExtractionCache(cache, version), shards=shards)


def _cache_path(cache: Path | None, no_cache: bool, store: Path) -> Path | None:
    return None if no_cache else cache or store.parent / "extractions.sqlite"


_CACHE_OPTIONS = [
    click.option(
        "--cache",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Extraction cache file (default: extractions.sqlite beside the store): unchanged abstracts are not extracted again.",
    ),
    click.option("--no-cache", is_flag=True, help="Extract every abstract afresh and keep no cache."),
]


def _cache_options(command):
    for option in reversed(_CACHE_OPTIONS):
        command = option(command)
    return command


def _store_path(store: Path | None) -> Path:
    from kg.graph import DEFAULT_STORE

    return store or DEFAULT_STORE


def _default_output(default: Path, store: Path | None) -> Path:
    """Where an output whose default is ``default`` (under exports/) goes unless
    told: there for the default store; for another --store, in STORE-exports/
    beside it, so that a second store's page or export never replaces the first's."""
    from kg.graph import DEFAULT_STORE

    if store is None or store.resolve() == DEFAULT_STORE.resolve():
        return default
    named = store if store.name not in ("", "..") else store.resolve()  # "." and ".." name no folder
    return named.parent / f"{named.name or 'store'}-exports" / default.relative_to(default.parts[0])


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kg")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Turn research-paper abstracts into a knowledge graph you can query and export.

    Typical use: `kg build` (reads corpus/), then `kg query ...` and `kg export`.
    """
    ctx.obj = {"debug": debug}


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@_STORE_OPTION
@_CORPUS_FORMAT_OPTION
@click.option("--extract/--no-extract", default=True, show_default=True, help="Run the spaCy extraction (concepts, claims, relations).")
@_STRICT_OPTION
@_CONCEPTS_OPTION
@_jobs_options
@_cache_options
@click.option(
    "--cache-from",
    "merge",
    multiple=True,
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="Take extractions from another cache file first, e.g. one `kg extract --shard` filled (repeatable). "
    "Only its records of this build's abstracts are taken, each checked against its abstract: one that fails is counted in a warning "
    "and its paper extracted afresh. A file that is not such a cache, or holds only another pipeline version's records, is an error.",
)
@click.option(
    "--page/--no-page",
    default=True,
    show_default=True,
    help="Also write the overview page, a concept map (it reads the whole graph: skip it for huge corpora).",
)
@click.option(
    "--out",
    "-o",
    "page_out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Where the overview page goes (default: exports/kg.html; with another --store, STORE-exports/kg.html beside that store).",
)
@click.option(
    "--incremental/--afresh",
    default=True,
    show_default=True,
    help="Add new papers to the previous graph when that gives exactly the graph a fresh build would (it says when it cannot), or always build afresh.",
)
@click.option(
    "--timings",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write where the time went to this JSON file: seconds per stage (read, link papers, extract, link concepts, "
    "write store, build state, page) and peak memory of this process and of its largest worker.",
)
@_quiet_option("progress bar or summary")
def build(
    paths: tuple[Path, ...],
    store: Path | None,
    corpus_format: str,
    extract: bool,
    strict: bool,
    concepts: str,
    jobs: int,
    cluster: str | None,
    cache: Path | None,
    no_cache: bool,
    merge: tuple[Path, ...],
    page: bool,
    page_out: Path | None,
    incremental: bool,
    timings: Path | None,
    quiet: bool,
) -> None:
    """Read PATHS (files or folders; default: corpus/) and build the graph store.

    The store then holds exactly the graph of PATHS: building again with other
    inputs replaces it, and a failed or interrupted build leaves the previous
    store and page as they were. Only a store kg built is replaced: a --store
    folder holding anything else is refused. Bad records are skipped with a warning that counts them
    (--strict: an error).
    Abstracts the extraction cache already holds (for this pipeline version)
    are not extracted again. New papers (a new file, lines appended to one)
    are added to the previous build's graph instead of building it again,
    when that gives the same graph (the summary says which it did).
    The overview page goes to exports/kg.html, or for another --store to
    STORE-exports/kg.html beside it, as every command's default outputs do.
    """
    from kg.graph.store import store_target
    from kg.pipeline import build as run_build
    from kg.stages import Stages
    from kg.views import DEFAULT_PAGE

    if page_out is not None and not page:
        raise click.UsageError("--out names the overview page, which --no-page leaves out")
    _check_executor(jobs, cluster)
    page_out = page_out or _default_output(DEFAULT_PAGE, store)
    store = _store_path(store)
    # A folder kg may not replace is refused before anything is made (the cache beside it too).
    extractor = _extractor(concepts, jobs, _cache_path(cache, no_cache, store_target(store)), merge, cluster) if extract else None
    drafts = []
    stages = Stages()

    def draw_page(graph):  # from the new graph, before it is swapped in: a page that cannot be written changes nothing
        from kg.views import draft

        drafts.append(draft(graph, out=page_out))
        return drafts[-1][1].commit

    try:
        report = run_build(
            paths or [DEFAULT_CORPUS],
            store=store,
            format=None if corpus_format == "auto" else corpus_format,
            extractors=[extractor] if extractor else [],
            progress=_progress("building graph", quiet),
            strict=strict,
            incremental=incremental,
            finish=draw_page if page else None,
            stages=stages,
        )
    finally:
        for _, unused in drafts:
            unused.discard()  # nothing, once committed
    if timings is not None:
        try:
            stages.write(timings)
        except OSError as exc:
            raise KgError(f"{timings}: cannot write the timings ({exc.strerror or exc}); the build itself is done") from exc
    if not quiet:
        counted = extractor.extracted if extractor is not None and hasattr(extractor, "extracted") else None  # only the cache counts them
        if report.added is not None:
            how = f"added {report.added} new papers to the previous graph" if report.added else "the previous graph already had every paper"
            from_cache = report.added - counted if counted is not None else None
        else:
            how = f"built afresh: {report.rebuilt_because}"
            from_cache = report.papers - counted if counted is not None else None
        extracted = f"; {counted} abstracts extracted, {from_cache} from the cache" if from_cache is not None else ""
        click.echo(
            f"Built {store}: {report.papers} papers ({report.records} records from {report.files} files, "
            f"{report.duplicates} duplicates merged), {report.authors} authors, {report.triples} triples{extracted} ({how})."
        )
    if drafts and not quiet:
        view, drawn = drafts[-1]
        click.echo(
            f"Wrote {drawn.out}: {len(view.nodes)} nodes, {len(view.edges)} links (open it in a browser; `kg viz --help` draws other parts)."
        )


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", "-o", type=click.Path(path_type=Path), default=None, help="Write JSON Lines here (default: standard output).")
@_CORPUS_FORMAT_OPTION
@_STRICT_OPTION
@_CONCEPTS_OPTION
@_jobs_options
@click.option(
    "--shard",
    default=None,
    metavar="I/N",
    help="Only shard I of N (0 <= I < N): a fixed share of the papers, by their IRI, for running N machines.",
)
@click.option(
    "--cache",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Also keep the extractions in this cache file (give it to `kg build --cache-from`).",
)
@_quiet_option("progress bar")
def extract(
    paths: tuple[Path, ...],
    out: Path | None,
    corpus_format: str,
    strict: bool,
    concepts: str,
    jobs: int,
    cluster: str | None,
    shard: str | None,
    cache: Path | None,
    quiet: bool,
) -> None:
    """Run only the extraction on PATHS (default: corpus/) and write one JSON object per paper.

    Each line: {"id", "title", "concepts": [{"type", "text", "start", "end",
    "label", "proposed", "confidence"}], "claims": [{"text", "start", "end",
    "confidence"}], "relations": [{"head", "type", "tail", "start", "end"}]}.
    Offsets are characters of the normalised abstract. Same input, same bytes.
    """
    from kg.pipeline import extract_jsonl

    _check_executor(jobs, cluster)
    lines = extract_jsonl(
        paths or [DEFAULT_CORPUS],
        _extractor(concepts, jobs, cache, cluster=cluster),
        format=None if corpus_format == "auto" else corpus_format,
        progress=_progress("extracting", quiet),
        shard=_parse_shard(shard),
        strict=strict,
    )
    if out is None:
        for line in lines:
            click.echo(line)
        return
    from kg.export import write_atomically

    write_atomically(out, lambda handle: handle.writelines((line + "\n").encode("utf-8") for line in lines))
    if not quiet:
        click.echo(f"Wrote extractions to {out}", err=True)


def _parse_shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 0 <= int(index) < int(count)):
        raise click.BadParameter(f"{text!r}: expected I/N with 0 <= I < N, e.g. 0/4", param_hint="--shard")
    return int(index), int(count)


#: ``kg eval --only`` names (kg.training.evaluation.NAMES, which a test checks; listed here so --help needs no spaCy).
_EVAL_NAMES = ("scier", "scirex", "scierc", "claims", "devset", "arxiv-dev", "arxiv-test")


@cli.command(name="eval")
@click.option(
    "--benchmarks",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    metavar="DIR",
    help="Folder of the benchmark files: DIR/scier/test.jsonl and test_ood.jsonl, DIR/scirex/abstracts.jsonl, DIR/scierc/test.jsonl, "
    "DIR/csabstruct/test.jsonl, train.jsonl and dev.jsonl (default: ../shared/benchmarks beside the repository).",
)
@click.option(
    "--shared",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    metavar="DIR",
    help="Folder holding the arXiv corpus that arxiv-dev and arxiv-test read, DIR/corpora/arxiv-cs-2025/abstracts.jsonl.gz "
    "(default: ../shared beside the repository).",
)
@click.option(
    "--devset",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    metavar="FILE",
    help="Hand-checked dev set, JSON Lines (default: the repository's tests/data/devset.jsonl).",
)
@click.option(
    "--only",
    type=click.Choice(_EVAL_NAMES),
    multiple=True,
    help="Run only these benchmarks (repeatable). Default: all but arxiv-test, the held-out set, which runs only when named.",
)
@_table_options("csv", "json")
@_quiet_option("progress bar")
def evaluate(
    benchmarks: Path | None, shared: Path | None, devset: Path | None, only: tuple[str, ...], fmt: str, max_width: int | None, quiet: bool
) -> None:
    """Score the extraction pipelines (the default and its baseline) on SciER
    test and test_ood (concepts and mapped relations), the SciREX held-out
    split, SciERC test, CSAbstruct test claim sentences (deduplicated), the
    hand-checked dev set and kg's arXiv dev annotation, each figure beside its
    published or measured baseline.

    All figures are strict precision / recall / F1 in percent. The benchmark
    files are expected in ../shared/benchmarks beside the repository (--benchmarks
    DIR points elsewhere), the arXiv corpus in
    ../shared/corpora/arxiv-cs-2025/abstracts.jsonl.gz (--shared DIR). What
    is there runs: a benchmark whose files are missing is skipped with one
    line on stderr naming the file it expects and the option that points
    there, and a last line counts what was skipped. The exit code is 0 when
    any benchmark ran, 2 when none could.
    """
    from kg.training.evaluation import Locations, result_table, run_benchmarks

    where = Locations(benchmarks, shared, *([devset] if devset is not None else []))

    def skipped(title: str, why: str) -> None:
        click.echo(f"kg: skipped {title}: {why}", err=True)

    rows, missed = run_benchmarks(only, where, progress=lambda description: _progress(description, quiet), on_skip=skipped)
    if not rows:
        raise KgError(f"no benchmark could run ({len(missed)} skipped, see above); point --benchmarks, --shared or --devset at their files")
    header, table = result_table(rows)
    click.echo(_tabular(header, table, fmt, max_width), nl=False)
    if missed:
        ran = list(dict.fromkeys(row.benchmark for row in rows))
        click.echo(
            f"kg: ran {len(ran)} ({', '.join(ran)}); skipped {len(missed)} ({', '.join(title for title, _ in missed)}): "
            "the lines above say which file each expects",
            err=True,
        )


def _tabular(header: list[str], rows: list[list], fmt: str, max_width: int | None = None) -> str:
    """Rows as an aligned table (no control character raw, cells cut as --max-width
    says: :func:`_table_width`), CSV or a JSON list of objects."""
    import csv
    import io
    import json

    if fmt == "json":
        return json.dumps([dict(zip(header, row)) for row in rows], indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return buffer.getvalue()
    from kg.query.results import table

    return table(header, rows, *_table_width(max_width)) + "\n"


def _table_width(max_width: int | None) -> tuple[int | None, int | None]:
    """(cell width, terminal width) of a table: --max-width N cuts cells at N
    (0: never); by default at CELL_WIDTH, and a table on a terminal fits its width."""
    if max_width is not None:
        return max_width or None, None
    return CELL_WIDTH, shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def _finite(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """Refuses nan and inf, which every bound of a FloatRange lets through."""
    if not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number", ctx, param)
    return value


_TIMEOUT_OPTION = click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    callback=_finite,
    default=60,
    show_default=True,
    metavar="SECONDS",
    help="Stop a query still running after this long, with an error (0: no limit).",
)


@cli.command()
@click.argument("sparql", required=False)
@click.option("-f", "--file", "query_file", help="Read the query from a .rq file, or name a library query.")
@click.option("--param", "-p", "params", multiple=True, metavar="NAME=VALUE", help="Bind ?NAME to VALUE (repeatable); <...> makes an IRI.")
@_table_options("csv", "tsv", "json")
@click.option("--list", "list_library", is_flag=True, help="List the named queries of the library and exit.")
@click.option(
    "--prefixes",
    is_flag=True,
    help="Print the PREFIX lines of the predeclared prefixes (then the query, if one is given) and exit: "
    "what a kg query needs to run elsewhere, e.g. on `kg serve`'s page.",
)
@click.option("--endpoint", default=None, help="Run against a remote SPARQL 1.1 endpoint (its query URL) instead of the store.")
@click.option("--viz", is_flag=True, help="Draw a SELECT's rows as an interactive page instead of printing them.")
@click.option(
    "--draw",
    "draw_spec",
    metavar="'?S P ?O ; ...'",
    default=None,
    help="How --viz links each row's nodes: ?column PREDICATE ?column patterns "
    '(PREDICATE: a prefixed name, <IRI>, "label" or ?column), separated by ; '
    "(default: a library query's # draw: header, else each row as a star around its first column).",
)
@_page_out_option("exports/kg-query-NAME.html")
@_TIMEOUT_OPTION
@_STORE_OPTION
def query(
    sparql: str | None,
    query_file: str | None,
    params: tuple[str, ...],
    fmt: str,
    max_width: int | None,
    list_library: bool,
    prefixes: bool,
    endpoint: str | None,
    viz: bool,
    draw_spec: str | None,
    out: Path | None,
    timeout: float,
    store: Path | None,
) -> None:
    """Run a SPARQL query (SELECT, ASK, CONSTRUCT or DESCRIBE) against the store.

    Standard prefixes (kg, dcterms, foaf, skos, prov, rdf, rdfs, owl, xsd,
    paper, person, topic ...) are predeclared; --prefixes prints them as PREFIX
    lines. Values given with --param are bound as RDF terms, never pasted into
    the query text. SERVICE is refused: kg opens no connection but to
    --endpoint. A query still running after --timeout seconds stops with an
    error (exit 2); Ctrl-C stops it at once. In a table, cells longer than
    --max-width are cut.

    --viz draws a SELECT's rows instead: by --draw's patterns, or a library
    query's # draw: header, or else each row as a star, its first column's node
    linked to the row's other IRIs (each link labelled with its column's name).
    An empty answer gives a page that says so, and exit 1.
    """
    from kg.graph import open_store
    from kg.query import find_query, format_result, list_queries, run_query

    if list_library:
        rows = [f"{q.name}: {q.question}" + "".join(f"\n    --param {n}=...  {d}" for n, d in q.params.items()) for q in list_queries()]
        click.echo("\n".join(rows))
        return
    if sparql is not None and query_file is not None:
        raise click.UsageError("give a query as an argument or with -f FILE, not both")
    if prefixes:
        from kg.query.results import prefix_block

        text = sparql if query_file is None else find_query(query_file).sparql
        click.echo(prefix_block() + (f"\n{text.strip()}\n" if text else ""), nl=False)
        return
    if sparql is None and query_file is None:
        raise click.UsageError("give a query as an argument or with -f FILE")
    for given, name in ((draw_spec, "--draw"), (out, "--out")):
        if given is not None and not viz:
            raise click.UsageError(f"{name} goes with --viz")
    if viz and endpoint:
        raise click.UsageError("--viz draws from the store, not from an --endpoint")
    from kg.query.library import parse_draw

    patterns = parse_draw(draw_spec) if draw_spec is not None else None  # checked before the query runs
    bindings = dict(_split_param(p) for p in params)
    named = None
    if query_file is not None:
        named = find_query(query_file)
        sparql = named.sparql
        missing = [name for name in named.params if name not in bindings]
        if missing:
            raise click.UsageError(f"query {named.name!r} needs " + " ".join(f"--param {m}=VALUE" for m in missing))
    assert sparql is not None  # the argument, or the -f query: exactly one was given (checked above)
    if endpoint:
        from kg.query.remote import run_remote_query

        result = run_remote_query(endpoint, sparql, bindings, timeout=timeout)
    else:
        opened = open_store(_store_path(store))
        result = run_query(opened, sparql, bindings, timeout=timeout)
        if viz:
            _draw_query(opened, result, named, patterns, out or _default_output(_query_out(named), store))
            return
    click.echo(format_result(result, fmt, *_table_width(max_width)), nl=False)


def _query_out(named) -> Path:
    from kg.views import DEFAULT_PAGE, _slug

    return DEFAULT_PAGE.with_name(f"kg-query-{_slug(named.name) if named else 'select'}.html")


def _draw_query(store, result, named, patterns, out: Path) -> None:
    """`kg query --viz`: a SELECT's rows drawn by --draw's patterns, the query's # draw: header, or as stars."""
    from kg.errors import QueryError
    from kg.views.answer import answer_title, answer_view

    if result.kind != "select":
        raise QueryError(f"--viz draws a SELECT's rows; this is a {result.kind.upper()} query (`kg viz --query FILE.rq` draws a CONSTRUCT)")
    patterns = patterns if patterns is not None else (named.draw if named and named.draw else None)
    rows = [tuple(solution[v] for v in result.variables) for solution in result.solutions]
    title = answer_title(named.question, named.name, ()) if named else "kg: a SELECT query's answer"
    _write_answer_page(store, answer_view(store, result.variables, rows, patterns, title), out)


def _split_param(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip().lstrip("?"):
        raise click.UsageError(f"--param {text!r}: expected NAME=VALUE")
    return name.strip().lstrip("?"), value


_NODE_TYPES = ["Method", "Dataset", "Task", "Metric", "Paper", "Author"]


def _graph(store: Path | None):
    from kg.analysis import load_graph
    from kg.graph import open_store

    return load_graph(open_store(_store_path(store)))


@cli.command()
@click.option(
    "--by",
    "measure",
    type=click.Choice(["specificity", "pagerank", "degree", "betweenness"]),
    default="specificity",
    show_default=True,
    help="Rank by specificity (see above) or by one centrality alone.",
)
@click.option("--type", "types", multiple=True, type=click.Choice(_NODE_TYPES), help="Only these types (repeatable; default: all).")
@_limit_option(10, "Rows per type")
@_table_options("csv", "json")
@_STORE_OPTION
def top(measure: str, types: tuple[str, ...], limit: int, fmt: str, max_width: int | None, store: Path | None) -> None:
    """The most important concepts, papers and authors, per type.

    By default concepts rank by specificity: PageRank x log(N / papers) /
    (1 + narrower), where PageRank is computed on the whole graph of papers,
    authors and concepts and their links, N is the number of papers, `papers`
    those that mention the concept and `narrower` the concepts the hierarchy
    puts below it; concepts only one paper mentions come after those that
    recur. So specific methods and datasets (CLIP, RLHF, ImageNet) come before
    families such as "neural network". Papers and authors rank by PageRank.
    --by pagerank, degree or betweenness ranks every type by that centrality
    alone. `papers`: how many papers mention the concept, or the author wrote
    (blank for a paper).
    """
    from kg.analysis import top as rank

    rows = rank(_graph(store), measure, types or tuple(_NODE_TYPES), limit)
    click.echo(
        _tabular(
            ["type", "rank", "label", measure, "papers", "iri"],
            [[r.type, r.rank, r.label, f"{r.score:.6g}", r.papers, r.iri] for r in rows],
            fmt,
            max_width,
        ),
        nl=False,
    )


@cli.command()
@_limit_option(10, "Communities to list, largest first")
@click.option("--members", type=click.IntRange(min=1), default=8, show_default=True, help="Members listed per community.")
@click.option(
    "--resolution",
    type=click.FloatRange(min=0, min_open=True),
    callback=_finite,
    default=1.0,
    show_default=True,
    help="Louvain resolution: higher gives more, smaller communities.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Louvain seed; the same seed gives the same communities.")
@_table_options("csv", "json")
@_STORE_OPTION
def communities(limit: int, members: int, resolution: float, seed: int, fmt: str, max_width: int | None, store: Path | None) -> None:
    """Topic communities of concepts (Louvain on concept co-occurrence), with
    their best-connected members and the papers that mention most of them."""
    import dataclasses
    import json

    from kg.analysis import communities as find

    found = find(_graph(store), resolution=resolution, seed=seed)
    found = found[:limit] if limit else found
    if not found:
        click.echo(
            f"kg: no community of 3 or more concepts at --resolution {resolution:g} (a lower resolution gives fewer, larger ones)", err=True
        )
        if fmt == "table":
            return
    if fmt == "json":
        click.echo(json.dumps([dataclasses.asdict(c) for c in found], indent=2, ensure_ascii=False))
        return
    rows = [[c.number, c.size, "; ".join(m.label for m in c.members[:members]), "; ".join(p.label for p in c.papers[:3])] for c in found]
    click.echo(_tabular(["community", "size", "members", "papers"], rows, fmt, max_width), nl=False)


_MAX_PATHS = 100  # each further path costs a search per node of the one before: thousands take minutes


@cli.command()
@click.argument("source")
@click.argument("target")
@click.option(
    "-k", "--paths", "k", type=click.IntRange(min=1, max=_MAX_PATHS), default=3, show_default=True, help="How many paths (shortest first)."
)
@click.option(
    "--through",
    multiple=True,
    type=click.Choice(_NODE_TYPES),
    help="Only pass through these types (repeatable), e.g. --through Dataset --through Paper.",
)
@click.option("--max-hops", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--evidence", is_flag=True, help="Show the paper and sentence behind each hop.")
@_table_options("csv", "json")
@_STORE_OPTION
def path(
    source: str,
    target: str,
    k: int,
    through: tuple[str, ...],
    max_hops: int,
    evidence: bool,
    fmt: str,
    max_width: int | None,
    store: Path | None,
) -> None:
    """How two things are connected: the shortest paths from SOURCE to TARGET.

    SOURCE and TARGET are concept labels, paper titles or author names
    (case-insensitive) or IRIs. Each hop is a statement of the graph
    (authorship, mention, a relation between concepts, the hierarchy);
    --evidence adds the paper and sentence behind it. Exit code 1 when no
    path exists; 2 when SOURCE and TARGET name the same thing.
    """
    from kg.analysis import paths, resolve

    graph = _graph(store)
    found = paths(graph, resolve(graph, source), resolve(graph, target), k, through or None, max_hops)
    if not found:
        click.echo(
            f"kg: no path from {source!r} to {target!r} within {max_hops} hops" + (f" through {', '.join(through)}" if through else ""),
            err=True,
        )
        raise click.exceptions.Exit(1)
    header = ["path", "hop", "from", "relation", "to"] + (["evidence paper", "evidence sentence"] if evidence else [])
    rows = []
    for found_path in found:
        for number, hop in enumerate(found_path.hops, start=1):
            arrow = f"--{hop.relation}-->" if hop.forward else f"<--{hop.relation}--"
            row = [found_path.number, number, hop.source_label, arrow, hop.target_label]
            if evidence:
                first = next((e for e in hop.evidence if e.sentence), hop.evidence[0] if hop.evidence else None)
                row += [first.paper_label if first else "", first.sentence or "" if first else ""]
            rows.append(row)
    click.echo(_tabular(header, rows, fmt, max_width), nl=False)


@cli.command()
@click.argument("paper")
@_limit_option(10, "Papers to list")
@click.option("--shared", type=click.IntRange(min=1), default=5, show_default=True, help="Shared concepts listed per paper.")
@_table_options("csv", "json")
@_STORE_OPTION
def similar(paper: str, limit: int, shared: int, fmt: str, max_width: int | None, store: Path | None) -> None:
    """Papers sharing the most concepts with PAPER (a title, label or IRI),
    each shared concept weighted by how rare it is in the corpus."""
    from kg.analysis import resolve
    from kg.analysis import similar as find

    graph = _graph(store)
    found = find(graph, resolve(graph, paper, {"Paper"}), limit)
    rows = [[s.rank, s.label, f"{s.score:.3f}", "; ".join(c.label for c in s.shared[:shared]), s.iri] for s in found]
    click.echo(_tabular(["rank", "paper", "score", "shared concepts", "iri"], rows, fmt, max_width), nl=False)


@cli.command()
@click.argument("concepts", nargs=-1, metavar="[CONCEPT]...")
@click.option(
    "--period",
    type=click.Choice(["auto", "year", "quarter", "month"]),
    default="auto",
    show_default=True,
    help="Count papers per year, quarter or month (auto: by month up to 24 months of dates, by quarter up to 6 years, else by year).",
)
@click.option(
    "--min-papers",
    type=click.IntRange(min=1),
    default=None,
    help="Rank only concepts in this many dated papers or more (default: 5, or one in a thousand dated papers when that is more).",
)
@_limit_option(10, "Rising and falling concepts listed")
@click.option(
    "--chart",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Where the chart page goes (default: exports/kg-trends.html; with another --store, in STORE-exports/ beside that store).",
)
@click.option("--no-chart", is_flag=True, help="Print the figures only.")
@_table_options("csv", "json")
@_STORE_OPTION
def trends(
    concepts: tuple[str, ...],
    period: str,
    min_papers: int | None,
    limit: int,
    chart: Path | None,
    no_chart: bool,
    fmt: str,
    max_width: int | None,
    store: Path | None,
) -> None:
    """Concepts over time, from the papers' dates (JSONL `year` or `date`, a conference's year).

    With CONCEPTs (any of their names): papers mentioning each, per period.
    Without: the fastest-rising and -falling concepts, by growth of their
    share of each period's papers (only concepts in --min-papers dated papers
    rank). Writes a chart page (SVG, offline) too.
    """
    from kg.analysis import resolve
    from kg.analysis.trends import trends as find_trends
    from kg.errors import KgError
    from kg.views.chart import DEFAULT_CHART, trend_page
    from kg.views.page import write_page

    graph = _graph(store)
    found = find_trends(graph, period, min_papers)
    if not found.periods:
        raise KgError("no paper in the graph has a date: give `year` or `date` in the input (JSON Lines), or a conference year")
    if concepts:
        chosen = []
        for name in concepts:
            iri = resolve(graph, name, {"Method", "Dataset", "Task", "Metric"})
            trend = found.get(iri)
            if trend is None:
                raise KgError(f"{graph.nodes[iri]['label']!r} is in no dated paper")
            chosen.append(trend)
        header = [found.period, "papers", *(c.label for c in chosen)]
        rows = [[p, n, *(c.counts[i] for c in chosen)] for i, (p, n) in enumerate(zip(found.periods, found.papers, strict=True))]
        panels = [("Papers mentioning each", chosen)]
        title = "kg trends: " + ", ".join(c.label for c in chosen)
    else:
        rising, falling = found.ranked(limit), found.ranked(limit, falling=True)
        header = ["direction", "rank", "concept", "type", "papers", "growth", f"per {found.period}", "iri"]
        rows = [
            [direction, rank, c.label, c.type, c.total, f"{c.growth:+.3f}", " ".join(map(str, c.counts)), c.iri]
            for direction, ranked in (("rising", rising), ("falling", falling))
            for rank, c in enumerate(ranked, start=1)
        ]
        panels = [("Fastest rising", rising[:7]), ("Fastest falling", falling[:7])]
        title = f"kg trends: {found.periods[0]} to {found.periods[-1]}, by {found.period}"
    click.echo(_tabular(header, rows, fmt, max_width), nl=False)
    if len(found.periods) == 1:
        click.echo(f"Every dated paper is in {found.periods[0]}: one {found.period}, so nothing rises or falls.", err=True)
    if not no_chart:
        page = write_page(trend_page(found, panels, title), chart or _default_output(DEFAULT_CHART, store))
        click.echo(f"Wrote {page} (open it in a browser).", err=True)


@cli.command()
@click.argument("name")
@click.option(
    "--type", "concept_type", type=click.Choice(["Method", "Dataset", "Task", "Metric"]), default=None, help="Only concepts of this type."
)
@_limit_option(10, "Papers to list per concept")
@_format_option("text", "json")
@_STORE_OPTION
def concept(name: str, concept_type: str | None, limit: int, fmt: str, store: Path | None) -> None:
    """Show what the graph knows about a concept, found by any of its names.

    Prints its preferred label, type, other labels, Wikidata link, broader and
    narrower concepts, the papers that mention it (with a sentence each) and,
    for every way the corpus writes it, why that spelling was merged into it.
    NAME is matched case-insensitively against preferred and alternative
    labels; an unknown NAME lists close matches and exits with code 2.
    """
    import dataclasses
    import json

    from kg.graph import open_store
    from kg.query.concepts import describe_concepts

    reports = describe_concepts(open_store(_store_path(store)), name, concept_type)
    if fmt == "json":
        click.echo(json.dumps([dataclasses.asdict(r) for r in reports], indent=2, ensure_ascii=False))
        return
    click.echo("\n\n".join(_concept_text(r, limit) for r in reports))


def _concept_text(report, limit: int) -> str:
    proposing = sum(p.proposed for p in report.papers)
    lines = [f"{report.pref_label}  ({report.type})  <{report.iri}>"]
    if report.exact_match:
        lines.append(f"  same as: <{report.exact_match}>")
    if report.alt_labels:
        lines.append("  also: " + "; ".join(report.alt_labels))
    lines.append(
        f"  mentioned by {len(report.papers)} paper{'s' if len(report.papers) != 1 else ''}"
        + (f", proposed by {proposing}" if proposing else "")
    )
    for related in report.hierarchy:
        lines.append(f"  {related.direction}: {related.label}  [{related.rules}]")
    lines.append("  forms, and why each is this concept:")
    for form in report.forms:
        lines.append(f"    {form.text!r} x{form.mentions}: {form.rules}" + (f" ({form.notes})" if form.notes else ""))
    lines.append("  papers:")
    shown = report.papers if limit == 0 else report.papers[:limit]
    for paper in shown:
        lines.append(f"    {'[proposes] ' if paper.proposed else ''}{paper.label}  <{paper.iri}>")
        lines.append(f'      "{paper.evidence}"')
    if len(shown) < len(report.papers):
        lines.append(f"    ... and {len(report.papers) - len(shown)} more (--limit 0 shows all)")
    return "\n".join(lines)


@cli.command()
@click.option(
    "--focus", metavar="LABEL", default=None, help="Draw the neighbourhood of this concept, paper or author (label, title, name or IRI)."
)
@click.option("--depth", type=click.IntRange(min=1), default=None, help="Hops around --focus drawn (default: 1).")
@click.option(
    "--path", "path_ends", nargs=2, metavar="A B", default=None, help="Draw the shortest paths from A to B, as `kg path A B` finds them."
)
@click.option(
    "--community",
    type=click.IntRange(min=1),
    default=None,
    help="Draw community N of `kg communities`: its concepts and the papers linking them.",
)
@click.option(
    "--query",
    "query_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Draw the triples of the SPARQL CONSTRUCT (or DESCRIBE) query in FILE.rq.",
)
@_limit_option(
    300,
    "Most nodes drawn: the concepts in most papers (the map), the papers naming most concepts (--papers), else the most central; "
    "the page says what was left out",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    default=None,
    help="Output page (default: exports/kg.html for the concept map, exports/kg-papers.html, kg-graph.html, kg-focus-LABEL.html, "
    "kg-path-A--B.html ... for the others; with another --store, the same names in STORE-exports/ beside that store).",
)
@click.option("--title", default=None, help="Page title (default: says what is drawn).")
@click.option("--papers", is_flag=True, help="A map of papers, linked by the concepts they share (as `kg similar` weighs them).")
@click.option("--whole", is_flag=True, help="Every kind of node (papers, authors, concepts), the --limit most central.")
@click.option(
    "--min-papers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="The concept map: only concepts in this many papers or more.",
)
@_STORE_OPTION
def viz(
    focus: str | None,
    depth: int | None,
    path_ends: tuple[str, str] | None,
    community: int | None,
    query_file: Path | None,
    limit: int,
    out: Path | None,
    title: str | None,
    papers: bool,
    whole: bool,
    min_papers: int,
    store: Path | None,
) -> None:
    """Draw the graph, or part of it, as one interactive HTML page that works offline.

    With no option: a map of concepts (the --limit with most papers): sized by
    papers, linked by co-occurrence (association strength) and by the
    relations the text states, coloured by community, labelled where names
    fit (zoom in for more). --papers maps papers instead; --whole draws every
    kind of node. --focus LABEL [--depth N], --path A B, --community N or
    --query FILE.rq draw one neighbourhood, the paths between two things, one
    topic community, or a CONSTRUCT query's triples. Hover for the sentences
    behind a node or link, click for details. An unknown name lists close
    matches (exit 2); exit 1 when --path finds no path.
    """
    chosen = [
        name
        for name, value in (
            ("--focus", focus),
            ("--path", path_ends),
            ("--community", community),
            ("--query", query_file),
            ("--papers", papers or None),
            ("--whole", whole or None),
        )
        if value is not None
    ]
    if len(chosen) > 1:
        raise click.UsageError(f"{' and '.join(chosen)}: choose one of them")
    if depth is not None and focus is None:
        raise click.UsageError("--depth goes with --focus")
    from kg.graph import open_store
    from kg.views import ViewSpec, default_out, draw

    if min_papers > 1 and chosen:
        raise click.UsageError("--min-papers goes with the concept map (no --focus, --path, --community, --query, --papers or --whole)")
    ends = (path_ends[0], path_ends[1]) if path_ends else None
    spec = ViewSpec(focus, depth or 1, ends, community, query_file, limit, title, papers, whole, min_papers)
    view, page = draw(open_store(_store_path(store)), spec, out or _default_output(default_out(spec), store))
    click.echo(f"Wrote {page}: {len(view.nodes)} nodes, {len(view.edges)} links (open it in a browser).")


@cli.command()
@_format_option("ttl", "nt", "jsonld", "trig", "nq", "all", help="Turtle, N-Triples, JSON-LD, TriG, N-Quads, or all (the first four).")
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    default=None,
    help="Output file (default: exports/kg.FORMAT); with --format all, a folder (default: exports). "
    "With another --store, the default is STORE-exports/ beside that store.",
)
@click.option(
    "--graph",
    "graph_iri",
    default=None,
    metavar="IRI",
    help="Put the triples in this named graph in TriG and N-Quads (default: the default graph, as in the store).",
)
@click.option(
    "--license", "license_iri", default=None, help="License IRI for the VoID description (default: the SPDX MIT license of kg's output)."
)
@_STORE_OPTION
def export(fmt: str, out: Path | None, graph_iri: str | None, license_iri: str | None, store: Path | None) -> None:
    """Write the whole graph (sorted, deterministic) and its VoID description.

    Beside the export, void.ttl describes the dataset: triples, entities,
    class and property partitions, vocabularies, creation date and license.
    All the files are written first and then renamed into place together: a
    failed or interrupted export leaves every previous file as it was.
    """
    from kg.export import export_files
    from kg.export.serialize import DEFAULT_EXPORT
    from kg.graph import open_store

    graph = open_store(_store_path(store))
    formats = ["ttl", "nt", "jsonld", "trig"] if fmt == "all" else [fmt]
    folder = (
        (out or _default_output(DEFAULT_EXPORT.parent, store)) if fmt == "all" else (out or _default_output(DEFAULT_EXPORT, store)).parent
    )
    if folder.exists() and not folder.is_dir():
        raise click.BadParameter(
            f"{folder} is a file; with --format all, --out names a folder" if fmt == "all" else f"{folder} is a file, not a folder",
            param_hint="--out",
        )
    if out is not None and fmt != "all" and out.is_dir():
        raise click.BadParameter(f"{out} is a folder; give a file name, e.g. {out / ('kg.' + fmt)}", param_hint="--out")
    void = folder / "void.ttl"
    targets = {name: folder / f"{DEFAULT_EXPORT.name}.{name}" if fmt == "all" or out is None else out for name in formats}
    if void in targets.values():
        raise click.BadParameter(f"{void} is where the VoID description goes; give another file name", param_hint="--out")
    count = export_files(graph, targets, void=void, license_iri=license_iri, graph=graph_iri)
    for name, target in targets.items():
        named = f" (in graph <{graph_iri}>)" if graph_iri and name in ("trig", "nq") else ""
        click.echo(f"Wrote {count} triples to {target}{named}")
    click.echo(f"Wrote the VoID description to {void}")


@cli.command()
@click.argument("file", required=False, type=click.Path(path_type=Path))
@_limit_option(20, "Example violations to list")
@_table_options("csv", "json")
@_STORE_OPTION
def validate(file: Path | None, limit: int, fmt: str, max_width: int | None, store: Path | None) -> None:
    """Check the graph against the SHACL shapes (ontology/shapes.ttl) with pySHACL.

    Validates the store, or FILE (Turtle, N-Triples, JSON-LD, TriG ...) when
    given: of TriG and N-Quads, all the graphs. A JSON-LD @context is read
    only from a local file, never fetched. Prints each kind of violation with
    its count, then examples. Exit codes: 0 conforms, 1 violations, 2 error.
    """
    from kg.export.validate import validate_file, validate_store
    from kg.graph import open_store

    report = validate_file(file) if file is not None else validate_store(open_store(_store_path(store)))
    if fmt == "json":
        import dataclasses
        import json

        click.echo(json.dumps(dataclasses.asdict(report), indent=2, ensure_ascii=False))
    elif report.conforms:
        click.echo(f"Conforms: {report.triples} triples checked against ontology/shapes.ttl, no violations.")
    else:
        summary = [[count, constraint, path, message] for constraint, path, message, count in report.summary()]
        click.echo(f"Does not conform: {len(report.violations)} violations in {report.triples} triples.\n")
        click.echo(_tabular(["count", "constraint", "path", "message"], summary, fmt, max_width), nl=False)
        examples = report.violations if limit == 0 else report.violations[:limit]
        rows = [[v.focus, v.path, v.constraint, v.value] for v in examples]
        click.echo("\n" + _tabular(["focus node", "path", "constraint", "value"], rows, fmt, max_width), nl=False)
    if not report.conforms:
        raise click.exceptions.Exit(1)


@cli.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind; anything but a loopback address exposes the store to the network.",
)
@click.option("--port", type=click.IntRange(1, 65535), default=7878, show_default=True)
@click.option("--writable", is_flag=True, help="Accept SPARQL Update and Graph Store writes (default: read-only).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    callback=_finite,
    default=60,
    show_default=True,
    metavar="SECONDS",
    help="Longest a request may run; a query still unanswered then gets HTTP 503.",
)
@_STORE_OPTION
def serve(host: str, port: int, writable: bool, timeout: float, store: Path | None) -> None:
    """Serve the store over the SPARQL 1.1 Protocol, with a query page (YASGUI).

    Runs the Oxigraph server on the store folder behind a front that checks
    every request: the endpoint is http://HOST:PORT/query, the query page
    http://HOST:PORT/. SERVICE, queries nested too deeply or too long (HTTP
    400) and, unless --writable, updates (403) never reach the store.
    Read-only and on 127.0.0.1 unless asked; Ctrl-C stops it.
    """
    from kg.query.serve import serve as run_server

    if host not in {"127.0.0.1", "localhost", "::1"}:
        click.echo(f"kg: warning: binding to {host} makes the store reachable from other machines", err=True)
    run_server(_store_path(store), host, port, writable, timeout, announce=click.echo)


@cli.command()
@click.option(
    "--endpoint",
    required=True,
    help="The SPARQL 1.1 Graph Store Protocol URL, e.g. http://localhost:7878/store or http://host:3030/ds/data.",
)
@click.option("--graph", "graph_iri", default=None, help="Named graph to replace (default: the endpoint's default graph).")
@click.option(
    "--update-endpoint", default=None, help="SPARQL Update URL for the atomic swap of a chunked upload (default: guessed from --endpoint)."
)
@click.option("--chunk-size", type=click.IntRange(min=1), default=50_000, show_default=True, help="Triples per request.")
@click.option(
    "--in-place",
    is_flag=True,
    help="Replace the graph chunk by chunk, with no staging graph and no update endpoint (readers, and a failure, can see it part-way).",
)
@_STORE_OPTION
def push(endpoint: str, graph_iri: str | None, update_endpoint: str | None, chunk_size: int, in_place: bool, store: Path | None) -> None:
    """Upload the graph to another triple store, replacing its default graph (or --graph).

    Credentials come from KG_ENDPOINT_USER / KG_ENDPOINT_PASSWORD, ~/.netrc
    or the URL (USER:PASS@host, which other users' `ps` can see); HTTP Basic
    or Digest. A chunked upload goes into a staging graph and is moved into
    place with one SPARQL Update, so the replacement is atomic; without an
    update endpoint it is refused unless --in-place. A failed push says what
    state the remote graph is in and drops the staging graph. URLs are printed
    without credentials or query string.
    """
    from kg.export.push import push as upload
    from kg.graph import open_store
    from kg.query.http import redact

    if graph_iri is not None:
        from pyoxigraph import NamedNode

        try:
            NamedNode(graph_iri)
        except ValueError as exc:
            raise click.BadParameter(f"{graph_iri!r} is not an IRI", param_hint="--graph") from exc
    report = upload(open_store(_store_path(store)), endpoint, graph_iri, chunk_size, update_endpoint, in_place)
    how = "atomically" if report.atomic else "in place, chunk by chunk"
    graph = f"<{report.graph}>" if report.graph else "the default graph"
    click.echo(f"Pushed {report.triples} triples in {report.chunks} request(s) to {graph} at {redact(endpoint)}, replaced {how}.")


@cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("words", nargs=-1, type=click.UNPROCESSED, metavar="NAME [--PARAM VALUE]...")
@click.option("--evidence", is_flag=True, help="Also show the evidence columns (the paper and the sentence behind each row).")
@_table_options("csv", "json")
@_limit_option(0, "At most this many rows")
@click.option("--list", "list_library", is_flag=True, help="Describe each named question and its parameters, and exit.")
@click.option("--viz", is_flag=True, help="Draw the answer as an interactive page instead of printing it (as its # draw: header says).")
@_page_out_option("exports/kg-ask-NAME-VALUES.html")
@_TIMEOUT_OPTION
@_STORE_OPTION
def ask(
    words: tuple[str, ...],
    evidence: bool,
    fmt: str,
    max_width: int | None,
    limit: int,
    list_library: bool,
    viz: bool,
    out: Path | None,
    timeout: float,
    store: Path | None,
) -> None:
    """Ask a named question: run library query NAME with its parameters given as --PARAM VALUE.

    For example `kg ask methods-on-dataset --dataset Waymo` or `kg ask
    paper-proposes --paper "OmniRe: Omni Urban Scene Reconstruction"`.
    Concepts are named by any of their labels, papers by title or label,
    authors by name (any case); a name that matches nothing is an error with
    close matches (exit 2). Values are bound, never pasted into the query.
    Evidence columns are hidden unless --evidence is given. `kg ask --list`
    shows the questions.

    --viz draws the answer instead: the nodes its rows name and the links they
    state, each link with the sentences behind its rows (hover, or click for
    the panel); an empty answer gives a page that says so, and exit 1.
    """
    from kg.query import list_queries

    if list_library:
        click.echo("\n\n".join(_describe_question(q) for q in list_queries()))
        return
    name, params = _ask_words(words)
    if name is None:
        raise click.UsageError("name a question, e.g. `kg ask papers-mentioning --concept LoRA` (`kg ask --list` shows them)")
    if out is not None and not viz:
        raise click.UsageError("--out goes with --viz")
    from kg.graph import open_store
    from kg.query.ask import ParameterError, short_iri
    from kg.query.ask import ask as ask_question

    try:
        answer = ask_question(open_store(_store_path(store)), name, params, evidence=evidence or viz, limit=limit or None, timeout=timeout)
    except ParameterError as exc:
        wanted = " ".join(f"--{p} VALUE" for p in exc.takes) or "no parameters"
        problems = [f"missing --{p}" for p in exc.missing] + [f"unknown --{p}" for p in exc.unknown]
        raise click.UsageError(f"{'; '.join(problems)}: {exc.query} takes {wanted}") from exc
    if viz:
        from kg.views.answer import answer_out, asked_view

        _write_answer_page(answer.store, asked_view(answer), out or _default_output(answer_out(answer.query, list(params.values())), store))
        return
    rows = [list(row) for row in answer.rows]
    if fmt == "table":
        rows = [[short_iri(v) if isinstance(v, str) else v for v in row] for row in rows]
    click.echo(_tabular(list(answer.columns), rows, fmt, max_width), nl=False)
    if fmt == "table":
        click.echo(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")


def _write_answer_page(store, view, out: Path) -> None:
    """Write a drawn answer's page and say so; an empty answer's page says it is empty, and the exit code is 1."""
    from kg.views.answer import EmptyAnswerError, render_answer
    from kg.views.page import write_page

    page = write_page(render_answer(store, view), out)
    if not view.nodes:
        raise EmptyAnswerError(f"the answer has no rows; wrote {page}, which says so")
    click.echo(f"Wrote {page}: {len(view.nodes)} nodes, {len(view.edges)} links (open it in a browser).")


def _ask_words(words: tuple[str, ...]) -> tuple[str | None, dict[str, str]]:
    """``NAME --a X --b=Y`` -> (NAME, {"a": "X", "b": "Y"}); anything else is a usage error."""
    name, params, i = None, {}, 0
    while i < len(words):
        word = words[i]
        if word.startswith("--") and len(word) > 2:
            key, sep, value = word[2:].partition("=")
            if not sep:
                if i + 1 >= len(words):
                    raise click.UsageError(f"{word} needs a value")
                i, value = i + 1, words[i + 1]
            if key in params:
                raise click.UsageError(f"--{key} given twice")
            params[key] = value
        elif name is None and not word.startswith("-"):
            name = word
        else:
            raise click.UsageError(f"unexpected {word!r}: give the question's name once, then --PARAM VALUE pairs")
        i += 1
    return name, params


def _describe_question(query) -> str:
    lines = [f"{query.name}: {query.question}"]
    for param, description in query.params.items():
        kind = query.kinds.get(param)
        lines.append(f"    --{param} {(kind or 'value').upper()}  {description}")
    lines += [f"    | {line}" for line in query.notes.splitlines()]
    return "\n".join(lines)


def _show_warning(message, category, filename, lineno, file=None, line=None, _default=warnings.showwarning) -> None:
    """kg's own warnings as one ``kg: warning:`` line on stderr; others as Python shows them."""
    if issubclass(category, KgWarning):
        click.echo(f"kg: warning: {_one_line(message)}", err=True)
    else:
        _default(message, category, filename, lineno, file, line)


def _one_line(message) -> str:
    """A message as one line, whatever text (a query, a file's content, a file
    name with terminal escapes) it quotes."""
    text = " ".join(str(message).splitlines())
    try:
        from kg.query.results import printable
    except ImportError:  # a dependency missing (what is being reported, maybe): ascii() escapes every control too
        return ascii(text)[1:-1]
    return printable(text)


def _terminating(pid: int):
    """A SIGTERM handler: in process ``pid``, `kill` unwinds like Ctrl-C, so a
    build discards its half-written store; in a forked worker, the default."""

    def handler(signum, frame) -> None:
        if os.getpid() != pid:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise KeyboardInterrupt

    return handler


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning expected errors into one line and an exit code."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    with warnings.catch_warnings():
        warnings.simplefilter("always", KgWarning)
        warnings.showwarning = _show_warning
        previous = (
            signal.signal(signal.SIGTERM, _terminating(os.getpid())) if threading.current_thread() is threading.main_thread() else None
        )
        try:
            return _run(argv, debug)
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)


def _run(argv: list[str] | None, debug: bool) -> int:
    try:
        code = cli.main(args=argv, prog_name="kg", standalone_mode=False)
    except KgError as exc:
        if debug:
            raise
        click.echo(f"kg: error: {_one_line(exc)}", err=True)
        return exc.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt):  # click turns Ctrl-C into Abort, but not one during its own clean-up
        click.echo("kg: aborted", err=True)
        return 130
    except click.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx else "kg"
        click.echo(f"kg: error: {_one_line(exc.format_message())} (see `{command} --help`)", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        click.echo(f"kg: error: {_one_line(exc.format_message())}", err=True)
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except ModuleNotFoundError as exc:  # an install without one of kg's dependencies
        if debug:
            raise
        click.echo(
            f"kg: error: {_one_line(exc)}: kg is not installed with all its dependencies; reinstall it (pip install -e . in its checkout)",
            err=True,
        )
        return EXIT_INTERNAL
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        if debug:
            raise
        click.echo(f"kg: internal error: {type(exc).__name__}: {_one_line(exc)} (rerun with --debug for the traceback)", err=True)
        return EXIT_INTERNAL
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
