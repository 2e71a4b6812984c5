"""Normalisation and linking: stable IRIs, duplicate papers and authors merged,
concept labels merged across the corpus, concept hierarchy."""

from kg.link.concepts import ConceptIndex, link_concepts
from kg.link.hierarchy import broader_links
from kg.link.identity import paper_key, person_iri, topic_iri, venue_iri
from kg.link.normalise import concept_key
from kg.link.papers import link_papers

__all__ = [
    "ConceptIndex",
    "broader_links",
    "concept_key",
    "link_concepts",
    "link_papers",
    "paper_key",
    "person_iri",
    "topic_iri",
    "venue_iri",
]
