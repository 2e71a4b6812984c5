"""Synthetic graphs shaped like ours: the shipped corpus graph, scaled.

Shared by the performance benchmarks (``query_latency.py``, ``write_rate.py``,
``analysis_times.py``, ``viz_time.py``); not a benchmark itself. Running it
writes one scaled graph as N-Triples (``--help``).

How a graph of N triples is made from the corpus store (``kg build`` of
``corpus/``, 266 papers, about 74k triples):

* Every paper is a *unit*: its own triples and those of the nodes that belong
  to it (mentions, claims, relation mentions, authorship and record nodes,
  broader-evidence nodes with ``kg:inPaper``).
* Copy ``k`` of the corpus repeats every unit with distinct IRIs (``-xK``
  appended) and distinct display strings (`` [K]`` appended to titles,
  labels and names), so a title or label lookup still finds one paper.
* Concepts and authors linked to at least ``shared_min_papers`` papers (2 by
  default: 12% of the concepts, the ones that recur) keep their IRI and
  label in every copy, so concept- and author-centred questions grow with
  the graph ("LoRA" is mentioned by 3 papers per copy); the others (87% of
  concepts are mentioned once) are copied with their forms and hierarchy
  evidence, so the number of distinct concepts grows too. Topics, venues,
  source files and extraction components are shared.
* A concept, author or other entity is written the first time a unit of the
  copy refers to it; the unreferenced rest of the corpus graph is written
  after the first full copy, so copy 0 is exactly the corpus graph.
* Units are written in a fixed order (``first`` papers, then a seeded
  shuffle) until N triples are reached, so a small graph is a sample of
  whole papers with everything they refer to.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pyoxigraph as ox

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
CORPUS = ROOT / "corpus"

KG_BASE = "https://w3id.org/kg/"
KG = KG_BASE + "ontology#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
DCT = "http://purl.org/dc/terms/"
FOAF = "http://xmlns.com/foaf/0.1/"
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"

PAPER_LOCAL = {"paper", "mention", "claim", "relation", "authorship", "record"}
LABEL_PREDICATES = {
    RDFS + "label",
    DCT + "title",
    KG + "derivedLabel",
    KG + "nameKey",
    SKOS + "prefLabel",
    SKOS + "altLabel",
    FOAF + "name",
}
LABELLED_KINDS = {"paper", "concept", "form", "person"}
STATEMENT_PREDICATES = {
    KG + "evaluatedOn",
    KG + "usedFor",
    KG + "uses",
    KG + "outperforms",
    KG + "comparedWith",
    KG + "trainedOn",
    KG + "benchmarkFor",
    SKOS + "broader",
}
IRI_MARK, LABEL_MARK = "\x00", "\x01"  # replaced per copy by the IRI and label suffixes


def kind(term) -> str | None:
    """``paper``, ``concept`` ... for kg's own IRIs (https://w3id.org/kg/KIND/...), else None."""
    if isinstance(term, ox.NamedNode) and term.value.startswith(KG_BASE) and not term.value.startswith(KG):
        return term.value[len(KG_BASE) :].split("/", 1)[0]
    return None


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


class Unit:
    """N-Triples lines with copy marks, the entities they refer to, and the
    plain statements (``S kg:evaluatedOn O`` ...) behind their reified ones."""

    __slots__ = ("text", "lines", "refs", "statements")

    def __init__(self) -> None:
        self.text, self.lines, self.refs, self.statements = [], 0, set(), []


