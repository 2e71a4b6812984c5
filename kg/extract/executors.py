"""Where the per-paper extraction runs: one interface, three executors.

The extractor cuts the papers into partitions (chunks of ``BATCH_SIZE``
``(abstract, paper IRI)`` pairs) and asks an executor for the extractions of
each, in input order (:meth:`Executor.map`):

* :class:`InProcess`: this process's pipeline, one chunk after another;
* :class:`LocalProcesses`: ``--jobs N``, N forked worker processes;
* :class:`DaskCluster`: ``--cluster tcp://HOST:PORT`` (an existing Dask
  scheduler) or ``--cluster local:N`` (a ``LocalCluster`` of N worker
  processes, one thread each, bound to 127.0.0.1, no dashboard).

Each worker process loads the pipeline once (:func:`worker_pipeline`, a
per-process cache keyed by the concepts mode). At most :data:`CHUNKS_PER_WORKER`
chunks per worker are in flight (:func:`windowed`): none waits for work and
memory stays bounded however long the input. Every executor gives the same
extractions, hence byte for byte the same graph. Whatever ends
:meth:`Executor.map` (the last chunk, an error, Ctrl-C, a consumer that stops
early), nothing it started is left running. Dask is imported only by
:class:`DaskCluster` (``pip install 'kg[cluster]'``).
"""

from __future__ import annotations

import itertools
import logging
import signal
import warnings
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from kg.errors import KgError, KgWarning
from kg.records import Extraction

__all__ = [
    "CHUNKS_PER_WORKER",
    "Chunk",
    "ClusterDependencyError",
    "DaskCluster",
    "Executor",
    "InProcess",
    "LocalProcesses",
    "extract_chunk",
    "parse_cluster",
    "windowed",
    "worker_pipeline",
]

#: One partition of work: ``(abstract, paper IRI)`` pairs.
Chunk = list[tuple[str, str]]
#: Chunks in flight per worker (thread): one running, one waiting, so none idles.
CHUNKS_PER_WORKER = 2
#: Seconds to wait for a Dask scheduler to answer (and for it to have a worker).
CONNECT_TIMEOUT = 30.0


class ClusterDependencyError(KgError):
    """``--cluster`` without Dask distributed installed (exit code 3, as for any missing dependency)."""

    exit_code = 3


class Executor(Protocol):
    """Runs the extraction of chunks somewhere and gives their results back in order."""

    def map(self, chunks: Iterator[Chunk]) -> Iterator[list[Extraction]]:
        """The extractions of each chunk of ``chunks``, one list per chunk, in input order."""
        ...


# -- what runs in a worker ---------------------------------------------------------------------

_pipelines: dict[str, Any] = {}  # this process's pipelines, by concepts mode


def worker_pipeline(concepts: str):
    """This process's pipeline for ``concepts``, built on first use."""
    if concepts not in _pipelines:
        from kg.extract.pipeline import build_nlp

        _pipelines[concepts] = build_nlp(concepts=concepts)
    return _pipelines[concepts]


def extract_chunk(items: Chunk, concepts: str, batch_size: int, nlp=None) -> list[Extraction]:
    """The extractions of one chunk, by ``nlp`` or this process's pipeline for ``concepts``."""
    from kg.extract.extractor import doc_to_extraction

    nlp = nlp if nlp is not None else worker_pipeline(concepts)
    return [doc_to_extraction(doc, iri) for doc, iri in nlp.pipe(items, as_tuples=True, batch_size=batch_size)]


def windowed(submit: Callable[[Chunk], Any], chunks: Iterator[Chunk], window: int, started: tuple = ()) -> Iterator[Any]:
    """``submit(chunk).result()`` for each chunk, in order, after those of the
    futures ``started``, with at most ``window`` submitted and not yet taken: the
    next chunk is read and submitted only when the oldest result is taken
    (back-pressure)."""
    pending = deque(started)
    pending.extend(submit(chunk) for chunk in itertools.islice(chunks, window - len(pending)))
    while pending:
        result = pending.popleft().result()
        pending.extend(submit(chunk) for chunk in itertools.islice(chunks, 1))
        yield result


# -- the three executors -----------------------------------------------------------------------


class InProcess:
    """This process, with ``nlp`` (default: its pipeline for ``concepts``)."""

    def __init__(self, concepts: str, batch_size: int, nlp=None):
        self.concepts, self.batch_size, self.nlp = concepts, batch_size, nlp

    def map(self, chunks: Iterator[Chunk]) -> Iterator[list[Extraction]]:
        for chunk in chunks:
            yield extract_chunk(chunk, self.concepts, self.batch_size, self.nlp)


def _start_worker(concepts: str) -> None:
    # Ctrl-C reaches the whole process group: the parent alone handles it and
    # stops the workers (they were forked with SIGINT blocked, so none was missed
    # before this line; ignoring it discards one pending). SIGTERM, what stopping
    # them sends, ends a worker at once, whatever handler it inherited.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    worker_pipeline(concepts)


