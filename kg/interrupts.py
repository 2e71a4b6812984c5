"""Blocks that Ctrl-C must not cut in two.

kg turns SIGINT and SIGTERM into KeyboardInterrupt (:mod:`kg.cli`). A few
steps must finish once begun: the renames that swap a store or an export into
place, noting a temporary file just made so it can be removed. :func:`held`
defers both signals for such a block with Python-level handlers and tells the
caller which came. (A thread's signal mask would not do: the signal can go to
another thread, one of RocksDB's, and Python still raises in the main thread.)
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["held"]


@contextmanager
def held() -> Iterator[list[int]]:
    """Defer Ctrl-C and SIGTERM until the block ends; yield the list of those that came meanwhile."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():  # only the main thread gets signals
        yield caught
        return
    previous = {number: signal.signal(number, lambda signum, frame: caught.append(signum)) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield caught
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
