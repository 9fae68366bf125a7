"""The web app: an ASGI application with the pages, the JSON API and the rooms' WebSocket, on
one database.

``create_app()`` wires the library's services (solo games, tournaments, rooms, the dictionary
shelf) to a :class:`~bigboggle.services.store.Store`, with the web's own (the hub, the timers,
the worker pool, the guards), all in one :class:`~.plumbing.Services`; it includes the route
modules' routers and answers errors as :mod:`.error_table` says. Route modules never import
this module. ``bigboggle serve`` runs the app under uvicorn. The clock is a parameter so that
tests can move time; the server's clock is the only one a game trusts.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import math
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import fastapi_offline
import jinja2
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import Match

from .. import photo
from .._version import __version__
from ..atlas import Atlas
from ..dice import UNDERLINED_FACES
from ..errors import AccountError, AtlasError, BoggleError, BusyError, ThrottledError
from ..limits import MAX_PLAYERS, ServerLimits
from ..services.accounts import Accounts
from ..services.challenges import Challenges
from ..services.claims import Claims
from ..services.leaderboards import Leaderboards
from ..services.paper_games import PaperTournaments
from ..services.passkeys import Passkeys
from ..services.profiles import Profiles
from ..services.ratings import Ratings
from ..services.rooms import Rooms
from ..services.shelf import DictionaryShelf
from ..services.solo_games import SoloGames
from ..services.store import Store
from ..services.training import Training
from ..verdicts import VERDICT_LABELS
from . import (
    account_pages,
    account_routes,
    api,
    atlas_routes,
    challenge_routes,
    claim_routes,
    pages,
    passkey_routes,
    player_routes,
    room_socket,
    trainer_routes,
)
from . import rooms as room_routes
from .assets import CachedStaticFiles, version_of
from .auth import CrossSiteGuard
from .challenge_tasks import ChallengeSweep
from .error_table import status_of
from .hub import LocalHub, RedisHub
from .inputs import BODY_MODELS, ApiError
from .metrics import Metrics
from .middleware import Guard, configure_access_log, request_id
from .plumbing import JSONResponse, Services, services
from .pool import WorkerPool
from .rating_tasks import RatingTasks
from .room_guards import RoomGuards
from .room_timers import RoomTimers
from .solo_timers import SoloTimers
from .validation import describe_validation

log = logging.getLogger(__name__)

HERE = Path(__file__).parent


class BoggleApp(FastAPI):
    """FastAPI with :class:`~.middleware.Guard` outside everything, even outside Starlette's
    last-resort error middleware, so that every answer (a 500 too) carries the security
    headers and a request id, and is logged and counted."""

    def build_middleware_stack(self) -> Any:
        inner = super().build_middleware_stack()
        found: Services = self.state.services
        return Guard(inner, found.limits, found.metrics, self.router.routes)


def _with_runner(service: Callable[..., Any], *args: Any, runner: Any) -> Any:
    """``service(*args, runner=runner)`` if the service takes a runner (for CPU work in the
    worker pool), else ``service(*args)``."""
    if "runner" in inspect.signature(service).parameters:
        return service(*args, runner=runner)
    return service(*args)


def create_app(
    db: str | Store | None = None,
    *,
    dictionaries: Mapping[str, str | Path] | None = None,
    clock: Callable[[], float] = time.time,
    redis: str | None = None,
    limits: ServerLimits | None = None,
    pool: WorkerPool | None = None,
    public_origin: str | None = None,
    atlas: str | Path | None = None,
) -> FastAPI:
    """The ASGI app on database ``db`` (a URL or an open store; default: the SQLite file in the
    user's data directory), offering the built-in dictionaries plus ``dictionaries``. With
    ``redis`` (a URL), rooms are shared with other server processes through Redis.

    ``limits`` are the operator's limits (default: :class:`ServerLimits`'s defaults). CPU work
    runs in ``pool`` (default: worker processes as ``limits`` say, started on first use and
    stopped with the app). ``public_origin`` is the site's origin as browsers reach it, for
    passkeys (default: ``BIGBOGGLE_PUBLIC_ORIGIN``; unset: each request's own scheme and Host,
    right unless a proxy changes them). ``atlas`` is the path of the operator's own atlas
    file for ``/atlas`` (default: ``BIGBOGGLE_ATLAS``; unset: the package's shipped atlas),
    read now, so a bad one stops the start naming what is wrong."""
    atlas_file = atlas or os.environ.get("BIGBOGGLE_ATLAS") or None
    own_atlas = _operator_atlas(atlas_file) if atlas_file else None
    limits = limits or ServerLimits()
    pool = pool or WorkerPool.from_limits(limits)
    metrics = Metrics()
    pool.on_depth = lambda depth: metrics.pool_depth(depth, pool.workers)
    store = db if isinstance(db, Store) else Store(db)
    shelf = DictionaryShelf(dictionaries)
    templates = Jinja2Templates(directory=HERE / "templates")
    rooms = Rooms(store, shelf, clock, runner=pool.call, limits=limits)
    hub = RedisHub(redis) if redis else LocalHub()
    timers = RoomTimers(rooms, hub, metrics)
    ratings = Ratings(store, clock)
    rooms.on_round_scored.append(ratings.on_room_round)  # a rated game, rated when it ends
    rating_tasks = RatingTasks(lambda: found.ratings)  # the daily boards, once their day ends
    # The timers ask for the services each time (a test may swap one).
    solo_timers = SoloTimers(lambda: found.solo, tournaments=lambda: found.tournaments)
    challenge_sweep = ChallengeSweep(lambda: found.challenges)  # missed standings caught up
    accounts = Accounts(store, clock)
    solo = _with_runner(SoloGames, store, shelf, clock, runner=pool.call)
    found = Services(
        store=store,
        shelf=shelf,
        solo=solo,
        tournaments=_with_runner(PaperTournaments, store, shelf, clock, runner=pool.call),
        rooms=rooms,
        ratings=ratings,
        rating_tasks=rating_tasks,
        clock=clock,
        templates=templates,
        pool=pool,
        hub=hub,
        room_timers=timers,
        solo_timers=solo_timers,
        room_guards=RoomGuards(limits, clock),
        metrics=metrics,
        limits=limits,
        accounts=accounts,
        passkeys=_passkeys(store, clock, accounts, public_origin),
        profiles=Profiles(store, clock),
        leaderboards=Leaderboards(store, clock),
        claims=Claims(store, shelf, clock),
        challenges=Challenges(store, shelf, solo, clock, runner=pool.call),
        training=Training(store, shelf, clock),
        atlas=own_atlas,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        await timers.start()  # overdue rounds scored, running ones timed
        await solo_timers.start()  # the same for solo games
        await rating_tasks.start()  # the daily boards rated, now and every few minutes
        await challenge_sweep.start()
        yield
        await challenge_sweep.stop()
        await rating_tasks.stop()
        await solo_timers.stop()
        await timers.stop()
        await hub.stop()
        await asyncio.to_thread(pool.shutdown)

    app = BoggleApp(
        lifespan=lifespan,
        title="bigboggle",
        version=__version__,
        summary="Big Boggle: solve boards, score paper games, play solo and the daily board.",
        description=(
            'Every refused request answers a 4xx status with `{"error": "…"}` naming what '
            f"is wrong. Limits: request bodies up to {limits.max_body_bytes:,} bytes, sent as "
            "`Content-Type: application/json`; up to 100 players of up to 2,000 words in a "
            "round; boards from 2×2 to 12×12. When the server is busy it answers 503 with "
            "`Retry-After`."
        ),
        docs_url=None,
        redoc_url=None,
    )
    app.router.redirect_slashes = False  # its redirect copies the Host header: see _slash_redirect
    metrics.rooms.set_function(lambda: len(hub.local_rooms()))  # read when scraped
    app.state.services = found
    templates.env.globals["version"] = __version__
    templates.env.globals["url_for"] = _path_for
    # The core's own words for the templates (one place each): verdicts, underlined faces.
    templates.env.globals["verdict_labels"] = VERDICT_LABELS
    templates.env.globals["underlined_faces"] = UNDERLINED_FACES
    templates.env.globals["max_players"] = MAX_PLAYERS  # the scorekeeper's Add a player stops there
    # "Take a photo of the tray" on the pages that take a board, where this server can read one.
    templates.env.globals["photo_reading"] = photo.available()
    templates.env.globals["known_viewer"] = account_pages.known_viewer  # the header's member
    app.include_router(api.router)
    app.include_router(account_routes.router)
    app.include_router(passkey_routes.router)
    app.include_router(room_routes.router)
    app.include_router(claim_routes.router)
    app.include_router(room_socket.router)
    app.include_router(pages.router)
    app.include_router(account_pages.router)
    app.include_router(player_routes.router)
    app.include_router(challenge_routes.router)
    app.include_router(trainer_routes.router)
    app.include_router(trainer_routes.pages)
    app.include_router(atlas_routes.router)
    _install_operator_routes(app)
    app.mount("/static/docs", CachedStaticFiles(directory=DOCS_ASSETS), name="docs-assets")
    app.mount("/static", CachedStaticFiles(directory=HERE / "static"), name="static")
    # Pages, scripts and JSON answers compressed (a phone on a slow link gets them sooner).
    app.add_middleware(GZipMiddleware, minimum_size=1000)
    # State changes and room sockets from other sites refused; the forms' pre-session cookie.
    app.add_middleware(
        CrossSiteGuard,
        public_origin=public_origin or os.environ.get("BIGBOGGLE_PUBLIC_ORIGIN") or None,
    )
    _install_error_handlers(app, templates)
    _install_openapi(app)
    return app


def _operator_atlas(path: str | Path) -> Atlas:
    """The operator's atlas file, read and checked (:class:`AtlasError` names the variable
    and what is wrong)."""
    try:
        return Atlas.load(path)
    except AtlasError as exc:
        raise AtlasError(f"BIGBOGGLE_ATLAS: {exc}") from None


def _passkeys(
    store: Store, clock: Callable[[], float], accounts: Accounts, public_origin: str | None
) -> Passkeys:
    """The passkeys service, for the operator's public origin (``public_origin``, else
    ``BIGBOGGLE_PUBLIC_ORIGIN``) if there is one; a bad one is refused naming the variable."""
    origin = public_origin or os.environ.get("BIGBOGGLE_PUBLIC_ORIGIN") or None
    try:
        return Passkeys(store, clock, accounts, public_origin=origin)
    except AccountError as exc:
        raise AccountError(f"BIGBOGGLE_PUBLIC_ORIGIN: {exc}") from None


#: Swagger UI's script and style sheet, shipped in a package (the docs page works offline).
DOCS_ASSETS = Path(fastapi_offline.__file__).parent / "static"

DOCS_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>bigboggle API</title>
  <link rel="stylesheet" href="/static/docs/swagger-ui.css">
  <link rel="stylesheet" href="/static/docs.css">
  <link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
</head>
<body>
  <div id="swagger-ui" data-openapi="/openapi.json"></div>
  <script src="/static/docs/swagger-ui-bundle.js"></script>
  <script src="/static/docs.js"></script>
</body>
</html>
"""


