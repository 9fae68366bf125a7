"""Who a connection speaks for, and what a new connection changed about the host."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Seat:
    """Who a connection speaks for: a room and a player in it."""

    room: str
    player: str


@dataclass(frozen=True)
class Presence:
    """What a new connection changed about the host: who took over the role (if the host was
    away too long), or when it may pass (if the host is away, not yet for long)."""

    new_host: str | None = None
    host_due: float | None = None
