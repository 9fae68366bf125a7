"""The rooms' timers, fired at deadlines on the event loop, never by polling.

:class:`RoomTimers` keeps one timer per room with a round to score in this process, one per
room whose computer opponents have a word due (at that word's time: the words due then are
submitted, each at its own time, and the room told their counts), one for a host who has left
(the role passes on when they have been away too long), and one a day that closes idle rooms;
each is dropped once it has fired. A round whose job the worker pool refuses
is tried again after 1 s, 2 s, 4 s … (at most the scoring lease), with one log line each. At
start-up the overdue rounds (and rounds from an older bigboggle, which reading a room never
scores) are scored one at a time in a background task: the server serves at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable

from starlette.concurrency import run_in_threadpool

from ..errors import BudgetExceededError, BusyError
from ..limits import OPPONENT_NEWS_INTERVAL
from ..services.rooms import SCORING_LEASE, Rooms, Seat
from .deadlines import Deadlines, Tasks
from .hub import LocalHub
from .metrics import Metrics

log = logging.getLogger(__name__)

#: Seconds before a timer that could not reach the database tries again.
RETRY_SECONDS = 5.0
#: Seconds before a round whose scoring was refused (or failed) is tried again the first time;
#: each further refusal doubles it, up to :data:`~bigboggle.services.rooms.SCORING_LEASE`.
FIRST_RETRY = 1.0
#: Passes of the start-up catch-up before the rounds still refused (or failing) are left to
#: their rooms' round timers, which go on trying with the same backoff: a round whose job
#: always exceeds its budget must not hold the start-up work for ever.
CATCH_UP_TRIES = 3
#: Seconds between closing idle rooms (the first time at start-up).
IDLE_CHECK_SECONDS = 86_400.0

TimerKey = tuple[str, str]


class RoomTimers:
    """Timers that fire at deadlines, on the event loop: ``(room, "round")`` scores a room's
    round when it is due, ``(room, "opponents")`` submits its computer opponents' words due
    (at the next one's time, at most every :data:`OPPONENT_NEWS_INTERVAL`), ``(room, "host")`` passes the host role on when the host has been
    away too long, and one timer a day closes idle rooms. Nothing polls: a room with no round
    and no absent host has no timer at all, and a timer is dropped once it has fired.

    Deadlines are on the rooms' clock; :meth:`recheck` re-reads it (a test moves its clock by
    hand, then calls it)."""

    def __init__(self, rooms: Rooms, hub: LocalHub, metrics: Metrics | None = None) -> None:
        self.rooms = rooms
        self.hub = hub
        #: What ``/metrics`` counts (rounds scored, sockets, refusals); a fresh set if none.
        self.metrics = metrics or Metrics()
        self._timers: Deadlines[TimerKey] = Deadlines(lambda: self.rooms.clock(), self._fired)
        #: One-shot jobs of connections (a presence change held back by its rate), by key.
        self._later: Deadlines[Hashable] = Deadlines(lambda: self.rooms.clock(), self._run_later)
        self._later_jobs: dict[Hashable, Callable[[], Awaitable[None]]] = {}
        self._tasks = Tasks()
        #: Timers that have fired and whose work is still running.
        self._firing: set[TimerKey] = set()
        #: Seconds before the next try of each room whose round was refused or failed.
        self._backoff: dict[str, float] = {}
        #: Set once the start-up work (overdue rounds among it) is done.
        self.started = asyncio.Event()

    @property
    def scheduled(self) -> dict[TimerKey, float]:
        """The timers waiting, and when (on the rooms' clock) each fires."""
        return self._timers.scheduled

    async def start(self) -> None:
        """Start the start-up work in the background (the server serves at once): forget
        dead connections (when this is the only server), time the rounds still running,
        score the rounds that are overdue (their deadline passed while no server ran, or
        they come from an older bigboggle), and close idle rooms (again once a day)."""
        self.spawn(self._start_up())

    async def _start_up(self) -> None:
        try:
            if not self.hub.shared:
                await run_in_threadpool(self.rooms.reset_presence)
        except Exception:
            log.exception("could not reset the rooms' connections at start-up")
        now = self.rooms.clock()
        try:
            for code, due in await run_in_threadpool(self.rooms.running):
                if due > now:  # the overdue ones are scored below, one at a time
                    self.at((code, "round"), due)
                    self.spawn(self._watch_opponents(code))
        except Exception:  # rounds get timers when their players come back
            log.exception("could not time the rooms' rounds at start-up")
        self.at(("", "idle"), self.rooms.clock())  # whatever becomes of the catch-up
        try:
            await self.catch_up()
        finally:
            self.started.set()

    async def catch_up(self) -> None:
        """Score every overdue round, one at a time; while some are refused (or fail), try
        again after 1 s, 2 s, 4 s … (at most the scoring lease). After :data:`CATCH_UP_TRIES`
        passes, the rounds still left get their rooms' round timers instead. A database
        failure is retried the same way."""
        delay = FIRST_RETRY
        passes = 0
        while True:
            try:
                done = await run_in_threadpool(self.rooms.score_overdue)
            except Exception:
                log.exception("could not score the overdue rounds")
            else:
                await self._announce(done.scored)
                if not done.retry:
                    return
                passes += 1
                if passes >= CATCH_UP_TRIES:
                    self._leave_to_round_timers(done.retry, delay)
                    return
                log.warning(
                    "%d overdue rounds were refused or failed; trying again in %g s",
                    len(done.retry),
                    delay,
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, SCORING_LEASE)

    async def _announce(self, scored: list[str]) -> None:
        """Count and announce the rounds the catch-up scored; an announcement the hub cannot
        send (Redis away) is logged: the players see the result when they next resync."""
        for code in dict.fromkeys(scored):
            self.metrics.rounds.inc()
            try:
                await self.hub.publish(code, {"kind": "ended"})
            except Exception as exc:
                log.warning("could not announce the end of a round of room %s: %r", code, exc)

    def _leave_to_round_timers(self, rooms: list[str], delay: float) -> None:
        """Stop retrying ``rooms``' overdue rounds in the catch-up: their round timers try
        again in ``delay`` seconds, then with the usual backoff."""
        log.warning(
            "%d overdue rounds still refused or failing; left to their rooms' timers", len(rooms)
        )
        now = self.rooms.clock()
        for code in dict.fromkeys(rooms):
            self._backoff[code] = min(delay * 2, SCORING_LEASE)
            self.at((code, "round"), now + delay)

    def at(self, key: TimerKey, due: float) -> None:
        """Fire timer ``key`` at ``due`` (the rooms' clock). A round timer already set keeps
        the earlier time; any other timer is moved."""
        earlier = self._timers.due(key)
        if key[1] in ("round", "opponents") and earlier is not None and earlier <= due:
            return
        self._timers.set(key, due)

    def watch_round(self, room: str, *, moved: bool = False) -> None:
        """Make sure the room's round (if any) has a timer here: a process hears of a round by
        a join or a "started" event. Reads the database only when it has no timer yet, or
        when the round's deadline has ``moved`` (the host ended the game: the earlier time
        wins)."""
        key = (room, "round")
        if moved or (key not in self._timers and key not in self._firing):
            self.spawn(self._watch(room))
        self.watch_opponents(room)

    def watch_opponents(self, room: str) -> None:
        """Make sure the room's computer opponents' next word (if any) has a timer here (a
        round just started, or this process just heard of one)."""
        key = (room, "opponents")
        if key not in self._timers and key not in self._firing:
            self.spawn(self._watch_opponents(room))

    def later(self, key: Hashable, due: float, job: Callable[[], Awaitable[None]]) -> None:
        """Run ``job()`` at ``due`` (the rooms' clock), once, unless :meth:`cancel_later` is
        called first. At most one job per ``key``: while one waits, another is not added (the
        waiting one is to read the latest state itself), so a key costs one timer at most."""
        if key in self._later:
            return
        self._later_jobs[key] = job
        self._later.set(key, due)

    def cancel_later(self, key: Hashable) -> None:
        """Forget ``key``'s waiting job, if any (its connection closed, or did it already)."""
        self._later.cancel(key)
        self._later_jobs.pop(key, None)

    def recheck(self) -> None:
        """Re-arm every timer against the clock (after it jumped)."""
        self._timers.recheck()
        self._later.recheck()

    async def stop(self) -> None:
        self._timers.clear()
        self._later.clear()
        self._later_jobs.clear()
        await self._tasks.stop()

    # -- internals ---------------------------------------------------------------------------

    def _run_later(self, key: Hashable) -> None:
        job = self._later_jobs.pop(key, None)
        if job is not None:
            self.spawn(self._call(job))

    @staticmethod
    async def _call(job: Callable[[], Awaitable[None]]) -> None:
        """Await ``job()``, made inside the task (see :meth:`_run_fired`)."""
        await job()

    def _fired(self, key: TimerKey) -> None:
        room, kind = key
        jobs: dict[str, Callable[[str], Awaitable[None]]] = {
            "round": self._score,
            "opponents": self._play_opponents,
            "host": self._hand_over,
            "idle": self._close_idle,
        }
        self._firing.add(key)
        self.spawn(self._run_fired(key, jobs[kind], room))

    async def _run_fired(
        self, key: TimerKey, job: Callable[[str], Awaitable[None]], room: str
    ) -> None:
        """Run a fired timer's job. The job's coroutine is made here, inside the task, so a task
        cancelled before it ever ran (the timers stopping) leaves no coroutine never awaited."""
        try:
            await job(room)
        finally:
            self._firing.discard(key)

    def spawn(self, work: Awaitable[None]) -> None:
        """Run ``work`` in a task of the timers' own (kept until done, cancelled at stop)."""
        self._tasks.spawn(work)

    async def left(self, seat: Seat, hidden: bool = False) -> None:
        """A connection of ``seat`` closed (``hidden``: its tab was hidden): count it, time
        the host's absence, and tell the room (a player whose last connection closed is
        offline at once)."""
        try:
            host_due = await run_in_threadpool(self.rooms.disconnected, seat, hidden)
        except Exception:  # the database is gone: presence is reset at start-up
            log.warning("could not record that %s left room %s", seat.player, seat.room)
            return
        if host_due is not None:
            self.at((seat.room, "host"), host_due)
        await publish_presence(self.rooms, self.hub, seat.room)

    async def _watch(self, room: str) -> None:
        try:
            due = await run_in_threadpool(self.rooms.next_deadline, room)
        except Exception:
            log.exception("cannot read the deadline of room %s", room)
            return
        if due is not None:
            self.at((room, "round"), due)

    async def _watch_opponents(self, room: str) -> None:
        try:
            due = await run_in_threadpool(self.rooms.next_opponent_word, room)
        except Exception:
            log.exception("cannot read when the opponents of room %s play", room)
            return
        if due is not None:
            self.at((room, "opponents"), due)

    async def _play_opponents(self, room: str) -> None:
        """Submit the opponents' words due now, tell the room their counts, and time the next
        (no sooner than :data:`OPPONENT_NEWS_INTERVAL` from now). A failure (the database)
        is tried again shortly; whatever a timer misses is submitted before the round is
        scored, at its own time."""
        now = self.rooms.clock()
        try:
            played = await run_in_threadpool(self.rooms.play_opponents, room)
        except Exception:
            log.exception("could not play the opponents' words in room %s", room)
            self.at((room, "opponents"), now + RETRY_SECONDS)
            return
        if played.submitted:
            self.metrics.words.inc(played.submitted)
            await publish_counts(self.rooms, self.hub, room)
        if played.next_due is not None:
            self.at((room, "opponents"), max(played.next_due, now + OPPONENT_NEWS_INTERVAL))

    async def _score(self, room: str) -> None:
        outcome = await end_if_due(self.rooms, self.hub, room, self.metrics)
        now = self.rooms.clock()
        if outcome in ("refused", "failed"):  # again soon, a little later each time
            delay = self._backoff.get(room, FIRST_RETRY)
            self._backoff[room] = min(delay * 2, SCORING_LEASE)
            self.at((room, "round"), now + delay)
            return
        self._backoff.pop(room, None)
        try:
            due = await run_in_threadpool(self.rooms.next_deadline, room)
        except Exception:  # the database hiccuped: look again shortly
            log.exception("cannot read the deadline of room %s", room)
            due = now + RETRY_SECONDS
        if due is not None:  # another round started, or somebody else is scoring this one
            self.at((room, "round"), due if due > now else now + RETRY_SECONDS)

    async def _hand_over(self, room: str) -> None:
        try:
            new_host = await run_in_threadpool(self.rooms.hand_over_if_away, room)
        except Exception:
            log.exception("could not pass on the host of room %s", room)
            return
        if new_host is not None:
            await self.hub.publish(room, {"kind": "changed"})

    async def _close_idle(self, _room: str) -> None:
        try:
            closed = await run_in_threadpool(self.rooms.close_idle)
            if closed:
                log.info("closed %d idle rooms", closed)
        except Exception:
            log.exception("could not close idle rooms")
        self.at(("", "idle"), self.rooms.clock() + IDLE_CHECK_SECONDS)


async def end_if_due(rooms: Rooms, hub: LocalHub, room: str, metrics: Metrics | None = None) -> str:
    """Score the room's round if it is due, and tell everyone if this process did it:
    ``"scored"``, ``"refused"`` (the worker pool said no: try again soon), ``"failed"`` (the
    database, a word list missing, a bug: the round's timer tries again, backing off) or
    ``"nothing"`` (not due, or somebody else's)."""
    try:
        ended = await run_in_threadpool(rooms.end_round_if_due, room)
    except (BusyError, BudgetExceededError) as exc:  # expected under load: one line
        log.warning("the worker pool refused to score a round of room %s: %s", room, exc)
        return "refused"
    except Exception:
        log.exception("could not score a round of room %s", room)
        return "failed"
    if ended is None:
        return "nothing"
    if metrics is not None:
        metrics.rounds.inc()
    try:
        await hub.publish(room, {"kind": "ended"})
    except Exception as exc:  # Redis away: the round is scored; players see it on their resync
        log.warning("could not announce the end of a round of room %s: %r", room, exc)
    return "scored"


async def publish_counts(rooms: Rooms, hub: LocalHub, room: str) -> None:
    """Tell everyone in ``room`` how many words each player of the running round has entered
    (after a person's word or an opponent's; never the words). The event carries the counts:
    they only grow in a round, so a client keeps the largest it has heard. One that cannot be
    sent is logged: the counts come again with the next state."""
    try:
        counts = await run_in_threadpool(rooms.word_counts, room)
        if counts is not None:
            number, by_player = counts
            await hub.publish(room, {"kind": "counts", "round": number, "counts": by_player})
    except Exception as exc:
        log.warning("could not tell room %s the word counts: %r", room, exc)


async def publish_presence(rooms: Rooms, hub: LocalHub, room: str) -> dict[str, str] | None:
    """Tell everyone in ``room`` (in every process) who is online, away or offline, as the
    store says now. The event carries the map (for an older process during a rolling deploy),
    but each connection reads it again on hearing the event: events of two publishers arrive
    in either order, and the map read last is the store's latest. Returns the map, or ``None`` if it could not be read or sent (logged: presence comes
    again with the next state)."""
    try:
        presence = await run_in_threadpool(rooms.presence, room)
        await hub.publish(room, {"kind": "presence", "presence": presence})
    except Exception as exc:
        log.warning("could not tell room %s who is present: %r", room, exc)
        return None
    return presence
