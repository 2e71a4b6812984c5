"""SPARQL over the corpus store: the named library answers what the listing says."""

import json

import pytest
from pyoxigraph import Literal

from kg.errors import QueryError
from kg.graph import open_store
from kg.query import find_query, format_result, list_queries, run_query


@pytest.fixture(scope="module")
def store(corpus_store):
    return open_store(corpus_store)


def ask(store, name, **params):
    result = run_query(store, find_query(name).sparql, params)
    return [{v: (s[v].value if s[v] is not None else None) for v in result.variables} for s in result.raw]


def test_papers_of_yue_wang(store):
    rows = ask(store, "papers-of-author", author="yue wang")  # matching ignores case
    assert {(r["label"], r["position"], r["authors"]) for r in rows} == {
        ("LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models", "7", "7"),
        ("OmniRe: Omni Urban Scene Reconstruction", "12", "12"),
        ("Multiview Equivariance Improves 3D Correspondence Understanding with Minimal Feature Finetuning", "4", "5"),
        ("PhysBench: Benchmarking and Enhancing Vision-Language Models for Physical World Understanding", "6", "6"),
    }


def test_coauthors_of_yue_wang(store):
    rows = ask(store, "coauthors", author="Yue Wang")
    shared = {r["name"]: int(r["shared"]) for r in rows}
    # Boris Ivanovic and Marco Pavone are on LoRA3D and OmniRe; Boyi Li on LoRA3D and PhysBench.
    assert shared["Boris Ivanovic"] == shared["Marco Pavone"] == shared["Boyi Li"] == 2
    assert shared["Leonidas Guibas"] == 1 and "Yue Wang" not in shared
    # 7 + 12 + 5 + 6 authors, less Yue Wang on each, less the three counted twice.
    assert len(shared) == (6 + 11 + 4 + 5) - 3


def test_papers_in_a_category_and_in_an_area(store):
    vision = {r["label"] for r in ask(store, "papers-in-category", category="Computer Vision")}
    assert vision == {
        "LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models",
        "OmniRe: Omni Urban Scene Reconstruction",
        "SC-OmniGS: Self-Calibrating Omnidirectional Gaussian Splatting",
    }
    applied = ask(store, "papers-in-category", category="Applied AI")
    assert len(applied) == 7 and {r["subject"] for r in applied} >= {"Health", "Computer Vision"}


def test_papers_with_an_award(store):
    rows = ask(store, "papers-with-award")
    awards = {r["label"].split(":")[0]: r["award"] for r in rows}
    assert awards.pop("PhysBench") == "Oral"
    assert set(awards.values()) == {"Spotlight"} and len(awards) == 7


def test_paper_sources_point_back_to_the_file_and_line(store):
    (lora,) = [r for r in ask(store, "papers-of-author", author="Ziqi Lu")]
    (row,) = ask(store, "paper-sources", paper=f"<{lora['paper']}>")
    assert (row["file"], row["line"], row["index"], row["format"]) == ("000_ced0abb0ca10cf40.txt", "15", "1", "conference")


def test_every_library_query_documents_its_question_and_projects_its_params():
    queries = list_queries()
    assert len(queries) >= 5
    for query in queries:
        assert query.question.endswith("?"), query.name
        select = next(line for line in query.sparql.splitlines() if line.startswith("SELECT"))
        for param in query.params:
            assert f"?{param}" in select, (query.name, param)


def test_hostile_parameter_values_are_just_strings(store):
    assert ask(store, "papers-of-author", author='x" } ; DROP ALL ; #') == []
    result = run_query(store, "SELECT ?v WHERE {}", {"v": Literal('a"b')})
    assert [s["v"].value for s in result.raw] == ['a"b']


def test_a_key_variable_gets_the_value_lower_cased_and_the_label_lookup_is_an_exact_match(store):
    from kg.query.binding import bind_terms

    bound = bind_terms("SELECT ?author WHERE { ?p kg:nameKey ?authorKey }", {"author": "Yue WANG"})
    assert bound == 'SELECT ("Yue WANG" AS ?author) WHERE { ?p kg:nameKey "yue wang" }'
    # a value given for the key itself wins; a key no query uses binds nothing
    assert bind_terms("SELECT ?author WHERE { ?p kg:nameKey ?authorKey }", {"author": "A", "authorKey": "b"}).endswith('"b" }')
    assert bind_terms("SELECT ?author WHERE { }", {"author": "A"}) == 'SELECT ("A" AS ?author) WHERE { }'
    # the build writes the key for every name a lookup may use, so any case finds the person
    assert {r["label"] for r in ask(store, "papers-of-author", author="YUE WANG")} == {
        r["label"] for r in ask(store, "papers-of-author", author="Yue Wang")
    }
    missing = run_query(
        store,
        """SELECT ?node WHERE {
        { ?node skos:prefLabel|skos:altLabel|foaf:name|rdfs:label|dcterms:title ?name }
        FILTER NOT EXISTS { ?node kg:nameKey ?key FILTER (?key = LCASE(STR(?name))) }
        FILTER EXISTS { ?node a ?class FILTER (?class IN (kg:Paper, foaf:Person, kg:Topic, kg:Method, kg:Dataset, kg:Task, kg:Metric)) }
    } LIMIT 5""",
    )
    assert list(missing.raw) == []


def test_malformed_query_reports_the_position(store):
    with pytest.raises(QueryError, match=r"malformed SPARQL query at line 2, column \d+"):
        run_query(store, "SELECT ?x\nWHERE { ?x ?y }")
    with pytest.raises(QueryError, match="unknown prefix"):
        run_query(store, "SELECT ?x WHERE { ?x nope:p ?y }")


def test_result_formats(store):
    query = "SELECT ?name WHERE { ?p foaf:name ?name FILTER(?name = 'Yue Wang') }"
    result = run_query(store, query)
    assert json.loads(format_result(result, "json"))["results"]["bindings"] == [{"name": {"type": "literal", "value": "Yue Wang"}}]
    assert format_result(run_query(store, query), "csv").splitlines() == ["name", "Yue Wang"]
    assert format_result(run_query(store, query), "tsv").splitlines() == ["?name", '"Yue Wang"']
    assert format_result(run_query(store, query), "table").splitlines()[-1] == "(1 row)"
    assert format_result(run_query(store, "ASK { ?p a kg:Paper }")) == "true\n"
    turtle = format_result(run_query(store, "CONSTRUCT { ?p a foaf:Person } WHERE { ?p foaf:name 'Yue Wang' }"))
    assert "person:yue-wang a foaf:Person ." in turtle
