"""The pages a person has an account with: ``/signup``, ``/login``, ``/account`` (change the
password, log out, export, delete) and the delete step ``/account/delete``.

Every page works without JavaScript: its forms are real HTML form posts to the routes here,
checked by the CSRF token of :mod:`.auth` (and its cross-site guard), answered by a ``303``
redirect on success (the session cookie set) or the page again with the message beside the
field it concerns. With JavaScript, ``static/account.js`` sends the sign-up and log-in forms to
the JSON API instead (``POST /api/account``, ``POST /api/session``) so that it can hand the
browser's guest games to the new member (``static/claim.js``) before it moves on.

After logging in, a person goes back to where they came from: a ``next`` path on this site only
(:func:`safe_next`; never another origin: no open redirect), else their profile.
"""

from __future__ import annotations

import datetime
import re
import urllib.parse
from pathlib import Path
from typing import Annotated, Any

import jinja2
from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ..errors import (
    AccountError,
    BoggleError,
    BusyError,
    NameTakenError,
    NotLoggedInError,
    ThrottledError,
    WrongPasswordError,
)
from ..limits import (
    FORM_BODY_BYTES,
    MAX_ACCOUNT_NAME,
    MAX_NEXT_PATH,
    MAX_PASSWORD_BYTES,
    MIN_ACCOUNT_NAME,
    MIN_PASSWORD_LENGTH,
)
from ..services.accounts import Member, NewSession
from . import auth
from .inputs import ApiError
from .plumbing import services
from .room_guards import client_address

router = APIRouter(include_in_schema=False)

STATIC = Path(__file__).parent / "static"

#: What a new password must be, said before anyone types one (services/passwords.py's rules).
PASSWORD_RULES = (
    f"At least {MIN_PASSWORD_LENGTH} characters, without your user name, and not a common or "
    "easily guessed password: a few unrelated words make a strong one."
)
#: What a new member's name may be (services/passwords.py's check_account_name).
NAME_RULES = (
    f"{MIN_ACCOUNT_NAME} to {MAX_ACCOUNT_NAME} characters: letters A-Z and digits, with single "
    "spaces, _, - or . between them. Others see it on your games and profile."
)

#: ``next`` as the pages read it: bounded, and one longer than MAX_NEXT_PATH dropped (the form
#: is still shown), not refused.
Next = Annotated[str | None, Query(max_length=4 * MAX_NEXT_PATH)]


def safe_next(value: str | None) -> str | None:
    """``value`` if it is a path on this site to go on to (``/daily?rules=big``), else ``None``.

    Refused: anything with a scheme or a host (``https://evil.example``), a protocol-relative
    ``//evil.example`` (and ``/\\evil.example``, which browsers read the same way), control
    characters and spaces, and anything longer than :data:`MAX_NEXT_PATH`: a redirect from
    the log-in page never leaves this origin."""
    if not value or len(value) > MAX_NEXT_PATH or not value.startswith("/"):
        return None
    if value.startswith(("//", "/\\")) or "\\" in value:
        return None
    if any(ord(char) <= 0x20 or ord(char) == 0x7F for char in value):
        return None
    parts = urllib.parse.urlsplit(value)
    if parts.scheme or parts.netloc:
        return None
    return value


def known_viewer(request: Request) -> Member | jinja2.Undefined | None:
    """For the header of a page rendered without a ``viewer`` (another module's page, an error
    page): the member :func:`.auth.viewer` already found for this request, ``None`` for a
    guest, or an undefined value if no one asked (the header then offers the account page,
    which sends a guest on to the log-in). Never a database read: it may run on the loop."""
    state = request.scope.get("state") or {}
    key = getattr(auth, "_VIEWER", None)
    if key is not None and key in state:
        found: Member | None = state[key]
        return found
    return jinja2.Undefined(name="viewer")


def viewer_here(request: Request) -> Member | None:
    """:func:`.auth.viewer` for code already in a worker thread (``pages._page``): the member
    found for this request so far, else the cookie's, looked up in this thread. (Hopping to
    the event loop to await ``auth.viewer``, which takes another thread for its read, could
    wait for ever once every thread of the pool is a page doing the same.)"""
    known = known_viewer(request)
    if not isinstance(known, jinja2.Undefined):
        return known
    token = request.cookies.get(auth.SESSION_COOKIE)
    return services(request).accounts.member(token) if token else None


def destination(next_path: str | None, member: Member) -> str:
    """Where a person goes once logged in: back where they came from, else their profile."""
    return next_path or profile_path(member.username)


def profile_path(username: str) -> str:
    """``/players/NAME`` (the name quoted for the URL)."""
    return "/players/" + urllib.parse.quote(username, safe="")


