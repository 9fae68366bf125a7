"""The passkeys' JSON API (``/api/passkeys/...``): a member adds a passkey, lists and removes
theirs; anyone logs in with one.

Routes only translate (:class:`~bigboggle.services.passkeys.Passkeys` does the work, in the
thread pool: each call reads or writes the database, and a log-in checks a signature). Each
ceremony is two requests: ``.../options`` answers ``{"ceremony", "publicKey"}``, the options
for ``navigator.credentials.create()`` or ``.get()`` in WebAuthn's JSON form, and the second
request sends the ceremony's id back with the browser's answer
(``PublicKeyCredential.toJSON()``). Bodies are JSON (415 otherwise), at most
:data:`~bigboggle.limits.PASSKEY_BODY_BYTES` (413 past it, before parsing); the app's
cross-site guard (:class:`~.auth.CrossSiteGuard`) refuses every state change another site's
page makes the browser send.

Where the ceremony happens (origin and RP ID) is the operator's ``BIGBOGGLE_PUBLIC_ORIGIN`` if
set, else this request's scheme and ``Host``: right when browsers reach the server directly;
behind a reverse proxy that changes the host or the scheme, the operator must set it.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..errors import ThrottledError
from ..limits import (
    MAX_NAME_LENGTH,
    MAX_PASSKEY_LABEL,
    MAX_PASSWORD_BYTES,
    PASSKEY_BODY_BYTES,
    PASSKEY_LOGINS_PER_ADDRESS_MINUTE,
)
from ..services.accounts import Member
from ..services.login_throttle import address_key
from ..services.passkeys import RelyingParty
from . import auth
from .inputs import error_answer, inline_body_schema, read_model
from .plumbing import JSONResponse, services
from .room_guards import WindowLimit, client_address


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


_CEREMONY = Field(
    min_length=1, max_length=64, description="The ceremony's id, as its options answered it"
)
_CREDENTIAL = Field(
    description="The browser's answer: PublicKeyCredential.toJSON() (id, rawId, type, response "
    "with base64url fields)"
)


_CONFIRM = Field(
    None,
    max_length=MAX_PASSWORD_BYTES,
    description="The member's password: needed unless this session logged in within the "
    "last few minutes (RECENT_AUTH_SECONDS)",
)


class RegistrationOptionsRequest(_Strict):
    """``POST /api/passkeys/register/options``: ``{}`` within a few minutes of a log-in, else
    the member's password (a stolen older session cannot add a passkey)."""

    password: str | None = _CONFIRM


class PasskeyRemoval(_Strict):
    """``DELETE /api/passkeys/ID`` (the body is optional): the member's password, needed
    unless this session logged in within the last few minutes."""

    password: str | None = _CONFIRM


class NewPasskey(_Strict):
    """``POST /api/passkeys/register``: the ceremony, the answer of
    ``navigator.credentials.create()``, and what to call the passkey."""

    ceremony: str = _CEREMONY
    credential: dict[str, Any] = _CREDENTIAL
    label: str = Field(
        "",
        max_length=MAX_PASSKEY_LABEL * 4,
        description=f"What to call it ('phone'), at most {MAX_PASSKEY_LABEL} characters; "
        "blank: 'passkey'",
    )


class LoginOptionsRequest(_Strict):
    """``POST /api/passkeys/login/options``: no name (any passkey of this site, the browser
    offers the ones it holds), or a member's name (their passkeys only)."""

    username: str | None = Field(None, max_length=MAX_NAME_LENGTH * 4)


class PasskeyLogin(_Strict):
    """``POST /api/passkeys/login``: the ceremony and the answer of
    ``navigator.credentials.get()``."""

    ceremony: str = _CEREMONY
    credential: dict[str, Any] = _CREDENTIAL


COMMON: dict[int | str, dict[str, Any]] = {
    400: error_answer(
        "Bad input: the message names the key at fault, or why the passkey was refused"
    ),
    403: error_answer("Refused: the request came from another site (Origin or Referer)"),
    413: error_answer(f"The body is over {PASSKEY_BODY_BYTES:,} bytes"),
    415: error_answer("The body is not JSON (Content-Type: application/json)"),
}
NOT_LOGGED_IN = error_answer("No live session cookie")
OPTIONS = {"description": '{"ceremony": ID, "publicKey": {...WebAuthn options as JSON}}'}
PasskeyId = Annotated[int, Path(ge=1, le=2**31 - 1, description="A passkey's id (from the list)")]

router = APIRouter(prefix="/api/passkeys", tags=["passkeys"], responses=COMMON)


def party(request: Request) -> RelyingParty:
    """Where this request's ceremony happens (see the module's docstring)."""
    host = request.headers.get("host", "")
    return services(request).passkeys.party_for(f"{request.url.scheme}://{host}")


def login_limit(request: Request) -> WindowLimit:
    """The app's per-address limit on passkey log-in ceremonies (one per app, made on first
    use): a stranger's ceremonies cost a row each, and the server keeps a bounded number, so
    no one address may take them all."""
    state = request.app.state
    limit: WindowLimit | None = getattr(state, "passkey_login_limit", None)
    if limit is None:
        limit = WindowLimit(PASSKEY_LOGINS_PER_ADDRESS_MINUTE, 60.0, services(request).clock)
        state.passkey_login_limit = limit
    return limit