class LocalProcesses:
    """``jobs`` forked worker processes on this machine (``--jobs``).

    A worker that dies (out of memory) is an error, not a hang.
    """

    def __init__(self, jobs: int, concepts: str, batch_size: int):
        self.jobs, self.concepts, self.batch_size = jobs, concepts, batch_size

    def map(self, chunks: Iterator[Chunk]) -> Iterator[list[Extraction]]:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        first = next(chunks, None)
        if first is None:
            return
        before = set(multiprocessing.active_children())
        # With fork, the first submit starts every worker; SIGINT stays blocked for it (see _start_worker).
        unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pool = ProcessPoolExecutor(
                self.jobs, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker, initargs=(self.concepts,)
            )
            started = pool.submit(extract_chunk, first, self.concepts, self.batch_size)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
        workers = set(multiprocessing.active_children()) - before
        try:
            yield from windowed(
                lambda chunk: pool.submit(extract_chunk, chunk, self.concepts, self.batch_size), chunks, self.window, started=(started,)
            )
        except BrokenProcessPool as exc:
            raise KgError("an extraction worker process died (out of memory? try fewer --jobs)") from exc
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.join()

    @property
    def window(self) -> int:
        return CHUNKS_PER_WORKER * self.jobs


def parse_cluster(address: str) -> str | int:
    """``local:N`` as the number N (>= 1), or a scheduler address (``tcp://HOST:PORT``, ``HOST:PORT``) as given."""
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"{address!r}: local:N needs a number of workers N >= 1, e.g. local:4")
        return int(count)
    if ":" not in address.split("://")[-1]:
        raise ValueError(f"{address!r}: expected a Dask scheduler address such as tcp://HOST:8786, or local:N")
    return address


def _import_distributed():
    try:
        import distributed
    except ModuleNotFoundError as exc:
        raise ClusterDependencyError("--cluster needs Dask distributed, which is not installed: pip install 'kg[cluster]'") from exc
    return distributed


class DaskCluster:
    """A Dask cluster (``--cluster``): ``address`` names a running scheduler
    (``tcp://HOST:PORT``), or ``local:N`` starts a ``LocalCluster`` of N worker
    processes with one thread each (at most one per usable CPU), on 127.0.0.1
    and with no dashboard, closed when :meth:`map` ends.

    Workers need kg installed (the same version); each loads the pipeline once.
    An unreachable scheduler, a worker that dies (Dask retries its chunk on
    another, then gives up) or a lost scheduler is a one-line :class:`KgError`.
    """

    def __init__(self, address: str, concepts: str, batch_size: int, connect_timeout: float | None = None):
        self.address, self.concepts, self.batch_size = address, concepts, batch_size
        self.connect_timeout = CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
        self.local = parse_cluster(address)
        if isinstance(self.local, int):
            from kg.extract.extractor import usable_cpus

            cpus = usable_cpus()
            if self.local > cpus:
                warnings.warn(
                    KgWarning(f"{self.local} Dask workers asked for, but this process can use {cpus} CPUs: running {cpus}"), stacklevel=2
                )
                self.local = cpus

    def _connect(self, distributed) -> tuple[Any, Any]:
        """(client, cluster or None); SIGINT is blocked meanwhile, so that the worker
        processes (and the threads that start them) leave Ctrl-C to this one."""
        unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        cluster = None
        try:
            if isinstance(self.local, int):
                cluster = distributed.LocalCluster(
                    n_workers=self.local,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    # No dashboard; the scheduler's HTTP endpoints (health, metrics) that
                    # distributed always starts listen on a free loopback port, not on 8787.
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.CRITICAL,
                )
                return distributed.Client(cluster, timeout=self.connect_timeout), cluster
            return distributed.Client(self.address, timeout=self.connect_timeout), None
        except BaseException:
            if cluster is not None:
                cluster.close()
            raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)

    def map(self, chunks: Iterator[Chunk]) -> Iterator[list[Extraction]]:
        distributed = _import_distributed()
        from distributed.client import FutureCancelledError

        where = f"the Dask scheduler at {self.address}" if isinstance(self.local, str) else "the local Dask cluster"
        try:
            client, cluster = self._connect(distributed)
        except (OSError, TimeoutError) as exc:
            raise KgError(
                f"{self.address}: cannot reach a Dask scheduler there ({exc}); start one (dask scheduler) or check the address"
            ) from exc
        try:
            try:
                client.wait_for_workers(1, timeout=self.connect_timeout)
            except TimeoutError as exc:
                raise KgError(f"{self.address}: {where} has no workers (start some: dask worker {self.address})") from exc
            threads = sum(client.nthreads().values())

            def submit(chunk: Chunk):
                return client.submit(extract_chunk, chunk, self.concepts, self.batch_size, pure=False)

            yield from windowed(submit, chunks, CHUNKS_PER_WORKER * max(threads, 1))
        except distributed.KilledWorker as exc:
            raise KgError(f"a Dask worker of {where} died extracting (out of memory? give workers more memory)") from exc
        except (FutureCancelledError, distributed.comm.CommClosedError) as exc:
            raise KgError(f"lost {where} ({type(exc).__name__}: {exc})") from exc
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
