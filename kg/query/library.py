"""The named query library: ``.rq`` files in ``kg/query/library``.

Each file starts with comment lines: the first says what question the query
answers, and ``# param NAME: description`` lines declare the variables a user
must bind (``--param NAME=VALUE``). ``# param NAME (KIND): description`` also
says what the value names, so that ``kg ask`` can check it exists: ``concept``
(a concept's label), ``paper`` (a paper's title or label) or ``author`` (a
person's name). Other comment lines of the header are notes on how the query
answers. The file's stem is the query's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import QueryError

__all__ = ["LIBRARY", "PARAM_KINDS", "DrawPattern", "NamedQuery", "list_queries", "find_query", "load_query_file", "parse_draw"]

LIBRARY = Path(__file__).with_name("library")
PARAM_KINDS = ("concept", "paper", "author")
_PARAM = re.compile(r"^#\s*param\s+\??(\w+)\s*(?:\(\s*(\w+)\s*\))?\s*:\s*(.*)$")
_DRAW = re.compile(r"^#\s*draw\s*:\s*(.*)$")
_TERM = re.compile(r'\s*(\?\w+|<[^<>"{}|^`\\\s]+>|[A-Za-z][\w-]*:[\w.-]+|"[^"\\]+")')


@dataclass(frozen=True)
class DrawPattern:
    """One ``?subject predicate ?object`` of a drawing: each row links the node of
    its ``subject`` column to that of its ``object`` column. ``predicate`` is the
    link's label: a prefixed name or ``<IRI>``, a quoted ``"label"``, or a
    ``?column`` whose value in the row names the link."""

    subject: str  # column names, without "?"
    predicate: str
    object: str

    @property
    def predicate_column(self) -> str | None:
        return self.predicate[1:] if self.predicate.startswith("?") else None

    def columns(self) -> list[str]:
        return [self.subject, *([self.predicate_column] if self.predicate_column else []), self.object]


def parse_draw(text: str, where: str = "--draw") -> tuple[DrawPattern, ...]:
    """``?method kg:evaluatedOn ?dataset ; ?paper kg:mentions ?method`` as patterns."""
    patterns = []
    for part in text.split(";"):
        if not part.strip():
            continue
        terms, position = [], 0
        while position < len(part.rstrip()) and (match := _TERM.match(part, position)):
            terms.append(match[1])
            position = match.end()
        if position < len(part.rstrip()) or len(terms) != 3 or not (terms[0].startswith("?") and terms[2].startswith("?")):
            raise QueryError(
                f"{where}: {part.strip()!r} is not a drawing pattern; write ?subject PREDICATE ?object "
                '(PREDICATE: a prefixed name, <IRI>, "label" or ?column), patterns separated by ;'
            )
        subject, predicate, obj = terms
        patterns.append(DrawPattern(subject[1:], predicate.strip('"') if predicate.startswith('"') else predicate, obj[1:]))
    if not patterns:
        raise QueryError(f"{where}: no drawing pattern given (?subject PREDICATE ?object)")
    return tuple(patterns)


@dataclass(frozen=True)
class NamedQuery:
    name: str
    question: str
    params: dict[str, str]  # name -> description
    sparql: str
    path: Path
    kinds: dict[str, str] = field(default_factory=dict)  # param name -> one of PARAM_KINDS, where declared
    notes: str = ""  # the header's other comment lines
    draw: tuple[DrawPattern, ...] = ()  # how its answer is drawn (``# draw:``)


def load_query_file(path: Path) -> NamedQuery:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QueryError(f"{path}: cannot read query file ({exc})") from exc
    header = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    question = header[0].lstrip("# ").strip() if header else ""
    matches = [m for line in header if (m := _PARAM.match(line))]
    params = {m[1]: m[3].strip() for m in matches}
    kinds = {m[1]: m[2] for m in matches if m[2]}
    for name, kind in kinds.items():
        if kind not in PARAM_KINDS:
            raise QueryError(f"{path}: parameter {name!r} has kind {kind!r}; known kinds are {', '.join(PARAM_KINDS)}")
    draws = [m[1] for line in header if (m := _DRAW.match(line))]
    draw = parse_draw(" ; ".join(draws), f"{path}: # draw") if draws else ()
    notes = "\n".join(
        line[2:].rstrip() if line.startswith("# ") else line[1:].strip()
        for line in header[1:]
        if not _PARAM.match(line) and not _DRAW.match(line)
    )
    return NamedQuery(name=path.stem, question=question, params=params, sparql=text, path=path, kinds=kinds, notes=notes, draw=draw)


def list_queries() -> list[NamedQuery]:
    return [load_query_file(p) for p in sorted(LIBRARY.glob("*.rq"))]


def find_query(name_or_path: str) -> NamedQuery:
    """A query file by path, or a library query by name."""
    if not name_or_path.strip():
        raise QueryError("no query named: give a .rq file or a library query's name (`kg query --list` shows them)")
    path = Path(name_or_path)
    if path.is_file():
        return load_query_file(path)
    candidate = LIBRARY / f"{name_or_path}.rq"
    if candidate.is_file():
        return load_query_file(candidate)
    names = ", ".join(q.name for q in list_queries())
    raise QueryError(f"{name_or_path}: no such query file or library query (library: {names})")
