"""kg_relation_model: relations between the concepts of one sentence, scored by a trained model.

Every ordered pair of concept mentions in one sentence whose types fit a
relation's domain and range (:data:`RELATION_SIGNATURES`) is a candidate;
a thinc network (:func:`build_model`) gives each candidate a probability for
each relation its type pair allows, and for "none". The pair's features
(:func:`pair_features`) are cheap at run time:

- the mean of ``doc.tensor`` rows (en_core_web_sm's tok2vec output, 96 wide,
  computed anyway for the tagger and parser) over the head, the tail, the
  tokens between them and the whole sentence;
- the type pair, which mention comes first, the distance in tokens and the
  number of other concepts between (one-hot buckets);
- hashed indicator features: the lemmas between, two lemmas either side, the
  dependency path between the two mentions' roots and the words it passes
  through, the roots' dependency labels and governing lemmas.

``comparedWith`` is symmetric: it is predicted for either order and written
once, head first in the text. Relations already on the Doc (from
``kg_relations``, when it runs before) are replaced, except those of the
``keep_rules`` types (the model's of those types are then dropped) and, with
``keep_own_method``, those whose head is the paper's own method named
outside the sentence ("our method is evaluated on D"): a pair the model,
which reads two mentions of one sentence, cannot see.

Weights (``config.json`` and ``model.bin``) are written by
:mod:`kg.training.relations` into ``kg/extract/weights/relations``.

Sets ``doc._.kg_relations``: a list of :class:`kg.extract.spans.RelationSpan`
(source ``kg_relation_model``).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.errors import ModelError
from kg.extract.spans import ConceptSpan, RelationSpan
from kg.records import RELATION_SIGNATURES

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "COMPONENT",
    "DEFAULT_WEIGHTS",
    "LABELS",
    "RELATION_SIGNATURES",
    "Candidate",
    "RelationModel",
    "build_model",
    "candidates",
    "feature_matrix",
    "pair_features",
]

COMPONENT = "kg_relation_model"
DEFAULT_WEIGHTS = Path(__file__).resolve().parents[1] / "weights" / "relations"
CONFIG_FILE = "config.json"
MODEL_FILE = "model.bin"
#: Bumped whenever :func:`pair_features` changes: weights record the version they were trained with.
FEATURE_VERSION = 1

SYMMETRIC = frozenset({"comparedWith"})
#: The model's outputs: "none" first, then every relation.
LABELS = ("none", *RELATION_SIGNATURES)
TYPE_PAIRS = tuple(dict.fromkeys(RELATION_SIGNATURES.values()))
_DISTANCE_BUCKETS = (0, 1, 2, 3, 5, 8, 12, 20)  # tokens between: 0, 1, 2, 3-4, 5-7, 8-11, 12-19, 20+
_BETWEEN_BUCKETS = 4  # other concepts between: 0, 1, 2, 3+
_MAX_PATH = 6


class Candidate(tuple):
    """(head, tail, sentence start, sentence end): indexes into the concept list and character offsets."""

    __slots__ = ()

    def __new__(cls, head: int, tail: int, start: int, end: int):
        return tuple.__new__(cls, (head, tail, start, end))

    head = property(lambda self: self[0])
    tail = property(lambda self: self[1])
    start = property(lambda self: self[2])
    end = property(lambda self: self[3])


def _token_spans(doc: Doc, concepts: Sequence[ConceptSpan]) -> list[Span | None]:
    return [doc.char_span(c.start, c.end, alignment_mode="expand") for c in concepts]


def candidates(doc: Doc, concepts: Sequence[ConceptSpan], spans: Sequence[Span | None] | None = None) -> list[Candidate]:
    """The ordered pairs of concept mentions inside one sentence whose (head
    type, tail type) is some relation's signature; two mentions of one label
    are never a pair (kg relates no concept to itself)."""
    spans = _token_spans(doc, concepts) if spans is None else spans
    found = []
    for sentence in doc.sents:
        inside = [i for i, c in enumerate(concepts) if sentence.start_char <= c.start < sentence.end_char and spans[i] is not None]
        for h in inside:
            for t in inside:
                if h == t or concepts[h].label == concepts[t].label:
                    continue
                if (concepts[h].type, concepts[t].type) in TYPE_PAIRS:
                    found.append(Candidate(h, t, sentence.start_char, sentence.end_char))
    return found


def _bucket(value: int, edges: Sequence[int]) -> int:
    return sum(value >= edge for edge in edges[1:])


_HASHES: dict[tuple[str, int], int] = {}


def _hash(feature: str, size: int) -> int:
    """A stable bucket for a feature name (crc32: the same in every process)."""
    key = (feature, size)
    value = _HASHES.get(key)
    if value is None:
        if len(_HASHES) > 200_000:
            _HASHES.clear()
        value = _HASHES[key] = zlib.crc32(feature.encode("utf-8")) % size
    return value


_LOWER: dict[int, str] = {}


def _lower(strings, key: int) -> str:
    value = _LOWER.get(key)
    if value is None:
        if len(_LOWER) > 200_000:
            _LOWER.clear()
        value = _LOWER[key] = strings[key].lower()
    return value


class _View:
    """What the features read of one doc, as plain lists (a spaCy Token per access is slow)."""

    __slots__ = ("lemma", "dep", "pos", "head", "sent_start", "sent_end", "spans", "roots", "chains")

    def __init__(self, doc: Doc, spans: Sequence[Span | None]):
        from spacy.attrs import DEP, HEAD, LEMMA, POS

        strings = doc.vocab.strings
        array = doc.to_array([LEMMA, DEP, POS, HEAD])
        self.lemma = [_lower(strings, key) for key in array[:, 0].tolist()]
        self.dep = [strings[key] for key in array[:, 1].tolist()]
        self.pos = [strings[key] for key in array[:, 2].tolist()]
        self.head = [i + offset for i, offset in enumerate(array[:, 3].astype("int64").tolist())]  # HEAD is relative
        self.sent_start = [0] * len(doc)
        self.sent_end = [0] * len(doc)
        for sentence in doc.sents:
            for i in range(sentence.start, sentence.end):
                self.sent_start[i], self.sent_end[i] = sentence.start, sentence.end
        self.spans = [(s.start, s.end) if s is not None else None for s in spans]
        self.roots = [s.root.i if s is not None else -1 for s in spans]
        self.chains = [self._chain(r) if r >= 0 else [] for r in self.roots]

    def _chain(self, i: int) -> list[int]:
        """The token and its ancestors, up to the sentence root."""
        chain = [i]
        while self.head[chain[-1]] != chain[-1] and len(chain) < 64:
            chain.append(self.head[chain[-1]])
        return chain


def _path(view: _View, h: int, t: int) -> tuple[str, list[str]]:
    """The dependency path between the two mentions' roots (labels with arrows) and the lemmas on it."""
    up, down = view.chains[h], view.chains[t]
    where = {i: k for k, i in enumerate(down)}
    rise_length = next((k for k, i in enumerate(up) if i in where), None)
    if rise_length is None:
        return "none", []
    common = up[rise_length]
    rise, fall = up[:rise_length], down[: where[common]]
    if len(rise) + len(fall) > _MAX_PATH:
        return "long", [view.lemma[common]]
    path = "".join(f"{view.dep[i]}^" for i in rise) + view.pos[common] + "".join(f"v{view.dep[i]}" for i in reversed(fall))
    ends = {view.roots[h], view.roots[t]}
    words = [view.lemma[i] for i in (*rise[1:], common, *fall[1:]) if i not in ends]
    return path, words


