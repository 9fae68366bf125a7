"""HTTP hygiene around the app: what every request and response goes through.

- :class:`Guard` (outermost): answers ``HEAD`` on every ``GET`` route, gives each request an id (``X-Request-ID``), adds the security
  headers to every response (pages, API, static files, errors), writes one JSON access-log line
  per request, counts requests and latencies by route template for ``/metrics``, and turns any
  exception that escapes the app into a logged 500 with the request id, never a dropped
  connection. It refuses requests with too many headers (431) or a declared body over the limit
  (413) before the app sees them, and wraps ``receive`` so that a body arriving slower than the
  body timeout (or shorter than its ``Content-Length``) gives up with 408 and closes the
  connection.
- :class:`BoundedH11Protocol`: uvicorn's h11 protocol with a header timeout (uvicorn has none for
  a connection that never finishes its headers) and ``431`` for a header block over the size
  limit (``h11_max_incomplete_event_size``) instead of a bare 400.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import urllib.parse
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

import h11
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute, Match
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..limits import ServerLimits
from .metrics import Metrics

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

access_log = logging.getLogger("bigboggle.access")
error_log = logging.getLogger("bigboggle.error")

#: The Content-Security-Policy of every response: scripts and styles from this origin only (no
#: inline script, no inline style attribute, no eval), no plugins, no framing, no <base>.
#: Images may be data: URLs (the API docs' icons) and blob: URLs (a photo of the tray the page
#: shows from the visitor's own file, never sent anywhere else); 'self' covers this origin's
#: WebSockets.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'self'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    # Room codes and game ids are in URLs: never send them to another site.
    (b"referrer-policy", b"same-origin"),
    (
        b"permissions-policy",
        b"camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=()",
    ),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
#: The route label of requests no route matched (404s): raw paths would make labels unbounded.
UNMATCHED = "<unmatched>"


class BodyTimeoutError(HTTPException):
    """The body did not arrive within the body timeout: 408, and the connection closes."""

    def __init__(self, limits: ServerLimits) -> None:
        super().__init__(
            408,
            f"the request body did not arrive within {limits.body_timeout:g} s "
            "(limit body_timeout, BIGBOGGLE_LIMIT_BODY_TIMEOUT)",
            headers={"Connection": "close"},
        )


class BodyTooLargeError(HTTPException):
    """More body than the limit: 413, and the connection closes (the rest is not read)."""

    def __init__(
        self, limits: ServerLimits, declared: int | None = None, *, photo: bool = False
    ) -> None:
        size = f"is {declared} bytes" if declared is not None else "is over the limit"
        limit, name = (
            (limits.max_photo_body_bytes, "MAX_PHOTO_BODY_BYTES")
            if photo
            else (limits.max_body_bytes, "MAX_BODY_BYTES")
        )
        super().__init__(
            413,
            f"the body {size}; the limit is {limit} bytes (BIGBOGGLE_LIMIT_{name})",
            headers={"Connection": "close"},
        )


#: The one route whose body is a photo, with its own size limit (max_photo_body_bytes).
PHOTO_PATH = "/api/read-board"


def request_id(scope: Scope) -> str:
    """The id :class:`Guard` gave this request ("-" outside it)."""
    found: str = scope.get("state", {}).get("request_id", "-")
    return found


def _repeated_parameter(scope: Scope) -> tuple[int, str] | None:
    """A 400 for an API request that gives one query parameter twice (``?dictionary=a&
    dictionary=b``): no API parameter is a list, and taking one of the values silently would
    answer a request other than the one sent. (The query string is bounded by the request
    line's limit before it gets here.)"""
    if not str(scope.get("path", "")).startswith("/api/"):
        return None
    query = scope.get("query_string", b"")
    if not query:
        return None
    seen: set[str] = set()
    for name, _ in urllib.parse.parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if name in seen:
            return 400, f"the query parameter {name[:40]!r} is given more than once: give it once"
        seen.add(name)
    return None


class Guard:
    """The outermost ASGI layer of the app (see the module's docstring)."""

    def __init__(
        self,
        app: ASGIApp,
        limits: ServerLimits,
        metrics: Metrics,
        routes: Sequence[BaseRoute] = (),
    ) -> None:
        self.app = app
        self.limits = limits
        self.metrics = metrics
        #: The app's routes, to name the route of a request the router did not label.
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = secrets.token_hex(8)
        scope.setdefault("state", {})["request_id"] = rid
        method = scope.get("method", "-")
        asked = {**scope, "method": "GET" if method == "HEAD" else method}  # before routing
        head = method == "HEAD"
        if head:  # HEAD on every GET route: answered as GET, without the body
            scope["method"] = "GET"
        started = time.perf_counter()
        status = 0
        complete = False

        async def send_guarded(message: Message) -> None:
            nonlocal status, complete
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [
                    (name, value)
                    for name, value in message.get("headers", [])
                    if name.lower() != b"x-request-id"
                ]
                headers += SECURITY_HEADERS
                headers.append((b"x-request-id", rid.encode()))
                message["headers"] = headers
            elif message["type"] == "http.response.body":
                complete = not message.get("more_body")
                if head:
                    message = {**message, "body": b""}
            await send(message)

        try:
            refusal = self._refusal(scope)
            if refusal is not None:
                await self._answer(send_guarded, refusal[0], refusal[1], rid, close=True)
            else:
                await self.app(scope, self._timed_receive(receive, scope), send_guarded)
        except Exception as exc:  # a bug: log it with the id, answer 500 if we still can
            if not scope["state"].get("error_logged"):  # the app's 500 handler logs its own
                error_log.error(
                    "unexpected error in request %s %s %s",
                    rid,
                    scope.get("method"),
                    scope.get("path"),
                    exc_info=exc,
                )
            if status == 0:
                status = 500
                await self._answer(send_guarded, 500, _internal(exc, rid), rid, close=False)
            elif not complete:
                raise  # mid-body: nothing better than closing the connection remains
        finally:
            seconds = time.perf_counter() - started
            self._record(scope, asked, method, status or 500, seconds, rid)

    # -- refusals before the app ------------------------------------------------------------

    def _refusal(self, scope: Scope) -> tuple[int, str] | None:
        headers = scope.get("headers", [])
        if len(headers) > self.limits.max_headers:
            self.metrics.refused("431")
            return 431, (
                f"the request has {len(headers)} headers; the limit is {self.limits.max_headers} "
                "(BIGBOGGLE_LIMIT_MAX_HEADERS)"
            )
        size = sum(len(name) + len(value) + 4 for name, value in headers)
        if size > self.limits.max_header_bytes:
            self.metrics.refused("431")
            return 431, (
                f"the request headers are {size:,} bytes; the limit is "
                f"{self.limits.max_header_bytes:,} (BIGBOGGLE_LIMIT_MAX_HEADER_BYTES)"
            )
        photo = scope.get("path") == PHOTO_PATH
        limit = self.limits.max_photo_body_bytes if photo else self.limits.max_body_bytes
        for name, value in headers:
            if name == b"content-length":
                declared = int(value) if value.isdigit() and len(value) < 20 else None
                if declared is not None and declared > limit:
                    self.metrics.refused("413")
                    return 413, str(BodyTooLargeError(self.limits, declared, photo=photo).detail)
        return _repeated_parameter(scope)

    def _timed_receive(self, receive: Receive, scope: Scope) -> Receive:
        """``receive`` with a deadline for the whole body (from the first read) and a size
        limit; the errors raise where the app reads, and become 408 / 413 answers there."""
        limits = self.limits
        photo = scope.get("path") == PHOTO_PATH
        limit = limits.max_photo_body_bytes if photo else limits.max_body_bytes
        deadline: float | None = None
        size = 0
        done = False
        loop = asyncio.get_running_loop()

        async def timed() -> Message:
            nonlocal deadline, size, done
            if done:  # after the body only a disconnect can come: no deadline for that wait
                return await receive()
            if deadline is None:
                deadline = loop.time() + limits.body_timeout
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                self.metrics.refused("408")
                raise BodyTimeoutError(limits) from None
            if message["type"] == "http.request":
                size += len(message.get("body", b""))
                if size > limit:  # counted by the app's handler
                    raise BodyTooLargeError(limits, photo=photo)
                done = not message.get("more_body", False)
            return message

        return timed

    async def _answer(self, send: Send, status: int, message: str, rid: str, close: bool) -> None:
        body = json.dumps({"error": message, "request_id": rid}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        if close:
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    # -- what operators see -------------------------------------------------------------------

    def _record(
        self, scope: Scope, asked: Scope, method: str, status: int, seconds: float, rid: str
    ) -> None:
        template = self._template(scope, asked)
        self.metrics.observe(method, template, status, seconds)
        if access_log.isEnabledFor(logging.INFO):
            client = scope.get("client")
            access_log.info(
                json.dumps(
                    {
                        "request_id": rid,
                        "method": method,
                        "route": template,
                        "path": scope.get("path", "")[:200],
                        "status": status,
                        "duration_ms": round(seconds * 1000, 2),
                        "client": f"{client[0]}:{client[1]}" if client else None,
                    }
                )
            )

    def _template(self, scope: Scope, asked: Scope) -> str:
        """The route template of this request (``/api/games/{game_id}``, ``/static``), or
        :data:`UNMATCHED`: never the raw path, so metric labels stay few. ``asked`` is the
        scope as it came (a mount rewrites the paths)."""
        route = scope.get("route")
        if route is None:  # FastAPI labels its own routes only; find a mount's or a route's
            for candidate in self.routes:
                if candidate.matches(asked)[0] is not Match.NONE:
                    route = candidate
                    break
        found = getattr(route, "path", None)
        return found if isinstance(found, str) and found else UNMATCHED


def _internal(exc: BaseException, rid: str) -> str:
    return f"internal error ({type(exc).__name__}), request id {rid}; please report it"


def configure_access_log() -> None:
    """Send the access log (one JSON object a line) and errors to stderr, as ``bigboggle
    serve`` does; idempotent."""
    for logger in (access_log, error_log):
        if not any(getattr(h, "_bigboggle", False) for h in logger.handlers):
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter("%(message)s"))
            handler._bigboggle = True  # type: ignore[attr-defined]
            logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


class _Connection(h11.Connection):
    """h11's connection, remembering the status a protocol error suggests (431 for headers
    over the size limit)."""

    refusal = 400

    def next_event(self) -> Any:
        try:
            return super().next_event()
        except h11.RemoteProtocolError as exc:
            self.refusal = exc.error_status_hint
            raise


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header timeout: a connection must finish each request's
    headers within ``timeout_keep_alive`` seconds of opening (or of the last response), else it
    is closed; and a header block over ``h11_max_incomplete_event_size`` answers 431."""

    def __init__(self, config: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.conn = _Connection(h11.SERVER, config.h11_max_incomplete_event_size or 16_384)
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the headers are in
            self._disarm_header_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        status = getattr(self.conn, "refusal", 400)
        if status != 431:
            super().send_400_response(msg)
            return
        message = "the request headers are over the size limit (BIGBOGGLE_LIMIT_MAX_HEADER_BYTES)"
        body = json.dumps({"error": message}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"connection", b"close"),
            *SECURITY_HEADERS,
        ]
        for event in (
            h11.Response(
                status_code=431, headers=headers, reason=b"Request Header Fields Too Large"
            ),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_timer = self.loop.call_later(self.timeout_keep_alive, self._header_timeout)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timeout(self) -> None:
        self._header_timer = None
        waiting = self.cycle is None or self.cycle.response_complete
        if waiting and self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()
