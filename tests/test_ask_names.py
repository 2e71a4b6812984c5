"""`kg ask`: every concept, paper and author parameter of every named question
takes a name (any label, title or name, any case) or an IRI, and a value that
names nothing is an error with close matches. On the tiny graph of
tests/test_ask.py, with what the questions below also need (a form, a
hierarchy link, a source record, P1's author list, and a dataset also called "Beta"), and on the
shipped corpus for the two questions issue 21 reported."""

import pytest
from pyoxigraph import Literal, NamedNode, Quad, Store

from kg.graph.build import name_key
from kg.query import find_query, list_queries, run_query
from kg.query.ask import UnknownAuthorError, UnknownPaperError, ask, resolve
from kg.query.concepts import UnknownConceptError
from kg.vocab import KG, PROV, RDF, RDFS, SKOS
from tests.test_ask import _tiny_store

BASE = "https://w3id.org/kg/"
ALPHA, BETA, BETA_DATA = (NamedNode(f"{BASE}concept/{key}") for key in ("alpha", "beta", "beta-data"))
P1 = NamedNode(f"{BASE}paper/p1")
ERRORS = {"concept": UnknownConceptError, "paper": UnknownPaperError, "author": UnknownAuthorError}

# Each question with a name its answer is not empty for (worked out in tests/test_ask.py's graph).
NAMED = {
    "authors-on-concept": {"concept": "DataOne"},
    "claims-mentioning": {"concept": "Beta"},
    "coauthors": {"author": "Bob Ray"},
    "concept-forms": {"concept": "Alpha"},
    "concept-hierarchy": {"concept": "Alpha"},
    "concept-papers": {"concept": "AlphaNet"},
    "concepts-named": {"label": "Sorting Task"},
    "cooccurring-concepts": {"concept": "DataOne"},
    "datasets-for-task": {"task": "sorting"},
    "methods-for-task": {"task": "sorting"},
    "methods-on-dataset": {"dataset": "D1"},
    "paper-proposes": {"paper": "Beta Study"},
    "paper-sources": {"paper": "Alpha Sorting"},
    "papers-mentioning": {"concept": "Alpha"},
    "papers-of-author": {"author": "Ann Lee"},
    "shared-concepts": {"paper": "Alpha Sorting", "other": "Beta Study"},
}


@pytest.fixture(scope="module")
def store() -> Store:
    store = _tiny_store()
    form, evidence, record, source, authorship = (
        NamedNode(f"{BASE}{kind}/x") for kind in ("form", "broader", "record", "source", "authorship")
    )
    triples = [
        (ALPHA, KG.hasForm, form),
        (form, RDFS.label, Literal("AlphaNet")),
        (form, KG.mentionCount, Literal(1)),
        (form, KG.mergeRule, Literal("alias")),
        # Beta is a kind of Alpha, by the head-noun rule
        (BETA, SKOS.broader, ALPHA),
        (evidence, RDF.type, KG.BroaderEvidence),
        (evidence, RDF.subject, BETA),
        (evidence, RDF.predicate, SKOS.broader),
        (evidence, RDF.object, ALPHA),
        (evidence, KG.rule, Literal("head-noun")),
        (P1, PROV.qualifiedDerivation, record),
        (record, PROV.entity, source),
        (record, KG.line, Literal(1)),
        (record, KG.recordIndex, Literal(1)),
        (source, KG.fileName, Literal("tiny.jsonl")),
        (source, KG.readerFormat, Literal("jsonl")),
        (source, KG.sha256, Literal("0" * 64)),
        (P1, KG.hasAuthorship, authorship),
        (authorship, KG.author, NamedNode(f"{BASE}person/ann-lee")),
        (authorship, KG.authorPosition, Literal(1)),
        # a dataset no paper mentions that is also called "Beta"
        (BETA_DATA, RDF.type, KG.Dataset),
        (BETA_DATA, SKOS.prefLabel, Literal("Beta")),
        (BETA_DATA, KG.nameKey, name_key("Beta")),
    ]
    store.extend(Quad(s, p, o) for s, p, o in triples)
    return store


