"""The SHACL shapes hold relations to their properties' declared domain and
range, so `kg validate` catches a relation whose ends have the wrong types
or that relates a concept to itself (ontology/shapes.ttl)."""

import pyoxigraph
import rdflib

from kg.export.validate import validate_graph
from kg.graph import open_store

KG = rdflib.Namespace("https://w3id.org/kg/ontology#")


def _graph(store) -> rdflib.Graph:
    data = open_store(store).dump(format=pyoxigraph.RdfFormat.N_TRIPLES, from_graph=pyoxigraph.DefaultGraph())
    return rdflib.Graph().parse(data=data, format="nt")


def test_relations_against_their_domain_and_range_are_violations(extracted_store):
    data = _graph(extracted_store)
    method = next(data.subjects(rdflib.RDF.type, KG.Method))
    task = next(data.subjects(rdflib.RDF.type, KG.Task))
    dataset = next(data.subjects(rdflib.RDF.type, KG.Dataset))
    data.add((method, KG.evaluatedOn, task))  # a Task as the object of evaluatedOn
    data.add((method, KG.uses, method))  # a concept related to itself
    data.add((dataset, KG.usedFor, task))  # a Dataset as the subject
    report = validate_graph(data)
    found = {(v.focus, v.constraint, v.path) for v in report.violations}
    assert (str(method), "ClassConstraintComponent", "kg:evaluatedOn") in found
    assert {(f, c) for f, c, _ in found} == {
        (str(method), "ClassConstraintComponent"),  # the Task at the end of evaluatedOn
        (str(dataset), "ClassConstraintComponent"),  # a Dataset is no Method
        (str(method), "SPARQLConstraintComponent"),  # uses itself
    }
