"""The periodic sweep of challenges: standings a missed listener call left behind, and games
abandoned without words (which no solo timer scores), caught up at start-up and every
:data:`SWEEP_EVERY` seconds (:meth:`Challenges.sweep <bigboggle.services.challenges.Challenges.sweep>`).

The sweep is database reads and the rounds' scoring through the services' runner, so it runs in
a thread, never on the event loop; one at a time per process. Several processes may sweep at
once: a round's standings are stored under its row lock, only ever gaining games.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import anyio.to_thread

from ..limits import CHALLENGE_SWEEP_ROUNDS
from ..services.challenges import Challenges
from .deadlines import cancel_and_wait

log = logging.getLogger(__name__)

#: Seconds between two sweeps of the challenges by a server process.
SWEEP_EVERY = 300.0


class ChallengeSweep:
    """Sweeps the service ``challenges()`` answers (asked each time: a test may swap it)."""

    def __init__(self, challenges: Callable[[], Challenges], every: float = SWEEP_EVERY) -> None:
        self._challenges = challenges
        self.every = every
        self._task: asyncio.Task[None] | None = None
        #: Sweeps done since the start, and rounds they stored again.
        self.passes = 0
        self.stored = 0

    async def start(self) -> None:
        """Sweep in the background: once now, then every :attr:`every` seconds."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="challenge-sweep")

    async def stop(self) -> None:
        """Stop; a sweep in progress finishes first (its thread is not abandoned)."""
        task, self._task = self._task, None
        await cancel_and_wait(task)

    async def _run(self) -> None:
        while True:
            await self.sweep_once()
            await asyncio.sleep(self.every)

    async def sweep_once(self) -> None:
        """One sweep (a backlog is worked off call after call, each a thread's turn)."""
        try:
            challenges = self._challenges()
            while True:
                stored = await anyio.to_thread.run_sync(challenges.sweep)
                self.stored += stored
                if stored < CHALLENGE_SWEEP_ROUNDS:
                    break
        except Exception:  # the next pass tries again
            log.exception("could not sweep the challenges")
        self.passes += 1
