"""The claim classifier (kg.extract.claims_model), the kg_claims component,
the CSAbstruct and arXiv claim loaders and the cue-rule baseline
(kg.training.train_claims)."""

from __future__ import annotations

import numpy as np
import pytest

from kg.errors import CorpusError, KgError
from kg.extract.claims_model import (
    CALIBRATION_FILE,
    FEATURE_NAMES,
    LABELS,
    ROLES,
    ClaimClassifier,
    ContextLayer,
    context_features,
    position_texts,
)
from kg.training.arxiv import corpus_path
from kg.training.benchmarks import DEFAULT_ROOT
from kg.training.benchmarks.csabstruct import load_csabstruct
from kg.training.train_claims import ARXIV, cue_claims, load_arxiv_claims, load_claim_cues

BACKGROUND = "Deep neural networks are widely used in computer vision."
METHOD = "We propose a new pruning method based on second-order information."
RESULT = "Experiments on ImageNet show that our method outperforms the state of the art by 3%."

needs_csabstruct = pytest.mark.skipif(
    not (DEFAULT_ROOT / "csabstruct" / "test.jsonl").is_file(),
    reason="CSAbstruct is not in ../shared/benchmarks",
)

# The duplicated test abstracts listed in shared/benchmarks/csabstruct/README.md
# ("Known data issues"): 26 repeated in train, 6 in dev.
README_TEST_IN_TRAIN = (
    "0003 0013 0015 0018 0026 0029 0035 0051 0053 0066 0075 0079 0089 0097 0099 0102 0106 0113 0115 0117 0120 0127 0135 0136 0138 0166"
).split()
README_TEST_IN_DEV = "0125 0181 0193 0195 0197 0210".split()


@pytest.fixture(scope="module")
def classifier() -> ClaimClassifier:
    return ClaimClassifier.load()


@needs_csabstruct
def test_csabstruct_counts_match_its_readme():
    # README "Files" table: abstracts / sentences / result sentences per split.
    for split, abstracts, sentences, results in (
        ("train", 1668, 11333, 2422),
        ("dev", 295, 2026, 410),
        ("test", 226, 1349, 219),
    ):
        data = load_csabstruct(split, deduplicate=False)
        assert len(data) == abstracts and data.n_dropped == 0
        assert sum(len(a.sentences) for a in data) == sentences
        assert sum(sum(a.claims) for a in data) == results
        assert all(len(a.sentences) == len(a.labels) == len(a.confidences) for a in data)


@needs_csabstruct
def test_deduplication_drops_exactly_the_32_test_abstracts_the_readme_lists():
    test = load_csabstruct("test")
    expected = {f"csabstruct-test-{n}" for n in README_TEST_IN_TRAIN + README_TEST_IN_DEV}
    assert len(README_TEST_IN_TRAIN) == 26 and len(README_TEST_IN_DEV) == 6
    assert set(test.dropped) == expected and test.n_dropped == 32
    assert len(test) == 226 - 32 == 194  # the README's deduplicated subset
    assert not expected & {a.doc_id for a in test}
    # Only test is deduplicated: dev keeps the 6 abstracts test shares with it.
    assert len(load_csabstruct("dev")) == 295


def test_loader_errors_name_the_problem(tmp_path):
    with pytest.raises(CorpusError, match="unknown CSAbstruct split 'validation'"):
        load_csabstruct("validation", root=tmp_path)
    with pytest.raises(CorpusError, match=r"csabstruct[/\\]dev\.jsonl.*kg eval --benchmarks DIR"):
        load_csabstruct("dev", root=tmp_path)


