"""Who is asking, and the guard against requests another site makes a browser send.

**The session cookie** :data:`SESSION_COOKIE` holds a session's token
(:class:`~bigboggle.services.accounts.NewSession`): ``HttpOnly`` (no script reads it),
``SameSite=Lax`` (no cross-site sub-request or form post carries it), ``Path=/``, ``Secure``
when the request came over HTTPS (``request.url.scheme``: uvicorn sets it from the proxy's
``X-Forwarded-Proto`` only when the operator trusts the proxy, ``bigboggle serve
--trust-proxy``), and ``Max-Age`` the idle expiry (the server forgets the session after as
long without a request anyway). :func:`viewer` reads it (one database read, in a thread; once
per request or WebSocket, then kept in its state); when that read moves the session's
``last_seen`` (at most once every :data:`~bigboggle.limits.SESSION_TOUCH_SECONDS`), the
response sets the cookie again with its full ``Max-Age``, so an active member stays logged in.

**The known-device cookie** :data:`DEVICE_COOKIE` (``HttpOnly``, ``SameSite=Lax``,
:data:`~bigboggle.limits.KNOWN_DEVICE_DAYS` long), set at each successful log-in: a signed
token naming the member (:meth:`~bigboggle.services.accounts.Accounts.device_token`), which
spares this browser the per-account log-in block strangers' failures cause (OWASP's "device
cookies"), never the per-address one.

**The cross-site guard** (:class:`CrossSiteGuard`, ASGI middleware around every route):

- A ``POST``, ``PUT``, ``PATCH`` or ``DELETE`` anywhere (the JSON API and the HTML forms) is
  refused with 403 when its ``Origin`` header names another host than the request's own
  (``Host``), or is ``null`` (a sandboxed or opaque page); without ``Origin`` (older browsers,
  some same-origin requests), a ``Referer`` naming another host is refused the same way, and
  without either, a browser's ``Sec-Fetch-Site: cross-site``. A request with none of them is a
  program's (curl, a script), which carries no one's cookie by accident, and passes. The scheme is not compared: behind a TLS proxy that does not forward it
  the app sees ``http`` while the browser says ``https``. Behind a proxy that sends another
  ``Host``, the host of the operator's ``BIGBOGGLE_PUBLIC_ORIGIN`` (as passkeys use it) is
  accepted too.
- A WebSocket handshake (the rooms' ``/ws``) whose ``Origin`` names another host is refused
  (403) before it is accepted: a page elsewhere cannot act in a room with a member's cookie.
- The JSON API's bodies must be ``Content-Type: application/json``
  (:func:`~bigboggle.web.inputs.read_text`, 415 otherwise): a cross-site HTML form cannot send
  that type, and a script elsewhere cannot without a CORS preflight, which this app never
  grants.

**CSRF tokens for HTML forms** (the pages that work without JavaScript): a form carries a
hidden ``csrf`` field from :func:`form_csrf`, and its post is checked by
:func:`check_form_csrf`. A logged-in browser's token is its session's
(:meth:`~bigboggle.services.accounts.Accounts.csrf`). A form shown before a log-in (sign up, log
in) gets a *signed double-submit* token: a random nonce with its HMAC under the server's secret
(:meth:`~bigboggle.services.accounts.Accounts.form_secret`), set as the cookie
:data:`CSRF_COOKIE` (``HttpOnly``, ``SameSite=Lax``) by this module's middleware on the page's
response, and posted back in the field; the post passes when field and cookie are equal and the
signature holds. Another site can neither read the cookie nor forge a signed one.

**Hashing** (:func:`hashing`): a call that checks or makes a password hash runs in a thread,
at most :data:`~bigboggle.limits.HASHES_AT_ONCE` at once per process with at most
:data:`~bigboggle.limits.HASHES_WAITING` waiting; past that the answer is 503 Busy with
``Retry-After``, so a flood of log-ins never takes every thread. Per client address (an IPv6
/64 as one), every hash is counted before it queues, whatever its result, at most
:data:`~bigboggle.limits.HASHES_PER_ADDRESS_MINUTE` a minute, and holds at most
:data:`~bigboggle.limits.HASH_SLOTS_PER_ADDRESS` place in the gate (429 past either), so one
client logging in to its own account in a loop cannot starve everyone else.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import math
import secrets
import time
import urllib.parse
from collections.abc import Callable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response

from ..errors import BusyError, NotLoggedInError, ThrottledError
from ..limits import (
    HASH_SLOTS_PER_ADDRESS,
    HASHES_AT_ONCE,
    HASHES_PER_ADDRESS_MINUTE,
    HASHES_WAITING,
    MAX_TOKEN_LENGTH,
)
from ..services.accounts import Member, NewSession
from ..services.login_throttle import address_key
from .inputs import ApiError
from .middleware import ASGIApp, Message, Receive, Scope, Send
from .plumbing import services
from .room_guards import WindowLimit, client_address

#: The session cookie's name.
SESSION_COOKIE = "bigboggle_session"
#: The cookie of the signed double-submit CSRF token of forms shown before a log-in.
CSRF_COOKIE = "bigboggle_csrf"
#: The known-device cookie (:meth:`~bigboggle.services.accounts.Accounts.device_token`): set
#: at each successful log-in, it spares this browser the account's log-in block.
DEVICE_COOKIE = "bigboggle_device"
#: How long a pre-session form token lasts (a form left open over lunch still posts).
CSRF_COOKIE_SECONDS = 86_400
#: Methods that change something: checked by the cross-site guard.
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: Where a request keeps what this module found (scope["state"] keys).
_VIEWER = "bigboggle_viewer"
_FORM_COOKIE = "bigboggle_form_cookie"
_REFRESH = "bigboggle_session_refresh"
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}

Result = TypeVar("Result")


# -- who is asking ---------------------------------------------------------------------------------


async def viewer(connection: HTTPConnection) -> Member | None:
    """The member whose live session's cookie ``connection`` (a request or a WebSocket) sent,
    else ``None``. The database is read in a thread, once per connection."""
    state = connection.scope.setdefault("state", {})
    if _VIEWER in state:
        found: Member | None = state[_VIEWER]
        return found
    token = connection.cookies.get(SESSION_COOKIE)
    member = None
    if token:
        visit = await run_in_threadpool(services(connection).accounts.visit, token)
        if visit is not None:
            member, touched = visit
            if touched and connection.scope.get("type") == "http":
                # The session's last use moved: so does the cookie's expiry (the guard's
                # middleware sets it on the response, unless the route sets its own).
                state[_REFRESH] = _session_cookie_header(connection, token)
    state[_VIEWER] = member
    return member


def _session_cookie_header(connection: HTTPConnection, token: str) -> bytes:
    idle = services(connection).accounts.limits.idle_days
    secure = "; Secure" if is_https(connection) else ""
    return (
        f"{SESSION_COOKIE}={token}; HttpOnly; Max-Age={int(idle * 86_400)}; Path=/; "
        f"SameSite=lax{secure}"
    ).encode()


async def require_member(connection: HTTPConnection) -> Member:
    """The member asking (:func:`viewer`); :class:`~bigboggle.errors.NotLoggedInError` (401)
    for a guest."""
    member = await viewer(connection)
    if member is None:
        raise NotLoggedInError(
            "log in first: this needs a member's session (no live session cookie)"
        )
    return member


def is_https(connection: HTTPConnection) -> bool:
    """Whether the browser reached us over TLS (as far as the app trusts what it is told)."""
    return connection.url.scheme in ("https", "wss")


def set_session_cookie(response: Response, new: NewSession, request: HTTPConnection) -> None:
    """Give the browser the new session's cookie (see the module's docstring)."""
    idle = services(request).accounts.limits.idle_days
    response.set_cookie(
        SESSION_COOKIE,
        new.token,
        max_age=int(idle * 86_400),
        path="/",
        secure=is_https(request),
        httponly=True,
        samesite="lax",
    )
    request.scope.setdefault("state", {})[_VIEWER] = new.member


def set_device_cookie(response: Response, new: NewSession, request: HTTPConnection) -> None:
    """Give the browser a known-device cookie for the member who just logged in (``HttpOnly``,
    ``SameSite=Lax``, :data:`~bigboggle.limits.KNOWN_DEVICE_DAYS` long): see
    :meth:`~bigboggle.services.accounts.Accounts.device_token`."""
    accounts = services(request).accounts
    response.set_cookie(
        DEVICE_COOKIE,
        accounts.device_token(new.member.id),
        max_age=int(accounts.limits.device_days * 86_400),
        path="/",
        secure=is_https(request),
        httponly=True,
        samesite="lax",
    )


def clear_session_cookie(response: Response, request: HTTPConnection | None = None) -> None:
    """Tell the browser to forget its session cookie."""
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        secure=request is not None and is_https(request),
        httponly=True,
        samesite="lax",
    )
    if request is not None:
        request.scope.setdefault("state", {})[_VIEWER] = None


# -- hashing off the event loop --------------------------------------------------------------------


class HashGate:
    """At most ``at_once`` hashing calls running and ``waiting`` queued; past it, BusyError.

    Per address (:func:`~bigboggle.services.login_throttle.address_key`: an IPv6 /64 is one),
    at most ``per_address`` hashes a minute on ``clock``, whatever their result, counted
    before they queue, and at most ``slots`` of them in the gate (running or waiting) at once;
    past either, :class:`~bigboggle.errors.ThrottledError` (429): one client cannot fill the
    gate with log-ins to its own account and starve everyone else's."""

    def __init__(
        self,
        at_once: int = HASHES_AT_ONCE,
        waiting: int = HASHES_WAITING,
        *,
        per_address: int = HASHES_PER_ADDRESS_MINUTE,
        slots: int = HASH_SLOTS_PER_ADDRESS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.at_once = at_once
        self.waiting_limit = waiting
        self.slots = slots
        self._semaphore = asyncio.Semaphore(at_once)
        self.waiting = 0
        self.budget = WindowLimit(per_address, 60.0, clock)
        self._held: dict[str, int] = {}

    async def run(self, call: Callable[..., Result], *args: Any, **kwargs: Any) -> Result:
        """``call(*args, **kwargs)`` in a thread once a slot is free, for no one address."""
        return await self.run_for(None, call, *args, **kwargs)

    async def run_for(
        self, address: str | None, call: Callable[..., Result], /, *args: Any, **kwargs: Any
    ) -> Result:
        """``call(*args, **kwargs)`` in a thread once a slot is free, counted for the client
        ``address`` (see the class)."""
        key = address_key(address) if address else None
        if key is not None and self._held.get(key, 0) >= self.slots:
            raise ThrottledError(
                "a password from your address is being checked already; try again in a second",
                1,
            )
        if self._semaphore.locked() and self.waiting >= self.waiting_limit:
            raise BusyError(
                f"the server is checking {self.at_once + self.waiting} passwords already; "
                "try again in a second",
                retry_after=1,
            )
        if key is not None:
            wait = self.budget.hit(key)
            if wait is not None:
                raise ThrottledError(
                    f"more than {self.budget.limit} passwords checked for your address in a "
                    f"minute; try again in {math.ceil(wait)} s",
                    math.ceil(wait),
                )
            self._held[key] = self._held.get(key, 0) + 1
        try:
            self.waiting += 1
            try:
                await self._semaphore.acquire()
            finally:
                self.waiting -= 1
            try:
                return await run_in_threadpool(call, *args, **kwargs)
            finally:
                self._semaphore.release()
        finally:
            if key is not None:
                left = self._held[key] - 1
                if left:
                    self._held[key] = left
                else:
                    del self._held[key]


def hash_gate(connection: HTTPConnection) -> HashGate:
    """The app's :class:`HashGate` (one per app, made on first use, on the app's clock)."""
    state = connection.app.state
    gate: HashGate | None = getattr(state, "hash_gate", None)
    if gate is None:
        gate = HashGate(clock=services(connection).clock)
        state.hash_gate = gate
    return gate


async def hashing(
    connection: HTTPConnection, call: Callable[..., Result], *args: Any, **kwargs: Any
) -> Result:
    """``call(*args, **kwargs)`` (a service method that hashes a password) in a thread, through
    the app's :class:`HashGate`, counted for the connection's address: 429 past the address's
    share, 503 Busy when too many wait."""
    address = client_address(connection.scope.get("client"))
    return await hash_gate(connection).run_for(address, call, *args, **kwargs)


# -- CSRF tokens of HTML forms ---------------------------------------------------------------------


async def _secret(connection: HTTPConnection) -> bytes:
    accounts = services(connection).accounts
    return await run_in_threadpool(accounts.form_secret)


def _signed(secret: bytes, nonce: str) -> str:
    signature = hmac.new(secret, nonce.encode(), hashlib.sha256).hexdigest()[:32]
    return f"{nonce}.{signature}"


def _valid_form_token(secret: bytes, value: str | None) -> bool:
    if not isinstance(value, str) or not value or len(value) > MAX_TOKEN_LENGTH:
        return False
    nonce, _, _ = value.partition(".")
    return bool(nonce) and hmac.compare_digest(_signed(secret, nonce), value)


async def form_csrf(request: Request, member: Member | None = None) -> str:
    """The CSRF token for a form on the page answering ``request``: the session's for a
    member (``member``: the viewer, if the caller has it), else a signed pre-session token
    (the one this browser's :data:`CSRF_COOKIE` holds, or a new one, which this module's
    middleware sets as the cookie on the response)."""
    token = request.cookies.get(SESSION_COOKIE)
    if token and (member is not None or await viewer(request) is not None):
        csrf = await run_in_threadpool(services(request).accounts.csrf, token)
        if csrf is not None:
            return csrf
    secret = await _secret(request)
    held = request.cookies.get(CSRF_COOKIE)
    if _valid_form_token(secret, held):
        assert held is not None
        return held
    state = request.scope.setdefault("state", {})
    if _FORM_COOKIE not in state:
        state[_FORM_COOKIE] = _signed(secret, secrets.token_urlsafe(18))
    made: str = state[_FORM_COOKIE]
    return made


async def check_form_csrf(request: Request, token: str | None) -> None:
    """Refuse (403) an HTML form post whose ``csrf`` field is not this browser's token: its
    live session's, or the signed pre-session token its :data:`CSRF_COOKIE` holds."""
    if not isinstance(token, str) or not token:
        raise ApiError(403, "the form has no CSRF token; reload the page and send it again")
    if len(token) <= MAX_TOKEN_LENGTH:
        session_token = request.cookies.get(SESSION_COOKIE)
        if session_token:
            csrf = await run_in_threadpool(services(request).accounts.csrf, session_token)
            if csrf is not None and hmac.compare_digest(csrf, token):
                return
        held = request.cookies.get(CSRF_COOKIE)
        if (
            held
            and hmac.compare_digest(held, token)
            and _valid_form_token(await _secret(request), held)
        ):
            return
    raise ApiError(
        403,
        "the form's CSRF token does not match this browser's (the page is old, or the form "
        "came from another site); reload the page and send it again",
    )


# -- the cross-site guard --------------------------------------------------------------------------


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            try:
                decoded: str = value.decode("latin-1")
            except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes any byte
                return None
            return decoded
    return None


def _host_of(url: str) -> str | None:
    """``host[:port]`` of an absolute URL (the port left out when it is its scheme's default),
    lower case; ``None`` for anything else."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        hostname = parts.hostname
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not hostname:
        return None
    if port is None or port == _DEFAULT_PORTS.get(parts.scheme.lower()):
        return hostname.lower()
    return f"{hostname.lower()}:{port}"


def own_host(scope: Scope) -> str | None:
    """``host[:port]`` this request was sent to (its ``Host`` header, default ports left out)."""
    host = _header(scope, b"host")
    if not host:
        server = scope.get("server")
        if not server:
            return None
        host = f"{server[0]}:{server[1]}" if server[1] is not None else str(server[0])
    scheme = str(scope.get("scheme", "http"))
    found = _host_of(f"{scheme}://{host}")
    if found is None:
        return None
    # A Host with the other scheme's default port (":443" reached as http behind a proxy).
    for default in (":80", ":443"):
        if found.endswith(default):
            return found[: -len(default)]
    return found


def cross_site(scope: Scope, public_host: str | None = None) -> str | None:
    """Why the request in ``scope`` comes from another site (its Origin or Referer names
    another host than its own, or than ``public_host``: the operator's public origin's), or
    ``None`` if it does not seem to."""
    origin = _header(scope, b"origin")
    if origin is not None:
        if origin.strip().lower() == "null":
            return "the request comes from an opaque origin (Origin: null)"
        header, value = "Origin", origin
    else:
        referer = _header(scope, b"referer")
        if referer is None:
            if (_header(scope, b"sec-fetch-site") or "").strip().lower() == "cross-site":
                return "the request comes from another site (Sec-Fetch-Site: cross-site)"
            return None
        header, value = "Referer", referer
    claimed = _host_of(value)
    if claimed is None:
        return f"the request's {header} header {value[:80]!r} is not a URL with a host"
    mine = own_host(scope)
    if mine is None and public_host is None:
        shown = _header(scope, b"host") or ""
        return f"the request's Host header {shown[:80]!r} is not a host name"
    if claimed in (mine, public_host):
        return None
    return f"the request comes from another site ({header} host {claimed[:80]!r}, this site is {mine!r})"


class CrossSiteGuard:
    """The cross-site guard of the module's docstring, and the setter of the pre-session form
    cookie that :func:`form_csrf` asked for."""

    def __init__(self, app: ASGIApp, public_origin: str | None = None) -> None:
        self.app = app
        #: The host of the site as browsers reach it (``BIGBOGGLE_PUBLIC_ORIGIN``), accepted
        #: besides the request's own ``Host``: a proxy may send another one.
        self.public_host = _host_of(public_origin) if public_origin else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "websocket":
            origin = _header(scope, b"origin")
            reason = cross_site(scope, self.public_host) if origin is not None else None
            if reason is not None:
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008, "reason": "cross-site"})
                return
            await self.app(scope, receive, send)
            return
        if kind != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("method") in UNSAFE_METHODS:
            reason = cross_site(scope, self.public_host)
            if reason is not None:
                await _refuse(send, f"{reason}: refused, as state changes come from this site only")
                return
        await self.app(scope, receive, self._with_form_cookie(scope, send))

    @staticmethod
    def _with_form_cookie(scope: Scope, send: Send) -> Send:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                refresh = scope.get("state", {}).get(_REFRESH)
                headers = message.get("headers", [])
                sets_session = any(
                    key == b"set-cookie" and value.startswith(SESSION_COOKIE.encode() + b"=")
                    for key, value in headers
                )
                if refresh is not None and not sets_session:
                    message = {**message, "headers": [*headers, (b"set-cookie", refresh)]}
                made = scope.get("state", {}).get(_FORM_COOKIE)
                if made is not None:
                    secure = "; Secure" if scope.get("scheme") == "https" else ""
                    cookie = (
                        f"{CSRF_COOKIE}={made}; Max-Age={CSRF_COOKIE_SECONDS}; Path=/; "
                        f"HttpOnly; SameSite=Lax{secure}"
                    )
                    message = {
                        **message,
                        "headers": [*message.get("headers", []), (b"set-cookie", cookie.encode())],
                    }
            await send(message)

        return sending


async def _refuse(send: Send, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
