"""Training and measuring ``kg_relation_model`` (kg/extract/components/relation_model.py).

One seeded command reproduces the shipped weights and every figure::

    nice python -m kg.training.relations train            # ../shared, seed 0

It (1) trains on SciER train alone, picks the epoch and threshold on SciER
dev and scores SciER test and test_ood; (2) trains the shipped model on
SciER train and kg's arXiv train annotation (when present), picks on the
arXiv dev split (else SciER dev) and scores the arXiv dev split; (3) runs the
rule component ``kg_relations`` on the same gold entities as a baseline,
and (4) writes the weights (with ``meta.json`` and SciER's GPL-3.0 notice)
and ``benchmarks/results/relations.json``. ``annotations/arxiv-cs-2025/test.jsonl``
is never read here.

Every figure uses gold entities: the relation is scored, not the recogniser.
A predicted relation matches a gold one when both ends and the type match
(``comparedWith`` in either order). SciER's Used-For between two methods
means the *tail* uses the head ("dropout Used-For BERT": BERT uses dropout),
so those pairs are turned round here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

import argparse
import hashlib
import inspect
import json
import pickle
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kg.extract.components.relation_model import (
    DEFAULT_WEIGHTS,
    FEATURE_VERSION,
    LABELS,
    RELATION_SIGNATURES,
    SYMMETRIC,
    RelationModel,
    candidates,
    feature_matrix,
    to_input,
)
from kg.extract.spans import ConceptSpan, RelationSpan
from kg.training.benchmarks import DEFAULT_ROOT

__all__ = ["Example", "scier_examples", "arxiv_examples", "featurise", "fit", "score", "rule_predictions", "main"]

REPO = Path(__file__).resolve().parents[2]
ANNOTATIONS = REPO / "annotations" / "arxiv-cs-2025"
RESULTS = REPO / "benchmarks" / "results" / "relations.json"
CACHE = Path.home() / ".cache" / "kg" / "relations"
SCIER_REPOSITORY = "https://github.com/edzq/SciER"
#: Where a GPL-3.0 text may be found on this machine, for the weights' LICENSE.
GPL_CANDIDATES = (REPO / "kg" / "training" / "data" / "GPL-3.0.txt", Path("/usr/share/common-licenses/GPL-3"))


@dataclass
class Example:
    """One text with gold concepts and gold relations (head index, relation, tail index)."""

    key: str
    text: str
    concepts: list[ConceptSpan]
    gold: set[tuple[int, str, int]]
    by_label: bool = False  # score by (sentence, labels) rather than mention indexes (kg's annotation)
    meta: dict = field(default_factory=dict)


# -- data ------------------------------------------------------------------------------------------------------------


def scier_examples(split: str, root: Path | None = None, part_of_as_uses: bool = False) -> list[Example]:
    """SciER sentences as prose (:func:`~kg.training.benchmarks.scier.detokenised`), their
    relations mapped to kg's; Part-Of, Synonym-Of, SubClass-Of, SubTask-Of and pairs of other
    types have no kg relation (they are negatives like every other candidate pair).
    ``part_of_as_uses``: "A Part-Of B" between methods counts as "B uses A" (for training sets only)."""
    from kg.training.benchmarks.scier import detokenised, load_scier, map_relation

    examples = []
    for sentence in load_scier(split, root):
        prose = detokenised(sentence)
        concepts = [ConceptSpan(s, e, t, prose.text[s:e], 1.0, "gold") for s, e, t in prose.entities]
        gold = set()
        for h, label, t in prose.relations:
            mapped = map_relation(label, concepts[h].type, concepts[t].type)
            if part_of_as_uses and label == "Part-Of" and concepts[h].type == concepts[t].type == "Method":
                mapped = ("uses", True)  # "A Part-Of B": B uses A, as Used-For reads
            if mapped is None:
                continue
            kind, reversed_ = mapped
            gold.add((t, kind, h) if reversed_ else (h, kind, t))
        examples.append(Example(f"{sentence.doc_id}:{sentence.index}", prose.text, concepts, gold))
    return examples


def arxiv_examples(path: Path, shared: Path | None = None) -> list[Example]:
    """kg's annotation records: a relation holds between every pair of mentions of its two
    labels inside its sentence."""
    from kg.training.annotation import read_records
    from kg.training.arxiv import abstracts, corpus_path, text_digest

    if path.name == "test.jsonl":
        raise ValueError("the held-out arXiv test set is never used for training or tuning")
    records = read_records(path)
    texts = abstracts([r["id"] for r in records], corpus_path(shared) if shared else None)
    examples = []
    for record in records:
        text = texts.get(record["id"])
        if text is None or text_digest(text) != record["digest"]:
            raise ValueError(f"{path}: abstract {record['id']} is missing from the corpus or has changed")
        concepts = [ConceptSpan(c["start"], c["end"], c["type"], c["label"], 1.0, "gold", c["proposed"]) for c in record["concepts"]]
        gold = set()
        for rel in record["relations"]:
            heads = [i for i, c in enumerate(concepts) if c.label == rel["head"] and rel["start"] <= c.start < rel["end"]]
            tails = [i for i, c in enumerate(concepts) if c.label == rel["tail"] and rel["start"] <= c.start < rel["end"]]
            gold |= {(h, rel["type"], t) for h in heads for t in tails if h != t}
        examples.append(Example(record["id"], text, concepts, gold, by_label=True, meta={"relations": record["relations"]}))
    return examples


# -- features --------------------------------------------------------------------------------------------------------


@dataclass
class Features:
    """Every candidate pair of a set of examples: model inputs (dense rows and hashed
    indexes), gold label index, and which example / candidate each row is."""

    dense: np.ndarray
    hashed: list[list[int]]
    labels: np.ndarray  # label indexes
    rows: list[tuple[int, int, int, int, int]]  # (example, head, tail, sentence start, sentence end)
    type_pairs: list[tuple[str, str]]
    sentence_bounds: list[list[tuple[int, int]]]
    hash_size: int


def _digest(examples: Sequence[Example], hash_size: int) -> str:
    import spacy

    from kg.extract.components import relation_model

    digest = hashlib.sha256(f"{FEATURE_VERSION} {hash_size} {spacy.__version__}".encode())
    # The code that computes features (not the rest of the module: a docstring edit keeps the cache).
    for part in (
        relation_model._token_spans,
        relation_model.candidates,
        relation_model._bucket,
        relation_model._View,
        relation_model._path,
        relation_model.pair_features,
        relation_model.feature_matrix,
    ):
        digest.update(inspect.getsource(part).encode())
    digest.update(
        repr(
            (relation_model.TYPE_PAIRS, relation_model._DISTANCE_BUCKETS, relation_model._BETWEEN_BUCKETS, relation_model._MAX_PATH)
        ).encode()
    )
    for e in examples:
        digest.update(json.dumps([e.key, e.text, e.concepts]).encode())
    return digest.hexdigest()[:20]


def _gold_label(gold: set[tuple[int, str, int]], head: int, tail: int) -> int:
    for k, label in enumerate(LABELS[1:], start=1):
        if (head, label, tail) in gold or (label in SYMMETRIC and (tail, label, head) in gold):
            return k
    return 0


def featurise(examples: Sequence[Example], nlp, hash_size: int, name: str = "", cache: Path | None = CACHE) -> Features:
    """Parse the texts with the pinned English pipeline (``doc.tensor`` and sentences as at run
    time) and compute every candidate's features, once: the result is cached by content."""
    import numpy as np

    path = cache / f"{name}-{_digest(examples, hash_size)}.pkl" if cache is not None else None
    if path is not None and path.exists():
        stored = pickle.loads(path.read_bytes())
        features = Features(**stored) if isinstance(stored, dict) else stored
    else:
        dense, hashed, rows, pairs, bounds = [], [], [], [], []
        for index, (example, doc) in enumerate(zip(examples, nlp.pipe((e.text for e in examples), batch_size=64))):
            found = candidates(doc, example.concepts)
            matrix, indexes = feature_matrix(doc, example.concepts, found, hash_size)
            dense.append(matrix)
            hashed += indexes
            rows += [(index, c.head, c.tail, c.start, c.end) for c in found]
            pairs += [(example.concepts[c.head].type, example.concepts[c.tail].type) for c in found]
            bounds.append([(s.start_char, s.end_char) for s in doc.sents])
        features = Features(np.vstack(dense).astype("float32"), hashed, np.zeros(len(rows), dtype="int64"), rows, pairs, bounds, hash_size)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(pickle.dumps(dict(vars(features))))  # plain data: readable whatever module ran it
    # Gold labels (and rows left out) are applied here, so the cache holds only what the text decides.
    keep = [k for k, r in enumerate(features.rows) if not ({(r[1], r[2]), (r[2], r[1])} & examples[r[0]].meta.get("skip", set()))]
    features.dense = features.dense[keep]
    features.hashed = [features.hashed[k] for k in keep]
    features.rows = [features.rows[k] for k in keep]
    features.type_pairs = [features.type_pairs[k] for k in keep]
    features.labels = np.asarray([_gold_label(examples[r[0]].gold, r[1], r[2]) for r in features.rows], dtype="int64")
    return features


