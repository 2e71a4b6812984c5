"""Reader for PubMed XML: what NCBI's efetch returns for ``db=pubmed&retmode=xml``,
and the format of PubMed's annual baseline and daily update files
(``pubmed25n0001.xml.gz``). A ``<PubmedArticleSet>`` holds ``<PubmedArticle>``
records as the MEDLINE/PubMed DTD defines them; each gives (``Article`` is
``MedlineCitation/Article``):

    title       Article/ArticleTitle
    abstract    Article/Abstract/AbstractText; the sections of a structured
                abstract are joined with their labels: "BACKGROUND: ... METHODS: ..."
    authors     Article/AuthorList/Author in order: "ForeName LastName" (Initials
                when there is no ForeName) or CollectiveName; an Identifier
                Source="ORCID" gives the author's ORCID
    venue       Article/Journal/Title, else Article/Journal/ISOAbbreviation
    date        Article/ArticleDate (the electronic publication) when there is
                one, else Article/Journal/JournalIssue/PubDate: Year, Month ("Mar"
                or "03") and Day, or MedlineDate ("2024 Mar-Apr": year and first month)
    categories  MedlineCitation/MeshHeadingList/MeshHeading/DescriptorName, then
                MedlineCitation/KeywordList/Keyword
    pmid        MedlineCitation/PMID, also the record's id; the url is
                https://pubmed.ncbi.nlm.nih.gov/<PMID>/
    doi         PubmedData/ArticleIdList/ArticleId IdType="doi", else
                Article/ELocationID EIdType="doi"

Inline markup (``<i>``, ``<sup>``, MathML) is kept as its text. PMC ids,
references and affiliations are not read. A ``<PubmedBookArticle>`` (a
Bookshelf chapter) is skipped as "not a journal article"; an update file's
``<DeleteCitation>`` list is ignored.

The XML is read with expat (the parser ElementTree is built on) one record at
a time (:mod:`kg.corpus.xmlrecords`), so a baseline file is never held as a tree. A file that is not well-formed XML, or that
declares entities (what a "billion laughs" file expands), is an error.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator

from kg.corpus.fields import iso_date, normalise_doi, normalise_orcid, normalise_pmid
from kg.corpus.xmlrecords import line_chunks, text_chunks, xml_records, xml_text
from kg.records import Paper, Rejected, SourceRef
from kg.text import normalise_whitespace

__all__ = ["NAME", "SUFFIXES", "looks_like", "read", "read_lines", "xml_records", "xml_text", "text_chunks", "line_chunks"]

NAME = "pubmed"
SUFFIXES = (".xml",)

_HEAD = re.compile(r"<(?:!DOCTYPE\s+)?PubmedArticleSet\b")
# "2024 Mar-Apr", "1998 Dec-1999 Jan", "2000 Spring", "Fall 2017"
_MEDLINE_DATE = re.compile(r"\b(\d{4})\b(?:\s+([A-Za-z]+))?")
_ORCID_DIGITS = re.compile(r"(\d{4})(\d{4})(\d{4})(\d{3}[\dX])", re.IGNORECASE)


def looks_like(text: str) -> bool:
    head = text[:4096]
    return head.lstrip().startswith("<") and _HEAD.search(head) is not None  # XML, not prose that quotes it


def _name(author: ET.Element) -> str:
    if collective := xml_text(author.find("CollectiveName")):
        return collective
    given = xml_text(author.find("ForeName")) or xml_text(author.find("Initials"))
    parts = (given, xml_text(author.find("LastName")), xml_text(author.find("Suffix")))
    return " ".join(part for part in parts if part)


def _orcid(author: ET.Element) -> str | None:
    for identifier in author.iterfind("Identifier"):
        if identifier.get("Source", "").upper() == "ORCID":
            # PubMed also writes an ORCID iD as its 16 characters without hyphens
            return normalise_orcid(_ORCID_DIGITS.sub(r"\1-\2-\3-\4", xml_text(identifier)))
    return None


def _authors(article: ET.Element) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
    names: list[str] = []
    orcids: list[str | None] = []
    for author_list in article.iterfind("AuthorList"):
        if author_list.get("Type", "authors") != "authors":  # a book's editors
            continue
        for author in author_list.iterfind("Author"):
            if author.get("ValidYN") == "N" or not (name := _name(author)):  # ValidYN="N": a name an erratum withdrew
                continue
            names.append(name)
            orcids.append(_orcid(author))
    return tuple(names), tuple(orcids) if any(orcids) else ()


def _abstract(article: ET.Element) -> str:
    sections = []
    for section in article.iterfind("Abstract/AbstractText"):
        if text := xml_text(section):
            label = normalise_whitespace(section.get("Label", ""))
            # Label="UNLABELLED": a paragraph of a structured abstract that has no heading
            sections.append(f"{label}: {text}" if label and label != "UNLABELLED" else text)
    return " ".join(sections)


def _date(article: ET.Element) -> tuple[int | None, str | None]:
    for electronic in article.iterfind("ArticleDate"):
        found = iso_date(*(xml_text(electronic.find(part)) for part in ("Year", "Month", "Day")))
        if found[0] is not None:
            return found
    issue = article.find("Journal/JournalIssue/PubDate")
    if issue is None:
        return None, None
    if medline := xml_text(issue.find("MedlineDate")):
        match = _MEDLINE_DATE.search(medline)
        return iso_date(match.group(1), match.group(2)) if match else (None, None)
    return iso_date(*(xml_text(issue.find(part)) for part in ("Year", "Month", "Day")))


def _doi(record: ET.Element, article: ET.Element) -> str | None:
    ids = [i for i in record.iterfind("PubmedData/ArticleIdList/ArticleId") if i.get("IdType") == "doi"]
    ids += [i for i in article.iterfind("ELocationID") if i.get("EIdType") == "doi" and i.get("ValidYN") != "N"]
    return next((doi for doi in (normalise_doi(xml_text(i)) for i in ids) if doi), None)


def _paper(record: ET.Element, source: SourceRef, where: str) -> Paper | Rejected:
    citation = record.find("MedlineCitation")
    citation = citation if citation is not None else ET.Element("MedlineCitation")
    article = citation.find("Article")
    article = article if article is not None else ET.Element("Article")
    pmid = normalise_pmid(xml_text(citation.find("PMID")))
    abstract = _abstract(article)
    if not abstract:
        return Rejected(
            source.line, "without an abstract", f"{where}: PubMed article {pmid or '(no PMID)'} has no abstract (no Abstract/AbstractText)"
        )
    authors, orcids = _authors(article)
    year, date = _date(article)
    terms = [xml_text(d) for d in citation.iterfind("MeshHeadingList/MeshHeading/DescriptorName")]
    terms += [xml_text(k) for k in citation.iterfind("KeywordList/Keyword")]
    return Paper(
        abstract=abstract,
        source=source,
        title=xml_text(article.find("ArticleTitle")) or None,
        authors=authors,
        orcids=orcids,
        venue=xml_text(article.find("Journal/Title")) or xml_text(article.find("Journal/ISOAbbreviation")) or None,
        year=year,
        date=date,
        categories=tuple(dict.fromkeys(term for term in terms if term)),
        doi=_doi(record, article),
        pmid=pmid,
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else None,
        source_id=pmid,
    )


def _read(chunks: Iterable[str], file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
    index = 0
    for line, record in xml_records(chunks, file_name, "PubmedArticleSet", "PubMed XML"):
        if record.tag not in ("PubmedArticle", "PubmedBookArticle"):
            continue
        index += 1
        where = f"{file_name}:{line}"
        if record.tag == "PubmedBookArticle":
            yield Rejected(
                line,
                "not a journal article",
                f"{where}: a <PubmedBookArticle> (an NCBI Bookshelf book or chapter); kg reads <PubmedArticle> records",
            )
            continue
        yield _paper(record, SourceRef(file_name=file_name, sha256=sha256, line=line, index=index, format=NAME), where)


def read(text: str, file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
    yield from _read(text_chunks(text), file_name, sha256)


def read_lines(lines: Iterable[str], file_name: str, sha256: str) -> Iterator[Paper | Rejected]:
    """:func:`read` for a gzipped file, given as its lines (see :meth:`kg.corpus.SourceText.lines`)."""
    yield from _read(line_chunks(lines), file_name, sha256)
