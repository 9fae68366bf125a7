"""The JSON API: solve, shake, score, solo games, the daily board and tournaments.

Routes only translate: JSON in, library calls, JSON out; library errors become 4xx answers
through the app's error handlers. Work that touches the database runs in the thread pool, and
CPU work (solving, scoring, band searches) in the app's bounded worker pool
(:mod:`bigboggle.web.pool`), so that the event loop keeps answering.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Query, Request
from fastapi.responses import Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from .. import photo as photo_reader
from ..analysis import Band
from ..dice import MAX_SEED, new_seed, shake
from ..hints import HINT_COSTS, HINT_LABELS
from ..limits import MAX_KEY_LENGTH
from ..opponents import Opponent
from ..rules import PRESETS, Rules
from ..services import jobs
from ..services.daily import check_date, utc_date
from ..services.solo_games import SOLO_OPTIONS, needs_timer
from ..services.solo_views import OpponentChoice
from .auth import viewer
from .inputs import (
    ApiError,
    ErrorBody,
    NewGame,
    NewHint,
    NewTournament,
    NewTournamentRound,
    NewWord,
    RenameTournament,
    ScoreRequest,
    SolveRequest,
    body_schema,
    read_model,
    read_photo,
    read_text,
)
from .plumbing import JSONResponse, own_view_headers, services
from .validation import WHOLE_NUMBER

router = APIRouter(
    prefix="/api",
    tags=["api"],
    responses={
        400: {"model": ErrorBody, "description": "Bad input: the message names what and where"},
        413: {"model": ErrorBody, "description": "The body is over the size limit"},
        415: {"model": ErrorBody, "description": "The body is not JSON"},
    },
)

GameId = Annotated[str, Path(min_length=1, max_length=16, description="A game's id")]
GameKey = Annotated[
    str | None,
    Header(
        alias="X-Game-Key",
        max_length=100,
        description="The key POST /api/games gave: needed to play, and to see a running game's words",
    ),
]
TournamentId = Annotated[str, Path(min_length=1, max_length=16, description="A tournament's id")]
RulesName = Annotated[str, Query(max_length=40, description="A rules preset")]
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "No such id"}
}
NOT_YOURS: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorBody, "description": "Not without the game's key (X-Game-Key)"}
}
CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorBody, "description": "Too late: the game has ended"}
}


@router.get("/rules", summary="The rules presets, the solo options and the dictionaries")
async def rules_list(request: Request) -> JSONResponse:
    return JSONResponse(
        {
            "presets": {name: rules.to_json() for name, rules in PRESETS.items()},
            "solo_options": sorted(SOLO_OPTIONS),
            "opponent_strengths": dict(Opponent.STRENGTHS),
            "hints": {
                kind: {"cost": cost, "label": HINT_LABELS[kind]}
                for kind, cost in HINT_COSTS.items()
            },
            "dictionaries": services(request).shelf.names,
        }
    )


@router.get("/shake", summary="Shake a board from a preset's dice")
async def shake_board(
    request: Request,
    rules: RulesName = "big",
    seed: Annotated[Annotated[int, Field(ge=0, le=MAX_SEED)] | None, WHOLE_NUMBER, Query()] = None,
    challenge: bool = False,
    band: Annotated[
        str | None, Query(max_length=40, description="easy, normal, rich, 300-500, words:100-")
    ] = None,
    dictionary: Annotated[str | None, Query(max_length=40)] = None,
) -> JSONResponse:
    """The JSON of ``bigboggle shake --json``: the same seed and rules give the same board."""
    ruleset = Rules.preset(rules, challenge=challenge or None)
    start: int = new_seed() if seed is None else seed
    found = services(request)
    if dictionary is not None or band is not None:  # an unknown name: 400, even if unused
        found.shelf.check(dictionary or ruleset.dictionary)
    if band is not None:
        spec = found.shelf.spec
        return JSONResponse(
            await found.pool.run(jobs.band_shake, spec, rules, challenge, dictionary, band, start)
        )
    dealt = shake(ruleset.dice, start, challenge=ruleset.challenge)
    return JSONResponse(dealt.to_json(ruleset.name, start))


@router.post("/solve", summary="Every word on a board", openapi_extra=body_schema(SolveRequest))
async def solve_board(request: Request) -> Response:
    """The JSON of ``bigboggle solve --json``, with where the board stands among shakes. An
    offensive word carries ``"offensive": true``; ``"family": true`` leaves such words out."""
    asked = await read_model(request, SolveRequest)
    found = services(request)
    ruleset = Rules.preset(asked.rules)
    found.shelf.check(asked.dictionary or ruleset.dictionary)  # an unknown name: 400 at once
    answer = await found.pool.run(
        jobs.solve_board_json,
        found.shelf.spec,
        asked.board,
        asked.rules,
        asked.dictionary,
        asked.min_length,
        asked.family,
    )
    return Response(answer, media_type="application/json")


#: The content types a photo may be sent as, besides a multipart form with a ``photo`` file.
PHOTO_TYPES = ("image/jpeg", "image/png", "image/webp")


@router.post(
    "/read-board",
    summary="Read a board from a photo of the tray",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "properties": {"photo": {"type": "string", "format": "binary"}},
                        "required": ["photo"],
                    }
                },
                **{
                    kind: {"schema": {"type": "string", "format": "binary"}} for kind in PHOTO_TYPES
                },
            },
        }
    },
)
async def read_board_photo(
    request: Request,
    rules: RulesName = "big",
    dice: Annotated[
        bool, Query(description="Read the board as the preset's dice can show it (each once)")
    ] = True,
    challenge: Annotated[
        bool, Query(description="The tray holds the challenge cube in place of one die")
    ] = False,
) -> Response:
    """The JSON of ``bigboggle read --json``: the board read from a photo (a multipart form's
    ``photo`` file, or the image itself as the body), each cell with its confidence, the
    runner-up readings and whether a person should check it, and the grid's corners as
    fractions of the photo's width and height."""
    Rules.preset(rules, challenge=challenge or None)  # a bad preset: 400 before the photo
    if not photo_reader.available():
        raise ApiError(
            501,
            "this server cannot read photos: its operator needs pip install 'bigboggle[camera]'",
        )
    photo = await read_photo(request, services(request).limits.max_photo_body_bytes)
    answer = await services(request).pool.run(jobs.read_board_json, photo, rules, dice, challenge)
    return Response(answer, media_type="application/json")