class Scaler:
    """Writes scaled copies of one store's graph (see the module docstring)."""

    def __init__(self, store_path: Path, shared_min_papers: int = 2, first: list[str] = (), seed: int = 0):
        store = ox.Store.read_only(str(store_path))
        quads = list(store)
        self.source_triples = len(quads)
        self.shared_min_papers = shared_min_papers
        by_subject: dict[str, list] = defaultdict(list)
        for q in quads:
            by_subject[q.subject.value].append(q)
        papers = sorted(s for s, qs in by_subject.items() if kind(qs[0].subject) == "paper")

        # Who owns which node: a paper (per-copy unit) or nobody (an entity).
        owner: dict[str, str] = {}
        for s, qs in by_subject.items():
            for q in qs:
                if q.predicate.value == KG + "inPaper":
                    owner[s] = q.object.value
        for p in papers:
            owner[p] = p
            for q in by_subject[p]:
                if kind(q.object) in ("authorship", "record"):
                    owner[q.object.value] = p
        # Concept-level hierarchy evidence belongs to its narrower concept; forms to their concept.
        concept_of: dict[str, str] = {}
        for s, qs in by_subject.items():
            k = kind(qs[0].subject)
            if k == "broader" and s not in owner:
                concept_of[s] = next(q.object.value for q in qs if q.predicate.value == RDF + "subject")
            if k == "concept":
                for q in qs:
                    if q.predicate.value == KG + "hasForm":
                        concept_of.setdefault(q.object.value, s)

        # Which concepts and persons are shared across copies: linked to enough papers.
        linked_papers: dict[str, set] = defaultdict(set)
        for p in papers:
            for q in by_subject[p]:
                if kind(q.object) in ("concept", "person"):
                    linked_papers[q.object.value].add(p)
        per_copy: set[str] = set(owner)
        for s, qs in by_subject.items():
            if kind(qs[0].subject) in ("concept", "person") and len(linked_papers[s]) < shared_min_papers:
                per_copy.add(s)
        per_copy |= {n for n, c in concept_of.items() if c in per_copy}
        self.per_copy = per_copy

        # Plain statements stated by a reified node travel with that node.
        reified: dict[str, tuple] = {}
        for s, qs in by_subject.items():
            spo = {q.predicate.value: q.object for q in qs if q.predicate.value in (RDF + "subject", RDF + "predicate", RDF + "object")}
            if len(spo) == 3 and spo[RDF + "predicate"].value in STATEMENT_PREDICATES:
                reified[s] = (spo[RDF + "subject"], spo[RDF + "predicate"], spo[RDF + "object"])
        stated = {(a.value, b.value, c.value) for a, b, c in reified.values()}

        def term_nt(term, subject_kind: str | None = None, predicate: str | None = None) -> str:
            if isinstance(term, ox.NamedNode):
                return f"<{term.value}{IRI_MARK if term.value in per_copy else ''}>"
            if isinstance(term, ox.BlankNode):
                return f"_:{term.value}{IRI_MARK}"
            mark = LABEL_MARK if predicate in LABEL_PREDICATES and subject_kind in LABELLED_KINDS else ""
            text = f'"{_escape(term.value)}{mark}"'
            if term.language:
                return f"{text}@{term.language}"
            if term.datatype.value != XSD_STRING:
                return f"{text}^^<{term.datatype.value}>"
            return text

        def line(q, labelled: bool) -> str:
            sk = kind(q.subject)
            return f"{term_nt(q.subject)} <{q.predicate.value}> {term_nt(q.object, sk if labelled else None, q.predicate.value)} .\n"

        def unit_key(iri: str) -> str:
            return owner.get(iri) or concept_of.get(iri) or iri

        units: dict[str, Unit] = defaultdict(Unit)  # key: paper IRI, or entity IRI
        for s, qs in by_subject.items():
            key = unit_key(s)
            unit = units[key]
            labelled = s in per_copy and kind(qs[0].subject) in LABELLED_KINDS
            for q in qs:
                if (s, q.predicate.value, q.object.value) in stated:
                    continue  # written with the node that states it
                unit.text.append(line(q, labelled))
                unit.lines += 1
                if isinstance(q.object, ox.NamedNode) and q.object.value in by_subject:
                    target = unit_key(q.object.value)
                    if target != key and target not in owner:  # an entity, never another paper
                        unit.refs.add(target)
            if s in reified:
                a, b, c = reified[s]
                unit.statements.append(f"{term_nt(a)} <{b.value}> {term_nt(c)} .\n")
                unit.refs.update(unit_key(t.value) for t in (a, c) if unit_key(t.value) != key)
        for unit in units.values():
            unit.text = "".join(unit.text)
        self.units = dict(units)
        self.entities = sorted(k for k in units if k not in owner)

        rng = random.Random(seed)
        rest = [p for p in papers if p not in set(first)]
        rng.shuffle(rest)
        self.order = [p for p in first if p in units] + rest
        self.papers_per_copy = len(papers)

    def write(self, target_triples: int, path: Path) -> dict:
        """Write at least ``target_triples`` distinct triples as N-Triples; return counts."""
        emitted_shared: set[str] = set()
        statements: set[str] = set()
        count = papers = copy = 0
        with path.open("w", encoding="utf-8") as out:

            def put(text: str, lines: int, iri_sfx: str, label_sfx: str) -> None:
                nonlocal count
                out.write(text.replace(IRI_MARK, iri_sfx).replace(LABEL_MARK, label_sfx))
                count += lines

            def emit(key: str, emitted_copy: set, iri_sfx: str, label_sfx: str) -> None:
                stack = [key]
                while stack:
                    k = stack.pop()
                    seen = emitted_copy if k in self.per_copy else emitted_shared
                    if k in seen:
                        continue
                    seen.add(k)
                    unit = self.units[k]
                    put(unit.text, unit.lines, iri_sfx, label_sfx)
                    stack.extend(r for r in unit.refs if r in self.units)
                    for st in unit.statements:
                        st = st.replace(IRI_MARK, iri_sfx)
                        if st not in statements:
                            statements.add(st)
                            put(st, 1, "", "")

            while count < target_triples:
                iri_sfx, label_sfx = ("", "") if copy == 0 else (f"-x{copy}", f" [{copy}]")
                emitted_copy: set[str] = set()
                for paper in self.order:
                    emit(paper, emitted_copy, iri_sfx, label_sfx)
                    papers += 1
                    if count >= target_triples:
                        break
                else:
                    if copy == 0:  # the corpus graph's unreferenced rest (unused topics ...)
                        for entity in self.entities:
                            emit(entity, emitted_copy, iri_sfx, label_sfx)
                copy += 1
        return {
            "target_triples": target_triples,
            "triples": count,
            "papers": papers,
            "copies": round(papers / self.papers_per_copy, 2),
            "file_mb": round(path.stat().st_size / 1e6, 1),
        }


