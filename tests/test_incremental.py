"""Incremental builds: papers added after the previous build's are added to its
graph, and the store is then exactly what a fresh build gives; when that
cannot be guaranteed the build starts again, and says why."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from kg.extract.cache import CachingExtractor, ExtractionCache
from kg.graph.state import STATE_FILE
from kg.pipeline import build
from kg.records import AcronymDefinition, Extraction, Mention, Relation
from tests.conftest import CORPUS
from tests.test_build_store import sorted_ntriples

#: Phrases the hand extractor finds, longest first so that "fine-tuning" is not found inside a longer name.
TERMS = {
    "parameter-efficient fine-tuning": "Method",
    "large language models": "Method",
    "large language model": "Method",
    "Low-Rank Adaptation": "Method",
    "low-rank adaptation": "Method",
    "language models": "Method",
    "fine-tuning": "Method",
    "ImageNet": "Dataset",
    "tuning": "Method",
    "LLMs": "Method",
    "LoRA": "Method",
}
_TERM = re.compile("|".join(re.escape(t) for t in TERMS))
_DEFINITION = re.compile(r"\b((?:[a-z\-]+ ){2}[a-z\-]+) \(([A-Z]{2,}s?)\)")  # three words (SHORT)


class HandExtractor:
    """Mentions of TERMS, "long (SHORT)" definitions, and "X evaluated on Y" relations."""

    name = "hand"
    version = "1"

    def extract(self, papers):
        for linked in papers:
            text = linked.paper.abstract
            mentions = tuple(
                Mention(
                    m.group(),
                    TERMS[m.group()],
                    m.start(),
                    m.end(),
                    0,
                    len(text),
                    0.9,
                    "hand",
                    m.group().rstrip("s") if m.group().islower() else m.group(),
                )
                for m in _TERM.finditer(text)
            )
            acronyms = tuple(
                AcronymDefinition(d.group(2), d.group(1), d.group(1).rstrip("s"), d.start(), d.end()) for d in _DEFINITION.finditer(text)
            )
            relations = tuple(
                Relation(head, "Method", "evaluatedOn", tail, "Dataset", 0, len(text), 0.8, "hand")
                for head, tail in re.findall(r"(\w[\w\-]*) evaluated on (\w+)", text)
            )
            yield Extraction(linked.iri, mentions, relations=relations, acronyms=acronyms)


def write(path, abstracts):
    path.write_text("".join(json.dumps({"id": f"{path.stem}-{i}", "abstract": a}) + "\n" for i, a in enumerate(abstracts)))
    return path


def add_and_compare(tmp_path, old, new, extractor=None):
    """Build ``old``, add ``new`` as a second file; return the report and whether the
    store equals a fresh build of both files."""
    extractor = extractor or HandExtractor()
    first, second = write(tmp_path / "old.jsonl", old), write(tmp_path / "new.jsonl", new)
    store, fresh = tmp_path / "store", tmp_path / "fresh"
    build([first], store=store, extractors=[extractor])
    report = build([first, second], store=store, extractors=[extractor])
    build([first, second], store=fresh, extractors=[extractor], incremental=False)
    return report, sorted_ntriples(store) == sorted_ntriples(fresh)


OLD = [
    "We study parameter-efficient fine-tuning and tuning.",
    "Low-Rank Adaptation and large language models evaluated on ImageNet.",
    "Low-Rank Adaptation helps large language models.",
]


@pytest.mark.parametrize(
    "new",
    [
        pytest.param(["We add tuning again."], id="known concepts only"),
        pytest.param(["Plain fine-tuning is a new concept."], id="a new concept becomes the nearest head of an old one"),
        pytest.param(["low-rank adaptation", "low-rank adaptation for LoRA"], id="a concept's prefLabel changes"),
        pytest.param(["Methods evaluated on ImageNet: LoRA evaluated on ImageNet."], id="a relation-only concept gets mentions"),
        pytest.param(["language models such as large language models"], id="a Hearst link keeps a head-noun link"),
        pytest.param(["large language models such as language models"], id="a Hearst link contradicts a head-noun link"),
        pytest.param(["Papers, all new.", "More fine-tuning and tuning.", "ImageNet."], id="several papers"),
    ],
)
def test_added_papers_give_exactly_the_fresh_graph(tmp_path, new):
    report, same = add_and_compare(tmp_path, OLD, new)
    assert report.added == len(new) and report.rebuilt_because is None
    assert same


def test_new_papers_may_come_before_the_old_ones(tmp_path):
    """A new file that sorts first in its folder: the relation end that names a concept
    no mention names is then the new paper's (it comes first), as in a fresh build."""
    old = ["LoRA evaluated on Foosets.", "We study tuning."]
    first = write(tmp_path / "b-old.jsonl", old)
    store, fresh = tmp_path / "store", tmp_path / "fresh"
    build([first], store=store, extractors=[HandExtractor()])
    write(tmp_path / "a-new.jsonl", ["LoRA evaluated on FOOSETS today."])
    report = build([tmp_path], store=store, extractors=[HandExtractor()])  # the folder: a-new.jsonl is read first
    assert report.added == 1
    build([tmp_path], store=fresh, extractors=[HandExtractor()], incremental=False)
    assert sorted_ntriples(store) == sorted_ntriples(fresh)
    assert b"FOOSETS" in sorted_ntriples(store)  # the new first relation end labels the concept