def test_position_tokens_come_first_and_the_sentence_is_lowercased():
    texts = position_texts([BACKGROUND, METHOD, RESULT], buckets=5)
    # relative positions 0, 0.5, 1 -> buckets 0, 2, 4 (the last bucket holds 1.0)
    assert texts[0] == "xxpos0 xxfirst " + BACKGROUND.lower()
    assert texts[1].startswith("xxpos2 we propose")
    assert texts[2].startswith("xxpos4 xxlast experiments on imagenet")
    assert position_texts(["Alone."], buckets=5) == ["xxpos4 xxfirst xxlast alone."]


def test_context_features_see_the_neighbours():
    # columns: the five roles, then claim (LABELS)
    probs = np.array([[0.7, 0.1, 0.1, 0.05, 0.05, 0.04], [0.1, 0.1, 0.2, 0.5, 0.1, 0.6]])
    x = context_features(probs)
    assert x.shape == (2, len(FEATURE_NAMES))
    row = dict(zip(FEATURE_NAMES, x[0]))
    assert row["prev_none"] == 1.0 and row["next_none"] == 0.0 and row["is_first"] == 1.0
    assert row["next_log_p_res"] == pytest.approx(np.log(0.5))
    assert row["next_log_p_claim"] == pytest.approx(np.log(0.6)) and row["self_log_p_claim"] == pytest.approx(np.log(0.04))
    assert dict(zip(FEATURE_NAMES, x[1]))["rel_pos"] == 1.0


def test_context_layer_round_trips_through_json():
    import json

    from kg.errors import ModelError

    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, len(FEATURE_NAMES)))
    y = (x[:, 3] > 0).astype(float)  # the claim depends on self_log_p_res only
    layer = ContextLayer.fit(x, y, l2=1.0)
    assert int(np.argmax(np.abs(layer.coef))) == 3 and layer.coef[3] > 0
    again = ContextLayer.from_dict(json.loads(json.dumps(layer.to_dict())))
    assert np.array_equal(layer(x), again(x))
    with pytest.raises(ModelError, match="fitted on features"):
        ContextLayer.from_dict({**layer.to_dict(), "feature_names": ["a"]})


def test_a_clear_result_scores_above_the_threshold_and_background_below(classifier):
    scores = classifier.score([BACKGROUND, METHOD, RESULT])
    assert scores[2] >= classifier.threshold > scores[0]
    assert scores[1] < classifier.threshold
    assert classifier.is_claim([BACKGROUND, METHOD, RESULT]) == [False, False, True]
    assert classifier.score([RESULT])[0] >= classifier.threshold
    assert classifier.score([]) == []


def test_scores_are_deterministic(classifier):
    abstract = [BACKGROUND, METHOD, RESULT]
    first = classifier.score(abstract)
    assert classifier.score(abstract) == first
    assert ClaimClassifier.load().score(abstract) == first
    assert all(isinstance(s, float) and 0.0 <= s <= 1.0 for s in first)


def test_shipped_weights_predict_the_five_roles_and_claim(classifier):
    assert LABELS == (*ROLES, "claim")
    assert set(classifier.nlp.get_pipe("textcat").labels) == set(LABELS)
    assert 0.0 < classifier.threshold < 1.0


def test_scores_are_the_calibrated_raw_scores(classifier):
    abstract = [BACKGROUND, METHOD, RESULT]
    raw = classifier.raw_scores(abstract)
    assert classifier.calibrator.method == "isotonic"
    assert classifier.score(abstract) == pytest.approx(list(classifier.calibrator(raw)))
    # The map is monotone: it never reorders sentences.
    assert np.argsort(classifier.score(abstract)).tolist() == np.argsort(raw).tolist()


def test_shipped_weights_record_what_they_were_trained_on():
    import json

    from kg.extract.claims_model import CONTEXT_FILE, DEFAULT_WEIGHTS

    meta = json.loads((DEFAULT_WEIGHTS / CONTEXT_FILE).read_text(encoding="utf-8"))
    # CSAbstruct is Apache-2.0; kg's annotation is the project's own (MIT).
    licences = {source["license"] for source in meta["trained_on"]}
    assert "Apache-2.0" in licences and any("MIT" in licence for licence in licences)
    textcat_meta = json.loads((DEFAULT_WEIGHTS / "textcat" / "meta.json").read_text(encoding="utf-8"))
    assert {s["license"] for s in textcat_meta["sources"]} == {s["license"] for s in meta["trained_on"]}
    assert "arxiv_dev" in meta["report"] and "test" not in meta["report"]["threshold_chosen_on"]


