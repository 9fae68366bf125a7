"""What the JSON API accepts: request bodies read within a size limit, duplicate keys refused,
and checked against the models below; every failure becomes an :class:`ApiError` whose message
names the key at fault.

The models document the API in the OpenAPI document as well as checking it. Round scoring
(`/api/score`, tournament rounds) is checked by the library's own round reader, whose messages
already name the player and entry at fault; its model here documents the shape.
"""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from ..dice import MAX_SEED
from ..errors import BoggleError
from ..limits import (
    MAX_BOARD_TEXT,
    MAX_ENTRY_LENGTH,
    MAX_LIST_LENGTH,
    MAX_NAME_LENGTH,
    MAX_PLAYERS,
    MAX_QUOTED,
    MAX_SOLO_OPPONENTS,
    MAX_TOURNAMENT_NAME,
    SMALL_BODY_BYTES,
    ServerLimits,
)
from ..round_input import load_json
from ..rules import MAX_TIMER, MAX_WORD_LENGTH, MIN_WORD_LENGTH
from .plumbing import services
from .validation import describe_validation

#: The largest request body the API reads by default (bytes): room for 100 players' lists of
#: real words. An app reads its own limit (``ServerLimits.max_body_bytes``).
MAX_BODY_BYTES = ServerLimits().max_body_bytes
#: Bodies longer than this (characters) are parsed in a thread, off the event loop.
OFF_LOOP_CHARS = 65_536

Model = TypeVar("Model", bound=BaseModel)