# -- training --------------------------------------------------------------------------------------------------------


@dataclass
class Settings:
    seed: int = 0
    epochs: int = 6
    hidden: int = 128
    hash_size: int = 2048
    dropout: float = 0.2
    learn_rate: float = 1e-3
    batch_size: int = 128
    none_weight: float = 1.0  # loss weight of "none" rows
    thresholds: tuple[float, ...] = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)


def _batch_input(features: Features, order) -> np.ndarray:
    return to_input(features.dense[order], [features.hashed[i] for i in order], features.hash_size)


def predict(model: RelationModel, features: Features) -> np.ndarray:
    """Probabilities of every row of ``features``."""
    import numpy as np

    out = []
    for start in range(0, len(features.rows), 2048):
        order = np.arange(start, min(start + 2048, len(features.rows)))
        out.append(model.probabilities(_batch_input(features, order), [features.type_pairs[i] for i in order]))
    return np.vstack(out) if out else np.zeros((0, len(LABELS)))


def fit(
    train: Sequence[tuple[Features, float]], dev: Sequence[tuple[Sequence[Example], Features]], settings: Settings, log=print
) -> tuple[RelationModel, dict]:
    """Train on ``train`` ((features, weight) pairs: a weight > 1 repeats rows of that set in
    each epoch), keep the epoch and the threshold with the best micro F1 on ``dev``."""
    import numpy as np
    from thinc.api import Adam, fix_random_seed

    fix_random_seed(settings.seed)
    rng = np.random.default_rng(settings.seed)
    relation_model = RelationModel.new(hash_size=settings.hash_size, hidden=settings.hidden, dropout=settings.dropout)
    model = relation_model.model
    optimizer = Adam(settings.learn_rate)
    pool = [(features, i) for features, weight in train for _ in range(max(1, round(weight))) for i in range(len(features.rows))]
    set_index = {id(f): k for k, (f, _) in enumerate(train)}
    best: tuple[float, int, float, bytes] | None = None
    history = []
    for epoch in range(1, settings.epochs + 1):
        order = rng.permutation(len(pool))
        loss = 0.0
        for start in range(0, len(order), settings.batch_size):
            chunk = [pool[k] for k in order[start : start + settings.batch_size]]
            groups: dict[int, list[int]] = {}
            for features, i in chunk:
                groups.setdefault(set_index[id(features)], []).append(i)
            inputs = np.vstack([_batch_input(train[g][0], np.asarray(rows)) for g, rows in groups.items()])
            gold = np.concatenate([train[g][0].labels[np.asarray(rows)] for g, rows in groups.items()])
            scores, backprop = model.begin_update(model.ops.asarray(inputs))
            target = np.zeros_like(scores)
            target[np.arange(len(gold)), gold] = 1.0
            weights = np.where(gold == 0, settings.none_weight, 1.0)[:, None]
            d_scores = (scores - target) * weights / len(gold)
            loss += float(-(np.log(np.clip(scores[np.arange(len(gold)), gold], 1e-9, 1)) * weights[:, 0]).sum())
            backprop(model.ops.asarray(d_scores, dtype="float32"))
            model.finish_update(optimizer)
        results = [_best_threshold(relation_model, examples, features, settings.thresholds) for examples, features in dev]
        f1 = float(np.mean([r[1] for r in results]))
        threshold = float(np.mean([r[0] for r in results]))
        history.append({"epoch": epoch, "loss": round(loss / len(pool), 4), "dev_micro_f1": round(f1, 4), "threshold": threshold})
        log(f"  epoch {epoch:2d}  loss {loss / len(pool):.4f}  dev micro F1 {f1:.4f} (threshold {threshold:.2f})")
        if best is None or f1 > best[0]:
            best = (f1, epoch, threshold, model.to_bytes())
    assert best is not None
    model.from_bytes(best[3])
    relation_model.thresholds = {label: best[2] for label in LABELS[1:]}
    return relation_model, {"epoch": best[1], "threshold": best[2], "dev_micro_f1": round(best[0], 4), "history": history}


