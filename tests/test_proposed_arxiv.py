"""kg_proposed on recent-arXiv phrasing (issue 19, item 4): proposed is what a
paper introduces, never what it applies.

The marker runs here on hand-written sentences with their concepts given (as
the gold-concept measurement runs it), so these tests check kg_proposed
alone, whatever the concept stage finds.
"""

from __future__ import annotations

import json
import re

import pytest

import kg.extract.components  # noqa: F401  (the Doc extensions)
from kg.extract.components.proposed import (
    DEFAULT_WEIGHTS,
    ProposedMarker,
    ProposedModel,
    introduced_names,
    known_names,
    label_features,
)
from kg.extract.model import load_english
from kg.extract.spans import ConceptSpan
from kg.training.proposed import fit, score_marker


@pytest.fixture(scope="module")
def english():
    return load_english()


@pytest.fixture(scope="module")
def marker():
    return ProposedMarker(ProposedModel.load(DEFAULT_WEIGHTS), known_names())


def with_concepts(doc, names: dict[str, str]):
    """Every whole-word occurrence of each name (-> type) as a concept labelled by the name."""
    concepts = []
    for name, kind in names.items():
        for match in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", doc.text):
            concepts.append(ConceptSpan(match.start(), match.end(), kind, name, 1.0, "test"))
    doc._.kg_concepts = sorted(concepts)
    return doc


def proposed(marker, english, text: str, names: dict[str, str]) -> set[str]:
    doc = marker(with_concepts(english(text), names))
    return {c.label for c in map(lambda t: ConceptSpan(*t), doc._.kg_concepts) if c.proposed}


def test_what_a_paper_applies_is_not_proposed(marker, english):
    text = "We fine-tune Llama-3 with LoRA on medical dialogues."
    assert proposed(marker, english, text, {"Llama-3": "Method", "LoRA": "Method"}) == set()


def test_only_the_new_method_is_proposed_when_it_extends_another(marker, english):
    text = "We propose SparseLoRA, which extends LoRA with sparse updates. SparseLoRA halves the memory of fine-tuning."
    assert proposed(marker, english, text, {"SparseLoRA": "Method", "LoRA": "Method"}) == {"SparseLoRA"}


def test_a_named_new_benchmark_is_proposed(marker, english):
    text = "We introduce PhysBench, a novel benchmark for physical understanding. Models are evaluated on MMLU and PhysBench."
    assert proposed(marker, english, text, {"PhysBench": "Dataset", "MMLU": "Dataset"}) == {"PhysBench"}


def test_a_framework_built_on_an_llm_does_not_propose_the_llm(marker, english):
    text = "We present ShortageSim, the first large language model-based simulation framework for drug shortages."
    assert proposed(marker, english, text, {"ShortageSim": "Method", "large language model": "Method"}) == {"ShortageSim"}


def test_applying_verbs_never_propose_even_when_the_model_would(english):
    # A model that calls every coined name proposed: the veto still holds for
    # a name the text only uses.
    eager = ProposedMarker(ProposedModel({"shape:coined": 10.0}, bias=-1.0, threshold=0.5))
    text = "We use GraphX-Net to encode the molecules."
    assert proposed(eager, english, text, {"GraphX-Net": "Method"}) == set()
    assert proposed(eager, english, "GraphX-Net encodes the molecules.", {"GraphX-Net": "Method"}) == {"GraphX-Net"}


def test_cues_of_modifiers_parts_and_descriptions(english):
    doc = with_concepts(english("We propose a new authentication method. It is fast."), {"authentication": "Task"})
    assert "modifier" in label_features(doc, [ConceptSpan(*c) for c in doc._.kg_concepts])["authentication"]
    text = "We propose CivicNet. CivicNet introduces two components: a semantic firewall and a consensus verifier."
    doc = with_concepts(english(text), {"CivicNet": "Method", "semantic firewall": "Method"})
    feats = label_features(doc, [ConceptSpan(*c) for c in doc._.kg_concepts])
    assert "introduced-object" in feats["CivicNet"]
    assert {"part-of-proposed", "parts-list"} <= feats["semantic firewall"]
    doc = with_concepts(english("We introduce A4Net, a deep representation network for images."), {"deep representation network": "Method"})
    assert "describes-name" in label_features(doc, [ConceptSpan(*c) for c in doc._.kg_concepts])["deep representation network"]


def test_introduced_names_keep_their_type_hint(english):
    # kg_concepts reads these names and hints; the marker's model left them as they were.
    doc = english("We introduce PhysBench, a comprehensive benchmark. We propose LoRA3D, an efficient pipeline.")
    assert [(span.text, hint, rule) for span, hint, rule in introduced_names(doc)] == [
        ("PhysBench", "Dataset", "we-propose"),
        ("LoRA3D", "Method", "we-propose"),
    ]


def test_the_shipped_weights_say_what_they_were_trained_on():
    data = json.loads(DEFAULT_WEIGHTS.read_text(encoding="utf-8"))
    assert "train.jsonl" in data["trained_on"] and "test" not in data["trained_on"]
    assert 0 < data["threshold"] < 1 and data["weights"]["introduced-object"] > 0


def test_fit_learns_which_cue_marks_proposed_labels():
    # Four labels: the two with "introduced-object" are proposed, the two with "applied-object" are not.
    examples = [
        ("a", "X", {"introduced-object"}, True),
        ("b", "Y", {"introduced-object"}, True),
        ("a", "L", {"applied-object"}, False),
        ("b", "M", {"applied-object"}, False),
    ]
    model = fit(examples, l2=0.001, epochs=200)
    assert model.weights["introduced-object"] > 0 > model.weights["applied-object"]
    assert model.score({"introduced-object"}) > 0.5 > model.score({"applied-object"})
    again = ProposedModel(**{k: v for k, v in model.to_dict().items()})
    assert again.score({"introduced-object"}) == model.score({"introduced-object"})


def test_score_marker_counts_labels_on_gold_concepts(marker, english):
    text = "We propose SparseLoRA, which extends LoRA. SparseLoRA is fast."
    record = {
        "id": "x",
        "concepts": [
            {"start": 11, "end": 21, "type": "Method", "label": "SparseLoRA", "proposed": True},
            {"start": 37, "end": 41, "type": "Method", "label": "LoRA", "proposed": False},
            {"start": 43, "end": 53, "type": "Method", "label": "SparseLoRA", "proposed": True},
        ],
    }
    assert [text[c["start"] : c["end"]] for c in record["concepts"]] == ["SparseLoRA", "LoRA", "SparseLoRA"]
    errors: list = []
    score = score_marker(marker, [record], [english(text)], gold=True, errors=errors)
    # One gold proposed label (SparseLoRA), found, and nothing else marked.
    assert (score.gold, score.predicted, score.f1) == (1, 1, 1.0) and errors == []
