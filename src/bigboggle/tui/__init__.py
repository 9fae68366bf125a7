"""The terminal game (Textual): solo play, and table mode for a game at a real table.

A front end only: the rounds are :class:`bigboggle.Round` and :func:`bigboggle.score_round`;
this package draws them and passes the clock in. A challenge (:mod:`.challenge`) is played
on a server instead, over its JSON API (:mod:`.remote`), which judges every word. The app (:mod:`.app`) orders the screens;
the screens (:mod:`.solo`, :mod:`.table`, :mod:`.help`) are leaves that reach it through
:class:`.host.GameHost`, with the settings, the clock and the board's view in modules of their own.
"""

from .app import BoggleApp, ChallengeApp
from .settings import PlaySettings

__all__ = ["BoggleApp", "ChallengeApp", "PlaySettings"]