def pair_features(view: _View, types: tuple[str, str], candidate: Candidate, hash_size: int) -> tuple[list[float], list[int]]:
    """(dense part without the tensor means, hashed feature indexes) of one candidate."""
    head, tail = view.spans[candidate.head], view.spans[candidate.tail]
    head_first = head[0] <= tail[0]
    first, second = (head, tail) if head_first else (tail, head)
    gap = max(second[0] - first[1], 0)
    between_concepts = sum(1 for s in view.spans if s is not None and s[0] >= first[1] and s[1] <= second[0])
    dense = [0.0] * (len(TYPE_PAIRS) + 1 + len(_DISTANCE_BUCKETS) + _BETWEEN_BUCKETS)
    dense[TYPE_PAIRS.index(types)] = 1.0
    dense[len(TYPE_PAIRS)] = 1.0 if head_first else 0.0
    dense[len(TYPE_PAIRS) + 1 + _bucket(gap, _DISTANCE_BUCKETS)] = 1.0
    dense[len(TYPE_PAIRS) + 1 + len(_DISTANCE_BUCKETS) + min(between_concepts, _BETWEEN_BUCKETS - 1)] = 1.0
    kind = f"{types[0][0]}{types[1][0]}{'hf' if head_first else 'tf'}"
    lemma = view.lemma
    names = [f"k:{kind}"]
    for i in range(first[1], min(second[0], first[1] + 12)):
        names += (f"b:{lemma[i]}", f"b{kind}:{lemma[i]}")
    sentence_start, sentence_end = view.sent_start[first[0]], view.sent_end[first[0]]
    for k, i in enumerate(range(first[0] - 1, max(sentence_start, first[0] - 2) - 1, -1)):
        names.append(f"l{k}:{lemma[i]}")
    for k, i in enumerate(range(second[1], min(sentence_end, second[1] + 2))):
        names.append(f"r{k}:{lemma[i]}")
    path, words = _path(view, candidate.head, candidate.tail)
    names.append(f"p{kind}:{path}")
    names += [f"pw:{w}" for w in words] + [f"pw{kind}:{w}" for w in words]
    h, t = view.roots[candidate.head], view.roots[candidate.tail]
    names += (f"hd:{view.dep[h]}", f"td:{view.dep[t]}", f"hh:{lemma[view.head[h]]}", f"th:{lemma[view.head[t]]}")
    return dense, [_hash(n, hash_size) for n in names]


