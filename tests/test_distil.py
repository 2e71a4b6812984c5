"""The teachers' vote that makes the recogniser's silver training data (kg.extract.distil)."""

from __future__ import annotations

import pytest
import spacy

from kg.extract.benchmarks import DEFAULT_ROOT
from kg.extract.distil import silver_doc, vote

TEXT = "We train conditional random fields on the Penn Treebank for parsing ."


def _span(phrase: str, label: str) -> tuple[int, int, str]:
    start = TEXT.index(phrase)
    return start, start + len(phrase), label


@pytest.fixture(scope="module")
def english():
    return spacy.blank("en")  # the vote needs only a tokenizer


CRF = _span("conditional random fields", "Method")
PTB = _span("Penn Treebank", "Material")
PARSING = _span("parsing", "Task")
FIELDS = _span("random fields", "Method")


def test_vote_keeps_what_a_quorum_agrees_on_exactly():
    agreed, disputed = vote([[CRF, PTB], [CRF, PARSING], [FIELDS, PTB]], quorum=2)
    assert agreed == [CRF, PTB]
    assert disputed == [FIELDS, PARSING]


def test_vote_counts_a_different_label_as_disagreement():
    other_label = (*PTB[:2], "Generic")
    agreed, disputed = vote([[PTB], [other_label], []], quorum=2)
    assert agreed == []
    assert disputed == sorted([PTB, other_label])


def test_vote_refuses_a_quorum_that_is_not_a_majority():
    with pytest.raises(ValueError, match="not a majority"):
        vote([[CRF], [PTB]], quorum=1)


def test_silver_doc_marks_agreed_entities_disputed_tokens_missing_and_the_rest_outside(english):
    doc = silver_doc(english, TEXT, [[CRF, PTB], [CRF, PARSING], [FIELDS, PTB]], quorum=2)
    assert [(e.text, e.label_) for e in doc.ents] == [
        ("conditional random fields", "Method"),
        ("Penn Treebank", "Material"),
    ]
    iob = {token.text: token.ent_iob_ for token in doc}
    assert iob["parsing"] == ""  # one teacher of three: unknown, not outside
    assert iob["train"] == "O"
    assert iob["fields"] == "I"  # inside an agreed mention, whatever the minority said


def test_silver_doc_rejects_a_span_off_token_boundaries(english):
    with pytest.raises(ValueError, match="token boundaries"):
        silver_doc(english, TEXT, [[(3, 7, "Method")]] * 3, quorum=2)


def _scierc_row(doc_key: str, text: str) -> dict:
    tokens = text.split()
    return {"doc_key": doc_key, "tokens": tokens, "entities": [], "relations": [], "sentence_spans": [[0, len(tokens)]]}


def test_an_unlabelled_text_sharing_a_held_out_abstract_is_not_labelled(tmp_path):
    import json

    from kg.extract.train import _without_text_of

    held_out = "we present a new parser for spoken dialogue that learns from raw transcripts and beats every rule based parser on three corpora ."
    (tmp_path / "scierc").mkdir()
    (tmp_path / "scierc" / "test.jsonl").write_text(json.dumps(_scierc_row("t1", held_out)) + "\n")
    copied = "Background sentence. " + held_out.capitalize()
    unrelated = "We study image segmentation with a new loss on three benchmarks and beat every rule based parser ."
    assert _without_text_of([copied, unrelated], ("test",), tmp_path) == [unrelated]


@pytest.mark.skipif(
    not (DEFAULT_ROOT / "scierc" / "test.jsonl").is_file(), reason="benchmarks not in ../shared/benchmarks"
)
def test_unlabelled_abstracts_never_come_from_a_test_split():
    from kg.extract.train import unlabelled_abstracts

    abstracts = unlabelled_abstracts()
    sources = {source for source, _ in abstracts}
    assert sources == {"corpus"} | {f"{name}/{split}" for name in ("csabstruct", "scierc", "scienceie", "biomed_claims") for split in ("train", "dev")}
    # the tok2vec pretraining of the shipped weights read exactly these words, in this order
    assert sum(len(text.split()) for _, text in abstracts) == 669_038
    assert abstracts[0][0] == "csabstruct/train" and abstracts[-1][0] == "biomed_claims/dev"
