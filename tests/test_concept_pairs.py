"""Concept merging measured on the shipped corpus: every hand-checked pair in
tests/data/concept_pairs.tsv, and the corpus-wide promises of the concept stage."""

from __future__ import annotations

import csv
import re
from collections import defaultdict

import pytest
from pyoxigraph import Literal

from kg.graph import open_store
from kg.query import run_query
from tests.conftest import DAILY, DATA

FORM_QUERY = """
SELECT DISTINCT ?concept ?form ?class ?hint WHERE {
  ?paper kg:hasMention ?mention ;
         dcterms:abstract ?abstract .
  ?mention rdfs:label ?form ;
           kg:mentionOf ?concept .
  ?concept a ?class .
  FILTER (CONTAINS(?abstract, ?hint))
}
"""


def _pairs() -> list[dict]:
    lines = [line for line in (DATA / "concept_pairs.tsv").read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    fields = ["verdict", "type_a", "form_a", "hint_a", "type_b", "form_b", "hint_b", "why"]
    return [dict(zip(fields, row)) for row in csv.reader(lines, delimiter="\t")]


PAIRS = _pairs()


def test_the_pair_list_is_big_enough():
    verdicts = [p["verdict"] for p in PAIRS]
    assert verdicts.count("merge") >= 40 and verdicts.count("distinct") >= 40
    assert set(verdicts) == {"merge", "distinct"}


@pytest.fixture(scope="module")
def store(rules_store):
    return open_store(rules_store)


def _concept(store, concept_type: str, form: str, hint: str) -> str:
    from kg.vocab import KG

    params = {"form": Literal(form), "class": KG[concept_type], "hint": Literal(hint)}
    found = {s["concept"].value for s in run_query(store, FORM_QUERY, params).raw}
    assert len(found) == 1, f"{concept_type} {form!r} (hint {hint!r}) should name exactly one concept, names {sorted(found)}"
    return found.pop()


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{p['verdict']}:{p['form_a']}|{p['form_b']}" for p in PAIRS])
def test_pair(store, pair):
    a = _concept(store, pair["type_a"], pair["form_a"], pair["hint_a"])
    b = _concept(store, pair["type_b"], pair["form_b"], pair["hint_b"])
    if pair["verdict"] == "merge":
        assert a == b, f"should be one concept ({pair['why']})"
    else:
        assert a != b, f"should be two concepts ({pair['why']})"


def _looser(label: str) -> str:
    """Case, hyphens, spaces and a final lower-case plural "s" set aside."""
    words = label.split(" ")
    if re.fullmatch(r"[a-z\-]+s", words[-1]) and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]
    return re.sub(r"[\s\-]", "", " ".join(words).lower())


def test_no_two_concepts_of_a_type_differ_only_in_case_hyphens_or_plural(store):
    rows = run_query(store, "SELECT ?concept ?class ?label WHERE { ?concept skos:prefLabel ?label ; a ?class }").raw
    groups = defaultdict(set)
    for row in rows:
        groups[(row["class"].value, _looser(row["label"].value))].add(row["label"].value)
    assert len(groups) > 1000  # the corpus has well over a thousand concepts
    clashes = [sorted(labels) for labels in groups.values() if len(labels) > 1]
    assert clashes == []


def test_ood_generalization_is_one_concept_for_every_daily_paper_that_names_it(store):
    """Every daily abstract that writes "out-of-distribution generalization" in
    any of its spellings mentions the one concept, itself or as the head of a
    narrower one ("cross-year out-of-distribution generalization", linked to it
    by skos:broader)."""
    spelling = re.compile(r"(out[- ]of[- ]distribution|\bOoD|\bOOD)( \((OOD|OoD)\))?[- ]generali[sz]ation", re.IGNORECASE)
    naming = {p for p in DAILY.read_text(encoding="utf-8").split("\n") if spelling.search(p)}
    query = """SELECT ?abstract WHERE { ?paper kg:mentions/skos:broader* ?concept ; dcterms:abstract ?abstract .
               ?concept skos:prefLabel "out-of-distribution generalization" }"""
    mentioning = {row["abstract"].value for row in run_query(store, query).raw}
    normalised = {" ".join(p.split()) for p in naming}
    assert len(normalised) >= 50  # the daily listing is largely about OOD generalisation
    missing = normalised - mentioning
    assert not missing, f"{len(missing)} of {len(normalised)} daily abstracts name it but miss the concept"


def test_every_concept_has_one_prefLabel_and_every_form_a_merge_rule(store):
    many = "SELECT ?c WHERE { ?c skos:prefLabel ?l } GROUP BY ?c HAVING (COUNT(?l) != 1)"
    assert list(run_query(store, many).raw) == []
    ruleless = "SELECT ?f WHERE { ?c kg:hasForm ?f FILTER NOT EXISTS { ?f kg:mergeRule ?r } }"
    assert list(run_query(store, ruleless).raw) == []


def test_hearst_links_keep_their_sentence_and_paper(store):
    query = """SELECT ?narrower ?sentence ?abstract WHERE {
        ?e a kg:BroaderEvidence ; rdf:subject/skos:prefLabel ?narrower ; rdf:object/skos:prefLabel "3D geometric foundation model" ;
           kg:sentence ?sentence ; kg:inPaper/dcterms:abstract ?abstract ; kg:rule "hearst:such-as" }"""
    rows = list(run_query(store, query).raw)
    assert [r["narrower"].value for r in rows] == ["DUSt3R"]  # LoRA3D: "3D geometric foundation models such as DUSt3R"
    assert "such as DUSt3R" in rows[0]["sentence"].value and rows[0]["sentence"].value in rows[0]["abstract"].value


def test_concept_command_finds_any_label_and_explains_the_merges(rules_store, run):
    code, out, err = run("concept", "OOD generalisation", "--store", rules_store, "--limit", "1")
    assert code == 0, err
    assert out.startswith("out-of-distribution generalization  (Task)")
    assert "'OOD generalization' x" in out and "acronym in paper" in out
    assert "... and" in out  # --limit cut the paper list


def test_concept_command_json_has_wikidata_and_papers(extracted_store, run):
    import json

    code, out, _ = run("concept", "imagenet", "--store", extracted_store, "--format", "json")
    [imagenet] = json.loads(out)
    assert code == 0 and imagenet["exact_match"] == "http://www.wikidata.org/entity/Q24901201"
    assert imagenet["type"] == "Dataset" and len(imagenet["papers"]) >= 10


def test_concept_command_suggests_close_matches_for_an_unknown_name(extracted_store, run):
    code, out, err = run("concept", "Lorra", "--store", extracted_store)
    assert (code, out) == (2, "")
    assert err.startswith("kg: error: no concept is called 'Lorra'; did you mean 'LoRA'") and err.count("\n") == 1


def test_rebuilding_with_extraction_gives_the_same_graph_byte_for_byte(tmp_path, rules_store):
    """Concept linking is deterministic: IRIs, labels, forms and hierarchy all repeat."""
    from kg.extract.extractor import SpacyExtractor
    from kg.pipeline import build
    from tests.conftest import CORPUS
    from tests.test_build_store import sorted_ntriples

    again = tmp_path / "store"
    build([CORPUS], store=again, extractors=[SpacyExtractor(concepts="rules")])
    assert sorted_ntriples(again) == sorted_ntriples(rules_store)
