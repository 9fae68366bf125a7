"""The web front end: pages, the JSON API (and, later, multiplayer rooms) as an ASGI app."""

from .app import create_app

__all__ = ["create_app"]
