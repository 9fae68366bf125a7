"""The bounded worker pool: where the web app's CPU work runs, so the event loop only routes.

Solving a big board holds the GIL (the compiled core does not release it), so threads would not
keep the server answering: the pool runs jobs in worker *processes* (``forkserver`` where the
platform has it, else ``spawn``: never a fork of a server with threads and sockets). Jobs are
module-level functions of plain data (see :mod:`bigboggle.services.jobs`); results come back as plain data.

Three limits bound it (all in :class:`~bigboggle.limits.ServerLimits`):

- ``pool_workers`` processes run jobs at once (0: one per core);
- ``pool_queue`` more jobs may wait for a worker; past that, :class:`~bigboggle.errors.BusyError`
  (the app answers 503 with ``Retry-After``) at once, without queueing anything;
- ``job_budget`` seconds: a caller that has waited that long gets
  :class:`~bigboggle.errors.BudgetExceededError` (503 naming the limit). A job that has not
  started is cancelled; one that is running keeps its slot until its process finishes, so
  abandoned jobs can never pile up beyond ``pool_workers + pool_queue``.

The processes start on first use (an app that never solves never starts one) and stop with the
app (:meth:`WorkerPool.shutdown`, called from its lifespan), or with the server process however
it ends (:func:`bigboggle.services.jobs.start_worker`: a ``kill -9`` leaves no worker behind), at a
lower priority than the server, so that a full pool never starves the event loop. ``kind="thread"`` runs the same
jobs in threads, for unit tests that want no processes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import math
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Literal, TypeVar

from ..errors import BudgetExceededError, BusyError
from ..limits import ServerLimits
from ..services import jobs

T = TypeVar("T")
log = logging.getLogger(__name__)

#: Modules the fork server imports once, so that each worker starts as a cheap fork of it.
PRELOAD = ["bigboggle.services.jobs"]


def _context() -> multiprocessing.context.BaseContext:
    """``forkserver`` (workers forked from a clean server process) where it exists, else
    ``spawn``; never plain ``fork`` of a process that runs threads and holds sockets."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


class WorkerPool:
    """A bounded pool of worker processes (or threads) with a queue limit and a time budget.

    ``await pool.run(fn, *args)`` from the event loop; ``pool.call(fn, *args)`` (a
    :class:`~bigboggle.services.compute.Runner`) from threads, for services that take ``runner=``.
    """

    def __init__(
        self,
        workers: int = 0,
        queue: int = 32,
        budget: float = 10.0,
        *,
        kind: Literal["process", "thread"] = "process",
    ) -> None:
        if workers < 0 or queue < 0 or budget <= 0:
            raise ValueError("workers and queue must be 0 or more, budget above 0")
        self.workers = workers or max(1, os.cpu_count() or 1)
        self.queue = queue
        self.budget = budget
        self.kind = kind
        self._executor: Executor | None = None
        self._lock = threading.Lock()
        #: Jobs submitted and not yet finished (running or waiting for a worker).
        self._in_flight = 0
        #: Called with the number of jobs in flight whenever it changes (for metrics).
        self.on_depth: Callable[[int], None] | None = None

    @classmethod
    def from_limits(
        cls, limits: ServerLimits, *, kind: Literal["process", "thread"] = "process"
    ) -> WorkerPool:
        """The pool that ``limits`` describe."""
        return cls(limits.pool_workers, limits.pool_queue, limits.job_budget, kind=kind)

    # -- what routes and services call ------------------------------------------------------

    async def run(self, fn: Callable[..., T], /, *args: Any) -> T:
        """``fn(*args)`` in a worker, awaited without blocking the event loop."""
        future = self._submit(fn, args)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.budget)
        except TimeoutError:
            raise self._over_budget(future) from None
        except BrokenProcessPool:
            raise self._broken() from None

    def call(self, fn: Callable[..., T], /, *args: Any) -> T:
        """``fn(*args)`` in a worker, waited for in this thread (a ``compute.Runner``)."""
        future = self._submit(fn, args)
        try:
            return future.result(timeout=self.budget)
        except concurrent.futures.TimeoutError:
            raise self._over_budget(future) from None
        except BrokenProcessPool:
            raise self._broken() from None

    __call__ = call

    # -- state -----------------------------------------------------------------------------

    @property
    def in_flight(self) -> int:
        """Jobs running or waiting."""
        return self._in_flight

    @property
    def waiting(self) -> int:
        """Jobs waiting for a worker (the queue's depth)."""
        return max(0, self._in_flight - self.workers)

    @property
    def started(self) -> bool:
        """Whether the workers have been started (they start on the first job)."""
        return self._executor is not None

    def shutdown(self) -> None:
        """Stop the workers; jobs not yet started are cancelled. The pool starts afresh if used
        again."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    # -- inside ----------------------------------------------------------------------------

    def _submit(self, fn: Callable[..., T], args: tuple[Any, ...]) -> Future[T]:
        with self._lock:
            if self._in_flight >= self.workers + self.queue:
                raise BusyError(
                    f"the server is busy: {self._in_flight} jobs are running or waiting "
                    f"(the limit is {self.workers} running + {self.queue} waiting); "
                    f"try again in {self._retry_after()} s",
                    retry_after=self._retry_after(),
                )
            executor = self._executor_locked()
            self._in_flight += 1
            self._report()
        try:
            future = executor.submit(fn, *args)
        except (BrokenProcessPool, RuntimeError):
            self._release(None)
            raise self._broken() from None
        future.add_done_callback(self._release)
        return future

    def _executor_locked(self) -> Executor:
        if self._executor is None:
            if self.kind == "thread":
                self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="bb-job")
            else:
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=_context(), initializer=jobs.start_worker
                )
        return self._executor

    def _release(self, _future: Future[Any] | None) -> None:
        with self._lock:
            self._in_flight -= 1
            self._report()

    def _report(self) -> None:
        """Tell ``on_depth`` (under the lock, so that reports come in order)."""
        if self.on_depth is not None:
            self.on_depth(self._in_flight)

    def _retry_after(self) -> int:
        """Seconds to suggest: about how long the jobs ahead would take at worst."""
        return max(1, min(60, math.ceil(self.budget * (1 + self.queue / self.workers) / 4)))

    def _over_budget(self, future: Future[Any]) -> BudgetExceededError:
        future.cancel()  # only succeeds for a job still waiting: a running one keeps its slot
        return BudgetExceededError(
            f"the job took longer than its budget of {self.budget:g} s "
            "(limit job_budget, BIGBOGGLE_LIMIT_JOB_BUDGET); try a smaller board or request"
        )

    def _broken(self) -> BusyError:
        """A worker died (killed, out of memory): start afresh on the next job."""
        log.error("a worker process died; the pool restarts")
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
        return BusyError("a worker process stopped; try again", retry_after=1)
