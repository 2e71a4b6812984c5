"""Training kg's models on public benchmarks, reproducibly.

Reproduce the shipped concept recogniser (``kg/extract/weights/scierc_ner``)
from the repository root, with the benchmarks in ``../shared/benchmarks``::

    python -m kg.extract.train ner --work /tmp/kg-ner

:func:`train_ner` runs these steps, each on one core (times measured here):

1. SciERC train and dev as DocBins, tokenised by the pinned English
   pipeline's tokenizer (:func:`kg.extract.benchmarks.scierc.to_docs`).
2. The ner's own tok2vec pretrained (spaCy's character objective, 8 epochs,
   ~22 min) on 669k words of unlabelled abstracts
   (:func:`unlabelled_abstracts`: the train and dev abstracts of CSAbstruct,
   SciERC, ScienceIE and biomed_claims, and kg's corpus; never a test split).
3. Three *teachers* (:data:`TEACHER_SEEDS`), each a recogniser trained with
   ``kg/extract/configs/ner.cfg`` on SciERC train and dev, from that tok2vec,
   with its own seed (4,000 steps, ~10 min each).
4. *Silver* data (:mod:`kg.extract.distil`): the teachers label the 3,754
   unlabelled abstracts that are not SciERC's; a mention two of three agree
   on exactly is an entity, one only a minority found is unknown (no loss),
   every other token is outside (~5 min).
5. The *student*, shipped: the same configuration trained on the gold
   documents (three copies, in two of which each mention is, with chance
   0.3, replaced by another of its label: :mod:`kg.extract.augment`) and
   the silver ones (6,000 steps, ~17 min); its last checkpoint's ``ner``
   alone (7.8 MB) goes into the weights folder.

The student has the teachers' size and speed and scores above each of them
and above their vote (below). ``--work DIR`` keeps every step's output, and a
step whose output is there is not run again, so an interrupted run resumes;
``--output DIR`` writes the weights elsewhere, ``--root DIR`` names the
folder holding the benchmarks. Everything is seeded (``[system] seed``).
``--train-only`` learns from SciERC train alone (teachers and student), keeps
each run's checkpoint best on dev, and leaves out of the silver data any
abstract sharing text with SciERC dev: that is how every choice below was
made; the shipped weights then learn from dev too, so their dev score is no
longer a held-out figure.

Variants tried on SciERC train -> dev (strict micro F1 against all 811 dev
mentions, in kg's pipeline; 4,000 steps unless noted):

=====================================================  =======
variant                                                dev F1
=====================================================  =======
(a) default efficiency ner, own tok2vec (96 x 4)       52.4  (patience stop, 5,600 steps)
(c) frozen listener on en_core_web_sm's tok2vec        ~23   (stopped at 1,800 steps)
(e) (a) + en_core_web_sm's tok2vec output concatenated 51.5
(d) (a) + TAG and DEP of the English tagger/parser     53.6
(d) + parameter averaging                              55.0
(d) + averaging + tok2vec pretrained on 388k words     56.0  (shipped until distillation)
  the same with dropout 0.2                            55.0
  the same + dev's entities copied to their repeats    56.1  (not kept)
(f) (d) + averaging + pretrained on 669k words         55.0  (teacher, seed 0)
  (f) with tok2vec width 128 (15% slower)              55.7
  (f), seed 1 / seed 2                                 54.7 / 55.3
  the three teachers' vote (two of three agree)        57.1
  (f), seeds 3 and 4; the five's vote (three of five)  55.4 / 55.9; 57.5  (not worth two teachers)
(g) (f)'s student on gold x 3 + silver                 57.6  (6,000 steps; shipped until j)
  (g), seed 1 / seed 2                                 57.5 / 56.6
  (g) with tok2vec width 128 (15% slower)              57.7  (not kept)
  (g) with the ner's hidden width 128, seeds 0 / 1     57.7 / 57.2  (not kept)
  (g) then fine-tuned on gold alone (lr 0.0005)        56.0  (2,000 steps)
  (g) with the learning rate decaying linearly to 0    56.2  (its last checkpoint is its best)
  (g) trained on to 9,400 steps (seed 0)               see below (stopped)
  (g) beam search at inference, width 2 / 4 / 8        57.6 / 56.2 / 54.7
  two of (g)'s seeds combined: both agree / one plus   57.4 / 56.0 to 57.6
    the other's mentions overlapping none of its own
(h) a second round: (g)'s three seeds vote (57.9),     57.9 / 57.2 / 57.0  (not kept)
    three new students learn from it, seeds 0 / 1 / 2
(i) a second round: (f) and (g), six models, vote      57.4  (not kept)
    (three of six agree: 59.6), one student learns
(j) (g) with mention replacement in two gold copies,   58.7 / 58.3 / 57.8  **shipped**
    seeds 0 / 1 / 2
(b) accuracy size (256 x 8)                            not trained: 1,700 words/s untrained
=====================================================  =======

The 669k words add ScienceIE's and biomed_claims' train and dev text to the
388k (CSAbstruct, SciERC and kg's corpus); alone that did not help (within
about a point of seed noise), but the silver data needs the abstracts. The
vote of the three teachers on dev is 61.3 precision and 53.5 recall; the
student, trained on that vote over 3,753 abstracts, keeps the recall of a
single model and most of the vote's precision. Past that, the student stops
following its teachers: a better vote (h, i: up to 59.6) or a wider student
moves it by no more than seed noise (56.6 to 57.6 across three seeds of g).
Nor does training it longer: spaCy's dev F1 at its checkpoints averages 56.5
over steps 5,200 to 6,000, 56.8 over 6,200 to 7,000, 56.4 over 7,200 to
8,400 and 55.7 over 8,600 to 9,400 (the student starts to fit its silver
labels); nor a learning rate decaying to 0 over the 6,000 steps (warmup 250).
Two recognisers at inference would just keep the speed floor (the whole
extraction: 4,063 words/s, against 5,233 with one, in one run), but no way
of combining two of them beat one.

What moved it was on the gold side (j): mention replacement (Dai and Adel
2020), the gold's sentences with other names of the same label in them,
in two of the three gold copies. Every seed beats every seed of (g), and
in each its last checkpoint, the kind that ships, is its best: spaCy's dev
F1 at step 6,000 is 58.9 and 58.1 for seeds 0 and 1, against 56.5 and 56.5
for (g), and averages 57.8 for both over steps 5,200 to 6,000, against 56.5
and 56.9.

On SciERC test: (d) with averaging and the 388k pretraining scored 49.6
(train alone) and 51.7 (train and dev, shipped before distillation); the
student (g) scores 54.1 (P 55.1, R 53.2) trained with train alone and
54.8 (P 55.1, R 54.4) trained with train and dev; with mention replacement
(j), 53.7 (P 54.4, R 53.0) and, as shipped, **55.1** (P 55.4, R 54.7). On
test, then, (j) gains less than on dev, within seed noise.

``python -m kg.extract.train evaluate-ner --split dev`` scores the shipped
weights (inside the pipeline they run in: :func:`ner_pipeline`) strictly
against *all* gold mentions of a split, nested ones included;
``python -m kg.extract.train speed-ner`` measures words/s on the shipped
corpus's abstracts (one process, ``nlp.pipe`` batches of 64, best of 3), with
and without the recogniser.

Each trainer is one function named in :data:`TRAINERS`, ``train_<name>``;
the claim classifier's lives in :mod:`kg.extract.train_claims` and is
reached through the same command (``python -m kg.extract.train claims``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from kg.extract.model import load_english
from kg.extract.pipeline import NER_COMPONENT, NER_WEIGHTS

if TYPE_CHECKING:
    from spacy.language import Language

    from kg.extract.scoring import Scores

__all__ = [
    "NER_CONFIG",
    "NER_COMPONENT",
    "NER_WEIGHTS",
    "GOLD_COPIES",
    "MENTION_REPLACEMENT",
    "QUORUM",
    "STUDENT_SETTINGS",
    "TEACHER_SEEDS",
    "TRAINERS",
    "evaluate_ner",
    "make_ner_docbins",
    "measure_speed",
    "pretrain_ner_tok2vec",
    "register_callbacks",
    "write_pretraining_text",
    "ner_pipeline",
    "train_ner",
    "unlabelled_abstracts",
]

HERE = Path(__file__).resolve().parent
NER_CONFIG = HERE / "configs" / "ner.cfg"
CORPUS = HERE.parents[1] / "corpus"

#: Trainer name -> "module:function"; each function is called with no arguments
#: and writes its shipped weights.
TRAINERS = {
    "ner": "kg.extract.train:train_ner",
    "claims": "kg.extract.train_claims:train_claims",
}


def make_ner_docbins(out_dir: str | Path, benchmarks_root: str | Path | None = None) -> dict:
    """Write SciERC train and dev as ``train.spacy`` / ``dev.spacy``, and both
    together as ``train_dev.spacy``, in ``out_dir``, tokenised as the English
    pipeline tokenises; return the
    :class:`~kg.extract.benchmarks.scierc.ConversionStats` of each as a dict."""
    from spacy.tokens import DocBin

    from kg.extract.benchmarks.scierc import load_scierc, to_docs

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    english = load_english()
    stats, both = {}, []
    for split in ("train", "dev"):
        docs, split_stats = to_docs(english, load_scierc(split, benchmarks_root))
        crossing = _drop_sentence_crossing(english, docs)
        DocBin(docs=docs, store_user_data=False).to_disk(out_dir / f"{split}.spacy")
        stats[split] = {**split_stats.__dict__, "sentence_crossing_dropped": crossing}
        both += docs
    DocBin(docs=both, store_user_data=False).to_disk(out_dir / "train_dev.spacy")
    return stats


def _drop_sentence_crossing(english: Language, docs: list) -> int:
    """Remove gold mentions that cross a sentence boundary the English parser
    predicts: spaCy's ``ner`` cannot tag them (and cannot be trained on them
    once the parser has run). Return how many went (1 in SciERC train)."""
    dropped = 0
    for doc, parsed in zip(docs, english.pipe((doc.text for doc in docs), batch_size=64)):
        kept = [e for e in doc.ents if not any(parsed[i].is_sent_start for i in range(e.start + 1, e.end))]
        dropped += len(doc.ents) - len(kept)
        doc.ents = kept
    return dropped


#: Seeds of the teachers: recognisers trained alike whose vote labels the
#: silver abstracts the shipped recogniser (the student) learns from.
TEACHER_SEEDS = (0, 1, 2)
#: How many teachers must agree on a mention (span and label) for it to be silver.
QUORUM = 2
#: Copies of the gold documents beside the silver ones (350 SciERC train
#: abstracts x 3 against 3,753 silver), so SciERC's own annotation keeps its weight.
GOLD_COPIES = 3
#: Chance that a mention of a gold copy other than the first is replaced by
#: another of its label (:mod:`kg.extract.augment`); from Dai and Adel's grid, not tuned here.
MENTION_REPLACEMENT = 0.3
#: The student reads about five times the text a teacher does: more steps,
#: and more patience when it keeps the checkpoint best on dev.
STUDENT_SETTINGS = {"training.max_steps": 6000, "training.patience": 3000}


def train_ner(
    output_dir: str | Path = NER_WEIGHTS,
    benchmarks_root: str | Path | None = None,
    config: str | Path = NER_CONFIG,
    overrides: dict | None = None,
    work_dir: str | Path | None = None,
    train_only: bool = False,
) -> Path:
    """Train the SciERC concept recogniser and save its inference pipeline in
    ``output_dir`` (replacing what is there); return ``output_dir``.

    The steps, each writing under ``work_dir``: SciERC as DocBins; the
    unlabelled abstracts (:func:`unlabelled_abstracts`) and the ner's tok2vec
    pretrained on them; one teacher per seed of :data:`TEACHER_SEEDS`,
    trained on SciERC; the teachers' vote on the unlabelled abstracts that
    are not SciERC's (:mod:`kg.extract.distil`); the student, trained on the
    gold documents (:data:`GOLD_COPIES` times) and the silver ones, is what
    ships. Teachers and student learn from SciERC train and dev and keep
    their last checkpoint; ``train_only`` learns from train alone and keeps
    the checkpoint best on dev (how the configuration was chosen), and then
    no unlabelled abstract sharing text with SciERC dev is labelled.

    ``overrides`` are spaCy config overrides for every training run
    (``{"training.max_steps": 100}``). ``work_dir`` keeps every step's
    output (default: a temporary folder, removed afterwards); a step whose
    output is already there is not run again, so an interrupted run
    resumes where it stopped (a work folder therefore serves one
    configuration: change it, use a new folder).
    """
    output_dir = Path(output_dir)
    temporary = work_dir is None
    work = Path(tempfile.mkdtemp(prefix="kg-ner-")) if temporary else Path(work_dir)
    register_callbacks()
    try:
        stats = make_ner_docbins(work / "corpus", benchmarks_root)
        gold = work / "corpus" / ("train.spacy" if train_only else "train_dev.spacy")
        settings = {"paths.dev": str(work / "corpus" / "dev.spacy"), **(overrides or {})}
        abstracts = unlabelled_abstracts(benchmarks_root)
        if "paths.init_tok2vec" not in settings:
            stats["pretraining_words"] = write_pretraining_text(work / "raw.jsonl", abstracts)
            settings["paths.init_tok2vec"] = str(pretrain_ner_tok2vec(config, work / "raw.jsonl", work / "pretrain"))
        teachers = [
            _train_once(config, work / f"teacher-{seed}", {"paths.train": str(gold), "system.seed": seed, **settings}, train_only)
            for seed in TEACHER_SEEDS
        ]
        held_out = ("test",) if not train_only else ("dev", "test")
        texts = [text for source, text in abstracts if not source.startswith("scierc/")]
        texts = _without_text_of(texts, held_out, benchmarks_root)
        student_corpus = work / "student-corpus"
        silver = _write_silver(student_corpus / "silver.spacy", teachers, texts)
        _write_gold_copies(gold, student_corpus)
        student = _train_once(
            config, work / "student", {"paths.train": str(student_corpus), **STUDENT_SETTINGS, **settings}, train_only
        )
        stats["trained_on"] = "train" if train_only else "train+dev"
        stats["distillation"] = {"teacher_seeds": list(TEACHER_SEEDS), "quorum": QUORUM, "gold_copies": GOLD_COPIES,
                                 "mention_replacement": MENTION_REPLACEMENT, **silver}
        _package(student, output_dir, stats, Path(config))
    finally:
        if temporary:
            shutil.rmtree(work, ignore_errors=True)
    return output_dir


def _train_once(config: str | Path, out_dir: Path, settings: dict, train_only: bool) -> Path:
    """Train with spaCy unless ``out_dir`` already holds the run's result;
    return the checkpoint kept: the last one, or with ``train_only`` the
    best on dev (trained on dev too, "best on dev" would only pick the most
    overfitted checkpoint)."""
    from spacy.cli.train import train

    checkpoint = out_dir / ("model-best" if train_only else "model-last")
    if not (checkpoint / "meta.json").exists():
        train(Path(config), out_dir, overrides=settings)
    return checkpoint


def _write_gold_copies(gold: Path, folder: Path) -> None:
    """Write :data:`GOLD_COPIES` copies of the ``gold`` DocBin into ``folder``:
    the first as it is, each other with its mentions replaced
    (:data:`MENTION_REPLACEMENT`), seeded by its number."""
    import random

    from spacy.tokens import DocBin

    from kg.extract.augment import mention_pool, replace_mentions

    english = load_english()
    docs = list(DocBin().from_disk(gold).get_docs(english.vocab))
    pool = mention_pool(docs)
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(gold, folder / "gold-0.spacy")
    for copy in range(1, GOLD_COPIES):
        rng = random.Random(copy)
        altered = [replace_mentions(english, doc, pool, rng, MENTION_REPLACEMENT) for doc in docs]
        _drop_sentence_crossing(english, altered)
        DocBin(docs=altered, store_user_data=False).to_disk(folder / f"gold-{copy}.spacy")


def _write_silver(path: Path, teachers: list[Path], texts: list[str]) -> dict:
    """Label ``texts`` with each teacher pipeline and write the vote as a
    DocBin at ``path`` (unless it is there); return counts."""
    import spacy
    from spacy.tokens import DocBin

    from kg.extract.distil import silver_doc

    english = load_english()
    if path.exists():
        docs = list(DocBin().from_disk(path).get_docs(english.vocab))
    else:
        predictions = []
        for teacher in teachers:
            nlp = spacy.load(teacher)
            predictions.append([
                [(e.start_char, e.end_char, e.label_) for e in doc.ents] for doc in nlp.pipe(texts, batch_size=64)
            ])
        docs = [silver_doc(english, text, [p[i] for p in predictions], QUORUM) for i, text in enumerate(texts)]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        DocBin(docs=docs, store_user_data=False).to_disk(tmp)
        tmp.replace(path)
    return {"silver_abstracts": len(docs), "silver_mentions": sum(len(doc.ents) for doc in docs)}


def _without_text_of(texts: list[str], splits: tuple[str, ...], benchmarks_root: str | Path | None) -> list[str]:
    """``texts`` less any that shares three or more 8-word runs with an
    abstract of SciERC's ``splits``: a copy of a held-out abstract (in another
    benchmark) must not be labelled and learnt from."""
    import re

    from kg.extract.benchmarks.scierc import load_scierc

    def runs(text: str) -> set:
        words = re.findall(r"\w+", text.lower())
        return {tuple(words[i : i + 8]) for i in range(len(words) - 7)}

    held = set().union(*(runs(doc.text) for split in splits for doc in load_scierc(split, benchmarks_root)))
    return [text for text in texts if len(runs(text) & held) < 3]


#: The spaCy callback that puts pretrained weights into the ner's own tok2vec.
PRETRAINED_TOK2VEC_CALLBACK = "kg.ner_tok2vec_from_pretrained.v1"


def register_callbacks() -> None:
    """Register :data:`PRETRAINED_TOK2VEC_CALLBACK` with spaCy (idempotent).

    ``spacy pretrain`` trains a standalone tok2vec; spaCy's own
    ``[initialize] init_tok2vec`` cannot load it into a ``ner`` whose tok2vec
    is inline (the ``ner`` model's ``tok2vec`` ref ends in a projection), so
    this ``[initialize.after_init]`` callback copies the weights into the inner
    ``Tok2Vec`` layer. It only runs when training starts; loading the trained
    pipeline does not need it.
    """
    from spacy.util import registry

    try:
        registry.callbacks.get(PRETRAINED_TOK2VEC_CALLBACK)
        return
    except Exception:  # catalogue.RegistryError: not registered yet
        pass

    def make_loader(path: str | None = None, component: str = "ner"):
        def load(nlp):
            if path:
                inner = nlp.get_pipe(component).model.get_ref("tok2vec").layers[0]
                inner.from_bytes(Path(path).read_bytes())
            return nlp

        return load

    registry.callbacks.register(PRETRAINED_TOK2VEC_CALLBACK, func=make_loader)


#: Benchmarks whose train and dev abstracts serve as unlabelled text (their
#: annotations are not SciERC's and go unused).
UNLABELLED_BENCHMARKS = ("scienceie", "biomed_claims")


def unlabelled_abstracts(benchmarks_root: str | Path | None = None) -> list[tuple[str, str]]:
    """``(source, text)`` of every abstract the recogniser may read without
    its labels, never from a test split: for train then dev, CSAbstruct's
    and SciERC's (detokenised); kg's corpus; then the train and dev abstracts
    of :data:`UNLABELLED_BENCHMARKS`. Sources are ``"<benchmark>/<split>"``
    or ``"corpus"``; the order is fixed, as pretraining depends on it."""
    from kg.corpus import read_paths
    from kg.extract.benchmarks import benchmark_rows
    from kg.extract.benchmarks.csabstruct import load_csabstruct
    from kg.extract.benchmarks.scierc import load_scierc

    abstracts = []
    for split in ("train", "dev"):
        abstracts += [(f"csabstruct/{split}", " ".join(a.sentences)) for a in load_csabstruct(split, benchmarks_root)]
        abstracts += [(f"scierc/{split}", doc.text) for doc in load_scierc(split, benchmarks_root)]
    abstracts += [("corpus", paper.abstract) for paper in read_paths([CORPUS])]
    for name in UNLABELLED_BENCHMARKS:
        for split in ("train", "dev"):
            for _, _, row in benchmark_rows(benchmarks_root, name, split):
                if row["text"].strip():
                    abstracts.append((f"{name}/{split}", row["text"].strip()))
    return abstracts


def write_pretraining_text(path: str | Path, abstracts: list[tuple[str, str]]) -> int:
    """Write the texts of ``abstracts`` (:func:`unlabelled_abstracts`) as the
    ner's tok2vec pretraining input, one ``{"text": ...}`` per line; return
    the number of whitespace-separated words."""
    with Path(path).open("w", encoding="utf-8") as out:
        for _, text in abstracts:
            out.write(json.dumps({"text": text}) + "\n")
    return sum(len(text.split()) for _, text in abstracts)


def pretrain_ner_tok2vec(config: str | Path, raw_text: str | Path, out_dir: str | Path) -> Path:
    """Pretrain the ner's tok2vec as ``config``'s ``[pretraining]`` says, on
    ``raw_text``; return the weights file of the last epoch.

    ``spacy pretrain`` needs the layer's output per token, which the ner's
    inline tok2vec only gives before its projection, so the pretrained model
    is a standalone ``tok2vec`` component built from
    ``[components.ner.model.tok2vec]``. A finished run already in
    ``out_dir`` is kept.
    """
    import copy

    from spacy.training.pretrain import pretrain
    from spacy.util import load_config

    cfg = load_config(Path(config), overrides={"paths.raw_text": str(raw_text)}, interpolate=True)
    tok2vec_model = copy.deepcopy(cfg["components"]["ner"]["model"]["tok2vec"])
    cfg["nlp"]["pipeline"] = ["tok2vec"]
    cfg["components"] = {"tok2vec": {"factory": "tok2vec", "model": tok2vec_model}}
    cfg["training"]["frozen_components"] = []
    cfg["training"]["annotating_components"] = []
    cfg["training"]["score_weights"] = {}
    cfg["initialize"]["after_init"] = None
    cfg["pretraining"]["component"] = "tok2vec"
    cfg["pretraining"]["layer"] = ""
    out_dir = Path(out_dir)
    if not (out_dir / "model-last.bin").exists():
        out_dir.mkdir(parents=True, exist_ok=True)
        pretrain(cfg, out_dir, silent=False)
    return out_dir / "model-last.bin"


def _package(trained: Path, output_dir: Path, stats: dict, config: Path) -> None:
    """Save the trained ``ner`` alone: the frozen English components it was
    trained behind are the English pipeline's own, so they are not shipped."""
    import spacy

    nlp = spacy.load(trained)
    for name in nlp.config["training"]["frozen_components"]:
        if name in nlp.pipe_names:
            nlp.remove_pipe(name)
    nlp.meta.update(
        {
            "name": "scierc_ner",
            "version": "1.0.0",
            "description": (
                "kg's concept recogniser: a spaCy ner for SciERC's 6 entity types, trained by "
                "`python -m kg.extract.train ner`; it runs after en_core_web_sm's "
                "tagger, parser and lemmatizer (kg.extract.train.ner_pipeline)."
            ),
            "sources": [{"name": "SciERC", "url": "http://nlp.cs.washington.edu/sciIE/"}],
            "kg_training": {"config": config.name, "conversion": stats},
        }
    )
    if stats.get("trained_on") == "train+dev":
        nlp.meta.pop("performance", None)  # scores on dev, which it learnt from: meaningless
    if output_dir.exists():
        shutil.rmtree(output_dir)
    nlp.to_disk(output_dir)
    # The training run's temporary paths mean nothing in the shipped copy.
    from spacy.util import load_config

    shipped = load_config(output_dir / "config.cfg", interpolate=False)
    for key in shipped["paths"]:
        shipped["paths"][key] = None
    shipped.to_disk(output_dir / "config.cfg")


def ner_pipeline(weights: str | Path = NER_WEIGHTS, nlp: Language | None = None) -> Language:
    """The English pipeline (without its OntoNotes ``ner``) with the trained
    recogniser added last as :data:`NER_COMPONENT`; it sets ``doc.ents``
    (labels: SciERC's six). It reads the ``TAG`` and ``DEP`` the English
    tagger and parser set, so it must run after them; loaded alone
    (``spacy.load(weights)``) it still tags, less well.
    """
    import spacy

    nlp = nlp if nlp is not None else load_english()
    trained = spacy.load(weights)
    nlp.add_pipe("ner", name=NER_COMPONENT, source=trained)
    return nlp


def evaluate_ner(
    split: str = "dev",
    weights: str | Path = NER_WEIGHTS,
    benchmarks_root: str | Path | None = None,
    nlp: Language | None = None,
) -> Scores:
    """Strict entity scores of the recogniser on a SciERC split, against every
    gold mention (nested and misaligned ones count as misses)."""
    from kg.extract.benchmarks.scierc import gold_entities, load_scierc
    from kg.extract.scoring import doc_entities, score_entities

    nlp = nlp if nlp is not None else ner_pipeline(weights)
    docs = load_scierc(split, benchmarks_root)
    predicted = set()
    for sdoc, doc in zip(docs, nlp.pipe([d.text for d in docs], batch_size=64)):
        predicted |= doc_entities(sdoc.doc_key, doc)
    return score_entities(gold_entities(docs), predicted)


def measure_speed(nlp: Language, texts: list[str], batch_size: int = 64, repeats: int = 3) -> float:
    """Words per second of ``nlp.pipe`` over ``texts`` in this process: the
    best of ``repeats`` runs, words counted as whitespace-separated tokens."""
    import time

    words = sum(len(text.split()) for text in texts)
    list(nlp.pipe(texts[:batch_size], batch_size=batch_size))  # warm up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _doc in nlp.pipe(texts, batch_size=batch_size):
            pass
        best = min(best, time.perf_counter() - start)
    return words / best


def _speed(weights: str | Path) -> dict:
    """words/s on the shipped corpus's abstracts: English pipeline alone, then with the recogniser."""
    from kg.corpus import read_paths

    texts = [paper.abstract for paper in read_paths([CORPUS])]
    english = load_english()
    bare = measure_speed(english, texts)
    full = measure_speed(ner_pipeline(weights, load_english()), texts)
    return {"abstracts": len(texts), "words": sum(len(t.split()) for t in texts),
            "english_words_per_s": round(bare), "with_ner_words_per_s": round(full)}


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.extract.train", description=__doc__.split("\n")[0])
    parser.add_argument("what", help=f"a trainer ({', '.join(TRAINERS)}), evaluate-ner or speed-ner")
    parser.add_argument("--output", help="folder for the weights (default: the shipped one)")
    parser.add_argument("--root", help="folder holding the benchmarks (default: ../shared/benchmarks)")
    parser.add_argument("--split", default="dev", help="evaluate-ner: the split to score (default dev)")
    parser.add_argument("--train-only", action="store_true", help="ner: learn from SciERC train alone, keep the checkpoint best on dev")
    parser.add_argument("--work", help="ner: folder for every step's output, to resume an interrupted run (default: a temporary one)")
    args = parser.parse_args(argv)
    if args.what == "speed-ner":
        print(json.dumps(_speed(args.output or NER_WEIGHTS)))
        return 0
    if args.what == "evaluate-ner":
        scores = evaluate_ner(args.split, args.output or NER_WEIGHTS, args.root)
        print(f"SciERC {args.split}, strict entity micro F1 against all gold mentions")
        print(f"{'ALL':20s} {scores.overall.as_row()}")
        for label, score in scores.per_label.items():
            print(f"{label:20s} {score.as_row()}")
        return 0
    if args.what not in TRAINERS:
        parser.error(f"unknown trainer {args.what!r}; use one of {', '.join(TRAINERS)} or evaluate-ner")
    module, function = TRAINERS[args.what].split(":")
    trainer = getattr(importlib.import_module(module), function)
    kwargs = {}
    if args.output:
        kwargs["output_dir"] = args.output
    if args.root:
        kwargs["benchmarks_root"] = args.root
    if args.train_only:
        if args.what != "ner":
            parser.error("--train-only is for the ner trainer")
        kwargs["train_only"] = True
    if args.work:
        if args.what != "ner":
            parser.error("--work is for the ner trainer")
        kwargs["work_dir"] = args.work
    print(json.dumps({"trained": trainer(**kwargs)}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(_main())