def _script(name: str) -> str | None:
    """The versioned URL of another helper's script if it exists yet (``claim.js``,
    ``passkeys.js``), so a page never links a missing module."""
    if not (STATIC / name).is_file():
        return None
    from .assets import version_of

    version = version_of(STATIC, name)
    return f"/static/{name}" + (f"?v={version}" if version else "")


def _render(request: Request, template: str, status: int = 200, **context: Any) -> Response:
    """A page of this module: the rules, the limits the fields keep, the scripts present."""
    context.setdefault("errors", {})
    context.setdefault("error", None)
    context.setdefault("password_rules", PASSWORD_RULES)
    context.setdefault("name_rules", NAME_RULES)
    context.setdefault("name_max", MAX_ACCOUNT_NAME)
    context.setdefault("password_max", MAX_PASSWORD_BYTES)
    context.setdefault("claim_script", _script("claim.js"))
    context.setdefault("passkey_script", _script("passkeys.js"))
    found = services(request)
    response = found.templates.TemplateResponse(request, template, context, status_code=status)
    response.headers["Cache-Control"] = "no-store"  # a page with a CSRF token, or a member's
    return response


def field_of(message: str) -> str | None:
    """Which field a refusal is about: the services' messages start with it (``password: …``,
    ``username: …``)."""
    head, sep, _ = message.partition(":")
    return head if sep and head in ("username", "password", "old", "new") else None


def split_error(exc: BoggleError, fields: dict[str, str]) -> tuple[dict[str, str], str | None]:
    """A refusal as (messages beside fields, a message for the whole form). ``fields`` maps the
    services' field names to the form's (``password`` is ``new`` in the change form)."""
    message = str(exc)
    if isinstance(exc, NameTakenError):
        return {fields.get("username", "username"): message}, None
    field = field_of(message)
    if field is not None and field in fields:
        text = message.partition(":")[2].strip()
        return {fields[field]: text[:1].upper() + text[1:]}, None
    return {}, message


def retry_text(seconds: int) -> str:
    """``Retry-After`` in words: ``try again in 15 minutes``."""
    if seconds < 90:
        return f"try again in {max(1, seconds)} seconds"
    minutes = -(-seconds // 60)
    if minutes < 90:
        return f"try again in {minutes} minutes"
    return f"try again in {-(-minutes // 60)} hours"


def with_retry(message: str, seconds: int) -> str:
    """A refusal with when to try again in words: the services' ``try again in 900 s`` becomes
    ``try again in 15 minutes`` (added if the message does not say it)."""
    text = message[:1].upper() + message[1:].rstrip(".")
    if _RETRY.search(text):
        return _RETRY.sub(retry_text(seconds), text, count=1) + "."
    return f"{text}; {retry_text(seconds)}."


_RETRY = re.compile(r"try again in \d+ s\b")


def since_of(created_at: float | None) -> dict[str, str] | None:
    """When a member signed up, as the account page shows it (UTC date)."""
    if created_at is None:
        return None
    day = datetime.datetime.fromtimestamp(created_at, datetime.UTC).date()
    return {"iso": day.isoformat(), "text": f"{day.day} {day:%B %Y}"}


async def read_form(request: Request, names: tuple[str, ...]) -> dict[str, str]:
    """The fields ``names`` of an HTML form post (``application/x-www-form-urlencoded``,
    at most :data:`FORM_BODY_BYTES`, UTF-8, each field once; others ignored). A missing field
    is empty text. :class:`ApiError` (413, 415, 400) says what is wrong."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise ApiError(415, f"send the form as application/x-www-form-urlencoded, not {kind!r}")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > FORM_BODY_BYTES:
        raise ApiError(413, f"the form is over the limit here of {FORM_BODY_BYTES} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_BODY_BYTES:
            raise ApiError(413, f"the form is over the limit here of {FORM_BODY_BYTES} bytes")
    try:
        pairs = urllib.parse.parse_qsl(
            body.decode("ascii"),
            keep_blank_values=True,
            max_num_fields=2 * len(names) + 4,
            errors="strict",
        )
    except (UnicodeDecodeError, ValueError) as exc:
        raise ApiError(400, f"the form could not be read ({type(exc).__name__})") from None
    fields: dict[str, str] = {}
    for key, value in pairs:
        if key in names:
            if key in fields:
                raise ApiError(400, f"the form sent {key!r} twice")
            fields[key] = value
    return {name: fields.get(name, "") for name in names}


def _after_login(request: Request, new: NewSession, next_path: str | None) -> Response:
    """303 to where the member goes next, with their new session's cookie."""
    response = RedirectResponse(destination(next_path, new.member), status_code=303)
    auth.set_session_cookie(response, new, request)
    auth.set_device_cookie(response, new, request)
    return response


def _throttled(
    request: Request, template: str, exc: ThrottledError | BusyError, **context: Any
) -> Response:
    """The page again with when to try again, answering 429 (too many tries) or 503 (too many
    passwords being checked at once) with ``Retry-After``."""
    message = with_retry(str(exc), exc.retry_after)
    status = 429 if isinstance(exc, ThrottledError) else 503
    response = _render(request, template, status=status, error=message, **context)
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


# -- sign-up and log-in ----------------------------------------------------------------------------


async def _entry_page(request: Request, template: str, next_value: str | None) -> Response:
    viewer = await auth.viewer(request)
    return _render(
        request,
        template,
        viewer=viewer,
        next_path=safe_next(next_value),
        csrf=await auth.form_csrf(request, viewer),
        username="",
    )


@router.get("/signup", response_class=HTMLResponse)
async def signup_page(request: Request, next: Next = None) -> Response:
    """The sign-up form (a page for guests; a member may make another account)."""
    return await _entry_page(request, "signup.html", next)


@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request, next: Next = None) -> Response:
    """The log-in form, with the passkeys' way in (``#passkey-login``, passkeys.js)."""
    return await _entry_page(request, "login.html", next)


