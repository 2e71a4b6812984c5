"""Running SPARQL against the store.

The standard prefixes (``kg.vocab.PREFIXES``) are predeclared, so queries can
use ``kg:``, ``dcterms:``, ``foaf:`` ... without PREFIX lines. User values are
bound to variables as RDF terms (:mod:`kg.query.binding`: each one term,
escaped by pyoxigraph, put where its variable stands as SPARQL's SEP-0007
substitution does), never pasted in as text, so a value can never change what
the query does.

Every query passes :func:`kg.query.guard.check_query` before Oxigraph sees
it (no SERVICE, bounded size and nesting): :func:`run_query` and
:func:`query_form` are the only places kg hands a query to Oxigraph.

A query given a ``timeout`` (``kg query``, ``kg ask``, ``kg viz --query``)
runs in a worker thread while the calling thread waits: Oxigraph evaluates
without the GIL and never returns to Python inside a long join or aggregate,
so Ctrl-C, ``kill`` and the deadline would otherwise wait for the query to
end. The worker has a deep stack, because Oxigraph's parser, optimiser and
evaluator recurse once per operator (470 OPTIONALs, 9 KB of text, overflow
the 8 MB main stack), and it writes the answer out as SPARQL JSON results
(or N-Triples), at most :data:`MAX_ANSWER_BYTES` of it, which the caller
reads back: pyoxigraph's result iterators cannot leave the thread that made
them. A worker left behind by Ctrl-C or the deadline stops at its next row,
or with the process.
"""

from __future__ import annotations

import io
import queue
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from pyoxigraph import (
    Literal,
    NamedNode,
    QueryBoolean,
    QueryResultsFormat,
    QuerySolutions,
    QueryTriples,
    RdfFormat,
    Store,
    Triple,
    parse,
    parse_query_results,
    serialize,
)

from kg.errors import QueryError
from kg.query.guard import check_query
from kg.vocab import PREFIXES

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "MAX_ANSWER_BYTES",
    "QueryResult",
    "QueryTimeout",
    "in_worker",
    "parse_param",
    "query_form",
    "run_query",
    "text_literal",
]

#: ``kg query --timeout`` and the others' time limit, in seconds.
DEFAULT_TIMEOUT_S = 60.0
#: Most bytes of SPARQL JSON (or N-Triples) a query with a timeout may answer:
#: about two million rows of three terms (500,000 take 64 MB), and bounded
#: memory where ``SELECT *`` over a large store grows by 15 MB a second.
MAX_ANSWER_BYTES = 256 * 2**20
#: The worker's stack. The deepest query :data:`kg.query.guard.MAX_QUERY_CHARS`
#: allows, 256 K of ``!`` (a level each), ran in it using 285 MB in all; it is
#: reserved, not taken: only the pages a query touches use memory.
_STACK_BYTES = 512 * 2**20
_STACK_LOCK = threading.Lock()
_T = TypeVar("_T")