@jinja2.pass_context
def _path_for(context: dict[str, Any], name: str, /, **path_params: Any) -> str:
    """``url_for`` in templates, as a path on this origin: Starlette's own builds an absolute
    URL from the Host header, which a hostile Host turns into links and scripts elsewhere."""
    request: Request = context["request"]
    path = str(request.app.url_path_for(name, **path_params))
    if name == "static":  # versioned by content, so browsers may keep it for a year
        version = version_of(HERE / "static", str(path_params.get("path", "")))
        if version is not None:
            path += f"?v={version}"
    return path


def _install_operator_routes(app: FastAPI) -> None:
    """``/api/docs`` (Swagger UI from the package, no inline script), ``/healthz`` and
    ``/metrics``."""

    @app.get("/api/docs", include_in_schema=False)
    async def api_docs() -> HTMLResponse:
        return HTMLResponse(DOCS_PAGE)

    @app.get(
        "/healthz",
        tags=["operators"],
        summary="Whether the database and Redis answer: 200, or 503 naming what is down",
        responses={503: {"description": "Something is down; the body names it"}},
    )
    async def healthz(request: Request) -> JSONResponse:
        found = services(request)
        checks = {
            "database": await asyncio.to_thread(_check, found.store.ping),
            "redis": await _check_hub(found.hub),
        }
        down = [name for name, state in checks.items() if state not in ("ok", "not used")]
        body: dict[str, Any] = {
            "status": "down" if down else "ok",
            **checks,
            "version": __version__,
            "pool": {
                "workers": found.pool.workers,
                "started": found.pool.started,
                "in_flight": found.pool.in_flight,
                "waiting": found.pool.waiting,
            },
        }
        if down:
            body["down"] = down
        return JSONResponse(body, status_code=503 if down else 200)

    @app.get("/metrics", include_in_schema=False)
    async def metrics_page(request: Request) -> Response:
        found = services(request).metrics
        return Response(found.render(), media_type=found.content_type)


