"""Words per second of a spaCy pipeline, for the speed benchmarks and training reports."""

from __future__ import annotations

import time

__all__ = ["measure_speed"]


def measure_speed(nlp, texts: list[str], batch_size: int = 64, repeats: int = 3) -> float:
    """Words per second of ``nlp.pipe`` over ``texts`` in this process: the
    best of ``repeats`` runs, words counted as whitespace-separated tokens."""
    words = sum(len(text.split()) for text in texts)
    list(nlp.pipe(texts[:batch_size], batch_size=batch_size))  # warm up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _doc in nlp.pipe(texts, batch_size=batch_size):
            pass
        best = min(best, time.perf_counter() - start)
    return words / best