# --- the corpus store --------------------------------------------------------


def corpus_store(store: Path | None, workdir: Path) -> tuple[Path, float | None]:
    """``store`` if given, else a fresh build of corpus/ (as `kg build -q`) in ``workdir``."""
    if store is not None:
        return store, None
    from kg.extract.extractor import SpacyExtractor
    from kg.pipeline import build

    path = workdir / "corpus-store"
    log(f"building corpus/ into {path} (as `kg build -q`) ...")
    started = time.perf_counter()
    build([CORPUS], store=path, extractors=[SpacyExtractor()])
    return path, time.perf_counter() - started


def load_store(nt_path: Path, store_path: Path) -> tuple[ox.Store, float]:
    """Load an N-Triples file the way `kg build` writes: kg.graph.store.write_store
    (Store.bulk_extend, flush, optimize), then open it read-only as kg does."""
    from kg.graph.store import open_store, write_store

    started = time.perf_counter()
    write_store(ox.parse(path=str(nt_path), format=ox.RdfFormat.N_TRIPLES), store_path)
    seconds = time.perf_counter() - started
    return open_store(store_path), seconds


# --- reporting -----------------------------------------------------------------


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def median(values: list[float]) -> float:
    return statistics.median(values)


def format_table(headers: list[str], rows: list[list], left: int = 1) -> str:
    """Plain aligned text: the first ``left`` columns left-aligned, the rest right-aligned."""
    rows = [[str(c) for c in r] for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]

    def fmt(cells):
        return "  ".join(str(c).ljust(w) if i < left else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([fmt(headers), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def environment() -> dict:
    """The machine, and a note that it is shared (load averages at the time)."""
    import importlib.metadata

    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
        platform.processor(),
    )
    mem = next((int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")), 0)
    versions = {}
    for pkg in ("pyoxigraph", "rdflib", "networkx", "pyvis"):
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            versions[pkg] = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    return {
        "machine": f"{os.cpu_count()} cores ({cpu}), {mem / 2**20:.0f} GiB RAM",
        "shared": True,
        "note": "shared machine: other people's jobs ran on the same 2 cores; compare ratios, not absolute times",
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
        "git_commit": commit + " (working tree had uncommitted changes)",
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def write_json(report: dict, path: Path) -> None:
    import json

    report.setdefault("environment", {})["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nJSON written to {path}")


def scaled_nt(scaler: Scaler, triples: int, workdir: Path) -> tuple[Path, dict]:
    path = workdir / f"scaled-{triples}.nt"
    started = time.perf_counter()
    stats = scaler.write(triples, path)
    stats["generate_s"] = round(time.perf_counter() - started, 2)
    log(
        f"[{triples}] wrote {stats['triples']} triples ({stats['papers']} papers, {stats['copies']} corpus copies, {stats['file_mb']} MB) in {stats['generate_s']} s"
    )
    return path, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--triples", type=int, default=1_000_000, help="at least this many triples (default: %(default)s)")
    parser.add_argument("--out", type=Path, required=True, help="N-Triples file to write")
    parser.add_argument("--store", type=Path, default=None, help="corpus store to scale (default: build corpus/ afresh)")
    parser.add_argument(
        "--shared-min-papers",
        type=int,
        default=2,
        help="concepts/authors linked to this many papers are shared across copies (default: %(default)s)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kg-scaled-") as tmp:
        store, _ = corpus_store(args.store, Path(tmp))
        stats = Scaler(store, args.shared_min_papers).write(args.triples, args.out)
    print(stats)


if __name__ == "__main__":
    main()
