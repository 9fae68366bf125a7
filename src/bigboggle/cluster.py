"""Run ``stats`` and ``best`` on a Dask cluster (or in this process), chunk by chunk.

:mod:`bigboggle.study` cuts a run into seeded chunks; an engine runs them. :class:`LocalEngine`
runs them one after another in this process (the single-machine path, which needs no Dask).
:class:`DaskEngine` hands them to Dask distributed (``pip install 'bigboggle[cluster]'``): a
local cluster of one worker process per core by default, or an existing cluster's scheduler
(started by ``dask scheduler`` and ``dask worker``, by dask-jobqueue on SLURM or PBS, or by the
Dask Kubernetes operator). The compiled core releases the GIL inside each solve.

What the engines share (:func:`run_stats`, :func:`run_best`):

- **Flat memory and fair sharing**: only a few chunks per worker are in flight; the next is
  submitted as one finishes, so a run of 10^9 shakes holds no more than one of 10^6.
- **Faults**: a worker that dies mid-chunk loses only that chunk, which the scheduler (or,
  after repeated deaths, this module) runs again elsewhere; every finished chunk is merged
  and, with a checkpoint, on the disk.
- **Ctrl-C** stops the run and keeps every finished chunk: the result so far is returned,
  marked ``interrupted``, and the checkpoint resumes it.
- **The same result** whatever the number of workers, the order chunks finish in, or the
  resumptions: chunks merge exactly (:class:`~bigboggle.analysis.ShakeTally`,
  :func:`~bigboggle.study.best_of`).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from .analysis import ShakeStats, ShakeTally
from .checkpoint import Checkpoint
from .errors import BoggleError
from .study import (
    BestRun,
    DictionarySource,
    Restart,
    StatsRun,
    TimeUp,
    best_chunk,
    best_of,
    provide,
    stats_chunk,
    withdraw,
)

Result = TypeVar("Result")
logger = logging.getLogger(__name__)

#: Chunks in flight per worker: enough that no worker waits for the next, few enough that
#: memory stays flat and a stop loses little.
IN_FLIGHT_PER_WORKER = 3
#: How often one chunk may be lost with its worker before the run gives up on it.
CHUNK_ATTEMPTS = 4


#: Dask settings for a local cluster (its scheduler, nannies and workers), which spend the
#: cores its chunks would use: no statistical profiler (a sample of every thread each 10 ms,
#: through the GIL), a slow system monitor, the event loops' health and the nannies' look at
#: their workers' memory twice and once a second (rather than 50 and 10 times), and work
#: stealing weighed twice a second (chunks are queued on the scheduler and handed to a
#: worker as it frees a slot, so little is left to steal). Together they took the cluster's
#: own CPU time during a run from 0.9 to 0.4 CPU-seconds in 10 s (benchmarks/bench_cluster.py).
QUIET_CLUSTER = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing-interval": "500ms",
}
#: How often a waiting client looks at the clock and the cluster's health.
TICK_SECONDS = 1.0
#: How long a cluster may be unable to work (no scheduler, no workers) before the run ends.
PATIENCE_SECONDS = 120


class ClusterError(BoggleError):
    """The cluster cannot be used: Dask is not installed, or the scheduler cannot be reached."""


#: ``progress(done, total, rate)``: chunks' work done and in all (boards shaken, or boards
#: valued by the searches), and the rate of the work done since the start, per second. It is
#: called once with ``rate`` ``None`` as the chunks start (the checkpoint read, if any).
Progress = Callable[[int, int, float | None], None]


class Engine(Protocol):
    """Something that runs chunks: ``run(chunk, run, pending, on_result)`` calls
    ``chunk(run, index)`` for every index of ``pending`` (anywhere, in any order) and
    ``on_result(index, result, worker, cpu_seconds)`` here, in this thread, as each one
    finishes (``cpu_seconds``: the chunk's CPU time where it ran). It raises :class:`TimeUp`
    once ``should_stop()`` says so (checked between chunks, and each second while waiting),
    or a chunk raised it (the time limit cut it short); a chunk's ``KeyboardInterrupt`` (Ctrl-C
    in this process) goes through too."""

    workers: int
    threads: int

    def run(
        self,
        chunk: Callable[[Any, int], Result],
        run: Any,
        pending: Iterable[int],
        on_result: Callable[[int, Result, str, float], None],
        should_stop: Callable[[], bool] | None = None,
    ) -> None: ...


class LocalEngine:
    """Chunks one after another in this process (``threads``: the solver's threads in each
    chunk of shakes)."""

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads
        self.workers = 1

    def run(
        self,
        chunk: Callable[[Any, int], Result],
        run: Any,
        pending: Iterable[int],
        on_result: Callable[[int, Result, str, float], None],
        should_stop: Callable[[], bool] | None = None,
    ) -> None:
        for index in pending:
            if should_stop is not None and should_stop():
                raise TimeUp
            started = time.thread_time()
            result = chunk(run, index)
            on_result(index, result, "local", time.thread_time() - started)


def _distributed() -> Any:
    """Dask distributed (untyped: it ships no type information)."""
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            "the cluster engine needs Dask: pip install 'bigboggle[cluster]'"
        ) from None
    return distributed


def _ignore_interrupts() -> None:
    """In a local cluster's worker process: Ctrl-C is the client's to handle (it stops the
    run and keeps what is done); the workers, in the same terminal, would otherwise each die
    of it with a traceback, before the client had closed them."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _on_worker(chunk: Callable[[Any, int], Any], run: Any, index: int) -> tuple[Any, str, float]:
    """A chunk on a Dask worker, with the worker's address (for the per-worker report) and
    the chunk's CPU time."""
    from distributed import get_worker

    started = time.thread_time()
    result = chunk(run, index)
    return result, get_worker().address, time.thread_time() - started


