"""Timers that end solo games at their deadlines, so a game its player walked away from is
scored (and reaches the daily leaderboard) without anyone's read doing the work.

One timer per running game that someone other than its player reads (a daily game, or one
with a word: :func:`~bigboggle.services.solo_games.needs_timer`), fired on the event loop at the game's
deadline and dropped when the game ends first; the work (ending and scoring,
:meth:`~bigboggle.services.solo_games.SoloGames.settle`) runs in threads of its own,
``SOLO_TIMERS_AT_ONCE`` at a time, and the scoring itself in the worker pool. Scoring happens
once whoever asks first (the timer, or the player's own request): the claim is in the database. At start-up, running games get their timers and
games whose deadline passed while no server ran are scored, one at a time, in the background
(and tournaments from before standings were stored, when given them).

Deadlines are on the games' clock; :meth:`SoloTimers.recheck` re-reads it (a test moves its
clock by hand, then calls it). At most ``SOLO_TIMERS`` timers wait at once; a game beyond that
is scored by its player's next request.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import anyio.to_thread

from ..errors import BoggleError, BudgetExceededError, BusyError
from ..limits import SOLO_TIMERS, SOLO_TIMERS_AT_ONCE
from ..services.paper_games import PaperTournaments
from ..services.solo_games import SoloGames
from .deadlines import Deadlines, Tasks

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds before the first retry of a game the pool refused; doubled up to the last.
FIRST_RETRY = 1.0
LAST_RETRY = 60.0
#: Tries for one game before it is left to its player's next request.
TRIES = 8


class SoloTimers:
    """Timers at solo games' deadlines, for the games of the service ``solo()`` answers (asked
    each time: a test may swap the app's service)."""

    def __init__(
        self,
        solo: Callable[[], SoloGames],
        tournaments: Callable[[], PaperTournaments] | None = None,
    ) -> None:
        self._solo = solo
        self._tournaments = tournaments
        self._timers: Deadlines[str] = Deadlines(lambda: self.solo.clock(), self._fired)
        self._tasks = Tasks()
        self._limiter: anyio.CapacityLimiter | None = None  # made on the event loop
        #: Set once the start-up work (overdue games scored) is done.
        self.started = asyncio.Event()

    @property
    def scheduled(self) -> dict[str, float]:
        """The games whose timers wait, and when (on the games' clock) each fires."""
        return self._timers.scheduled

    async def start(self) -> None:
        """Start the start-up work in the background (the server serves at once)."""
        self._spawn(self._start_up())

    def at(self, game_id: str, deadline: float) -> None:
        """End and score game ``game_id`` at ``deadline`` (unless SOLO_TIMERS already wait)."""
        if game_id in self._timers or len(self._timers) >= SOLO_TIMERS:
            return
        self._timers.set(game_id, deadline)

    def drop(self, game_id: str) -> None:
        """Forget game ``game_id``'s timer (it has ended: its player's request scored it)."""
        self._timers.cancel(game_id)

    def recheck(self) -> None:
        """Re-arm every timer against the clock (after it jumped)."""
        self._timers.recheck()

    async def idle(self) -> None:
        """Wait until no timer is due and no fired timer's work is still running (for tests)."""
        while True:
            await asyncio.sleep(0)
            if self._tasks:
                await self._tasks.wait()
            elif all(due > self.solo.clock() for due in self._timers.scheduled.values()):
                return

    async def stop(self) -> None:
        self._timers.clear()
        await self._tasks.stop()

    @property
    def solo(self) -> SoloGames:
        return self._solo()

    # -- internals ---------------------------------------------------------------------------

    async def _start_up(self) -> None:
        try:
            now = self.solo.clock()
            for game_id, deadline in await self._in_thread(self.solo.running, SOLO_TIMERS):
                if deadline > now:
                    self.at(game_id, deadline)
            # Past their deadline while no server ran, or ended but never scored: one at a time.
            for game_id, _ in await self._in_thread(self.solo.overdue, SOLO_TIMERS):
                await self._settle(game_id)
        except Exception:  # the games are scored by their players' requests instead
            log.exception("could not time or score the solo games at start-up")
        await self._catch_up_tournaments()
        self.started.set()

    async def _catch_up_tournaments(self) -> None:
        """Score old tournaments (no stored standings), one at a time, so no reader's request
        does; one the pool refuses is left to its next read."""
        if self._tournaments is None:
            return
        tournaments = self._tournaments()
        try:
            for tournament_id in await self._in_thread(tournaments.unscored, SOLO_TIMERS):
                try:
                    await self._in_thread(tournaments.catch_up, tournament_id)
                except BoggleError as refused:
                    log.warning(
                        "tournament %r: not scored at start-up (%s)", tournament_id, refused
                    )
        except Exception:
            log.exception("could not score the old tournaments at start-up")

    def _fired(self, game_id: str) -> None:
        self._spawn(self._settle(game_id))

    async def _settle(self, game_id: str) -> None:
        """End and score the game; while the pool refuses (busy, or over its budget), try again
        after 1 s, 2 s, 4 s … with one log line each, and after ``TRIES`` leave it to its
        player's next request, saying so once."""
        delay = FIRST_RETRY
        for attempt in range(1, TRIES + 1):
            try:
                await self._in_thread(self.solo.settle, game_id)
                return
            except (BusyError, BudgetExceededError) as refused:
                if attempt == TRIES:
                    break
                log.warning(
                    "solo game %r: scoring refused (%s); trying again in %g s",
                    game_id,
                    refused,
                    delay,
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, LAST_RETRY)
            except Exception:  # one game's failure is its own; its player's request tries again
                log.exception("could not score solo game %r at its deadline", game_id)
                return
        log.error(
            "solo game %r: scoring refused %d times; left to its player's next request",
            game_id,
            TRIES,
        )

    async def _in_thread(self, fn: Callable[..., T], /, *args: object) -> T:
        """``fn(*args)`` in a thread, ``SOLO_TIMERS_AT_ONCE`` at most (not the requests' threads)."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(SOLO_TIMERS_AT_ONCE)
        return await anyio.to_thread.run_sync(fn, *args, limiter=self._limiter)

    def _spawn(self, work: Awaitable[None]) -> None:
        self._tasks.spawn(work)
