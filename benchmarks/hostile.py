"""The hostile and careless user: a battery of commands that tried to break
kg's promises (issue 18), run for real, each in a scratch folder, and counted.

Every case runs ``python -m kg ...`` as a subprocess (a crash is then a
crash, not a pytest failure) against a small store built once, and records:

* its exit code against the one it should give;
* a traceback or Rust backtrace on stdout or stderr (``Traceback``, ``panicked``);
* an exit code of 3 (an internal error) or death by a signal (a segfault);
* connections to a trap listener on 127.0.0.1 that the case's query,
  context or URL points at, but that the user never asked kg to contact;
* bytes lost: files of the scratch folder that kg did not write, changed
  or deleted; for a command that fails, any change at all to what was there;
* a secret (a password, a token) or a raw terminal escape in the output.

    python benchmarks/hostile.py            # prints a table, writes results/hostile.json
    python benchmarks/hostile.py --kg-root /tmp/old-checkout   # the same battery against other code

``python3 -m cogapp -r README.md`` renders the README's table from
``results/hostile.json`` beside ``results/hostile-before.json``.

It runs in about two minutes. It is not a test: the tests (tests/test_*_safety.py)
check each defect on its own; this counts them all in one place for the README.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results" / "hostile.json"
SECRET, TOKEN = "S3cretPW", "t0kenXYZ"
TIMEOUT_S = 60


class Trap:
    """A TCP listener on 127.0.0.1 that counts the connections made to it."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port = self.socket.getsockname()[1]
        self.count = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.count += 1
            connection.close()


@dataclass
class Case:
    name: str
    argv: list[str] | Callable[[Path], list[str]]
    codes: tuple[int, ...]  # the exit codes that keep kg's promises
    setup: Callable[[Path], None] | None = None
    item: str = ""  # the item number
    # Files kg is allowed to change even if the command fails (what it was asked to write).
    writes: tuple[str, ...] = ()
    # A promise beyond the exit code, given the folder afterwards and the output (True: kept).
    check: Callable[[Path, str], bool] | None = None


@dataclass
class Outcome:
    name: str
    item: str
    code: int
    expected: list[int]
    seconds: float
    traceback: bool
    internal: bool
    outbound: int
    bytes_lost: int
    leaked: bool
    raw_escape: bool
    ok: bool = field(default=False)
    stderr: str = ""


def _jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _paper(i: int, **extra) -> dict:
    return {
        "title": f"Paper {i} on sparse attention",
        "abstract": f"We propose SparseNet{i} for long documents and evaluate it on ImageNet.",
        "authors": ["Ada Lovelace"],
        **extra,
    }


def _snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """sha256 and size of every regular file under root (FIFOs and links are left alone)."""
    found = {}
    for path in root.rglob("*"):
        try:
            mode = path.lstat().st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode):
            data = path.read_bytes()
            found[str(path.relative_to(root))] = (hashlib.sha256(data).hexdigest(), len(data))
    return found


def _lost(before: dict, after: dict, failed: bool, writes: tuple[str, ...]) -> int:
    """Bytes of the files that were there before and are gone or changed.

    kg's own files (the store, the cache, exports and pages) may change when
    the command succeeds; when it fails, nothing may, but a lock file."""
    lost = 0
    for name, (digest, size) in before.items():
        ours = name.startswith((".kg/", "exports/")) or any(name.startswith(w) for w in writes)
        if name.endswith(".lock") or (ours and not failed):
            continue
        if after.get(name, (None,))[0] != digest:
            lost += size
    return lost


