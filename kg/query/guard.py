"""Checks a SPARQL query passes before any parser or engine sees it.

Oxigraph evaluates ``SERVICE <url> { ... }`` by opening an HTTP connection
to ``url``, and it has no switch to turn that off; its recursive-descent
parser overflows the stack on deeply nested input (about 5,000 parentheses).
So every query kg parses or runs, locally, for a remote endpoint or for
``kg serve``'s clients, goes through :func:`check_query` first: a bounded
length, a bounded nesting depth, and no ``SERVICE`` keyword (nor an update's
``LOAD``, which fetches a URL too; it is no keyword of a query).

The scan is lexical (SPARQL's own token rules for comments, strings and
IRIs), so ``"SERVICE"`` in a string, ``<http://x/SERVICE>``, ``ex:SERVICE``
or ``?service`` pass, and it errs on the side of refusing: the keyword's
letters in any other word are refused (Oxigraph's parser reads
``SERVICESILENT``, ``1SERVICE`` and ``SERVICE:x`` as the keyword), which only
a query that uses the keyword contains, or one with a prefix so named.
"""

from __future__ import annotations

import re

from kg.errors import QueryError

__all__ = ["MAX_DEPTH", "MAX_QUERY_CHARS", "check_query"]

#: Longest query accepted, in characters: a hundred times the longest in the
#: library, and small enough that parsing it is instant.
MAX_QUERY_CHARS = 256 * 1024
#: Deepest nesting of (), {} and [] accepted: real queries stay under 10;
#: Oxigraph's parser is safe to well over a thousand.
MAX_DEPTH = 128
#: Most operators and group keywords (||, &&, !, +, *, /, |, ^, ;, ",",
#: OPTIONAL, UNION, MINUS) accepted: the parser recurses on their chains too,
#: without brackets (470 OPTIONALs overflow an 8 MB stack, 9,400 `||` abort
#: the Oxigraph server); the library's queries use at most a few dozen.
MAX_OPERATORS = 256

# One lexical unit that can hide brackets or the keyword: a comment, a long or
# short string (with escapes), an IRI reference (no spaces inside, so `?a < ?b`
# is not one; \u escapes, which Oxigraph reads in IRIs), a variable, a language
# tag, or a word: a prefixed name or blank node label (with the local name's
# escapes, `ex:a\#b`), a keyword or a number; then the operators counted.
_TOKEN = re.compile(
    r"""\#[^\n\r]*
    | '''(?:[^'\\]|\\.|'(?!''))*'''
    | \"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
    | '(?:[^'\\\n\r]|\\.)*'
    | "(?:[^"\\\n\r]|\\.)*"
    | <(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>
    | [?$][\w\u00b7\u0300-\u036f\u203f-\u2040]+
    | @[a-zA-Z]+(?:-[a-zA-Z0-9]+)*
    | (?P<word>[\w\-.\u00b7\u0300-\u036f\u203f-\u2040]*:(?:[\w\-.:%\u00b7\u0300-\u036f\u203f-\u2040]|\\[_~.\-!$&'()*+,;=/?\#@%])*
      | [\w\-.\u00b7\u0300-\u036f\u203f-\u2040]+)
    | [(){}\[\]]
    | \^\^
    | (?P<op>\|\||&&|[!+*/|^;,])
    """,
    re.VERBOSE | re.DOTALL,
)
_OPEN, _CLOSE = "({[", ")}]"
_GROUPS = {"OPTIONAL", "UNION", "MINUS"}


def check_query(sparql: str) -> None:
    """Raise :class:`QueryError` unless ``sparql`` is short, shallow, not too complex and has no SERVICE or LOAD."""
    if len(sparql) > MAX_QUERY_CHARS:
        raise QueryError(f"query too long: {len(sparql):,} characters (at most {MAX_QUERY_CHARS:,})")
    depth = operators = 0
    for match in _TOKEN.finditer(sparql):
        word = match["word"]
        if match["op"]:
            operators += 1
        elif word is not None:  # a keyword, or a number whose minus signs are a chain (`1-1-1`)
            operators += 1 if word.upper() in _GROUPS else 0 if ":" in word else word.count("-")
        if operators > MAX_OPERATORS:
            raise QueryError(f"query too complex: more than {MAX_OPERATORS} operators, OPTIONALs and UNIONs (at character {match.start()})")
        token = match[0]
        if token in _OPEN:
            depth += 1
            if depth > MAX_DEPTH:
                raise QueryError(f"query nested too deeply: more than {MAX_DEPTH} levels of (), {{}} or [] (at character {match.start()})")
        elif token in _CLOSE:
            depth -= 1
        elif match["word"]:
            # Oxigraph reads a keyword wherever its letters start, glued to a number, a keyword
            # or a colon too (`1SERVICE`, `SERVICESILENT`, `SERVICE:x`): look inside the word,
            # up to a prefixed name's colon (all after it is one local name to Oxigraph too).
            head = match["word"].partition(":")[0].upper()
            if "SERVICE" in head:
                raise QueryError(
                    "SERVICE (federated query) is refused: kg never opens a network connection for a query; "
                    "run the remote part with `kg query --endpoint URL` instead"
                )
            if "LOAD" in head:  # an update's LOAD <url> fetches the url (`kg serve --writable`)
                raise QueryError("LOAD is refused: kg never fetches a URL for an update; load files with `kg build`")
