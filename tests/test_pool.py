"""The web app's worker pool: jobs run in other processes and give what they give in-process;
past the queue a job is refused at once (BusyError); past the budget the caller gets
BudgetExceededError while the job keeps its slot until it really ends; a dead worker costs one
job, not the pool."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from bigboggle.errors import BoardError, BoggleError, BudgetExceededError, BusyError, RulesError
from bigboggle.limits import ServerLimits
from bigboggle.services import jobs
from bigboggle.web.pool import WorkerPool

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


@pytest.fixture
def processes() -> Iterator[WorkerPool]:
    pool = WorkerPool(workers=1, queue=2, budget=30)
    yield pool
    pool.shutdown()


def wait_until(test: object, seconds: float = 30) -> None:
    """Poll ``test()`` until it is true (a bound, not a timed assertion)."""
    deadline = time.monotonic() + seconds
    while not test():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the condition never came true"
        time.sleep(0.01)


def test_an_unused_pool_starts_no_process() -> None:
    pool = WorkerPool.from_limits(ServerLimits())
    assert not pool.started
    assert pool.workers == max(1, os.cpu_count() or 1)  # 0 means one per core
    pool.shutdown()
    assert not pool.started


def test_jobs_run_in_worker_processes(processes: WorkerPool) -> None:
    worker = processes.call(os.getpid)
    assert worker != os.getpid()
    assert processes.started
    assert processes.call(os.getpid) == worker  # the same worker is reused


def test_workers_run_below_the_server_s_priority(processes: WorkerPool) -> None:
    # Niceness stops at 19: a suite run under `nice -n 10` has workers at 19, not 20.
    assert processes.call(os.nice, 0) == min(19, os.nice(0) + jobs.WORKER_NICENESS)


def test_results_equal_those_computed_here(processes: WorkerPool) -> None:
    args = ((), BOARD, "big", None, None)
    assert processes.call(jobs.solve_board, *args) == jobs.solve_board(*args)
    for family in (False, True):  # /api/solve's bytes: the old encoding of solve_board's dict
        answer = processes.call(jobs.solve_board_json, *args, family)
        assert answer == orjson.dumps(jobs.solve_board(*args, family))
    round_ = {"board": BOARD, "players": {"ann": ["lines", "hemp"], "bob": ["lines"]}}
    assert processes.call(jobs.score_paper_round, (), round_) == jobs.score_paper_round((), round_)
    shake = ((), "big", False, None, "300-", 7)
    assert processes.call(jobs.band_shake, *shake) == jobs.band_shake(*shake)
    answer = asyncio.run(processes.run(jobs.band_seed, (), "big", None, None, "300-", 7))
    assert answer == jobs.band_seed((), "big", None, None, "300-", 7)


def test_errors_come_back_as_the_library_raised_them(processes: WorkerPool) -> None:
    with pytest.raises(BoardError):
        processes.call(jobs.solve_board, (), "LINES/TQ", "big", None, None)
    with pytest.raises(RulesError, match="unknown rules option 'name'"):
        jobs.rules_with("big", {"name": "x"})
    round_ = {"board": BOARD, "players": {"ann": ["lines"]}, "options": {"name": "x"}}
    with pytest.raises(BoggleError, match="'name'"):
        processes.call(jobs.score_paper_round, (), round_)
    assert processes.in_flight == 0


def test_past_the_queue_a_job_is_refused_at_once() -> None:
    pool = WorkerPool(workers=1, queue=1, budget=30, kind="thread")
    gate = threading.Event()

    async def scenario() -> None:
        running = asyncio.create_task(pool.run(gate.wait, 30))
        waiting = asyncio.create_task(pool.run(gate.wait, 30))
        await asyncio.sleep(0)  # both are submitted
        assert (pool.in_flight, pool.waiting) == (2, 1)
        with pytest.raises(BusyError) as refused:
            await pool.run(gate.wait, 30)
        assert refused.value.retry_after >= 1
        assert "1 running + 1 waiting" in str(refused.value)
        gate.set()
        assert await running and await waiting

    asyncio.run(scenario())
    wait_until(lambda: pool.in_flight == 0)
    assert pool.call(len, "abc") == 3  # room again
    pool.shutdown()


def test_past_the_budget_the_caller_is_answered_and_the_slot_stays_taken() -> None:
    pool = WorkerPool(workers=1, queue=0, budget=0.05, kind="thread")
    gate = threading.Event()
    with pytest.raises(BudgetExceededError, match=r"budget of 0\.05 s"):
        pool.call(gate.wait, 30)
    # The job still runs: its slot is counted, so abandoned jobs cannot pile up.
    assert pool.in_flight == 1
    with pytest.raises(BusyError):
        pool.call(len, "abc")
    gate.set()
    wait_until(lambda: pool.in_flight == 0)
    assert pool.call(len, "abc") == 3
    pool.shutdown()


def test_a_job_still_waiting_past_the_budget_is_cancelled() -> None:
    pool = WorkerPool(workers=1, queue=1, budget=0.05, kind="thread")
    gate = threading.Event()
    refused: list[BaseException] = []

    def blocked() -> None:
        try:
            pool.call(gate.wait, 30)
        except BudgetExceededError as exc:
            refused.append(exc)

    first = threading.Thread(target=blocked)
    first.start()
    wait_until(lambda: pool.in_flight == 1)
    with pytest.raises(BudgetExceededError):
        pool.call(len, "never runs")
    first.join()
    assert len(refused) == 1 and pool.in_flight == 1  # the running job keeps its slot
    gate.set()
    wait_until(lambda: pool.in_flight == 0)
    pool.shutdown()


def test_a_process_job_past_its_budget() -> None:
    pool = WorkerPool(workers=1, queue=0, budget=0.2)
    try:
        with pytest.raises(BudgetExceededError, match="BIGBOGGLE_LIMIT_JOB_BUDGET"):
            asyncio.run(pool.run(time.sleep, 3))
        assert pool.in_flight == 1  # the worker is still asleep
        with pytest.raises(BusyError):
            pool.call(os.getpid)
    finally:
        pool.shutdown()  # waits for the sleeping worker
    assert pool.in_flight == 0


def test_a_dead_worker_costs_one_job_not_the_pool(processes: WorkerPool) -> None:
    with pytest.raises(BusyError, match="worker process stopped"):
        processes.call(os._exit, 3)
    assert processes.call(os.getpid) != os.getpid()  # a fresh pool of workers
    assert processes.in_flight == 0


def test_the_depth_is_reported() -> None:
    depths: list[int] = []
    pool = WorkerPool(workers=1, queue=4, budget=30, kind="thread")
    pool.on_depth = depths.append
    assert pool.call(len, "ab") == 2
    wait_until(lambda: len(depths) == 2)
    assert depths == [1, 0]
    pool.shutdown()


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie waiting to be reaped counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


WORKER_OWNER = """
import os, sys, time
from bigboggle.web.pool import WorkerPool
if __name__ == "__main__":
    pool = WorkerPool(workers=1, queue=0, budget=30)
    print(pool.call(os.getpid), flush=True)
    time.sleep(600)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_workers_end_when_the_server_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "owner.py"
    script.write_text(WORKER_OWNER)
    with subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # the resource tracker's note on the killed owner
        text=True,
    ) as owner:
        try:
            assert owner.stdout is not None
            worker = int(owner.stdout.readline())
            assert not gone(worker)
        finally:
            owner.kill()  # SIGKILL: no shutdown, no atexit
            owner.wait()
    wait_until(lambda: gone(worker))
