"""The accounts' JSON API: sign up, log in and out, the member's own account, its export, a
new password, and deleting it.

Routes only translate (:class:`~bigboggle.services.accounts.Accounts` does the work). Every
call that hashes a password runs in a thread through the app's hash gate
(:func:`~.auth.hashing`: 503 Busy past it); a log-in asks the throttle first, so a throttled
attempt queues for nothing and hashes nothing. The session cookie is set and cleared by
:mod:`.auth`; bodies are JSON objects (415 for any other type, 413 past
:data:`~bigboggle.limits.SMALL_BODY_BYTES`), and no answer or message ever holds a password (a
validation error about a password field says what is wrong, not what was sent).
"""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from ..limits import MAX_ACCOUNT_NAME, MAX_PASSWORD_BYTES, SMALL_BODY_BYTES
from . import auth
from .inputs import ApiError, error_answer, inline_body_schema, read_json
from .plumbing import JSONResponse, services
from .room_guards import client_address
from .validation import describe_validation

Model = TypeVar("Model", bound=BaseModel)

#: Fields whose values an error message must never show.
SECRET_FIELDS = frozenset({"password", "old", "new"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


_USERNAME = Field(
    min_length=1,
    max_length=MAX_ACCOUNT_NAME * 4,
    description="3-24 characters: letters A-Z, digits, single spaces, _ - . between them",
    examples=["ann_reads"],
)
#: The service bounds a password (MAX_PASSWORD_BYTES of UTF-8) with a message naming the rule;
#: the model only keeps it text of a bounded length: MAX_PASSWORD_BYTES characters (none has
#: fewer than one byte), so that even a body one character past it in every field, each
#: character written as a six-byte JSON escape, stays under the body limit and is answered 400
#: naming the field rather than 413.
_PASSWORD = Field(
    max_length=MAX_PASSWORD_BYTES,
    description=f"At least 10 characters, at most {MAX_PASSWORD_BYTES} bytes of UTF-8, not "
    "containing the user name, not a common password",
    examples=["correct horse battery staple"],
)


class Credentials(_Strict):
    """``POST /api/account`` and ``POST /api/session``: a user name and its password."""

    username: str = _USERNAME
    password: str = _PASSWORD


class PasswordConfirmation(_Strict):
    """``DELETE /api/me``: the member's password, to say they mean it; or no password
    (``null`` or left out) if this session logged in by passkey within the last few minutes
    (a member without a password, or who forgot it)."""

    password: str | None = Field(
        None,
        max_length=MAX_PASSWORD_BYTES,
        description="The member's password; may be left out only by a session that logged in "
        "with a passkey within the last few minutes",
    )


class PasswordChange(_Strict):
    """``POST /api/me/password``: the current password and the new one; passkeys stay unless
    ``remove_passkeys`` (a thief's session may have added one)."""

    old: str = _PASSWORD
    new: str = _PASSWORD
    remove_passkeys: bool = Field(
        False, description="Also remove every passkey of the account (they stay otherwise)"
    )


COMMON: dict[int | str, dict[str, Any]] = {
    400: error_answer(
        "Bad input: the message names the key, or the rule a name or password breaks"
    ),
    403: error_answer("Refused: the request came from another site (Origin or Referer)"),
    413: error_answer("The body is over the size limit"),
    415: error_answer("The body is not JSON (Content-Type: application/json)"),
}
NOT_LOGGED_IN = error_answer("No live session cookie")
THROTTLED = error_answer("Too many failed log-ins for the name or from the address (Retry-After)")
BUSY = error_answer("Too many passwords being checked at once (Retry-After)")

router = APIRouter(prefix="/api", tags=["accounts"], responses=COMMON)


async def read_secret_model(request: Request, model: type[Model]) -> Model:
    """The body checked against ``model`` (as :func:`~.inputs.read_model`), but an error about
    a password field never quotes what was sent."""
    data = await read_json(request, SMALL_BODY_BYTES)
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiError(400, _describe(exc)) from None


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    location = [part for part in first.get("loc", ()) if part != "body"]
    if location and location[0] in SECRET_FIELDS:
        field = location[0]
        kind = first.get("type", "")
        if kind == "missing":
            return f"{field}: is missing"
        if kind == "string_too_long":
            return f"{field}: longer than {MAX_PASSWORD_BYTES} bytes of UTF-8"
        return f"{field}: must be text"
    return describe_validation(exc)


def _address(request: Request) -> str:
    return client_address(request.scope.get("client"))


async def _end_earlier_session(request: Request) -> None:
    """End the session the browser had before this log-in or sign-up (one browser, one
    session: the old token is dead whatever it was)."""
    old = request.cookies.get(auth.SESSION_COOKIE)
    if old:
        await run_in_threadpool(services(request).accounts.log_out, old)


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


async def _overview(request: Request, member: Any) -> dict[str, Any]:
    accounts = services(request).accounts
    overview = await run_in_threadpool(accounts.overview, member)
    result: dict[str, Any] = overview.to_json()
    return result


@router.post(
    "/account",
    status_code=201,
    summary="Sign up: a new member, logged in (the cookie is set; the browser's earlier "
    "session ends)",
    openapi_extra=inline_body_schema(Credentials),
    responses={
        201: {"description": "The new member's account, as GET /api/me shows it"},
        409: error_answer("A member has this name (or one that looks the same)"),
        429: THROTTLED,
        503: BUSY,
    },
)
async def sign_up(request: Request) -> Response:
    asked = await read_secret_model(request, Credentials)
    accounts = services(request).accounts
    new = await auth.hashing(
        request, accounts.sign_up, asked.username, asked.password, _address(request)
    )
    await _end_earlier_session(request)
    response = JSONResponse(await _overview(request, new.member), status_code=201)
    auth.set_session_cookie(response, new, request)
    auth.set_device_cookie(response, new, request)
    return _no_store(response)


@router.post(
    "/session",
    summary="Log in: a fresh session (the cookie is set; any earlier session of this browser ends)",
    openapi_extra=inline_body_schema(Credentials),
    responses={
        200: {"description": "The member's account, as GET /api/me shows it"},
        401: error_answer("Wrong user name or password (the same answer for either)"),
        429: THROTTLED,
        503: BUSY,
    },
)
async def log_in(request: Request) -> Response:
    asked = await read_secret_model(request, Credentials)
    accounts = services(request).accounts
    address = _address(request)
    device = request.cookies.get(auth.DEVICE_COOKIE)
    # Throttled? A cheap read before the hash gate: a refused attempt queues for nothing.
    await run_in_threadpool(accounts.check_throttle, asked.username, address=address, device=device)
    new = await auth.hashing(
        request, accounts.log_in, asked.username, asked.password, address, device=device
    )
    await _end_earlier_session(request)
    response = JSONResponse(await _overview(request, new.member))
    auth.set_session_cookie(response, new, request)
    auth.set_device_cookie(response, new, request)
    return _no_store(response)


@router.delete(
    "/session",
    status_code=204,
    summary="Log out: this browser's session ends and its cookie is cleared",
    responses={204: {"description": "Logged out (also when there was no session)"}},
)
async def log_out(request: Request) -> Response:
    token = request.cookies.get(auth.SESSION_COOKIE)
    if token:
        await run_in_threadpool(services(request).accounts.log_out, token)
    response = Response(status_code=204)
    auth.clear_session_cookie(response, request)
    return response


@router.get(
    "/me",
    summary="The member asking: name, ratings per preset family, games played, passkeys",
    responses={
        200: {
            "description": '{"username", "ratings": {FAMILY: {"mu", "sigma", "display", '
            '"games"}}, "games", "created_at", "has_password", "method", "passkeys", "sessions"}'
        },
        401: NOT_LOGGED_IN,
    },
)
async def me(request: Request) -> Response:
    member = await auth.require_member(request)
    return _no_store(JSONResponse(await _overview(request, member)))


@router.delete(
    "/me",
    summary="Delete the account (with its password, or after a passkey log-in in the last few "
    "minutes): sessions, passkeys, history, ratings, solo games; room seats become a guest's",
    openapi_extra=inline_body_schema(PasswordConfirmation),
    responses={
        200: {"description": '{"deleted": USERNAME}; the cookie is cleared'},
        401: error_answer(
            "No live session, or the password is wrong, or none and no recent passkey log-in "
            "(nothing was deleted)"
        ),
        429: THROTTLED,
        503: BUSY,
    },
)
async def delete_me(request: Request) -> Response:
    asked = await read_secret_model(request, PasswordConfirmation)  # 415 before 401
    member = await auth.require_member(request)
    accounts = services(request).accounts
    if asked.password is None:  # a recent passkey log-in instead: nothing to hash
        await run_in_threadpool(accounts.delete, member, None, address=_address(request))
    else:
        await auth.hashing(
            request, accounts.delete, member, asked.password, address=_address(request)
        )
    response = JSONResponse({"deleted": member.username})
    auth.clear_session_cookie(response, request)
    return _no_store(response)


@router.get(
    "/me/export",
    summary="Everything the server holds about the member, as a JSON file",
    responses={
        200: {
            "description": "account, sessions, passkeys, plays, missed_words, ratings, "
            "rating_events, solo_games (with words), room_seats"
        },
        401: NOT_LOGGED_IN,
    },
)
async def export_me(request: Request) -> Response:
    member = await auth.require_member(request)
    data = await run_in_threadpool(services(request).accounts.export, member)
    response = JSONResponse(data)
    filename = "".join(c if c.isalnum() or c in "-_." else "_" for c in member.username)
    response.headers["Content-Disposition"] = f'attachment; filename="bigboggle-{filename}.json"'
    return _no_store(response)


@router.post(
    "/me/password",
    summary="A new password: every session of the member ends; this browser gets a fresh one. "
    "Passkeys stay, unless remove_passkeys",
    openapi_extra=inline_body_schema(PasswordChange),
    responses={
        200: {"description": "The member's account, as GET /api/me shows it"},
        401: error_answer("No live session, or the current password is wrong"),
        429: THROTTLED,
        503: BUSY,
    },
)
async def change_password(request: Request) -> Response:
    asked = await read_secret_model(request, PasswordChange)  # 415 before 401
    member = await auth.require_member(request)
    accounts = services(request).accounts
    new = await auth.hashing(
        request,
        accounts.change_password,
        member,
        asked.old,
        asked.new,
        address=_address(request),
        remove_passkeys=asked.remove_passkeys,
    )
    response = JSONResponse(await _overview(request, new.member))
    auth.set_session_cookie(response, new, request)
    return _no_store(response)
