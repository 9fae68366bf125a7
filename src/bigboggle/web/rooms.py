"""Multiplayer rooms on the web: ``POST /api/rooms`` to create one, the WebSocket ``/ws`` to play.

Each connection speaks for one seat once it has joined. It reads the client's messages (each
checked by :mod:`.protocol`, answered with a reply or an ``error``) and, alongside, forwards its
room's events from the hub as fresh views of the room. The library's
:class:`~bigboggle.services.rooms.Rooms` does the game; this module only translates, and guards:

- **Flood control.** Each connection has a token bucket (``ws_burst`` messages at once, then
  ``ws_rate`` a second). A message over the rate is dropped unread (not parsed, not answered);
  the first drop of a burst gets one ``rate_limited`` error. After ``ws_flood_drops`` drops
  (counted until the client has been quiet long enough to refill its bucket) the connection is
  closed with code 1008.
- **Sockets.** At most ``sockets_per_address`` open sockets per client address (a further one
  is told ``too_many_sockets`` and closed with 1008) and ``sockets_per_seat`` per seat in this
  process: a seat's newest connection wins, its oldest is told ``replaced`` and closed (4002),
  so a reloaded page is never locked out and one token cannot hold hundreds of sockets.
- **Rates per address.** Room creation (``rooms_per_address_hour``: 429 with ``Retry-After``)
  and join attempts (``joins_per_address_minute``: a ``too_many_joins`` error). The address
  is the ASGI ``client`` (uvicorn puts the proxy's ``X-Forwarded-For`` there only when the
  operator says to trust it). Counters live in a bounded table, so memory stays flat however
  many addresses call.

Timers fire at deadlines, never by polling (:class:`RoomTimers`): one per room with a round to
score in this process, and one for a host who has left; each is dropped once it has fired.
A round whose job the worker pool refuses is tried again after 1 s, 2 s, 4 s … (at most the
scoring lease), with one log line each. At start-up the overdue rounds (and rounds from an
older bigboggle, which reading a room never scores) are scored one at a time in a background
task: the server serves at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Request, WebSocket, WebSocketDisconnect
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from ..errors import (
    BoggleError,
    BudgetExceededError,
    BusyError,
    GameStateError,
    KickedError,
    NotFoundError,
    NotHostError,
    RoomClosedError,
    RoomFullError,
)
from ..limits import ADDRESSES_KEPT, ServerLimits
from ..names import clean_name
from ..services.rooms import GRACE, MAX_CODE_TYPED, SCORING_LEASE, Rooms, Seat
from . import protocol
from .api import JSONResponse
from .hub import LocalHub
from .inputs import ErrorBody, NewRoom, body_schema, read_model
from .metrics import Metrics

log = logging.getLogger(__name__)

#: Close codes: flooding and other policy breaches (the standard one), removed by the host,
#: replaced by a newer connection of the same seat.
CLOSE_POLICY = 1008
CLOSE_KICKED = 4001
CLOSE_REPLACED = 4002
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

router = APIRouter(
    tags=["rooms"],
    responses={
        400: {"model": ErrorBody, "description": "Bad input: the message names what and where"},
        413: {"model": ErrorBody, "description": "The body is over the size limit"},
        415: {"model": ErrorBody, "description": "The body is not JSON"},
    },
)


# -- rate limits -------------------------------------------------------------------------------


class TokenBucket:
    """At most ``burst`` messages at once and ``rate`` a second after that, on ``clock``
    (seconds; a test passes its own)."""

    def __init__(self, burst: int, rate: float, clock: Callable[[], float]) -> None:
        self.burst = burst
        self.rate = rate
        self.clock = clock
        self.tokens = float(burst)
        self.last = clock()
        #: Whether the bucket was full before the last message taken: the client was quiet.
        self.was_full = True

    def take(self) -> bool:
        """Take a token for one message; ``False`` if there is none (drop the message)."""
        now = self.clock()
        elapsed = max(0.0, now - self.last)  # a clock that steps back refills nothing
        self.tokens = min(float(self.burst), self.tokens + elapsed * self.rate)
        self.last = now
        self.was_full = self.tokens >= self.burst
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class WindowLimit:
    """At most ``limit`` hits per key in each ``window`` seconds (fixed windows starting at a
    key's first hit), on ``clock``. At most ``keys`` keys are remembered: the least recently
    hit is forgotten first, so memory stays flat under any number of addresses."""

    def __init__(
        self, limit: int, window: float, clock: Callable[[], float], keys: int = ADDRESSES_KEPT
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.keys = keys
        self._hits: OrderedDict[str, tuple[float, int]] = OrderedDict()

    def hit(self, key: str) -> float | None:
        """Count one hit of ``key``: ``None`` if it is within the limit, else the seconds until
        the window ends (for ``Retry-After``; the refused hit is not counted)."""
        now = self.clock()
        start, count = self._hits.pop(key, (now, 0))
        if now - start >= self.window or now < start:
            start, count = now, 0
        if count >= self.limit:
            self._hits[key] = (start, count)
            return max(1.0, start + self.window - now)
        self._hits[key] = (start, count + 1)
        while len(self._hits) > self.keys:
            self._hits.popitem(last=False)
        return None

    def __len__(self) -> int:
        return len(self._hits)


class RoomGuards:
    """The per-address and per-seat limits of this process."""

    def __init__(self, limits: ServerLimits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self.clock = clock
        self.creations = WindowLimit(limits.rooms_per_address_hour, 3600.0, clock)
        self.joins = WindowLimit(limits.joins_per_address_minute, 60.0, clock)
        #: Open sockets per address (an entry exists only while it has one: bounded by them).
        self._sockets: dict[str, int] = {}
        #: Each seat's connections here, oldest first.
        self._seats: dict[Seat, list[Connection]] = {}

    def open_socket(self, address: str) -> bool:
        """Count a new socket of ``address``; ``False`` (not counted) if it has too many."""
        if self._sockets.get(address, 0) >= self.limits.sockets_per_address:
            return False
        self._sockets[address] = self._sockets.get(address, 0) + 1
        return True

    def close_socket(self, address: str) -> None:
        left = self._sockets.get(address, 0) - 1
        if left > 0:
            self._sockets[address] = left
        else:
            self._sockets.pop(address, None)

    def take_seat(self, seat: Seat, connection: Connection) -> list[Connection]:
        """Add ``connection`` to ``seat``'s; returns the oldest ones beyond the cap (to close)."""
        held = self._seats.setdefault(seat, [])
        held.append(connection)
        over = len(held) - self.limits.sockets_per_seat
        evicted, held[:] = (held[:over], held[over:]) if over > 0 else ([], held)
        return evicted

    def leave_seat(self, seat: Seat, connection: Connection) -> None:
        held = self._seats.get(seat)
        if held is not None:
            with contextlib.suppress(ValueError):
                held.remove(connection)
            if not held:
                del self._seats[seat]

    def sockets_of(self, seat: Seat) -> int:
        """Open connections of ``seat`` in this process."""
        return len(self._seats.get(seat, ()))


def _address(scope_client: Any) -> str:
    return str(scope_client[0]) if scope_client else "unknown"


# -- HTTP routes ------------------------------------------------------------------------------


@router.post(
    "/api/rooms",
    status_code=201,
    summary="Create a multiplayer room; the host is seated and gets a resume token",
    openapi_extra=body_schema(NewRoom),
    responses={429: {"model": ErrorBody, "description": "Too many rooms from this address"}},
)
async def create_room(request: Request) -> JSONResponse:
    guards: RoomGuards = request.app.state.room_guards
    wait = guards.creations.hit(_address(request.scope.get("client")))
    if wait is not None:
        request.app.state.metrics.refused("too_many_rooms")
        per_hour = guards.limits.rooms_per_address_hour
        return JSONResponse(
            {
                "error": f"too many rooms created from your address (at most {per_hour} an "
                f"hour); try again in {math.ceil(wait)} s"
            },
            status_code=429,
            headers={"Retry-After": str(math.ceil(wait))},
        )
    asked = await read_model(request, NewRoom)
    rooms: Rooms = request.app.state.rooms
    host = clean_name(asked.host, "host")
    code, token = await run_in_threadpool(rooms.create, host, asked.settings)
    return JSONResponse(
        {"room": code, "token": token, "url": f"/rooms/{code}", "host": host}, status_code=201
    )


@router.get(
    "/api/rooms/{code}",
    summary="A room's public state: settings, players, host, totals",
    responses={404: {"model": ErrorBody}},
)
def room_info(
    request: Request, code: Annotated[str, Path(max_length=MAX_CODE_TYPED)]
) -> JSONResponse:
    rooms: Rooms = request.app.state.rooms
    return JSONResponse(rooms.public(code).to_json())


@router.get(
    "/api/rooms/{code}/rounds/{number}",
    summary="One scored round of a room, as every player saw it at the end (public)",
    responses={404: {"model": ErrorBody}},
)
def room_round(
    request: Request,
    code: Annotated[str, Path(max_length=MAX_CODE_TYPED)],
    number: Annotated[int, Path(ge=1, le=1_000_000)],
) -> JSONResponse:
    rooms: Rooms = request.app.state.rooms
    return JSONResponse(rooms.round_result(code, number).to_json())


# -- timers -----------------------------------------------------------------------------------

TimerKey = tuple[str, str]


class RoomTimers:
    """Timers that fire at deadlines, on the event loop: ``(room, "round")`` scores a room's
    round when it is due, ``(room, "host")`` passes the host role on when the host has been
    away too long, and one timer a day closes idle rooms. Nothing polls: a room with no round
    and no absent host has no timer at all, and a timer is dropped once it has fired.

    Deadlines are on the rooms' clock; :meth:`recheck` re-reads it (a test moves its clock by
    hand, then calls it)."""

    def __init__(self, rooms: Rooms, hub: LocalHub, metrics: Metrics | None = None) -> None:
        self.rooms = rooms
        self.hub = hub
        #: What ``/metrics`` counts (rounds scored, sockets, refusals); a fresh set if none.
        self.metrics = metrics or Metrics()
        self._due: dict[TimerKey, float] = {}
        self._handles: dict[TimerKey, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Timers that have fired and whose work is still running.
        self._firing: set[TimerKey] = set()
        #: Seconds before the next try of each room whose round was refused or failed.
        self._backoff: dict[str, float] = {}
        #: Set once the start-up work (overdue rounds among it) is done.
        self.started = asyncio.Event()

    @property
    def scheduled(self) -> dict[TimerKey, float]:
        """The timers waiting, and when (on the rooms' clock) each fires."""
        return dict(self._due)

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
        if key[1] == "round" and key in self._due and self._due[key] <= due:
            return
        self._cancel(key)
        self._due[key] = due
        self._arm(key)

    def watch_round(self, room: str, *, moved: bool = False) -> None:
        """Make sure the room's round (if any) has a timer here: a process hears of a round by
        a join or a "started" event. Reads the database only when it has no timer yet, or
        when the round's deadline has ``moved`` (the host ended the game: the earlier time
        wins)."""
        key = (room, "round")
        if moved or (key not in self._due and key not in self._firing):
            self.spawn(self._watch(room))

    def recheck(self) -> None:
        """Re-arm every timer against the clock (after it jumped)."""
        for key in list(self._due):
            self._cancel_handle(key)
            self._arm(key)

    async def stop(self) -> None:
        for key in list(self._due):
            self._cancel(key)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    # -- internals ---------------------------------------------------------------------------

    def _arm(self, key: TimerKey) -> None:
        loop = asyncio.get_running_loop()
        delay = max(0.0, self._due[key] - self.rooms.clock())
        self._handles[key] = loop.call_at(loop.time() + delay, self._fired, key)

    def _fired(self, key: TimerKey) -> None:
        self._handles.pop(key, None)
        self._due.pop(key, None)
        room, kind = key
        jobs: dict[str, Callable[[str], Awaitable[None]]] = {
            "round": self._score,
            "host": self._hand_over,
            "idle": self._close_idle,
        }
        self._firing.add(key)
        self.spawn(self._run_fired(key, jobs[kind](room)))

    async def _run_fired(self, key: TimerKey, work: Awaitable[None]) -> None:
        try:
            await work
        finally:
            self._firing.discard(key)

    def spawn(self, work: Awaitable[None]) -> None:
        """Run ``work`` in a task of the timers' own (kept until done, cancelled at stop)."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _cancel_handle(self, key: TimerKey) -> None:
        handle = self._handles.pop(key, None)
        if handle is not None:
            handle.cancel()

    def _cancel(self, key: TimerKey) -> None:
        self._cancel_handle(key)
        self._due.pop(key, None)

    async def left(self, seat: Seat) -> None:
        """A connection of ``seat`` closed: count it, and time the host's absence."""
        try:
            host_due = await run_in_threadpool(self.rooms.disconnected, seat)
        except Exception:  # the database is gone: presence is reset at start-up
            log.warning("could not record that %s left room %s", seat.player, seat.room)
            return
        if host_due is not None:
            self.at((seat.room, "host"), host_due)

    async def _watch(self, room: str) -> None:
        try:
            due = await run_in_threadpool(self.rooms.next_deadline, room)
        except Exception:
            log.exception("cannot read the deadline of room %s", room)
            return
        if due is not None:
            self.at((room, "round"), due)

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


# -- connections ------------------------------------------------------------------------------


def _code_of(exc: BoggleError) -> str:
    if isinstance(exc, RoomFullError):
        return "room_full"
    if isinstance(exc, NotHostError):
        return "not_host"
    if isinstance(exc, KickedError):
        return "kicked"
    if isinstance(exc, RoomClosedError):
        return "closed"
    if isinstance(exc, NotFoundError):
        return "not_found"
    if isinstance(exc, (BusyError, BudgetExceededError)):
        return "busy"
    if isinstance(exc, GameStateError):
        return "not_now"
    return "bad_input"


class Connection:
    """One player's WebSocket: their messages in, their room's news out."""

    def __init__(
        self,
        socket: WebSocket,
        rooms: Rooms,
        hub: LocalHub,
        timers: RoomTimers,
        guards: RoomGuards,
    ) -> None:
        self.socket = socket
        self.rooms = rooms
        self.hub = hub
        self.timers = timers
        self.guards = guards
        self.limits = rooms.limits
        self.metrics = timers.metrics
        self.address = _address(socket.scope.get("client"))
        self.seat: Seat | None = None
        self.queue: asyncio.Queue[dict[str, Any]] | None = None
        self.forwarder: asyncio.Task[None] | None = None
        self.bucket = TokenBucket(self.limits.ws_burst, self.limits.ws_rate, rooms.clock)
        self.dropped = 0
        self.warned = False
        self.closed = False
        self.send_lock = asyncio.Lock()

    async def send(self, data: dict[str, Any]) -> None:
        async with self.send_lock:
            await self.socket.send_text(orjson.dumps(data).decode())

    async def close(self, code: int, error: str, text: str) -> None:
        """Tell the client why (an ``error`` message) and close the socket with ``code``."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Exception):  # it may be gone already
            await self.send(protocol.error(error, text))
            await self.socket.close(code=code, reason=error)

    async def run(self) -> None:
        try:
            while not self.closed:
                frame = await self.socket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                if not self.bucket.take():
                    await self.drop()
                    continue
                if self.bucket.was_full:  # quiet long enough: a new burst
                    self.dropped = 0  # earlier drops are forgiven
                    self.warned = False  # and its first drop is told again
                raw = frame.get("text")
                if raw is None:
                    raw = frame.get("bytes") or b""
                await self.handle(raw)
        except WebSocketDisconnect:
            pass
        finally:
            await self.leave()

    async def drop(self) -> None:
        """A message over the rate: dropped unread, answered at most once per burst."""
        self.dropped += 1
        self.metrics.refused("ws_dropped")
        limits = self.limits
        if self.dropped >= limits.ws_flood_drops:
            self.metrics.refused("flooding")
            await self.close(
                CLOSE_POLICY,
                "flooding",
                f"{self.dropped} messages over the rate limit; the connection is closed",
            )
        elif not self.warned:
            self.warned = True
            await self.send(
                protocol.error(
                    "rate_limited",
                    f"too many messages (at most {limits.ws_burst} at once, then "
                    f"{limits.ws_rate:g} a second): messages over it are dropped unanswered, "
                    f"and after {limits.ws_flood_drops} the connection is closed",
                )
            )

    async def handle(self, raw: str | bytes) -> None:
        try:
            msg = protocol.parse(raw, self.limits.max_message_bytes)
        except protocol.ProtocolError as exc:
            await self.send(protocol.error(exc.code, exc.message, exc.re))
            return
        try:
            await self.dispatch(msg)
        except protocol.ProtocolError as exc:
            await self.send(protocol.error(exc.code, exc.message, exc.re))
        except BoggleError as exc:
            await self.send(protocol.error(_code_of(exc), str(exc), msg.id))
        except SQLAlchemyError:
            log.exception("database trouble answering %s", msg.type)
            await self.send(
                protocol.error("busy", "the server could not do that just now; try again", msg.id)
            )
        except (WebSocketDisconnect, RuntimeError):
            raise
        except Exception:  # a bug: say so, keep the connection and the room
            log.exception("could not answer a %s message", msg.type)
            await self.send(protocol.error("internal", "the server failed on that; sorry", msg.id))

    async def dispatch(self, msg: protocol.ClientMessage) -> None:
        if isinstance(msg, protocol.Ping):
            await self.send(protocol.message("pong", None, re=msg.id))
            return
        if isinstance(msg, protocol.Join):
            await self.join(msg)
            return
        seat = self.seat
        if seat is None:
            raise protocol.ProtocolError("not_joined", "join a room first", msg.id)
        if isinstance(msg, protocol.Submit):
            if (msg.room is not None and not _same_room(msg.room, seat.room)) or (
                msg.player is not None and msg.player != seat.player
            ):
                raise protocol.ProtocolError(
                    "not_yours",
                    f"this connection plays for {seat.player} in room {seat.room}",
                    msg.id,
                )
            result = await run_in_threadpool(self.rooms.submit, seat, msg.word)
            self.metrics.words.inc()
            await self.send(protocol.message("verdict", None, re=msg.id, result=result.to_json()))
        elif isinstance(msg, protocol.Start):
            started = await run_in_threadpool(self.rooms.start_round, seat)
            self.timers.at((seat.room, "round"), started.deadline + GRACE)
            await self.send_state(msg.id)  # the answer; everyone else hears it from the hub
            await self.hub.publish(seat.room, {"kind": "started"})
        elif isinstance(msg, protocol.Configure):
            await run_in_threadpool(self.rooms.configure, seat, msg.settings)
            await self.send_state(msg.id)
            await self.hub.publish(seat.room, {"kind": "changed"})
        elif isinstance(msg, protocol.Kick):
            await run_in_threadpool(self.rooms.kick, seat, msg.player)
            await self.send_state(msg.id)
            await self.hub.publish(seat.room, {"kind": "kicked", "player": msg.player})
        elif isinstance(msg, protocol.End):
            try:
                ended = await run_in_threadpool(self.rooms.end_game, seat)
            finally:  # a round not started yet ends at its start: its timer fires then
                self.timers.watch_round(seat.room, moved=True)
            await self.send_state(msg.id)
            await self.hub.publish(seat.room, {"kind": "ended" if ended else "changed"})
        elif isinstance(msg, protocol.StateRequest):
            await end_if_due(self.rooms, self.hub, seat.room, self.metrics)
            await self.send_state(msg.id)

    async def join(self, msg: protocol.Join) -> None:
        if self.seat is not None:
            raise protocol.ProtocolError(
                "already_joined", f"this connection already plays for {self.seat.player}", msg.id
            )
        wait = self.guards.joins.hit(self.address)
        if wait is not None:
            self.metrics.refused("too_many_joins")
            raise protocol.ProtocolError(
                "too_many_joins",
                f"too many joins from your address (at most "
                f"{self.limits.joins_per_address_minute} a minute); try again in "
                f"{math.ceil(wait)} s",
                msg.id,
            )
        token = None
        if msg.token is not None:
            seat = await run_in_threadpool(self.rooms.resume, msg.token)
            if msg.room is not None and not _same_room(msg.room, seat.room):
                raise protocol.ProtocolError(
                    "not_yours", f"that token is for room {seat.room}", msg.id
                )
        elif msg.room is not None and msg.name is not None:
            seat, token = await run_in_threadpool(self.rooms.join, msg.room, msg.name)
        else:
            raise protocol.ProtocolError(
                "bad_message", 'join with "room" and "name", or with your "token"', msg.id
            )
        self.seat = seat
        for old in self.guards.take_seat(seat, self):
            await old.close(
                CLOSE_REPLACED,
                "replaced",
                f"{seat.player} opened a newer connection (at most "
                f"{self.limits.sockets_per_seat} per seat); this one is closed",
            )
        presence = await run_in_threadpool(self.rooms.connected, seat)
        if presence.host_due is not None:
            self.timers.at((seat.room, "host"), presence.host_due)
        self.queue = self.hub.subscribe(seat.room)
        self.forwarder = asyncio.create_task(self.forward())
        self.timers.watch_round(seat.room)
        fields: dict[str, Any] = {"room": seat.room, "player": seat.player, "re": msg.id}
        if token is not None:
            fields["token"] = token
        if token is not None or presence.new_host is not None:
            await self.hub.publish(seat.room, {"kind": "changed"})
        await self.send(protocol.message("welcome", None, **fields))
        await self.send_state(None)

    async def send_state(self, re: int | None) -> None:
        assert self.seat is not None
        view = (await run_in_threadpool(self.rooms.view, self.seat)).to_json()
        await self.send(protocol.message("state", view["seq"], re=re, state=view))

    async def forward(self) -> None:
        assert self.queue is not None and self.seat is not None
        while True:
            event = await self.queue.get()
            try:
                if event.get("kind") == "kicked" and event.get("player") == self.seat.player:
                    await self.close(
                        CLOSE_KICKED, "kicked", f"the host removed you from room {self.seat.room}"
                    )
                    return
                view = (await run_in_threadpool(self.rooms.view, self.seat)).to_json()
                if event.get("kind") == "ended" and view["last"] is not None:
                    await self.send(
                        protocol.message(
                            "results",
                            view["seq"],
                            round=view["last"],
                            totals=view["totals"],
                            standings=view["standings"],
                            over=view["over"],
                            winner=view["winner"],
                        )
                    )
                await self.send(protocol.message("state", view["seq"], re=None, state=view))
                if event.get("kind") == "started":
                    self.timers.watch_round(self.seat.room)
            except (WebSocketDisconnect, RuntimeError):
                return
            except Exception:  # the database hiccuped: this player resyncs on the next event
                log.exception("cannot forward an event of room %s", self.seat.room)

    async def leave(self) -> None:
        if self.forwarder is not None:
            self.forwarder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.forwarder
        seat = self.seat
        if seat is None:
            return
        if self.queue is not None:
            self.hub.unsubscribe(seat.room, self.queue)
        self.guards.leave_seat(seat, self)
        # A task of its own: the connection's task may be cancelled as it goes (at shutdown).
        self.timers.spawn(self.timers.left(seat))


def _same_room(asked: str, room: str) -> bool:
    return asked.replace("-", "").replace(" ", "").upper() == room


@router.websocket("/ws")
async def room_socket(socket: WebSocket) -> None:
    """The room protocol (see :mod:`bigboggle.web.protocol`)."""
    app = socket.app
    guards: RoomGuards = app.state.room_guards
    await socket.accept()
    connection = Connection(socket, app.state.rooms, app.state.hub, app.state.timers, guards)
    metrics = connection.metrics
    if not guards.open_socket(connection.address):
        metrics.refused("too_many_sockets")
        await connection.close(
            CLOSE_POLICY,
            "too_many_sockets",
            f"your address has {guards.limits.sockets_per_address} connections open already "
            "(the limit); close one first",
        )
        return
    metrics.sockets.inc()
    try:
        await connection.run()
    finally:
        metrics.sockets.dec()
        guards.close_socket(connection.address)


__all__ = [
    "CLOSE_KICKED",
    "CLOSE_POLICY",
    "CLOSE_REPLACED",
    "Connection",
    "RoomGuards",
    "RoomTimers",
    "TokenBucket",
    "WindowLimit",
    "router",
]
