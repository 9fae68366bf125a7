"""The web front end: pages, the JSON API and multiplayer rooms (a WebSocket), as an ASGI app.

:mod:`.app` builds the app; the route modules (:mod:`.api`, :mod:`.pages`, :mod:`.rooms`,
:mod:`.room_socket`) reach the services through :mod:`.plumbing` and never import the app."""

from .app import create_app

__all__ = ["create_app"]