def _best_threshold(model: RelationModel, examples, features, thresholds) -> tuple[float, float]:
    probabilities = predict(model, features)
    best = (0.5, -1.0)
    for threshold in thresholds:
        model.thresholds = {label: threshold for label in LABELS[1:]}
        f1 = score(examples, model_predictions(model, examples, features, probabilities))["micro"]["f1"]
        if f1 > best[1]:
            best = (threshold, f1)
    return best


# -- predictions and scores ------------------------------------------------------------------------------------------


def model_predictions(
    model: RelationModel, examples: Sequence[Example], features: Features, probabilities=None
) -> list[list[RelationSpan]]:
    """The model's relations for each example, as the component would write them."""
    from kg.extract.components.relation_model import Candidate

    probabilities = predict(model, features) if probabilities is None else probabilities
    per_example: list[list[int]] = [[] for _ in examples]
    for k, row in enumerate(features.rows):
        per_example[row[0]].append(k)
    out = []
    for example, rows in zip(examples, per_example):
        found = [Candidate(*features.rows[k][1:]) for k in rows]
        out.append(model.relations(example.concepts, found, probabilities[rows]) if rows else [])
    return out


def rule_predictions(examples: Sequence[Example], nlp) -> list[list[RelationSpan]]:
    """The rule component ``kg_relations`` on the gold concepts (after ``kg_proposed``, as at run time)."""
    import spacy

    import kg.extract.components  # noqa: F401  (registers the kg_* factories)

    helper = spacy.blank("en")
    finder = helper.add_pipe("kg_relations")
    marker = helper.add_pipe("kg_proposed")  # the factory's default config, as build_nlp adds it
    out = []
    for example, doc in zip(examples, nlp.pipe((e.text for e in examples), batch_size=64)):
        doc._.kg_concepts = [c._replace(proposed=False) for c in example.concepts]
        doc = finder(marker(doc))
        out.append([RelationSpan(*r) for r in doc._.kg_relations])
    return out


