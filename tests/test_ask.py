"""`kg ask`: named questions with label parameters, on a tiny hand-built graph
whose answers are worked out by hand, and on the shipped corpus."""

import json
import re

import pytest
from pyoxigraph import Literal, NamedNode, Quad, Store

from kg.errors import QueryError
from kg.graph import open_store
from kg.graph.build import name_key
from kg.query import find_query, list_queries
from kg.query.ask import (
    Answer,
    ParameterError,
    UnknownAuthorError,
    UnknownPaperError,
    ask,
)
from kg.query.concepts import UnknownConceptError
from kg.query.library import load_query_file
from kg.vocab import DCTERMS, FOAF, KG, PROV, RDF, RDFS, SKOS

LORA3D = "LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models"
OMNIRE = "OmniRe: Omni Urban Scene Reconstruction"
HOSTILE = 'x" } ; DROP ALL ; #'
NEW_QUERIES = [
    "papers-mentioning",
    "methods-on-dataset",
    "datasets-for-task",
    "methods-for-task",
    "paper-proposes",
    "shared-concepts",
    "claims-mentioning",
    "authors-on-concept",
    "cooccurring-concepts",
]

# --- a tiny graph, shaped as kg/graph/build.py writes it -----------------------------------------
#
# P1 "Alpha Sorting" (Ann Lee, Bob Ray): "We propose Alpha for sorting. Alpha is evaluated on
#     DataOne. Alpha beats Beta on DataOne."  Claim: sentence 3. Relations: Alpha usedFor sorting
#     (sentence 1), Alpha evaluatedOn DataOne (sentence 2), Alpha outperforms Beta (sentence 3).
#     Proposes Alpha.
# P2 "Beta Study" (Bob Ray): "Beta-like tools exist. We introduce Beta. Beta is tested on DataOne
#     for sorting."  Claim: sentence 2. Relation: Beta evaluatedOn DataOne (sentence 3). Proposes
#     Beta, coined in sentence 2.
# P3 (daily, no title, no authors): "Gamma uses Alpha. Results improve."  Claim: sentence 2.

CONCEPTS = {  # key -> (class, prefLabel, altLabels)
    "alpha": ("Method", "Alpha", ["AlphaNet"]),
    "beta": ("Method", "Beta", []),
    "dataone": ("Dataset", "DataOne", ["D1"]),
    "sorting": ("Task", "sorting", ["Sorting Task"]),
}
PAPERS = {  # key -> (title or None, abstract, authors, mentions (text, concept, component), claims (sentence no.), relations, proposes)
    "p1": (
        "Alpha Sorting",
        "We propose Alpha for sorting. Alpha is evaluated on DataOne. Alpha beats Beta on DataOne.",
        ["Ann Lee", "Bob Ray"],
        [
            ("Alpha", "alpha", "coined:we-propose"),
            ("sorting", "sorting", "head"),
            ("Alpha", "alpha", "lexicon"),
            ("DataOne", "dataone", "lexicon"),
            ("Alpha", "alpha", "lexicon"),
            ("Beta", "beta", "lexicon"),
            ("DataOne", "dataone", "lexicon"),
        ],
        [2],
        [("alpha", "usedFor", "sorting", 0), ("alpha", "evaluatedOn", "dataone", 1), ("alpha", "outperforms", "beta", 2)],
        ["alpha"],
    ),
    "p2": (
        "Beta Study",
        "Beta-like tools exist. We introduce Beta. Beta is tested on DataOne for sorting.",
        ["Bob Ray"],
        [
            ("Beta", "beta", "lexicon"),
            ("Beta", "beta", "coined:we-introduce"),
            ("Beta", "beta", "lexicon"),
            ("DataOne", "dataone", "lexicon"),
            ("sorting", "sorting", "head"),
        ],
        [1],
        [("beta", "evaluatedOn", "dataone", 2)],
        ["beta"],
    ),
    "p3": (None, "Gamma uses Alpha. Results improve.", [], [("Alpha", "alpha", "lexicon")], [1], [], []),
}


