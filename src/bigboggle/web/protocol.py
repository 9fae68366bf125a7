"""The room protocol: JSON text messages over a WebSocket, typed and versioned.

Client to server (``"v": 1`` may be given; another version is refused)::

    {"type": "join", "room": "BCDFGHJKLM", "name": "ann"}  take a seat (answers welcome + state;
                                                           the code may have spaces or dashes)
    {"type": "join", "token": "…"}                         come back to your seat (after a reload)
    {"type": "configure", "settings": {…}}                 the host, between rounds
    {"type": "start"}                                      the host: shake and start a round
    {"type": "submit", "word": "lines", "id": 7}           a word (answers verdict, "re": 7)
    {"type": "state"}                                      everything again (to resync)
    {"type": "ping"}                                       answers pong
    {"type": "kick", "player": "bob"}                      the host: remove bob (answers state)
    {"type": "end"}                                        the host: end the game now; a running
                                                           round is scored as it stands
                                                           (answers state; everyone gets results)
    {"type": "rematch"}                                    the host, once the game is over: a new
                                                           game in the same room, same settings,
                                                           totals from nothing (answers state)
    {"type": "presence", "state": "away"}                  this page's tab is hidden ("away") or
                                                           in view again ("online"); at most
                                                           limits.PRESENCE_BURST at once, then
                                                           PRESENCE_RATE a second (else
                                                           rate_limited, and the latest state
                                                           is applied and told once the rate
                                                           allows); answers presence
    {"type": "add_opponent", "strength": "club"}           the host: seat a computer opponent
                                                           (answers state); during a round it
                                                           is seated at once and plays from the
                                                           next round, as a person who joins
                                                           then. Errors: not_host; bad_input
                                                           naming the strengths; room_full
                                                           (it counts toward max_players, and
                                                           a room seats at most
                                                           limits.MAX_ROOM_OPPONENTS);
                                                           not_now once the game is over
    {"type": "remove_opponent", "seat": "Club bot"}        the host: remove that opponent, at
                                                           any time (its words already played
                                                           stay in the round; no more come,
                                                           not even ones due and not yet
                                                           played; answers state). Errors:
                                                           not_host; not_found (no such
                                                           seat); bad_input
                                                           (a person's seat: that is kick)

Server to client, each with ``"v"`` and the room's event counter ``"seq"`` (a gap means a
missed event: ask for ``state``): ``welcome``, ``state``, ``verdict``, ``results``, ``pong`` and
``error`` (``{"code", "message", "re"}``); ``counts`` (``"seq": null``), ``{"round": 2,
"counts": {"ann": 4, "Club bot": 9}}``, sent to everyone when words arrive in a round (a
person's or a computer opponent's): how many words each player of the round has entered so
far, never the words (the ``state``'s round carries the same ``"counts"``; they only grow in a
round, so a client keeps the largest it has heard); and ``presence`` (``"seq": null``: presence does not
move the counter), ``{"presence": {"ann": "online", "bob": "away", "cy": "offline"}}``, sent to
everyone in the room when a player connects, leaves (their last connection closed) or hides or
shows their tab. Presence is per connection: a player is ``online`` while any of their open
connections is in view, ``away`` while all are hidden (a second tab closing leaves one in view
online), ``offline`` with none open; the ``state`` carries the same ``"presence"``. A
``results`` message and the ``state`` carry ``"places"`` (competitor -> place, tied ones
sharing one), and a round's result its own; the ``state`` carries ``"first_round"``, the
number of the current game's first round (a ``rematch`` starts a game, rounds go on counting),
and ``"rated"``, whether that game is rated (the setting its first round was played by; ``null``
before it, when the settings decide). A bad message gets an ``error`` and changes nothing;
the connection stays open. The ``state``'s ``host`` says who the host is now: when the host has
been away too long the role passes to the next connected player, and a fresh ``state`` says so.

Computer opponents (``add_opponent``) take seats: the ``state`` and the public room carry
``"opponents"`` (seat name -> strength, a mark no name can fake: a person's seat is never in
it), and a scored round's ``players`` entry of an opponent carries ``"opponent": STRENGTH``.
An opponent is never in ``presence`` (never connected), never host (the handover skips it) and
never rated; its words are judged like anyone's, at their own times on the server's clock.

Error codes: ``too_big``, ``bad_json``, ``bad_message``, ``bad_version``, ``unknown_type`` (the
message itself); ``not_joined``, ``already_joined``, ``not_yours``, ``name_taken`` (a name a member holds),
``not_logged_in``, ``not_found``, ``room_full``, ``not_host``, ``not_now`` (a game action at the wrong time), ``closed`` (the room
was closed for being idle: read only), ``bad_input`` (settings, names, words), ``busy`` (try
again: the worker pool or the database could not do it just now), ``internal``; and the
limits: ``rate_limited`` (messages over the rate are dropped unanswered; one such error per
burst), ``too_many_joins`` (join attempts per address),
``too_many_sockets`` (sockets per address; closed with 1008), ``flooding`` (closed with
1008), ``replaced`` (a newer connection of the same seat took over; closed with 4002) and
``kicked`` (the host removed this seat; closed with 4001, and its token no longer works).

The codes are :class:`ErrorCode`'s values and the close codes :class:`CloseCode`'s; which
library error gets which code is in :mod:`bigboggle.web.error_table`.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..errors import quoted
from ..limits import MAX_ENTRY_LENGTH, MAX_NAME_LENGTH, MAX_STRENGTH_LENGTH, ServerLimits
from ..services.rooms import MAX_CODE_TYPED
from .validation import describe_validation

PROTOCOL_VERSION = 1
#: The largest message a client may send (bytes) by default (the server's limit is
#: ``ServerLimits.max_message_bytes``); longer ones get an error and are dropped.
MAX_MESSAGE_BYTES = ServerLimits.max_message_bytes


class ErrorCode(StrEnum):
    """The ``code`` of an ``error`` message (listed, with what each means, above)."""

    # the message itself
    TOO_BIG = "too_big"
    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    BAD_VERSION = "bad_version"
    UNKNOWN_TYPE = "unknown_type"
    # the seat and the room
    NOT_JOINED = "not_joined"
    ALREADY_JOINED = "already_joined"
    NOT_YOURS = "not_yours"
    NAME_TAKEN = "name_taken"
    NOT_LOGGED_IN = "not_logged_in"
    NOT_FOUND = "not_found"
    ROOM_FULL = "room_full"
    NOT_HOST = "not_host"
    NOT_NOW = "not_now"
    CLOSED = "closed"
    BAD_INPUT = "bad_input"
    BUSY = "busy"
    INTERNAL = "internal"
    # the limits
    RATE_LIMITED = "rate_limited"
    TOO_MANY_JOINS = "too_many_joins"
    TOO_MANY_SOCKETS = "too_many_sockets"
    FLOODING = "flooding"
    REPLACED = "replaced"
    KICKED = "kicked"


class CloseCode(IntEnum):
    """The WebSocket close codes the server uses."""

    #: Flooding and other policy breaches (the standard code).
    POLICY = 1008
    #: The host removed this seat.
    KICKED = 4001
    #: A newer connection of the same seat took over.
    REPLACED = 4002


class ProtocolError(Exception):
    """A message the server refuses: a short ``code`` and a ``message`` for people."""

    def __init__(self, code: ErrorCode, message: str, re: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.re = re


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    v: Literal[1] = 1
    id: int | None = Field(None, ge=0, le=2**53, description="Echoed as 're' in the answer")


class Join(_Message):
    type: Literal["join"]
    room: str | None = Field(None, min_length=1, max_length=MAX_CODE_TYPED)
    name: str | None = Field(None, min_length=1, max_length=MAX_NAME_LENGTH)
    token: str | None = Field(None, min_length=10, max_length=100)


class Configure(_Message):
    type: Literal["configure"]
    settings: dict[str, Any]


class Start(_Message):
    type: Literal["start"]


class Submit(_Message):
    type: Literal["submit"]
    word: str = Field(min_length=1, max_length=MAX_ENTRY_LENGTH)
    #: A client may say whose word it is; it must be its own seat.
    room: str | None = Field(None, max_length=MAX_CODE_TYPED)
    player: str | None = Field(None, max_length=MAX_NAME_LENGTH)


class Kick(_Message):
    type: Literal["kick"]
    player: str = Field(min_length=1, max_length=MAX_NAME_LENGTH)


class End(_Message):
    type: Literal["end"]


class Rematch(_Message):
    type: Literal["rematch"]


class PresenceChange(_Message):
    type: Literal["presence"]
    state: Literal["online", "away"]


class AddOpponent(_Message):
    type: Literal["add_opponent"]
    strength: str = Field(min_length=1, max_length=MAX_STRENGTH_LENGTH)


class RemoveOpponent(_Message):
    type: Literal["remove_opponent"]
    seat: str = Field(min_length=1, max_length=MAX_NAME_LENGTH)


class StateRequest(_Message):
    type: Literal["state"]
    since: int | None = Field(None, ge=0)


class Ping(_Message):
    type: Literal["ping"]


ClientMessage = Annotated[
    Join
    | Configure
    | Start
    | Submit
    | StateRequest
    | Ping
    | Kick
    | End
    | Rematch
    | PresenceChange
    | AddOpponent
    | RemoveOpponent,
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = (
    "join",
    "configure",
    "start",
    "submit",
    "state",
    "ping",
    "kick",
    "end",
    "rematch",
    "presence",
    "add_opponent",
    "remove_opponent",
)


def parse(raw: str | bytes, limit: int = MAX_MESSAGE_BYTES) -> ClientMessage:
    """A client message from a frame of at most ``limit`` bytes; :class:`ProtocolError` says
    what is wrong with it. The size is checked before anything is parsed."""
    size = len(raw) if len(raw) > limit else len(raw.encode() if isinstance(raw, str) else raw)
    if size > limit:
        raise ProtocolError(
            ErrorCode.TOO_BIG, f"the message is {size}+ bytes; the limit is {limit}"
        )
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ProtocolError(ErrorCode.BAD_JSON, f"the message is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, 'a message is a JSON object with a "type"')
    re = data.get("id") if isinstance(data.get("id"), int) else None
    if data.get("v", PROTOCOL_VERSION) != PROTOCOL_VERSION:
        raise ProtocolError(
            ErrorCode.BAD_VERSION,
            f"protocol version {quoted(data.get('v'))} is not spoken here; use {PROTOCOL_VERSION}",
            re,
        )
    kind = data.get("type")
    if kind not in MESSAGE_TYPES:
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE,
            f"unknown message type {quoted(kind)}; types: {', '.join(MESSAGE_TYPES)}",
            re,
        )
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, describe_validation(exc), re) from None


def message(kind: str, seq: int | None, **fields: Any) -> dict[str, Any]:
    """A server message of ``kind`` at room event ``seq``."""
    return {"v": PROTOCOL_VERSION, "type": kind, "seq": seq, **fields}


def error(
    code: ErrorCode, text: str, re: int | None = None, seq: int | None = None
) -> dict[str, Any]:
    """An ``error`` message: the code, what is wrong, and the id of the message it answers."""
    return message("error", seq, code=code, message=text, re=re)