def combine(
    model: Sequence[Sequence[RelationSpan]],
    rules: Sequence[Sequence[RelationSpan]],
    rules_only: set[str],
    union: frozenset[str] | set[str] = frozenset(),
) -> list[list[RelationSpan]]:
    """Per example: the rules' relations of the ``rules_only`` types instead of the model's, and both
    sources' of the ``union`` types."""
    out = []
    for m, r in zip(model, rules):
        kept = [x for x in m if x.relation not in rules_only] + [x for x in r if x.relation in rules_only | union]
        out.append(sorted(set(kept)))
    return out


def own_method(examples: Sequence[Example], rules: Sequence[Sequence[RelationSpan]]) -> list[list[RelationSpan]]:
    """The rules' relations whose head is the paper's own method named outside the sentence ("our method ...")."""
    return [[r for r in found if not r.start <= e.concepts[r.head].start < r.end] for e, found in zip(examples, rules)]


def _key(example: Example, sentence_start: int, head, kind: str, tail) -> tuple:
    ends = [head, tail]
    if kind in SYMMETRIC:
        ends.sort()
    return (example.key, sentence_start, ends[0], kind, ends[1])


def score(examples: Sequence[Example], predictions: Sequence[Sequence[RelationSpan]], rename: dict[str, str] | None = None) -> dict:
    """Precision, recall and F1 per relation type and micro over all, with gold entities.
    SciER relations are compared by mention indexes; kg's annotation by (sentence, head label,
    type, tail label), every annotated relation counted, also those whose head is the paper's
    own method named outside the sentence ("our method"; guideline, "Relations").
    ``rename`` maps predicted types (the rules' ``outperforms`` -> ``comparedWith`` on SciER)."""
    rename = rename or {}
    gold: set[tuple] = set()
    found: set[tuple] = set()
    for example, predicted in zip(examples, predictions):
        concepts = example.concepts
        if example.by_label:
            gold |= {_key(example, r["start"], r["head"], r["type"], r["tail"]) for r in example.meta["relations"]}
            found |= {
                _key(example, r.start, concepts[r.head].label, rename.get(r.relation, r.relation), concepts[r.tail].label)
                for r in predicted
            }
        else:
            gold |= {_key(example, 0, h, kind, t) for h, kind, t in example.gold}
            found |= {_key(example, 0, r.head, rename.get(r.relation, r.relation), r.tail) for r in predicted}
    table = {}
    for kind in [*RELATION_SIGNATURES, "micro"]:
        g = {x for x in gold if kind == "micro" or x[-2] == kind}
        p = {x for x in found if kind == "micro" or x[-2] == kind}
        if kind != "micro" and not g and not p:
            continue
        tp = len(g & p)
        precision = tp / len(p) if p else 0.0
        recall = tp / len(g) if g else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        table[kind] = {"p": round(precision, 4), "r": round(recall, 4), "f1": round(f1, 4), "gold": len(g), "predicted": len(p)}
    return table


