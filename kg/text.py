"""Text normalisation shared by the readers and the linking stage.

Readers normalise once with :func:`normalise_whitespace`; every character
offset in the graph refers to that normalised text.
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
import unicodedata

__all__ = ["normalise_whitespace", "is_blank", "derived_label", "fold", "match_key", "slugify", "short_hash"]

# Unicode spaces (NBSP, thin spaces, ideographic space ...) count as whitespace;
# zero-width characters and C0/C1 controls other than whitespace (tab, line
# breaks, U+0085 NEXT LINE) are dropped.
_SPACE_CHARS = r"\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_INVISIBLE_CHARS = r"\u0000-\u0008\u000b\u000e-\u001f\u007f-\u0084\u0086-\u009f\u200b-\u200d\u2060\ufeff"
_SPACES = re.compile(f"[{_SPACE_CHARS}]+")
_INVISIBLE = re.compile(f"[{_INVISIBLE_CHARS}]")
_VISIBLE = re.compile(f"[^{_SPACE_CHARS}{_INVISIBLE_CHARS}]")
# A lone surrogate (JSON's "\ud800" escape) is no character: it cannot be written as UTF-8.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_WORDS = re.compile(r"\w+")

DERIVED_LABEL_LENGTH = 80


def normalise_whitespace(text: str) -> str:
    """Replace lone surrogates with U+FFFD, drop invisible characters,
    NFC-compose, collapse every run of spaces to one (idempotent: composing
    last means no dropped character can leave a pair to compose later)."""
    text = _INVISIBLE.sub("", _SURROGATE.sub("\ufffd", text))
    text = unicodedata.normalize("NFC", text)
    return _SPACES.sub(" ", text).strip()


def is_blank(text: str) -> bool:
    """Whether :func:`normalise_whitespace` would leave nothing, without making
    the copies it makes (a whole corpus file can be hundreds of MB)."""
    return _VISIBLE.search(text) is None


def derived_label(abstract: str, length: int = DERIVED_LABEL_LENGTH) -> str:
    """A display label for an untitled paper: its first sentence, cut at a word.

    The result ends with "…" whenever the sentence was shortened, so it never
    passes for a real title.
    """
    first = re.split(r"(?<=[.!?])\s", abstract, maxsplit=1)[0]
    if len(first) <= length:
        return first
    cut = first[: length + 1].rsplit(" ", 1)[0] if " " in first[:length] else first[:length]
    return cut.rstrip(" ,;:-") + "…"


def fold(text: str) -> str:
    """Case- and accent-insensitive form of ``text`` (é -> e, ß -> ss)."""
    if text.isascii():  # the common case, and the same answer: nothing to decompose or strip
        return text.lower()
    # Compatibility forms first (𝓐 -> A), then case, then decompose what casefold made.
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).casefold())
    return decomposed.translate(_combining_marks())


@functools.cache
def _combining_marks() -> dict[int, None]:
    """str.translate table deleting every combining mark (built once, ~0.1 s)."""
    return {cp: None for cp in range(sys.maxunicode + 1) if unicodedata.combining(chr(cp))}


def match_key(text: str) -> str:
    """Words of the folded text joined by single spaces: punctuation and spacing
    differences ("--" vs "—", "Sai-Kit" vs "Sai Kit", "J." vs "J") vanish."""
    return " ".join(_WORDS.findall(fold(text)))


def short_hash(text: str, length: int = 16) -> str:
    # surrogatepass: the same bytes as UTF-8 for any text, and a hash even for a lone surrogate
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def slugify(text: str) -> str:
    """A readable, IRI-safe local name; a hash suffix keeps it unique when
    non-ASCII letters had to be dropped (so "Bıyık" and "Byk" stay apart)."""
    key = match_key(text)
    parts = [re.sub(r"[^a-z0-9]", "", word) for word in key.split()]
    slug = "-".join(p for p in parts if p)
    if not slug or " ".join(parts) != key:  # something beyond ASCII letters and digits was dropped
        slug = f"{slug}-{short_hash(key, 8)}" if slug else short_hash(key, 12)
    return slug
