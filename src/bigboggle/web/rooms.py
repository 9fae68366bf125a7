"""Multiplayer rooms on the web: ``POST /api/rooms`` to create one, the WebSocket ``/ws`` to play.

Each connection speaks for one seat once it has joined. It reads the client's messages (each
checked by :mod:`.protocol`, rate-limited, answered with a reply or an ``error``) and, alongside,
forwards its room's events from the hub as fresh views of the room. The library's
:class:`~bigboggle.rooms.Rooms` does the game; this module only translates. Each process that
holds a connection to a room keeps a timer that scores the round at its deadline; the database
makes sure only one process does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Request, WebSocket, WebSocketDisconnect
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from ..errors import BoggleError, GameStateError
from ..rooms import NotHostError, RoomFullError, Rooms, Seat
from ..solo_games import NotFoundError
from . import protocol
from .api import JSONResponse
from .hub import LocalHub
from .inputs import ErrorBody, NewRoom, body_schema, read_model

log = logging.getLogger(__name__)

#: A connection may send this many messages in a burst, then this many a second.
BURST = 30
RATE = 10.0

router = APIRouter(
    tags=["rooms"],
    responses={
        400: {"model": ErrorBody, "description": "Bad input: the message names what and where"},
        413: {"model": ErrorBody, "description": "The body is over the size limit"},
        415: {"model": ErrorBody, "description": "The body is not JSON"},
    },
)


@router.post(
    "/api/rooms",
    status_code=201,
    summary="Create a multiplayer room; the host is seated and gets a resume token",
    openapi_extra=body_schema(NewRoom),
)
async def create_room(request: Request) -> JSONResponse:
    asked = await read_model(request, NewRoom)
    rooms: Rooms = request.app.state.rooms
    code, token = await run_in_threadpool(rooms.create, asked.host, asked.settings)
    return JSONResponse(
        {"room": code, "token": token, "url": f"/rooms/{code}", "host": asked.host},
        status_code=201,
    )


@router.get(
    "/api/rooms/{code}",
    summary="A room's public state: settings, players, host, totals",
    responses={404: {"model": ErrorBody}},
)
def room_info(request: Request, code: Annotated[str, Path(max_length=12)]) -> JSONResponse:
    rooms: Rooms = request.app.state.rooms
    room = rooms.public(code)
    return JSONResponse(room)


class TokenBucket:
    """At most ``burst`` messages at once and ``rate`` a second after that."""

    def __init__(self, burst: int = BURST, rate: float = RATE) -> None:
        self.burst = burst
        self.rate = rate
        self.tokens = float(burst)
        self.last = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class RoomTimers:
    """One task per room (in this process) that scores the running round when it is due."""

    def __init__(self, rooms: Rooms, hub: LocalHub) -> None:
        self.rooms = rooms
        self.hub = hub
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def watch(self, room: str) -> None:
        task = self._tasks.get(room)
        if task is None or task.done():
            self._tasks[room] = asyncio.create_task(self._run(room))

    async def stop(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        for task in self._tasks.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    async def _run(self, room: str) -> None:
        # Short sleeps: the clock may be a test's, moved by hand; and a round may start anew.
        idle = 0
        while room in self.hub.local_rooms() or idle < 3:
            try:
                due = await run_in_threadpool(self.rooms.next_deadline, room)
            except Exception:  # the database hiccuped: look again shortly
                log.exception("cannot read the deadline of room %s", room)
                await asyncio.sleep(1)
                continue
            if due is None:
                idle += 1
                await asyncio.sleep(0.5)
                continue
            idle = 0
            wait = due - self.rooms.clock()
            if wait > 0:
                await asyncio.sleep(min(wait, 0.5))
                continue
            await end_if_due(self.rooms, self.hub, room)
            await asyncio.sleep(0.1)  # never a busy loop, even if scoring keeps failing


async def end_if_due(rooms: Rooms, hub: LocalHub, room: str) -> None:
    """Score the room's round if it is due, and tell everyone if this process did it."""
    try:
        ended = await run_in_threadpool(rooms.end_round_if_due, room)
    except Exception:  # the database hiccuped (the next look will try again)
        log.exception("could not score a round of room %s", room)
        return
    if ended is not None:
        await hub.publish(room, {"kind": "ended"})


def _code_of(exc: BoggleError) -> str:
    if isinstance(exc, RoomFullError):
        return "room_full"
    if isinstance(exc, NotHostError):
        return "not_host"
    if isinstance(exc, NotFoundError):
        return "not_found"
    if isinstance(exc, GameStateError):
        return "not_now"
    return "bad_input"