# -- the command -----------------------------------------------------------------------------------------------------


def _license_text(notice: str) -> str:
    for candidate in GPL_CANDIDATES:
        path = Path(candidate)
        if path.is_file():
            return notice + "\n\n" + "=" * 78 + "\n\n" + path.read_text(encoding="utf-8")
    return notice + "\n\nThe full text of the GPL-3.0 is at https://www.gnu.org/licenses/gpl-3.0.txt\n"


LICENSE_NOTICE = """kg relation model weights (kg/extract/weights/relations)

These weights were learned from SciER (Zhang et al., EMNLP 2024, "SciER: An
Entity and Relation Extraction Dataset for Datasets, Methods, and Tasks in
Scientific Documents"), repository edzq/SciER (https://github.com/edzq/SciER),
which is distributed under the GNU General Public License, version 3
(GPL-3.0). The weights are a work derived from that data and are distributed
under the same licence, GPL-3.0. They were also learned from kg's own
annotation of arXiv abstracts (annotations/arxiv-cs-2025, train split).
"""


def _print_table(title: str, table: dict) -> None:
    print(f"{title}:")
    for kind, row in table.items():
        print(f"  {kind:13} P {row['p']:.3f}  R {row['r']:.3f}  F1 {row['f1']:.3f}  (gold {row['gold']}, predicted {row['predicted']})")