def test_lines_appended_to_the_one_input_file_are_added(tmp_path):
    """The file's digest changes, so every old paper's provenance does: only that is rewritten."""
    corpus = write(tmp_path / "papers.jsonl", OLD)
    store = tmp_path / "store"
    build([corpus], store=store, extractors=[HandExtractor()])
    with corpus.open("a") as more:
        more.write(json.dumps({"id": "new", "abstract": "Plain fine-tuning, evaluated on ImageNet."}) + "\n")
    report = build([corpus], store=store, extractors=[HandExtractor()])
    assert report.added == 1
    build([corpus], store=tmp_path / "fresh", extractors=[HandExtractor()], incremental=False)
    assert sorted_ntriples(store) == sorted_ntriples(tmp_path / "fresh")


def test_a_short_form_the_corpus_now_expands_is_added_when_no_old_paper_uses_it_bare(tmp_path):
    old = ["We use large language models (LLMs) here.", "Plain tuning."]
    new = ["Again large language models (LLMs).", "LLMs help."]  # a second definition: bare uses now expand
    report, same = add_and_compare(tmp_path, old, new)
    assert report.added == 2 and same


def test_nothing_new_changes_nothing(tmp_path):
    first = write(tmp_path / "old.jsonl", OLD)
    build([first], store=tmp_path / "store", extractors=[HandExtractor()])
    before = sorted_ntriples(tmp_path / "store")
    report = build([first], store=tmp_path / "store", extractors=[HandExtractor()])
    assert report.added == 0 and sorted_ntriples(tmp_path / "store") == before


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        pytest.param(
            ["We use large language models (LLMs).", "Again large language models (LLMs).", "LLMs help."],
            ["Here latent linear models (LLMs) are another thing."],
            "change what LLM means",
            id="a short form's corpus meaning changes",
        ),
    ],
)
def test_a_change_to_corpus_wide_decisions_builds_afresh(tmp_path, old, new, reason):
    report, same = add_and_compare(tmp_path, old, new)
    assert report.added is None and reason in report.rebuilt_because
    assert same


def test_a_changed_or_removed_old_paper_builds_afresh(tmp_path):
    first = write(tmp_path / "old.jsonl", OLD)
    store = tmp_path / "store"
    build([first], store=store, extractors=[HandExtractor()])
    write(tmp_path / "old.jsonl", OLD[:2])
    report = build([first], store=store, extractors=[HandExtractor()])
    assert report.added is None and report.rebuilt_because.startswith("a paper was removed, or its abstract changed")
    write(tmp_path / "old.jsonl", [OLD[0] + " Edited.", OLD[1]])
    report = build([first], store=store, extractors=[HandExtractor()])
    assert report.added is None and report.rebuilt_because.startswith("a paper was removed, or its abstract changed")
    (tmp_path / "old.jsonl").write_text(
        json.dumps({"id": "old-0", "title": "Now with a title", "abstract": OLD[0] + " Edited."})
        + "\n"
        + json.dumps({"id": "old-1", "abstract": OLD[1]})
        + "\n"
    )
    report = build([first], store=store, extractors=[HandExtractor()])
    assert report.added is None and report.rebuilt_because.startswith("a paper changed")
    lines = (tmp_path / "old.jsonl").read_text().splitlines()
    (tmp_path / "old.jsonl").write_text(lines[1] + "\n" + lines[0] + "\n")
    report = build([first], store=store, extractors=[HandExtractor()])
    assert report.added is None and report.rebuilt_because == "the old papers come in another order"
    build([first], store=tmp_path / "fresh", extractors=[HandExtractor()], incremental=False)
    assert sorted_ntriples(store) == sorted_ntriples(tmp_path / "fresh")


