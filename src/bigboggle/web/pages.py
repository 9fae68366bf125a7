"""The pages: rendered by the server (so a link reproduces a board and the pages read without
scripts), with small script modules for what needs them (paths drawn over the board, the timer,
word entry by tracing cells, the scorekeeper's form)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from ..board import Board
from ..dice import DICE_SETS, MAX_SEED
from ..errors import BoggleError, BudgetExceededError, BusyError, RulesError
from ..hints import HINT_COSTS, HINT_LABELS
from ..limits import MAX_SOLO_OPPONENTS
from ..opponents import Opponent
from ..rules import PRESETS, SCORING_TABLES, Rules
from ..services import jobs
from ..services.daily import check_date, utc_date
from ..services.rooms import strength_choices
from ..solver import Solution
from .account_pages import viewer_here
from .player_routes import utc_time
from .plumbing import own_view_headers, services
from .validation import WHOLE_NUMBER

router = APIRouter(include_in_schema=False)

Text = Annotated[str | None, Query(max_length=800)]
Name = Annotated[str | None, Query(max_length=40)]


def _page(request: Request, template: str, status: int = 200, **context: Any) -> Response:
    """``template`` rendered with ``context``, the presets, the dictionaries and the viewer
    (the header shows who is logged in). Called in a worker thread (a sync route, or
    ``run_in_threadpool``), never on the event loop: the viewer is read from the database."""
    found = services(request)
    if "viewer" not in context:
        context["viewer"] = viewer_here(request)
    context.setdefault("presets", PRESETS)
    context.setdefault("dictionaries", found.shelf.names)
    return found.templates.TemplateResponse(request, template, context, status_code=status)


#: The daily board the home page invites to (the default game's).
HOME_DAILY_RULES = "big"
#: The most daily games the home page counts (it reads the leaderboard, best first, no further).
HOME_DAILY_COUNT = 100


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    """The start: how to play, one-click solo play, today's daily board (how many played it
    and the best score so far: stored numbers only, nothing is solved) and recent games."""
    found = services(request)
    today = utc_date(found.clock())
    played = found.solo.leaderboard(HOME_DAILY_RULES, today, limit=HOME_DAILY_COUNT)
    return _page(
        request,
        "index.html",
        games=_public_recent(found.solo.recent(20), found.challenges.challenge_games, 10),
        tournaments=found.tournaments.recent(5),
        daily={
            "rules": HOME_DAILY_RULES,
            "title": PRESETS[HOME_DAILY_RULES].title,
            "date": today,
            "played": len(played),
            "more": len(played) >= HOME_DAILY_COUNT,
            "best": played[0] if played else None,
        },
    )


def _public_recent(games: list[Any], hidden: Any, count: int) -> list[Any]:
    """The first ``count`` of ``games`` that are no challenge's (``hidden(ids)`` names those):
    a challenge game's page shows its words, which the challenge keeps from those who have not
    played that round yet."""
    private = hidden(game.id for game in games)
    return [game for game in games if game.id not in private][:count]


@router.get("/solve", response_class=HTMLResponse)
async def solver(
    request: Request,
    board: Text = None,
    rules: Name = None,
    dictionary: Name = None,
    min_length: Annotated[str | None, Query(max_length=4)] = None,
) -> Response:
    """The solver: the board is in the URL, so a link shows the same words."""
    rules_name = rules or "big"
    solution: Solution | None = None
    place = None
    error = None
    shortest = None
    if min_length:
        if not re.fullmatch(r"[0-9]{1,2}", min_length):
            error = f"min_length={min_length!r} must be a whole number of letters"
        else:
            shortest = int(min_length)
    if board and error is None:
        found = services(request)
        try:
            ruleset = Rules.preset(rules_name)
            found.shelf.check(dictionary or ruleset.dictionary)  # an unknown name: at once
            solution, place = await found.pool.run(
                jobs.solve_with_standing, found.shelf.spec, board, rules_name, dictionary, shortest
            )
        except (BusyError, BudgetExceededError):
            raise  # the app answers 503 (with Retry-After when busy)
        except BoggleError as exc:
            error = str(exc)
    # A rich 12×12 board's page is over half a megabyte: rendered in a thread, not on the loop.
    return await run_in_threadpool(
        _page,
        request,
        "solve.html",
        status=400 if error else 200,
        board_text=board or "",
        rules_name=rules_name,
        dictionary_name=dictionary or "",
        min_length=shortest,
        solution=solution,
        place=place,
        error=error,
    )


@router.get("/score", response_class=HTMLResponse)
def scorekeeper(request: Request) -> Response:
    return _page(request, "score.html")


@router.get("/tournaments/{tournament_id}", response_class=HTMLResponse)
def tournament_page(
    request: Request, tournament_id: Annotated[str, Path(max_length=16)]
) -> Response:
    view = services(request).tournaments.get(tournament_id)
    return _page(request, "tournament.html", view=view, data=view.to_json())


@router.get("/play", response_class=HTMLResponse)
def play(
    request: Request,
    rules: Name = None,
    seed: Annotated[Annotated[int, Field(ge=0, le=MAX_SEED)] | None, WHOLE_NUMBER, Query()] = None,
    board: Text = None,
    dictionary: Name = None,
    advanced: bool = False,
    challenge: bool = False,
    family: bool = False,
    timer: Annotated[Annotated[int, Field(ge=5, le=3600)] | None, WHOLE_NUMBER, Query()] = None,
    code: Annotated[str | None, Query(max_length=80, description="RULES:SEED")] = None,
    opponents: Annotated[
        str | None, Query(max_length=200, description="strengths, comma-separated")
    ] = None,
    practice: bool = False,
    hints: bool = False,
) -> Response:
    """The solo game's settings (a replay link, or a board code like ``big:7``, fills them in)."""
    strengths = [name for name in (opponents or "").split(",") if name in Opponent.STRENGTHS]
    if code:
        preset, _, number = code.strip().rpartition(":")
        if (
            preset not in PRESETS
            or not re.fullmatch(r"[0-9]{1,19}", number)
            or int(number) > MAX_SEED
        ):
            raise RulesError(f"board code {code!r}: expected RULES:SEED, like big:12345")
        rules, seed = preset, int(number)
    if board:
        board = str(Board.parse(board))
    return _page(
        request,
        "play.html",
        replay={
            "rules": rules or "big",
            "seed": seed,
            "board": board,
            "dictionary": dictionary or "",
            "advanced": advanced,
            "challenge": challenge,
            "family": family,
            "timer": timer,
            "opponent_count": min(len(strengths), MAX_SOLO_OPPONENTS),
            "opponent_strength": strengths[0] if strengths else "club",
            "practice": practice,
            "hints": hints,
        },
        strengths=Opponent.STRENGTHS,
        max_opponents=MAX_SOLO_OPPONENTS,
        hint_costs=HINT_COSTS,
        hint_labels=HINT_LABELS,
    )