def feature_matrix(
    doc: Doc, concepts: Sequence[ConceptSpan], found: Sequence[Candidate], hash_size: int, spans: Sequence[Span | None] | None = None
) -> tuple[np.ndarray, list[list[int]]]:
    """(dense rows, hashed indexes per row) of ``found``'s candidates in one doc;
    :func:`to_input` turns them into the model's input. A dense row is the mean
    tensor row over the head, the tail, the tokens between and the sentence,
    then :func:`pair_features`' dense part."""
    import numpy as np

    tensor = doc.tensor
    width = tensor.shape[1] if tensor is not None and tensor.ndim == 2 else 0
    if not found:
        return np.zeros((0, dense_width(width)), dtype="float32"), []
    if tensor is None or tensor.ndim != 2 or tensor.shape[0] != len(doc):
        raise ModelError(
            f"{COMPONENT} needs doc.tensor (the tok2vec output of en_core_web_sm); add the component to a pipeline that has tok2vec"
        )
    spans = _token_spans(doc, concepts) if spans is None else spans
    view = _View(doc, spans)
    ranges, dense, hashed = [], [], []
    for candidate in found:
        head, tail = view.spans[candidate.head], view.spans[candidate.tail]
        first, second = (head, tail) if head[0] <= tail[0] else (tail, head)
        ranges.append((*head, *tail, first[1], max(first[1], second[0]), view.sent_start[head[0]], view.sent_end[head[0]]))
        row, indexes = pair_features(view, (concepts[candidate.head].type, concepts[candidate.tail].type), candidate, hash_size)
        dense.append(row)
        hashed.append(indexes)
    # Means over token ranges from prefix sums: one numpy step for every candidate.
    sums = np.vstack([np.zeros((1, width)), np.cumsum(np.asarray(tensor, dtype="float64"), axis=0)])
    bounds = np.asarray(ranges, dtype="int64").reshape(len(found), 4, 2)
    lengths = bounds[:, :, 1] - bounds[:, :, 0]
    means = (sums[bounds[:, :, 1]] - sums[bounds[:, :, 0]]) / np.maximum(lengths, 1)[:, :, None]
    return np.hstack([means.reshape(len(found), 4 * width), np.asarray(dense)]).astype("float32"), hashed


