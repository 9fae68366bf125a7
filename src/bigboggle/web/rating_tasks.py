"""The periodic task that rates the daily boards once their day is over.

At start-up and then every :data:`~bigboggle.limits.RATING_SETTLE_EVERY` seconds, the task asks
:meth:`Ratings.settle_daily <bigboggle.services.ratings.Ratings.settle_daily>` to rate the days
before today (UTC, on the service's clock, :data:`DAY_GRACE` late, so that a daily game begun
just before midnight is scored before its day is rated), and
:meth:`Ratings.sweep_rooms <bigboggle.services.ratings.Ratings.sweep_rooms>` to rate the finished
room games whose rating the rooms' listener never stored (a crash, a failed write). The work is
database reads and
writes plus a linear rating update, so it runs in a thread, never on the event loop; one
settling at a time. Several server processes may settle at once: each contest is rated once
(its key decides). Stopping cancels the wait and waits for a settling in progress to finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import anyio.to_thread

from ..limits import RATING_DAILY_PER_SETTLE, RATING_SETTLE_EVERY, ROOM_RATING_PER_SWEEP
from ..services.daily import utc_date
from ..services.ratings import Ratings
from .deadlines import cancel_and_wait

log = logging.getLogger(__name__)

#: Seconds after midnight (UTC) before the day's boards are rated: a daily game started at
#: 23:59 ends, and is scored, within it.
DAY_GRACE = 3600.0


class RatingTasks:
    """Settles the daily boards of the service ``ratings()`` answers (asked each time: a test
    may swap the app's service), every ``every`` seconds."""

    def __init__(self, ratings: Callable[[], Ratings], every: float = RATING_SETTLE_EVERY) -> None:
        self._ratings = ratings
        self.every = every
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        #: Settlings done since the start (each one a pass, whatever it rated).
        self.passes = 0
        #: The contest keys rated by this process's settlings, in order.
        self.rated: list[str] = []
        #: The room games this process's sweeps decided (rated, or stored as not rated).
        self.swept: list[str] = []

    async def start(self) -> None:
        """Start settling in the background: once now, then every :attr:`every` seconds."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="rating-settle")

    def wake(self) -> None:
        """Settle now instead of at the next interval (for tests, and after a clock jump)."""
        self._wake.set()

    async def settled(self, passes: int) -> None:
        """Wait until at least ``passes`` settlings are done (for tests)."""
        while self.passes < passes:
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Stop the task; a settling in progress finishes first (its thread is not abandoned)."""
        task, self._task = self._task, None
        await cancel_and_wait(task)

    async def _run(self) -> None:
        while True:
            await self._settle_once()
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.every)

    async def _settle_once(self) -> None:
        today = "?"
        try:
            ratings = self._ratings()
            today = utc_date(ratings.clock() - DAY_GRACE)
            # Each call rates at most RATING_DAILY_PER_SETTLE boards; a backlog is worked
            # off call after call (each its own thread's turn), not in one long transaction.
            while True:
                done = await anyio.to_thread.run_sync(ratings.settle_daily, today)
                self.rated.extend(done)
                if len(done) < RATING_DAILY_PER_SETTLE:
                    break
        except Exception:  # the next pass tries again
            log.exception("could not rate the daily boards before %s", today)
        try:
            ratings = self._ratings()
            while True:
                swept = await anyio.to_thread.run_sync(ratings.sweep_rooms)
                self.swept.extend(swept)
                if len(swept) < ROOM_RATING_PER_SWEEP:
                    break
        except Exception:  # the next pass tries again
            log.exception("could not sweep the finished room games")
        self.passes += 1
