"""Reader for OpenAlex works: API responses (one work, or a page
``{"meta": ..., "results": [work, ...]}``) and the snapshot's gzipped JSON
Lines, one work per line (read through :mod:`kg.corpus.jsonl`).

A work maps so: ``title`` (else ``display_name``); authors from
``authorships[].author.display_name`` (else ``raw_author_name``), in order, with
``author.orcid``; the abstract rebuilt from ``abstract_inverted_index``
(``{word: [positions]}``) in position order; ``doi``; the arXiv id from an
arXiv DOI (10.48550/arXiv...) or the first location on arxiv.org; the PubMed id
from ``ids.pmid``; the venue ``primary_location.source.display_name``; the date
``publication_date``, else the year ``publication_year``; as categories the
primary topic (else the first topic) and then the keywords, by display name;
the url ``primary_location.landing_page_url``, else the work's OpenAlex IRI;
the source id the work id (W2741809807). A work whose inverted index is null,
as OpenAlex gives for many works whose publisher keeps the abstract, is a
record "without an abstract".
"""

from __future__ import annotations

from typing import Any

from kg.corpus import jsonl
from kg.corpus.fields import normalise_arxiv_id, normalise_doi, normalise_orcid, normalise_pmid, parse_iso_date
from kg.corpus.jsonl import BadRecord, distinct, known, member, members, people, string, web_page
from kg.records import Paper, SourceRef
from kg.text import normalise_whitespace

__all__ = ["NAME", "SUFFIXES", "MAPPER", "looks_like", "matches", "read", "read_lines", "to_paper"]

NAME = "openalex"
SUFFIXES = (".json",)

_WORK = "https://openalex.org/W"


def matches(record: dict[str, Any]) -> bool:
    work = record.get("id")
    return (isinstance(work, str) and work.startswith(_WORK)) or "abstract_inverted_index" in record or "authorships" in record


def _abstract(index: Any, where: str) -> str | None:
    if index is None:
        return None
    if not isinstance(index, dict) or not all(
        isinstance(places, list) and all(isinstance(p, int) and not isinstance(p, bool) for p in places) for places in index.values()
    ):
        raise BadRecord("with a field of the wrong type", f"{where}: 'abstract_inverted_index' must map each word to a list of positions")
    words = {place: word for word, places in index.items() for place in places}
    return normalise_whitespace(" ".join(words[place] for place in sorted(words))) or None


def _authors(record: dict[str, Any], where: str) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
    named = []
    for authorship in members(record, "authorships", where):
        author = member(authorship, "author", where)
        name = string(author.get("display_name"), "display_name", where)
        name = name or string(authorship.get("raw_author_name"), "raw_author_name", where)
        named.append((name, known(author.get("orcid"), normalise_orcid)))
    return people(named)


def _arxiv_id(record: dict[str, Any], where: str) -> str | None:
    if (found := known(record.get("doi"), normalise_arxiv_id)) is not None:
        return found
    places = [member(record, "primary_location", where), *members(record, "locations", where)]
    urls = (place.get(key) for place in places for key in ("landing_page_url", "pdf_url"))
    return next((found for url in urls if isinstance(url, str) and "arxiv.org/" in url and (found := normalise_arxiv_id(url))), None)


def _categories(record: dict[str, Any], where: str) -> tuple[str, ...]:
    topic = member(record, "primary_topic", where) or next(iter(members(record, "topics", where)), {})
    found = [topic.get("display_name"), *(keyword.get("display_name") for keyword in members(record, "keywords", where))]
    return distinct(string(value, "display_name", where) for value in found)


def to_paper(record: dict[str, Any], source: SourceRef, where: str) -> Paper:
    abstract = _abstract(record.get("abstract_inverted_index"), where)
    if not abstract:
        raise BadRecord("without an abstract", f"{where}: work has no abstract (its 'abstract_inverted_index' is null or empty)")
    work = string(record.get("id"), "id", where)
    primary = member(record, "primary_location", where)
    published = string(record.get("publication_date"), "publication_date", where)
    year, date = parse_iso_date(published) if published else (None, None)
    authors, orcids = _authors(record, where)
    return Paper(
        abstract=abstract,
        source=source,
        title=string(record.get("title"), "title", where) or string(record.get("display_name"), "display_name", where),
        authors=authors,
        orcids=orcids,
        venue=string(member(primary, "source", where).get("display_name"), "display_name", where),
        year=year or jsonl.year(record.get("publication_year")),
        date=date,
        categories=_categories(record, where),
        doi=known(record.get("doi"), normalise_doi),
        arxiv_id=_arxiv_id(record, where),
        pmid=known(member(record, "ids", where).get("pmid"), normalise_pmid),
        url=web_page(primary.get("landing_page_url"), "landing_page_url", where) or web_page(work, "id", where),
        source_id=work.removeprefix("https://openalex.org/") if work else None,
    )


MAPPER = jsonl.Mapper(NAME, matches, to_paper)
looks_like, read, read_lines = MAPPER.looks_like, MAPPER.read, MAPPER.read_lines