def train_command(args: argparse.Namespace) -> int:
    from kg.extract.model import load_english

    started = time.time()
    root = args.shared / "benchmarks"
    settings = Settings(
        seed=args.seed, epochs=args.epochs, hidden=args.hidden, hash_size=args.hash_size, dropout=args.dropout, none_weight=args.none_weight
    )
    nlp = load_english()
    print("parsing SciER and computing features (cached after the first run) ...")
    scier = {
        split: scier_examples(split, root, part_of_as_uses=args.part_of_as_uses and split == "train")
        for split in ("train", "dev", "test", "test_ood")
    }
    if args.scier_negatives == "drop":
        # Leave out pairs SciER relates with a label kg has no relation for (Part-Of, Synonym-Of, ...).
        scier["train"] = _drop_unmapped(scier["train"], "train", root)
    features = {split: featurise(examples, nlp, settings.hash_size, f"scier-{split}") for split, examples in scier.items()}
    results: dict = {
        "settings": {k: v for k, v in vars(settings).items() if k != "thresholds"},
        "scier_negatives": args.scier_negatives,
        "part_of_as_uses": args.part_of_as_uses,
        "arxiv_weight": args.arxiv_weight,
        "gold_entities": True,
    }

    print("1. SciER train only; chosen on SciER dev")
    benchmark, chosen = fit([(features["train"], 1.0)], [(scier["dev"], features["dev"])], settings)
    results["scier"] = {"chosen": chosen}
    for split in ("dev", "test", "test_ood"):
        model_table = score(scier[split], model_predictions(benchmark, scier[split], features[split]))
        rules_table = score(scier[split], rule_predictions(scier[split], nlp), rename={"outperforms": "comparedWith"})
        results["scier"][split] = {"model": model_table, "rules": rules_table}
        _print_table(f"SciER {split}, model", model_table)
        _print_table(f"SciER {split}, rules (kg_relations; outperforms counted as comparedWith)", rules_table)

    train_sets = [(features["train"], 1.0)]
    dev_sets = [(scier["dev"], features["dev"])]
    arxiv_train_path, arxiv_dev_path = args.annotations / "train.jsonl", args.annotations / "dev.jsonl"
    arxiv = {}
    if arxiv_train_path.exists() and arxiv_dev_path.exists() and not args.scier_only:
        arxiv = {"train": arxiv_examples(arxiv_train_path, args.shared), "dev": arxiv_examples(arxiv_dev_path, args.shared)}
        arxiv_features = {split: featurise(examples, nlp, settings.hash_size, f"arxiv-{split}") for split, examples in arxiv.items()}
        train_sets.append((arxiv_features["train"], args.arxiv_weight))
        dev_sets = [(arxiv["dev"], arxiv_features["dev"])]
    print(f"2. shipped model: SciER train{' + arXiv train' if arxiv else ''}; chosen on {'arXiv dev' if arxiv else 'SciER dev'}")
    shipped, chosen = fit(train_sets, dev_sets, settings)
    results["shipped"] = {
        "chosen": chosen,
        "trained_on": ["SciER train"]
        + ([f"kg arXiv annotation train ({len(arxiv['train'])} abstracts, annotations/arxiv-cs-2025/train.jsonl)"] if arxiv else []),
    }
    if arxiv:
        examples, feats = arxiv["dev"], arxiv_features["dev"]
        model_rel = model_predictions(shipped, examples, feats)
        rule_rel = rule_predictions(examples, nlp)
        results["arxiv_dev"] = {
            "model": score(examples, model_rel),
            "rules": score(examples, rule_rel),
            "model + rules for outperforms": score(examples, combine(model_rel, rule_rel, {"outperforms"})),
            "model + rules for outperforms, evaluatedOn": score(examples, combine(model_rel, rule_rel, {"outperforms", "evaluatedOn"})),
            "model, union with rules": score(examples, combine(model_rel, rule_rel, set(), set(RELATION_SIGNATURES))),
            "model + rules' own-method relations": score(
                examples, combine(model_rel, own_method(examples, rule_rel), set(), set(RELATION_SIGNATURES))
            ),
            "model + rules' own-method relations + rules for outperforms": score(
                examples,
                combine(combine(model_rel, rule_rel, {"outperforms"}), own_method(examples, rule_rel), set(), set(RELATION_SIGNATURES)),
            ),
            "benchmark model (SciER only)": score(examples, model_predictions(benchmark, examples, feats)),
        }
        for name, table in results["arxiv_dev"].items():
            _print_table(f"arXiv dev, {name}", table)
    for split in ("test", "test_ood"):
        results["scier"][split]["shipped model"] = score(scier[split], model_predictions(shipped, scier[split], features[split]))

    command = "nice python -m kg.training.relations train " + " ".join(args.argv)
    results["command"] = command.strip()
    results["seconds"] = round(time.time() - started)
    if not args.no_write:
        out = args.out
        shipped.config.update({"trained_on": results["shipped"]["trained_on"], "seed": args.seed})
        shipped.to_disk(out)
        meta = {
            "component": "kg_relation_model",
            "trained_on": results["shipped"]["trained_on"],
            "licence": "GPL-3.0 (learned from SciER, edzq/SciER, GPL-3.0; see LICENSE)",
            "seed": args.seed,
            "command": results["command"],
            "settings": results["settings"],
            "chosen": {k: v for k, v in chosen.items() if k != "history"},
            "scores": {
                "scier_test_benchmark_model": results["scier"]["test"]["model"]["micro"],
                "scier_test_ood_benchmark_model": results["scier"]["test_ood"]["model"]["micro"],
                **(
                    {
                        "arxiv_dev": results["arxiv_dev"]["model"]["micro"],
                        "arxiv_dev_with_rules_own_method": results["arxiv_dev"]["model + rules' own-method relations"]["micro"],
                        "arxiv_dev_rules_alone": results["arxiv_dev"]["rules"]["micro"],
                    }
                    if arxiv
                    else {}
                ),
            },
            "gold_entities": True,
        }
        (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        (out / "LICENSE").write_text(_license_text(LICENSE_NOTICE), encoding="utf-8")
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out} and {args.results}")
    print(f"{results['seconds']} s")
    return 0


