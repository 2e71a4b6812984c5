"""Records of an XML file one at a time, for the XML readers (:mod:`kg.corpus.pubmed`,
:mod:`kg.corpus.atom`): expat (the parser ElementTree is built on) builds each
child of the root element as an ElementTree element and drops it once read, so
a large file is never held as a tree. A file that is not well-formed XML, or
that declares entities (what a "billion laughs" file expands), is an error.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from xml.parsers import expat

from kg.errors import CorpusError
from kg.text import normalise_whitespace

__all__ = ["xml_records", "xml_text", "text_chunks", "line_chunks"]

# Text is handed to expat in pieces of this many characters.
_CHUNK = 1 << 20


def xml_text(element: ET.Element | None) -> str:
    """The element's text with its inline markup's, whitespace normalised."""
    return normalise_whitespace("".join(element.itertext())) if element is not None else ""


def _tag(name: str) -> str:
    """ElementTree's "{namespace}local" from expat's "namespace}local"."""
    return "{" + name if "}" in name else name


def _shown(tag: str) -> str:
    namespace, _, local = tag[1:].rpartition("}")
    return f"<{local}> in namespace {namespace}" if tag.startswith("{") else f"<{tag}>"


class _Walk:
    """Expat handlers that build each child of the root element as an
    ElementTree element and keep it, with the line where it starts, in ``ready``."""

    def __init__(self, file_name: str, root: str, what: str):
        self.file_name, self.root, self.what = file_name, root, what
        self.parser = expat.ParserCreate(namespace_separator="}")
        self.parser.buffer_text = True
        self.parser.StartElementHandler = self._start
        self.parser.EndElementHandler = self._end
        self.parser.CharacterDataHandler = self._data
        self.parser.EntityDeclHandler = self._entity
        self.parser.SkippedEntityHandler = self._skipped
        self.depth = 0
        self.builder = ET.TreeBuilder()
        self.line = 0
        self.ready: list[tuple[int, ET.Element]] = []

    def feed(self, text: str, final: bool = False) -> None:
        try:
            self.parser.Parse(text, final)
        except UnicodeEncodeError as exc:  # a lone surrogate: text that did not come from UTF-8
            raise CorpusError(f"{self.file_name}: not UTF-8 text (character {exc.start} of a piece)") from None
        except expat.ExpatError as exc:
            where = f"line {exc.lineno}, column {exc.offset + 1}"
            raise CorpusError(f"{self.file_name}: not well-formed XML ({where}): {expat.ErrorString(exc.code)}") from None

    def _start(self, name: str, attributes: dict[str, str]) -> None:
        self.depth += 1
        tag = _tag(name)
        if self.depth == 1:
            if tag != self.root:
                raise CorpusError(
                    f"{self.file_name}: not {self.what}: the root element is {_shown(tag)}, not {_shown(self.root)}; force another reader with --format"
                )
            return
        if self.depth == 2:
            self.builder, self.line = ET.TreeBuilder(), self.parser.CurrentLineNumber
        self.builder.start(tag, {_tag(key): value for key, value in attributes.items()})

    def _end(self, name: str) -> None:
        if self.depth >= 2:
            element = self.builder.end(_tag(name))
            if self.depth == 2:
                self.ready.append((self.line, element))
        self.depth -= 1

    def _data(self, data: str) -> None:
        if self.depth >= 2:
            self.builder.data(data)

    def _entity(self, name: str, *_: object) -> None:
        # refused at the declaration, before anything can be expanded
        raise CorpusError(
            f"{self.file_name}: XML entity declarations are refused (<!ENTITY {name} ...> at line {self.parser.CurrentLineNumber}); "
            "write the characters themselves or as &#NNNN; references"
        )

    def _skipped(self, name: str, is_parameter_entity: bool) -> None:
        # an entity the external DTD may define: kg reads no DTD
        raise CorpusError(
            f"{self.file_name}: undefined XML entity &{name}; (line {self.parser.CurrentLineNumber}, column {self.parser.CurrentColumnNumber + 1}); "
            "write the character itself or as a &#NNNN; reference"
        )


def xml_records(chunks: Iterable[str], file_name: str, root: str, what: str) -> Iterator[tuple[int, ET.Element]]:
    """Each child of the root element ``root`` ("{namespace}local" when it has
    one), whole, with the line where it starts: records one at a time, each
    dropped once the caller is done with it. ``what`` names the format in the
    error for another root ("not an Atom feed")."""
    walk = _Walk(file_name, root, what)
    for chunk in chunks:
        walk.feed(chunk)
        yield from walk.ready
        walk.ready.clear()
    walk.feed("", final=True)
    yield from walk.ready


def text_chunks(text: str) -> Iterator[str]:
    for start in range(0, len(text), _CHUNK):
        yield text[start : start + _CHUNK]


def line_chunks(lines: Iterable[str]) -> Iterator[str]:
    """Lines without their ends, joined again into pieces: what a gzipped file
    gives, so that it is never decompressed whole."""
    piece: list[str] = []
    size = 0
    for line in lines:
        piece.append(line + "\n")
        size += len(line) + 1
        if size >= _CHUNK:
            yield "".join(piece)
            piece, size = [], 0
    yield "".join(piece)