async def _confirm_recent(request: Request, member: Member, password: str | None) -> None:
    """Pass if ``member`` logged in within the last few minutes or ``password`` is theirs (a
    hash: through the hash gate); else 401 saying how to confirm."""
    accounts = services(request).accounts
    if password is None:
        await run_in_threadpool(accounts.confirm_recent, member)
    else:
        address = client_address(request.scope.get("client"))
        await auth.hashing(request, accounts.confirm_recent, member, password, address=address)


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post(
    "/register/options",
    summary="Start adding a passkey: options for navigator.credentials.create()",
    openapi_extra=inline_body_schema(RegistrationOptionsRequest),
    responses={
        200: OPTIONS,
        401: error_answer("No live session, or no recent log-in and no (right) password"),
        409: error_answer("The member has as many passkeys as an account may"),
    },
)
async def registration_options(request: Request) -> Response:
    # The body first: a request that is not JSON is a 415 whoever sends it, as everywhere.
    asked = await read_model(request, RegistrationOptionsRequest, PASSKEY_BODY_BYTES)
    member = await auth.require_member(request)
    await _confirm_recent(request, member, asked.password)
    found = services(request).passkeys
    ceremony = await run_in_threadpool(found.registration_options, member, party(request))
    return _no_store(JSONResponse(ceremony.to_json()))


@router.post(
    "/register",
    status_code=201,
    summary="Add the passkey the browser made: it is listed, and logs the member in from now on",
    openapi_extra=inline_body_schema(NewPasskey),
    responses={
        201: {"description": '{"id", "label", "created_at", "last_used", "transports"}'},
        401: NOT_LOGGED_IN,
        409: error_answer(
            "This passkey is registered already, or the member has as many as allowed"
        ),
    },
)
async def register(request: Request) -> Response:
    asked = await read_model(request, NewPasskey, PASSKEY_BODY_BYTES)
    member = await auth.require_member(request)
    found = services(request).passkeys
    view = await run_in_threadpool(
        found.register, member, party(request), asked.ceremony, asked.credential, asked.label
    )
    return _no_store(JSONResponse(view.to_json(), status_code=201))


@router.post(
    "/login/options",
    summary="Start logging in with a passkey: options for navigator.credentials.get()",
    openapi_extra=inline_body_schema(LoginOptionsRequest),
    responses={
        200: OPTIONS,
        429: error_answer("Too many passkey log-ins from the address (Retry-After)"),
    },
)
async def login_options(request: Request) -> Response:
    asked = await read_model(request, LoginOptionsRequest, PASSKEY_BODY_BYTES)
    # Counted per address as the log-in throttle counts them: an IPv6 /64 is one address.
    address = address_key(client_address(request.scope.get("client"))) or "unknown"
    wait = login_limit(request).hit(address)
    if wait is not None:
        raise ThrottledError(
            f"more than {PASSKEY_LOGINS_PER_ADDRESS_MINUTE} passkey log-ins from this address "
            f"in a minute; try again in {math.ceil(wait)} s",
            retry_after=math.ceil(wait),
        )
    found = services(request).passkeys
    ceremony = await run_in_threadpool(found.login_options, party(request), asked.username)
    return _no_store(JSONResponse(ceremony.to_json()))


@router.post(
    "/login",
    summary="Log in with the passkey's answer: a fresh session (the cookie is set; any earlier "
    "session of this browser ends)",
    openapi_extra=inline_body_schema(PasskeyLogin),
    responses={
        200: {"description": "The member's account, as GET /api/me shows it"},
        401: error_answer(
            "The passkey was refused (unknown, another site's, a used or expired "
            "ceremony, a bad signature, a counter that went back)"
        ),
    },
)
async def log_in(request: Request) -> Response:
    asked = await read_model(request, PasskeyLogin, PASSKEY_BODY_BYTES)
    found = services(request)
    new = await run_in_threadpool(
        found.passkeys.log_in, party(request), asked.ceremony, asked.credential
    )
    old = request.cookies.get(auth.SESSION_COOKIE)
    if old:  # the browser's earlier session ends: one browser, one session
        await run_in_threadpool(found.accounts.log_out, old)
    overview = await run_in_threadpool(found.accounts.overview, new.member)
    response = JSONResponse(overview.to_json())
    auth.set_session_cookie(response, new, request)
    auth.set_device_cookie(response, new, request)
    return _no_store(response)


@router.get(
    "",
    summary="The member's passkeys, oldest first",
    responses={
        200: {
            "description": '{"passkeys": [{"id", "label", "created_at", "last_used", '
            '"transports"}]}'
        },
        401: NOT_LOGGED_IN,
    },
)
async def list_passkeys(request: Request) -> Response:
    member = await auth.require_member(request)
    views = await run_in_threadpool(services(request).passkeys.list, member)
    return _no_store(JSONResponse({"passkeys": [view.to_json() for view in views]}))


@router.delete(
    "/{passkey_id:int}",
    status_code=204,
    summary="Remove one of the member's passkeys (it logs no one in any more); needs a log-in "
    "within the last few minutes, or the password in the (optional) body",
    openapi_extra={
        "requestBody": {
            "required": False,
            "content": {"application/json": {"schema": PasskeyRemoval.model_json_schema()}},
        }
    },
    responses={
        204: {"description": "Removed"},
        401: error_answer("No live session, or no recent log-in and no (right) password"),
        404: error_answer("The member has no such passkey"),
        409: error_answer("The last passkey of an account without a password"),
    },
)
async def remove_passkey(request: Request, passkey_id: PasskeyId) -> Response:
    password = None
    if request.headers.get("content-length", "0") != "0" or "transfer-encoding" in request.headers:
        password = (await read_model(request, PasskeyRemoval, PASSKEY_BODY_BYTES)).password
    member = await auth.require_member(request)
    await _confirm_recent(request, member, password)
    await run_in_threadpool(services(request).passkeys.remove, member, passkey_id)
    return Response(status_code=204)
