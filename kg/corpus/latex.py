"""LaTeX in BibTeX fields made readable text, with pylatexenc's LaTeX-to-text
converter and a few additions for what bibliographies hold.

Accents and special letters become Unicode (``{\\"o}`` ö, ``\\'e`` é,
``{\\ss}`` ß); formatting commands keep their text (``\\emph{x}`` x); braces
that protect case go (``{BERT}`` BERT); math becomes its text (``$\\alpha$``
α, ``$O(n^2)$`` O(n^2)); ``--`` and ``---`` become en and em dashes, ``~`` a
space. Citations, references, labels and footnotes vanish (pylatexenc would
write "<cit.>"); ``\\url{x}`` and ``\\href{x}{text}`` keep x and text. A bare
``%`` is a percent sign, not a comment: abstracts say "5% better".
"""

from __future__ import annotations

import functools
import re

from pylatexenc import latexwalker
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
from pylatexenc.macrospec import MacroSpec

__all__ = ["to_text"]

# A macro that vanishes leaves this mark, removed with the space before it
# ("shown in \cite{x}." gives "shown in."); no text holds NUL (kg refuses such files).
_GONE = "\x00"
_CITE = "*[[{"
# (macro, its arguments as pylatexenc writes them, what it becomes: "%(n)s" is
# its n-th argument). pylatexenc knows natbib's citations but not biblatex's, and
# not the arguments of \href (it fails on it), so each is declared here.
_MACROS = (
    *((name, _CITE, _GONE) for name in ("cite", "citep", "citet", "citealt", "citealp", "citeauthor", "citeyear", "citeyearpar")),
    *((name, _CITE, _GONE) for name in ("Cite", "Citep", "Citet", "parencite", "Parencite", "textcite", "Textcite", "autocite")),
    *((name, _CITE, _GONE) for name in ("Autocite", "footcite", "smartcite", "supercite", "nocite", "citenum")),
    *((name, "{", _GONE) for name in ("ref", "eqref", "autoref", "cref", "Cref", "pageref", "label")),
    ("footnote", "[{", _GONE),
    ("thanks", "{", _GONE),
    ("url", "{", "%(1)s"),
    ("href", "{{", "%(2)s"),
    ("hyphen", "", "-"),  # biblatex's breakable hyphen
    ("slash", "", "/"),
    *((name, "{", "%(1)s") for name in ("mkbibemph", "mkbibitalic", "mkbibbold", "textsubscript", "textsuperscript")),
    ("mkbibquote", "{", "\u201c%(1)s\u201d"),
)

# Only text with one of these needs the converter (it takes milliseconds an abstract).
_LATEX = re.compile(r"[\\{}$~%]|--|``|''")
# Longer text is kept as written: kg skips it as too long anyway (twice
# kg.corpus.MAX_ABSTRACT_CHARS), and dense LaTeX takes the converter about a
# second per 10,000 characters.
_LONGEST = 20_000
_BARE_PERCENT = re.compile(r"(?<!\\)%")
_VANISHED = re.compile(r"\s*\x00")


@functools.cache
def _converter() -> tuple[LatexNodes2Text, object]:
    """The converter and the parser context it reads with (built on first use)."""
    parsing = latexwalker.get_default_latex_context_db()
    parsing.add_context_category("kg", prepend=True, macros=[MacroSpec(name, args) for name, args, _ in _MACROS])
    texts = get_default_latex_context_db()
    texts.add_context_category("kg", prepend=True, macros=[MacroTextSpec(name, simplify_repl=repl) for name, _, repl in _MACROS])
    return LatexNodes2Text(latex_context=texts, math_mode="text"), parsing


def _convert(value: str) -> str:
    converter, parsing = _converter()
    try:
        text = converter.latex_to_text(_BARE_PERCENT.sub(r"\\%", value), latex_context=parsing)
    except Exception:  # noqa: BLE001 - pylatexenc raises IndexError and others on odd input; one field must not stop a file
        return value
    return _VANISHED.sub("", text)


# names, venues and keywords repeat across a library
_convert_short = functools.lru_cache(maxsize=8192)(_convert)


def to_text(value: str) -> str:
    """``value`` with its LaTeX made plain text (whitespace not yet normalised);
    text the converter cannot read is kept as written."""
    if not _LATEX.search(value) or len(value) > _LONGEST:
        return value
    return _convert_short(value) if len(value) <= 200 else _convert(value)
