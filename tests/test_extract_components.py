"""Each kg_* component on hand-built sentences (rules only: no trained weights,
so these answers do not move when the models are retrained)."""

import pytest

from kg.extract.components.acronyms import best_long_form, find_acronyms, looks_like_short_form
from kg.extract.components.concepts import RULE_SPANS_KEY
from kg.extract.components.labels import canonical_label, is_plain_phrase
from kg.extract.pipeline import build_nlp
from kg.extract.spans import ConceptSpan, RelationSpan


@pytest.fixture(scope="module")
def nlp():
    return build_nlp(concepts="rules", use_claims=False)


def concepts(doc):
    return [(doc.text[c.start : c.end], c.type, c.label, c.proposed) for c in map(lambda t: ConceptSpan(*t), doc._.kg_concepts)]


def relations(doc):
    found = [ConceptSpan(*c) for c in doc._.kg_concepts]
    return {(found[r.head].label, r.relation, found[r.tail].label) for r in map(lambda t: RelationSpan(*t), doc._.kg_relations)}


# -- kg_acronyms ---------------------------------------------------------------


@pytest.mark.parametrize(
    "short, window, expected",
    [
        ("OOD", "models that detect out-of-distribution", "out-of-distribution"),
        ("PPCA", "is Probabilistic Principal Component Analysis", "Probabilistic Principal Component Analysis"),
        ("LLMs", "such as Large Language Models", "Large Language Models"),
        ("HYPO", "HYPerspherical OOD generalization", "HYPerspherical OOD generalization"),
        ("GOAT", "goAl-condiTioned RL", "goAl-condiTioned RL"),
        ("XYZ", "nothing to see here", None),
    ],
)
def test_long_forms(short, window, expected):
    assert best_long_form(short, window) == expected


def test_short_form_shape():
    assert looks_like_short_form("LoRA") and looks_like_short_form("R-NCE")
    assert not looks_like_short_form("i.e.") and not looks_like_short_form("2023") and not looks_like_short_form("see Fig")


def test_definitions_both_ways(nlp):
    doc = nlp("We fine-tune with low-rank adaptation (LoRA). We propose HYPO (HYPerspherical OOD generalization) for this.")
    found = {(a.short, a.long) for a in find_acronyms(doc)}
    assert found == {("LoRA", "low-rank adaptation"), ("HYPO", "HYPerspherical OOD generalization")}


# -- labels ----------------------------------------------------------------------


def test_plain_phrases_and_coined_names():
    assert is_plain_phrase("Large Language Models") and is_plain_phrase("out-of-distribution")
    assert not is_plain_phrase("HYPerspherical OOD generalization")


def test_canonical_labels(nlp):
    doc = nlp("Out-of-Distribution (OOD) generalization matters. Diffusion models and LLMs use the Waymo Open dataset.")
    assert canonical_label(doc[0:9]) == "out-of-distribution generalization"
    assert canonical_label(doc[11:13]) == "diffusion model"
    assert canonical_label(doc[14:15]) == "LLM"
    assert canonical_label(doc[17:20]) == "Waymo Open dataset"


# -- kg_concepts -----------------------------------------------------------------


def test_spelling_variants_of_one_task_share_a_label(nlp):
    doc = nlp(
        "Out-of-distribution (OOD) generalization is hard. We study OOD generalization "
        "and out-of-distribution generalizations of neural networks."
    )
    labels = {label for text, kind, label, _ in concepts(doc) if kind == "Task"}
    assert labels == {"out-of-distribution generalization"}


def test_lexicon_names_datasets_and_metrics(nlp):
    doc = nlp("We train on ImageNet and CIFAR-10 and report AUROC and FPR95 for GPT-4.")
    assert {(t, k) for t, k, _, _ in concepts(doc)} == {
        ("ImageNet", "Dataset"),
        ("CIFAR-10", "Dataset"),
        ("AUROC", "Metric"),
        ("FPR95", "Metric"),
        ("GPT-4", "Method"),
    }


