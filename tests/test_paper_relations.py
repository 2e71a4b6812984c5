"""kg_paper_relations (kg/extract/components/paper_relations.py): relations of the
paper's own method across sentences, on hand-made abstracts parsed by the pinned
English pipeline, and the triple scoring of kg/training/paper_relations.py."""

from __future__ import annotations

import pytest

from kg.extract.components.paper_relations import (
    COMPONENT,
    RULES,
    PaperRelationFinder,
    head_method,
)
from kg.extract.spans import ConceptSpan, RelationSpan


@pytest.fixture(scope="module")
def nlp():
    from kg.extract.model import load_english

    return load_english()


def mentions(text: str, names: list[tuple[str, str, bool]]) -> list[ConceptSpan]:
    """A ConceptSpan for every occurrence of each (name, type, proposed), in text order."""
    found = []
    for name, kind, proposed in names:
        start = text.find(name)
        while start >= 0:
            found.append(ConceptSpan(start, start + len(name), kind, name, 1.0, "test", proposed))
            start = text.find(name, start + 1)
    return sorted(found)


def run(nlp, text, names, relations=()):
    doc = nlp(text)
    doc._.kg_concepts = mentions(text, names)
    doc._.kg_relations = list(relations)
    doc = PaperRelationFinder()(doc)
    concepts = doc._.kg_concepts
    found = {(concepts[r.head].label, r.relation, concepts[r.tail].label): r for r in map(RelationSpan._make, doc._.kg_relations)}
    return found, doc


def sentence_of(doc, relation: RelationSpan) -> str:
    return doc.text[relation.start : relation.end]


def test_datasets_named_in_another_sentence_than_the_method(nlp):
    text = "We propose FooNet, a graph network. Experiments on BarSet and BazSet show large gains."
    found, doc = run(nlp, text, [("FooNet", "Method", True), ("BarSet", "Dataset", False), ("BazSet", "Dataset", False)])
    assert set(found) == {("FooNet", "evaluatedOn", "BarSet"), ("FooNet", "evaluatedOn", "BazSet")}
    for relation in found.values():
        # The supporting sentence is the one naming the dataset, not the one naming the method.
        assert sentence_of(doc, relation) == "Experiments on BarSet and BazSet show large gains."
        assert relation.source == f"{COMPONENT}#dataset"
        assert relation.confidence == RULES["dataset"]
        assert doc._.kg_concepts[relation.head].label == "FooNet"


def test_tasks_and_methods_it_builds_on(nlp):
    text = (
        "Graph parsing is hard. We introduce FooNet for graph parsing. "
        "FooNet is trained with contrastive learning. FooNet outperforms BarNet on three benchmarks."
    )
    found, _ = run(
        nlp,
        text,
        [
            ("FooNet", "Method", True),
            ("graph parsing", "Task", False),
            ("Graph parsing", "Task", False),
            ("contrastive learning", "Method", False),
            ("BarNet", "Method", False),
        ],
    )
    assert ("FooNet", "usedFor", "graph parsing") in found
    assert ("FooNet", "uses", "contrastive learning") in found
    assert found[("FooNet", "uses", "contrastive learning")].source == f"{COMPONENT}#method-used-with"
    # A method the paper's method is only compared against is a baseline, not something it uses.
    assert ("FooNet", "uses", "BarNet") not in found


def test_a_method_only_in_the_background_is_not_used(nlp):
    text = "Existing systems rely on BarNet, which is slow. We propose FooNet. FooNet runs fast on BarSet."
    found, _ = run(nlp, text, [("FooNet", "Method", True), ("BarNet", "Method", False), ("BarSet", "Dataset", False)])
    assert ("FooNet", "uses", "BarNet") not in found
    assert ("FooNet", "evaluatedOn", "BarSet") in found


def test_relations_already_found_in_a_sentence_are_not_repeated(nlp):
    text = "We propose FooNet. Experiments on BarSet show gains."
    names = [("FooNet", "Method", True), ("BarSet", "Dataset", False)]
    fresh, _ = run(nlp, text, names)
    assert ("FooNet", "evaluatedOn", "BarSet") in fresh
    # The same relation from a sentence-level component (its own head and tail mentions, indexes 0 and 1).
    earlier = RelationSpan(0, "evaluatedOn", 1, 19, len(text), 0.8, "kg_relation_model")
    _, doc = run(nlp, text, names, relations=[earlier])
    assert [RelationSpan(*r) for r in doc._.kg_relations] == [earlier]


def test_a_dataset_the_paper_introduces_needs_an_evaluation_sentence(nlp):
    names = [("FooNet", "Method", True), ("FooBench", "Dataset", True)]
    found, _ = run(nlp, "We propose FooNet and release FooBench, a corpus of forms.", names)
    assert not found
    found, _ = run(nlp, "We propose FooNet and FooBench. We evaluate FooNet on FooBench and it scores well.", names)
    assert set(found) == {("FooNet", "evaluatedOn", "FooBench")}
    assert next(iter(found.values())).source == f"{COMPONENT}#own-dataset-evaluated"


def test_no_proposed_method_no_paper_relations(nlp):
    text = "BarNet is evaluated on BarSet. Experiments on BazSet follow."
    found, doc = run(nlp, text, [("BarNet", "Method", False), ("BarSet", "Dataset", False), ("BazSet", "Dataset", False)])
    assert not found and doc._.kg_relations == []


def test_the_head_is_the_proposed_method_mentioned_most():
    def c(start, label, proposed=True, kind="Method"):
        return ConceptSpan(start, start + 3, kind, label, 1.0, "test", proposed)

    # "Aux" comes first but "Main" is mentioned twice; "Other" is not proposed.
    concepts = [c(0, "Aux"), c(10, "Main"), c(20, "Other", proposed=False), c(30, "Main")]
    assert head_method(concepts) == 1
    # On a tie, the earliest; a proposed Dataset is never the head.
    assert head_method([c(0, "Bench", kind="Dataset"), c(10, "B"), c(20, "A")]) == 1
    assert head_method([c(0, "Other", proposed=False)]) is None


def test_triple_scores_per_kind():
    from kg.training.paper_relations import score_triples

    gold = {("p", "evaluatedOn", "D"), ("p", "evaluatedOn", "E"), ("p", "usedFor", "T")}
    predicted = {("p", "evaluatedOn", "D"), ("p", "uses", "M")}
    scores = score_triples(gold, predicted)
    # evaluatedOn: 1 of 1 predicted right, 1 of 2 gold found; uses: 0 of 1; all: 1 of 2 predicted, 1 of 3 gold.
    assert (scores["evaluatedOn"].precision, scores["evaluatedOn"].recall) == (1.0, 0.5)
    assert scores["uses"].precision == 0.0 and scores["usedFor"].recall == 0.0
    assert (scores["all"].precision, scores["all"].recall) == (0.5, pytest.approx(1 / 3))
