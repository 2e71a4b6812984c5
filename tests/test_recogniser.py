"""The concept recogniser: its training data and its place in the pipeline."""

import pytest

from kg.errors import ModelError
from kg.extract.model import CONCEPT_MODES, load_english
from kg.extract.spans import ConceptSpan
from kg.training.benchmarks.scier import SciERSentence, detokenised, map_relation
from kg.training.recogniser import CONFIG, _pretrain_config, drop_sentence_crossing, to_doc


@pytest.fixture(scope="module")
def english():
    return load_english()


def test_scier_prose_moves_every_offset_with_its_text():
    text = "CornerNet achieves a 4 2 . 2 % AP on MS COCO , the top - left corner ( see [ 1 ] ) ."
    entities = ((0, 9, "Method"), (37, 44, "Dataset"), (51, 68, "Task"))
    prose = detokenised(SciERSentence("d", 0, text, entities, ()))
    assert prose.text == "CornerNet achieves a 42.2% AP on MS COCO, the top-left corner (see [1])."
    assert [prose.text[s:e] for s, e, _ in prose.entities] == ["CornerNet", "MS COCO", "top-left corner"]


def test_scier_relations_map_to_kg_relations_by_their_argument_types():
    assert map_relation("Used-For", "Method", "Task") == ("usedFor", False)
    assert map_relation("Used-For", "Method", "Method") == ("uses", True)  # "dropout Used-For BERT": BERT uses dropout
    assert map_relation("Evaluated-With", "Dataset", "Method") == ("evaluatedOn", True)
    assert map_relation("Part-Of", "Method", "Method") is None


def test_training_docs_trim_whitespace_keep_the_longest_and_leave_metric_names_unannotated(english):
    text = "We report accuracy of BERT  on GLUE tasks ."
    doc = to_doc(english, text, [(22, 28, "Method"), (31, 35, "Dataset"), (31, 41, "Dataset")], missing_metrics=True)
    assert [(e.text, e.label_) for e in doc.ents] == [("BERT", "Method"), ("GLUE tasks", "Dataset")]
    # "accuracy" is a Metric by kg's guideline, which SciER does not annotate: no loss either way.
    assert [t.ent_iob_ for t in doc if t.text == "accuracy"] == [""]
    assert all(t.ent_iob_ == "O" for t in doc if t.text in {"We", "report", "on"})


def test_a_mention_across_a_parser_sentence_boundary_is_left_unannotated(english):
    text = "We use Deep Nets. Transformers are better."
    doc = to_doc(english, text, [(7, 30, "Method")])
    assert drop_sentence_crossing(english, [doc]) == 1
    assert list(doc.ents) == [] and doc[2].ent_iob_ == ""


def test_pretraining_trains_exactly_the_ners_tok2vec_on_the_given_corpus_and_vectors(tmp_path):
    from thinc.api import Config

    config = _pretrain_config(tmp_path / "vectors", tmp_path / "pretrain.spacy", epochs=2, seed=7)
    ner_tok2vec = Config().from_disk(CONFIG)["components"]["ner"]["model"]["tok2vec"]
    # The same architecture and sizes, so its weights load into the ner's tok2vec before training.
    assert config["components"] == {"encoder": {"factory": "tok2vec", "model": ner_tok2vec}}
    assert config["nlp"]["pipeline"] == ["encoder"] and ner_tok2vec["embed"]["include_static_vectors"] is True
    assert (config["pretraining"]["component"], config["pretraining"]["layer"]) == ("encoder", "")
    assert config["pretraining"]["objective"]["@architectures"] == "spacy.PretrainCharacters.v1"
    assert config["corpora"]["pretrain"]["path"] == str(tmp_path / "pretrain.spacy")
    assert config["initialize"]["vectors"] == str(tmp_path / "vectors")
    assert (config["pretraining"]["max_epochs"], config["training"]["seed"]) == (2, 7)


def test_an_unknown_concept_mode_is_a_model_error():
    from kg.extract.pipeline import build_nlp

    with pytest.raises(ModelError, match="unknown concept mode"):
        build_nlp(concepts="magic")


def test_missing_recogniser_weights_are_a_one_line_model_error(tmp_path, monkeypatch):
    from kg.extract import pipeline

    monkeypatch.setattr(pipeline, "CONCEPT_WEIGHTS", tmp_path / "concepts")
    with pytest.raises(ModelError, match="cannot load the concept recogniser"):
        pipeline.build_nlp()
    assert "model+lexicon" in CONCEPT_MODES and "rules" in CONCEPT_MODES


@pytest.fixture(scope="module")
def default_nlp():
    from kg.extract.pipeline import build_nlp

    return build_nlp(use_claims=False)


def test_the_default_pipeline_runs_the_trained_recogniser_with_confidences_from_dev(default_nlp):
    assert "kg_ner" in default_nlp.pipe_names
    doc = default_nlp("We fine-tune Llama-3.1-8B with LoRA and evaluate it on GSM8K and MATH. It improves accuracy by 5 points.")
    found = {(doc.text[c.start : c.end], c.type) for c in map(lambda t: ConceptSpan(*t), doc._.kg_concepts)}
    assert {("LoRA", "Method"), ("GSM8K", "Dataset"), ("accuracy", "Metric")} <= found
    assert all(0 < ConceptSpan(*c).confidence < 1 for c in doc._.kg_concepts)


def test_types_come_from_context_not_from_the_shape_of_a_name(default_nlp):
    # Two made-up names of one shape; swapping their roles swaps their types.
    def types(text):
        doc = default_nlp(text)
        return {doc.text[c.start : c.end]: c.type for c in map(lambda t: ConceptSpan(*t), doc._.kg_concepts)}

    first = types("We propose ZORVEX, a retrieval model, and evaluate it on QUINTARA, a benchmark of legal questions.")
    assert (first["ZORVEX"], first["QUINTARA"]) == ("Method", "Dataset")
    second = types("We evaluate QUINTARA on the ZORVEX benchmark.")
    assert (second["QUINTARA"], second["ZORVEX"]) == ("Method", "Dataset")
