"""Benchmark candidate RDF stores for kg's persistent graph store.

Compares, on a synthetic bibliographic graph shaped like ours (papers, persons,
authorship nodes, SKOS topics):

* ``rdflib-memory``    rdflib ``Graph()`` with the default in-memory store
* ``rdflib-bdb``       rdflib ``Graph(store="BerkeleyDB")`` (needs ``berkeleydb``)
* ``pyoxigraph``       ``pyoxigraph.Store(path)`` on disk (RocksDB), ``bulk_load``
* ``oxrdflib``         rdflib ``Graph(store="Oxigraph")`` opened on a path

For each backend and graph size it measures the load time of an N-Triples file,
the median latency of three SPARQL queries, Turtle serialization time, memory
growth during load and the on-disk size, and checks that every backend returns
the same rows. Results are printed as tables and written to
``benchmarks/results/store_backends.json``.

Each backend/size pair runs in its own spawned process so that (a) one slow
operation can be cut off at ``--guard`` seconds without hanging the run, and
(b) memory figures are not polluted by earlier backends.

Run ``python benchmarks/store_backends.py --help`` for options.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import multiprocessing as mp
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "store_backends.json"
DEFAULT_SIZES = "10000,100000"
QUICK_SIZES = "2000"
REFERENCE = "rdflib-memory"  # every ratio is expressed against this backend
STARTUP_ALLOWANCE_S = 30.0

# --- vocabulary --------------------------------------------------------------

KG = "https://w3id.org/kg/ontology#"
PAPER = "https://w3id.org/kg/paper/"
PERSON = "https://w3id.org/kg/person/"
TOPIC = "https://w3id.org/kg/topic/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
DCT = "http://purl.org/dc/terms/"
FOAF = "http://xmlns.com/foaf/0.1/"
SKOS = "http://www.w3.org/2004/02/skos/core#"
XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"

PREFIXES = {"kg": KG, "dcterms": DCT, "foaf": FOAF, "skos": SKOS, "rdfs": "http://www.w3.org/2000/01/rdf-schema#"}

# --- synthetic data ----------------------------------------------------------

FIRST_NAMES = [
    "Alice",
    "Bo",
    "Carlos",
    "Dana",
    "Elif",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemal",
    "Lena",
    "Marta",
    "Nikhil",
    "Olga",
    "Pablo",
    "Qing",
    "Rosa",
    "Søren",
    "Tomás",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zoë",
    "Amélie",
    "Björn",
    "Chiara",
    "Dmitri",
    "Emeka",
    "François",
    "Gül",
    "Hana",
    "Ivan",
    "Jürgen",
    "Kaito",
    "Leila",
    "Mei",
    "Noor",
]
LAST_NAMES = [
    "Nguyen",
    "Smith",
    "Müller",
    "García",
    "Rossi",
    "Kowalski",
    "Tanaka",
    "Kim",
    "Okafor",
    "Silva",
    "Novak",
    "Jensen",
    "Dubois",
    "Öztürk",
    "Ivanova",
    "Chen",
    "Patel",
    "Haddad",
    "Larsen",
    "Moreau",
    "Schmidt",
    "Costa",
    "Yamamoto",
    "Ali",
    "Papadopoulos",
    "Horváth",
    "Lindqvist",
    "Fernández",
    "Zhang",
    "O'Brien",
    "Wójcik",
    "Andersen",
    "Bianchi",
    "Kaya",
    "Sato",
    "Hughes",
    "Mendes",
    "Lee",
    "Berg",
    "Popescu",
    "Cohen",
    "Singh",
    "Meyer",
    "Romero",
    "Wang",
    "Sousa",
    "Virtanen",
    "Nakamura",
    "Petrov",
    "Walsh",
]
WORDS = (
    "graph neural network model learning representation embedding entity relation "
    "knowledge extraction transformer attention benchmark dataset evaluation "
    "retrieval question answering language corpus annotation ontology reasoning "
    "inference sparse dense contrastive supervised unsupervised robust efficient "
    "scalable multilingual temporal causal probabilistic semantic structured "
    "baseline ablation accuracy recall precision improves outperforms propose "
    "method approach framework results experiments analysis novel task domain"
).split()
TOPIC_HEADS = [
    "Learning",
    "Retrieval",
    "Reasoning",
    "Extraction",
    "Generation",
    "Networks",
    "Embeddings",
    "Parsing",
    "Alignment",
    "Linking",
]

AUTHOR_ZIPF_S = 0.7  # exponent: rank-1 author lands on roughly a sixth of the papers
TOPIC_ZIPF_S = 1.0
TRIPLES_PER_PAPER_ESTIMATE = 42  # used only to size the author/topic pools


def nt_iri(iri: str) -> str:
    return f"<{iri}>"


def nt_literal(text: str, datatype: str | None = None) -> str:
    """N-Triples literal with the escapes the grammar requires (UTF-8 kept as-is)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"' + (f"^^<{datatype}>" if datatype else "")


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "-".join("".join(c if c.isalnum() else " " for c in ascii_text.lower()).split())