@router.post("/score", summary="Score a round", openapi_extra=body_schema(ScoreRequest))
async def score_paper_round(request: Request) -> Response:
    """The JSON of ``bigboggle score --json``; takes the JSON of ``bigboggle score``."""
    text = await read_text(request)  # parsed in the worker, with the scoring
    found = services(request)
    answer = await found.pool.run(jobs.score_paper_round_text, found.shelf.spec, text)
    return Response(answer, media_type="application/json")


# -- solo games ----------------------------------------------------------------------------------


@router.post(
    "/games",
    status_code=201,
    summary="Start a solo game (a shake, a given board, or the daily board)",
    openapi_extra=body_schema(NewGame),
    responses=CONFLICT,
)
async def start_game(request: Request) -> JSONResponse:
    asked = await read_model(request, NewGame)
    found = services(request)
    member = await viewer(request)  # a member's game is theirs (and named for them: the service)
    player = asked.player if "player" in asked.model_fields_set else None
    options = asked.options.model_dump(exclude_none=True) if asked.options else None
    band, seed = None, asked.seed
    if asked.band is not None:
        ruleset = found.solo.rules_for(asked.rules, options)
        found.shelf.check(asked.dictionary or ruleset.dictionary)  # an unknown name: 400 at once
        if asked.board is None and not asked.daily:
            # The search runs in the worker pool; the game then starts from the seed it found.
            start = new_seed() if seed is None else seed
            spec = found.shelf.spec
            seed = await found.pool.run(
                jobs.band_seed, spec, asked.rules, options, asked.dictionary, asked.band, start
            )
        else:
            band = Band()  # start() refuses a band beside a board or the daily board
    view = await run_in_threadpool(
        lambda: found.solo.start(
            asked.rules,
            options=options,
            dictionary=asked.dictionary,
            seed=seed,
            board=asked.board,
            band=band,
            player=player if member is not None else asked.player,
            daily=asked.daily,
            account_id=member.id if member is not None else None,
            opponents=[OpponentChoice(one.strength, one.seed) for one in asked.opponents or ()],
            practice=asked.practice,
            hints=asked.hints,
        )
    )
    if needs_timer(asked.daily, 0):  # others read it: ended and scored at its deadline
        found.solo_timers.at(view.game.id, view.game.deadline)
    return JSONResponse(view.to_json(), status_code=201)


@router.get(
    "/games/{game_id}",
    summary="A solo game: the clock, the words, the results once over",
    responses=NOT_FOUND,
)
def get_game(request: Request, game_id: GameId, key: GameKey = None) -> JSONResponse:
    view = services(request).solo.get(game_id, key)
    return own_view_headers(JSONResponse(view.to_json()), view)


@router.post(
    "/games/{game_id}/words",
    summary="Submit a word; the verdict comes back at once",
    openapi_extra=body_schema(NewWord),
    responses={**NOT_FOUND, **CONFLICT, **NOT_YOURS},
)
async def submit_word(request: Request, game_id: GameId, key: GameKey = None) -> JSONResponse:
    asked = await read_model(request, NewWord)
    found = services(request)
    answer = await run_in_threadpool(found.solo.submit, game_id, asked.word, key)
    found.metrics.words.inc()
    if needs_timer(False, answer.words):  # a game with words is scored at its deadline
        found.solo_timers.at(game_id, answer.deadline)
    return JSONResponse(answer.to_json())