def test_other_extractors_or_a_lost_state_build_afresh(tmp_path):
    first, second = write(tmp_path / "old.jsonl", OLD), write(tmp_path / "new.jsonl", ["tuning"])
    store = tmp_path / "store"
    build([first], store=store, extractors=[HandExtractor()])
    report = build([first, second], store=store, extractors=[])
    assert report.added is None and "other code, extractors or settings" in report.rebuilt_because
    (store / STATE_FILE).unlink()
    report = build([first, second], store=store, extractors=[])
    assert report.added is None and report.rebuilt_because == "the store has no build state"
    (store / STATE_FILE).write_bytes(b"not sqlite")
    report = build([first, second, write(tmp_path / "more.jsonl", ["more"])], store=store, extractors=[])
    assert report.added is None and "unreadable" in report.rebuilt_because


def test_the_shipped_corpus_with_papers_added_as_a_new_file(tmp_path, run):
    """The real extractor: five daily abstracts held back, then given as a file of their own."""
    corpus, extra = tmp_path / "corpus", tmp_path / "extra"
    shutil.copytree(CORPUS, corpus)
    extra.mkdir()
    daily = corpus / "003_8e9b74060a1da4c6.txt"
    paragraphs = daily.read_text(encoding="utf-8").split("\n\n")
    held_back = [paragraphs[i] for i in (16, 145, 195, 205, 216)]
    daily.write_text("\n\n".join(p for p in paragraphs if p not in held_back), encoding="utf-8")
    (extra / "daily-more.txt").write_text("\n\n".join(held_back), encoding="utf-8")
    cache = tmp_path / "cache.sqlite"
    store, fresh = tmp_path / "store", tmp_path / "fresh"
    assert run("build", corpus, "--store", store, "--cache", cache, "--no-page")[0] == 0
    code, out, err = run("build", corpus, extra, "--store", store, "--cache", cache, "--no-page")
    assert code == 0, err
    assert "5 abstracts extracted, 0 from the cache (added 5 new papers to the previous graph)" in out
    code, out, _ = run("build", corpus, extra, "--store", store, "--cache", cache, "--no-page")
    assert code == 0 and "(the previous graph already had every paper)" in out
    code, out, _ = run("build", corpus, extra, "--store", fresh, "--cache", cache, "--no-page", "--afresh")
    assert code == 0 and "built afresh: asked to" in out
    assert sorted_ntriples(store) == sorted_ntriples(fresh)


def test_the_build_state_travels_with_its_store(tmp_path):
    """The state lives in the store's folder (written before the swap, so a store and
    its state never disagree): a moved store still takes papers incrementally."""
    first = write(tmp_path / "old.jsonl", OLD)
    extractor = CachingExtractor(HandExtractor(), ExtractionCache(None, "1"))
    build([first], store=tmp_path / "store", extractors=[extractor])
    assert (tmp_path / "store" / STATE_FILE).is_file()
    shutil.move(tmp_path / "store", tmp_path / "moved")
    report = build([first, write(tmp_path / "new.jsonl", ["tuning"])], store=tmp_path / "moved", extractors=[HandExtractor()])
    assert report.added == 1


def test_a_failure_while_adding_leaves_the_previous_store_and_state(tmp_path, monkeypatch):
    from kg import incremental

    first, second = write(tmp_path / "old.jsonl", OLD), write(tmp_path / "new.jsonl", ["Plain fine-tuning."])
    store = tmp_path / "store"
    build([first], store=store, extractors=[HandExtractor()])
    before, state = sorted_ntriples(store), (store / STATE_FILE).read_bytes()
    apply = incremental._Delta.apply

    def fail_after_applying(self, *args):
        apply(self, *args)  # the copy is fully edited, then something breaks before the swap
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(incremental._Delta, "apply", fail_after_applying)
    with pytest.raises(RuntimeError):
        build([first, second], store=store, extractors=[HandExtractor()])
    assert sorted_ntriples(store) == before and (store / STATE_FILE).read_bytes() == state
    monkeypatch.setattr(incremental._Delta, "apply", apply)
    assert build([first, second], store=store, extractors=[HandExtractor()]).added == 1


def test_a_bibliographic_graph_takes_papers_incrementally_too(tmp_path):
    """`kg build --no-extract`: no extractor, so only the new papers' records."""
    first, second = write(tmp_path / "old.jsonl", OLD), write(tmp_path / "new.jsonl", ["A new paper."])
    build([first], store=tmp_path / "store")
    assert build([first, second], store=tmp_path / "store").added == 1
    build([first, second], store=tmp_path / "fresh", incremental=False)
    assert sorted_ntriples(tmp_path / "store") == sorted_ntriples(tmp_path / "fresh")