async def _entry_post(request: Request, template: str, sign_up: bool) -> Response:
    form = await read_form(request, ("csrf", "username", "password", "next"))
    await auth.check_form_csrf(request, form["csrf"])
    next_path = safe_next(form["next"])
    accounts = services(request).accounts
    address = client_address(request.scope.get("client"))
    action = accounts.sign_up if sign_up else accounts.log_in
    context: dict[str, Any] = {
        "viewer": await auth.viewer(request),
        "next_path": next_path,
        "username": form["username"][: MAX_ACCOUNT_NAME * 4],
    }
    device = request.cookies.get(auth.DEVICE_COOKIE)
    extra: dict[str, Any] = {} if sign_up else {"device": device}
    try:
        if not sign_up:  # a cheap read first: a throttled attempt queues for no hash
            await run_in_threadpool(
                accounts.check_throttle, form["username"], address=address, device=device
            )
        new = await auth.hashing(
            request, action, form["username"], form["password"], address=address, **extra
        )
    except (ThrottledError, BusyError) as exc:
        context["csrf"] = await auth.form_csrf(request, context["viewer"])
        return _throttled(request, template, exc, **context)
    except (AccountError, NameTakenError, NotLoggedInError) as exc:
        errors, error = split_error(exc, {"username": "username", "password": "password"})
        context["csrf"] = await auth.form_csrf(request, context["viewer"])
        status = (
            409
            if isinstance(exc, NameTakenError)
            else 401
            if isinstance(exc, NotLoggedInError)
            else 400
        )
        return _render(request, template, status, errors=errors, error=error, **context)
    earlier = request.cookies.get(auth.SESSION_COOKIE)
    if earlier:  # this browser's earlier session ends: one browser, one session
        await run_in_threadpool(accounts.log_out, earlier)
    return _after_login(request, new, next_path)


@router.post("/signup")
async def signup_post(request: Request) -> Response:
    """The sign-up form posted without JavaScript: 303 on to ``next`` (or the profile) with the
    session cookie; the form again with the message on a refusal."""
    return await _entry_post(request, "signup.html", sign_up=True)


@router.post("/login")
async def login_post(request: Request) -> Response:
    """The log-in form posted without JavaScript (see :func:`signup_post`); a wrong password is
    the form again (401), too many tries the form with when to try again (429)."""
    return await _entry_post(request, "login.html", sign_up=False)


# -- the account page ------------------------------------------------------------------------------


def _to_login(path: str) -> Response:
    """A guest asking for a member's page: 303 to the log-in, and back here after it."""
    return RedirectResponse("/login?next=" + urllib.parse.quote(path, safe="/"), status_code=303)


async def _account_page(
    request: Request, member: Member, status: int = 200, **context: Any
) -> Response:
    found = services(request)
    overview = await run_in_threadpool(found.accounts.overview, member)
    return _render(
        request,
        "account.html",
        status,
        viewer=member,
        overview=overview,
        since=since_of(overview.created_at),
        csrf=await auth.form_csrf(request, member),
        **context,
    )


@router.get("/account", response_class=HTMLResponse)
async def account_page(request: Request) -> Response:
    """A member's settings: password, this browser's log-out, export, delete, passkeys."""
    member = await auth.viewer(request)
    if member is None:
        return _to_login("/account")
    return await _account_page(request, member)