@router.post(
    "/games/{game_id}/finish",
    summary="End a solo game now",
    responses={**NOT_FOUND, **NOT_YOURS},
)
async def finish_game(request: Request, game_id: GameId, key: GameKey = None) -> JSONResponse:
    found = services(request)
    view = await run_in_threadpool(found.solo.finish, game_id, key)
    found.solo_timers.drop(game_id)  # ended (and scored, or caught up at start-up)
    return JSONResponse(view.to_json())


@router.post(
    "/games/{game_id}/hints",
    summary="Use a hint (practice games: free; games with hints on: at its cost)",
    openapi_extra=body_schema(NewHint),
    responses={
        **NOT_FOUND,
        **NOT_YOURS,
        409: {"model": ErrorBody, "description": "Hints not allowed here, or the game is over"},
    },
)
async def use_hint(request: Request, game_id: GameId, key: GameKey = None) -> JSONResponse:
    """The hint, stored with the game before it is answered (listed, with its cost, in the
    results); the same hint asked again is shown again at no cost."""
    asked = await read_model(request, NewHint)
    found = services(request)
    answer = await run_in_threadpool(found.solo.use_hint, game_id, asked.kind, key)
    return JSONResponse(answer.to_json())


@router.get("/daily", summary="The daily board's leaderboard for a preset and date")
def daily(
    request: Request,
    rules: RulesName = "big",
    date: Annotated[str | None, Query(max_length=10, description="YYYY-MM-DD (UTC)")] = None,
) -> JSONResponse:
    found = services(request)
    today = utc_date(found.clock())
    day = check_date(date) if date is not None else today
    board = found.solo.leaderboard(rules, day)
    return JSONResponse(
        {
            "rules": rules,
            "date": day,
            "today": today,
            "leaderboard": [entry.to_json() for entry in board],
        }
    )


# -- tournaments of paper games ------------------------------------------------------------------

TournamentKey = Annotated[
    str | None,
    Header(
        alias="X-Tournament-Key",
        max_length=MAX_KEY_LENGTH,
        description="The key POST /api/tournaments gave: needed to add rounds, rename, delete",
    ),
]
NOT_THE_OWNERS: dict[int | str, dict[str, Any]] = {
    403: {
        "model": ErrorBody,
        "description": "Not without the tournament's key (X-Tournament-Key), or a tournament "
        "from before keys (read-only)",
    }
}
RACED: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorBody, "description": "Another round was added meanwhile: send it again"}
}


@router.post(
    "/tournaments",
    status_code=201,
    summary="Start a tournament of paper games (the answer holds its owner's private key)",
    openapi_extra=body_schema(NewTournament),
)
async def create_tournament(request: Request) -> JSONResponse:
    asked = await read_model(request, NewTournament)
    tournaments = services(request).tournaments
    view = await run_in_threadpool(
        lambda: tournaments.create(
            asked.name,
            asked.rules,
            options=asked.options,
            dictionary=asked.dictionary,
            target=asked.target,
            rounds=asked.rounds,
        )
    )
    return JSONResponse(view.to_json(), status_code=201)


@router.get(
    "/tournaments/{tournament_id}",
    summary="A tournament's rounds and standings (as stored when each round was scored)",
    responses=NOT_FOUND,
)
def get_tournament(request: Request, tournament_id: TournamentId) -> JSONResponse:
    return JSONResponse(services(request).tournaments.get(tournament_id).to_json())


@router.patch(
    "/tournaments/{tournament_id}",
    summary="Rename a tournament (its owner only)",
    openapi_extra=body_schema(RenameTournament),
    responses={**NOT_FOUND, **NOT_THE_OWNERS},
)
async def rename_tournament(
    request: Request, tournament_id: TournamentId, key: TournamentKey = None
) -> JSONResponse:
    asked = await read_model(request, RenameTournament)
    tournaments = services(request).tournaments
    view = await run_in_threadpool(tournaments.rename, tournament_id, asked.name, key)
    return JSONResponse(view.to_json())


@router.delete(
    "/tournaments/{tournament_id}",
    status_code=204,
    summary="Delete a tournament and its rounds (its owner only)",
    responses={**NOT_FOUND, **NOT_THE_OWNERS},
)
async def delete_tournament(
    request: Request, tournament_id: TournamentId, key: TournamentKey = None
) -> Response:
    tournaments = services(request).tournaments
    await run_in_threadpool(tournaments.delete, tournament_id, key)
    return Response(status_code=204)


@router.post(
    "/tournaments/{tournament_id}/rounds",
    status_code=201,
    summary="Score a round and add it to the tournament (its owner only)",
    openapi_extra=body_schema(NewTournamentRound),
    responses={**NOT_FOUND, **NOT_THE_OWNERS, **RACED},
)
async def add_round(
    request: Request, tournament_id: TournamentId, key: TournamentKey = None
) -> JSONResponse:
    text = await read_text(request)  # parsed by the service once the key is checked
    tournaments = services(request).tournaments
    scored, view = await run_in_threadpool(tournaments.add_round, tournament_id, text, key)
    return JSONResponse(
        {"round": scored.to_json(), "tournament": view.to_json()},
        status_code=201,
    )