def _check(probe: Callable[[], Any]) -> str:
    try:
        probe()
    except Exception as exc:  # any failure means down; say which kind
        return f"down ({type(exc).__name__})"
    return "ok"


async def _check_hub(hub: Any) -> str:
    client = getattr(hub, "_redis", None)  # a RedisHub's client; a LocalHub has none
    if client is None:
        return "not used"
    try:
        await asyncio.wait_for(client.ping(), 2.0)
    except Exception as exc:  # any failure means down; say which kind
        return f"down ({type(exc).__name__})"
    return "ok"


def app_from_environment() -> FastAPI:
    """The app as ``bigboggle serve --workers N`` starts it in each worker process: the database
    URL from ``BIGBOGGLE_DB`` and extra word lists (JSON name -> path) from
    ``BIGBOGGLE_WORD_LISTS``."""
    extra = json.loads(os.environ.get("BIGBOGGLE_WORD_LISTS") or "{}")
    configure_access_log()
    return create_app(
        os.environ.get("BIGBOGGLE_DB") or None,
        dictionaries=extra,
        redis=os.environ.get("BIGBOGGLE_REDIS") or None,
        limits=ServerLimits.from_environment(),
    )


#: How ``bigboggle serve`` runs uvicorn's HTTP side: h11 with a header timeout (see
#: :class:`~.middleware.BoundedH11Protocol`).
HTTP_PROTOCOL = "bigboggle.web.middleware:BoundedH11Protocol"