@router.post("/account/password")
async def change_password(request: Request) -> Response:
    """The change-password form: the page again with what happened (a new session for this
    browser; every other one logged out), or with the message beside the field at fault."""
    form = await read_form(request, ("csrf", "old", "new", "username", "remove_passkeys"))
    member = await _posting_member(request, form["csrf"])
    if member is None:
        return _to_login("/account")
    accounts = services(request).accounts
    address = client_address(request.scope.get("client"))
    try:
        new = await auth.hashing(
            request,
            accounts.change_password,
            member,
            form["old"],
            form["new"],
            address=address,
            remove_passkeys=bool(form["remove_passkeys"]),
        )
    except (ThrottledError, BusyError) as exc:
        status = 429 if isinstance(exc, ThrottledError) else 503
        waited = with_retry(str(exc), exc.retry_after)
        response = await _account_page(request, member, status, error=waited)
        response.headers["Retry-After"] = str(exc.retry_after)
        return response
    except WrongPasswordError:
        errors = {"old": "That is not your current password; the password is unchanged."}
        return await _account_page(request, member, 401, errors=errors)
    except (AccountError, NotLoggedInError) as exc:
        beside, error = split_error(exc, {"password": "new", "new": "new", "old": "old"})
        status = 401 if isinstance(exc, NotLoggedInError) else 400
        return await _account_page(request, member, status, errors=beside, error=error)
    notice = (
        "Your password is changed; other browsers are logged out and your passkeys are removed."
        if form["remove_passkeys"]
        else "Your password is changed; other browsers are logged out. Your passkeys still log "
        "you in: if one is not yours, remove it below."
    )
    response = await _account_page(request, new.member, notice=notice)
    auth.set_session_cookie(response, new, request)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    """Log this browser out (the form on the account page): 303 to the start."""
    form = await read_form(request, ("csrf",))
    await auth.check_form_csrf(request, form["csrf"])
    token = request.cookies.get(auth.SESSION_COOKIE)
    if token:
        await run_in_threadpool(services(request).accounts.log_out, token)
    response = RedirectResponse("/", status_code=303)
    auth.clear_session_cookie(response, request)
    return response


@router.get("/account/delete", response_class=HTMLResponse)
async def delete_page(request: Request) -> Response:
    """The confirm step of deleting an account: what goes, and the password to say so."""
    member = await auth.viewer(request)
    if member is None:
        return _to_login("/account/delete")
    return _render(
        request, "account_delete.html", viewer=member, csrf=await auth.form_csrf(request, member)
    )


@router.post("/account/delete")
async def delete_account(request: Request) -> Response:
    """Delete the account (with its password): a page saying it is done, the cookie cleared."""
    form = await read_form(request, ("csrf", "password", "username"))
    member = await _posting_member(request, form["csrf"])
    if member is None:
        return _to_login("/account/delete")
    accounts = services(request).accounts
    address = client_address(request.scope.get("client"))
    try:
        if form["password"]:
            await auth.hashing(request, accounts.delete, member, form["password"], address=address)
        else:  # no password: a recent passkey log-in may delete (a passkey-only member)
            await run_in_threadpool(accounts.delete, member, None, address=address)
    except (AccountError, NotLoggedInError, ThrottledError, BusyError) as exc:
        return await _delete_refused(request, member, exc)
    response = _render(request, "account_delete.html", viewer=None, deleted=member.username)
    auth.clear_session_cookie(response, request)
    return response


async def _delete_refused(request: Request, member: Member, exc: BoggleError) -> Response:
    """The delete step again, with why nothing was deleted beside the password."""
    retry = exc.retry_after if isinstance(exc, ThrottledError | BusyError) else None
    if isinstance(exc, WrongPasswordError):
        status, message = 401, "That is not your password; nothing was deleted."
    elif retry is not None:
        status = 429 if isinstance(exc, ThrottledError) else 503
        message = with_retry(str(exc), retry)
    else:
        status, message = (401 if isinstance(exc, NotLoggedInError) else 400), str(exc)
    response = _render(
        request,
        "account_delete.html",
        status,
        viewer=member,
        csrf=await auth.form_csrf(request, member),
        errors={"password": message},
    )
    if retry is not None:
        response.headers["Retry-After"] = str(retry)
    return response


async def _posting_member(request: Request, csrf: str) -> Member | None:
    """The member a form post speaks for, its CSRF token checked; ``None`` for a guest (whose
    session ended since the page was shown)."""
    member = await auth.viewer(request)
    if member is not None:
        await auth.check_form_csrf(request, csrf)
    return member
