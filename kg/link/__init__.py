"""Normalisation and linking: stable IRIs, duplicate papers merged, authors merged."""

from kg.link.identity import paper_key, person_iri, topic_iri, venue_iri
from kg.link.papers import link_papers

__all__ = ["link_papers", "paper_key", "person_iri", "topic_iri", "venue_iri"]
