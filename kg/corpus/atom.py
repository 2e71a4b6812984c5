"""Reader for Atom feeds (RFC 4287), above all what the arXiv API answers
(``http://export.arxiv.org/api/query?search_query=...``): a ``<feed>`` of
``<entry>`` records with arXiv's ``arxiv:`` elements. Each entry gives

    title       title
    abstract    summary
    authors     author/name, in order (the feed's own authors when the entry has none)
    date        published (the first version; ``updated`` is the latest, not the issue date)
    arxiv_id    id, when it is an arXiv abs URL: http://arxiv.org/abs/2401.01234v2 gives 2401.01234
    categories  arxiv:primary_category, then every category term
    doi         arxiv:doi (the first, when it lists several)
    venue       arxiv:journal_ref
    url         the link rel="alternate" (a link without rel is one), the abs page
    id          id, as written

``arxiv:comment`` and ``arxiv:affiliation`` are not read. A feed from anywhere
else is read the same way; an entry without a summary is skipped ("without an
abstract"). A summary or title of type="html" is read as the HTML's text.

The arXiv API reports a bad query as a feed of one entry whose id starts
``http://arxiv.org/api/errors#``: that file is an error with the API's
message, as is a feed whose ``opensearch:totalResults`` is 0. The XML is read
one entry at a time, safely (see :mod:`kg.corpus.pubmed`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from html.parser import HTMLParser

from kg.corpus.fields import is_valid_iri, normalise_arxiv_id, normalise_doi, parse_iso_date
from kg.corpus.xmlrecords import line_chunks, text_chunks, xml_records, xml_text
from kg.errors import CorpusError
from kg.records import Paper, Rejected, SourceRef
from kg.text import normalise_whitespace

__all__ = ["NAME", "SUFFIXES", "looks_like", "read", "read_lines"]

NAME = "atom"
SUFFIXES = (".atom", ".xml")

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"

# the root element, with or without a prefix, and the Atom namespace in its start tag
_HEAD = re.compile(r"<(?:[A-Za-z_][\w.-]*:)?feed\b[^>]*=\s*[\"']http://www\.w3\.org/2005/Atom[\"']")
_ERROR_IDS = ("http://arxiv.org/api/errors", "https://arxiv.org/api/errors")


def looks_like(text: str) -> bool:
    head = text[:4096]
    return head.lstrip().startswith("<") and _HEAD.search(head) is not None  # XML, not prose that quotes it


class _HtmlText(HTMLParser):
    """The text of an HTML fragment, a space where a block ends."""

    BLOCKS = {"p", "br", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.BLOCKS:
            self.parts.append(" ")


def _text(element: ET.Element | None) -> str:
    """An Atom text construct's text: type "text" (the default), "html" or "xhtml"."""
    if element is not None and element.get("type") == "html":
        parser = _HtmlText()
        parser.feed(element.text or "")
        parser.close()
        return normalise_whitespace("".join(parser.parts))
    return xml_text(element)


def _names(parent: ET.Element) -> tuple[str, ...]:
    return tuple(name for name in (xml_text(a.find(f"{ATOM}name")) for a in parent.iterfind(f"{ATOM}author")) if name)


def _url(entry: ET.Element) -> str | None:
    for link in entry.iterfind(f"{ATOM}link"):
        href = normalise_whitespace(link.get("href", ""))
        if link.get("rel", "alternate") == "alternate" and href and is_valid_iri(href):
            return href
    return None


def _paper(entry: ET.Element, source: SourceRef, where: str, feed_authors: tuple[str, ...]) -> Paper | Rejected:
    abstract = _text(entry.find(f"{ATOM}summary"))
    if not abstract:
        return Rejected(source.line, "without an abstract", f"{where}: Atom entry has no <summary> (the abstract), or it is empty")
    entry_id = xml_text(entry.find(f"{ATOM}id")) or None
    year, date = parse_iso_date(xml_text(entry.find(f"{ATOM}published")))
    primary = entry.find(f"{ARXIV}primary_category")
    terms = [primary.get("term", "")] if primary is not None else []
    terms += [category.get("term", "") for category in entry.iterfind(f"{ATOM}category")]
    dois = (normalise_doi(token) for token in xml_text(entry.find(f"{ARXIV}doi")).split())
    return Paper(
        abstract=abstract,
        source=source,
        title=_text(entry.find(f"{ATOM}title")) or None,
        authors=_names(entry) or feed_authors,
        venue=xml_text(entry.find(f"{ARXIV}journal_ref")) or None,
        year=year,
        date=date,
        categories=tuple(dict.fromkeys(t for t in (normalise_whitespace(term) for term in terms) if t)),
        doi=next((doi for doi in dois if doi), None),
        arxiv_id=normalise_arxiv_id(entry_id) if entry_id else None,
        url=_url(entry),
        source_id=entry_id,
    )


def _read(chunks: Iterable[str], file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
    feed_authors: tuple[str, ...] = ()
    total = None
    index = 0
    for line, element in xml_records(chunks, file_name, f"{ATOM}feed", "an Atom feed"):
        if element.tag == f"{ATOM}author" and (name := xml_text(element.find(f"{ATOM}name"))):
            feed_authors += (name,)
        elif element.tag == f"{OPENSEARCH}totalResults":
            total = xml_text(element)
        elif element.tag == f"{ATOM}entry":
            index += 1
            entry_id = xml_text(element.find(f"{ATOM}id"))
            if entry_id.startswith(_ERROR_IDS):
                raise CorpusError(
                    f"{file_name}: the arXiv API answered with an error, not papers: {_text(element.find(f'{ATOM}summary'))} ({entry_id})"
                )
            source = SourceRef(file_name=file_name, sha256=sha256, line=line, index=index, format=NAME)
            yield _paper(element, source, f"{file_name}:{line}", feed_authors)
    if index == 0 and total == "0":
        raise CorpusError(f"{file_name}: the feed holds no entries (opensearch:totalResults is 0: the query matched no papers)")


def read(text: str, file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
    yield from _read(text_chunks(text), file_name, sha256)


def read_lines(lines: Iterable[str], file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
    """:func:`read` for a gzipped file, given as its lines."""
    yield from _read(line_chunks(lines), file_name, sha256)