@router.get("/games/{game_id}", response_class=HTMLResponse)
def game_page(
    request: Request,
    game_id: Annotated[str, Path(max_length=16)],
    key: Annotated[str | None, Header(alias="X-Game-Key", max_length=100)] = None,
) -> Response:
    """A game: the board and clock while it runs, the results once it is over. Its player sees
    a private game (a challenge's round) whole: a member whose game it is by their session, a
    guest by its key (``X-Game-Key``: the sealed page's script fetches the page again with the
    key its browser holds, ``static/game.js``); anyone else sees it sealed."""
    viewer = viewer_here(request)
    view = services(request).solo.get(
        game_id, key, account_id=viewer.id if viewer is not None else None
    )
    response = _page(
        request,
        "game.html",
        viewer=viewer,
        view=view,
        data=view.to_json(),
        board=Board.parse(view.game.board),
        hint_labels=HINT_LABELS,
        utc_time=utc_time,
    )
    return own_view_headers(response, view)


@router.get("/daily", response_class=HTMLResponse)
def daily_page(request: Request, rules: Name = None, date: Name = None) -> Response:
    found = services(request)
    rules_name = rules or "big"
    Rules.preset(rules_name)
    today = utc_date(found.clock())
    day = check_date(date) if date else today
    return _page(
        request,
        "daily.html",
        rules_name=rules_name,
        day=day,
        today=today,
        leaderboard=found.solo.leaderboard(rules_name, day),
    )


@router.get("/rules", response_class=HTMLResponse)
def rules_page(request: Request) -> Response:
    return _page(
        request,
        "rules.html",
        dice_sets=DICE_SETS,
        tables=SCORING_TABLES,
        hint_costs=HINT_COSTS,
        hint_labels=HINT_LABELS,
    )


@router.get("/rooms", response_class=HTMLResponse)
def rooms_page(request: Request) -> Response:
    """Create a multiplayer room, or join one by its code."""
    return _page(request, "rooms.html")


@router.get("/rooms/{code}", response_class=HTMLResponse)
def room_page(request: Request, code: Annotated[str, Path(max_length=12)]) -> Response:
    """A room: join it, play its rounds, see the results."""
    room = services(request).rooms.public(code).to_json()
    return _page(request, "room.html", room=room, strengths=strength_choices())