class Connection:
    """One player's WebSocket: their messages in, their room's news out."""

    def __init__(self, socket: WebSocket, rooms: Rooms, hub: LocalHub, timers: RoomTimers) -> None:
        self.socket = socket
        self.rooms = rooms
        self.hub = hub
        self.timers = timers
        self.seat: Seat | None = None
        self.queue: asyncio.Queue[dict[str, Any]] | None = None
        self.forwarder: asyncio.Task[None] | None = None
        self.bucket = TokenBucket()
        self.send_lock = asyncio.Lock()

    async def send(self, data: dict[str, Any]) -> None:
        async with self.send_lock:
            await self.socket.send_text(orjson.dumps(data).decode())

    async def run(self) -> None:
        try:
            while True:
                frame = await self.socket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                raw = frame.get("text")
                if raw is None:
                    raw = frame.get("bytes") or b""
                await self.handle(raw)
        except WebSocketDisconnect:
            pass
        finally:
            await self.leave()

    async def handle(self, raw: str | bytes) -> None:
        try:
            msg = protocol.parse(raw)
        except protocol.ProtocolError as exc:
            msg = None
            refusal = protocol.error(exc.code, exc.message, exc.re)
        if not self.bucket.take():
            re = msg.id if msg is not None else None
            await self.send(protocol.error("rate_limited", "too many messages; slow down", re))
            return
        if msg is None:
            await self.send(refusal)
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
            if (msg.room is not None and msg.room.upper() != seat.room) or (
                msg.player is not None and msg.player != seat.player
            ):
                raise protocol.ProtocolError(
                    "not_yours",
                    f"this connection plays for {seat.player} in room {seat.room}",
                    msg.id,
                )
            result = await run_in_threadpool(self.rooms.submit, seat, msg.word)
            await self.send(protocol.message("verdict", None, re=msg.id, result=result.to_json()))
        elif isinstance(msg, protocol.Start):
            await run_in_threadpool(self.rooms.start_round, seat)
            self.timers.watch(seat.room)
            await self.send_state(msg.id)  # the answer; everyone else hears it from the hub
            await self.hub.publish(seat.room, {"kind": "started"})
        elif isinstance(msg, protocol.Configure):
            await run_in_threadpool(self.rooms.configure, seat, msg.settings)
            await self.send_state(msg.id)
            await self.hub.publish(seat.room, {"kind": "changed"})
        elif isinstance(msg, protocol.StateRequest):
            await end_if_due(self.rooms, self.hub, seat.room)
            await self.send_state(msg.id)

    async def join(self, msg: protocol.Join) -> None:
        if self.seat is not None:
            raise protocol.ProtocolError(
                "already_joined", f"this connection already plays for {self.seat.player}", msg.id
            )
        token = None
        if msg.token is not None:
            seat = await run_in_threadpool(self.rooms.resume, msg.token)
            if msg.room is not None and msg.room.upper() != seat.room:
                raise protocol.ProtocolError(
                    "not_yours", f"that token is for room {seat.room}", msg.id
                )
        elif msg.room is not None and msg.name is not None:
            room = msg.room.upper()
            token = await run_in_threadpool(self.rooms.join, room, msg.name)
            seat = Seat(room, msg.name)
        else:
            raise protocol.ProtocolError(
                "bad_message", 'join with "room" and "name", or with your "token"', msg.id
            )
        self.seat = seat
        self.queue = self.hub.subscribe(seat.room)
        self.forwarder = asyncio.create_task(self.forward())
        self.timers.watch(seat.room)
        fields: dict[str, Any] = {"room": seat.room, "player": seat.player, "re": msg.id}
        if token is not None:
            fields["token"] = token
            await self.hub.publish(seat.room, {"kind": "changed"})
        await self.send(protocol.message("welcome", None, **fields))
        await self.send_state(None)

    async def send_state(self, re: int | None) -> None:
        assert self.seat is not None
        view = await run_in_threadpool(self.rooms.view, self.seat)
        await self.send(protocol.message("state", view["seq"], re=re, state=view))

    async def forward(self) -> None:
        assert self.queue is not None and self.seat is not None
        while True:
            event = await self.queue.get()
            try:
                view = await run_in_threadpool(self.rooms.view, self.seat)
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
                    self.timers.watch(self.seat.room)
            except (WebSocketDisconnect, RuntimeError):
                return
            except Exception:  # the database hiccuped: this player resyncs on the next event
                log.exception("cannot forward an event of room %s", self.seat.room)

    async def leave(self) -> None:
        if self.forwarder is not None:
            self.forwarder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.forwarder
        if self.seat is not None and self.queue is not None:
            self.hub.unsubscribe(self.seat.room, self.queue)


@router.websocket("/ws")
async def room_socket(socket: WebSocket) -> None:
    """The room protocol (see :mod:`bigboggle.web.protocol`)."""
    await socket.accept()
    app = socket.app
    connection = Connection(socket, app.state.rooms, app.state.hub, app.state.timers)
    await connection.run()
