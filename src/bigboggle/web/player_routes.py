"""Profiles and leaderboards over HTTP: ``GET /api/players/NAME``, ``GET /api/leaderboard``,
and their pages ``/players/NAME`` and ``/leaderboard`` (server-rendered, charts as inline SVG,
readable without scripts; the leaderboard's preset and period are links and a GET form).

Every route only reads, and reads in the thread pool (the database is never asked on the
event loop); path and query inputs are bounded before a service sees them. A member viewing
their own profile gets its private part (their last plays), and anyone logged in sees their
own row on a leaderboard even below the rows shown.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from ..errors import BoggleError, RoundInputError, RulesError
from ..limits import LEADERBOARD_ROWS, MAX_NAME_LENGTH
from ..names import clean_name, name_key
from ..rules import PRESETS
from ..services.accounts import Member
from ..services.leaderboards import PERIODS, LeaderboardView, check_period, profile_path
from ..services.profiles import MISSED_NOTE, ProfileView
from . import charts
from .auth import viewer
from .plumbing import JSONResponse, services
from .validation import WHOLE_NUMBER

router = APIRouter()

#: A name in a URL: a member's name is at most 40 characters once normalised; room for the
#: forms that normalise shorter, no more.
PlayerName = Annotated[
    str, Path(min_length=1, max_length=4 * MAX_NAME_LENGTH, description="A member's name")
]
RulesName = Annotated[str, Query(max_length=40, description="A rules preset")]
Period = Annotated[str, Query(max_length=8, description="day, week or all")]
Limit = Annotated[
    Annotated[int, Field(ge=1, le=LEADERBOARD_ROWS)],
    WHOLE_NUMBER,
    Query(description="Rows to list"),
]

NOT_FOUND: dict[int | str, dict[str, Any]] = {
    400: {"description": "A name longer than any member's, named"},
    404: {"description": "No member has that name"},
}
BAD_INPUT: dict[int | str, dict[str, Any]] = {
    400: {"description": "An unknown preset or period, named"}
}


#: A response of any class: :func:`_for_viewer` gives back what it was given.
Answer = TypeVar("Answer", bound=Response)


def _for_viewer(response: Answer, member: Member | None) -> Answer:
    """``response`` marked as depending on the cookie: a member's answer (their own profile's
    private part, their own row on a leaderboard) is never kept by a shared cache, and no cache
    answers a guest with a member's copy or the other way round."""
    response.headers["Vary"] = "Cookie"
    if member is not None:
        response.headers["Cache-Control"] = "private, no-store"
    return response


def _is_own(member: Member | None, name: str) -> bool:
    """Whether ``name`` (from the URL) is the asking member's own (compared by name key)."""
    if member is None:
        return False
    try:
        return name_key(member.username) == name_key(clean_name(name))
    except BoggleError:
        return False


@router.get(
    "/api/players/{name:path}",
    summary="A member's public profile (their own, with their last plays, when it is theirs)",
    responses=NOT_FOUND,
    tags=["players"],
)
async def player(request: Request, name: PlayerName) -> JSONResponse:
    member = await viewer(request)
    found = services(request)
    view = await run_in_threadpool(found.profiles.profile, name, own=_is_own(member, name))
    return _for_viewer(JSONResponse(view.to_json()), member)


@router.get(
    "/api/leaderboard",
    summary="A preset's leaderboard: today's daily board, this week's, or all time by rating",
    responses=BAD_INPUT,
    tags=["players"],
)
async def leaderboard(
    request: Request, rules: RulesName = "big", period: Period = "day", limit: Limit = 50
) -> JSONResponse:
    member = await viewer(request)
    found = services(request)
    view = await run_in_threadpool(
        found.leaderboards.board,
        rules,
        period,
        viewer_id=member.id if member else None,
        limit=limit,
    )
    return _for_viewer(JSONResponse(view.to_json()), member)


# -- pages ------------------------------------------------------------------------------------


def utc_day(seconds: float) -> str:
    """A time (seconds since the epoch) as its UTC date, ``2026-09-21``."""
    return dt.datetime.fromtimestamp(seconds, tz=dt.UTC).strftime("%Y-%m-%d")