def _quiet_workers() -> Any:
    """A worker plugin that runs :func:`_ignore_interrupts` in every worker, those there now
    and those a nanny starts later (defined here: Dask is imported only when it is used)."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class QuietWorkers(WorkerPlugin):
        def setup(self, worker: Any) -> None:
            _ignore_interrupts()

    return QuietWorkers()


def _word_list_plugin(source: DictionarySource) -> Any:
    """A worker plugin that gives every worker a word list's bytes once, those there now and
    those that join later (a nanny's restart after a death, a new node): the scheduler keeps
    it and installs it on each. The chunks then carry only the word list's digest."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class WordList(WorkerPlugin):
        def setup(self, worker: Any) -> None:
            provide(source)

        def teardown(self, worker: Any) -> None:
            withdraw(source.digest)

    return WordList()


def _light(run: Any) -> tuple[Any, DictionarySource | None]:
    """A run as each chunk carries it (a few hundred bytes: sent with every task, so that no
    task depends on data held by one worker, which would draw every chunk to it), and the
    word list whose bytes the workers must be given apart, if any."""
    source = getattr(run, "source", None)
    if isinstance(source, DictionarySource) and source.data is not None:
        return dataclasses.replace(run, source=source.without_data()), source
    return run, None


class DaskEngine:
    """Chunks on a Dask cluster: a new local one (``workers`` processes, default one per
    core) or the one whose scheduler is at ``scheduler`` (``tcp://host:8786``). Use it as a
    context manager: it starts (or connects to) the cluster and closes what it started."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None) -> None:
        if workers is not None and (isinstance(workers, bool) or not 1 <= workers <= 1024):
            raise ClusterError(f"workers={workers!r} must be a whole number from 1 to 1024")
        self.scheduler = scheduler
        self.threads = 1
        self.wanted = workers or os.cpu_count() or 1
        self.workers = self.wanted
        self.client: Any = None
        self._cluster: Any = None

    def __enter__(self) -> DaskEngine:
        dask = _distributed()
        try:
            if self.scheduler is None:
                import signal

                from dask import config as dask_config

                # The workers start with Ctrl-C ignored (as inherited), and a plugin keeps it so
                # in those a nanny starts again after a death.
                previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
                # The cluster's own upkeep slowed (QUIET_CLUSTER): the workers' nannies get
                # these settings now and hand them to every worker they start.
                try:
                    with dask_config.set(QUIET_CLUSTER):
                        self._cluster = dask.LocalCluster(
                            n_workers=self.wanted,
                            threads_per_worker=1,
                            processes=True,
                            host="127.0.0.1",
                            # The scheduler serves its HTTP routes (health, metrics) on some
                            # port whatever is asked; a free one, so two never collide on 8787.
                            dashboard_address="127.0.0.1:0",
                            # Errors too: a chunk's failure comes back to this process,
                            # which says it; what the workers would log is the cluster
                            # closing under them (a heartbeat to a scheduler gone first,
                            # with its traceback, after Ctrl-C: 1 run in 14 here).
                            silence_logs=logging.CRITICAL,
                        )
                finally:
                    signal.signal(signal.SIGINT, previous)
                self.client = dask.Client(self._cluster)
                self.client.register_plugin(_quiet_workers())
            else:
                self.client = dask.Client(self.scheduler, timeout="10s")
                self.workers = max(1, _slots(self.client))
        except Exception as exc:  # Dask's own errors for a bad address vary (TypeError, ...)
            self.__exit__(None, None, None)
            where = self.scheduler or "a local cluster"
            raise ClusterError(f"cannot start or reach {where}: {exc}") from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.client is not None:
            if self.client.status == "running":
                self.client.close()
            else:
                # Its scheduler lost: closing cancels the client's attempts to reconnect,
                # which Dask logs with a traceback; the run has said why it ended already.
                loggers = [
                    logging.getLogger(name) for name in ("distributed", "distributed.client")
                ]
                levels = [each.level for each in loggers]
                for each in loggers:
                    each.setLevel(logging.CRITICAL + 1)
                try:
                    self.client.close()
                finally:
                    for each, level in zip(loggers, levels, strict=True):
                        each.setLevel(level)
            self.client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def worker_pids(self) -> dict[str, int]:
        """Each worker's process id, by address (for tests that kill one)."""
        return dict(self.client.run(os.getpid))

    def run(
        self,
        chunk: Callable[[Any, int], Result],
        run: Any,
        pending: Iterable[int],
        on_result: Callable[[int, Result, str, float], None],
        should_stop: Callable[[], bool] | None = None,
    ) -> None:
        dask = _distributed()
        if self.client is None:
            raise ClusterError("the engine is not started: use it in a with block")
        client = self.client
        token = uuid.uuid4().hex[:12]
        light, word_list = _light(run)
        plugin: str | None = None  # the word list's plugin, once asked for
        queue = iter(pending)
        index_of: dict[Any, int] = {}
        attempts: dict[int, int] = {}

        def submit(index: int) -> Any:
            attempts[index] = attempts.get(index, 0) + 1
            future = client.submit(
                _on_worker,
                chunk,
                light,
                index,
                key=f"bigboggle-{token}-{index}-{attempts[index]}",
                pure=False,
            )
            index_of[future] = index
            return future

        counted = [0.0, float(self.workers)]  # when the workers were last counted, and how many

        def top_up() -> None:
            # Counted again every few seconds (workers join an existing cluster), not at every
            # chunk: asking the scheduler is a round trip that the workers' cores pay for.
            if time.monotonic() - counted[0] > 5:
                counted[:] = [time.monotonic(), _slots(client)]
            workers = max(1, self.workers, int(counted[1]))
            while len(index_of) < workers * IN_FLIGHT_PER_WORKER:
                following = next(queue, None)
                if following is None:
                    return
                submit(following)

        trouble_since: float | None = None  # since when the cluster has been unable to work
        try:
            if word_list is not None:
                # The scheduler keeps a plugin before it reaches the workers: asked for, it is
                # taken away at the end whether or not every worker could take it.
                plugin = f"bigboggle-words-{token}"
                try:
                    client.register_plugin(_word_list_plugin(word_list), name=plugin)
                except Exception as exc:  # a worker of another version, a lost connection
                    raise ClusterError(
                        f"the workers cannot take the word list {word_list.name!r}: "
                        f"{type(exc).__name__}: {exc}"
                    ) from None
            top_up()
            while index_of:
                try:
                    finished, _ = dask.wait(
                        list(index_of), timeout=TICK_SECONDS, return_when="FIRST_COMPLETED"
                    )
                except TimeoutError:
                    finished = set()
                except CancelledError:
                    # Chunks cancelled under us: the scheduler is gone (every chunk with it),
                    # or someone cancelled some. The first ends the run now with the reason
                    # (what finished is kept); the others run again.
                    lost = self._lost()
                    if lost is not None:
                        raise ClusterError(lost) from None
                    finished = {future for future in index_of if future.done()}
                # Every chunk that finished is kept before the time limit is looked at. The
                # limit is this machine's clock: a chunk cut short by a worker whose clock is
                # ahead is run again, until this one says the time is up.
                cut = self._take(finished, index_of, attempts, submit, on_result)
                if should_stop() if should_stop is not None else cut:
                    raise TimeUp
                for index in cut:
                    submit(index)
                if not finished:
                    trouble = self._trouble()
                    if trouble is None:
                        trouble_since = None
                    elif trouble_since is None:
                        trouble_since = time.monotonic()
                    elif time.monotonic() - trouble_since > PATIENCE_SECONDS:
                        raise ClusterError(f"{trouble} for {PATIENCE_SECONDS} s: giving up")
                    continue
                trouble_since = None
                top_up()
        finally:
            self._clean_up(list(index_of), plugin)

    @staticmethod
    def _take(
        finished: Iterable[Any],
        index_of: dict[Any, int],
        attempts: dict[int, int],
        submit: Callable[[int], Any],
        on_result: Callable[[int, Any, str, float], None],
    ) -> list[int]:
        """Hand each finished chunk's result to ``on_result``, and submit again each chunk
        lost with its worker; the chunks that said the run's time was up (cut short)."""
        from distributed.scheduler import KilledWorker

        cut: list[int] = []
        for future in finished:
            index = index_of.pop(future)
            try:
                result, worker, cpu = future.result()
            except TimeUp:  # the run's time limit cut the chunk short: not kept
                cut.append(index)
                continue
            except (KilledWorker, CancelledError):  # Dask's FutureCancelledError is one
                if attempts[index] >= CHUNK_ATTEMPTS:
                    raise ClusterError(
                        f"chunk {index} was lost with its worker {attempts[index]} times"
                    ) from None
                submit(index)
                continue
            except Exception as exc:  # a worker that cannot run it (another version?)
                raise ClusterError(
                    f"chunk {index} failed on its worker: {type(exc).__name__}: {exc}"
                ) from None
            on_result(index, result, worker, cpu)
        return cut

    def _clean_up(self, in_flight: list[Any], plugin: str | None) -> None:
        """Cancel the chunks still in flight and take the word list's plugin away. A worker
        leaving as the run ends can make either fail: the run's result (or the error that
        ended it) stands, rather than that failure."""
        client = self.client
        if client is None or client.status != "running":
            return
        try:
            if in_flight:
                client.cancel(in_flight)
            if plugin is not None:
                client.unregister_worker_plugin(plugin)
        except Exception as exc:
            logger.warning("could not tidy the cluster after the run: %s", exc)

    def _lost(self) -> str | None:
        """Why the scheduler cannot be reached, if it cannot."""
        client = self.client
        where = self.scheduler or "the local cluster's scheduler"
        if client is None or client.status != "running":
            return f"the connection to {where} is lost"
        try:
            client.nthreads()
        except Exception as exc:  # Dask's comm errors (OSError, CommClosedError, timeouts)
            return f"the connection to {where} is lost ({type(exc).__name__})"
        return None

    def _trouble(self) -> str | None:
        """What keeps the cluster from working, if anything: a lost scheduler, no workers."""
        lost = self._lost()
        if lost is not None:
            return lost
        if not _slots(self.client):
            return "the cluster has no workers"
        return None


def _slots(client: Any) -> int:
    """How many chunks the cluster's workers can run at once: their threads, all of them
    (``scheduler_info()["workers"]`` lists only the first few on some Dask releases); 0 if
    the scheduler cannot say."""
    try:
        return sum(client.nthreads().values())
    except Exception:  # the connection lost: the caller's health check says so
        return 0


# -- the runs ------------------------------------------------------------------------------------


@dataclass
class StatsOutcome:
    """A stats run's result: the statistics of every chunk done (``None`` if none was),
    how many chunks were done of how many, and whether Ctrl-C stopped it."""

    stats: ShakeStats | None
    chunks_done: int
    chunks: int
    resumed: int
    interrupted: bool
    boards: int
    #: CPU seconds of the chunks done in this call (not those resumed from a checkpoint).
    cpu_seconds: float = 0.0
    seconds: float = 0.0


@dataclass
class BestOutcome:
    """A best run's result: every restart done (by chunk), the best overall, the best of
    each worker, and whether Ctrl-C stopped it."""

    restarts: list[Restart]
    best: Restart | None
    per_worker: dict[str, Restart]
    chunks: int
    resumed: int
    interrupted: bool
    evaluations: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    improvements: list[Restart] = field(default_factory=list)
    #: The run's time limit stopped it (not every restart was done).
    timed_out: bool = False


@contextmanager
def _checkpoint(
    path: str | None,
    identity: dict[str, Any],
    decode: Callable[[dict[str, Any]], Result],
    merge: Callable[[Result, Result], Result] | None = None,
    *,
    chunks: int,
    check: Callable[[set[int], Result], None],
) -> Iterator[Checkpoint[Result] | None]:
    if path is None:
        yield None
        return
    checkpoint = Checkpoint(path, identity, decode, merge, chunks=chunks, check=check)
    try:
        yield checkpoint
    finally:
        checkpoint.close()


#: The name :attr:`BestOutcome.per_worker` gives the restarts resumed from a checkpoint.
EARLIER_RUNS = "earlier runs (checkpoint)"

#: A stats run's checkpoint is compacted into one snapshot every this many chunks.
COMPACT_EVERY = 64


def run_stats(
    run: StatsRun,
    engine: Engine,
    *,
    checkpoint: str | None = None,
    progress: Progress | None = None,
) -> StatsOutcome:
    """Every chunk of a stats run (those not already in ``checkpoint``), merged. Only the
    running merge is kept (a tally of a few thousand counts), never a chunk's own once merged,
    so memory, and the checkpoint, stay small for any number of chunks."""
    keep = run.keep

    def merge(a: ShakeTally, b: ShakeTally) -> ShakeTally:
        return ShakeTally.merge((a, b), keep=keep)

    with _checkpoint(
        checkpoint, run.identity(), ShakeTally.from_json, merge, chunks=run.chunks, check=run.check
    ) as saved:
        indices: set[int] = set(saved.indices) if saved else set()
        merged: ShakeTally | None = saved.merged if saved else None
        resumed = len(indices)
        started = time.monotonic()
        before = merged.boards if merged is not None else 0
        boards = before
        cpu_seconds = 0.0
        since_compact = 0

        def on_result(index: int, tally: ShakeTally, worker: str, cpu: float) -> None:
            nonlocal boards, cpu_seconds, merged, since_compact
            if index in indices:
                return
            indices.add(index)
            merged = tally if merged is None else merge(merged, tally)
            cpu_seconds += cpu
            boards += tally.boards
            if saved is not None:
                since_compact += 1
                if since_compact >= COMPACT_EVERY:
                    saved.compact(indices, merged.to_json())
                    since_compact = 0
                else:
                    saved.record(index, tally.to_json())
            if progress is not None:
                rate = (boards - before) / max(time.monotonic() - started, 1e-9)
                progress(boards, run.boards, rate)

        pending = (index for index in range(run.chunks) if index not in indices)
        interrupted = False
        try:
            if progress is not None:
                progress(boards, run.boards, None)
            engine.run(
                functools.partial(stats_chunk, threads=engine.threads), run, pending, on_result
            )
        except KeyboardInterrupt:
            interrupted = True
    stats = None
    if merged is not None:
        stats = ShakeStats.of_tally(run.rules, run.source.name, merged, seed=run.seed)
    return StatsOutcome(
        stats,
        len(indices),
        run.chunks,
        resumed,
        interrupted,
        boards,
        cpu_seconds=cpu_seconds,
        seconds=time.monotonic() - started,
    )


def run_best(
    run: BestRun,
    engine: Engine,
    *,
    checkpoint: str | None = None,
    progress: Progress | None = None,
    on_improve: Callable[[Restart], None] | None = None,
    deadline: float | None = None,
) -> BestOutcome:
    """Every restart of a best run (those not already in ``checkpoint``); ``on_improve``
    hears of each restart better than all before it. Past ``deadline`` (seconds on the
    monotonic clock) the run stops, keeping what is done, and says ``timed_out``."""
    with _checkpoint(
        checkpoint, run.identity(), Restart.from_json, chunks=run.chunks, check=run.check
    ) as saved:
        # A restart short of its budget was cut off (by Ctrl-C, in a version that kept it):
        # it is done again, not taken as the board its seed gives.
        done: dict[int, Restart] = {
            index: restart
            for index, restart in (saved.done.items() if saved else ())
            if restart.evaluations >= run.evaluations
        }
        resumed_indices = set(done)
        resumed = len(done)
        started = time.monotonic()
        valued = 0
        total = run.restarts * run.evaluations
        improvements: list[Restart] = []
        best = best_of(list(done.values()))
        done_evaluations = sum(r.evaluations for r in done.values())
        cpu_seconds = 0.0

        def on_result(index: int, restart: Restart, worker: str, cpu: float) -> None:
            nonlocal valued, best, cpu_seconds, done_evaluations
            if index in done:
                return
            cpu_seconds += cpu
            restart = Restart(**{**restart.to_json(), "worker": worker})
            done[index] = restart
            valued += restart.evaluations
            done_evaluations += restart.evaluations
            if saved is not None:
                saved.record(index, restart.to_json())
            if best is None or restart.value > best.value:
                best = restart
                improvements.append(restart)
                if on_improve is not None:
                    on_improve(restart)
            if progress is not None:
                rate = valued / max(time.monotonic() - started, 1e-9)
                progress(done_evaluations, total, rate)

        def should_stop() -> bool:
            return deadline is not None and time.monotonic() > deadline

        pending = (index for index in range(run.chunks) if index not in done)
        interrupted = timed_out = False
        # The chunks see the limit on the wall clock, so that a search it would overrun stops
        # at it, wherever it runs.
        wall_deadline = None if deadline is None else time.time() + deadline - time.monotonic()
        try:
            if progress is not None:
                progress(done_evaluations, total, None)
            engine.run(
                functools.partial(best_chunk, deadline=wall_deadline),
                run,
                pending,
                on_result,
                should_stop,
            )
        except KeyboardInterrupt:
            interrupted = True
        except TimeUp:
            timed_out = True
    restarts = sorted(done.values(), key=lambda r: r.index)
    per_worker: dict[str, Restart] = {}
    for restart in restarts:
        # A restart from the checkpoint ran on a worker of an earlier run, maybe of another
        # cluster: those are one group, not addresses that look like this run's workers.
        worker = EARLIER_RUNS if restart.index in resumed_indices else restart.worker
        held = per_worker.get(worker)
        if held is None or (-restart.value, restart.index) < (-held.value, held.index):
            per_worker[worker] = restart
    return BestOutcome(
        restarts,
        best_of(restarts),
        per_worker,
        run.chunks,
        resumed,
        interrupted,
        evaluations=sum(r.evaluations for r in restarts),
        seconds=time.monotonic() - started,
        cpu_seconds=cpu_seconds,
        improvements=improvements,
        timed_out=timed_out,
    )
