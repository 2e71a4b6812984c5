"""SciERC: PTB detokenisation, the loader, alignment to spaCy tokens, strict
scoring, and the shipped concept recogniser."""

from __future__ import annotations

import pytest

from kg.training.benchmarks import DEFAULT_ROOT
from kg.training.benchmarks.scierc import (
    LABELS,
    SciercDoc,
    SciercEntity,
    detokenise,
    gold_entities,
    load_scierc,
    to_docs,
)
from kg.training.scoring import Score, doc_entities, prf, score_entities

needs_scierc = pytest.mark.skipif(not (DEFAULT_ROOT / "scierc" / "test.jsonl").is_file(), reason="SciERC not in ../shared/benchmarks")


def test_detokenise_restores_brackets_quotes_and_spacing():
    tokens = [
        "A",
        "parser",
        "-LRB-",
        "PCFG",
        "-RRB-",
        ",",
        "``",
        "fast",
        "''",
        "and",
        "the",
        "model",
        "'s",
        "F1",
        "-LSB-",
        "50",
        "%",
        "-RSB-",
        ";",
        "do",
        "n't",
        ".",
    ]
    text, spans = detokenise(tokens)
    assert text == "A parser (PCFG), \"fast\" and the model's F1 [50%]; don't."
    surface = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "``": '"', "''": '"'}
    assert [text[s:e] for s, e in spans] == [surface.get(t, t) for t in tokens]


def test_detokenise_offsets_follow_the_words():
    text, spans = detokenise(["Recognition", "of", "proper", "nouns", "-LRB-", "PN", "-RRB-", "."])
    assert text == "Recognition of proper nouns (PN)."
    start, end = spans[2][0], spans[3][1]  # the mention tokens[2:4]
    assert text[start:end] == "proper nouns"
    assert text[spans[5][0] : spans[5][1]] == "PN"


@needs_scierc
def test_loader_counts_match_the_benchmark_readme():
    # README of shared/benchmarks/scierc: 350 / 50 / 100 docs; 1,685 test entities
    # (the count PURE's published recall implies).
    counts = {split: load_scierc(split) for split in ("train", "dev", "test")}
    assert [len(docs) for docs in counts.values()] == [350, 50, 100]
    test = counts["test"]
    assert sum(len(d.entities) for d in test) == len(gold_entities(test)) == 1685
    assert {e.label for d in test for e in d.entities} == set(LABELS)
    for doc in test:
        assert all(doc.text[e.start : e.end] == e.text for e in doc.entities)
        assert "-LRB-" not in doc.text and "``" not in doc.text and " )" not in doc.text


def _doc(text: str, *mentions: tuple[str, str]) -> SciercDoc:
    entities = []
    for words, label in mentions:
        start = text.index(words)
        entities.append(SciercEntity(start, start + len(words), label, words))
    return SciercDoc("d1", text, ((0, len(text)),), tuple(entities))


def test_to_docs_keeps_the_outermost_of_nested_mentions():
    import spacy

    doc = _doc(
        "Recognition of proper nouns uses CRFs.",
        ("Recognition of proper nouns", "Task"),
        ("proper nouns", "OtherScientificTerm"),
        ("CRFs", "Method"),
    )
    (spacy_doc,), stats = to_docs(spacy.blank("en"), [doc])
    assert [(e.text, e.label_) for e in spacy_doc.ents] == [("Recognition of proper nouns", "Task"), ("CRFs", "Method")]
    assert (stats.entities, stats.kept, stats.nested_dropped, stats.expanded) == (3, 2, 1, 0)
    # Scored against all gold mentions, the dropped nested one is a miss.
    score = score_entities(gold_entities([doc]), doc_entities("d1", spacy_doc)).overall
    assert (score.gold, score.correct, score.recall) == (3, 2, pytest.approx(2 / 3))


def test_to_docs_widens_a_mention_inside_a_token():
    import spacy

    doc = _doc("We use n-grams.", ("n-gram", "Method"))  # "n-gram" ends inside the token "grams"
    (spacy_doc,), stats = to_docs(spacy.blank("en"), [doc])
    assert [e.text for e in spacy_doc.ents] == ["n-grams"]
    assert (stats.expanded, stats.unalignable) == (1, 0)


@needs_scierc
def test_almost_every_test_mention_aligns_with_spacy_tokens():
    import spacy

    _, stats = to_docs(spacy.blank("en"), load_scierc("test"))
    # Measured when the loader was written: no test mention needs widening, and
    # 20 of 1,685 are nested inside a longer one (so at most 1,665 can be found).
    assert stats.entities == 1685 and stats.unalignable == 0 and stats.expanded <= 5
    assert stats.kept + stats.nested_dropped == stats.entities and stats.nested_dropped < 30


def test_prf_on_a_hand_worked_example():
    gold = {("d", 0, 4, "Method"), ("d", 10, 14, "Task"), ("d", 20, 25, "Metric")}
    predicted = {("d", 0, 4, "Method"), ("d", 10, 14, "Method"), ("d", 30, 31, "Task")}
    # one of 3 predictions is right, one of 3 gold mentions is found
    assert prf(gold, predicted) == Score(1 / 3, 1 / 3, 1 / 3, 3, 3, 1)
    scores = score_entities(gold, predicted)
    assert scores.overall == prf(gold, predicted)
    assert scores.per_label["Method"] == Score(0.5, 1.0, 2 / 3, 1, 2, 1)
    assert scores.per_label["Task"].f1 == 0.0 and scores.per_label["Metric"].predicted == 0
    assert prf(set(), set()) == Score(0.0, 0.0, 0.0, 0, 0, 0)
