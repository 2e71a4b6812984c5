"""Training kg's default concept recogniser, reproducibly, from ``../shared``.

    # the shipped weights (kg/extract/weights/concepts):
    python -m kg.training.recogniser --work /tmp/kg-concepts --copies 2 --without scier --max-steps 7000 --output kg/extract/weights/concepts
    python -m kg.training.recogniser --work /tmp/kg-concepts --scier-only  # the architecture's SciER benchmark run

Steps (each keeps its output in ``--work``; a step whose output is there is
not run again, so an interrupted run resumes):

1. **Vectors**: floret (``mode="floret"``, CBOW, 128 wide, 50,000 hash rows,
   character 4- and 5-grams, 5 epochs) learned from the titles and abstracts
   of ``corpora/arxiv-cs-2025``, without the held-out test set's abstracts,
   then ``spacy init vectors --mode floret``. A name never seen still gets a
   vector from its pieces.
2. **Data** as DocBins tokenised by the pinned English pipeline:
   kg's own annotation (``annotations/arxiv-cs-2025``: train, ``--copies``
   copies; dev is the dev set), SciER train as prose (:func:`detokenised`;
   ``--without scier`` leaves it out, as the shipped run does), and SciREX's
   training split of abstracts (Material is Dataset). SciER has no
   Metric type, so metric names in it (``data/metric_names.txt``) are
   *missing* (no loss) instead of "not a concept". ``--scier-only``: SciER
   train and dev as written (space-tokenised), for the benchmark figure.
3. **Pretraining** (``--pretrain N``; tried, not in the shipped run: see the
   experiment log): the ``ner``'s own tok2vec learns to
   guess each word's first and last characters from its context
   (``spacy pretrain``'s character objective) on ``N`` arXiv abstracts
   outside the test and dev sets, tagged and parsed by the English pipeline
   so the TAG and DEP it reads are there.
   **Self-training** (``--silver N``; tried, not in the shipped run: see the
   experiment log): N arXiv abstracts no annotation round drew, labelled by
   the shipped default pipeline, join the training data.
4. **Training** with ``configs/concepts.cfg`` (seeded; the ``ner``'s tok2vec
   starting from the pretrained weights when there are any), keeping the
   checkpoint best on dev; its ``ner`` and the vectors are the weights.
   ``--set KEY=VALUE`` (repeatable) overrides a setting of the config (the
   value read as JSON when it is JSON, else as a string), e.g.
   ``--set components.ner.model.tok2vec.encode.width=128``; such a run has
   its own folder in ``--work`` (named by the overrides) and, like
   ``--without`` and ``--silver``, keeps its weights there unless ``--output``
   says otherwise.

The experiments behind these choices are in ``docs/experiments/concepts.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kg.training.arxiv import DEV_SIZE, corpus_path, draw, read_corpus
from kg.training.benchmarks import DEFAULT_ROOT, benchmark_rows

__all__ = ["ANNOTATIONS", "CONFIG", "LABELS", "make_vectors", "make_pretrain_corpus", "pretrain", "make_data", "train", "main"]

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "configs" / "concepts.cfg"
ANNOTATIONS = HERE.parents[1] / "annotations" / "arxiv-cs-2025"
METRIC_NAMES = HERE / "data" / "metric_names.txt"
LABELS = ("Method", "Dataset", "Task", "Metric")
#: The architecture's benchmark figures (README, "Quality, measured").
SCIER_RESULTS = HERE.parents[1] / "benchmarks" / "results" / "scier_recogniser.json"
GOLD_COPIES = 3
SCIREX_TYPES = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}


def _scirex_split(doc_id: str) -> str:
    """The hash split SciREX's README proposes (no official dev/test here)."""
    import hashlib

    bucket = int(hashlib.sha1(doc_id.encode("utf-8")).hexdigest(), 16) % 10
    return "dev" if bucket == 0 else "test" if bucket == 1 else "train"


