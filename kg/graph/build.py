"""Turn linked papers and extractions into RDF quads (default graph).

No wall-clock time or machine-specific path goes into the graph, so the same
inputs always give the same triples.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import Protocol

from pyoxigraph import Literal, NamedNode, Quad, RdfFormat, parse

from kg.link.identity import (
    authorship_iri,
    broader_evidence_iri,
    claim_iri,
    component_iri,
    form_iri,
    mention_iri,
    record_iri,
    relation_mention_iri,
    source_iri,
    topic_iri,
    venue_iri,
)
from kg.records import (
    CONCEPT_TYPES,
    RELATION_TYPES,
    WEB_SCHEMES,
    BroaderLink,
    Claim,
    Concept,
    Extraction,
    LinkedPaper,
    Mention,
    Relation,
    SourceRef,
)
from kg.vocab import BIBO, DCTERMS, FOAF, KG, PROV, RDF, RDFS, SKOS, XSD, ontology_file, resource

__all__ = ["paper_quads", "source_quads", "extraction_quads", "concept_quads", "broader_quads", "ConceptResolver"]


class ConceptResolver(Protocol):
    """Which concept each mention and relation end means (kg.link.concepts.ConceptIndex)."""

    def mention_concept(self, paper_iri: str, mention: Mention) -> str: ...

    def relation_end_concept(self, paper_iri: str, concept_type: str, label: str) -> str: ...


def _int(value: int) -> Literal:
    return Literal(str(value), datatype=XSD.integer)


def _decimal(value: float) -> Literal:
    # A fixed number of digits keeps the lexical form, and so the export, stable.
    return Literal(f"{value:.4f}", datatype=XSD.decimal)


def name_key(name: str) -> Literal:
    """The ``kg:nameKey`` of a label, title or name: lower-cased, so that a
    case-insensitive lookup is one index probe instead of a LCASE scan of
    every label (what the query library's ``?NAMEKey`` variables match)."""
    return Literal(name.lower())


def _topic_triples(label: str, broader: str | None = None) -> Iterator[tuple]:
    topic = topic_iri(label)
    yield topic, RDF.type, KG.Topic
    yield topic, SKOS.prefLabel, Literal(label)
    yield topic, KG.nameKey, name_key(label)
    if broader:
        yield topic, SKOS.broader, topic_iri(broader)


def _paper_triples(linked: LinkedPaper) -> Iterator[tuple]:
    paper = linked.paper
    node = NamedNode(linked.iri)
    yield node, RDF.type, KG.Paper
    yield node, DCTERMS.abstract, Literal(paper.abstract)
    yield node, RDFS.label, Literal(paper.display_label)
    yield node, KG.nameKey, name_key(paper.display_label)
    if paper.title is not None:
        yield node, DCTERMS.title, Literal(paper.title)
        if paper.title != paper.display_label:
            yield node, KG.nameKey, name_key(paper.title)
    else:
        yield node, KG.derivedLabel, Literal(paper.display_label)
    if paper.doi:
        yield node, BIBO.doi, Literal(paper.doi)
    if paper.arxiv_id:
        yield node, KG.arxivId, Literal(paper.arxiv_id)
    if paper.pmid:
        yield node, BIBO.pmid, Literal(paper.pmid)
    if paper.url:
        yield node, FOAF.page, NamedNode(paper.url) if paper.url.startswith(WEB_SCHEMES) else Literal(paper.url)
    if paper.source_id:
        yield node, DCTERMS.identifier, Literal(paper.source_id)
    if paper.date is not None:
        yield node, DCTERMS.issued, Literal(paper.date, datatype=XSD.date if len(paper.date) == 10 else XSD.gYearMonth)
    elif paper.year is not None:
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
        yield person, KG.nameKey, name_key(author.name)
        if author.orcid:
            yield person, KG.orcid, NamedNode(author.orcid)

    yield from _source_triples(node, linked.sources)


def _source_triples(node: NamedNode, sources: Iterable[SourceRef]) -> Iterator[tuple]:
    for source in sources:
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


def source_quads(paper_iri: str, sources: Iterable[SourceRef]) -> Iterator[Quad]:
    """The provenance part of :func:`paper_quads`: where the paper was read
    (the file node is shared by every paper of the file)."""
    for s, p, o in _source_triples(NamedNode(paper_iri), sources):
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


def _mention_triples(paper: NamedNode, mention: Mention, abstract: str, concepts: ConceptResolver) -> Iterator[tuple]:
    if mention.concept_type not in CONCEPT_TYPES:
        raise ValueError(f"unknown concept type {mention.concept_type!r}")
    concept = NamedNode(concepts.mention_concept(paper.value, mention))
    node = mention_iri(paper.value, mention.start, mention.end, mention.concept_type)
    yield paper, KG.mentions, concept
    if mention.proposed:
        yield paper, KG.proposes, concept
    yield paper, KG.hasMention, node
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


_DOMAIN, _RANGE = f"{RDFS.iri}domain", f"{RDFS.iri}range"


@functools.cache
def _relation_signatures() -> dict[str, tuple[str, str]]:
    """Each relation's (domain, range) concept types, as ``ontology/kg.ttl`` declares them."""
    declared = {}
    for triple in parse(path=ontology_file("kg.ttl"), format=RdfFormat.TURTLE):
        if triple.predicate.value in (_DOMAIN, _RANGE) and triple.subject.value.startswith(KG.iri):
            declared[triple.subject.value.removeprefix(KG.iri), triple.predicate.value] = triple.object.value.removeprefix(KG.iri)
    return {relation: (declared[relation, _DOMAIN], declared[relation, _RANGE]) for relation in RELATION_TYPES}


def _concept_type(iri: str) -> str | None:
    """The type of a linked concept, which its IRI is minted from (``concept/<type>-<key>``, :func:`kg.link.identity.concept_iri`)."""
    return next((t for t in CONCEPT_TYPES if iri.startswith(resource("concept", f"{t.lower()}-").value)), None)


def _relation_ends(paper: NamedNode, relation: Relation, concepts: ConceptResolver) -> tuple[NamedNode, NamedNode] | None:
    """The concepts a relation links, or None when it states nothing the ontology allows."""
    if relation.relation not in RELATION_TYPES:
        raise ValueError(f"unknown relation {relation.relation!r}")
    head = NamedNode(concepts.relation_end_concept(paper.value, relation.head_type, relation.head))
    tail = NamedNode(concepts.relation_end_concept(paper.value, relation.tail_type, relation.tail))
    # Linking can give an end another type than extraction did (a lexicon entry
    # fixes it: "domain generalization" is a Task) or make both ends one concept;
    # the relation then states nothing the ontology allows, so it is left out.
    if head == tail or (_concept_type(head.value), _concept_type(tail.value)) != _relation_signatures()[relation.relation]:
        return None
    return head, tail


def _relation_triples(paper: NamedNode, relation: Relation, ends: tuple[NamedNode, NamedNode], abstract: str) -> Iterator[tuple]:
    head, tail = ends
    predicate = KG[relation.relation]
    node = relation_mention_iri(paper.value, head, relation.relation, tail, relation.start)
    yield head, predicate, tail
    yield node, RDF.type, KG.RelationMention
    yield node, RDF.subject, head
    yield node, RDF.predicate, predicate
    yield node, RDF.object, tail
    yield node, KG.sentence, Literal(abstract[relation.start : relation.end])
    yield from _evidence_triples(node, paper, relation.start, relation.end, relation.confidence, relation.component)


def _stated_relations(
    paper: NamedNode, relations: Iterable[Relation], concepts: ConceptResolver
) -> list[tuple[Relation, tuple[NamedNode, NamedNode]]]:
    """One relation per (head concept, relation, tail concept, sentence), the most
    confident: two surface forms of one concept ("LLMs", "large language models")
    in one sentence must not give one relation mention two confidences."""
    best: dict[tuple, tuple[Relation, tuple[NamedNode, NamedNode]]] = {}
    for relation in relations:
        if (ends := _relation_ends(paper, relation, concepts)) is None:
            continue
        key = (ends[0], relation.relation, ends[1], relation.start)
        if key not in best or relation.confidence > best[key][0].confidence:
            best[key] = (relation, ends)
    return [best[k] for k in sorted(best, key=lambda k: (k[0].value, k[1], k[2].value, k[3]))]


def extraction_quads(extraction: Extraction, abstract: str, concepts: ConceptResolver) -> Iterator[Quad]:
    """The evidence-backed triples of what an extractor found in one paper;
    ``concepts`` says which concept each mention and relation end means."""
    paper = NamedNode(extraction.paper_iri)
    for mention in extraction.mentions:
        if abstract[mention.start : mention.end] != mention.text:
            raise ValueError(f"mention {mention.text!r} does not match the abstract at {mention.start}-{mention.end}")
    triples = [
        *(t for m in extraction.mentions for t in _mention_triples(paper, m, abstract, concepts)),
        *(t for c in extraction.claims for t in _claim_triples(paper, c)),
        *(t for r, ends in _stated_relations(paper, extraction.relations, concepts) for t in _relation_triples(paper, r, ends, abstract)),
    ]
    for s, p, o in triples:
        yield Quad(s, p, o)


def _concept_triples(concept: Concept) -> Iterator[tuple]:
    node = NamedNode(concept.iri)
    yield node, RDF.type, KG[concept.type]
    yield node, SKOS.prefLabel, Literal(concept.pref_label)
    for label in concept.alt_labels:
        yield node, SKOS.altLabel, Literal(label)
    for key in sorted({name_key(label).value for label in (concept.pref_label, *concept.alt_labels)}):
        yield node, KG.nameKey, Literal(key)
    if concept.exact_match:
        yield node, SKOS.exactMatch, NamedNode(concept.exact_match)
    for form in concept.forms:
        form_node = form_iri(concept.iri, form.text)
        yield node, KG.hasForm, form_node
        yield form_node, RDF.type, KG.SurfaceForm
        yield form_node, RDFS.label, Literal(form.text)
        yield form_node, KG.mentionCount, _int(form.mentions)
        for rule in form.rules:
            yield form_node, KG.mergeRule, Literal(rule)
        for note in form.notes:
            yield form_node, KG.mergeNote, Literal(note)


def concept_quads(concept: Concept) -> Iterator[Quad]:
    """A concept's type, labels, Wikidata link and surface forms with the reasons they were merged."""
    for s, p, o in _concept_triples(concept):
        yield Quad(s, p, o)


def broader_quads(link: BroaderLink, abstracts: Mapping[str, str]) -> Iterator[Quad]:
    """``skos:broader`` and the statement node that says why (rule, and the sentence for a Hearst pattern)."""
    narrower, broader = NamedNode(link.narrower), NamedNode(link.broader)
    node = broader_evidence_iri(link.narrower, link.broader, link.rule, link.paper_iri, link.start)
    triples: list[tuple[NamedNode, NamedNode, NamedNode | Literal]] = [
        (narrower, SKOS.broader, broader),
        (node, RDF.type, KG.BroaderEvidence),
        (node, RDF.subject, narrower),
        (node, RDF.predicate, SKOS.broader),
        (node, RDF.object, broader),
        (node, KG.rule, Literal(link.rule)),
    ]
    component = f"kg_hierarchy#{link.rule}"
    if link.paper_iri is None:  # lexical evidence: the labels themselves
        agent = component_iri(component)
        triples += [
            (node, KG.confidence, _decimal(link.confidence)),
            (node, PROV.wasAttributedTo, agent),
            (agent, RDF.type, PROV.SoftwareAgent),
            (agent, RDFS.label, Literal(component)),
        ]
    else:
        paper = NamedNode(link.paper_iri)
        assert link.start is not None and link.end is not None  # a sentence's evidence has its offsets
        triples.append((node, KG.sentence, Literal(abstracts[link.paper_iri][link.start : link.end])))
        triples.extend(_evidence_triples(node, paper, link.start, link.end, link.confidence, component))
    for s, p, o in triples:
        yield Quad(s, p, o)
