"""The WebSocket ``/ws``: one player's connection to a room, in the room protocol
(:mod:`.protocol`).

Each connection speaks for one seat once it has joined. It reads the client's messages (each
checked by :mod:`.protocol`, answered with a reply or an ``error`` whose code the error table
gives, :mod:`.error_table`) and, alongside, forwards its room's events from the hub as fresh
views of the room. The library's :class:`~bigboggle.services.rooms.Rooms` does the game; this
module only translates, and applies the guards of :mod:`.room_guards`:

- A message over the connection's rate is dropped unread (not parsed, not answered); the
  first drop of a burst gets one ``rate_limited`` error. After ``ws_flood_drops`` drops
  (counted until the client has been quiet long enough to refill its bucket) the connection
  is closed with code 1008 (``flooding``).
- A further socket from an address with ``sockets_per_address`` open is told
  ``too_many_sockets`` and closed with 1008; past ``sockets_per_seat``, a seat's newest
  connection wins and its oldest is told ``replaced`` and closed (4002), so a reloaded page is
  never locked out and one token cannot hold hundreds of sockets.
- Join attempts past ``joins_per_address_minute`` get a ``too_many_joins`` error.
- A handshake whose ``Origin`` names another site is refused (403) before it gets here, by
  the cross-site guard of :mod:`.auth`: another site's page cannot act with a member's cookie.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from typing import Any

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnected

from ..errors import BoggleError, NotFoundError
from ..limits import PRESENCE_BURST, PRESENCE_RATE
from ..services.rooms import GRACE, Rooms, Seat, normal_code
from ..verdicts import Verdict
from . import protocol
from .auth import viewer
from .error_table import code_of
from .hub import LocalHub
from .plumbing import services
from .protocol import CloseCode, ErrorCode
from .room_guards import RoomGuards, TokenBucket, client_address
from .room_timers import RoomTimers, end_if_due, publish_counts, publish_presence

log = logging.getLogger(__name__)

router = APIRouter(tags=["rooms"])


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
        self.address = client_address(socket.scope.get("client"))
        self.seat: Seat | None = None
        self.queue: asyncio.Queue[dict[str, Any]] | None = None
        self.forwarder: asyncio.Task[None] | None = None
        self.bucket = TokenBucket(self.limits.ws_burst, self.limits.ws_rate, rooms.clock)
        #: Presence changes are told to the whole room: a bucket of their own, smaller.
        self.presence_bucket = TokenBucket(PRESENCE_BURST, PRESENCE_RATE, rooms.clock)
        #: Whether this connection's page last said its tab is hidden: presence is per
        #: connection (the seat is away only while all of its connections are hidden).
        self.hidden = False
        #: What the page last asked for (``hidden`` is what is stored): they differ while a
        #: change held back by the presence rate waits for its timer.
        self.wanted_hidden = False
        #: Held while this connection's hidden state is stored, so a held change, a new one
        #: and the connection's leaving are told to the store one at a time, in order.
        self.presence_lock = asyncio.Lock()
        self.dropped = 0
        self.warned = False
        self.closed = False
        self.send_lock = asyncio.Lock()

    async def send(self, data: dict[str, Any]) -> None:
        async with self.send_lock:
            await self.socket.send_text(orjson.dumps(data).decode())

    async def close(self, code: int, error: ErrorCode, text: str) -> None:
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
        except (WebSocketDisconnect, WebSocketDisconnected):
            # The client went away, perhaps while its answer was being sent (a socket closed
            # right after its join, as a phone losing its network does): nothing to report.
            pass
        finally:
            await self.leave()

    async def drop(self) -> None:
        """A message over the rate: dropped unread, answered at most once per burst."""
        self.dropped += 1
        self.metrics.refused("ws_dropped")
        limits = self.limits
        if self.dropped >= limits.ws_flood_drops:
            self.metrics.refused(ErrorCode.FLOODING)
            await self.close(
                CloseCode.POLICY,
                ErrorCode.FLOODING,
                f"{self.dropped} messages over the rate limit; the connection is closed",
            )
        elif not self.warned:
            self.warned = True
            await self.send(
                protocol.error(
                    ErrorCode.RATE_LIMITED,
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
            await self.send(protocol.error(code_of(exc), str(exc), msg.id))
        except (WebSocketDisconnect, RuntimeError):
            raise
        except Exception:  # a bug: say so, keep the connection and the room
            log.exception("could not answer a %s message", msg.type)
            await self.send(
                protocol.error(ErrorCode.INTERNAL, "the server failed on that; sorry", msg.id)
            )

    async def dispatch(self, msg: protocol.ClientMessage) -> None:
        if isinstance(msg, protocol.Ping):
            await self.send(protocol.message("pong", None, re=msg.id))
            return
        if isinstance(msg, protocol.Join):
            await self.join(msg)
            return
        seat = self.seat
        if seat is None:
            raise protocol.ProtocolError(ErrorCode.NOT_JOINED, "join a room first", msg.id)
        if isinstance(msg, protocol.Submit):
            if (msg.room is not None and not same_room(msg.room, seat.room)) or (
                msg.player is not None and msg.player != seat.player
            ):
                raise protocol.ProtocolError(
                    ErrorCode.NOT_YOURS,
                    f"this connection plays for {seat.player} in room {seat.room}",
                    msg.id,
                )
            result = await run_in_threadpool(self.rooms.submit, seat, msg.word)
            self.metrics.words.inc()
            await self.send(protocol.message("verdict", None, re=msg.id, result=result.to_json()))
            if result.verdict is not Verdict.REPEATED:  # a word more: everyone sees the count
                await publish_counts(self.rooms, self.hub, seat.room)
        elif isinstance(msg, protocol.Start):
            started = await run_in_threadpool(self.rooms.start_round, seat)
            self.timers.at((seat.room, "round"), started.deadline + GRACE)
            self.timers.watch_opponents(seat.room)
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
        elif isinstance(msg, protocol.AddOpponent):
            await run_in_threadpool(self.rooms.add_opponent, seat, msg.strength)
            await self.send_state(msg.id)
            await self.hub.publish(seat.room, {"kind": "changed"})
        elif isinstance(msg, protocol.RemoveOpponent):
            await run_in_threadpool(self.rooms.remove_opponent, seat, msg.seat)
            await self.send_state(msg.id)
            await self.hub.publish(seat.room, {"kind": "changed"})
        elif isinstance(msg, protocol.Rematch):
            await run_in_threadpool(self.rooms.rematch, seat)
            await self.send_state(msg.id)
            await self.hub.publish(seat.room, {"kind": "changed"})
        elif isinstance(msg, protocol.PresenceChange):
            await self.change_presence(seat, msg)
        elif isinstance(msg, protocol.StateRequest):
            await end_if_due(self.rooms, self.hub, seat.room, self.metrics)
            await self.send_state(msg.id)

    async def change_presence(self, seat: Seat, msg: protocol.PresenceChange) -> None:
        """The page's tab was hidden or shown: remembered for this connection at once, then
        stored, answered with the room's presence and told to everyone (only if the seat's
        presence changed: a seat with another tab in view stays online), within the presence
        rate. A change over the rate is answered ``rate_limited`` but not lost: the latest
        wanted state is applied (stored and told) once the rate allows, by one timer per
        connection that later changes join, so a tab left hidden after quick flips reads away."""
        self.wanted_hidden = msg.state == "away"
        if not self.presence_bucket.take():
            self.metrics.refused(ErrorCode.RATE_LIMITED)
            wait = max(0.0, (1 - self.presence_bucket.tokens) / self.presence_bucket.rate)
            self.timers.later(self, self.rooms.clock() + wait, self.apply_held_presence)
            raise protocol.ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"presence changes too often (at most {PRESENCE_BURST} at once, then one "
                f"every {1 / PRESENCE_RATE:g} s); the latest is applied in "
                f"{math.ceil(wait)} s",
                msg.id,
            )
        self.timers.cancel_later(self)  # this change carries the latest state itself
        presence = await self.apply_presence(seat)
        if presence is None:
            presence = await run_in_threadpool(self.rooms.presence, seat.room)
        await self.send(protocol.message("presence", None, re=msg.id, presence=presence))

    async def apply_presence(self, seat: Seat) -> dict[str, str] | None:
        """Store this connection's wanted state if it differs from the stored one, and tell
        the room if the seat's presence changed: the map told, or ``None`` if none was."""
        async with self.presence_lock:
            if self.closed or self.wanted_hidden == self.hidden:
                return None  # each change of this connection is told to the store once
            self.hidden = self.wanted_hidden
            changed = await run_in_threadpool(self.rooms.set_hidden, seat, self.hidden)
        return await publish_presence(self.rooms, self.hub, seat.room) if changed else None

    async def apply_held_presence(self) -> None:
        """The timer of a change held back by the presence rate: apply the latest wanted
        state now (one token of the rate), or wait for the next token if none is left."""
        seat = self.seat
        if seat is None or self.closed or self.wanted_hidden == self.hidden:
            return
        if not self.presence_bucket.take():
            wait = max(0.0, (1 - self.presence_bucket.tokens) / self.presence_bucket.rate)
            self.timers.later(self, self.rooms.clock() + wait, self.apply_held_presence)
            return
        try:
            await self.apply_presence(seat)
        except Exception:  # the database hiccuped: presence comes again with the next state
            log.exception("could not apply a held presence change in room %s", seat.room)

    async def join(self, msg: protocol.Join) -> None:
        if self.seat is not None:
            raise protocol.ProtocolError(
                ErrorCode.ALREADY_JOINED,
                f"this connection already plays for {self.seat.player}",
                msg.id,
            )
        wait = self.guards.joins.hit(self.address)
        if wait is not None:
            self.metrics.refused(ErrorCode.TOO_MANY_JOINS)
            raise protocol.ProtocolError(
                ErrorCode.TOO_MANY_JOINS,
                f"too many joins from your address (at most "
                f"{self.limits.joins_per_address_minute} a minute); try again in "
                f"{math.ceil(wait)} s",
                msg.id,
            )
        token = None
        if msg.token is not None:
            seat = await run_in_threadpool(self.rooms.resume, msg.token)
            if msg.room is not None and not same_room(msg.room, seat.room):
                raise protocol.ProtocolError(
                    ErrorCode.NOT_YOURS, f"that token is for room {seat.room}", msg.id
                )
        elif msg.room is not None and msg.name is not None:
            member = await viewer(self.socket)  # a member's seat is theirs
            account_id = member.id if member is not None else None
            seat, token = await run_in_threadpool(self.rooms.join, msg.room, msg.name, account_id)
        else:
            raise protocol.ProtocolError(
                ErrorCode.BAD_MESSAGE, 'join with "room" and "name", or with your "token"', msg.id
            )
        self.seat = seat
        for old in self.guards.take_seat(seat, self):
            await old.close(
                CloseCode.REPLACED,
                ErrorCode.REPLACED,
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
        else:  # a player back: everyone sees them online (a "changed" state says it too)
            await publish_presence(self.rooms, self.hub, seat.room)
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
                if event.get("kind") == "presence":
                    # Read afresh, not the event's map: events of two publishers (two tabs,
                    # maybe on two processes) may come in either order, and a stale map must
                    # not be the last word; each event is read after its store write, so the
                    # last read is the store's latest. One read per event, on this socket.
                    presence = await run_in_threadpool(self.rooms.presence, self.seat.room)
                    await self.send(protocol.message("presence", None, presence=presence))
                    continue
                if event.get("kind") == "counts":  # counts only: no read of the room
                    await self.send(
                        protocol.message(
                            "counts", None, round=event.get("round"), counts=event.get("counts")
                        )
                    )
                    continue
                if event.get("kind") == "kicked" and event.get("player") == self.seat.player:
                    await self.close(
                        CloseCode.KICKED,
                        ErrorCode.KICKED,
                        f"the host removed you from room {self.seat.room}",
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
                            places=view["places"],
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
        self.timers.cancel_later(self)
        seat = self.seat
        if seat is None:
            self.closed = True
            return
        if self.queue is not None:
            self.hub.unsubscribe(seat.room, self.queue)
        self.guards.leave_seat(seat, self)
        # A task of its own: the connection's task may be cancelled as it goes (at shutdown).
        self.timers.spawn(self.left(seat))

    async def left(self, seat: Seat) -> None:
        """Tell the store this connection is gone, after any change of its hidden state being
        stored (so the hidden count it takes back is the one it added)."""
        async with self.presence_lock:
            self.closed = True
            hidden = self.hidden
        await self.timers.left(seat, hidden)


def same_room(asked: str, room: str) -> bool:
    """Whether a room code as typed (any case, spaces or dashes) is ``room``'s: read as the
    rooms service reads codes (:func:`~bigboggle.services.rooms.normal_code`); one that
    cannot be a code is no room's."""
    try:
        return normal_code(asked) == room
    except NotFoundError:
        return False


@router.websocket("/ws")
async def room_socket(socket: WebSocket) -> None:
    """The room protocol (see :mod:`bigboggle.web.protocol`)."""
    found = services(socket)
    guards = found.room_guards
    await socket.accept()
    connection = Connection(socket, found.rooms, found.hub, found.room_timers, guards)
    metrics = connection.metrics
    if not guards.open_socket(connection.address):
        metrics.refused(ErrorCode.TOO_MANY_SOCKETS)
        await connection.close(
            CloseCode.POLICY,
            ErrorCode.TOO_MANY_SOCKETS,
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