def dense_width(tensor_width: int) -> int:
    return 4 * tensor_width + len(TYPE_PAIRS) + 1 + len(_DISTANCE_BUCKETS) + _BETWEEN_BUCKETS


def to_input(dense: np.ndarray, hashed: Sequence[Sequence[int]], hash_size: int) -> np.ndarray:
    """The model's input: the dense rows, then one 0/1 column per hash bucket."""
    import numpy as np

    sparse = np.zeros((len(hashed), hash_size), dtype="float32")
    for row, indexes in enumerate(hashed):
        sparse[row, list(indexes)] = 1.0
    return np.hstack([dense, sparse]) if len(hashed) else np.zeros((0, dense.shape[1] + hash_size), dtype="float32")


def build_model(n_in: int, hidden: int, dropout: float = 0.0):
    """Input -> ReLU layer -> softmax over :data:`LABELS` (thinc)."""
    from thinc.api import Model, Relu, Softmax, chain

    model: Model = chain(Relu(nO=hidden, nI=n_in, dropout=dropout), Softmax(nO=len(LABELS), nI=hidden))
    model.initialize()
    return model


def _allowed_mask(pairs: Iterable[tuple[str, str]]) -> np.ndarray:
    import numpy as np

    return np.array([[1.0] + [float(RELATION_SIGNATURES[label] == pair) for label in LABELS[1:]] for pair in pairs], dtype="float32")