def cases(trap: Trap, endpoint: Trap) -> list[Case]:
    service = f"SELECT * WHERE {{ SERVICE <http://127.0.0.1:{trap.port}/sparql> {{ ?s ?p ?o }} }}"
    deep = "SELECT * WHERE { FILTER(" + "(" * 5000 + "1" + ")" * 5000 + ") }"
    cross = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"

    def thesis(root: Path) -> None:
        (root / "thesis").mkdir()
        (root / "thesis" / "thesis.tex").write_text("\\chapter{Years of work}\n" * 100)

    def foreign_oxigraph(root: Path) -> None:
        import pyoxigraph

        store = pyoxigraph.Store(str(root / "theirs"))
        store.add(pyoxigraph.Quad(pyoxigraph.NamedNode("http://x/a"), pyoxigraph.NamedNode("http://x/b"), pyoxigraph.Literal("their data")))
        store.flush()
        del store

    def symlinked_store(root: Path) -> None:
        (root / ".kg" / "store").rename(root / "real-store")
        (root / ".kg" / "store").symlink_to(root / "real-store")

    def records(name: str, rows: list[dict]) -> Callable[[Path], None]:
        return lambda root: _jsonl(root / name, rows)

    def raw(name: str | bytes, data: bytes) -> Callable[[Path], None]:
        def make(root: Path) -> None:
            target = os.path.join(os.fsencode(root), name if isinstance(name, bytes) else name.encode())
            with open(target, "wb") as handle:
                handle.write(data)

        return make

    def fifo(root: Path) -> None:
        os.mkfifo(root / "pipe.jsonl")

    def corrupt_store(root: Path) -> None:
        for sst in (root / ".kg" / "store").glob("*.sst"):
            sst.write_bytes(sst.read_bytes()[:100])

    def bad_shard(data: bytes) -> Callable[[Path], None]:
        return lambda root: (root / "shard.sqlite").write_bytes(data)

    def rq(text: str) -> Callable[[Path], None]:
        return lambda root: (root / "view.rq").write_text(text)

    def jsonld_remote(root: Path) -> None:
        (root / "x.jsonld").write_text(
            json.dumps({"@context": f"http://127.0.0.1:{trap.port}/context.jsonld", "@id": "http://x/a", "name": "a"})
        )

    def trig_violation(root: Path) -> None:
        (root / "x.trig").write_text("@prefix kg: <https://w3id.org/kg/ontology#> .\n<http://x/g> { <http://x/p> a kg:Paper . }\n")

    def private_export(root: Path) -> None:
        (root / "exports").mkdir(exist_ok=True)
        (root / "exports" / "kg.ttl").write_text("old\n")
        os.chmod(root / "exports" / "kg.ttl", 0o600)

    def blocked_export(root: Path) -> None:
        (root / "exports").mkdir(exist_ok=True)
        for fmt in ("ttl", "nt", "jsonld"):
            (root / "exports" / f"kg.{fmt}").write_text(f"old {fmt}\n")
        (root / "exports" / "kg.trig").mkdir()  # the fourth file cannot be written

    url = lambda value: records("in.jsonl", [_paper(0), _paper(1, url=value)])  # noqa: E731
    pushed = f"http://alice:{SECRET}@127.0.0.1:{endpoint.port}/store?token={TOKEN}"
    return [
        # 1. --store on folders kg did not write
        Case("build --store on a thesis folder", ["build", "--no-extract", "--store", "thesis", "corpus"], (2,), thesis, "1"),
        Case("build --store corpus corpus", ["build", "--no-extract", "--store", "corpus", "corpus"], (2,), None, "1"),
        Case(
            "build --store on another Oxigraph database",
            ["build", "--no-extract", "--store", "theirs", "corpus"],
            (2,),
            foreign_oxigraph,
            "1",
        ),
        Case(
            "build --store through a symlink",
            ["build", "--no-extract"],
            (0,),
            symlinked_store,
            "1",
            writes=("real-store/",),
            check=lambda root, _: (root / ".kg" / "store").is_symlink() and not list((root / ".kg").glob(".store.*")),
        ),
        # 3. exports change together
        Case("export --format all with one target blocked", ["export", "--format", "all"], (2,), blocked_export, "3"),
        # 5. bad records
        Case("url with a space", ["build", "--no-extract", "in.jsonl"], (0,), url("http://x.org/a b"), "5"),
        Case("url with a quote", ["build", "--no-extract", "in.jsonl"], (0,), url('http://x.org/a"b'), "5"),
        Case("url with %zz", ["build", "--no-extract", "in.jsonl"], (0,), url("http://x.org/%zz"), "5"),
        Case("url with [", ["build", "--no-extract", "in.jsonl"], (0,), url("http://x.org/[a"), "5"),
        Case("url with a space, --strict", ["build", "--no-extract", "--strict", "in.jsonl"], (0, 2), url("http://x.org/a b"), "5"),
        Case(
            "a file name that is not UTF-8",
            lambda root: ["build", "--no-extract", os.fsdecode(os.path.join(os.fsencode(root), b"\xff.jsonl"))],
            (0,),
            raw(b"\xff.jsonl", (json.dumps(_paper(0)) + "\n").encode()),
            "5",
        ),
        # 6. shard caches
        Case(
            "--cache-from a file that is not SQLite",
            ["build", "--cache-from", "shard.sqlite", "corpus/tiny.jsonl"],
            (0, 2),
            bad_shard(b"not a database" * 100),
            "6",
        ),
        Case(
            "--cache-from random bytes",
            ["build", "--cache-from", "shard.sqlite", "corpus/tiny.jsonl"],
            (0, 2),
            bad_shard(os.urandom(4096)),
            "6",
        ),
        # 7. nothing reaches out
        Case("query with SERVICE", ["query", service], (2,), None, "7"),
        Case("query with SERVICE and --param", ["query", service, "--param", "p=<http://x/p>"], (2,), None, "7"),
        Case("query with SERVICE, lower case, no space", ["query", service.replace("SERVICE <", "service<")], (2,), None, "7"),
        Case(
            "viz --query with SERVICE",
            ["viz", "--query", "view.rq", "--out", "exports/v.html"],
            (2,),
            rq(f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SERVICE <http://127.0.0.1:{trap.port}/> {{ ?s ?p ?o }} }}"),
            "7",
        ),
        Case("validate a JSON-LD file with a remote @context", ["validate", "x.jsonld"], (1, 2), jsonld_remote, "7"),
        Case(
            "query --endpoint with SERVICE inside",
            ["query", "--endpoint", f"http://127.0.0.1:{endpoint.port}/query", service],
            (2,),
            None,
            "7",
        ),
        # 8. deep nesting
        Case("query nested 5,000 deep", ["query", deep], (2,), None, "8"),
        Case(
            "query of 1 MB",
            ["query", "-f", "big.rq"],
            (2,),
            lambda root: (root / "big.rq").write_text("SELECT * WHERE { ?s ?p ?o }" + " " * 1_000_000),
            "8",
        ),
        # 9. timeouts
        Case(
            "cross-product query with --timeout 2",
            ["query", "--timeout", "2", cross],
            (2,),
            None,
            "9",
            check=lambda _, text: "--timeout" in text,
        ),
        # 10. workers
        Case("--jobs 1000", ["extract", "--jobs", "1000", "corpus/tiny.jsonl", "--out", "x.jsonl"], (0,), None, "10"),
        # 11. secrets
        Case("push to an endpoint with a password and a token", ["push", "--endpoint", pushed], (0, 2), None, "11"),
        Case(
            "query an endpoint with a password and a token",
            ["query", "--endpoint", pushed, "SELECT * WHERE { ?s ?p ?o }"],
            (2,),
            None,
            "11",
        ),
        # 13. smaller, same standard
        Case("--store /", ["build", "--no-extract", "--store", "/", "corpus"], (2,), None, "13"),
        Case("--store .", ["build", "--no-extract", "--store", ".", "corpus"], (2,), None, "13"),
        Case("query a corrupt store", ["query", "SELECT * WHERE { ?s ?p ?o }"], (2,), corrupt_store, "13"),
        Case("build over a corrupt store", ["build", "--no-extract", "corpus"], (0, 2), corrupt_store, "13"),
        Case("a FIFO as input", ["build", "--no-extract", "pipe.jsonl"], (2,), fifo, "13"),
        Case("/dev/zero as input", ["build", "--no-extract", "/dev/zero"], (2,), None, "13"),
        Case("/dev/null as input", ["build", "--no-extract", "/dev/null"], (2,), None, "13"),
        Case(
            "UTF-16 without a BOM",
            ["build", "--no-extract", "u16.jsonl"],
            (2,),
            raw("u16.jsonl", (json.dumps(_paper(0)) + "\n").encode("utf-16-le")),
            "13",
        ),
        Case(
            "a file name with terminal escapes",
            lambda root: ["build", "--no-extract", str(root / "\x1b[2J\x1b]0;pwned\x07.txt")],
            (2,),
            raw("\x1b[2J\x1b]0;pwned\x07.txt", b""),
            "13",
        ),
        Case(
            "export over a private file",
            ["export"],
            (0,),
            private_export,
            "13",
            check=lambda root, _: stat.S_IMODE((root / "exports" / "kg.ttl").stat().st_mode) == 0o600,
        ),
        Case("path from a node to itself", ["path", "Ada Lovelace", "Ada Lovelace"], (0, 1, 2), None, "13"),
        Case("communities --resolution nan", ["communities", "--resolution", "nan"], (2,), None, "13"),
        Case("communities --resolution inf", ["communities", "--resolution", "inf"], (2,), None, "13"),
        Case("path -k 10**9", ["path", "-k", "1000000000", "Ada Lovelace", "Paper 1 on sparse attention"], (0, 1, 2), None, "13"),
        Case(
            "query an endpoint that answers HTML",
            ["query", "--endpoint", f"http://127.0.0.1:{endpoint.port}/html", "SELECT * WHERE { ?s ?p ?o }"],
            (2,),
            None,
            "13",
        ),
        # 14. a validator that can fail
        Case("validate a TriG file with a violation", ["validate", "x.trig"], (1,), trig_violation, "14"),
        # and the careless user
        Case("build a missing path", ["build", "nowhere.jsonl"], (2,), None, ""),
        Case("query without a store", ["query", "--store", "nostore", "SELECT * WHERE { ?s ?p ?o }"], (2,), None, ""),
        Case("a SPARQL update", ["query", "DROP ALL"], (2,), None, ""),
        Case("export --out /", ["export", "--out", "/"], (2,), None, ""),
        Case("export --format all --out onto a corpus file", ["export", "--format", "all", "--out", "corpus/tiny.jsonl"], (2,), None, ""),
        Case("export --graph that is not an IRI", ["export", "--format", "trig", "--graph", "not an iri"], (2,), None, ""),
        Case(
            "a folder of mine named like kg's build folder",
            ["build", "--no-extract"],
            (2,),
            lambda root: (root / ".kg" / ".store.new").mkdir() or (root / ".kg" / ".store.new" / "mine.txt").write_text("mine"),
            "",
        ),
        Case("--cache naming a folder", ["build", "--cache", "corpus", "corpus"], (2,), None, ""),
        Case("--jobs 0", ["build", "--jobs", "0"], (2,), None, ""),
        Case("--shard 5/2", ["extract", "--shard", "5/2"], (2,), None, ""),
        Case("query -f /dev/zero", ["query", "-f", "/dev/zero"], (2,), None, ""),
        Case("validate /dev/zero", ["validate", "/dev/zero"], (2,), None, ""),
        Case("an injection as an ask parameter", ["ask", "methods-on-dataset", "--dataset", 'x" } ; DROP ALL ; #'], (2,), None, ""),
        Case("viz --focus with terminal escapes", ["viz", "--focus", "\x1b[2J\x1b]0;pwned\x07"], (2,), None, ""),
        Case("query --timeout nan", ["query", "--timeout", "nan", "ASK {}"], (2,), None, ""),
        Case("a huge LIMIT", ["query", "SELECT * WHERE { ?s ?p ?o } LIMIT 99999999999999999999999"], (0, 2), None, ""),
    ]


class _Endpoint:
    """A local endpoint the user did name: answers every request with a page of HTML."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                body = b"<html><body>\x1b[2J not SPARQL</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = _answer

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def _base(root: Path, kg_root: Path, env: dict) -> Path:
    """The folder every case starts from: a tiny corpus and its store, built once."""
    base = root / "base"
    (base / "corpus").mkdir(parents=True)
    _jsonl(base / "corpus" / "tiny.jsonl", [_paper(i) for i in range(200)])
    subprocess.run([sys.executable, "-m", "kg", "build", "--no-extract", "--quiet", "corpus"], cwd=base, env=env, check=True, timeout=300)
    return base


def run_case(case: Case, base: Path, root: Path, env: dict, trap: Trap) -> Outcome:
    folder = root / "cases" / str(abs(hash(case.name)))
    shutil.copytree(base, folder, symlinks=True)
    if case.setup:
        case.setup(folder)
    before = _snapshot(folder)
    argv = case.argv(folder) if callable(case.argv) else case.argv
    connections = trap.count
    started = time.monotonic()
    try:
        process = subprocess.run(
            [sys.executable, "-m", "kg", *argv], cwd=folder, env=env, capture_output=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL
        )
        code, out, err = process.returncode, process.stdout, process.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err = -9, exc.stdout or b"", (exc.stderr or b"") + b"\n(timed out)"
    seconds = time.monotonic() - started
    text = (out + err).decode("utf-8", "replace")
    outcome = Outcome(
        case.name,
        case.item,
        code,
        list(case.codes),
        round(seconds, 2),
        traceback="Traceback (most recent call last)" in text or "panicked at" in text,
        internal=code == 3 or code < 0,
        outbound=trap.count - connections,
        bytes_lost=_lost(before, _snapshot(folder), code != 0, case.writes),
        leaked=SECRET in text or TOKEN in text,
        raw_escape=b"\x1b" in out + err,
        stderr=err.decode("utf-8", "replace").strip().splitlines()[-1][:160] if err.strip() else "",
    )
    # An option the code does not have yet: the case did not run at all.
    kept = "No such option" not in text and (case.check is None or case.check(folder, text))
    outcome.ok = (
        kept
        and code in case.codes
        and not (outcome.traceback or outcome.internal or outcome.outbound or outcome.bytes_lost or outcome.leaked or outcome.raw_escape)
    )
    shutil.rmtree(folder, ignore_errors=True)
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kg-root", type=Path, default=REPO, help="The checkout whose kg to run (default: this one).")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(args.kg_root.resolve()))
    env.pop("KG_ENDPOINT_USER", None)
    env.pop("KG_ENDPOINT_PASSWORD", None)
    trap, endpoint = Trap(), _Endpoint()
    outcomes = []
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        base = _base(root, args.kg_root, env)
        for case in cases(trap, endpoint):
            outcome = run_case(case, base, root, env, trap)
            outcomes.append(outcome)
            mark = "ok  " if outcome.ok else "FAIL"
            print(
                f"{mark} [{case.item or '-':>2}] {case.name}: exit {outcome.code} ({outcome.seconds:.1f} s)"
                + ("" if outcome.ok else f"  {outcome.stderr}"),
                flush=True,
            )
    totals = {
        "cases": len(outcomes),
        "kept their promise": sum(o.ok for o in outcomes),
        "wrong exit code": sum(o.code not in o.expected for o in outcomes),
        "tracebacks": sum(o.traceback for o in outcomes),
        "exit 3 or killed by a signal": sum(o.internal for o in outcomes),
        "outbound connections": sum(o.outbound for o in outcomes),
        "bytes lost": sum(o.bytes_lost for o in outcomes),
        "secrets printed": sum(o.leaked for o in outcomes),
        "raw terminal escapes printed": sum(o.raw_escape for o in outcomes),
    }
    print()
    for name, value in totals.items():
        print(f"{name:>30}: {value}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"kg_root": str(args.kg_root), "totals": totals, "cases": [asdict(o) for o in outcomes]}, indent=2) + "\n"
    )
    return 0 if totals["kept their promise"] == totals["cases"] else 1


if __name__ == "__main__":
    sys.exit(main())