class ApiError(Exception):
    """A request the API refuses: an HTTP status and a message for ``{"error": …}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


BoardText = Field(
    max_length=MAX_BOARD_TEXT,
    description="Rows separated by '/': Qu, [Th] for two-letter faces, '.' blank, '*' challenge",
    examples=["LINES/TQARD/HEMOP/ABCKI/PSTEW"],
)


class SolveRequest(_Strict):
    """``POST /api/solve``: the board and, optionally, rules, dictionary, minimum length and
    the family filter."""

    board: str = BoardText
    rules: str = Field("big", max_length=40, description="A rules preset (see /api/rules)")
    dictionary: str | None = Field(None, max_length=40, description="A dictionary's name")
    min_length: int | None = Field(None, ge=MIN_WORD_LENGTH, le=MAX_WORD_LENGTH)
    family: bool = Field(
        False,
        description="Leave offensive words out (count and total_score are then of the rest); "
        'without it they are listed with "offensive": true',
    )


Words = list[str]


class ScoreRequest(BaseModel):
    """``POST /api/score``: the JSON of ``bigboggle score`` (rules and dictionary optional)."""

    model_config = ConfigDict(extra="forbid")

    board: str = BoardText
    players: dict[str, Words] = Field(
        description=f"Player -> words as written (up to {MAX_PLAYERS} players, "
        f"{MAX_LIST_LENGTH} words each)",
        examples=[{"ann": ["lines", "hemp"], "bob": ["lines"]}],
    )
    teams: dict[str, list[str]] | None = Field(None, description="Team -> members (team play)")
    min_length: dict[str, int] | None = Field(
        None, description="Player -> own minimum word length (handicap)"
    )
    rules: str | None = Field(None, max_length=40)
    dictionary: str | None = Field(None, max_length=40)
    options: dict[str, Any] | None = Field(
        None, description="Rules options: advanced, challenge, duplicates, teams, min_length…"
    )


class NewTournamentRound(BaseModel):
    """``POST /api/tournaments/{id}/rounds``: a round of the tournament, like ``/api/score``
    without rules, dictionary or options (the tournament's own apply). The body is read by the
    library's round reader (:func:`bigboggle.round_input.parse_round_request`); this model
    documents it."""

    model_config = ConfigDict(extra="forbid")

    board: str = BoardText
    players: dict[str, Words]
    teams: dict[str, list[str]] | None = None
    min_length: dict[str, int] | None = None


class SoloOptions(_Strict):
    """Rules options of a solo game."""

    advanced: bool | None = Field(None, description="Words of 5+ letters only")
    challenge: bool | None = Field(None, description="Shake with the challenge cube (+5)")
    min_length: int | None = Field(None, ge=MIN_WORD_LENGTH, le=MAX_WORD_LENGTH)
    timer: int | None = Field(None, ge=5, le=MAX_TIMER, description="Seconds on the clock")
    family: bool | None = Field(None, description="Refuse offensive words (the family filter)")


class NewOpponent(_Strict):
    """A computer opponent of a solo game: its strength (and, to replay its list, its seed)."""

    strength: str = Field(
        max_length=40, description="beginner, casual, club, expert or solver (GET /api/rules)"
    )
    seed: int | None = Field(None, ge=0, le=MAX_SEED)


class NewGame(_Strict):
    """``POST /api/games``: a solo game (a shake, a given board, or the daily board)."""

    rules: str = Field("big", max_length=40)
    dictionary: str | None = Field(None, max_length=40)
    options: SoloOptions | None = None
    seed: int | None = Field(None, ge=0, le=MAX_SEED)
    board: str | None = Field(None, max_length=MAX_BOARD_TEXT)
    band: str | None = Field(
        None, max_length=40, description="easy, normal, rich, 300-500 or words:100-200"
    )
    player: str = Field("you", min_length=1, max_length=MAX_NAME_LENGTH)
    daily: bool = Field(False, description="Play today's daily board (counted once per name)")
    opponents: list[NewOpponent] | None = Field(
        None,
        max_length=MAX_SOLO_OPPONENTS,
        description="Computer opponents: their words are crossed off against yours at the end",
    )
    practice: bool = Field(False, description="Free hints; the game counts in no history")
    hints: bool = Field(False, description="Hints allowed, at their cost in points")


class NewHint(_Strict):
    """``POST /api/games/{id}/hints``: the kind of hint wanted."""

    kind: str = Field(min_length=1, max_length=20, description="words_left, letters, start or path")


class NewWord(_Strict):
    """``POST /api/games/{id}/words``: one word, typed or traced on the board."""

    word: str = Field(min_length=1, max_length=MAX_ENTRY_LENGTH)


class NewTournament(_Strict):
    """``POST /api/tournaments``: rules, dictionary and how the tournament ends."""

    name: str = Field(min_length=1, max_length=MAX_NAME_LENGTH * 2)
    rules: str = Field("big", max_length=40)
    dictionary: str | None = Field(None, max_length=40)
    options: dict[str, Any] | None = None
    target: int | None = Field(None, ge=1, le=100_000, description="First to this many points")
    rounds: int | None = Field(None, ge=1, le=200, description="This many rounds")


class RenameTournament(_Strict):
    """``PATCH /api/tournaments/{id}``: the tournament's new name (its owner only)."""

    name: str = Field(min_length=1, max_length=MAX_TOURNAMENT_NAME)


class NewRoom(_Strict):
    """``POST /api/rooms``: the host's name and the room's settings."""

    host: str = Field(min_length=1, max_length=MAX_NAME_LENGTH)
    settings: dict[str, Any] = Field(
        default_factory=dict,
        description="rules, options {advanced, challenge, duplicates, min_length}, timer, "
        "dictionary, target or rounds, max_players, handicaps {name: 3}, teams {team: [names]}",
    )


class ErrorBody(BaseModel):
    """Every refused request answers this."""

    error: str


async def read_text(request: Request, limit: int | None = None) -> str:
    """The request's body as text: sent as ``Content-Type: application/json`` (415 otherwise, a
    missing type too: a cross-site form cannot send that type without the browser asking
    first), at most ``limit`` bytes (default: the app's ``max_body_bytes``), UTF-8. Reading and
    decoding are linear and cheap; parsing is the caller's (see :func:`read_json`)."""
    kind = request.headers.get("content-type", "")
    if kind.split(";")[0].strip().lower() != "application/json":
        shown = f"not {kind[:MAX_QUOTED]!r}" if kind else "the request has no Content-Type"
        raise ApiError(415, f"send JSON with Content-Type: application/json; {shown}")
    limit = min(limit, _body_limit(request)) if limit is not None else _body_limit(request)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"the body is {declared[:20]} bytes; the limit here is {limit}")
    body = await _read_bounded(request, limit, "the body")
    if not body.strip():
        raise ApiError(400, "the body is empty; send a JSON object")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(400, f"the body is not UTF-8 (byte {exc.start})") from None