def _drop_unmapped(examples: list[Example], split: str, root: Path) -> list[Example]:
    """The same examples, marking pairs SciER relates with an unmapped label so featurise skips them."""
    from kg.training.benchmarks.scier import load_scier, map_relation

    skip = {}
    for sentence in load_scier(split, root):
        skip[f"{sentence.doc_id}:{sentence.index}"] = {
            (h, t) for h, label, t in sentence.relations if map_relation(label, sentence.entities[h][2], sentence.entities[t][2]) is None
        }
    for example in examples:
        example.meta["skip"] = skip.get(example.key, set())
    return examples


def speed_command(args: argparse.Namespace) -> int:
    """words/s of the default pipeline with and without kg_relation_model, and the component's own time."""
    from kg.corpus import read_paths
    from kg.extract.model import load_english
    from kg.extract.pipeline import build_nlp
    from kg.training.speed import measure_speed

    texts = [paper.abstract for paper in read_paths([REPO / "corpus"])][: args.abstracts]

    def pipeline():
        try:
            return build_nlp(concepts=args.concepts)
        except TypeError:  # a build_nlp without concept modes
            return build_nlp()

    bare, default = load_english(), pipeline()
    with_model = pipeline()
    with_model.add_pipe("kg_relation_model", after="kg_relations", config={"weights": str(args.weights)})
    speeds = {
        name: measure_speed(nlp, texts, 64, args.repeat)
        for name, nlp in [("en_core_web_sm", bare), ("default pipeline", default), ("default + kg_relation_model", with_model)]
    }
    docs = list(default.pipe(texts, batch_size=64))
    component = with_model.get_pipe("kg_relation_model")
    best = float("inf")
    for _ in range(args.repeat):
        started = time.perf_counter()
        list(component.pipe(docs))
        best = min(best, time.perf_counter() - started)
    words = sum(len(t.split()) for t in texts)
    pairs = sum(len(candidates(d, [ConceptSpan(*c) for c in d._.kg_concepts])) for d in docs)
    for name, value in speeds.items():
        print(f"  {name:30} {value:8.0f} words/s  {value / speeds['en_core_web_sm']:.3f}x bare")
    print(
        f"  kg_relation_model alone: {best:.3f} s for {len(texts)} abstracts ({words} words, {pairs} candidate pairs), "
        f"{1000 * best / len(texts):.2f} ms an abstract"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.training.relations", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    train = sub.add_parser("train", help="train, measure and write the shipped weights and benchmarks/results/relations.json")
    train.add_argument(
        "--shared", type=Path, default=DEFAULT_ROOT.parent, help="folder holding benchmarks/ and corpora/ (default ../shared)"
    )
    train.add_argument("--annotations", type=Path, default=ANNOTATIONS, help="folder with train.jsonl and dev.jsonl")
    train.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS, help="weights folder to write")
    train.add_argument("--results", type=Path, default=RESULTS)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--epochs", type=int, default=Settings.epochs)
    train.add_argument("--hidden", type=int, default=Settings.hidden)
    train.add_argument("--hash-size", type=int, default=Settings.hash_size)
    train.add_argument("--dropout", type=float, default=Settings.dropout)
    train.add_argument("--none-weight", type=float, default=Settings.none_weight, help="loss weight of pairs with no relation")
    train.add_argument("--arxiv-weight", type=float, default=3.0, help="times each arXiv training abstract is seen per epoch")
    train.add_argument(
        "--scier-negatives",
        choices=("keep", "drop"),
        default="keep",
        help="pairs SciER relates with an unmapped label (Part-Of, Synonym-Of ...): negatives, or left out",
    )
    train.add_argument("--part-of-as-uses", action="store_true", help='train on SciER\'s "A Part-Of B" between methods as "B uses A"')
    train.add_argument("--scier-only", action="store_true", help="ignore kg's arXiv annotation")
    train.add_argument("--no-write", action="store_true", help="measure only: write neither weights nor results")
    speed = sub.add_parser(
        "speed", help="words/s of the default pipeline with and without kg_relation_model (run it on one core: taskset -c 0)"
    )
    speed.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS)
    speed.add_argument("--abstracts", type=int, default=200, help="the first N abstracts of the shipped corpus")
    speed.add_argument("--repeat", type=int, default=3)
    speed.add_argument("--concepts", default="rules", help="build_nlp's concept mode (default: rules, which needs no recogniser weights)")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    args.argv = argv[1:]
    return train_command(args) if args.command == "train" else speed_command(args)


if __name__ == "__main__":
    sys.exit(main())
