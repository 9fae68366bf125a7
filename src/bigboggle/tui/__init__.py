"""The terminal game (Textual): solo play, and table mode for a game at a real table.

A front end only: the rounds are :class:`bigboggle.Round` and :func:`bigboggle.score_round`;
this package draws them and passes the clock in.
"""

from .app import BoggleApp, PlaySettings

__all__ = ["BoggleApp", "PlaySettings"]
