"""The room protocol: JSON text messages over a WebSocket, typed and versioned.

Client to server (``"v": 1`` may be given; another version is refused)::

    {"type": "join", "room": "BCDFG", "name": "ann"}       take a seat (answers welcome + state)
    {"type": "join", "token": "…"}                         come back to your seat (after a reload)
    {"type": "configure", "settings": {…}}                 the host, between rounds
    {"type": "start"}                                      the host: shake and start a round
    {"type": "submit", "word": "lines", "id": 7}           a word (answers verdict, "re": 7)
    {"type": "state"}                                      everything again (to resync)
    {"type": "ping"}                                       answers pong

Server to client, each with ``"v"`` and the room's event counter ``"seq"`` (a gap means a
missed event: ask for ``state``): ``welcome``, ``state``, ``verdict``, ``results``, ``pong`` and
``error`` (``{"code", "message", "re"}``). A bad message gets an ``error`` and changes nothing;
the connection stays open.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .inputs import describe_validation

PROTOCOL_VERSION = 1
#: The largest message a client may send (bytes); longer ones get an error and are dropped.
MAX_MESSAGE_BYTES = 4096


class ProtocolError(Exception):
    """A message the server refuses: a short ``code`` and a ``message`` for people."""

    def __init__(self, code: str, message: str, re: int | None = None) -> None:
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
    room: str | None = Field(None, min_length=1, max_length=12)
    name: str | None = Field(None, min_length=1, max_length=40)
    token: str | None = Field(None, min_length=10, max_length=100)


class Configure(_Message):
    type: Literal["configure"]
    settings: dict[str, Any]


class Start(_Message):
    type: Literal["start"]


class Submit(_Message):
    type: Literal["submit"]
    word: str = Field(min_length=1, max_length=60)
    #: A client may say whose word it is; it must be its own seat.
    room: str | None = Field(None, max_length=12)
    player: str | None = Field(None, max_length=40)


class StateRequest(_Message):
    type: Literal["state"]
    since: int | None = Field(None, ge=0)


class Ping(_Message):
    type: Literal["ping"]


ClientMessage = Annotated[
    Join | Configure | Start | Submit | StateRequest | Ping, Field(discriminator="type")
]
_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = ("join", "configure", "start", "submit", "state", "ping")


def parse(raw: str | bytes) -> ClientMessage:
    """A client message from a frame; :class:`ProtocolError` says what is wrong with it."""
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            "too_big", f"the message is {size} bytes; the limit is {MAX_MESSAGE_BYTES}"
        )
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ProtocolError("bad_json", f"the message is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", 'a message is a JSON object with a "type"')
    re = data.get("id") if isinstance(data.get("id"), int) else None
    if data.get("v", PROTOCOL_VERSION) != PROTOCOL_VERSION:
        raise ProtocolError(
            "bad_version",
            f"protocol version {data.get('v')!r} is not spoken here; use {PROTOCOL_VERSION}",
            re,
        )
    kind = data.get("type")
    if kind not in MESSAGE_TYPES:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {kind!r}; types: {', '.join(MESSAGE_TYPES)}",
            re,
        )
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError("bad_message", describe_validation(exc), re) from None


def message(kind: str, seq: int | None, **fields: Any) -> dict[str, Any]:
    """A server message of ``kind`` at room event ``seq``."""
    return {"v": PROTOCOL_VERSION, "type": kind, "seq": seq, **fields}


def error(code: str, text: str, re: int | None = None, seq: int | None = None) -> dict[str, Any]:
    """An ``error`` message: the code, what is wrong, and the id of the message it answers."""
    return message("error", seq, code=code, message=text, re=re)