def make_vectors(work: Path, shared: Path) -> Path:
    """Floret vectors from the arXiv abstracts (never the test set's): a spaCy pipeline folder."""
    out = work / "vectors"
    if (out / "vocab").exists():
        return out
    import floret
    import spacy

    test = set(draw(corpus_path(shared))[0])
    text = work / "arxiv.txt"
    tokenizer = spacy.blank("en")
    with text.open("w", encoding="utf-8") as lines:
        records = (f"{r['title']} {r['abstract']}" for r in read_corpus(corpus_path(shared)) if r["id"] not in test)
        for doc in tokenizer.pipe(records, batch_size=1000):
            lines.write(" ".join(t.text for t in doc if not t.is_space) + "\n")
    model = floret.train_unsupervised(
        str(text), model="cbow", mode="floret", hashCount=2, bucket=50000, minn=4, maxn=5, dim=128, epoch=5, minCount=5, thread=2
    )
    model.save_floret_vectors(str(work / "arxiv.floret"))
    subprocess.run(
        [sys.executable, "-m", "spacy", "init", "vectors", "en", str(work / "arxiv.floret"), str(out), "--mode", "floret"], check=True
    )
    return out


def make_pretrain_corpus(work: Path, shared: Path, size: int, seed: int = 0) -> Path:
    """``size`` arXiv abstracts (seeded; never the test or dev set's) as a
    DocBin, tagged and parsed by the pinned English pipeline."""
    out = work / f"pretrain-{size}.spacy"
    if out.exists():
        return out
    from spacy.tokens import DocBin

    from kg.extract.model import load_english

    test, first, _ = draw(corpus_path(shared))
    unseen = set(test) | set(first[-DEV_SIZE:])
    texts = [r["abstract"] for r in read_corpus(corpus_path(shared)) if r["id"] not in unseen]
    random.Random(seed).shuffle(texts)
    nlp = load_english()
    docs = nlp.pipe(texts[:size], batch_size=256, n_process=2)
    DocBin(docs=docs, attrs=["ORTH", "TAG", "DEP", "HEAD", "SPACY", "SENT_START"], store_user_data=False).to_disk(out)
    return out


def _pretrain_config(vectors: Path, corpus: Path, epochs: int, seed: int):
    """The pretraining config, made from :data:`CONFIG`: a lone ``tok2vec``
    component with exactly the ``ner``'s tok2vec model, so the weights load into it."""
    from thinc.api import Config

    config = Config().from_disk(CONFIG)  # interpolated: the paths are filled in here
    config["nlp"]["pipeline"] = ["encoder"]
    config["components"] = {"encoder": {"factory": "tok2vec", "model": config["components"]["ner"]["model"]["tok2vec"]}}
    config["training"].update(frozen_components=[], annotating_components=[], seed=seed)
    config["initialize"].update(vectors=str(vectors), after_init=None)
    config["corpora"] = {
        "pretrain": {
            "@readers": "spacy.Corpus.v1",
            "path": str(corpus),
            "max_length": 0,
            "gold_preproc": False,
            "limit": 0,
            "augmenter": None,
        }
    }
    config["pretraining"] = {
        "max_epochs": epochs,
        "dropout": 0.2,
        "n_save_every": None,
        "n_save_epoch": None,
        "component": "encoder",
        "layer": "",
        "corpus": "corpora.pretrain",
        "batcher": {"@batchers": "spacy.batch_by_words.v1", "size": 3000, "discard_oversize": False, "tolerance": 0.2, "get_length": None},
        "objective": {"@architectures": "spacy.PretrainCharacters.v1", "maxout_pieces": 3, "hidden_size": 300, "n_characters": 4},
        "optimizer": dict(config["training"]["optimizer"]),
    }
    return config


def pretrain(work: Path, vectors: Path, corpus: Path, epochs: int, seed: int = 0) -> Path:
    """The ``ner``'s tok2vec pretrained on ``corpus`` (``spacy pretrain``'s character objective): its weights file."""
    out = work / f"tok2vec-{corpus.stem}-e{epochs}-seed{seed}"
    weights = out / "model-last.bin"
    if weights.exists():
        return weights
    from spacy.training.pretrain import pretrain as spacy_pretrain

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    spacy_pretrain(_pretrain_config(vectors, corpus, epochs, seed), out, silent=False)
    return weights


