"""kg_relation_model (kg/extract/components/relation_model.py): candidate pairs,
the shipped weights on hand-made sentences, and loading and saving weights."""

from __future__ import annotations

import json

import pytest

from kg.errors import ModelError
from kg.extract.components.relation_model import (
    DEFAULT_WEIGHTS,
    LABELS,
    RELATION_SIGNATURES,
    RelationModel,
    candidates,
    feature_matrix,
    to_input,
)
from kg.extract.spans import ConceptSpan, RelationSpan


@pytest.fixture(scope="module")
def nlp():
    from kg.extract.model import load_english

    return load_english()


@pytest.fixture(scope="module")
def shipped():
    return RelationModel.load(DEFAULT_WEIGHTS)


def concepts_of(text: str, names: list[tuple[str, str]]) -> list[ConceptSpan]:
    """A ConceptSpan for the first occurrence of each (name, type), in text order."""
    found = [ConceptSpan(text.index(n), text.index(n) + len(n), t, n, 0.9, "test") for n, t in names]
    return sorted(found)


def run(model, nlp, text, names):
    doc = nlp(text)
    doc._.kg_concepts = concepts_of(text, names)
    doc = model(doc)
    concepts = doc._.kg_concepts
    return {(concepts[r.head].label, r.relation, concepts[r.tail].label) for r in doc._.kg_relations}, doc


def test_candidates_are_typed_pairs_within_one_sentence(nlp):
    text = "We evaluate FooNet on BarSet with accuracy. BazNet is applied to parsing and also uses FooNet."
    doc = nlp(text)
    assert len(list(doc.sents)) == 2
    concepts = concepts_of(
        text, [("FooNet", "Method"), ("BarSet", "Dataset"), ("accuracy", "Metric"), ("BazNet", "Method"), ("parsing", "Task")]
    )
    concepts.append(ConceptSpan(text.rindex("FooNet"), text.rindex("FooNet") + 6, "Method", "FooNet", 0.9, "test"))
    label = {i: c.label for i, c in enumerate(concepts)}
    pairs = {(label[c.head], label[c.tail]) for c in candidates(doc, concepts)}
    # Sentence 1: only Method -> Dataset fits a signature (nothing relates a Metric, nor a Dataset to a Method).
    # Sentence 2: each method -> parsing (usedFor) and both orders of the two methods (uses is directed);
    # no pair reaches across the sentences (the first FooNet with parsing, BarSet with BazNet).
    assert pairs == {("FooNet", "BarSet"), ("BazNet", "parsing"), ("FooNet", "parsing"), ("BazNet", "FooNet"), ("FooNet", "BazNet")}
    boundary = text.index(".")
    assert all((concepts[c.head].start < boundary) == (concepts[c.tail].start < boundary) for c in candidates(doc, concepts))
    allowed = set(RELATION_SIGNATURES.values())
    assert all((concepts[c.head].type, concepts[c.tail].type) in allowed for c in candidates(doc, concepts))


def test_two_mentions_of_one_label_are_no_pair(nlp):
    text = "FooNet and FooNet again."
    doc = nlp(text)
    concepts = [ConceptSpan(0, 6, "Method", "FooNet", 0.9, "test"), ConceptSpan(11, 17, "Method", "FooNet", 0.9, "test")]
    assert candidates(doc, concepts) == []


def test_shipped_weights_find_evaluated_on(nlp, shipped):
    found, doc = run(shipped, nlp, "We evaluate FooNet on the ImageNet dataset.", [("FooNet", "Method"), ("ImageNet", "Dataset")])
    assert ("FooNet", "evaluatedOn", "ImageNet") in found
    [relation] = [RelationSpan(*r) for r in doc._.kg_relations]
    assert relation.source == "kg_relation_model" and 0.0 < relation.confidence <= 1.0
    assert (relation.start, relation.end) == (0, len(doc.text))  # the evidence is the sentence


def test_shipped_weights_read_the_sentence_not_the_names(nlp, shipped):
    pairs = [("FooNet", "Method"), ("BarSet", "Dataset")]
    evaluated, _ = run(shipped, nlp, "Experiments on BarSet show that FooNet improves accuracy.", pairs)
    assert ("FooNet", "evaluatedOn", "BarSet") in evaluated
    trained, _ = run(shipped, nlp, "FooNet is pretrained on BarSet and then fine-tuned.", pairs)
    assert ("FooNet", "trainedOn", "BarSet") in trained