_POSITION = re.compile(r"error at (\d+):(\d+): (.*)", re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_ERROR_CHARS = 160


@dataclass
class QueryResult:
    """One query's answer: ``kind`` is "select", "ask" or "graph"; a graph's
    ``raw`` is an iterable of triples, read once."""

    kind: str
    raw: QuerySolutions | QueryBoolean | Iterable[Triple]
    variables: list[str] = field(default_factory=list)

    @property
    def solutions(self) -> QuerySolutions:
        """A SELECT answer's solutions (TypeError for an ASK or graph answer, which are not rows)."""
        if not isinstance(self.raw, QuerySolutions):
            raise TypeError(f"a {self.kind} answer has no solutions")
        return self.raw

    @property
    def triples(self) -> Iterable[Triple]:
        """A CONSTRUCT/DESCRIBE answer's triples, read once (TypeError for a SELECT or ASK answer)."""
        if isinstance(self.raw, QuerySolutions | QueryBoolean):
            raise TypeError(f"a {self.kind} answer has no triples")
        return self.raw


def text_literal(value: str) -> Literal:
    """A string literal of ``value``; a lone surrogate (what Python makes of
    bytes on the command line that are not UTF-8) becomes U+FFFD."""
    return Literal(_SURROGATE.sub("\ufffd", value))


def parse_param(value: str) -> NamedNode | Literal:
    """``<iri>`` becomes an IRI; anything else a plain string literal."""
    if value.startswith("<") and value.endswith(">"):
        try:
            return NamedNode(value[1:-1])
        except ValueError as exc:
            raise QueryError(f"parameter value {value!r} is not a valid IRI") from exc
    return text_literal(value)


_UPDATE = re.compile(
    r"^(?:\s|#[^\n]*\n|(?:PREFIX\s+[^\s:]*:\s*<[^>]*>)|(?:BASE\s*<[^>]*>))*"
    r"(INSERT|DELETE|LOAD|CLEAR|DROP|CREATE|ADD|MOVE|COPY|WITH)\b",
    re.IGNORECASE,
)


def syntax_message(error: SyntaxError, sparql: str = "") -> str:
    if match := _UPDATE.match(sparql):
        return (
            f"{match[1].upper()} is SPARQL Update: kg query only reads (SELECT, ASK, CONSTRUCT, DESCRIBE); "
            "change the graph by rebuilding it with `kg build`"
        )
    text = str(error)
    match = _POSITION.match(text)
    if not match:
        return f"malformed SPARQL query: {text.splitlines()[0]}"
    line, column, detail = match.groups()
    if "Prefix not found" in detail:
        detail = "unknown prefix; declare it with PREFIX or use a predeclared one (" + ", ".join(PREFIXES) + ")"
    else:
        detail = " ".join(detail.split())
        if len(detail) > MAX_ERROR_CHARS:
            detail = detail[:MAX_ERROR_CHARS].rsplit(" ", 1)[0] + " ..."
    return f"malformed SPARQL query at line {line}, column {column}: {detail}"


class QueryTimeout(QueryError):
    """A query ran past its time limit."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        super().__init__(
            f"query ran past --timeout {timeout:g} s; narrow it (LIMIT, fewer unbound patterns) or allow it longer (--timeout 0: no limit)"
        )


class _Sink:
    """Where a worker writes its answer; it stops the worker once nobody waits
    for the answer, or once the answer is larger than :data:`MAX_ANSWER_BYTES`."""

    def __init__(self, cancelled: threading.Event):
        self.buffer = io.BytesIO()
        self.cancelled = cancelled

    def write(self, data: bytes) -> int:
        if self.cancelled.is_set():
            raise QueryError("abandoned")  # nobody reads it: this only ends the worker
        if self.buffer.tell() + len(data) > MAX_ANSWER_BYTES:
            raise QueryError(
                f"the answer is larger than {MAX_ANSWER_BYTES // 2**20} MB; narrow the query or add a LIMIT "
                "(`kg export` writes the whole graph)"
            )
        return self.buffer.write(data)

    def flush(self) -> None:
        pass


def in_worker(work: Callable[[threading.Event], _T], timeout: float) -> _T:
    """``work(cancelled)``, run in a daemon thread with a deep stack: its result,
    or its exception raised here. After ``timeout`` seconds (0: no limit)
    :class:`QueryTimeout`; Ctrl-C (or ``kill``) is raised here at once. Either
    way ``cancelled`` is set, and the worker is left to stop by itself."""
    done: queue.Queue = queue.Queue(maxsize=1)
    cancelled = threading.Event()

    def target() -> None:
        try:
            done.put((True, work(cancelled)))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread, which raises it
            done.put((False, exc))

    with _STACK_LOCK:  # the size is process-wide: set it for this one thread only
        previous = threading.stack_size(_STACK_BYTES)
        try:
            threading.Thread(target=target, name="kg-query", daemon=True).start()
        finally:
            threading.stack_size(previous)
    try:
        ok, value = done.get(timeout=timeout or None)  # a lock wait: signals interrupt it
    except queue.Empty:
        raise QueryTimeout(timeout) from None
    finally:
        cancelled.set()
    if ok:
        return value
    raise value


def _form(sparql: str) -> str:
    """``sparql``'s form as Oxigraph parses it: "select", "ask" or "graph"."""
    try:
        raw = Store().query(sparql, prefixes=PREFIXES)  # an empty store: nothing to evaluate, nothing to reach
    except SyntaxError as exc:
        raise QueryError(syntax_message(exc, sparql)) from exc
    except (RuntimeError, OSError) as exc:
        raise QueryError(f"query failed: {exc}") from exc
    return _KINDS[type(raw)]


def query_form(sparql: str, timeout: float = DEFAULT_TIMEOUT_S) -> str:
    """Check ``sparql`` (the guard, then Oxigraph's parser, in a worker) and
    say its form: "select", "ask" or "graph" (CONSTRUCT, DESCRIBE). Syntax
    errors are :class:`QueryError` pointing into the query as written."""
    check_query(sparql)
    return in_worker(lambda cancelled: _form(sparql), timeout)


def _evaluate(
    store: Store, sparql: str, params: Mapping[str, str | NamedNode | Literal] | None
) -> QuerySolutions | QueryBoolean | QueryTriples:
    from kg.query.binding import bind_terms

    if params:
        _form(sparql)  # syntax errors point into the query as written
    try:
        return store.query(bind_terms(sparql, params) if params else sparql, prefixes=PREFIXES)
    except SyntaxError as exc:
        if not params:
            raise QueryError(syntax_message(exc, sparql)) from exc
        names = ", ".join(f"?{name}" for name in params)
        raise QueryError(f"cannot bind {names} in this query: {syntax_message(exc)}") from exc
    except (RuntimeError, OSError) as exc:
        raise QueryError(f"query failed: {exc}") from exc


def _written(
    store: Store, sparql: str, params: Mapping[str, str | NamedNode | Literal] | None, cancelled: threading.Event
) -> tuple[str, QueryBoolean | io.BytesIO]:
    """The answer, computed and written out in full (in the worker)."""
    raw = _evaluate(store, sparql, params)
    if isinstance(raw, QueryBoolean):
        return "ask", raw  # computed already, and free to change threads
    sink, kind = _Sink(cancelled), _KINDS[type(raw)]
    try:
        # The stubs want IO[bytes]; pyoxigraph only calls the sink's write (and flush).
        if isinstance(raw, QuerySolutions):
            raw.serialize(sink, format=QueryResultsFormat.JSON)  # type: ignore[arg-type]
        else:
            serialize(raw, sink, format=RdfFormat.N_TRIPLES)  # type: ignore[arg-type]
    except (RuntimeError, OSError, ValueError) as exc:
        raise QueryError(f"query failed while computing its answer: {exc}") from exc
    finally:
        # Freed in any other thread (by an error's traceback, which keeps this frame), it aborts.
        del raw
    sink.buffer.seek(0)
    return kind, sink.buffer


_KINDS = {QuerySolutions: "select", QueryBoolean: "ask", QueryTriples: "graph"}


def run_query(
    store: Store, sparql: str, params: Mapping[str, str | NamedNode | Literal] | None = None, *, timeout: float | None = None
) -> QueryResult:
    """Run a SPARQL query; ``params`` bind variables by name (without the "?").

    Without ``timeout`` (kg's own queries) it runs in the calling thread and
    its answer is computed as it is read. With one (seconds, 0: no limit) it
    runs in a worker (see the module's docstring): past the limit
    :class:`QueryTimeout`, Ctrl-C at once, and the answer is read whole, at
    most :data:`MAX_ANSWER_BYTES` of it.
    """
    check_query(sparql)
    if timeout is None:
        raw = _evaluate(store, sparql, params)
        variables = [v.value for v in raw.variables] if isinstance(raw, QuerySolutions) else []
        return QueryResult(_KINDS[type(raw)], raw, variables)
    kind, answer = in_worker(lambda cancelled: _written(store, sparql, params, cancelled), timeout)
    if isinstance(answer, QueryBoolean):  # kind "ask"
        return QueryResult("ask", answer)
    if kind == "select":
        solutions = parse_query_results(answer, format=QueryResultsFormat.JSON)
        assert isinstance(solutions, QuerySolutions)  # written from a SELECT's solutions above
        return QueryResult("select", solutions, [v.value for v in solutions.variables])
    return QueryResult("graph", (quad.triple for quad in parse(answer, format=RdfFormat.N_TRIPLES)))
