"""Flood control and rate limits for the rooms, per connection, per address and per seat:

- **Flood control.** Each connection has a :class:`TokenBucket` (``ws_burst`` messages at once,
  then ``ws_rate`` a second); what a connection does with a message over the rate is
  :mod:`.room_socket`'s (dropped unread, told once per burst, closed after ``ws_flood_drops``).
- **Sockets.** :class:`RoomGuards` counts open sockets per client address
  (``sockets_per_address``) and each seat's connections in this process (``sockets_per_seat``:
  a seat's newest connection wins, its oldest ones are handed back to be closed).
- **Rates per address.** Room creation (``rooms_per_address_hour``) and join attempts
  (``joins_per_address_minute``), each a :class:`WindowLimit`. The address is the ASGI
  ``client`` (uvicorn puts the proxy's ``X-Forwarded-For`` there only when the operator says to
  trust it). Counters live in a bounded table, so memory stays flat however many addresses
  call.

Every limiter reads a ``clock`` it is given (``time.monotonic`` unless told otherwise), so a
test moves time by hand instead of sleeping.
"""

from __future__ import annotations

import contextlib
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from ..limits import ADDRESSES_KEPT, ServerLimits
from ..services.rooms import Seat
from .protocol import ErrorCode

Clock = Callable[[], float]


class TokenBucket:
    """At most ``burst`` messages at once and ``rate`` a second after that, on ``clock``
    (seconds; a test passes its own)."""

    def __init__(self, burst: int, rate: float, clock: Clock = time.monotonic) -> None:
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
        self,
        limit: int,
        window: float,
        clock: Clock = time.monotonic,
        keys: int = ADDRESSES_KEPT,
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


class Closable(Protocol):
    """A seat's connection, as the guards see it: something to close with a reason."""

    async def close(self, code: int, error: ErrorCode, text: str) -> None: ...


class RoomGuards:
    """The per-address and per-seat limits of this process, on ``clock``."""

    def __init__(self, limits: ServerLimits, clock: Clock = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.creations = WindowLimit(limits.rooms_per_address_hour, 3600.0, clock)
        self.joins = WindowLimit(limits.joins_per_address_minute, 60.0, clock)
        #: Open sockets per address (an entry exists only while it has one: bounded by them).
        self._sockets: dict[str, int] = {}
        #: Each seat's connections here, oldest first.
        self._seats: dict[Seat, list[Closable]] = {}

    def open_socket(self, address: str) -> bool:
        """Count a new socket of ``address``; ``False`` (not counted) if it has too many."""
        if self._sockets.get(address, 0) >= self.limits.sockets_per_address:
            return False
        self._sockets[address] = self._sockets.get(address, 0) + 1
        return True

    def close_socket(self, address: str) -> None:
        """Count a socket of ``address`` closed."""
        left = self._sockets.get(address, 0) - 1
        if left > 0:
            self._sockets[address] = left
        else:
            self._sockets.pop(address, None)

    def take_seat(self, seat: Seat, connection: Closable) -> list[Closable]:
        """Add ``connection`` to ``seat``'s; returns the oldest ones beyond the cap (to close)."""
        held = self._seats.setdefault(seat, [])
        held.append(connection)
        over = len(held) - self.limits.sockets_per_seat
        evicted, held[:] = (held[:over], held[over:]) if over > 0 else ([], held)
        return evicted

    def leave_seat(self, seat: Seat, connection: Closable) -> None:
        """Forget ``connection`` of ``seat`` (it closed)."""
        held = self._seats.get(seat)
        if held is not None:
            with contextlib.suppress(ValueError):
                held.remove(connection)
            if not held:
                del self._seats[seat]


def client_address(scope_client: Any) -> str:
    """The address the limits count for an ASGI scope's ``client`` (``"unknown"`` if none)."""
    return str(scope_client[0]) if scope_client else "unknown"
