"""``POST /api/me/claim``: the guest games this browser played become the logged-in member's.

The page that has just signed up or logged in (``static/claim.js``) sends the keys of the solo
games and the tokens of the room seats this browser holds; the service
(:class:`~bigboggle.services.claims.Claims`) does the rest. Only a member may claim (401
otherwise); the body is JSON (415 otherwise), at most
:data:`~bigboggle.limits.CLAIM_BODY_BYTES` (413 past it, before it is parsed) and at most
:data:`~bigboggle.limits.CLAIM_MAX_GAMES` games and :data:`~bigboggle.limits.CLAIM_MAX_SEATS`
seats (400). Cross-site posts are refused by the app's guard like every state change.

A claim may carry the browser's guest trainer deck too (``trainer_deck``: then the body may be
:data:`~bigboggle.limits.TRAINER_DECK_BYTES` longer); it is checked whole, as the guest trainer
routes check it (400 naming the card and key), and merged into the member's deck before the
games change hands (:meth:`~bigboggle.services.training.Training.merge_guest_deck`); the answer
then says how many of its cards the member's deck holds (``cards``) and how many did not fit,
the member's deck being full (``left_out``); the browser drops its copy only when none was
left out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..limits import (
    CLAIM_BODY_BYTES,
    CLAIM_MAX_GAMES,
    CLAIM_MAX_SEATS,
    MAX_KEY_LENGTH,
    TRAINER_DECK_BYTES,
)
from ..services.claims import ClaimCounts
from .auth import require_member
from .inputs import ErrorBody, read_model
from .plumbing import JSONResponse, Services, services

router = APIRouter(
    tags=["accounts"],
    responses={
        400: {"model": ErrorBody, "description": "Bad input: the message names what and where"},
        401: {"model": ErrorBody, "description": "Not logged in"},
        413: {"model": ErrorBody, "description": "The body is over the size limit"},
        415: {"model": ErrorBody, "description": "The body is not JSON"},
    },
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ClaimedGame(_Strict):
    """A solo game this browser started as a guest, with the key its start answered."""

    id: str = Field(min_length=1, max_length=16)
    key: str = Field(min_length=1, max_length=MAX_KEY_LENGTH)


class Claim(_Strict):
    """``POST /api/me/claim``: guest games (``{"id", "key"}``) and room seats (tokens)."""

    games: list[ClaimedGame] = Field(default_factory=list, max_length=CLAIM_MAX_GAMES)
    seats: list[Annotated[str, Field(min_length=10, max_length=100)]] = Field(
        default_factory=list, max_length=CLAIM_MAX_SEATS
    )
    #: This browser's guest trainer deck (``{"version", "cards"}``), to merge into the
    #: member's.
    trainer_deck: dict[str, Any] | None = None


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (pydantic's) with its ``$defs`` written in place of their references, so
    the OpenAPI document can carry it inline."""
    definitions = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return walk(definitions[ref.removeprefix("#/$defs/")])
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(value) for value in node]
        return node

    inlined: dict[str, Any] = walk(schema)
    return inlined


@router.post(
    "/api/me/claim",
    summary="Make this browser's guest games and room seats the logged-in member's",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _inlined(Claim.model_json_schema())}},
        }
    },
)
async def claim(request: Request) -> JSONResponse:
    """Answers ``{"games": n, "seats": n, "refused": n}``: how many became the member's, and
    how many were refused (a wrong key or token, unknown, or already another member's); with
    ``"cards": n, "left_out": n`` when the claim carried a ``trainer_deck`` (its cards now in
    the member's deck, and those that did not fit: the member's deck was full)."""
    asked = await read_model(request, Claim, limit=CLAIM_BODY_BYTES + TRAINER_DECK_BYTES)
    member = await require_member(request)
    counts = await run_in_threadpool(_adopt, services(request), member.id, asked)
    return JSONResponse(counts.to_json())


def _adopt(found: Services, account_id: int, asked: Claim) -> ClaimCounts:
    """The claim made: the trainer deck first (a deck that is not one refuses the claim before
    anything changes), then the games and seats."""
    merged = None
    if asked.trainer_deck is not None:
        merged = found.training.merge_guest_deck(account_id, asked.trainer_deck)
    counts = found.claims.adopt(
        account_id, [(game.id, game.key) for game in asked.games], asked.seats
    )
    if merged is None:
        return counts
    return replace(counts, cards=merged.carried, left_out=merged.left_out)
