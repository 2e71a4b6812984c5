"""The whole extraction on shipped abstracts: the `kg extract` contract, and
the graph the LoRA3D abstract gives (what a new user would check first)."""

import json

import pytest

from kg.graph import open_store
from kg.pipeline import build
from kg.query import run_query
from tests.conftest import CONFERENCE

CONTRACT_KEYS = {"id", "title", "concepts", "claims", "relations"}
CONCEPT_KEYS = {"type", "text", "start", "end", "label", "proposed", "confidence"}


@pytest.fixture(scope="module")
def extractor():
    from kg.extract.extractor import SpacyExtractor

    return SpacyExtractor()


@pytest.fixture(scope="module")
def lora3d_store(tmp_path_factory, extractor):
    store = tmp_path_factory.mktemp("lora3d") / "store"
    build([CONFERENCE], store=store, extractors=[extractor])
    return open_store(store)


def test_extract_writes_the_documented_contract(workdir, run):
    code, _, err = run("extract", "corpus/000_ced0abb0ca10cf40.txt", "--out", "out.jsonl", "--quiet")
    assert code == 0, err
    lines = (workdir / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 26
    from kg.corpus import read_file

    abstracts = [p.abstract for p in read_file(workdir / "corpus" / "000_ced0abb0ca10cf40.txt")]
    for line, abstract in zip(lines, abstracts):
        record = json.loads(line)
        assert set(record) == CONTRACT_KEYS and isinstance(record["title"], str)
        for concept in record["concepts"]:
            assert set(concept) == CONCEPT_KEYS
            assert concept["type"] in {"Method", "Dataset", "Task", "Metric"}
            assert abstract[concept["start"] : concept["end"]] == concept["text"]
            assert 0 < concept["confidence"] <= 1 and isinstance(concept["proposed"], bool)
        for claim in record["claims"]:
            assert abstract[claim["start"] : claim["end"]] == claim["text"] and 0 < claim["confidence"] <= 1
        labels = {c["label"] for c in record["concepts"]}
        for relation in record["relations"]:
            assert relation["type"] in {"evaluatedOn", "usedFor", "uses", "outperforms", "comparedWith", "trainedOn", "benchmarkFor"}
            assert {relation["head"], relation["tail"]} <= labels
            assert relation["start"] < relation["end"] <= len(abstract)


def test_extract_is_byte_for_byte_repeatable(workdir, run):
    run("extract", "corpus/000_ced0abb0ca10cf40.txt", "-o", "a.jsonl", "-q")
    run("extract", "corpus/000_ced0abb0ca10cf40.txt", "-o", "b.jsonl", "-q")
    assert (workdir / "a.jsonl").read_bytes() == (workdir / "b.jsonl").read_bytes()


def rows(store, query):
    result = run_query(store, query)
    return [{v: s[v].value for v in result.variables if s[v] is not None} for s in result.raw]


LORA3D = "LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models"


def test_lora3d_proposes_lora3d_and_uses_lora(lora3d_store):
    proposed = rows(lora3d_store, f'SELECT ?label WHERE {{ ?p dcterms:title "{LORA3D}" ; kg:proposes/skos:prefLabel ?label }}')
    assert "LoRA3D" in {r["label"] for r in proposed} and "LoRA" not in {r["label"] for r in proposed}  # it applies LoRA
    uses = rows(lora3d_store, 'SELECT ?tail WHERE { ?m skos:prefLabel "LoRA3D" ; kg:uses/skos:prefLabel ?tail }')
    assert "LoRA" in {r["tail"] for r in uses}


def test_lora3d_mentions_dust3r_and_its_datasets(lora3d_store):
    found = rows(
        lora3d_store,
        f"""
        SELECT ?label ?type WHERE {{ ?p dcterms:title "{LORA3D}" ; kg:mentions ?c . ?c skos:prefLabel ?label ; a ?type }}""",
    )
    by_label = {r["label"]: r["type"].rsplit("#", 1)[1] for r in found}
    assert by_label["DUSt3R"] == "Method"
    assert {by_label[d] for d in ("Replica", "TUM", "Waymo Open Dataset")} == {"Dataset"}
    evaluated = rows(lora3d_store, 'SELECT ?d WHERE { ?m skos:prefLabel "LoRA3D" ; kg:evaluatedOn/skos:prefLabel ?d }')
    assert {"Replica", "TUM", "Waymo Open Dataset"} <= {r["d"] for r in evaluated}


def test_lora3d_results_sentence_is_a_claim_with_evidence(lora3d_store):
    claims = rows(
        lora3d_store,
        f"""
        SELECT ?text ?start ?end ?confidence ?by WHERE {{
          ?p dcterms:title "{LORA3D}" ; kg:hasClaim ?c .
          ?c kg:sentence ?text ; kg:startOffset ?start ; kg:endOffset ?end ; kg:confidence ?confidence ;
             prov:wasAttributedTo/rdfs:label ?by }}""",
    )
    texts = [r["text"] for r in claims]
    assert any(t.startswith("We evaluated our method on more than 160 scenes") for t in texts)
    assert all(0 < float(r["confidence"]) <= 1 and r["by"].startswith("kg_claims") for r in claims)


def test_every_relation_has_its_evidence_sentence(lora3d_store):
    evidence = rows(
        lora3d_store,
        """
        SELECT ?s ?p ?o ?sentence WHERE {
          ?e a kg:RelationMention ; rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o ; kg:sentence ?sentence ; kg:inPaper ?paper }""",
    )
    stated = rows(
        lora3d_store,
        "SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(?p IN (kg:evaluatedOn, kg:usedFor, kg:uses, kg:outperforms, kg:comparedWith, kg:trainedOn, kg:benchmarkFor)) }",
    )
    assert stated and {(r["s"], r["p"], r["o"]) for r in stated} == {(r["s"], r["p"], r["o"]) for r in evidence}


def test_the_default_pipeline_runs_the_trained_recogniser_after_the_parser():
    from kg.extract.pipeline import build_nlp
    from kg.extract.spans import ConceptSpan

    nlp = build_nlp(use_claims=False)
    assert nlp.pipe_names.index("kg_ner") > nlp.pipe_names.index("parser")  # it reads tags and dependencies
    doc = nlp("We evaluate BERT on the SQuAD dataset for question answering.")
    assert len(doc.ents) >= 1
    assert {ConceptSpan(*c).label for c in doc._.kg_concepts} >= {"BERT", "SQuAD"}