def zipf_cum_weights(n: int, s: float) -> list[float]:
    """Cumulative weights for rank^-s, ready for random.choices(cum_weights=...)."""
    total, cum = 0.0, []
    for rank in range(1, n + 1):
        total += rank**-s
        cum.append(total)
    return cum


def draw_distinct(rng: random.Random, pool: list, cum: list[float], k: int) -> list:
    """k distinct items from pool, drawn with Zipf weights (rejection of repeats)."""
    chosen: dict = {}
    while len(chosen) < k:
        item = rng.choices(pool, cum_weights=cum)[0]
        chosen.setdefault(item, None)
    return list(chosen)


def make_person_pool(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """n unique (slug, name) pairs; one or two middle initials keep the name
    space (~1.4M) far above any pool we ask for."""
    names: dict[str, str] = {}
    while len(names) < n:
        initials = " ".join(f"{chr(rng.randrange(65, 91))}." for _ in range(rng.randint(1, 2)))
        name = f"{rng.choice(FIRST_NAMES)} {initials} {rng.choice(LAST_NAMES)}"
        names.setdefault(slugify(name), name)
    return list(names.items())


def make_topic_pool(rng: random.Random, n: int) -> list[tuple[str, str, str | None]]:
    """n (slug, label, broader-slug) topics; the first tenth are roots."""
    n_roots = max(2, n // 10)
    labels: dict[str, str] = {}
    while len(labels) < n:
        label = f"{rng.choice(WORDS).title()} {rng.choice(TOPIC_HEADS)}"
        if len(labels) >= n_roots:  # non-roots get a qualifier so they read as narrower
            label = f"{rng.choice(WORDS).title()} {label}"
        labels.setdefault(slugify(label), label)
    slugs = list(labels)
    roots = slugs[:n_roots]
    return [(slug, labels[slug], None if i < n_roots else rng.choice(roots)) for i, slug in enumerate(slugs)]


def make_text(rng: random.Random, min_chars: int) -> str:
    """Sentences of filler words; now and then a quoted term to exercise escaping."""
    sentences, length = [], 0
    while length < min_chars:
        words = [rng.choice(WORDS) for _ in range(rng.randint(8, 20))]
        if rng.random() < 0.1:
            words[rng.randrange(len(words))] = f'"{rng.choice(WORDS)}"'
        sentence = " ".join(words).capitalize() + "."
        sentences.append(sentence)
        length += len(sentence) + 1
    return " ".join(sentences)


def paper_triples(rng, paper_id, authors, topics) -> list[str]:
    """The N-Triples lines of one paper and its authorship nodes."""
    paper = nt_iri(PAPER + paper_id)
    title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12))).capitalize()
    lines = [
        f"{paper} <{RDF_TYPE}> <{KG}Paper> .",
        f"{paper} <{DCT}title> {nt_literal(title)} .",
        f"{paper} <{RDFS_LABEL}> {nt_literal(title)} .",
        f"{paper} <{DCT}abstract> {nt_literal(make_text(rng, 1200))} .",
    ]
    for position, (slug, _name) in enumerate(authors, start=1):
        person, node = nt_iri(PERSON + slug), f"_:a{paper_id}x{position}"
        lines += [
            f"{paper} <{DCT}creator> {person} .",
            f"{paper} <{KG}hasAuthorship> {node} .",
            f"{node} <{KG}author> {person} .",
            f"{node} <{KG}authorPosition> {nt_literal(str(position), XSD_INTEGER)} .",
        ]
    lines += [f"{paper} <{DCT}subject> {nt_iri(TOPIC + slug)} ." for slug, _, _ in topics]
    return lines