def test_every_question_with_a_named_parameter_is_tested_and_every_such_parameter_declares_its_kind():
    with_kinds = {q.name for q in list_queries() if q.kinds}
    assert with_kinds == set(NAMED)
    # the one parameter left undeclared names a topic, which no kind covers
    assert {(q.name, p) for q in list_queries() for p in q.params if p not in q.kinds} == {("papers-in-category", "category")}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_a_name_an_iri_and_a_wrong_case_name_give_the_same_answer(store, name):
    names = NAMED[name]
    kinds = find_query(name).kinds
    answer = ask(store, name, names)
    assert answer.rows, name
    iris = {p: f"<{resolve(store, kinds[p], p, v)[0].value}>" for p, v in names.items()}
    assert ask(store, name, iris).rows == answer.rows
    assert ask(store, name, {p: v.swapcase() for p, v in names.items()}).rows == answer.rows
    # the parameter's own column holds the node's IRI
    assert {row[p] for row in answer.records() for p in names} == {iri[1:-1] for iri in iris.values()}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_a_value_that_names_nothing_is_an_error_with_a_close_match(store, name):
    param, value = next(iter(NAMED[name].items()))
    kind = find_query(name).kinds[param]
    with pytest.raises(ERRORS[kind], match=f"\\(parameter {param}\\).*did you mean.*{value!r}"):
        ask(store, name, {**NAMED[name], param: value + "x"})


def test_an_iri_is_taken_bare_in_brackets_or_prefixed_and_must_be_of_the_kind(store):
    by_name = ask(store, "concept-papers", {"concept": "alpha"}).rows
    for spelling in (ALPHA.value, f"<{ALPHA.value}>", "concept:alpha"):
        assert ask(store, "concept-papers", {"concept": spelling}).rows == by_name
    with pytest.raises(UnknownConceptError, match=f"no concept has the IRI <{P1.value}>"):
        ask(store, "concept-papers", {"concept": P1.value})
    with pytest.raises(UnknownPaperError, match="no paper has the IRI"):
        ask(store, "paper-sources", {"paper": "paper:p9"})


def test_a_name_several_concepts_go_by_answers_for_each_most_mentioned_first(store):
    # "Beta": the method (mentioned by P1 and P2) and the dataset (by none)
    assert resolve(store, "concept", "concept", "BETA") == [BETA, BETA_DATA]
    answer = ask(store, "concepts-named", {"label": "beta"})
    assert [(r["concept"], r["type"], r["papers"]) for r in answer.records()] == [
        (BETA.value, "Method", 2),
        (BETA_DATA.value, "Dataset", 0),
    ]
    assert ask(store, "concepts-named", {"label": "beta"}, limit=1).rows == answer.rows[:1]
    # an IRI picks one
    assert ask(store, "concepts-named", {"label": BETA_DATA.value}).rows == answer.rows[1:]


def test_kg_query_binds_a_name_or_an_iri_to_the_same_query(store):
    """Without `kg ask`, the library's queries find the node by a name (its key) or by its IRI."""
    sparql = find_query("concept-papers").sparql

    def papers(value):
        return sorted(s["paper"].value for s in run_query(store, sparql, {"concept": value}).solutions)

    assert papers("ALPHANET") == papers(ALPHA) == papers(f"<{ALPHA.value}>") == [P1.value, f"{BASE}paper/p3"]
    assert papers("Alpah") == []


# --- the shipped corpus: the two questions of issue 21 -------------------------------------------


def test_concept_papers_and_hierarchy_take_a_name_on_the_corpus(run, extracted_store):
    # LoRA: "... trainable Low-Rank Adaptation (LoRA) modules ...", LoRA3D's "... using low-rank
    # adaptation (LoRA) ..." and the PEFT paper's "... BigFit, LoRA, Adaptformer ...": 3 papers.
    code, out, err = run("ask", "concept-papers", "--concept", "LoRA", "--store", extracted_store, "--format", "csv")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 1 + 3 and all(line.startswith("https://w3id.org/kg/concept/method-lora,") for line in lines[1:])
    # fine-tuning has narrower kinds ("supervised fine-tuning" ...): the same rows by name as by IRI
    by_name = run("ask", "concept-hierarchy", "--concept", "Fine-Tuning", "--store", extracted_store, "--format", "csv")
    by_iri = run("ask", "concept-hierarchy", "--concept", "concept:method-finetuning", "--store", extracted_store, "--format", "csv")
    assert by_name == by_iri and by_name[0] == 0 and "supervised fine-tuning" in by_name[1]
    code, out, err = run("ask", "concept-hierarchy", "--concept", "Lorra", "--store", extracted_store)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("kg: error: no concept is called 'Lorra' (parameter concept); did you mean 'LoRA'")
