"""The trainer's JSON API (``/api/trainer/...``): drills from the words a player missed.

A member's deck is kept by the server (:class:`~bigboggle.services.training.Training`, the
member known by the session cookie, :func:`~.auth.viewer`); a guest's deck is kept by their
browser, which sends it with each request together with the ids and keys of its games, and
gets it back scheduled (the server keeps nothing of a guest's). Bodies are JSON (415
otherwise), bounded before they are parsed (413), checked key by key (400 naming the key);
cross-site posts are refused by the app's guard like every state change. The work is small
(a deck of at most :data:`~bigboggle.limits.TRAINER_MAX_CARDS` cards, one bounded path search
per answer) and runs in a thread, off the event loop.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..limits import (
    CLAIM_BODY_BYTES,
    CLAIM_MAX_GAMES,
    MAX_ENTRY_LENGTH,
    MAX_KEY_LENGTH,
    SMALL_BODY_BYTES,
    TRAINER_DECK_BYTES,
)
from ..rules import PRESETS
from .account_pages import viewer_here
from .auth import require_member
from .inputs import error_answer, inline_body_schema, read_model
from .plumbing import JSONResponse, services

router = APIRouter(
    tags=["trainer"],
    responses={
        400: error_answer("Bad input: the message names what and where"),
        413: error_answer("The body is over the size limit"),
        415: error_answer("The body is not JSON"),
    },
)

#: A guest's request carries the deck and this browser's games: both bounded.
GUEST_BODY_BYTES = TRAINER_DECK_BYTES + CLAIM_BODY_BYTES
#: The longest an answer may say it took (seconds): longer counts as this.
MAX_ANSWER_SECONDS = 86_400.0


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class GuestGame(_Strict):
    """A solo game this browser played, with the key its start answered."""

    id: str = Field(min_length=1, max_length=16)
    key: str = Field(min_length=1, max_length=MAX_KEY_LENGTH)


class Answer(_Strict):
    """An answer to the drill of the card ``card`` (the drill's ``card``)."""

    card: str = Field(min_length=1, max_length=32)
    answer: str = Field(default="", max_length=MAX_ENTRY_LENGTH)
    #: How long the answer took, by the page's clock (only "quick or not" depends on it).
    seconds: float = Field(default=0.0, ge=0.0, allow_inf_nan=False)
    #: Whether the hint (the first letter) was shown before the answer.
    hinted: bool = False
    gave_up: bool = False


class GuestDeck(_Strict):
    """``POST /api/trainer/guest``: this browser's deck (``null`` for none yet) and games."""

    deck: dict[str, Any] | None = None
    games: list[GuestGame] = Field(default_factory=list, max_length=CLAIM_MAX_GAMES)


class GuestAnswer(Answer):
    """``POST /api/trainer/guest/answer``: an answer, with this browser's deck."""

    deck: dict[str, Any]


def _how_answered(asked: Answer) -> dict[str, Any]:
    """How a drill was answered, as both answer routes pass it to the service: the seconds it
    took, whether the hint was shown, whether the player gave up."""
    return {"seconds": _seconds(asked), "hinted": asked.hinted, "gave_up": asked.gave_up}


def _seconds(asked: Answer) -> float:
    return min(asked.seconds, MAX_ANSWER_SECONDS)


@router.get(
    "/api/trainer",
    summary="The member's trainer: their deck fed from their history, and the drill now",
    responses={401: error_answer("Not logged in: a guest's deck is their browser's")},
)
async def member_trainer(request: Request) -> JSONResponse:
    """Answers ``{"counts": {"cards", "due", "new", "learned", "next_due"}, "drill", "hint"}``
    (``drill`` ``null`` when nothing is due)."""
    member = await require_member(request)
    state = await run_in_threadpool(services(request).training.member_state, member.id)
    return JSONResponse(state.to_json())


@router.post(
    "/api/trainer/answer",
    summary="Answer the member's drill: judged, the card scheduled, the next drill",
    openapi_extra=inline_body_schema(Answer),
    responses={401: error_answer("Not logged in")},
)
async def member_answer(request: Request) -> JSONResponse:
    """Answers ``{"result": {"outcome", "answer", "word", "path", "message", "rating",
    "progress"}, "counts", "drill", "hint"}``."""
    asked = await read_model(request, Answer, limit=SMALL_BODY_BYTES)
    member = await require_member(request)
    view = await run_in_threadpool(
        services(request).training.member_answer,
        member.id,
        asked.card,
        asked.answer,
        **_how_answered(asked),
    )
    return JSONResponse(view.to_json())


@router.post(
    "/api/trainer/guest",
    summary="A guest's trainer: this browser's deck fed from its games, and the drill now",
    openapi_extra=inline_body_schema(GuestDeck),
)
async def guest_trainer(request: Request) -> JSONResponse:
    """Answers the member's shape with ``"deck"``: the deck for the browser to keep."""
    asked = await read_model(request, GuestDeck, limit=GUEST_BODY_BYTES)
    state = await run_in_threadpool(
        services(request).training.guest_state,
        asked.deck,
        [(game.id, game.key) for game in asked.games],
    )
    return JSONResponse(state.to_json())


@router.post(
    "/api/trainer/guest/answer",
    summary="Answer a guest's drill: judged, scheduled in the deck handed back",
    openapi_extra=inline_body_schema(GuestAnswer),
)
async def guest_answer(request: Request) -> JSONResponse:
    """Answers the member's shape with ``"deck"``: the deck for the browser to keep."""
    asked = await read_model(request, GuestAnswer, limit=TRAINER_DECK_BYTES)
    view = await run_in_threadpool(
        services(request).training.guest_answer,
        asked.deck,
        asked.card,
        asked.answer,
        **_how_answered(asked),
    )
    return JSONResponse(view.to_json())


# -- the page ------------------------------------------------------------------------------------

pages = APIRouter(include_in_schema=False)


@pages.get("/train", response_class=HTMLResponse)
def train_page(request: Request) -> Response:
    """The trainer's page: its script asks the API above for the drills (a member's deck, or
    this browser's); without scripts it says what it needs."""
    found = services(request)
    return found.templates.TemplateResponse(
        request,
        "train.html",
        {"viewer": viewer_here(request), "presets": PRESETS, "dictionaries": found.shelf.names},
    )
