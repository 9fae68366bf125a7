"""What the web front end answers for each of the library's errors: one table, read by the
HTTP error handlers (a status for the JSON API and the pages) and by the room protocol (an
``error`` message's code), so the two sides can never disagree.

A database that cannot answer (:class:`~bigboggle.errors.StoreError`) is a 503 over HTTP and
``busy`` over the WebSocket: try again, as for a full worker pool.

An error never closes a WebSocket (the connection stays open for the next message): the
close codes (:class:`~.protocol.CloseCode`) belong to the guards (flooding, too many sockets, a
newer connection of the seat) and to the host's kick.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import (
    AccountError,
    BoggleError,
    BudgetExceededError,
    BusyError,
    GameStateError,
    KickedError,
    NameTakenError,
    NotFoundError,
    NotHostError,
    NotLoggedInError,
    NotOwnerError,
    RoomClosedError,
    RoomFullError,
    StoreError,
    ThrottledError,
)
from .protocol import ErrorCode


@dataclass(frozen=True)
class ErrorAnswer:
    """How the web answers one kind of error: an HTTP ``status`` and a WebSocket ``code``."""

    status: int
    code: ErrorCode


#: The library's errors, each before its base classes: the first entry an error is an
#: instance of answers it. :class:`~bigboggle.errors.BoggleError` (last) is bad input.
ERROR_TABLE: tuple[tuple[type[BoggleError], ErrorAnswer], ...] = (
    (RoomFullError, ErrorAnswer(409, ErrorCode.ROOM_FULL)),
    (NotHostError, ErrorAnswer(409, ErrorCode.NOT_HOST)),
    (KickedError, ErrorAnswer(409, ErrorCode.KICKED)),
    (RoomClosedError, ErrorAnswer(409, ErrorCode.CLOSED)),
    (NameTakenError, ErrorAnswer(409, ErrorCode.NAME_TAKEN)),
    (NotOwnerError, ErrorAnswer(403, ErrorCode.NOT_YOURS)),
    (NotLoggedInError, ErrorAnswer(401, ErrorCode.NOT_LOGGED_IN)),
    (ThrottledError, ErrorAnswer(429, ErrorCode.RATE_LIMITED)),
    (NotFoundError, ErrorAnswer(404, ErrorCode.NOT_FOUND)),
    (GameStateError, ErrorAnswer(409, ErrorCode.NOT_NOW)),
    (BusyError, ErrorAnswer(503, ErrorCode.BUSY)),
    (BudgetExceededError, ErrorAnswer(503, ErrorCode.BUSY)),
    (StoreError, ErrorAnswer(503, ErrorCode.BUSY)),
    (AccountError, ErrorAnswer(400, ErrorCode.BAD_INPUT)),
    (BoggleError, ErrorAnswer(400, ErrorCode.BAD_INPUT)),
)


def answer_for(exc: BoggleError) -> ErrorAnswer:
    """The table's answer for ``exc``."""
    for kind, answer in ERROR_TABLE:
        if isinstance(exc, kind):
            return answer
    raise TypeError(f"not a BoggleError: {type(exc).__name__}")  # the last entry takes any


def status_of(exc: BoggleError) -> int:
    """The HTTP status for ``exc``."""
    return answer_for(exc).status


def code_of(exc: BoggleError) -> ErrorCode:
    """The room protocol's error code for ``exc``."""
    return answer_for(exc).code