def test_compared_with_is_written_once_head_first(nlp, shipped):
    found, _ = run(shipped, nlp, "We compare FooNet with BarNet.", [("FooNet", "Method"), ("BarNet", "Method")])
    assert ("BarNet", "comparedWith", "FooNet") not in found


def test_keep_rules_keeps_those_types_from_the_rules(nlp, shipped):
    text = "We evaluate FooNet on BarSet."
    doc = nlp(text)
    doc._.kg_concepts = concepts_of(text, [("FooNet", "Method"), ("BarSet", "Dataset")])
    rule = RelationSpan(0, "evaluatedOn", 1, 0, len(text), 0.7, "kg_relations#evaluatedOn")
    doc._.kg_relations = [rule]
    keeping = RelationModel.load(DEFAULT_WEIGHTS, keep_rules=["evaluatedOn"])
    assert [RelationSpan(*r) for r in keeping(doc)._.kg_relations] == [rule]
    doc._.kg_relations = [rule]
    assert all(RelationSpan(*r).source == "kg_relation_model" for r in shipped(doc)._.kg_relations)


def test_keep_own_method_keeps_the_rules_relations_of_a_method_named_elsewhere(nlp):
    text = "We propose FooNet. Our method is evaluated on BarSet."
    doc = nlp(text)
    doc._.kg_concepts = concepts_of(text, [("FooNet", "Method"), ("BarSet", "Dataset")])
    second = text.index("Our")
    own = RelationSpan(0, "evaluatedOn", 1, second, len(text), 0.7, "kg_relations#evaluatedOn")  # FooNet is not in that sentence
    doc._.kg_relations = [own]
    assert RelationModel.load(DEFAULT_WEIGHTS, keep_own_method=True)(doc)._.kg_relations == [own]
    doc._.kg_relations = [own]
    assert RelationModel.load(DEFAULT_WEIGHTS)(doc)._.kg_relations == []  # the model sees no pair in that sentence


def test_no_concepts_no_relations(nlp, shipped):
    doc = nlp("Nothing to see here.")
    doc._.kg_concepts = []
    assert shipped(doc)._.kg_relations == []


def test_missing_weights_are_a_model_error(tmp_path):
    with pytest.raises(ModelError, match="cannot load the relation model") as caught:
        RelationModel.load(tmp_path / "nowhere")
    assert "\n" not in str(caught.value)


def test_damaged_weights_are_a_model_error(tmp_path):
    RelationModel.new(hash_size=64, hidden=8).to_disk(tmp_path)
    data = (tmp_path / "model.bin").read_bytes()
    (tmp_path / "model.bin").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="damaged") as caught:
        RelationModel.load(tmp_path)
    assert "\n" not in str(caught.value)
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelError, match="cannot load"):
        RelationModel.load(tmp_path)


def test_weights_for_other_labels_are_refused(tmp_path):
    RelationModel.new(hash_size=64, hidden=8).to_disk(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    config["labels"] = config["labels"][:-1]
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelError, match="other features or labels"):
        RelationModel.load(tmp_path)


def test_to_disk_from_disk_round_trip(tmp_path, nlp, shipped):
    text = "We evaluate FooNet on BarSet and compare it with BazNet for parsing."
    doc = nlp(text)
    concepts = concepts_of(text, [("FooNet", "Method"), ("BarSet", "Dataset"), ("BazNet", "Method"), ("parsing", "Task")])
    found = candidates(doc, concepts)
    dense, hashed = feature_matrix(doc, concepts, found, shipped.hash_size)
    inputs = to_input(dense, hashed, shipped.hash_size)
    pairs = [(concepts[c.head].type, concepts[c.tail].type) for c in found]
    shipped.to_disk(tmp_path / "copy")
    fresh = RelationModel.new(hash_size=64, hidden=8).from_disk(tmp_path / "copy")
    assert fresh.thresholds == shipped.thresholds
    assert (fresh.probabilities(inputs, pairs) == shipped.probabilities(inputs, pairs)).all()
    assert fresh.probabilities(inputs, pairs).shape == (len(found), len(LABELS))


def test_the_factory_loads_the_shipped_weights(nlp):
    import spacy

    import kg.extract.components  # noqa: F401

    pipeline = spacy.blank("en")
    assert pipeline.add_pipe("kg_relation_model").hash_size > 0
