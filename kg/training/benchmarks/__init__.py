"""Loaders for the public benchmarks kg is trained and measured on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from kg.errors import CorpusError

__all__ = ["DEFAULT_ROOT", "benchmark_rows"]

#: ``shared/benchmarks`` beside the repository (``../shared/benchmarks`` from its root).
DEFAULT_ROOT = Path(__file__).resolve().parents[3].parent / "shared" / "benchmarks"


def benchmark_rows(root: str | Path | None, name: str, split: str) -> Iterator[tuple[Path, int, dict]]:
    """(path, line number, parsed object) for each record of ``<root>/<name>/<split>.jsonl``;
    a missing file or a line that is not JSON is a one-line CorpusError."""
    path = (Path(root) if root is not None else DEFAULT_ROOT) / name / f"{split}.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CorpusError(
            f"cannot read {path} ({exc.strerror}): the {name} {split} split is read from DIR/{name}/{split}.jsonl, "
            "DIR being the benchmarks folder: `kg eval --benchmarks DIR` names it (the training commands: --shared, "
            f"the folder holding benchmarks/; Python: root=DIR; default: {DEFAULT_ROOT})"
        ) from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield path, number, json.loads(line)
        except ValueError as exc:
            raise CorpusError(f"{path}:{number}: not JSON ({exc})") from exc
