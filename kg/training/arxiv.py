"""The unlabelled arXiv abstracts in ``../shared/corpora/arxiv-cs-2025`` and
the seeded draw of kg's in-domain train and test sets from them.

The text stays in ``../shared``: kg's annotation records hold arXiv ids and
offsets, and :func:`abstracts` reads the text back by id.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Iterable, Iterator
from pathlib import Path

from kg.training.benchmarks import DEFAULT_ROOT

__all__ = [
    "CORPUS",
    "DRAW_SEED",
    "TEST_SIZE",
    "TRAIN_SIZE",
    "MORE_TRAIN_SIZE",
    "DEV_SIZE",
    "corpus_path",
    "read_corpus",
    "abstracts",
    "draw",
    "text_digest",
]

CORPUS = Path("corpora") / "arxiv-cs-2025" / "abstracts.jsonl.gz"
#: The seed and sizes of the draw (``annotations/arxiv-cs-2025/README.md``).
DRAW_SEED = 20261201
TEST_SIZE = 80
TRAIN_SIZE = 300
#: More training abstracts, drawn next and annotated after the first round (same guideline), in four batches of 480, 960, 1,000 and 2,000.
MORE_TRAIN_SIZE = 4440
#: The last DEV_SIZE of the drawn training ids are the dev split: for choices, never trained on by a model being chosen.
DEV_SIZE = 50


def corpus_path(shared: str | Path | None = None) -> Path:
    """The corpus file under ``shared`` (default: the folder holding the benchmarks' folder)."""
    base = Path(shared) if shared is not None else DEFAULT_ROOT.parent
    return base / CORPUS


def read_corpus(path: str | Path | None = None) -> Iterator[dict]:
    """Every record of the corpus, in its order (sorted by id)."""
    with gzip.open(path or corpus_path(), "rt", encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)


def abstracts(ids: Iterable[str], path: str | Path | None = None) -> dict[str, str]:
    """The abstracts of ``ids``, by id."""
    wanted = set(ids)
    return {r["id"]: r["abstract"] for r in read_corpus(path) if r["id"] in wanted}


def text_digest(text: str) -> str:
    """A short digest of an abstract, kept in each record to detect a changed corpus."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def draw(path: str | Path | None = None, seed: int = DRAW_SEED) -> tuple[list[str], list[str], list[str]]:
    """(test ids, train ids, second-round train ids): the corpus's ids in
    file order, shuffled by ``random.Random(seed)``, keeping abstracts of 60
    to 400 words (the middle of the distribution; a 10-word "abstract"
    teaches nothing); the first :data:`TEST_SIZE` are the held-out test set,
    the next :data:`TRAIN_SIZE` the training set (its last :data:`DEV_SIZE`
    the dev set), the next :data:`MORE_TRAIN_SIZE` the second round."""
    ids = [r["id"] for r in read_corpus(path) if 60 <= len(r["abstract"].split()) <= 400]
    random.Random(seed).shuffle(ids)
    first = TEST_SIZE + TRAIN_SIZE
    return ids[:TEST_SIZE], ids[TEST_SIZE:first], ids[first : first + MORE_TRAIN_SIZE]
