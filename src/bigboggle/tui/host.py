"""What a screen of the terminal game may ask of the app that shows it.

The screens are leaves: they never import the app. They reach it through :class:`GameScreen`'s
``host``, typed as the :class:`GameHost` protocol below, which :class:`bigboggle.tui.app.BoggleApp`
implements: the settings, the clock, the round count and totals, and the two ways to move on
(the next round, a new game, the next screen).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from textual.screen import Screen

from ..scoring import Tournament
from .clock import Clock
from .settings import PlaySettings


@runtime_checkable
class GameHost(Protocol):
    """The app as its screens see it."""

    settings: PlaySettings
    #: "Now" in seconds: the screens pass it to the round engine, never reading the time.
    clock: Clock
    #: Seconds during which a results screen ignores its letter keys.
    key_guard: float
    #: The round being played in this game, from 1.
    round_number: int
    #: The tournament in table mode with a target or a number of rounds, else None.
    tournament: Tournament | None
    #: Each player's points over the rounds so far (table mode without a tournament).
    totals: dict[str, int]
    #: The seed each round's board was shaken from (None for a given board).
    round_seeds: list[int | None]
    #: The seed each round's computer opponents derive theirs from.
    opponent_seeds: list[int]

    def start_round(self) -> None:
        """Shake (or take) the next board and show the screen that plays it."""

    def new_game(self) -> None:
        """Start a new game (a new tournament, totals from nought) on the next board."""

    def switch_or_push(self, screen: Screen[None]) -> None:
        """Show ``screen`` in place of the current game screen (closing the help if open)."""


class GameScreen(Screen[None]):
    """A screen of the game: :attr:`host` is the app that shows it, as a :class:`GameHost`."""

    @property
    def host(self) -> GameHost:
        """The app showing this screen."""
        app = self.app
        assert isinstance(app, GameHost), "a game screen runs in the game's app"
        return app