def _sentences(abstract: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence: text up to a full stop, without the leading space."""
    return [m.span(1) for m in re.finditer(r"\s*([^.]+\.)", abstract)]


def _evidence(node, paper, start: int, end: int, component: str) -> list[tuple]:
    agent = NamedNode(f"https://w3id.org/kg/component/{component}")
    return [
        (node, KG.inPaper, paper),
        (node, KG.startOffset, Literal(start)),
        (node, KG.endOffset, Literal(end)),
        (node, PROV.wasAttributedTo, agent),
        (agent, RDFS.label, Literal(f"kg_concepts#{component}")),
    ]


def _tiny_store() -> Store:
    def iri(kind, key):
        return NamedNode(f"https://w3id.org/kg/{kind}/{key}")

    triples = []
    for key, (cls, pref_label, alt_labels) in CONCEPTS.items():
        concept = iri("concept", key)
        triples += [(concept, RDF.type, KG[cls]), (concept, SKOS.prefLabel, Literal(pref_label))]
        triples += [(concept, SKOS.altLabel, Literal(a)) for a in alt_labels]
        triples += [(concept, KG.nameKey, name_key(label)) for label in (pref_label, *alt_labels)]
    for key, (title, abstract, authors, mentions, claims, relations, proposes) in PAPERS.items():
        paper = iri("paper", key)
        sentences = _sentences(abstract)
        label = title or abstract.split(".")[0] + "…"
        triples += [(paper, RDF.type, KG.Paper), (paper, RDFS.label, Literal(label)), (paper, KG.nameKey, name_key(label))]
        if title:
            triples.append((paper, DCTERMS.title, Literal(title)))
        for name in authors:
            person = iri("person", name.lower().replace(" ", "-"))
            triples += [(paper, DCTERMS.creator, person), (person, RDF.type, FOAF.Person), (person, FOAF.name, Literal(name))]
            triples.append((person, KG.nameKey, name_key(name)))
        cursor = 0
        for i, (text, concept_key, component) in enumerate(mentions):
            start = abstract.index(text, cursor)
            cursor = start + len(text)
            s_start, s_end = next(s for s in sentences if s[0] <= start < s[1])
            node, concept = iri("mention", f"{key}-{i}"), iri("concept", concept_key)
            triples += [
                (paper, KG.mentions, concept),
                (paper, KG.hasMention, node),
                (node, RDF.type, KG.Mention),
                (node, KG.mentionOf, concept),
                (node, RDFS.label, Literal(text)),
                (node, KG.sentenceStart, Literal(s_start)),
                (node, KG.sentenceEnd, Literal(s_end)),
                (node, KG.sentence, Literal(abstract[s_start:s_end])),
            ]
            triples += _evidence(node, paper, start, start + len(text), component)
        triples += [(paper, KG.proposes, iri("concept", c)) for c in proposes]
        for n in claims:
            node, (start, end) = iri("claim", f"{key}-{n}"), sentences[n]
            triples += [(paper, KG.hasClaim, node), (node, RDF.type, KG.Claim), (node, KG.sentence, Literal(abstract[start:end]))]
            triples += _evidence(node, paper, start, end, "claims")
        for head, relation, tail, n in relations:
            node, (start, end) = iri("relation", f"{key}-{head}-{relation}-{tail}"), sentences[n]
            head, tail = iri("concept", head), iri("concept", tail)
            triples += [
                (head, KG[relation], tail),
                (node, RDF.type, KG.RelationMention),
                (node, RDF.subject, head),
                (node, RDF.predicate, KG[relation]),
                (node, RDF.object, tail),
                (node, KG.sentence, Literal(abstract[start:end])),
            ]
            triples += _evidence(node, paper, start, end, "relations")
    store = Store()
    store.extend(Quad(s, p, o) for s, p, o in triples)
    return store


@pytest.fixture(scope="module")
def tiny():
    return _tiny_store()


def rows(answer: Answer, *columns: str) -> list[tuple]:
    return [tuple(r[c] for c in columns) for r in answer.records()]


P1 = "https://w3id.org/kg/paper/p1"
P2 = "https://w3id.org/kg/paper/p2"
P3 = "https://w3id.org/kg/paper/p3"


def test_each_query_on_a_tiny_graph_gives_the_answer_worked_out_by_hand(tiny):
    # Alpha: P1 proposes it and names it in 3 sentences (first: sentence 1); P3 names it once.
    # Found by its alternative label in any case.
    answer = ask(tiny, "papers-mentioning", {"concept": "alphanet"})
    assert rows(answer, "paperLabel", "proposes", "mentions", "evidencePaper", "evidenceSentence") == [
        ("Alpha Sorting", True, 3, P1, "We propose Alpha for sorting."),
        ("Gamma uses Alpha…", False, 1, P3, "Gamma uses Alpha."),
    ]
    # evaluatedOn DataOne: Alpha in P1 (sentence 2) and Beta in P2 (sentence 3); P1's sentence 3
    # names DataOne but states no relation. Alpha outperforms Beta, which is no evaluation.
    answer = ask(tiny, "methods-on-dataset", {"dataset": "d1"})
    assert rows(answer, "methodLabel", "paperLabel", "evidencePaper", "evidenceSentence") == [
        ("Alpha", "Alpha Sorting", P1, "Alpha is evaluated on DataOne."),
        ("Beta", "Beta Study", P2, "Beta is tested on DataOne for sorting."),
    ]
    assert ask(tiny, "methods-on-dataset", {"dataset": "Beta"}).rows == ()
    # relation: Alpha is usedFor sorting and evaluatedOn DataOne (in P1). co-mention: P1 and P2
    # both name sorting and DataOne; only P2 names both in one sentence, so that is the evidence.
    answer = ask(tiny, "datasets-for-task", {"task": "SORTING TASK"})
    assert rows(answer, "datasetLabel", "via", "papers", "through", "evidencePaper", "evidenceSentence") == [
        ("DataOne", "relation", 1, "Alpha", P1, "Alpha is evaluated on DataOne."),
        ("DataOne", "co-mention", 2, None, P2, "Beta is tested on DataOne for sorting."),
    ]
    # relation: Alpha usedFor sorting (P1, sentence 1). proposed: P1 (Alpha) and P2 (Beta) name
    # sorting; Beta's evidence is the sentence that names sorting too, not its first mention.
    answer = ask(tiny, "methods-for-task", {"task": "sorting"})
    assert rows(answer, "methodLabel", "via", "papers", "evidencePaper", "evidenceSentence") == [
        ("Alpha", "relation", 1, P1, "We propose Alpha for sorting."),
        ("Alpha", "proposed", 1, P1, "We propose Alpha for sorting."),
        ("Beta", "proposed", 1, P2, "Beta is tested on DataOne for sorting."),
    ]
    # P2 proposes Beta; the evidence is the "coined" mention (sentence 2), not the first one.
    answer = ask(tiny, "paper-proposes", {"paper": "beta study"})
    assert rows(answer, "title", "conceptLabel", "type", "evidenceSentence") == [("Beta Study", "Beta", "Method", "We introduce Beta.")]
    # P1 and P2 share Beta, DataOne and sorting (not Alpha); each side's first sentence naming it.
    answer = ask(tiny, "shared-concepts", {"paper": "Alpha Sorting", "other": P2})
    assert rows(answer, "conceptLabel", "type", "evidenceSentence", "evidenceOtherSentence") == [
        ("DataOne", "Dataset", "Alpha is evaluated on DataOne.", "Beta is tested on DataOne for sorting."),
        ("Beta", "Method", "Alpha beats Beta on DataOne.", "Beta-like tools exist."),
        ("sorting", "Task", "We propose Alpha for sorting.", "Beta is tested on DataOne for sorting."),
    ]
    # Claims holding a mention of Beta: P1's sentence 3 and P2's sentence 2. None holds sorting.
    answer = ask(tiny, "claims-mentioning", {"concept": "beta"})
    assert rows(answer, "paperLabel", "sentence", "mentionedAs") == [
        ("Alpha Sorting", "Alpha beats Beta on DataOne.", "Beta"),
        ("Beta Study", "We introduce Beta.", "Beta"),
    ]
    assert ask(tiny, "claims-mentioning", {"concept": "sorting"}).rows == ()
    # DataOne is in P1 (Ann Lee, Bob Ray) and P2 (Bob Ray).
    answer = ask(tiny, "authors-on-concept", {"concept": "DataOne"})
    assert rows(answer, "name", "papers", "evidencePaper") == [("Bob Ray", 2, P1), ("Ann Lee", 1, P1)]
    # Papers naming DataOne: P1 (Alpha, Beta, sorting) and P2 (Beta, sorting).
    answer = ask(tiny, "cooccurring-concepts", {"concept": "DataOne"})
    assert rows(answer, "otherLabel", "papers") == [("Beta", 2), ("sorting", 2), ("Alpha", 1)]
    # Alpha's evidence with DataOne is the first sentence naming both (P1, sentence 2).
    (alpha,) = [r for r in ask(tiny, "cooccurring-concepts", {"concept": "Alpha"}).records() if r["otherLabel"] == "DataOne"]
    assert (alpha["papers"], alpha["evidenceSentence"]) == (1, "Alpha is evaluated on DataOne.")


def test_evidence_columns_are_dropped_on_request_and_limit_keeps_the_first_rows(tiny):
    full = ask(tiny, "methods-on-dataset", {"dataset": "DataOne"})
    bare = ask(tiny, "methods-on-dataset", {"dataset": "DataOne"}, evidence=False, limit=1)
    assert "evidenceSentence" in full.columns and not any(c.startswith("evidence") for c in bare.columns)
    assert bare.rows == (full.rows[0][: len(bare.columns)],)


def test_names_that_match_nothing_are_errors_with_close_matches(tiny):
    with pytest.raises(UnknownConceptError, match="no concept is called 'Alpah'.*did you mean 'Alpha'"):
        ask(tiny, "papers-mentioning", {"concept": "Alpah"})
    with pytest.raises(UnknownPaperError, match="did you mean 'Beta Study'"):
        ask(tiny, "paper-proposes", {"paper": "beta"})
    with pytest.raises(UnknownAuthorError, match="no author is called 'Bob Roy'.*'Bob Ray'"):
        ask(tiny, "papers-of-author", {"author": "Bob Roy"})
    with pytest.raises(ParameterError, match="needs other") as caught:
        ask(tiny, "shared-concepts", {"paper": "Beta Study", "paperr": "x"})
    assert caught.value.missing == ["other"] and caught.value.unknown == ["paperr"]


def test_a_hostile_value_is_only_a_string(tiny):
    before = len(tiny)
    with pytest.raises(UnknownConceptError):
        ask(tiny, "papers-mentioning", {"concept": HOSTILE})
    # a parameter with no declared kind is bound and run as it is: no match, nothing changed
    assert ask(tiny, "papers-in-category", {"category": HOSTILE}).rows == ()
    assert len(tiny) == before


def test_header_kinds_are_parsed_and_old_headers_still_load(tmp_path):
    path = tmp_path / "q.rq"
    path.write_text("# Which?\n# param a (concept): one\n# param b: two\n# A note.\nSELECT ?a ?b WHERE {}\n")
    query = load_query_file(path)
    assert query.params == {"a": "one", "b": "two"} and query.kinds == {"a": "concept"} and query.notes == "A note."
    path.write_text("# Which?\n# param a (colour): one\nSELECT ?a WHERE {}\n")
    with pytest.raises(QueryError, match="kind 'colour'"):
        load_query_file(path)
    assert find_query("papers-in-category").kinds == {} and find_query("coauthors").kinds == {"author": "author"}


def test_relation_queries_project_evidence_and_declare_their_kinds():
    for name in NEW_QUERIES:
        query = find_query(name)
        assert query.params and set(query.kinds) == set(query.params), name
        assert "?evidencePaper" in query.sparql and "?evidenceSentence" in query.sparql, name
    assert {q.name for q in list_queries()} >= set(NEW_QUERIES)


# --- the shipped corpus -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(extracted_store):
    return open_store(extracted_store)


def test_methods_evaluated_on_waymo(corpus):
    # LoRA3D: "We evaluated our method on more than 160 scenes from the Replica, TUM and Waymo Open
    # datasets"; OmniRe: "Extensive evaluations on the Waymo dataset show that our approach ...".
    answer = ask(corpus, "methods-on-dataset", {"dataset": "Waymo"})
    assert set(rows(answer, "methodLabel", "paperLabel")) == {("LoRA3D", LORA3D), ("OmniRe", OMNIRE)}
    assert set(answer.column("datasetLabel")) == {"Waymo Open Dataset"}


def test_what_the_lora3d_paper_proposes(corpus):
    # "To address this, we propose LoRA3D, an efficient self-calibration pipeline ..." (its only coinage)
    answer = ask(corpus, "paper-proposes", {"paper": LORA3D.lower()})
    # The recogniser also marks the apposition that describes it ("self-calibration pipeline"); never LoRA, which it applies.
    assert ("LoRA3D", "Method") in rows(answer, "conceptLabel", "type") and ("LoRA", "Method") not in rows(answer, "conceptLabel", "type")
    assert answer.records()[0]["evidenceSentence"].startswith("To address this, we propose LoRA3D")


def test_a_paper_is_found_by_its_iri_bare_or_in_brackets(corpus):
    by_title = rows(ask(corpus, "paper-proposes", {"paper": LORA3D}), "conceptLabel", "evidencePaper")
    iri = by_title[0][1]
    assert rows(ask(corpus, "paper-proposes", {"paper": iri}), "conceptLabel", "evidencePaper") == by_title
    assert rows(ask(corpus, "paper-proposes", {"paper": f"<{iri}>"}), "conceptLabel", "evidencePaper") == by_title
    with pytest.raises(UnknownPaperError):
        ask(corpus, "paper-proposes", {"paper": iri + "0"})


def test_concepts_shared_by_lora3d_and_omnire(corpus):
    # Both are evaluated on Waymo; LoRA (low-rank adaptation) is only in the LoRA3D abstract.
    concepts = set(ask(corpus, "shared-concepts", {"paper": LORA3D, "other": OMNIRE}).column("conceptLabel"))
    assert "Waymo Open Dataset" in concepts and "LoRA" not in concepts


def test_claims_mentioning_waymo(corpus):
    # Both Waymo sentences state results ("achieving up to 88% performance improvement", "show that
    # our approach outperforms ..."), and each names Waymo inside the claim.
    answer = ask(corpus, "claims-mentioning", {"concept": "Waymo Open Dataset"})
    claims = dict(rows(answer, "paperLabel", "sentence"))
    assert set(claims) == {LORA3D, OMNIRE}
    assert "Waymo Open datasets" in claims[LORA3D] and "Waymo dataset" in claims[OMNIRE]


def test_authors_on_waymo(corpus):
    # LoRA3D has 7 authors and OmniRe 12; Boris Ivanovic, Marco Pavone and Yue Wang are on both.
    answer = ask(corpus, "authors-on-concept", {"concept": "waymo"})
    counts = dict(rows(answer, "name", "papers"))
    assert {a for a, n in counts.items() if n == 2} == {"Boris Ivanovic", "Marco Pavone", "Yue Wang"}
    assert len(counts) == 7 + 12 - 3


def test_cli_hides_evidence_unless_asked(run, extracted_store):
    sentence = "Extensive evaluations on the Waymo dataset"
    code, out, err = run("ask", "methods-on-dataset", "--dataset", "Waymo", "--store", extracted_store)
    assert code == 0, err
    assert "OmniRe" in out and sentence not in out and "evidence" not in out and out.rstrip().endswith("(2 rows)")
    code, out, _ = run("ask", "--evidence", "methods-on-dataset", "--dataset=Waymo", "--store", extracted_store, "--format", "json")
    records = json.loads(out)
    assert code == 0 and {r["evidencePaper"] for r in records} == {
        "https://w3id.org/kg/paper/d71e16807b37c59b",
        "https://w3id.org/kg/paper/31bae5f2cb7d25a8",
    }
    assert any(r["evidenceSentence"].startswith(sentence) for r in records)


def test_cli_unknown_concept_is_exit_2_with_a_suggestion(run, extracted_store):
    code, out, err = run("ask", "methods-on-dataset", "--dataset", "Waymoo", "--store", extracted_store)
    assert code == 2 and out == ""
    assert err.startswith("kg: error: no concept is called 'Waymoo'") and "did you mean 'Waymo'" in err and err.count("\n") == 1


def test_cli_hostile_value_matches_nothing_and_changes_nothing(run, extracted_store):
    before = len(open_store(extracted_store))
    code, _, err = run("ask", "papers-mentioning", "--concept", HOSTILE, "--store", extracted_store)
    assert code == 2 and "no concept is called" in err
    code, out, _ = run("ask", "papers-in-category", "--category", HOSTILE, "--store", extracted_store, "--format", "csv")
    assert code == 0 and out == "category,paper,label,subject\n"
    assert len(open_store(extracted_store)) == before


@pytest.mark.parametrize(
    "args, message",
    [
        (("methods-on-dataset",), "missing --dataset: methods-on-dataset takes --dataset VALUE"),
        (("methods-on-dataset", "--dataset", "Waymo", "--colour", "red"), "unknown --colour"),
        (("methods-on-dataset", "--dataset"), "--dataset needs a value"),
        ((), "name a question"),
    ],
)
def test_cli_parameter_mistakes_are_usage_errors(run, extracted_store, args, message):
    code, out, err = run("ask", *args, "--store", extracted_store)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_cli_list_describes_every_question(run):
    code, out, _ = run("ask", "--list")
    assert code == 0
    for query in list_queries():
        assert f"{query.name}: {query.question}" in out
    assert "--dataset CONCEPT" in out and "--paper PAPER" in out and "--other PAPER" in out
