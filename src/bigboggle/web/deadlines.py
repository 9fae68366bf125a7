"""Timers at deadlines on the event loop, and the tasks their work runs in: the mechanism the
rooms' timers (:mod:`.room_timers`) and the solo games' timers (:mod:`.solo_timers`) share.

A deadline is on a service's clock (wall time, or a test's fake clock), not the loop's; each
timer is armed by the loop for the time left, fires once, and is forgotten. Nothing polls:
:meth:`Deadlines.recheck` re-arms every timer when the service's clock has jumped (a test moves
its clock by hand, then calls it).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class Deadlines(Generic[K]):
    """One-shot timers by key: ``fire(key)`` is called on the loop at the key's deadline (on
    ``clock``), after the key is forgotten (so ``fire`` may set it again)."""

    def __init__(self, clock: Callable[[], float], fire: Callable[[K], None]) -> None:
        self._clock = clock
        self._fire = fire
        self._due: dict[K, float] = {}
        self._handles: dict[K, asyncio.TimerHandle] = {}

    def __contains__(self, key: object) -> bool:
        return key in self._due

    def __len__(self) -> int:
        return len(self._due)

    def due(self, key: K) -> float | None:
        """When timer ``key`` fires (on the clock), or ``None`` if it is not set."""
        return self._due.get(key)

    @property
    def scheduled(self) -> dict[K, float]:
        """A copy of the timers waiting, and when each fires."""
        return dict(self._due)

    def set(self, key: K, due: float) -> None:
        """Fire ``key`` at ``due`` (moved, if it was set already)."""
        self.cancel(key)
        self._due[key] = due
        self._arm(key)

    def cancel(self, key: K) -> None:
        """Forget timer ``key`` (nothing if it is not set)."""
        self._due.pop(key, None)
        handle = self._handles.pop(key, None)
        if handle is not None:
            handle.cancel()

    def recheck(self) -> None:
        """Re-arm every timer against the clock (after it jumped)."""
        for key in list(self._due):
            handle = self._handles.pop(key, None)
            if handle is not None:
                handle.cancel()
            self._arm(key)

    def clear(self) -> None:
        """Forget every timer."""
        for key in list(self._due):
            self.cancel(key)

    def _arm(self, key: K) -> None:
        loop = asyncio.get_running_loop()
        delay = max(0.0, self._due[key] - self._clock())
        self._handles[key] = loop.call_at(loop.time() + delay, self._fired, key)

    def _fired(self, key: K) -> None:
        self._handles.pop(key, None)
        self._due.pop(key, None)
        self._fire(key)


class Tasks:
    """Tasks of a component's own: kept until done, all cancelled (and awaited) at :meth:`stop`."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def __bool__(self) -> bool:
        return bool(self._tasks)

    def spawn(self, work: Awaitable[None]) -> None:
        """Run ``work`` in a task of its own."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait(self) -> None:
        """Wait for the tasks running now (their failures are theirs: not raised here)."""
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        """Cancel every task and wait until each has ended."""
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()


async def cancel_and_wait(task: asyncio.Task[None] | None) -> None:
    """Cancel ``task`` (if any) and wait for it to end, so a periodic task's work in progress
    (its thread) finishes before its owner stops; the cancellation itself is not an error."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
