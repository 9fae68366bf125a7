"""The timers both the rooms' and the solo games' timers stand on: deadlines on a service's
clock, fired once on the event loop, moved, cancelled and re-armed when the clock jumps."""

from __future__ import annotations

import asyncio

import pytest

from bigboggle.web.deadlines import Deadlines, Tasks

pytestmark = pytest.mark.once


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_timer_fires_once_at_its_deadline_and_is_forgotten() -> None:
    async def run() -> tuple[list[str], bool]:
        clock, fired = Clock(), []
        timers: Deadlines[str] = Deadlines(clock, fired.append)
        timers.set("a", clock.now + 0.01)
        await asyncio.sleep(0.1)
        return fired, "a" in timers

    assert asyncio.run(run()) == (["a"], False)


def test_a_timer_set_again_is_moved_not_doubled() -> None:
    async def run() -> list[str]:
        clock, fired = Clock(), []
        timers: Deadlines[str] = Deadlines(clock, fired.append)
        timers.set("a", clock.now + 3600)
        timers.set("a", clock.now)
        await asyncio.sleep(0.05)
        return fired

    assert asyncio.run(run()) == ["a"]


def test_a_cancelled_timer_never_fires() -> None:
    async def run() -> tuple[list[str], dict[str, float]]:
        clock, fired = Clock(), []
        timers: Deadlines[str] = Deadlines(clock, fired.append)
        timers.set("a", clock.now + 0.01)
        timers.cancel("a")
        timers.cancel("never set")  # nothing to do
        await asyncio.sleep(0.05)
        return fired, timers.scheduled

    assert asyncio.run(run()) == ([], {})


def test_recheck_fires_what_a_jump_of_the_clock_made_due() -> None:
    async def run() -> tuple[list[str], list[str]]:
        clock, fired = Clock(), []
        timers: Deadlines[str] = Deadlines(clock, fired.append)
        timers.set("soon", clock.now + 60)
        timers.set("later", clock.now + 3600)
        clock.now += 61
        await asyncio.sleep(0.01)
        before = list(fired)
        timers.recheck()
        await asyncio.sleep(0.01)
        timers.clear()
        return before, fired

    assert asyncio.run(run()) == ([], ["soon"])


def test_tasks_are_cancelled_and_awaited_at_stop() -> None:
    async def run() -> tuple[bool, bool]:
        tasks, ended = Tasks(), asyncio.Event()

        async def forever() -> None:
            try:
                await asyncio.sleep(3600)
            finally:
                ended.set()

        tasks.spawn(forever())
        await asyncio.sleep(0)
        running = bool(tasks)
        await tasks.stop()
        return running, ended.is_set() and not tasks

    assert asyncio.run(run()) == (True, True)
