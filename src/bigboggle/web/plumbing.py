"""What every route module shares: the app's services (one way to reach each) and the JSON
response class. Route modules import this module, never the app (:mod:`.app` builds the
:class:`Services` and includes the routes); the error table is :mod:`.error_table`.

A route reaches a service through the request (or WebSocket) it answers::

    found = services(request)
    found.solo.get(game_id)          # solo games
    found.room_timers.at(key, due)   # the rooms' timers
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
from fastapi.responses import JSONResponse as _StarletteJSON
from fastapi.templating import Jinja2Templates
from starlette.requests import HTTPConnection
from starlette.responses import Response

from ..atlas import Atlas
from ..limits import ServerLimits
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
from ..services.solo_views import SoloView
from ..services.store import Store
from ..services.training import Training
from .hub import LocalHub
from .metrics import Metrics
from .pool import WorkerPool
from .rating_tasks import RatingTasks
from .room_guards import RoomGuards
from .room_timers import RoomTimers
from .solo_timers import SoloTimers


@dataclass
class Services:
    """Everything a route uses, built once per app by :func:`~.app.create_app`."""

    #: The database, and the services built on it.
    store: Store
    shelf: DictionaryShelf
    solo: SoloGames
    tournaments: PaperTournaments
    rooms: Rooms
    #: Members' ratings (rated room games, the daily boards), and the task settling the boards.
    ratings: Ratings
    rating_tasks: RatingTasks
    #: The server's clock (seconds since the epoch): the only one a game trusts.
    clock: Callable[[], float]
    templates: Jinja2Templates
    #: Where CPU work runs (solving, scoring, band searches): never on the event loop.
    pool: WorkerPool
    #: Rooms' news between connections (in this process, or through Redis).
    hub: LocalHub
    #: Timers at deadlines: rooms' rounds and absent hosts, and solo games.
    room_timers: RoomTimers
    solo_timers: SoloTimers
    #: The rooms' per-address and per-seat limits in this process.
    room_guards: RoomGuards
    #: What ``/metrics`` shows.
    metrics: Metrics
    #: The operator's limits.
    limits: ServerLimits
    #: Members, their sessions and the log-in throttle (:mod:`bigboggle.services.accounts`).
    accounts: Accounts
    #: Members' passkeys: WebAuthn ceremonies and the list (:mod:`bigboggle.services.passkeys`).
    passkeys: Passkeys
    #: Members' profiles and the leaderboards (views of the plays and ratings).
    profiles: Profiles
    leaderboards: Leaderboards
    #: Guests' games and seats becoming a member's (:mod:`bigboggle.services.claims`).
    claims: Claims
    #: Asynchronous challenges (:mod:`bigboggle.services.challenges`), played as solo games.
    challenges: Challenges
    #: The trainer: members' decks, and guests' decks scheduled statelessly.
    training: Training
    #: The operator's atlas (``BIGBOGGLE_ATLAS``, read at the start); ``None``: the atlas
    #: page shows the package's shipped one, if any (:func:`bigboggle.atlas.shipped_atlas`).
    atlas: Atlas | None = None


def services(connection: HTTPConnection) -> Services:
    """The services of the app answering ``connection`` (a request or a WebSocket)."""
    found: Services = connection.app.state.services
    return found


class JSONResponse(_StarletteJSON):
    """JSON written by orjson: a solve's answer (hundreds of words with paths) is written in a
    tenth of the time the standard library takes, which is most of what a request costs."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


_Answer = TypeVar("_Answer", bound=Response)


def own_view_headers(response: _Answer, view: SoloView) -> _Answer:
    """``response`` (a game's page or ``GET /api/games/ID``) marked for caches: it differs by
    session and key (``Vary``), and its player's own view (their words; a private round whole)
    or a private round's view must never be kept by any cache (``private, no-store``)."""
    if view.owner or view.game.private_until is not None:
        response.headers["Cache-Control"] = "private, no-store"
    response.headers["Vary"] = "Cookie, X-Game-Key"
    return response
