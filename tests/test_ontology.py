"""The ontology: in the OWL 2 DL profile by the OWL API's own checker; held by
every store kg builds, so a query follows rdfs:subClassOf; and carried by the
exports, which then validate against ontology/shapes.ttl on their own."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pyoxigraph
import pyshacl
import pytest
import rdflib

from kg.export import export_graph
from kg.graph import open_store
from kg.pipeline import build
from kg.query import run_query
from kg.records import Claim, Extraction, Mention, Relation
from kg.vocab import ontology_quads
from tests.conftest import REPO

ONTOLOGY = REPO / "ontology" / "kg.ttl"
SHAPES = REPO / "ontology" / "shapes.ttl"
CHECKER = REPO / "tests" / "tools" / "OwlProfile.java"
# The OWL API that owlready2 (a test dependency) bundles for its reasoners.
OWLAPI = Path(importlib.util.find_spec("owlready2").origin).parent / "pellet" / "owlapi-distribution-3.4.3-bin.jar"
JAVA = shutil.which("java")

CONCEPT_TYPES = ("Method", "Dataset", "Task", "Metric")


@pytest.mark.skipif(JAVA is None, reason="java (11 or newer) is not installed: the OWL 2 DL check runs the OWL API in Java")
def test_the_ontology_is_in_the_owl2_dl_profile_and_the_checker_sees_violations(tmp_path):
    # The pun kg.ttl once had (a data property under rdfs:label, an annotation
    # property), and an import the check must report rather than fetch.
    punned, importing = tmp_path / "punned.ttl", tmp_path / "importing.ttl"
    punned.write_text(ONTOLOGY.read_text(encoding="utf-8") + "\nkg:derivedLabel rdfs:subPropertyOf rdfs:label .\n", encoding="utf-8")
    importing.write_text(
        ONTOLOGY.read_text(encoding="utf-8") + "\n<https://w3id.org/kg/ontology> owl:imports <http://purl.org/dc/terms/> .\n",
        encoding="utf-8",
    )
    quick = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]  # a short run: half the start-up time
    finished = subprocess.run(
        [JAVA, *quick, "-cp", str(OWLAPI), str(CHECKER), str(ONTOLOGY), str(punned), str(importing)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = finished.stdout.splitlines()
    own = [line for line in lines if line.startswith(f"{ONTOLOGY}: ")]
    assert len(own) == 1 and own[0].endswith(" axioms, in the OWL 2 DL profile"), "\n".join(own)
    assert int(re.search(r": (\d+) axioms", own[0])[1]) > 250  # the whole file was read
    assert any(line.startswith(f"{punned}: Cannot pun between properties: <https://w3id.org/kg/ontology#derivedLabel>") for line in lines)
    assert f"{importing}: owl:imports <http://purl.org/dc/terms/>, which this offline check does not fetch" in lines
    assert finished.returncode == 1, finished.stderr


def test_the_ontology_has_no_blank_nodes():
    # Its triples go into every store and export: a blank node would get a new label each build.
    assert not [q for q in ontology_quads() if isinstance(q.subject, pyoxigraph.BlankNode) or isinstance(q.object, pyoxigraph.BlankNode)]


# -- a small build ---------------------------------------------------------------

ABSTRACTS = [
    "We propose GraphNet, a graph neural network for node classification. GraphNet evaluated on Cora improves accuracy by 3 points.",
    "A neural network is trained on Cora for node classification. We report accuracy.",
]
TERMS = {
    "graph neural network": "Method",
    "neural network": "Method",
    "node classification": "Task",
    "GraphNet": "Method",
    "accuracy": "Metric",
    "Cora": "Dataset",
}
_TERM = re.compile("|".join(re.escape(t) for t in TERMS))  # longest first: no mention inside another


class HandExtractor:
    """Mentions of TERMS, one claim and one "X evaluated on Y" relation per sentence that has them."""

    name = "hand"
    version = "1"

    def extract(self, papers):
        for linked in papers:
            text = linked.paper.abstract
            sentences = [(m.start(), m.end()) for m in re.finditer(r"[^.]+\.", text)]
            mentions, claims, relations = [], [], []
            for start, end in sentences:
                for m in _TERM.finditer(text, start, end):
                    mentions.append(Mention(m.group(), TERMS[m.group()], m.start(), m.end(), start, end, 0.9, "hand"))
                if "improves" in text[start:end]:
                    claims.append(Claim(text[start:end], start, end, 0.8, "hand"))
                for head, tail in re.findall(r"(\w+) evaluated on (\w+)", text[start:end]):
                    relations.append(Relation(head, "Method", "evaluatedOn", tail, "Dataset", start, end, 0.8, "hand"))
            yield Extraction(linked.iri, tuple(mentions), tuple(claims), tuple(relations))


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ontology")
    papers = folder / "papers.jsonl"
    records = [{"title": f"Paper {i}", "abstract": a, "authors": ["Ada Lovelace"]} for i, a in enumerate(ABSTRACTS)]
    papers.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    build([papers], store=folder / "store", extractors=[HandExtractor()])
    return folder / "store"


def iris(store, sparql: str) -> set[str]:
    return {row["c"].value for row in run_query(store, sparql).solutions}


def test_the_store_holds_the_ontology_and_a_query_follows_subclasses(small_store):
    store = open_store(small_store)
    assert all(quad in store for quad in ontology_quads())
    typed = iris(store, "SELECT ?c WHERE { ?c a ?type FILTER (?type IN (kg:Method, kg:Dataset, kg:Task, kg:Metric)) }")
    kinds = {t: iris(store, f"SELECT ?c WHERE {{ ?c a kg:{t} }}") for t in CONCEPT_TYPES}
    assert all(kinds.values()), kinds  # one concept of each type at least
    assert iris(store, "SELECT ?c WHERE { ?c a/rdfs:subClassOf* kg:Concept }") == typed
    assert typed <= iris(store, "SELECT ?c WHERE { ?c a/rdfs:subClassOf* skos:Concept }")


def test_a_turtle_export_validates_against_the_shapes_on_its_own(small_store, tmp_path):
    store = open_store(small_store)
    path = tmp_path / "kg.ttl"
    export_graph(store, path, "ttl")
    data = rdflib.Graph().parse(path, format="turtle")
    shapes = rdflib.Graph().parse(SHAPES, format="turtle")
    broader = rdflib.URIRef("https://w3id.org/kg/ontology#BroaderEvidence")
    assert next(data.subjects(rdflib.RDF.type, broader), None) is not None  # the head-noun link: every shape has nodes
    conforms, _, text = pyshacl.validate(data, shacl_graph=shapes, inference="none")
    assert conforms, text
    # It is the ontology in the export that makes it conform: without it a kg:Method is no kg:Concept.
    for s, p, o in rdflib.Graph().parse(ONTOLOGY, format="turtle"):
        data.remove((s, p, o))
    conforms, _, text = pyshacl.validate(data, shacl_graph=shapes, inference="none")
    assert not conforms and "ClassConstraintComponent" in text


@pytest.mark.parametrize("fmt", ["trig", "nq"])
def test_the_quad_exports_carry_the_ontology_in_the_graph_of_the_data(small_store, tmp_path, fmt):
    store = open_store(small_store)
    path = tmp_path / f"kg.{fmt}"
    syntax = pyoxigraph.RdfFormat.TRIG if fmt == "trig" else pyoxigraph.RdfFormat.N_QUADS
    ontology = {q.triple for q in ontology_quads()}
    export_graph(store, path, fmt)
    assert ontology <= {q.triple for q in pyoxigraph.parse(path=str(path), format=syntax) if q.graph_name == pyoxigraph.DefaultGraph()}
    named = pyoxigraph.NamedNode("https://example.org/graph/kg")
    export_graph(store, path, fmt, graph=named.value)
    assert ontology <= {q.triple for q in pyoxigraph.parse(path=str(path), format=syntax) if q.graph_name == named}


def with_triples(graph: rdflib.Graph, triples) -> rdflib.Graph:
    copy = rdflib.Graph()
    for triple in (*graph, *triples):
        copy.add(triple)
    return copy


def test_the_shapes_check_the_identifiers_readers_give(small_store, tmp_path):
    path = tmp_path / "kg.ttl"
    export_graph(open_store(small_store), path, "ttl")
    data = rdflib.Graph().parse(path, format="turtle")
    shapes = rdflib.Graph().parse(SHAPES, format="turtle")
    KG, BIBO = rdflib.Namespace("https://w3id.org/kg/ontology#"), rdflib.Namespace("http://purl.org/ontology/bibo/")
    paper = next(data.subjects(rdflib.RDF.type, KG.Paper))
    person = next(data.subjects(rdflib.RDF.type, rdflib.FOAF.Person))
    issued = rdflib.DCTERMS.issued
    good = [(paper, KG.arxivId, rdflib.Literal("2502.05628")), (paper, BIBO.pmid, rdflib.Literal("31452104"))]
    good += [(person, KG.orcid, rdflib.URIRef("https://orcid.org/0000-0002-1825-009X"))]
    for value, datatype in (("2025-02-09", "date"), ("2025-02", "gYearMonth"), ("2025", "gYear")):
        data.set((paper, issued, rdflib.Literal(value, datatype=rdflib.XSD[datatype])))
        assert pyshacl.validate(with_triples(data, good), shacl_graph=shapes, inference="none")[0], datatype
    bad = [(paper, KG.arxivId, rdflib.Literal("arXiv:2502.05628v2")), (paper, BIBO.pmid, rdflib.Literal("PMID 31452104"))]
    bad += [(person, KG.orcid, rdflib.Literal("0000-0002-1825-0097")), (paper, issued, rdflib.Literal("9 Feb 2025"))]
    _, results, _ = pyshacl.validate(with_triples(data, bad), shacl_graph=shapes, inference="none")
    SH = rdflib.namespace.SH
    failing = {results.value(r, SH.resultPath) for r in results.subjects(rdflib.RDF.type, SH.ValidationResult)}
    assert failing == {KG.arxivId, BIBO.pmid, KG.orcid, issued}
