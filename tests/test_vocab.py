"""kg.vocab and ontology/kg.ttl declare the same terms, each documented."""

import pytest
import rdflib
from rdflib.namespace import OWL, RDF, RDFS

from kg.vocab import KG, PREFIXES
from tests.conftest import REPO

ONTOLOGY = REPO / "ontology" / "kg.ttl"


@pytest.fixture(scope="module")
def ontology():
    return rdflib.Graph().parse(ONTOLOGY, format="turtle")


def declared_terms(ontology):
    kinds = (OWL.Class, OWL.ObjectProperty, OWL.DatatypeProperty)
    return {str(s)[len(KG.iri) :] for kind in kinds for s in ontology.subjects(RDF.type, kind) if str(s).startswith(KG.iri)}


def test_vocab_and_ontology_declare_the_same_terms(ontology):
    assert declared_terms(ontology) == set(KG.terms)


def test_every_term_has_an_english_label_and_comment(ontology):
    for term in KG.terms:
        node = rdflib.URIRef(KG.iri + term)
        assert ontology.value(node, RDFS.label), term
        comment = ontology.value(node, RDFS.comment)
        assert comment and len(comment) > 15, term


def test_required_classes_and_properties_exist(ontology):
    for cls in ("Paper", "Concept", "Method", "Dataset", "Task", "Metric", "Claim", "Mention"):
        assert (rdflib.URIRef(KG.iri + cls), RDF.type, OWL.Class) in ontology
    skos_concept = rdflib.URIRef("http://www.w3.org/2004/02/skos/core#Concept")
    assert (rdflib.URIRef(KG.iri + "Concept"), RDFS.subClassOf, skos_concept) in ontology
    for sub in ("Method", "Dataset", "Task", "Metric"):
        assert (rdflib.URIRef(KG.iri + sub), RDFS.subClassOf, rdflib.URIRef(KG.iri + "Concept")) in ontology
    domains = {
        "mentions": "Paper",
        "proposes": "Paper",
        "hasClaim": "Paper",
        "evaluatedOn": "Method",
        "usedFor": "Method",
        "uses": "Method",
        "outperforms": "Method",
        "comparedWith": "Method",
        "trainedOn": "Method",
        "benchmarkFor": "Dataset",
    }
    for prop, domain in domains.items():
        assert ontology.value(rdflib.URIRef(KG.iri + prop), RDFS.domain) == rdflib.URIRef(KG.iri + domain)


def test_ontology_prefix_is_the_one_queries_use(ontology):
    assert dict(ontology.namespaces())["kg"] == rdflib.URIRef(PREFIXES["kg"])


def test_unknown_terms_fail_loudly():
    with pytest.raises(AttributeError, match="not a term"):
        KG.Papre  # noqa: B018