async def _read_bounded(request: Request, limit: int, what: str) -> bytes:
    """The request's body, read as it streams in and refused (413, naming ``what``) as soon as
    it passes ``limit`` bytes; held once, grown in place."""
    received = bytearray()
    async for chunk in request.stream():
        if len(received) + len(chunk) > limit:
            raise ApiError(413, f"{what} is over the limit here of {limit} bytes")
        received += chunk
    return bytes(received)


def parse_body(text: str) -> Any:
    """JSON body text parsed (no duplicate keys); :class:`ApiError` (400) says what is wrong."""
    try:
        return load_json(text, "the body")
    except BoggleError as exc:
        raise ApiError(400, str(exc)) from None


async def read_json(request: Request, limit: int | None = None) -> Any:
    """The request's JSON body (see :func:`read_text`), duplicate keys refused. A large body is
    parsed in a thread, not on the event loop (the parser lets the loop in between objects)."""
    text = await read_text(request, limit)
    if len(text) <= OFF_LOOP_CHARS:
        return parse_body(text)
    return await run_in_threadpool(parse_body, text)


async def read_photo(request: Request, limit: int) -> bytes:
    """A photo sent as the body (``Content-Type: image/jpeg``, ``image/png`` or ``image/webp``)
    or as the ``photo`` file of a multipart form: its bytes, at most ``limit`` (413 past it),
    the form holding nothing else of size (a part past ``limit`` or more than a few fields:
    400). What the bytes hold is the reader's to check."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind in ("image/jpeg", "image/png", "image/webp"):
        photo = await _read_bounded(request, limit, "the photo")
    elif kind == "multipart/form-data":
        try:
            form = await request.form(max_files=1, max_fields=4, max_part_size=limit)
        except HTTPException as exc:
            if exc.status_code in (408, 413):
                raise  # the body's own limits (size, time): their answer, and the connection closed
            raise ApiError(
                400, f"the form: {exc.detail}"
            ) from None  # too many parts, a part too large
        try:
            sent = form.get("photo")
            if sent is None or isinstance(sent, str):
                raise ApiError(
                    400, "the form has no file 'photo': send the photo as a file named photo"
                )
            photo = await sent.read(limit + 1)
        finally:
            await form.close()
        if len(photo) > limit:
            raise ApiError(413, f"the photo is over the limit here of {limit} bytes")
    else:
        shown = f"not {kind[:MAX_QUOTED]!r}" if kind else "the request has no Content-Type"
        raise ApiError(
            415, f"send the photo as a multipart form's file 'photo' or as image/jpeg; {shown}"
        )
    if not photo:
        raise ApiError(400, "the photo is empty (0 bytes)")
    return photo


def _body_limit(request: Request) -> int:
    return services(request).limits.max_body_bytes


async def read_model(request: Request, model: type[Model], limit: int = SMALL_BODY_BYTES) -> Model:
    """The body checked against ``model``; :class:`ApiError` (400) naming the bad key. Bodies
    of these small requests are refused past ``limit`` bytes (413) before they are parsed."""
    data = await read_json(request, limit)
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiError(400, describe_validation(exc)) from None


def body_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` declaring ``model`` as the JSON body (the route reads it itself)."""
    return {
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}
            },
        }
    }


def inline_body_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` declaring ``model`` as the JSON body, its schema written in place (for
    models outside :data:`BODY_MODELS`); the route reads the body itself."""
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": model.model_json_schema()}},
        }
    }


def error_answer(description: str) -> dict[str, Any]:
    """A documented error answer (an :class:`ErrorBody`) for a route's ``responses``."""
    return {"model": ErrorBody, "description": description}


#: The models that :func:`body_schema` refers to, for the OpenAPI document's components.
BODY_MODELS: tuple[type[BaseModel], ...] = (
    SolveRequest,
    ScoreRequest,
    NewTournamentRound,
    NewGame,
    NewWord,
    NewTournament,
    RenameTournament,
    NewRoom,
)