def _metric_spans(nlp, doc) -> list:
    matcher = getattr(nlp, "_kg_metric_matcher", None)
    if matcher is None:
        from spacy.matcher import PhraseMatcher

        matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
        names = [n.strip() for n in METRIC_NAMES.read_text(encoding="utf-8").splitlines() if n.strip() and not n.startswith("#")]
        matcher.add("Metric", [nlp.make_doc(n) for n in names])
        nlp._kg_metric_matcher = matcher
    return [doc[s:e] for _, s, e in matcher(doc)]


def to_doc(nlp, text: str, entities: Iterable[tuple[int, int, str]], missing_metrics: bool = False):
    """A training Doc: the entities on spaCy tokens (widened to whole tokens,
    whitespace trimmed; of overlapping ones the longest is kept), optionally
    metric names missing. Mentions that cross a sentence boundary of the
    English parser are dropped: the ``ner`` runs after it and cannot tag them."""
    from spacy.util import filter_spans

    doc = nlp.make_doc(text)
    spans = []
    for s, e, t in entities:
        span = doc.char_span(s, e, label=t, alignment_mode="expand")
        while span is not None and len(span) and (span[0].is_space or span[-1].is_space):
            span = doc[span.start + span[0].is_space : span.end - span[-1].is_space]
            span = doc.char_span(span.start_char, span.end_char, label=t) if len(span) else None
        if span is not None and len(span):
            spans.append(span)
    spans = filter_spans(spans)
    taken = {i for s in spans for i in range(s.start, s.end)}
    missing = [m for m in _metric_spans(nlp, doc) if not taken & set(range(m.start, m.end))] if missing_metrics else []
    doc.set_ents(spans, missing=filter_spans(missing))
    return doc


def drop_sentence_crossing(nlp, docs: list) -> int:
    """Unset gold mentions that cross a sentence boundary the English parser
    predicts (left missing: no loss); how many."""
    dropped = 0
    for doc, parsed in zip(docs, nlp.pipe((d.text for d in docs), batch_size=64)):
        crossing = [e for e in doc.ents if any(parsed[i].is_sent_start for i in range(e.start + 1, e.end))]
        if crossing:
            kept = [e for e in doc.ents if e not in crossing]
            missing = [doc[t.i : t.i + 1] for t in doc if t.ent_iob == 0]
            doc.set_ents(kept, missing=crossing + missing)
            dropped += len(crossing)
    return dropped


def arxiv_docs(nlp, split: str, shared: Path) -> list:
    """kg's annotated abstracts of one split (train, dev; test only for evaluation)."""
    from kg.training.annotation import read_records
    from kg.training.arxiv import abstracts

    records = read_records(ANNOTATIONS / f"{split}.jsonl")
    texts = abstracts([r["id"] for r in records], corpus_path(shared))
    return [to_doc(nlp, texts[r["id"]], [(c["start"], c["end"], c["type"]) for c in r["concepts"]]) for r in records]


def scier_docs(nlp, split: str, root: Path, prose: bool) -> list:
    from kg.training.benchmarks.scier import detokenised, load_scier

    sentences = [detokenised(s) if prose else s for s in load_scier(split, root)]
    return [to_doc(nlp, s.text, s.entities, missing_metrics=True) for s in sentences]


def scirex_docs(nlp, root: Path, split: str = "train") -> list:
    docs = []
    for _, _, row in benchmark_rows(root, "scirex", "abstracts"):
        if _scirex_split(row["doc_id"]) != split:
            continue
        for section in row["sections"]:
            ents = [(e["start"], e["end"], SCIREX_TYPES[e["type"]]) for e in section["entities"]]
            docs.append(to_doc(nlp, section["text"], ents))
    return docs


def _write(docs: list, path: Path) -> int:
    from spacy.tokens import DocBin

    DocBin(docs=docs, store_user_data=False).to_disk(path)
    return len(docs)


