"""Telling connections that something happened in their room, in one process or across many.

Events carry no private data (a word's verdict goes only to its player, straight from the
handler): they say "the room changed" (``changed``), "a round started" or "ended", or "the host
removed a player" (``kicked`` with the ``player``: that seat's connections close, in every
process), and each connection then reads what its own player may see from the database; or who
is present (``presence``, with the public map of players to ``"online"``, ``"away"`` and
``"offline"`` read once by its publisher, passed on as it is). :class:`LocalHub` delivers within this process;
:class:`RedisHub` publishes through Redis, so that players connected to different server
processes behind one load balancer share a room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import orjson

from ..limits import ROOM_EVENT_QUEUE

log = logging.getLogger(__name__)

Event = dict[str, Any]
#: Events waiting for one slow connection beyond this are dropped; it resyncs with ``state``.
QUEUE_LIMIT = ROOM_EVENT_QUEUE


class LocalHub:
    """Rooms' subscribers in this process."""

    #: Whether other server processes share the rooms (through this hub). A hub that is not
    #: shared means this process is the only server on its database.
    shared = False

    def __init__(self) -> None:
        self._rooms: dict[str, set[asyncio.Queue[Event]]] = {}

    async def start(self) -> None:
        """Get ready (nothing to do in-process)."""

    async def stop(self) -> None:
        """Let go of every subscriber."""
        self._rooms.clear()

    def subscribe(self, room: str) -> asyncio.Queue[Event]:
        """A queue that receives the events of ``room``."""
        queue: asyncio.Queue[Event] = asyncio.Queue(QUEUE_LIMIT)
        self._rooms.setdefault(room, set()).add(queue)
        return queue

    def unsubscribe(self, room: str, queue: asyncio.Queue[Event]) -> None:
        subscribers = self._rooms.get(room)
        if subscribers is not None:
            subscribers.discard(queue)
            if not subscribers:
                del self._rooms[room]

    def local_rooms(self) -> list[str]:
        """Rooms with a subscriber in this process."""
        return list(self._rooms)

    async def publish(self, room: str, event: Event) -> None:
        """Tell every subscriber of ``room``."""
        self.deliver(room, event)

    def deliver(self, room: str, event: Event) -> None:
        for queue in list(self._rooms.get(room, ())):
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(event)


class RedisHub(LocalHub):
    """Events through Redis pub/sub: every process hears every room's events and passes them to
    its own subscribers."""

    CHANNEL = "bigboggle:room:"
    shared = True

    def __init__(self, url: str) -> None:
        super().__init__()
        import redis.asyncio as redis

        self.url = url
        self._redis = redis.from_url(url)
        self._listener: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def start(self) -> None:
        await self._redis.ping()
        self._listener = asyncio.create_task(self._listen())
        await asyncio.wait_for(self._ready.wait(), 10)

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        await self._redis.aclose()
        await super().stop()

    async def publish(self, room: str, event: Event) -> None:
        await self._redis.publish(self.CHANNEL + room, orjson.dumps(event))

    async def _listen(self) -> None:
        while True:
            try:
                pubsub = self._redis.pubsub()
                await pubsub.psubscribe(self.CHANNEL + "*")
                self._ready.set()
                async for item in pubsub.listen():
                    if item.get("type") != "pmessage":
                        continue
                    channel = item["channel"].decode()
                    self.deliver(channel[len(self.CHANNEL) :], orjson.loads(item["data"]))
            except asyncio.CancelledError:
                raise
            except Exception:  # a dropped connection to Redis: log it and listen again
                log.exception("lost the Redis subscription; reconnecting")
                await asyncio.sleep(1)