def test_saved_classifier_round_trips_and_needs_its_calibration(classifier, tmp_path):
    from kg.errors import ModelError

    classifier.save(tmp_path / "claims", note="test")
    again = ClaimClassifier.load(tmp_path / "claims")
    abstract = [BACKGROUND, METHOD, RESULT]
    assert again.score(abstract) == classifier.score(abstract) and again.threshold == classifier.threshold
    (tmp_path / "claims" / CALIBRATION_FILE).unlink()
    with pytest.raises(ModelError, match="rebuild it with"):
        ClaimClassifier.load(tmp_path / "claims")


def test_the_component_emits_calibrated_confidences_at_or_above_the_threshold(classifier):
    import spacy

    import kg.extract.components  # noqa: F401  (registers kg_claims)
    from kg.extract.claims_model import DEFAULT_WEIGHTS
    from kg.extract.spans import ClaimSpan

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("kg_claims", config={"weights": str(DEFAULT_WEIGHTS)})
    doc = nlp(" ".join([BACKGROUND, METHOD, RESULT]))
    claims = [ClaimSpan(*c) for c in doc._.kg_claims]
    scores = classifier.score([s.text for s in doc.sents])
    assert [doc.text[c.start : c.end] for c in claims] == [RESULT]
    assert claims[0].confidence == round(scores[2], 4) >= classifier.threshold


needs_arxiv = pytest.mark.skipif(
    not corpus_path().is_file() or not (ARXIV / "dev.jsonl").is_file(),
    reason="the arXiv corpus or kg's annotation is missing",
)


@needs_arxiv
def test_arxiv_claims_fall_on_the_pipelines_sentences():
    import json

    records = [json.loads(line) for line in (ARXIV / "dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    abstracts = load_arxiv_claims("dev")
    assert [a.doc_id for a in abstracts] == [r["id"] for r in records]
    # Every annotated claim is one whole sentence as the parser splits it.
    assert sum(sum(a.claims) for a in abstracts) == sum(len(r["claims"]) for r in records)
    for abstract, record in zip(abstracts, records):
        claimed = {(c["start"], c["end"]) for c in record["claims"]}
        assert {b for b, c in zip(abstract.bounds, abstract.claims) if c} == claimed
        assert all(s.strip() for s in abstract.sentences)


def test_an_unknown_arxiv_split_is_an_error(tmp_path):
    with pytest.raises(CorpusError, match="no arXiv annotation split 'validation'"):
        load_arxiv_claims("validation", folder=tmp_path)


def test_cue_rules_load_with_unique_ids_and_match_their_examples():
    import json

    from kg.training.train_claims import CLAIM_CUES

    rows = [json.loads(line) for line in CLAIM_CUES.read_text(encoding="utf-8").splitlines() if line.strip()]
    rules = load_claim_cues()
    assert [r.id for r in rules] == [row["id"] for row in rows] and len({r.id for r in rules}) == len(rules)
    for rule, row in zip(rules, rows):
        assert rule.pattern.search(row["example"]), rule.id
    assert cue_claims([BACKGROUND, RESULT], rules) == [False, True]


def test_a_broken_cue_file_is_reported_with_its_line(tmp_path):
    path = tmp_path / "cues.jsonl"
    path.write_text('{"id": "ok", "pattern": "we show"}\n{"id": "bad", "pattern": "(unclosed"}\n')
    with pytest.raises(KgError, match=r"cues\.jsonl:2"):
        load_claim_cues(path)
