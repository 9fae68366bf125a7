"""The web app: an ASGI application with the pages and the JSON API, on one database.

``create_app()`` wires the library's services (solo games, tournaments, the dictionary shelf)
to a :class:`~bigboggle.store.Store`; ``bigboggle serve`` runs it under uvicorn. The clock is a
parameter so that tests can move time; the server's clock is the only one a game trusts.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from .._version import __version__
from ..errors import BoggleError, GameStateError
from ..paper_games import PaperTournaments
from ..rooms import Rooms
from ..shelf import DictionaryShelf
from ..solo_games import NotFoundError, NotOwnerError, SoloGames
from ..store import Store, StoreError
from .hub import LocalHub, RedisHub
from .inputs import BODY_MODELS, MAX_BODY_BYTES, ApiError, describe_validation

HERE = Path(__file__).parent


@dataclass
class Services:
    """What the routes use: the database and the services built on it."""

    store: Store
    shelf: DictionaryShelf
    solo: SoloGames
    tournaments: PaperTournaments
    clock: Callable[[], float]
    templates: Jinja2Templates


def services(request: Request) -> Services:
    """The app's services (for route functions)."""
    found: Services = request.app.state.services
    return found


def create_app(
    db: str | Store | None = None,
    *,
    dictionaries: Mapping[str, str | Path] | None = None,
    clock: Callable[[], float] = time.time,
    redis: str | None = None,
) -> FastAPI:
    """The ASGI app on database ``db`` (a URL or an open store; default: the SQLite file in the
    user's data directory), offering the built-in dictionaries plus ``dictionaries``. With
    ``redis`` (a URL), rooms are shared with other server processes through Redis."""
    store = db if isinstance(db, Store) else Store(db)
    shelf = DictionaryShelf(dictionaries)
    templates = Jinja2Templates(directory=HERE / "templates")
    from .rooms import RoomTimers

    rooms = Rooms(store, shelf, clock)
    hub = RedisHub(redis) if redis else LocalHub()
    timers = RoomTimers(rooms, hub)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        yield
        await timers.stop()
        await hub.stop()

    app = FastAPI(
        lifespan=lifespan,
        title="bigboggle",
        version=__version__,
        summary="Big Boggle: solve boards, score paper games, play solo and the daily board.",
        description=(
            'Every refused request answers a 4xx status with `{"error": "…"}` naming what '
            f"is wrong. Limits: request bodies up to {MAX_BODY_BYTES:,} bytes; up to 100 "
            "players of up to 2,000 words in a round; boards from 2×2 to 12×12."
        ),
        docs_url="/api/docs",
        redoc_url=None,
    )
    app.state.services = Services(
        store=store,
        shelf=shelf,
        solo=SoloGames(store, shelf, clock),
        tournaments=PaperTournaments(store, shelf, clock),
        clock=clock,
        templates=templates,
    )
    templates.env.globals["version"] = __version__
    app.state.rooms = rooms
    app.state.hub = hub
    app.state.timers = timers

    from .api import router as api_router
    from .pages import router as page_router
    from .rooms import router as room_router

    app.include_router(api_router)
    app.include_router(room_router)
    app.include_router(page_router)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    _install_error_handlers(app, templates)
    _install_openapi(app)
    return app


def app_from_environment() -> FastAPI:
    """The app as ``bigboggle serve --workers N`` starts it in each worker process: the database
    URL from ``BIGBOGGLE_DB`` and extra word lists (JSON name -> path) from
    ``BIGBOGGLE_WORD_LISTS``."""
    extra = json.loads(os.environ.get("BIGBOGGLE_WORD_LISTS") or "{}")
    return create_app(
        os.environ.get("BIGBOGGLE_DB") or None,
        dictionaries=extra,
        redis=os.environ.get("BIGBOGGLE_REDIS") or None,
    )


def _status_of(exc: BoggleError) -> int:
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, NotOwnerError):
        return 403
    if isinstance(exc, GameStateError):
        return 409
    if isinstance(exc, StoreError):
        return 503
    return 400


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _install_error_handlers(app: FastAPI, templates: Jinja2Templates) -> None:
    def answer(request: Request, status: int, message: str) -> Response:
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
        return answer(request, _status_of(exc), str(exc))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        return answer(request, 400, describe_validation(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        messages = {404: f"nothing at {request.url.path!r}", 405: "method not allowed here"}
        message = messages.get(exc.status_code, str(exc.detail))
        response = answer(request, exc.status_code, message)
        if exc.headers:
            response.headers.update(exc.headers)
        return response

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:  # pragma: no cover
        # A bug, not bad input: say so plainly rather than show a traceback.
        return answer(request, 500, f"internal error ({type(exc).__name__}); please report it")


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
