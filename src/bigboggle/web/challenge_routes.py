"""Asynchronous challenges over HTTP: the JSON API under ``/api/challenges`` and the pages
``/challenges`` (make one) and ``/challenges/CODE`` (what it is, who has played, your next
round, the results).

Routes only translate (:mod:`bigboggle.services.challenges` decides everything). Who is asking
is the member's session (:func:`~.auth.viewer`) or, for a guest, ``X-Game-Key``: the key of one
of their games in this challenge (each ``play`` answer holds its game's key, once). State
changes are ``POST`` with JSON bodies, bounded (:func:`~.inputs.read_model`) and behind the
app's cross-site guard like every other; every answer that depends on who asks is marked
``Cache-Control: private, no-store``. The database is read in the thread pool; a start's and a
standings' CPU work runs in the worker pool (the services' runner).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Path, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..board import Board
from ..limits import (
    CHALLENGE_MAX_HOURS,
    CHALLENGE_MAX_ROUNDS,
    CHALLENGE_MAX_TEAMS,
    MAX_KEY_LENGTH,
    MAX_NAME_LENGTH,
)
from ..rules import MAX_TIMER, MAX_WORD_LENGTH, MIN_WORD_LENGTH, PRESETS
from ..services.challenges import MAX_CODE_TYPED, ChallengeView, normal_code
from .account_pages import viewer_here
from .auth import viewer
from .inputs import error_answer, inline_body_schema, read_model
from .player_routes import utc_time
from .plumbing import JSONResponse, services

router = APIRouter(tags=["challenges"])


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ChallengeOptions(_Strict):
    """Rules options of every round of a challenge."""

    advanced: bool | None = Field(None, description="Words of 5+ letters only")
    challenge: bool | None = Field(None, description="Shake with the challenge cube (+5)")
    min_length: int | None = Field(None, ge=MIN_WORD_LENGTH, le=MAX_WORD_LENGTH)
    family: bool | None = Field(None, description="Refuse offensive words (the family filter)")


class NewChallenge(_Strict):
    """``POST /api/challenges``: a fresh challenge, or one made from a finished solo game
    (``from_game``, with that game's key in ``X-Game-Key`` unless it is the member's own)."""

    rules: str | None = Field(None, max_length=40, description="A rules preset (default big)")
    rounds: int = Field(1, ge=1, le=CHALLENGE_MAX_ROUNDS, description="Boards to play")
    timer: int | None = Field(None, ge=5, le=MAX_TIMER, description="Seconds on each clock")
    from_game: str | None = Field(
        None, min_length=1, max_length=16, description="A finished solo game: round 1 is its board"
    )
    options: ChallengeOptions | None = None
    duplicates: Literal["cancel", "keep"] = Field(
        "cancel", description="cancel: a word two players found is crossed off (the rule)"
    )
    dictionary: str | None = Field(None, max_length=40)
    hours: int | None = Field(
        None, ge=1, le=CHALLENGE_MAX_HOURS, description="Hours it stays open (default 7 days)"
    )
    teams: list[str] | None = Field(
        None,
        description=f"Team names (2 to {CHALLENGE_MAX_TEAMS}): each player plays for one, and "
        "words found by team-mates are not crossed off against each other",
    )
    team: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_NAME_LENGTH,
        description="With from_game and teams: the team the game's player plays for",
    )


class PlayChallenge(_Strict):
    """``POST /api/challenges/{code}/play``: who plays (a member may leave it out)."""

    player: str | None = Field(None, min_length=1, max_length=MAX_NAME_LENGTH)
    team: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_NAME_LENGTH,
        description="In a team challenge: your team (needed at your first play, then fixed)",
    )


Code = Annotated[str, Path(min_length=1, max_length=MAX_CODE_TYPED, description="A code")]
GameKey = Annotated[
    str | None,
    Header(
        alias="X-Game-Key",
        max_length=MAX_KEY_LENGTH,
        description="The key of one of your games in this challenge (or of the game a new "
        "challenge is made from): proves who you are",
    ),
]
ERRORS: dict[int | str, dict[str, Any]] = {
    400: error_answer("Bad input: the message names what and where"),
    403: error_answer("A name already seated, without one of its game keys or its session"),
    404: error_answer("No such challenge (or game)"),
    409: error_answer("Not now: closed, every round played, a round still running, or full"),
    413: error_answer("The body is over the size limit"),
    415: error_answer("The body is not JSON"),
}


def _private(response: JSONResponse) -> JSONResponse:
    """An answer that depends on who asks (their words, their seat): never kept by a cache."""
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Vary"] = "Cookie, X-Game-Key"
    return response


@router.post(
    "/api/challenges",
    status_code=201,
    summary="Make a challenge (from a finished solo game, or fresh): its code and link",
    openapi_extra=inline_body_schema(NewChallenge),
    responses=ERRORS,
)
async def create_challenge(request: Request, key: GameKey = None) -> JSONResponse:
    asked = await read_model(request, NewChallenge)
    found = services(request)
    member = await viewer(request)
    options = asked.options.model_dump(exclude_none=True) if asked.options else None
    view = await run_in_threadpool(
        lambda: found.challenges.create(
            asked.rules,
            rounds=asked.rounds,
            timer=asked.timer,
            options=options,
            duplicates=asked.duplicates,
            dictionary=asked.dictionary,
            hours=asked.hours,
            from_game=asked.from_game,
            key=key,
            account_id=member.id if member is not None else None,
            teams=asked.teams,
            team=asked.team,
        )
    )
    return _private(JSONResponse(view.to_json(), status_code=201))


@router.get(
    "/api/challenges/{code}",
    summary="A challenge: its settings, who has played (scores, never words), your next round",
    responses=ERRORS,
)
async def get_challenge(request: Request, code: Code, key: GameKey = None) -> JSONResponse:
    view = await _read(request, code, key)
    return _private(JSONResponse(view.to_json()))


@router.post(
    "/api/challenges/{code}/play",
    status_code=201,
    summary="Start your next round: a solo game (id, key, board, deadline) played as any other",
    openapi_extra=inline_body_schema(PlayChallenge),
    responses=ERRORS,
)
async def play_challenge(request: Request, code: Code, key: GameKey = None) -> JSONResponse:
    asked = await read_model(request, PlayChallenge)
    found = services(request)
    member = await viewer(request)
    view, number = await run_in_threadpool(
        lambda: found.challenges.play(
            code,
            asked.player,
            key=key,
            account_id=member.id if member is not None else None,
            team=asked.team,
        )
    )
    # Others read a challenge game's results: ended and scored at its deadline, words or not.
    found.solo_timers.at(view.game.id, view.game.deadline)
    data = view.to_json()
    data["challenge"] = normal_code(code)
    data["round"] = number
    return _private(JSONResponse(data, status_code=201))


@router.get(
    "/api/challenges/{code}/results",
    summary="Every round's standings with crossing off among all who finished it, and overall",
    responses=ERRORS,
)
async def challenge_results(request: Request, code: Code, key: GameKey = None) -> JSONResponse:
    view = await _read(request, code, key)
    return _private(JSONResponse(view.results_json()))


async def _read(request: Request, code: str, key: str | None) -> ChallengeView:
    found = services(request)
    member = await viewer(request)
    account_id = member.id if member is not None else None
    return await run_in_threadpool(
        lambda: found.challenges.get(code, key=key, account_id=account_id)
    )


# -- pages ------------------------------------------------------------------------------------


def _page(request: Request, template: str, **context: Any) -> Response:
    """``template`` with the viewer (read in this worker thread) and the presets."""
    found = services(request)
    context.setdefault("viewer", viewer_here(request))
    context.setdefault("presets", PRESETS)
    context.setdefault("dictionaries", found.shelf.names)
    context.setdefault("utc_time", utc_time)
    return found.templates.TemplateResponse(request, template, context)


@router.get("/challenges", response_class=HTMLResponse, include_in_schema=False)
def new_challenge_page(request: Request) -> Response:
    """Make a challenge: rules, rounds, timer, how long it stays open."""
    return _page(
        request,
        "challenges.html",
        max_rounds=CHALLENGE_MAX_ROUNDS,
        max_hours=CHALLENGE_MAX_HOURS,
        max_teams=CHALLENGE_MAX_TEAMS,
    )


@router.get("/challenges/{code}", response_class=HTMLResponse, include_in_schema=False)
def challenge_page(request: Request, code: Code) -> Response:
    """A challenge: what it is, who has played, the next round, the results (the words of a
    round only for a member who has finished it; a guest's browser asks again with its key)."""
    found = services(request)
    member = viewer_here(request)
    view = found.challenges.get(code, account_id=member.id if member is not None else None)
    response = _page(
        request,
        "challenge.html",
        viewer=member,
        view=view,
        data=view.results_json(),
        boards=_boards(view),
    )
    response.headers["Cache-Control"] = "private, no-store"
    return response


@router.get("/challenges/{code}/standings", response_class=HTMLResponse, include_in_schema=False)
def challenge_standings_part(request: Request, code: Code, key: GameKey = None) -> Response:
    """The page's standings as this viewer may see them (a guest's browser asks with one of
    its game keys, ``X-Game-Key``, so the words of the rounds it finished are shown)."""
    found = services(request)
    member = viewer_here(request)
    view = found.challenges.get(code, key=key, account_id=member.id if member is not None else None)
    response = _page(
        request,
        "_challenge_results.html",
        view=view,
        data=view.results_json(),
        boards=_boards(view),
    )
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Vary"] = "Cookie, X-Game-Key"
    return response


def _boards(view: ChallengeView) -> dict[int, Board]:
    """The boards of the rounds the viewer may see, parsed for the board macro."""
    return {
        standing.number: Board.parse(standing.board)
        for standing in view.round_standings
        if standing.visible
    }