def test_lexicon_terms_match_in_any_case_and_names_only_as_written(nlp):
    # "domain generalization" is a lower-case lexicon term; "CLIP" a name, and "clip" a word
    def ruled(text):
        doc = nlp(text)
        return {(s.text, s.id_) for s in doc.spans[RULE_SPANS_KEY] if s.id_.startswith("lexicon:")}

    assert ("Domain Generalization", "lexicon:domain generalization") in ruled("Domain Generalization with CLIP features.")
    assert ("CLIP", "lexicon:CLIP") in ruled("Domain Generalization with CLIP features.")
    assert not any(text == "clip" for text, _ in ruled("We clip the gradients for domain generalization."))


def test_named_datasets_and_their_coordination(nlp):
    doc = nlp("We evaluated our method on scenes from the Replica, TUM and Waymo Open datasets.")
    assert {(t, k) for t, k, _, _ in concepts(doc)} == {("Replica", "Dataset"), ("TUM", "Dataset"), ("Waymo Open", "Dataset")}


def test_generic_phrases_are_not_concepts(nlp):
    doc = nlp("Our approach outperforms existing methods and the proposed framework on several benchmarks.")
    assert concepts(doc) == []


def test_head_nouns_with_specific_modifiers(nlp):
    doc = nlp("We study knowledge distillation for semantic segmentation with diffusion models.")
    assert {(t, k) for t, k, _, _ in concepts(doc)} == {
        ("knowledge distillation", "Method"),
        ("semantic segmentation", "Task"),
        ("diffusion models", "Method"),
    }


def test_acronym_and_long_form_are_one_concept(nlp):
    doc = nlp("We fine-tune the models using low-rank adaptation (LoRA) on pseudo labels. LoRA is cheap.")
    found = [(t, label) for t, _, label, _ in concepts(doc)]
    assert found == [("low-rank adaptation", "LoRA"), ("LoRA", "LoRA"), ("LoRA", "LoRA")]


def test_a_possessive_before_the_short_form_is_not_part_of_the_long_form(nlp):
    doc = nlp("These are tools for guiding large language models' (LLMs) behavior in practice.")
    assert [(a.short, a.long) for a in doc._.kg_acronyms] == [("LLMs", "large language models")]
    assert [(t, label) for t, _, label, _ in concepts(doc)] == [
        ("large language models", "large language model"),
        ("LLMs", "large language model"),
    ]


def test_stop_acronyms_and_units_are_not_concepts(nlp):
    doc = nlp("Each adapter needs 18 MB on one GPU, far from AI hype.")
    assert concepts(doc) == []


# -- kg_proposed -----------------------------------------------------------------


def test_proposed_names_and_their_type(nlp):
    doc = nlp("We introduce PhysBench, a comprehensive benchmark for physical understanding. PhysBench has 10,002 entries.")
    found = concepts(doc)
    assert [(t, k, p) for t, k, _, p in found if t == "PhysBench"] == [("PhysBench", "Dataset", True)] * 2


def test_we_propose_and_a_novel(nlp):
    doc = nlp("We propose LoRA3D, an efficient self-calibration pipeline. It builds on DUSt3R. DiSK, a novel framework, helps.")
    proposed = {t for t, _, _, p in concepts(doc) if p}
    assert proposed == {"LoRA3D", "DiSK"}


# -- kg_relations ----------------------------------------------------------------


def test_evaluated_on_with_our_method_standing_for_the_proposed_one(nlp):
    doc = nlp("We propose LoRA3D, a pipeline. We evaluated our method on the Replica and Waymo Open datasets.")
    assert relations(doc) >= {("LoRA3D", "evaluatedOn", "Replica"), ("LoRA3D", "evaluatedOn", "Waymo Open Dataset")}


def test_outperforms_and_uses(nlp):
    doc = nlp("We propose OmniRe. OmniRe uses Gaussian Splatting. OmniRe outperforms NeRF on driving scenes.")
    assert relations(doc) >= {("OmniRe", "uses", "3D Gaussian Splatting"), ("OmniRe", "outperforms", "NeRF")}


def test_used_for(nlp):
    doc = nlp("We propose MetaOOD, a framework for OOD detection.")
    assert ("MetaOOD", "usedFor", "OOD detection") in relations(doc) or (
        "MetaOOD",
        "usedFor",
        "out-of-distribution detection",
    ) in relations(doc)


def test_no_relation_without_evidence(nlp):
    doc = nlp("ImageNet is a dataset. BERT is a language model.")
    assert relations(doc) == set()
