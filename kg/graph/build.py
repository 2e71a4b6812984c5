"""Turn linked papers and extractions into RDF quads (default graph).

No wall-clock time or machine-specific path goes into the graph, so the same
inputs always give the same triples.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from pyoxigraph import Literal, NamedNode, Quad

from kg.link.identity import (
    authorship_iri,
    claim_iri,
    component_iri,
    concept_iri,
    mention_iri,
    record_iri,
    relation_mention_iri,
    source_iri,
    topic_iri,
    venue_iri,
)
from kg.records import CONCEPT_TYPES, RELATION_TYPES, Claim, Extraction, LinkedPaper, Mention, Relation
from kg.vocab import BIBO, DCTERMS, FOAF, KG, PROV, RDF, RDFS, SKOS, XSD

__all__ = ["paper_quads", "extraction_quads", "ConceptLabels"]


def _int(value: int) -> Literal:
    return Literal(str(value), datatype=XSD.integer)


def _decimal(value: float) -> Literal:
    # A fixed number of digits keeps the lexical form, and so the export, stable.
    return Literal(f"{value:.4f}", datatype=XSD.decimal)


def _topic_triples(label: str, broader: str | None = None) -> Iterator[tuple]:
    topic = topic_iri(label)
    yield topic, RDF.type, KG.Topic
    yield topic, SKOS.prefLabel, Literal(label)
    if broader:
        yield topic, SKOS.broader, topic_iri(broader)


def _paper_triples(linked: LinkedPaper) -> Iterator[tuple]:
    paper = linked.paper
    node = NamedNode(linked.iri)
    yield node, RDF.type, KG.Paper
    yield node, DCTERMS.abstract, Literal(paper.abstract)
    yield node, RDFS.label, Literal(paper.display_label)
    if paper.title is not None:
        yield node, DCTERMS.title, Literal(paper.title)
    else:
        yield node, KG.derivedLabel, Literal(paper.display_label)
    if paper.doi:
        yield node, BIBO.doi, Literal(paper.doi)
    if paper.url:
        yield node, FOAF.page, NamedNode(paper.url) if paper.url.startswith(("http://", "https://")) else Literal(paper.url)
    if paper.source_id:
        yield node, DCTERMS.identifier, Literal(paper.source_id)
    if paper.year is not None:
        yield node, DCTERMS.issued, Literal(str(paper.year), datatype=XSD.gYear)
    if paper.award:
        yield node, KG.award, Literal(paper.award)
    if paper.venue:
        venue = venue_iri(paper.venue)
        yield node, DCTERMS.isPartOf, venue
        yield venue, RDF.type, KG.Venue
        yield venue, RDFS.label, Literal(paper.venue)
    if paper.area:
        yield from _topic_triples(paper.area)
    for category in paper.categories:
        yield node, DCTERMS.subject, topic_iri(category)
        yield from _topic_triples(category, broader=paper.area)
    if paper.area and not paper.categories:
        yield node, DCTERMS.subject, topic_iri(paper.area)

    for position, author in enumerate(linked.authors, start=1):
        person = NamedNode(author.iri)
        authorship = authorship_iri(linked.iri, position)
        yield node, DCTERMS.creator, person
        yield node, KG.hasAuthorship, authorship
        yield authorship, RDF.type, KG.Authorship
        yield authorship, KG.author, person
        yield authorship, KG.authorPosition, _int(position)
        yield person, RDF.type, FOAF.Person
        yield person, FOAF.name, Literal(author.name)

    for source in linked.sources:
        file_node, record = source_iri(source), record_iri(source)
        yield node, PROV.wasDerivedFrom, file_node
        yield node, PROV.qualifiedDerivation, record
        yield record, RDF.type, KG.SourceRecord
        yield record, PROV.entity, file_node
        yield record, KG.line, _int(source.line)
        yield record, KG.recordIndex, _int(source.index)
        yield file_node, RDF.type, KG.SourceFile
        yield file_node, KG.fileName, Literal(source.file_name)
        yield file_node, KG.sha256, Literal(source.sha256)
        yield file_node, KG.readerFormat, Literal(source.format)


def paper_quads(linked: LinkedPaper) -> Iterator[Quad]:
    """The bibliographic triples of one paper (shared nodes such as authors and
    topics repeat across papers; the store keeps each triple once)."""
    for s, p, o in _paper_triples(linked):
        yield Quad(s, p, o)


def _evidence_triples(node: NamedNode, paper: NamedNode, start: int, end: int, confidence: float, component: str) -> Iterator[tuple]:
    """Where a fact was found and by what: the paper, the offsets, the confidence, the component."""
    agent = component_iri(component)
    yield node, KG.inPaper, paper
    yield node, KG.startOffset, _int(start)
    yield node, KG.endOffset, _int(end)
    yield node, KG.confidence, _decimal(confidence)
    yield node, PROV.wasDerivedFrom, paper
    yield node, PROV.wasAttributedTo, agent
    yield agent, RDF.type, PROV.SoftwareAgent
    yield agent, RDFS.label, Literal(component)


def _mention_triples(paper: NamedNode, mention: Mention, abstract: str) -> Iterator[tuple]:
    if mention.concept_type not in CONCEPT_TYPES:
        raise ValueError(f"unknown concept type {mention.concept_type!r}")
    label = mention.label or mention.text
    concept = concept_iri(mention.concept_type, label)
    node = mention_iri(paper.value, mention.start, mention.end, mention.concept_type)
    yield paper, KG.mentions, concept
    if mention.proposed:
        yield paper, KG.proposes, concept
    yield paper, KG.hasMention, node
    yield concept, RDF.type, KG[mention.concept_type]
    yield node, RDF.type, KG.Mention
    yield node, KG.mentionOf, concept
    yield node, RDFS.label, Literal(mention.text)
    yield node, KG.sentenceStart, _int(mention.sentence_start)
    yield node, KG.sentenceEnd, _int(mention.sentence_end)
    yield node, KG.sentence, Literal(abstract[mention.sentence_start : mention.sentence_end])
    yield from _evidence_triples(node, paper, mention.start, mention.end, mention.confidence, mention.component)


def _claim_triples(paper: NamedNode, claim: Claim) -> Iterator[tuple]:
    node = claim_iri(paper.value, claim.start, claim.end)
    yield paper, KG.hasClaim, node
    yield node, RDF.type, KG.Claim
    yield node, KG.sentence, Literal(claim.text)
    yield from _evidence_triples(node, paper, claim.start, claim.end, claim.confidence, claim.component)


def _relation_triples(paper: NamedNode, relation: Relation, abstract: str) -> Iterator[tuple]:
    if relation.relation not in RELATION_TYPES:
        raise ValueError(f"unknown relation {relation.relation!r}")
    head = concept_iri(relation.head_type, relation.head)
    tail = concept_iri(relation.tail_type, relation.tail)
    predicate = KG[relation.relation]
    node = relation_mention_iri(paper.value, head, relation.relation, tail, relation.start)
    yield head, predicate, tail
    yield node, RDF.type, KG.RelationMention
    yield node, RDF.subject, head
    yield node, RDF.predicate, predicate
    yield node, RDF.object, tail
    yield node, KG.sentence, Literal(abstract[relation.start : relation.end])
    yield from _evidence_triples(node, paper, relation.start, relation.end, relation.confidence, relation.component)


def extraction_quads(extraction: Extraction, abstract: str) -> Iterator[Quad]:
    """The evidence-backed triples of what an extractor found in one paper."""
    paper = NamedNode(extraction.paper_iri)
    for mention in extraction.mentions:
        if abstract[mention.start : mention.end] != mention.text:
            raise ValueError(f"mention {mention.text!r} does not match the abstract at {mention.start}-{mention.end}")
    triples = [
        *(t for m in extraction.mentions for t in _mention_triples(paper, m, abstract)),
        *(t for c in extraction.claims for t in _claim_triples(paper, c)),
        *(t for r in extraction.relations for t in _relation_triples(paper, r, abstract)),
    ]
    for s, p, o in triples:
        yield Quad(s, p, o)


class ConceptLabels:
    """Collects every label and surface form each concept is mentioned by, so
    that a concept gets exactly one ``skos:prefLabel`` (its most frequent
    label; ties go to the first in sorted order) and the rest as ``skos:altLabel``."""

    def __init__(self) -> None:
        self.labels: dict[str, Counter] = defaultdict(Counter)
        self.surfaces: dict[str, set[str]] = defaultdict(set)

    def add(self, extraction: Extraction) -> None:
        for mention in extraction.mentions:
            label = mention.label or mention.text
            iri = concept_iri(mention.concept_type, label).value
            self.labels[iri][label] += 1
            self.surfaces[iri].add(mention.text)

    def quads(self) -> Iterator[Quad]:
        for iri in sorted(self.labels):
            counts = self.labels[iri]
            preferred = min(counts, key=lambda label: (-counts[label], label))
            concept = NamedNode(iri)
            yield Quad(concept, SKOS.prefLabel, Literal(preferred))
            for alternative in sorted((set(counts) | self.surfaces[iri]) - {preferred}):
                yield Quad(concept, SKOS.altLabel, Literal(alternative))