class RelationModel:
    """Scores candidate pairs; writes ``doc._.kg_relations``."""

    def __init__(self, model, config: dict, keep_rules: Sequence[str] = (), keep_own_method: bool = False):
        self.model = model
        self.config = config
        self.hash_size = int(config["hash_size"])
        self.thresholds = {label: float(config.get("thresholds", {}).get(label, 0.5)) for label in LABELS[1:]}
        self.keep_rules = tuple(keep_rules)
        self.keep_own_method = bool(keep_own_method)

    # -- weights ---------------------------------------------------------------
    @classmethod
    def new(cls, tensor_width: int = 96, hash_size: int = 2048, hidden: int = 128, dropout: float = 0.0, **config) -> RelationModel:
        """A fresh, untrained model."""
        settings = {
            "feature_version": FEATURE_VERSION,
            "labels": list(LABELS),
            "tensor_width": tensor_width,
            "hash_size": hash_size,
            "hidden": hidden,
            **config,
        }
        return cls(build_model(dense_width(tensor_width) + hash_size, hidden, dropout), settings)

    @classmethod
    def load(cls, path: str | Path = DEFAULT_WEIGHTS, keep_rules: Sequence[str] = (), keep_own_method: bool = False) -> RelationModel:
        """Read weights written by :meth:`to_disk`; a missing or damaged folder is a ModelError."""
        path = Path(path)
        hint = "rebuild it with `python -m kg.training.relations train` (or restore kg/extract/weights/relations)"
        try:
            config = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
            data = (path / MODEL_FILE).read_bytes()
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot load the relation model from {path} ({exc.__class__.__name__}: {exc}); {hint}") from exc
        if not isinstance(config, dict) or config.get("feature_version") != FEATURE_VERSION or tuple(config.get("labels", ())) != LABELS:
            raise ModelError(f"the relation model in {path} was trained for other features or labels than this kg computes; {hint}")
        try:
            relation_model = cls.new(
                config["tensor_width"],
                config["hash_size"],
                config["hidden"],
                **{k: v for k, v in config.items() if k not in {"tensor_width", "hash_size", "hidden"}},
            )
            relation_model.model.from_bytes(data)
        except Exception as exc:  # thinc/msgpack raise many kinds on bad bytes
            raise ModelError(f"the relation model in {path} is damaged ({exc.__class__.__name__}: {exc}); {hint}") from exc
        relation_model.config = config
        relation_model.thresholds = {label: float(config.get("thresholds", {}).get(label, 0.5)) for label in LABELS[1:]}
        relation_model.keep_rules = tuple(keep_rules)
        relation_model.keep_own_method = bool(keep_own_method)
        return relation_model

    def to_disk(self, path: str | Path, exclude: Iterable[str] = ()) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        config = {**self.config, "thresholds": self.thresholds}
        (path / CONFIG_FILE).write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        (path / MODEL_FILE).write_bytes(self.model.to_bytes())

    def from_disk(self, path: str | Path, exclude: Iterable[str] = ()) -> RelationModel:
        loaded = RelationModel.load(path, self.keep_rules, self.keep_own_method)
        self.model, self.config, self.hash_size, self.thresholds = loaded.model, loaded.config, loaded.hash_size, loaded.thresholds
        return self

    # -- scoring -----------------------------------------------------------------
    def probabilities(self, inputs: np.ndarray, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """(candidates, len(LABELS)) probabilities, renormalised over the labels each type pair allows."""
        import numpy as np

        if not len(pairs):
            return np.zeros((0, len(LABELS)), dtype="float32")
        scores = self.model.ops.to_numpy(self.model.predict(inputs)) * _allowed_mask(pairs)
        return scores / scores.sum(axis=1, keepdims=True)

    def relations(self, concepts: Sequence[ConceptSpan], found: Sequence[Candidate], probabilities: np.ndarray) -> list[RelationSpan]:
        """The relations of one doc: per candidate the most likely allowed label, when it is not
        "none" and reaches that label's threshold; a symmetric relation once per pair."""
        best: dict[tuple, RelationSpan] = {}
        for candidate, row in zip(found, probabilities):
            k = int(row[1:].argmax()) + 1
            label, p = LABELS[k], float(row[k])
            if p < self.thresholds[label] or label in self.keep_rules:
                continue
            head, tail = candidate.head, candidate.tail
            if label in SYMMETRIC and concepts[tail].start < concepts[head].start:
                head, tail = tail, head
            key = (head, label, tail)
            if key not in best or best[key].confidence < p:
                best[key] = RelationSpan(head, label, tail, candidate.start, candidate.end, round(p, 4), COMPONENT)
        return sorted(best.values())

    def _finish(self, doc: Doc, concepts: Sequence[ConceptSpan], found: list[RelationSpan]) -> None:
        kept = []
        for r in (RelationSpan(*r) for r in doc._.kg_relations or []):
            own_method = not r.start <= concepts[r.head].start < r.end  # "our method" resolved by the rules
            if r.relation in self.keep_rules or (self.keep_own_method and own_method):
                kept.append(r)
        doc._.kg_relations = sorted(set(kept + found))

    def __call__(self, doc: Doc) -> Doc:
        return next(iter(self.pipe([doc])))

    def pipe(self, docs: Iterable[Doc], batch_size: int = 64) -> Iterator[Doc]:
        import numpy as np
        from spacy.util import minibatch

        for batch in minibatch(docs, size=batch_size):
            parts = []
            for doc in batch:
                concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
                spans = _token_spans(doc, concepts)
                found = candidates(doc, concepts, spans)
                dense, hashed = feature_matrix(doc, concepts, found, self.hash_size, spans)
                parts.append((doc, concepts, found, dense, hashed))
            rows = [p for p in parts if p[2]]
            if rows:
                inputs = to_input(np.vstack([p[3] for p in rows]), [h for p in rows for h in p[4]], self.hash_size)
                pairs = [(p[1][c.head].type, p[1][c.tail].type) for p in rows for c in p[2]]
                scores = self.probabilities(inputs, pairs)
            offset = 0
            for doc, concepts, found, _dense, _hashed in parts:
                probabilities = scores[offset : offset + len(found)] if found else np.zeros((0, len(LABELS)))
                offset += len(found)
                self._finish(doc, concepts, self.relations(concepts, found, probabilities) if found else [])
                yield doc


@Language.factory(COMPONENT, default_config={"weights": "", "keep_rules": [], "keep_own_method": False})
def make_relation_model(nlp: Language, name: str, weights: str, keep_rules: list[str], keep_own_method: bool) -> RelationModel:
    return RelationModel.load(Path(weights) if weights else DEFAULT_WEIGHTS, keep_rules, keep_own_method)
