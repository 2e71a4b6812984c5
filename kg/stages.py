"""Where a build's time and memory go: wall seconds per stage, and this
process's peak memory when each stage ended (`kg build --timings FILE`).

The build is one stream (extractions go to disk, concept linking reads them
back, quads go to the store as they are made), so a stage is not always one
stretch of time: :meth:`Stages.add` adds up the pieces, and writing, which
happens between them, is what is left of the store's whole fill
(:meth:`Stages.rest`).
"""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["Stages", "peak_rss_mib"]


def peak_rss_mib(who: int = resource.RUSAGE_SELF) -> int:
    """Peak resident memory in MiB of this process (or of its largest waited-for child, ``RUSAGE_CHILDREN``)."""
    return round(resource.getrusage(who).ru_maxrss / 1024)  # KiB on Linux


class Stages:
    """Seconds per named stage, in the order stages first ran, each with the process's peak memory when it last ended."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.peak: dict[str, int] = {}
        self.started = time.perf_counter()

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.peak[name] = peak_rss_mib()

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    def rest(self, name: str, total: float, parts: tuple[str, ...]) -> None:
        """``name`` took what is left of ``total`` seconds once ``parts`` (measured within it) are taken out."""
        self.add(name, max(0.0, total - sum(self.seconds.get(p, 0.0) for p in parts)))

    def record(self) -> dict:
        return {
            "stages": [{"stage": n, "seconds": round(s, 2), "peak_rss_mib": self.peak[n]} for n, s in self.seconds.items()],
            "total_seconds": round(time.perf_counter() - self.started, 2),
            "peak_rss_mib": peak_rss_mib(),
            "workers_peak_rss_mib": peak_rss_mib(resource.RUSAGE_CHILDREN),
        }

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(self.record(), indent=1) + "\n", encoding="utf-8")