def make_silver(work: Path, shared: Path, size: int, seed: int = 0) -> Path:
    """``size`` arXiv abstracts no annotation round drew (seeded), labelled by
    the shipped default pipeline's concept mentions (rules, lexicon and the
    recogniser together): what self-training distils back into the ``ner``."""
    out = work / f"silver-{size}.spacy"
    if out.exists():
        return out
    from kg.extract.extractor import doc_to_extraction
    from kg.extract.model import load_english
    from kg.extract.pipeline import build_nlp

    test, first, more = draw(corpus_path(shared))
    drawn = set(test) | set(first) | set(more)
    texts = [r["abstract"] for r in read_corpus(corpus_path(shared)) if r["id"] not in drawn and 60 <= len(r["abstract"].split()) <= 400]
    random.Random(seed).shuffle(texts)
    pipeline, english = build_nlp(), load_english()
    docs = []
    for doc in pipeline.pipe(texts[:size], batch_size=64):
        extraction = doc_to_extraction(doc, "silver")
        docs.append(to_doc(english, doc.text, [(m.start, m.end, m.concept_type) for m in extraction.mentions]))
    _write(docs, out)
    return out


def make_data(
    work: Path, shared: Path, scier_only: bool, copies: int = GOLD_COPIES, without: tuple[str, ...] = (), silver: Path | None = None
) -> tuple[Path, Path, dict]:
    """(train DocBin, dev DocBin, counts)."""
    train, dev, counts_file = work / "train.spacy", work / "dev.spacy", work / "data.json"
    if train.exists() and dev.exists() and counts_file.exists():
        return train, dev, json.loads(counts_file.read_text())
    from spacy.tokens import DocBin

    from kg.extract.model import load_english

    nlp = load_english()
    root = shared / "benchmarks"
    if scier_only:
        gold, dev_docs = scier_docs(nlp, "train", root, prose=False), scier_docs(nlp, "dev", root, prose=False)
        counts = {"crossing a sentence": drop_sentence_crossing(nlp, gold + dev_docs)}
        counts["scier/train"] = _write(gold, train)
        counts["scier/dev"] = _write(dev_docs, dev)
    else:
        gold = arxiv_docs(nlp, "train", shared)
        scier = scier_docs(nlp, "train", root, prose=True) if "scier" not in without else []
        scirex = scirex_docs(nlp, root) if "scirex" not in without else []
        dev_docs = arxiv_docs(nlp, "dev", shared)
        dropped = drop_sentence_crossing(nlp, gold + scier + scirex + dev_docs)
        silver_docs = list(DocBin().from_disk(silver).get_docs(nlp.vocab)) if silver else []
        counts = {
            f"arxiv/train x{copies}": len(gold),
            "scier/train": len(scier),
            "scirex/train": len(scirex),
            "crossing a sentence": dropped,
            **({"arxiv/silver": len(silver_docs)} if silver else {}),
        }
        _write(gold * copies + scier + scirex + silver_docs, train)
        counts["arxiv/dev"] = _write(dev_docs, dev)
    counts_file.write_text(json.dumps(counts, indent=1))
    return train, dev, counts


def train(
    work: Path,
    train_path: Path,
    dev_path: Path,
    vectors: Path,
    seed: int = 0,
    overrides: dict | None = None,
    tok2vec: Path | None = None,
) -> Path:
    """Train with :data:`CONFIG` (the ``ner``'s tok2vec starting from the
    pretrained ``tok2vec`` weights when given); the best checkpoint's folder."""
    from spacy import util
    from spacy.training.initialize import init_nlp
    from spacy.training.loop import train as train_nlp

    out = work / (f"model-seed{seed}" + (f"-{tok2vec.parent.name}" if tok2vec else ""))
    if not (out / "model-last" / "meta.json").exists():  # written when a run ends; model-best is written during it
        settings = {
            "paths.train": str(train_path),
            "paths.dev": str(dev_path),
            "paths.vectors": str(vectors),
            "system.seed": seed,
            **(overrides or {}),
        }
        nlp = init_nlp(util.load_config(CONFIG, overrides=settings, interpolate=False))
        if tok2vec:
            # The ner's model is chain(tok2vec, list2array, Linear): the pretrained part is the first.
            ner: Any = nlp.get_pipe("ner")
            ner.model.get_ref("tok2vec").layers[0].from_bytes(tok2vec.read_bytes())
        out.mkdir(parents=True, exist_ok=True)
        train_nlp(nlp, out, stdout=sys.stdout, stderr=sys.stderr)
    return out / "model-best"