def person_triples(slug: str, name: str) -> list[str]:
    person = nt_iri(PERSON + slug)
    return [f"{person} <{RDF_TYPE}> <{FOAF}Person> .", f"{person} <{FOAF}name> {nt_literal(name)} ."]


def topic_triples(slug: str, label: str, broader: str | None) -> list[str]:
    topic = nt_iri(TOPIC + slug)
    lines = [f"{topic} <{RDF_TYPE}> <{SKOS}Concept> .", f"{topic} <{SKOS}prefLabel> {nt_literal(label)} ."]
    if broader:
        lines.append(f"{topic} <{SKOS}broader> {nt_iri(TOPIC + broader)} .")
    return lines


def generate_dataset(target_triples: int, path: Path, seed: int = 0) -> dict:
    """Write papers until at least target_triples N-Triples lines exist; return stats.

    Persons and topics are emitted the first time a paper uses them, so every
    IRI in the file is described. Broader topics are emitted with their child.
    """
    rng = random.Random(seed)
    est_papers = max(10, target_triples // TRIPLES_PER_PAPER_ESTIMATE)
    people = make_person_pool(rng, est_papers * 3)
    topics = make_topic_pool(rng, min(400, max(20, est_papers // 10)))
    topic_by_slug = {t[0]: t for t in topics}
    people_cum = zipf_cum_weights(len(people), AUTHOR_ZIPF_S)
    topic_cum = zipf_cum_weights(len(topics), TOPIC_ZIPF_S)

    emitted: set[str] = set()
    papers_of: dict[str, int] = {}
    count = papers = 0
    with path.open("w", encoding="utf-8") as out:

        def emit(lines: list[str]) -> None:
            nonlocal count
            out.write("\n".join(lines) + "\n")
            count += len(lines)

        while count < target_triples:
            authors = draw_distinct(rng, people, people_cum, rng.randint(5, 11))
            paper_topics = draw_distinct(rng, topics, topic_cum, rng.randint(1, 3))
            emit(paper_triples(rng, f"{rng.getrandbits(64):016x}", authors, paper_topics))
            papers += 1
            for slug, name in authors:
                papers_of[name] = papers_of.get(name, 0) + 1
                if PERSON + slug not in emitted:
                    emitted.add(PERSON + slug)
                    emit(person_triples(slug, name))
            for slug, _, broader in paper_topics:
                for t in (topic_by_slug[slug], topic_by_slug.get(broader)):
                    if t and TOPIC + t[0] not in emitted:
                        emitted.add(TOPIC + t[0])
                        emit(topic_triples(*t))

    # The "frequent author": most papers, ties broken by name for determinism.
    author, author_papers = min(papers_of.items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "target_triples": target_triples,
        "triples": count,
        "papers": papers,
        "persons": len(papers_of),
        "topics": sum(1 for iri in emitted if iri.startswith(TOPIC)),
        "frequent_author": author,
        "frequent_author_papers": author_papers,
        "file_bytes": path.stat().st_size,
    }


# --- queries -----------------------------------------------------------------


def build_queries(author_name: str) -> dict[str, str]:
    """The three benchmark queries; each ORDER BY is total so rows compare exactly."""
    prefix = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())
    name = nt_literal(author_name)
    return {
        "a_author_papers": prefix
        + f"""
SELECT ?paper ?title WHERE {{
  ?person foaf:name {name} .
  ?paper dcterms:creator ?person ; dcterms:title ?title .
}} ORDER BY ?paper""",
        # Goes through the authorship nodes (blank nodes) on purpose: that is
        # the join shape our own author queries use.
        "b_coauthors": prefix
        + f"""
SELECT ?coauthor ?name (COUNT(DISTINCT ?paper) AS ?papers) WHERE {{
  ?me foaf:name {name} .
  ?paper kg:hasAuthorship ?mine . ?mine kg:author ?me .
  ?paper kg:hasAuthorship ?theirs . ?theirs kg:author ?coauthor .
  FILTER (?coauthor != ?me)
  ?coauthor foaf:name ?name .
}} GROUP BY ?coauthor ?name ORDER BY DESC(?papers) ?name ?coauthor""",
        "c_papers_per_topic": prefix
        + """
SELECT ?topic ?label (COUNT(?paper) AS ?papers) WHERE {
  ?paper a kg:Paper ; dcterms:subject ?topic .
  ?topic skos:prefLabel ?label .
} GROUP BY ?topic ?label ORDER BY DESC(?papers) ?topic""",
    }


def term_text(term) -> str:
    """Backend-neutral text of a result cell (rdflib or pyoxigraph term).

    Blank node labels are store-specific, so they all compare as "_:".
    """
    if term is None:
        return ""
    if type(term).__name__ in ("BNode", "BlankNode"):
        return "_:"
    if hasattr(term, "n3"):  # rdflib: str() is the IRI or the literal's lexical form
        return str(term)
    return term.value  # pyoxigraph NamedNode / Literal


# --- backends ----------------------------------------------------------------
# Each backend is opened inside a worker process; `workdir` is a fresh temp dir.


class RdflibMemory:
    persistent = False

    def open(self, workdir: Path) -> None:
        from rdflib import Graph

        self.graph = Graph()
        self._bind(self.graph)

    @staticmethod
    def _bind(graph) -> None:
        for prefix, iri in PREFIXES.items():
            graph.bind(prefix, iri)

    def load(self, nt_path: Path) -> None:
        self.graph.parse(str(nt_path), format="nt")

    def __len__(self) -> int:
        return len(self.graph)

    def query(self, sparql: str) -> list[tuple]:
        return [tuple(row) for row in self.graph.query(sparql)]

    def serialize_turtle(self) -> bytes:
        return self.graph.serialize(format="turtle", encoding="utf-8")

    def close(self) -> None:
        pass


class RdflibBerkeleyDB(RdflibMemory):
    persistent = True

    def open(self, workdir: Path) -> None:
        from rdflib import Graph

        self.graph = Graph(store="BerkeleyDB")
        self.graph.open(str(workdir / "store"), create=True)
        self._bind(self.graph)

    def load(self, nt_path: Path) -> None:
        super().load(nt_path)
        # Writes sit in BDB's cache until synced; count the sync so "loaded"
        # means "on disk", like the Oxigraph backends.
        self.graph.store.sync()

    def close(self) -> None:
        self.graph.close()


class Pyoxigraph:
    persistent = True

    def open(self, workdir: Path) -> None:
        import pyoxigraph

        self.ox = pyoxigraph
        self.store = pyoxigraph.Store(str(workdir / "store"))

    def load(self, nt_path: Path) -> None:
        # bulk_load skips transactions and writes SST files directly: the
        # intended path for importing a whole export.
        self.store.bulk_load(path=str(nt_path), format=self.ox.RdfFormat.N_TRIPLES)
        self.store.flush()

    def __len__(self) -> int:
        return len(self.store)

    def query(self, sparql: str) -> list[tuple]:
        return [tuple(solution) for solution in self.store.query(sparql)]

    def serialize_turtle(self) -> bytes:
        return self.store.dump(format=self.ox.RdfFormat.TURTLE, from_graph=self.ox.DefaultGraph(), prefixes=PREFIXES)

    def close(self) -> None:
        del self.store  # pyoxigraph closes RocksDB when the Store is dropped


class OxrdflibStore(RdflibMemory):
    persistent = True

    def open(self, workdir: Path) -> None:
        from rdflib import Graph
        from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

        # The default-graph identifier makes oxrdflib write to Oxigraph's default
        # graph, so the same directory is readable by plain pyoxigraph too.
        self.graph = Graph(store="Oxigraph", identifier=DATASET_DEFAULT_GRAPH_ID)
        self.graph.open(str(workdir / "store"), create=True)
        self._bind(self.graph)

    def load(self, nt_path: Path) -> None:
        # "ox-nt" hands the file to Oxigraph's own parser (one transaction);
        # format="nt" would go through rdflib's parser one triple at a time.
        self.graph.parse(str(nt_path), format="ox-nt")
        self.graph.store._inner.flush()  # oxrdflib has no public flush

    def serialize_turtle(self) -> bytes:
        return self.graph.serialize(format="ox-turtle", encoding="utf-8")

    def close(self) -> None:
        self.graph.close()


BACKENDS = {
    "rdflib-memory": RdflibMemory,
    "rdflib-bdb": RdflibBerkeleyDB,
    "pyoxigraph": Pyoxigraph,
    "oxrdflib": OxrdflibStore,
}
LOAD_METHOD = {
    "rdflib-memory": "Graph.parse(format='nt')",
    "rdflib-bdb": "Graph.parse(format='nt') + store.sync()",
    "pyoxigraph": "Store.bulk_load(N_TRIPLES) + flush()",
    "oxrdflib": "Graph.parse(format='ox-nt') (Store.load) + flush()",
}
TURTLE_METHOD = {
    "rdflib-memory": "Graph.serialize('turtle')",
    "rdflib-bdb": "Graph.serialize('turtle')",
    "pyoxigraph": "Store.dump(TURTLE)",
    "oxrdflib": "Graph.serialize('ox-turtle') (Store.dump)",
}


def unavailable_reason(backend: str) -> str | None:
    """Why a backend cannot run here, or None; checked before spawning workers."""
    needs = {
        "rdflib-memory": ["rdflib"],
        "rdflib-bdb": ["rdflib", "berkeleydb"],
        "pyoxigraph": ["pyoxigraph"],
        "oxrdflib": ["rdflib", "oxrdflib"],
    }[backend]
    for module in needs:
        try:
            __import__(module)
        except ImportError as exc:
            hint = " (pip install berkeleydb; needs libdb-dev)" if module == "berkeleydb" else ""
            return f"cannot import {module}: {exc}{hint}"
    return None


# --- worker process ----------------------------------------------------------


def rss_mb() -> float:
    """Current resident set size of this process, from /proc (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def dir_size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def timed(fn, *args):
    start = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - start, value


def count_turtle_triples(data: bytes) -> int:
    """Re-parse serialized Turtle (with pyoxigraph, fast) to check nothing was lost."""
    import pyoxigraph

    return sum(1 for _ in pyoxigraph.parse(input=data, format=pyoxigraph.RdfFormat.TURTLE))


def worker(backend: str, nt_path: str, queries: dict, repeats: int, slow_run_s: float, workdir: str, conn) -> None:
    """Run every measurement for one backend/size, reporting each step to the parent.

    A ("begin", step) message precedes each timed operation so the parent knows
    which one to blame if it has to kill us for exceeding the guard.
    """
    step = "open"
    try:
        store = BACKENDS[backend]()
        store.open(Path(workdir))
        rss_before = rss_mb()

        step = "load"
        conn.send(("begin", step))
        seconds, _ = timed(store.load, Path(nt_path))
        conn.send(
            (
                "end",
                step,
                {
                    "seconds": seconds,
                    "triples_in_store": len(store),
                    "mem_growth_mb": peak_rss_mb() - rss_before,
                    "disk_mb": dir_size_mb(Path(workdir)) if store.persistent else None,
                },
            )
        )

        for name, sparql in queries.items():
            step = f"query:{name}"
            runs = 1 + repeats  # the first run is a warm-up and is not counted
            i = 0
            while i < runs:
                conn.send(("begin", step))
                seconds, rows = timed(store.query, sparql)
                payload = {"run": i, "seconds": seconds}
                if i == 0:
                    payload["rows"] = [[term_text(t) for t in row] for row in rows]
                    if seconds > slow_run_s:  # keep slow backends inside the time budget
                        runs = 2
                conn.send(("end", step, payload))
                i += 1

        step = "turtle"
        conn.send(("begin", step))
        seconds, data = timed(store.serialize_turtle)
        conn.send(("end", step, {"seconds": seconds, "bytes": len(data), "triples_reparsed": count_turtle_triples(data)}))
        store.close()
        conn.send(("done", {"peak_rss_mb": peak_rss_mb()}))
    except Exception as exc:  # report, don't hang the parent
        conn.send(("error", step, f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


# --- parent: orchestration ---------------------------------------------------


def new_result(backend: str) -> dict:
    return {
        "backend": backend,
        "status": "ok",
        "load_method": LOAD_METHOD[backend],
        "turtle_method": TURTLE_METHOD[backend],
        "load": None,
        "queries": {},
        "turtle": None,
    }


def record(result: dict, step: str, payload: dict) -> None:
    """Fold one finished operation reported by the worker into the result."""
    if step == "load":
        result["load"] = payload
    elif step == "turtle":
        result["turtle"] = payload
    else:
        entry = result["queries"].setdefault(step.split(":", 1)[1], {"runs_s": []})
        if payload["run"] == 0:
            entry["warmup_s"] = payload["seconds"]
            entry["rows"] = payload["rows"]
        else:
            entry["runs_s"].append(payload["seconds"])
            entry["median_s"] = statistics.median(entry["runs_s"])


def run_backend(backend: str, nt_path: Path, queries: dict, args) -> dict:
    """Drive one worker process; kill it if a single operation passes the guard."""
    ctx = mp.get_context("spawn")  # fresh interpreter: clean memory figures, no forked RocksDB
    result = new_result(backend)
    receiver, sender = ctx.Pipe(duplex=False)
    with tempfile.TemporaryDirectory(prefix=f"kg-bench-{backend}-") as workdir:
        proc = ctx.Process(target=worker, args=(backend, str(nt_path), queries, args.repeats, args.slow_run, workdir, sender))
        proc.start()
        sender.close()
        current = "startup"
        while True:
            # Spawning, imports and opening the store are not measured; give
            # them a fixed allowance so a tiny --guard still lets workers start.
            wait = max(args.guard, STARTUP_ALLOWANCE_S) if current == "startup" else args.guard
            if not receiver.poll(wait):
                proc.kill()
                result.update(status="timeout", failed_step=current)
                break
            try:
                message = receiver.recv()
            except EOFError:
                result.update(status="crashed", failed_step=current, error=f"worker exit code {proc.join(5) or proc.exitcode}")
                break
            kind = message[0]
            if kind == "begin":
                current = message[1]
            elif kind == "end":
                record(result, message[1], message[2])
            elif kind == "error":
                result.update(status="error", failed_step=message[1], error=message[2])
                break
            elif kind == "done":
                result.update(message[1])
                break
        proc.join(10)
        if proc.is_alive():
            proc.kill()
            proc.join()
    return result


def compare_rows(results: list[dict]) -> dict[str, list[str]]:
    """Per backend, the queries whose rows differ from the reference backend's."""
    have = [r for r in results if r["queries"]]
    ref = next((r for r in have if r["backend"] == REFERENCE), have[0] if have else None)
    mismatches: dict[str, list[str]] = {}
    for r in have:
        for name, entry in r["queries"].items():
            ref_entry = ref["queries"].get(name)
            if ref_entry and "rows" in entry and entry["rows"] != ref_entry["rows"]:
                mismatches.setdefault(r["backend"], []).append(name)
    return mismatches


def summarize_rows(results: list[dict]) -> None:
    """Replace full result rows by a count and digest before writing JSON."""
    for r in results:
        for entry in r["queries"].values():
            rows = entry.pop("rows", None)
            if rows is not None:
                entry["row_count"] = len(rows)
                entry["rows_sha1"] = hashlib.sha1(json.dumps(rows).encode()).hexdigest()
                entry["first_row"] = rows[0] if rows else None


# --- ratios and tables -------------------------------------------------------

METRICS = [("load", "load"), ("a_author_papers", "Q(a)"), ("b_coauthors", "Q(b)"), ("c_papers_per_topic", "Q(c)"), ("turtle", "TTL")]


def metric_seconds(result: dict, metric: str) -> float | None:
    if metric in ("load", "turtle"):
        return (result.get(metric) or {}).get("seconds")
    return result["queries"].get(metric, {}).get("median_s")


def ratio_text(ref_s: float | None, s: float | None) -> str:
    if ref_s is None or s is None:
        return "n/a"
    ratio = ref_s / s
    return f"{ratio:.1f}x faster" if ratio >= 1 else f"{1 / ratio:.1f}x slower"


def add_ratios(results: list[dict]) -> None:
    ref = next((r for r in results if r["backend"] == REFERENCE), None)
    for r in results:
        if ref is None or r is ref:
            continue
        r["vs_" + REFERENCE] = {
            label: {
                "speedup": (metric_seconds(ref, m) / metric_seconds(r, m) if metric_seconds(ref, m) and metric_seconds(r, m) else None),
                "text": ratio_text(metric_seconds(ref, m), metric_seconds(r, m)),
            }
            for m, label in METRICS
        }


def fmt_seconds(result: dict, metric: str, unit_ms: bool, guard: float) -> str:
    s = metric_seconds(result, metric)
    if s is not None:
        text = f"{s * 1000:.1f}" if unit_ms else f"{s:.2f}"
        single_run = len(result["queries"].get(metric, {}).get("runs_s", ())) == 1
        return text + ("~" if single_run and result["queries"] else "")
    failed = result.get("failed_step", "")
    if result["status"] == "timeout" and failed in (metric, f"query:{metric}"):
        return f">{guard:g}s"
    return "-"


def format_table(headers: list[str], rows: list[list[str]]) -> str:
    """Plain aligned text: first two columns left-aligned, the rest right-aligned."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]

    def line(cells):
        return "  ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])


def results_table(report: dict, guard: float) -> str:
    headers = ["size", "backend", "triples", "load s", "Q(a) ms", "Q(b) ms", "Q(c) ms", "TTL s", "mem MB", "disk MB", "rows"]
    rows = []
    for size in report["sizes"]:
        for r in size["results"]:
            load = r.get("load") or {}
            mism = size["mismatches"].get(r["backend"])
            rows.append(
                [
                    size["dataset"]["triples"],
                    r["backend"],
                    load.get("triples_in_store", "-"),
                    fmt_seconds(r, "load", False, guard),
                    *(fmt_seconds(r, q, True, guard) for q, _ in METRICS[1:4]),
                    fmt_seconds(r, "turtle", False, guard),
                    f"{load['mem_growth_mb']:.0f}" if "mem_growth_mb" in load else "-",
                    f"{load['disk_mb']:.1f}" if load.get("disk_mb") is not None else "-",
                    "MISMATCH " + ",".join(m[0] for m in mism) if mism else r["status"],
                ]
            )
    return format_table(headers, rows)


def ratio_table(report: dict) -> str:
    headers = ["size", "backend"] + [label for _, label in METRICS]
    rows = []
    for size in report["sizes"]:
        for r in size["results"]:
            ratios = r.get("vs_" + REFERENCE)
            if ratios:
                rows.append([size["dataset"]["triples"], r["backend"]] + [ratios[label]["text"] for _, label in METRICS])
    return format_table(headers, rows)


# --- main --------------------------------------------------------------------


def package_versions() -> dict:
    versions = {}
    for pkg in ("rdflib", "pyoxigraph", "oxrdflib", "berkeleydb"):
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            versions[pkg] = None
    return versions


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark RDF store backends (rdflib memory / BerkeleyDB, pyoxigraph, oxrdflib) on a synthetic bibliographic graph."
    )
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="comma-separated target triple counts (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help=f"tiny smoke run: sizes {QUICK_SIZES}, 2 timed runs per query")
    parser.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated subset of: %(default)s")
    parser.add_argument(
        "--repeats", type=int, default=5, help="timed runs per query after one warm-up; median reported (default: %(default)s)"
    )
    parser.add_argument(
        "--guard",
        type=float,
        default=60.0,
        help="seconds any single operation may take before the backend is stopped and skipped for larger sizes (default: %(default)s)",
    )
    parser.add_argument(
        "--slow-run",
        type=float,
        default=10.0,
        help="if a query's warm-up exceeds this many seconds, time it only once more (marked ~) (default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=0, help="data seed (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=RESULTS_PATH, help="JSON output path (default: benchmarks/results/store_backends.json)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.repeats = QUICK_SIZES, 2
    args.sizes = sorted(int(s) for s in args.sizes.split(","))
    args.backends = [b.strip() for b in args.backends.split(",")]
    unknown = set(args.backends) - set(BACKENDS)
    if unknown:
        parser.error(f"unknown backend(s): {', '.join(sorted(unknown))}")
    return args


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_size(target: int, backends: list[str], stopped: dict, args, datadir: Path) -> dict:
    nt_path = datadir / f"graph-{target}.nt"
    dataset = generate_dataset(target, nt_path, seed=args.seed)
    log(
        f"[{target}] generated {dataset['triples']} triples, {dataset['papers']} papers; "
        f"frequent author {dataset['frequent_author']!r} "
        f"({dataset['frequent_author_papers']} papers)"
    )
    queries = build_queries(dataset["frequent_author"])
    results = []
    for backend in backends:
        if backend in stopped:
            results.append({**new_result(backend), "status": "skipped", "reason": stopped[backend]})
            continue
        log(f"[{target}] {backend} ...")
        started = time.perf_counter()
        result = run_backend(backend, nt_path, queries, args)
        log(f"[{target}] {backend}: {result['status']} in {time.perf_counter() - started:.1f}s")
        if result["status"] != "ok":
            stopped[backend] = f"{result['status']} at {result.get('failed_step')} on {dataset['triples']} triples"
        results.append(result)
    mismatches = compare_rows(results)
    summarize_rows(results)
    add_ratios(results)
    return {"dataset": dataset, "results": results, "mismatches": mismatches}


def main(argv=None) -> None:
    args = parse_args(argv)
    stopped: dict[str, str] = {}  # backend -> why it is not run at larger sizes
    for backend in args.backends:
        reason = unavailable_reason(backend)
        if reason:
            print(f"skipping {backend}: {reason}")
            stopped[backend] = f"unavailable: {reason}"
    report = {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "environment": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "packages": package_versions(),
        },
        "config": {
            "sizes": args.sizes,
            "repeats": args.repeats,
            "guard_s": args.guard,
            "slow_run_s": args.slow_run,
            "seed": args.seed,
            "backends": args.backends,
            "reference": REFERENCE,
        },
        "queries": build_queries("<frequent author>"),
        "sizes": [],
    }
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kg-bench-data-") as datadir:
        for target in args.sizes:
            report["sizes"].append(run_size(target, args.backends, stopped, args, Path(datadir)))
    report["skipped"] = stopped
    report["total_seconds"] = time.perf_counter() - started

    print("\nResults (query times: median of timed runs after one warm-up; ~ = single timed run; mem = peak RSS growth during load)\n")
    print(results_table(report, args.guard))
    print(f"\nRatios against {REFERENCE} (same size)\n")
    print(ratio_table(report))
    for size in report["sizes"]:
        for backend, names in size["mismatches"].items():
            print(f"MISMATCH at {size['dataset']['triples']} triples: {backend} differs from reference on {', '.join(names)}")
    for backend, reason in stopped.items():
        print(f"note: {backend} skipped/stopped: {reason}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nTotal {report['total_seconds']:.0f}s; JSON written to {args.out}")


if __name__ == "__main__":
    main()
