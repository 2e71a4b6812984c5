"""IRI minting. Every IRI is a pure function of the content that identifies the
thing, so the same input gives the same IRIs on any machine, in any run.

- paper: ``paper/<hash>`` of its DOI when it has one, else of its arXiv id,
  else of its PubMed id, else of its abstract's words (case, accents,
  punctuation and spacing ignored). Records of one paper from several sources
  are merged first (:mod:`kg.link.papers`), so the IRI comes from the
  strongest identifier any of them gives. The title is left
  out on purpose: listings like "Daily Papers" give no titles, and the same
  paper read from a titled and an untitled source must be one node.
- person: ``person/<slug>`` of the name's words ("Jérémy" and "Jeremy" meet).
- topic, venue: ``topic/<slug>``, ``venue/<slug>`` of the label.
- concept: ``concept/<type>-<slug>`` of its normalised label
  (:mod:`kg.link.concepts` decides which labels are one concept).
- source file: ``source/<sha256 of the bytes>``; the place of a record in it,
  ``record/<file hash>-<record index>``.
- things that belong to one paper (an authorship entry, a mention) carry the
  paper's hash and their place: ``authorship/<paper>-<position>``,
  ``mention/<paper>-<start>-<end>-<type>``, ``claim/<paper>-<start>-<end>``,
  ``relation/<paper>-<sentence start>-<hash of the statement>``.
- a concept's surface form: ``form/<concept>-<hash of the text>``; the
  evidence of a broader link: ``broader/<hash of the link and its sentence>``.
"""

from __future__ import annotations

from pyoxigraph import NamedNode

from kg.corpus.fields import normalise_arxiv_id
from kg.records import Paper, SourceRef
from kg.text import match_key, short_hash, slugify
from kg.vocab import resource

__all__ = [
    "paper_key",
    "text_key",
    "paper_iri_for_key",
    "person_key",
    "person_iri",
    "topic_iri",
    "venue_iri",
    "source_iri",
    "record_iri",
    "authorship_iri",
    "concept_iri",
    "mention_iri",
    "claim_iri",
    "relation_mention_iri",
    "form_iri",
    "broader_evidence_iri",
    "component_iri",
]


def text_key(paper: Paper) -> str:
    return "abstract:" + match_key(paper.abstract)


def paper_key(paper: Paper, known_text_key: str | None = None) -> str:
    """What identifies a paper: its DOI, else its arXiv id, else its PubMed id,
    else its abstract's words (its :func:`text_key`, which the caller may have
    computed already)."""
    arxiv = paper.arxiv_id or (normalise_arxiv_id(paper.doi) if paper.doi else None)
    if paper.doi and normalise_arxiv_id(paper.doi) is None:
        return "doi:" + paper.doi
    if arxiv:
        return "arxiv:" + arxiv  # arXiv's own DOI names the same e-print
    if paper.pmid:
        return "pmid:" + paper.pmid
    return known_text_key or text_key(paper)


def paper_iri_for_key(key: str) -> NamedNode:
    return resource("paper", short_hash(key))


def person_key(name: str) -> str:
    return match_key(name)


def person_iri(name: str) -> NamedNode:
    return resource("person", slugify(name))


def topic_iri(label: str) -> NamedNode:
    return resource("topic", slugify(label))


def venue_iri(label: str) -> NamedNode:
    return resource("venue", slugify(label))


def source_iri(source: SourceRef) -> NamedNode:
    return resource("source", source.sha256[:16])


def record_iri(source: SourceRef) -> NamedNode:
    return resource("record", f"{source.sha256[:16]}-{source.index}")


def _local(iri: str) -> str:
    return iri.rsplit("/", 1)[1]


def authorship_iri(paper_iri: str, position: int) -> NamedNode:
    return resource("authorship", f"{_local(paper_iri)}-{position}")


def concept_iri(concept_type: str, key: str) -> NamedNode:
    """``concept/<type>-<slug>`` of the normalised key (:func:`kg.link.normalise.concept_key`)."""
    return resource("concept", f"{concept_type.lower()}-{slugify(key)}")


def mention_iri(paper_iri: str, start: int, end: int, concept_type: str) -> NamedNode:
    return resource("mention", f"{_local(paper_iri)}-{start}-{end}-{concept_type.lower()}")


def claim_iri(paper_iri: str, start: int, end: int) -> NamedNode:
    return resource("claim", f"{_local(paper_iri)}-{start}-{end}")


def relation_mention_iri(paper_iri: str, head: NamedNode, relation: str, tail: NamedNode, start: int) -> NamedNode:
    statement = short_hash(f"{head.value} {relation} {tail.value}", 12)
    return resource("relation", f"{_local(paper_iri)}-{start}-{statement}")


def form_iri(concept: str, text: str) -> NamedNode:
    return resource("form", f"{_local(concept)}-{short_hash(text, 12)}")


def broader_evidence_iri(narrower: str, broader: str, rule: str, paper_iri: str | None, start: int | None) -> NamedNode:
    return resource("broader", short_hash(f"{narrower} {broader} {rule} {paper_iri} {start}", 20))


def component_iri(name: str) -> NamedNode:
    return resource("component", slugify(name))