def utc_time(seconds: float) -> str:
    """A time as its UTC date and minute, ``2026-09-21 21:33``."""
    return dt.datetime.fromtimestamp(seconds, tz=dt.UTC).strftime("%Y-%m-%d %H:%M")


def percent(share: float | None) -> str:
    """A share (0 to 1) as a percentage with one decimal, ``–`` for none."""
    return "–" if share is None else f"{100 * share:.1f}%"


#: What the two pages' templates call (formats and links; Jinja escapes what they return).
HELPERS = {
    "utc_day": utc_day,
    "percent": percent,
    "utc_time": utc_time,
    "profile_path": profile_path,
    "missed_note": MISSED_NOTE,
}


def _render(request: Request, template: str, status: int = 200, **context: Any) -> Response:
    found = services(request)
    return found.templates.TemplateResponse(
        request, template, {**HELPERS, **context}, status_code=status
    )


def profile_charts(view: ProfileView) -> dict[str, Any]:
    """The profile's charts: the weekly mean score and share, the calendar, and each family's
    rating history."""
    weeks = [charts.Point(week.week[5:], week.mean_score) for week in view.weekly]
    shares = [charts.Point(week.week[5:], week.mean_share) for week in view.weekly]
    played = sum(1 for week in view.weekly if week.games)
    ratings = [
        (
            rating.family,
            charts.line_chart(
                f"rating-{rating.family.replace('x', '-')}",
                [
                    charts.Point(f"#{n + 1}", point.display)
                    for n, point in enumerate(rating.history)
                ],
                title=f"{view.name}'s {rating.family} rating, last {len(rating.history)} changes",
                desc=(
                    f"Now {rating.display:,.0f} after {rating.games} rated games; the table "
                    "below lists each change."
                ),
            ),
        )
        for rating in view.ratings
    ]
    return {
        "score_chart": charts.line_chart(
            "weekly-score",
            weeks,
            title=f"{view.name}'s mean score per week, last {len(weeks)} weeks",
            desc=f"{played} of these weeks have games; the table below lists each week.",
        ),
        "share_chart": charts.line_chart(
            "weekly-share",
            shares,
            title=f"{view.name}'s mean share of the board's points per week",
            desc="The share of the board's points found, averaged per week.",
            percent=True,
        ),
        "calendar": charts.calendar(
            "daily-calendar",
            [charts.Day(day.date, day.best) for day in view.daily.calendar],
            title=f"{view.name}'s daily boards, last {len(view.daily.calendar)} days",
            desc=(
                f"{sum(1 for day in view.daily.calendar if day.played)} days played; current "
                f"streak {view.daily.current_streak}, longest {view.daily.longest_streak}."
            ),
        ),
        "rating_charts": ratings,
    }


def _profile_page(request: Request, view: ProfileView) -> Response:
    return _render(request, "players.html", profile=view, presets=PRESETS, **profile_charts(view))


@router.get("/players/{name:path}", response_class=HTMLResponse, include_in_schema=False)
async def player_page(request: Request, name: PlayerName) -> Response:
    """A member's profile page (404 page for no such member)."""
    member = await viewer(request)
    found = services(request)
    view = await run_in_threadpool(found.profiles.profile, name, own=_is_own(member, name))
    return _for_viewer(await run_in_threadpool(_profile_page, request, view), member)


def _leaderboard_page(
    request: Request, view: LeaderboardView | None, error: str | None
) -> Response:
    return _render(
        request,
        "leaderboard.html",
        status=400 if error else 200,
        board=view,
        error=error,
        presets=PRESETS,
        periods=PERIODS,
    )


@router.get("/leaderboard", response_class=HTMLResponse, include_in_schema=False)
async def leaderboard_page(
    request: Request, rules: RulesName = "big", period: Period = "day"
) -> Response:
    """The leaderboard page; a bad preset or period is a 400 page that names it, with the
    choices still there."""
    member = await viewer(request)
    found = services(request)
    error = None
    view = None
    try:
        check_period(period)
        view = await run_in_threadpool(
            found.leaderboards.board, rules, period, viewer_id=member.id if member else None
        )
    except (RulesError, RoundInputError) as exc:
        error = str(exc)
    return _for_viewer(await run_in_threadpool(_leaderboard_page, request, view, error), member)