def uvicorn_settings(limits: ServerLimits, trust_proxy: str | None = None) -> dict[str, Any]:
    """uvicorn's settings for ``limits``, for one server process or several: header size and
    timeout, WebSocket message size and keep-alive pings at the transport, a cap on
    connections, and proxy headers trusted only from ``trust_proxy`` (comma-separated
    addresses; ``None``: not at all, so a client's address is its socket's)."""
    return {
        "http": HTTP_PROTOCOL,
        "h11_max_incomplete_event_size": limits.max_header_bytes,
        "timeout_keep_alive": max(1, math.ceil(limits.header_timeout)),
        "ws_max_size": limits.max_message_bytes,
        "ws_ping_interval": limits.ws_ping_interval,
        "ws_ping_timeout": limits.ws_ping_timeout,
        "limit_concurrency": limits.max_connections,
        "proxy_headers": trust_proxy is not None,
        "forwarded_allow_ips": trust_proxy if trust_proxy is not None else "",
        "server_header": False,
        "access_log": False,  # the app writes its own (JSON, with request ids)
    }


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _install_error_handlers(app: FastAPI, templates: Jinja2Templates) -> None:
    metrics: Metrics = app.state.services.metrics

    def answer(request: Request, status: int, message: str) -> Response:
        if status in (413, 415, 429, 431, 503):
            metrics.refused(str(status))
        if _is_api(request):
            return JSONResponse({"error": message}, status_code=status)
        return templates.TemplateResponse(
            request, "error.html", {"status": status, "message": message}, status_code=status
        )

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> Response:
        return answer(request, exc.status, exc.message)

    @app.exception_handler(BoggleError)
    async def boggle_error(request: Request, exc: BoggleError) -> Response:
        response = answer(request, status_of(exc), str(exc))
        if isinstance(exc, BusyError | ThrottledError):
            response.headers["Retry-After"] = str(exc.retry_after)
        return response

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        return answer(request, 400, describe_validation(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            moved = _slash_redirect(request)
            if moved is not None:
                return moved
        path = request.url.path
        shown = path if len(path) <= 60 else path[:57] + "..."
        messages = {404: f"nothing at {shown!r}", 405: "method not allowed here"}
        message = messages.get(exc.status_code, str(exc.detail))
        response = answer(request, exc.status_code, message)
        if exc.headers:
            response.headers.update(exc.headers)
        allowed = _allowed_methods(request) if exc.status_code == 405 else []
        if allowed:
            response.headers["Allow"] = ", ".join(allowed)
        return response

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        # A bug, not bad input: log it with the request id, and say so plainly (no traceback).
        rid = request_id(request.scope)
        log.error("unexpected error (request %s)", rid, exc_info=exc)
        request.state.error_logged = True  # the Guard, which sees it again, logs it no more
        message = f"internal error ({type(exc).__name__}), request id {rid}; please report it"
        if _is_api(request):
            return JSONResponse({"error": message, "request_id": rid}, status_code=500)
        return answer(request, 500, message)


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route answers at this path (a 405's ``Allow``: FastAPI names only the
    first route's, though ``GET`` and ``PATCH`` of one path are two routes)."""
    methods: set[str] = set()
    for route in flat_routes(request.app.router.routes):
        match, _ = route.matches({**request.scope, "method": "-"})
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    if "GET" in methods:
        methods.add("HEAD")  # the Guard answers HEAD as GET
    return sorted(methods)


def flat_routes(routes: Any) -> list[Any]:
    """``routes`` (``app.router.routes``) with those of included routers listed one by one
    (FastAPI wraps each included router in one route; ours are included without a prefix, so
    their routes' paths are the full paths)."""
    flat: list[Any] = []
    for route in routes:
        router = getattr(route, "original_router", None)
        if router is not None:
            flat.extend(flat_routes(router.routes))
        else:
            flat.append(route)
    return flat


def _slash_redirect(request: Request) -> Response | None:
    """For a path that matches a route once its trailing slash is dropped (or added), a
    redirect there, relative to this origin: Starlette's own copies the Host header into
    ``Location``, which a hostile Host turns into a redirect to anywhere."""
    path = request.url.path
    if request.method not in ("GET", "HEAD") or path == "/":
        return None
    other = path.rstrip("/") if path.endswith("/") else path + "/"
    other = "/" + other.lstrip("/")  # never "//host": that would leave this origin
    scope = {**request.scope, "path": other}
    for route in request.app.router.routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            query = request.url.query
            target = other + ("?" + query if query else "")
            return RedirectResponse(target, status_code=307)
    return None


def _install_openapi(app: FastAPI) -> None:
    """Add the request models that routes read themselves to the OpenAPI components."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title,
            version=app.version,
            summary=app.summary,
            description=app.description,
            routes=app.routes,
        )
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for model in BODY_MODELS:
            found = model.model_json_schema(ref_template="#/components/schemas/{model}")
            for name, definition in found.pop("$defs", {}).items():
                components.setdefault(name, definition)
            components[model.__name__] = found
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
