"""The vocabulary as Python names: the ontology's own terms and the standard
ones it reuses. Code refers to ``KG.Paper`` or ``DCTERMS.title``, never to IRI
strings; an unknown name is an AttributeError, so a typo fails at once.

``tests/test_vocab.py`` checks that every ``KG`` term here is declared, with a
label and a comment, in ``ontology/kg.ttl`` (and vice versa).
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyoxigraph import NamedNode, Quad, RdfFormat, parse

__all__ = [
    "Namespace",
    "KG",
    "RDF",
    "RDFS",
    "OWL",
    "XSD",
    "DCTERMS",
    "FOAF",
    "SKOS",
    "PROV",
    "BIBO",
    "VOID",
    "BASE",
    "PREFIXES",
    "resource",
    "ontology_file",
    "ontology_quads",
]


class Namespace:
    """A closed set of terms under one IRI prefix."""

    def __init__(self, iri: str, terms: str):
        self.iri = iri
        self.terms = frozenset(terms.split())
        self._nodes = {t: NamedNode(iri + t) for t in self.terms}

    def __getattr__(self, name: str) -> NamedNode:
        try:
            return self.__dict__["_nodes"][name]
        except KeyError:
            raise AttributeError(f"{name!r} is not a term of <{self.iri}>") from None

    def __getitem__(self, name: str) -> NamedNode:
        return getattr(self, name)


KG = Namespace(
    "https://w3id.org/kg/ontology#",
    """
    Paper Concept Method Dataset Task Metric Claim Mention Topic Venue
    Authorship SourceFile SourceRecord RelationMention
    mentions proposes hasClaim evaluatedOn usedFor uses outperforms comparedWith trainedOn benchmarkFor
    hasAuthorship author authorPosition award derivedLabel nameKey arxivId orcid
    hasMention mentionOf inPaper startOffset endOffset sentenceStart sentenceEnd
    sentence confidence
    SurfaceForm hasForm mergeRule mergeNote mentionCount BroaderEvidence rule
    fileName sha256 line recordIndex readerFormat
    """,
)
RDF = Namespace("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "type Statement subject predicate object")
RDFS = Namespace("http://www.w3.org/2000/01/rdf-schema#", "label comment subClassOf")
OWL = Namespace("http://www.w3.org/2002/07/owl#", "Class ObjectProperty DatatypeProperty sameAs")
XSD = Namespace("http://www.w3.org/2001/XMLSchema#", "string integer decimal double boolean gYear gYearMonth date")
DCTERMS = Namespace(
    "http://purl.org/dc/terms/",
    "title abstract creator subject identifier isPartOf issued format created license rights description publisher",
)
FOAF = Namespace("http://xmlns.com/foaf/0.1/", "Person name page")
BIBO = Namespace("http://purl.org/ontology/bibo/", "doi pmid")
VOID = Namespace(
    "http://rdfs.org/ns/void#",
    "Dataset triples entities distinctSubjects distinctObjects properties classes classPartition propertyPartition "
    "class property vocabulary uriSpace feature",
)
SKOS = Namespace("http://www.w3.org/2004/02/skos/core#", "Concept prefLabel altLabel broader exactMatch")
PROV = Namespace(
    "http://www.w3.org/ns/prov#",
    "Entity Derivation SoftwareAgent wasDerivedFrom qualifiedDerivation entity wasAttributedTo",
)

#: Where the graph's own resources live; one sub-path per kind of thing.
BASE = "https://w3id.org/kg/"
RESOURCE_KINDS = (
    "paper",
    "authorship",
    "person",
    "topic",
    "venue",
    "source",
    "record",
    "concept",
    "form",
    "broader",
    "mention",
    "claim",
    "relation",
    "component",
    "graph",
)


def resource(kind: str, local: str) -> NamedNode:
    """The IRI of a resource of the graph, e.g. ``resource("person", "yue-wang")``."""
    if kind not in RESOURCE_KINDS:
        raise ValueError(f"unknown resource kind {kind!r}")
    return NamedNode(f"{BASE}{kind}/{local}")


#: Prefixes predeclared in queries and used when writing Turtle.
PREFIXES: dict[str, str] = {
    "kg": KG.iri,
    "rdf": RDF.iri,
    "rdfs": RDFS.iri,
    "owl": OWL.iri,
    "xsd": XSD.iri,
    "dcterms": DCTERMS.iri,
    "foaf": FOAF.iri,
    "skos": SKOS.iri,
    "prov": PROV.iri,
    "bibo": BIBO.iri,
    "void": VOID.iri,
    **{kind: f"{BASE}{kind}/" for kind in RESOURCE_KINDS},
}


def ontology_file(name: str) -> Path:
    """A file of the ontology folder (``kg.ttl``, ``shapes.ttl``): the repository's
    ``ontology/`` in a checkout or editable install, else the copy a wheel
    installs under ``<prefix>/share/kg/ontology``."""
    for folder in (Path(__file__).resolve().parents[1] / "ontology", Path(sys.prefix) / "share" / "kg" / "ontology"):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"ontology file {name!r} not found; reinstall kg (`pip install -e .`)")


def ontology_quads() -> list[Quad]:
    """The triples of ``ontology/kg.ttl``, in the default graph: every store
    kg builds holds them beside the data (:func:`kg.graph.store.write_store`),
    so that its queries and exports carry the class hierarchy with them."""
    return list(parse(path=ontology_file("kg.ttl"), format=RdfFormat.TURTLE))
