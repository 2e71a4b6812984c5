"""Mention replacement for the recogniser's gold copies (kg.extract.augment)."""

from __future__ import annotations

import random

import pytest
import spacy

from kg.extract.augment import mention_pool, replace_mentions

TEXT = "We train conditional random fields on the Penn Treebank for parsing."


@pytest.fixture(scope="module")
def english():
    return spacy.blank("en")  # replacement needs only a tokenizer


@pytest.fixture
def gold(english):
    doc = english.make_doc(TEXT)
    doc.ents = [
        doc.char_span(TEXT.index(phrase), TEXT.index(phrase) + len(phrase), label=label)
        for phrase, label in [("conditional random fields", "Method"), ("Penn Treebank", "Material"), ("parsing", "Task")]
    ]
    return doc


POOL = {"Method": ["SVMs"], "Material": ["WSJ corpus"], "Task": ["machine translation"]}


def test_every_mention_replaced_by_one_of_its_label(english, gold):
    new = replace_mentions(english, gold, POOL, random.Random(0), probability=1.0)
    assert new.text == "We train SVMs on the WSJ corpus for machine translation."
    assert [(e.text, e.label_) for e in new.ents] == [
        ("SVMs", "Method"), ("WSJ corpus", "Material"), ("machine translation", "Task")
    ]


def test_probability_zero_keeps_the_gold(english, gold):
    new = replace_mentions(english, gold, POOL, random.Random(0), probability=0.0)
    assert new.text == TEXT
    assert [(e.start_char, e.end_char, e.label_) for e in new.ents] == [
        (e.start_char, e.end_char, e.label_) for e in gold.ents
    ]


def test_same_seed_same_copy(english, gold):
    pool = mention_pool([gold, english.make_doc("nothing here")]) | {"Task": ["parsing", "tagging", "chunking"]}
    first, second = (replace_mentions(english, gold, pool, random.Random(7), 0.5) for _ in range(2))
    assert first.text == second.text
    assert [(e.start, e.end, e.label_) for e in first.ents] == [(e.start, e.end, e.label_) for e in second.ents]


def test_mention_pool_lists_surfaces_by_label(gold):
    assert mention_pool([gold]) == {
        "Method": ["conditional random fields"], "Material": ["Penn Treebank"], "Task": ["parsing"]
    }


def test_student_gold_copies_first_plain_the_others_replaced_reproducibly(tmp_path, monkeypatch):
    from spacy.tokens import DocBin

    from kg.extract import train
    from kg.extract.model import load_english

    english = load_english()
    docs = []
    for text, mentions in [("We apply SVMs to parsing.", [("SVMs", "Method"), ("parsing", "Task")]),
                           ("We apply CRFs to tagging.", [("CRFs", "Method"), ("tagging", "Task")])]:
        doc = english.make_doc(text)
        doc.ents = [doc.char_span(text.index(m), text.index(m) + len(m), label=label) for m, label in mentions]
        docs.append(doc)
    gold = tmp_path / "gold.spacy"
    DocBin(docs=docs, store_user_data=False).to_disk(gold)
    monkeypatch.setattr(train, "MENTION_REPLACEMENT", 1.0)

    train._write_gold_copies(gold, tmp_path / "first")
    train._write_gold_copies(gold, tmp_path / "second")
    copies = sorted((tmp_path / "first").iterdir())
    assert [c.name for c in copies] == [f"gold-{i}.spacy" for i in range(train.GOLD_COPIES)]
    assert copies[0].read_bytes() == gold.read_bytes()
    for copy in copies[1:]:
        altered = list(DocBin().from_disk(copy).get_docs(english.vocab))
        assert [[e.label_ for e in d.ents] for d in altered] == [["Method", "Task"]] * 2
        assert {e.text for d in altered for e in d.ents} <= {"SVMs", "CRFs", "parsing", "tagging"}
        assert copy.read_bytes() == (tmp_path / "second" / copy.name).read_bytes()
