"""Multiplayer rooms over HTTP: ``POST /api/rooms`` creates one (at most
``rooms_per_address_hour`` from one address: 429 with ``Retry-After``), and a room and its
scored rounds can be read by anyone.

Playing is the WebSocket's (:mod:`.room_socket`), the limits are :mod:`.room_guards`' and the
rounds' deadlines :mod:`.room_timers`'; the library's :class:`~bigboggle.services.rooms.Rooms`
does the game.
"""

from __future__ import annotations

import math
from typing import Annotated

from fastapi import APIRouter, Path, Request
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from ..names import clean_name
from ..services.rooms import MAX_CODE_TYPED
from .auth import viewer
from .inputs import ErrorBody, NewRoom, body_schema, read_model
from .plumbing import JSONResponse, services
from .room_guards import client_address
from .validation import WHOLE_NUMBER

router = APIRouter(
    tags=["rooms"],
    responses={
        400: {"model": ErrorBody, "description": "Bad input: the message names what and where"},
        413: {"model": ErrorBody, "description": "The body is over the size limit"},
        415: {"model": ErrorBody, "description": "The body is not JSON"},
    },
)


@router.post(
    "/api/rooms",
    status_code=201,
    summary="Create a multiplayer room; the host is seated and gets a resume token",
    openapi_extra=body_schema(NewRoom),
    responses={429: {"model": ErrorBody, "description": "Too many rooms from this address"}},
)
async def create_room(request: Request) -> JSONResponse:
    found = services(request)
    guards = found.room_guards
    wait = guards.creations.hit(client_address(request.scope.get("client")))
    if wait is not None:
        found.metrics.refused("too_many_rooms")
        per_hour = guards.limits.rooms_per_address_hour
        return JSONResponse(
            {
                "error": f"too many rooms created from your address (at most {per_hour} an "
                f"hour); try again in {math.ceil(wait)} s"
            },
            status_code=429,
            headers={"Retry-After": str(math.ceil(wait))},
        )
    asked = await read_model(request, NewRoom)
    rooms = found.rooms
    host = clean_name(asked.host, "host")
    member = await viewer(request)
    account_id = member.id if member is not None else None
    code, token = await run_in_threadpool(rooms.create, host, asked.settings, account_id)
    return JSONResponse(
        {"room": code, "token": token, "url": f"/rooms/{code}", "host": host}, status_code=201
    )


@router.get(
    "/api/rooms/{code}",
    summary="A room's public state: settings, players, host, totals",
    responses={404: {"model": ErrorBody}},
)
def room_info(
    request: Request, code: Annotated[str, Path(max_length=MAX_CODE_TYPED)]
) -> JSONResponse:
    rooms = services(request).rooms
    return JSONResponse(rooms.public(code).to_json())


@router.get(
    "/api/rooms/{code}/rounds/{number}",
    summary="One scored round of a room, as every player saw it at the end (public)",
    responses={404: {"model": ErrorBody}},
)
def room_round(
    request: Request,
    code: Annotated[str, Path(max_length=MAX_CODE_TYPED)],
    number: Annotated[Annotated[int, Field(ge=1, le=1_000_000)], WHOLE_NUMBER, Path()],
) -> JSONResponse:
    rooms = services(request).rooms
    return JSONResponse(rooms.round_result(code, number).to_json())
