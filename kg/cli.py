"""The ``kg`` command: a thin layer that parses options, calls the library and
maps errors to exit codes.

Exit codes: 0 success; 1 findings (reserved for checks such as validation);
2 bad input or usage (one line on stderr); 3 an unexpected internal error.
``--debug`` shows the traceback instead of the one-line message.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kg import __version__
from kg.errors import KgError

EXIT_INTERNAL = 3
DEFAULT_CORPUS = Path("corpus")
_STORE_OPTION = click.option(
    "--store",
    type=click.Path(path_type=Path),
    default=None,
    help="Graph store folder (default: .kg/store under the current directory).",
)


_CORPUS_FORMAT_OPTION = click.option(
    "--format",
    "corpus_format",
    type=click.Choice(["auto", "conference", "daily", "jsonl"]),
    default="auto",
    show_default=True,
    help="Force one reader for every input instead of detecting it per file.",
)
_NER_OPTION = click.option(
    "--ner/--no-ner",
    default=False,
    show_default=True,
    help="Add the SciERC-trained recogniser to the rules (it scores lower on modern ML abstracts; see the README).",
)


def _progress(description: str, quiet: bool):
    """A function that wraps an iterable of papers in a progress bar on stderr."""
    from tqdm import tqdm

    def wrap(papers):
        return tqdm(papers, desc=description, unit=" papers", file=sys.stderr, disable=True if quiet else None)

    return wrap


def _extractor(ner: bool):
    from kg.extract.extractor import SpacyExtractor

    return SpacyExtractor(use_ner=ner)


def _store_path(store: Path | None) -> Path:
    from kg.graph import DEFAULT_STORE

    return store or DEFAULT_STORE


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
@_NER_OPTION
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary.")
def build(paths: tuple[Path, ...], store: Path | None, corpus_format: str, extract: bool, ner: bool, quiet: bool) -> None:
    """Read PATHS (files or folders; default: corpus/) and build the graph store.

    The store then holds exactly the graph of PATHS: building again with other
    inputs replaces it, and a failed build leaves the previous store as it was.
    """
    from kg.graph import open_store
    from kg.pipeline import build as run_build

    store = _store_path(store)
    report = run_build(
        paths or [DEFAULT_CORPUS],
        store=store,
        format=None if corpus_format == "auto" else corpus_format,
        extractors=[_extractor(ner)] if extract else [],
        progress=_progress("building graph", quiet),
    )
    if not quiet:
        triples = len(open_store(store))
        click.echo(
            f"Built {store}: {report.papers} papers ({report.records} records from {report.files} files, "
            f"{report.duplicates} duplicates merged), {report.authors} authors, {triples} triples."
        )


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", "-o", type=click.Path(path_type=Path), default=None, help="Write JSON Lines here (default: standard output).")
@_CORPUS_FORMAT_OPTION
@_NER_OPTION
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def extract(paths: tuple[Path, ...], out: Path | None, corpus_format: str, ner: bool, quiet: bool) -> None:
    """Run only the extraction on PATHS (default: corpus/) and write one JSON object per paper.

    Each line: {"id", "title", "concepts": [{"type", "text", "start", "end",
    "label", "proposed", "confidence"}], "claims": [{"text", "start", "end",
    "confidence"}], "relations": [{"head", "type", "tail", "start", "end"}]}.
    Offsets are characters of the normalised abstract. Same input, same bytes.
    """
    from kg.pipeline import extract_jsonl

    lines = extract_jsonl(
        paths or [DEFAULT_CORPUS],
        _extractor(ner),
        format=None if corpus_format == "auto" else corpus_format,
        progress=_progress("extracting", quiet),
    )
    if out is None:
        for line in lines:
            click.echo(line)
        return
    from kg.export import write_atomically

    write_atomically(out, lambda handle: handle.writelines((line + "\n").encode("utf-8") for line in lines))
    if not quiet:
        click.echo(f"Wrote extractions to {out}", err=True)


@cli.command(name="eval")
@click.option("--benchmarks", type=click.Path(path_type=Path, file_okay=False), default=None, help="Folder holding scierc/ and csabstruct/ (default: ../shared/benchmarks beside the repository).")
@click.option("--devset", type=click.Path(path_type=Path, dir_okay=False), default=None, help="Hand-checked dev set (default: tests/data/devset.jsonl).")
@click.option("--only", type=click.Choice(["scierc", "claims", "devset"]), multiple=True, help="Run only these benchmarks (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table", show_default=True)
def evaluate(benchmarks: Path | None, devset: Path | None, only: tuple[str, ...], fmt: str) -> None:
    """Score the extractor: SciERC test entities and relations, CSAbstruct test
    claim sentences (deduplicated) and the hand-checked dev set of the corpus.

    All figures are strict precision / recall / F1 in percent.
    """
    from kg.extract.evaluation import DEVSET, evaluate_claims, evaluate_devset, evaluate_scierc
    from kg.extract.pipeline import build_nlp

    wanted = set(only) or {"scierc", "claims", "devset"}
    path = devset or DEVSET
    if "devset" in wanted and not path.is_file():
        raise KgError(f"{path}: no dev set here; run from the repository root or pass --devset")
    # Both pipelines: the default (rules) and the one with the SciERC-trained kg_ner.
    pipelines = [build_nlp(use_ner=False), build_nlp(use_ner=True)]
    rows = []
    for nlp in pipelines:
        if "scierc" in wanted:
            rows += evaluate_scierc(nlp, benchmarks)
        if "devset" in wanted:
            rows += evaluate_devset(nlp, path)
    if "claims" in wanted:
        rows += evaluate_claims(benchmarks)
    header = ["benchmark", "pipeline", "measure", "label", "P", "R", "F1", "gold", "predicted", "correct"]
    table = [
        [r.benchmark, r.pipeline, r.measure, r.label, f"{100 * r.score.precision:.1f}", f"{100 * r.score.recall:.1f}", f"{100 * r.score.f1:.1f}", r.score.gold, r.score.predicted, r.score.correct]
        for r in sorted(rows, key=lambda r: (r.benchmark, r.measure, r.pipeline))
    ]
    click.echo(_tabular(header, table, fmt), nl=False)


def _tabular(header: list[str], rows: list[list], fmt: str) -> str:
    """Rows as an aligned table, CSV or a JSON list of objects."""
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
    from tabulate import tabulate

    return tabulate(rows, headers=header, tablefmt="simple", disable_numparse=True) + "\n"


@cli.command()
@click.argument("sparql", required=False)
@click.option("-f", "--file", "query_file", help="Read the query from a .rq file, or name a library query.")
@click.option("--param", "-p", "params", multiple=True, metavar="NAME=VALUE", help="Bind ?NAME to VALUE (repeatable); <...> makes an IRI.")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "tsv", "json"]), default="table", show_default=True)
@click.option("--list", "list_library", is_flag=True, help="List the named queries of the library and exit.")
@_STORE_OPTION
def query(sparql: str | None, query_file: str | None, params: tuple[str, ...], fmt: str, list_library: bool, store: Path | None) -> None:
    """Run a SPARQL query (SELECT, ASK, CONSTRUCT or DESCRIBE) against the store.

    Standard prefixes (kg, dcterms, foaf, skos, prov, rdf, rdfs, owl, xsd,
    paper, person, topic ...) are predeclared. Values given with --param are
    bound as RDF terms, never pasted into the query text.
    """
    from kg.graph import open_store
    from kg.query import find_query, format_result, list_queries, run_query

    if list_library:
        rows = [f"{q.name}: {q.question}" + "".join(f"\n    --param {n}=...  {d}" for n, d in q.params.items()) for q in list_queries()]
        click.echo("\n".join(rows))
        return
    if (sparql is None) == (query_file is None):
        raise click.UsageError("give a query as an argument or with -f FILE, not both")
    bindings = dict(_split_param(p) for p in params)
    if query_file:
        named = find_query(query_file)
        sparql = named.sparql
        missing = [name for name in named.params if name not in bindings]
        if missing:
            raise click.UsageError(f"query {named.name!r} needs " + " ".join(f"--param {m}=VALUE" for m in missing))
    result = run_query(open_store(_store_path(store)), sparql, bindings)
    click.echo(format_result(result, fmt), nl=False)


def _split_param(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip().lstrip("?"):
        raise click.UsageError(f"--param {text!r}: expected NAME=VALUE")
    return name.strip().lstrip("?"), value


@cli.command()
@click.argument("name")
@click.option("--type", "concept_type", type=click.Choice(["Method", "Dataset", "Task", "Metric"]), default=None, help="Only concepts of this type.")
@click.option("--limit", type=click.IntRange(min=0), default=10, show_default=True, help="Papers to list per concept (0: all).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
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
    lines.append(f"  mentioned by {len(report.papers)} paper{'s' if len(report.papers) != 1 else ''}" + (f", proposed by {proposing}" if proposing else ""))
    for related in report.hierarchy:
        lines.append(f"  {related.direction}: {related.label}  [{related.rules}]")
    lines.append("  forms, and why each is this concept:")
    for form in report.forms:
        lines.append(f"    {form.text!r} x{form.mentions}: {form.rules}" + (f" ({form.notes})" if form.notes else ""))
    lines.append("  papers:")
    shown = report.papers if limit == 0 else report.papers[:limit]
    for paper in shown:
        lines.append(f"    {'[proposes] ' if paper.proposed else ''}{paper.label}  <{paper.iri}>")
        lines.append(f"      \"{paper.evidence}\"")
    if len(shown) < len(report.papers):
        lines.append(f"    ... and {len(report.papers) - len(shown)} more (--limit 0 shows all)")
    return "\n".join(lines)


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["ttl", "nt", "jsonld"]), default="ttl", show_default=True)
@click.option("--out", "-o", type=click.Path(path_type=Path), default=None, help="Output file (default: exports/kg.FORMAT).")
@_STORE_OPTION
def export(fmt: str, out: Path | None, store: Path | None) -> None:
    """Write the whole graph as Turtle, N-Triples or JSON-LD (sorted, deterministic)."""
    from kg.export import export_graph
    from kg.export.serialize import DEFAULT_EXPORT
    from kg.graph import open_store

    out = out or DEFAULT_EXPORT.with_suffix(f".{fmt}")
    count = export_graph(open_store(_store_path(store)), out, fmt)
    click.echo(f"Wrote {count} triples to {out}")


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning expected errors into one line and an exit code."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        code = cli.main(args=argv, prog_name="kg", standalone_mode=False)
    except KgError as exc:
        if debug:
            raise
        click.echo(f"kg: error: {exc}", err=True)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("kg: aborted", err=True)
        return 130
    except click.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx else "kg"
        click.echo(f"kg: error: {exc.format_message()} (see `{command} --help`)", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        click.echo(f"kg: error: {exc.format_message()}", err=True)
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        if debug:
            raise
        click.echo(f"kg: internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)", err=True)
        return EXIT_INTERNAL
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