def package(best: Path, output: Path, counts: dict, scores: dict) -> None:
    """The shipped weights: the ner and the vectors, with what they learned from."""
    import spacy

    trained = spacy.load(best)
    keep = spacy.blank("en", vocab=trained.vocab)
    keep.add_pipe("ner", source=trained)
    tmp = output.with_name(output.name + ".new")
    shutil.rmtree(tmp, ignore_errors=True)
    keep.to_disk(tmp)
    meta = json.loads((tmp / "meta.json").read_text())
    # A span's confidence is its type's precision on the dev split.
    confidence = {kind: round(v["p"], 3) for kind, v in (scores.get("ents_per_type") or {}).items()}
    licenses = {k: v for k, v in LICENSES.items() if k != "SciER" or counts.get("scier/train", 0)}
    meta.update({"name": "kg_concepts", "trained_on": counts, "dev_scores": scores, "confidence": confidence, "licenses": licenses})
    (tmp / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    (tmp / "LICENSE").write_text(weights_notice(counts), encoding="utf-8")
    if counts.get("scier/train", 0):
        shutil.copyfile(HERE / "data" / "GPL-3.0.txt", tmp / "COPYING")
    if output.exists():
        shutil.rmtree(output)
    tmp.rename(output)


LICENSES = {
    "annotations/arxiv-cs-2025": "kg's own annotation (MIT, with kg); abstracts from arXiv metadata, not shipped",
    "SciER": "GPL-3.0 (github.com/edzq/SciER)",
    "SciREX": "Apache-2.0 (github.com/allenai/SciREX)",
    "floret vectors": "learned from arXiv cs.AI/CL/IR abstracts 2024-12..2026-08 (arXiv metadata)",
}


def weights_notice(counts: dict) -> str:
    """The weights folder's LICENSE: what they learned from, and the licence that follows."""
    scier = counts.get("scier/train", 0) > 0
    lines = [
        "These weights (kg's concept recogniser) were trained on:",
        "",
        "* kg's own annotation of arXiv abstracts (annotations/arxiv-cs-2025/train.jsonl; MIT, with kg);",
        "* SciREX's training documents (Jain et al. 2020, https://github.com/allenai/SciREX), Apache-2.0;",
        "* floret vectors learned from arXiv cs.AI / cs.CL / cs.IR abstracts (arXiv metadata).",
    ]
    if scier:
        lines += [
            "* SciER train (Zhang et al. 2024, https://github.com/edzq/SciER), which its",
            "  repository distributes under the GNU General Public License, version 3.",
            "",
            "Because they learn from SciER, treat these weights as a work derived from",
            "GPL-3.0 material: they are distributed under the GNU General Public License,",
            "version 3 (the text is in COPYING). The rest of kg is MIT.",
        ]
    else:
        lines += ["", "They did not learn from SciER (GPL-3.0): like the rest of kg, they are MIT."]
    return "\n".join(lines) + "\n"


def parse_setting(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as a config override: the value as JSON when it parses, else the string."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key.strip(), json.loads(value)
    except ValueError:
        return key.strip(), value


def settings_name(settings: dict) -> str:
    """A folder name for a run's overrides (sorted, file-name safe; hashed past 120 characters)."""
    import hashlib
    import re

    name = "-".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in sorted(settings.items()))
    name = re.sub(r"[^A-Za-z0-9._=+-]", "_", name)
    if len(name) > 120:
        name = name[:110] + "-" + hashlib.sha1(json.dumps(settings, sort_keys=True).encode("utf-8")).hexdigest()[:8]
    return name


def _dev_f1(best: Path) -> float:
    return round(100 * json.loads((best / "meta.json").read_text())["performance"]["ents_f"], 1)


def score_on_scier(best: Path, root: Path, splits: tuple[str, ...] = ("test", "test_ood")) -> dict:
    """Strict entity F1 (per type, micro) of the recogniser alone on SciER's
    held-out splits, on the sentence text as given: the architecture's benchmark."""
    import spacy

    from kg.extract.model import load_english
    from kg.training.benchmarks.scier import load_scier
    from kg.training.evaluation import score_scier

    trained = spacy.load(best)
    nlp = load_english()
    nlp.vocab.vectors = trained.vocab.vectors
    nlp.add_pipe("ner", source=trained)
    results = {}
    for split in splits:
        sentences = list(load_scier(split, root))
        predictions: Iterable[tuple[list, list]] = (
            ([(e.start_char, e.end_char, e.label_, e.text, 1.0, "ner") for e in doc.ents], [])
            for doc in nlp.pipe((s.text for s in sentences), batch_size=64)
        )
        rows = score_scier(f"SciER {split}", "recogniser alone", sentences, predictions)
        results[split] = {r.label: round(100 * r.score.f1, 1) for r in rows if r.measure.startswith("concept")}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.training.recogniser", description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="folder for every step's output (resumable)")
    parser.add_argument("--shared", type=Path, default=DEFAULT_ROOT.parent, help="the folder holding benchmarks/ and corpora/")
    parser.add_argument("--scier-only", action="store_true", help="train on SciER train alone (the benchmark run)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--copies", type=int, default=GOLD_COPIES, help=f"copies of kg's annotated abstracts in the training data (default {GOLD_COPIES})"
    )
    parser.add_argument(
        "--without", action="append", choices=("scier", "scirex"), default=[], help="leave a benchmark out (the ablation runs)"
    )
    parser.add_argument("--max-steps", type=int, help="override [training] max_steps")
    parser.add_argument("--pretrain", type=int, default=0, metavar="N", help="pretrain the ner's tok2vec on N arXiv abstracts first")
    parser.add_argument("--pretrain-epochs", type=int, default=2)
    parser.add_argument(
        "--silver", type=int, default=0, metavar="N", help="self-training: add N unannotated abstracts labelled by the shipped pipeline"
    )
    parser.add_argument(
        "--set",
        action="append",
        type=parse_setting,
        default=[],
        metavar="KEY=VALUE",
        help="override a config setting (JSON value, else string; repeatable): an experiment, in its own folder",
    )
    parser.add_argument("--output", type=Path, help="write the weights here (default: kg/extract/weights/concepts)")
    args = parser.parse_args(argv)
    settings = dict(args.set)
    if settings and args.pretrain:
        parser.error("--set with --pretrain: the pretraining config does not take the overrides")
    args.work.mkdir(parents=True, exist_ok=True)
    vectors = make_vectors(args.work, args.shared)
    variant = "scier" if args.scier_only else "-".join(["mix", f"x{args.copies}", *(f"no-{w}" for w in sorted(args.without))])
    variant += f"-silver{args.silver}" if args.silver else ""
    variant += f"-set-{settings_name(settings)}" if settings else ""
    data_dir = args.work / variant
    data_dir.mkdir(exist_ok=True)
    silver = make_silver(args.work, args.shared, args.silver, seed=args.seed) if args.silver and not args.scier_only else None
    train_path, dev_path, counts = make_data(data_dir, args.shared, args.scier_only, args.copies, tuple(args.without), silver)
    overrides = {**({"training.max_steps": args.max_steps} if args.max_steps else {}), **settings}
    tok2vec = None
    if args.pretrain:
        corpus = make_pretrain_corpus(args.work, args.shared, args.pretrain)
        tok2vec = pretrain(args.work, vectors, corpus, args.pretrain_epochs, seed=args.seed)
    best = train(data_dir, train_path, dev_path, vectors, seed=args.seed, overrides=overrides, tok2vec=tok2vec)
    if args.scier_only:
        scores = score_on_scier(best, args.shared / "benchmarks")
        # Only the shipped architecture's run is the README's benchmark; an experiment's stays in its folder.
        results = data_dir / f"{best.parent.name}.json" if tok2vec or settings else SCIER_RESULTS
        results.write_text(json.dumps({"checkpoint": best.name, "dev_f1": _dev_f1(best), **scores}, indent=1) + "\n")
        print(json.dumps(scores))
    else:
        from kg.extract.pipeline import CONCEPT_WEIGHTS

        scores = json.loads((best / "meta.json").read_text()).get("performance", {})
        # An ablation or experiment run's weights stay in its work folder unless --output says otherwise.
        default = data_dir / "weights" if args.without or args.silver or settings else CONCEPT_WEIGHTS
        package(best, args.output or default, counts, scores)
    print(best)
    return 0


if __name__ == "__main__":
    sys.exit(main())
