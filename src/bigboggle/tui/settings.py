"""What the player chose for a terminal game: rules, words, boards, players, the timer.

The settings are checked as they are made, before any screen opens: the players, teams and
handicaps by :func:`bigboggle.round_setup.settle_setup`, the one check of a round's setup that
every front end and service uses (so one team is a table's valid setup, as it is a room's, and
``--teams red=ANN`` seats the player ``Ann``), and the rest here. Computer opponents are seated
here too, once for the whole game (:func:`.opponents.seat_opponents`), so a table's totals
know them by one name round after round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..analysis import Band, shake_in_band
from ..board import Board
from ..dice import new_seed
from ..dictionary import Dictionary
from ..errors import RoundInputError
from ..round_setup import settle_setup
from ..rules import Rules
from .opponents import Seat, seat_opponents

#: How long a practice round runs: it has no timer, so effectively forever.
PRACTICE_SECONDS = 10.0**9
#: The solo player's name in the round (and among whom the opponents' seats are named).
PLAYER = "you"


@dataclass
class PlaySettings:
    """What the player chose on the command line.

    With ``players``, the game runs in table mode (one board, paper lists typed in after the
    timer); without, it is a solo game. ``seed`` makes the boards replayable: round ``n`` uses
    ``seed + n - 1``. ``board`` fixes the first round's board.
    """

    rules: Rules
    words: Dictionary
    seed: int | None = None
    board: Board | None = None
    timer: float | None = None
    practice: bool = False
    players: tuple[str, ...] = ()
    teams: dict[str, list[str]] | None = None
    min_length: dict[str, int] = field(default_factory=dict)
    target: int | None = None
    rounds: int | None = None
    #: Only boards in this band (an :class:`bigboggle.analysis.Band`), when set.
    band: Band | None = None
    #: Whether the results list missed words the family filter marks offensive (else they
    #: wait behind a key, counted).
    show_offensive: bool = False
    #: The computer opponents' strengths, one per opponent (``--opponent``, repeated).
    opponents: tuple[str, ...] = ()
    #: The opponents' seats, named when the settings are made (from ``opponents``).
    seats: tuple[Seat, ...] = field(init=False, default=())
    #: The trainer's deck file that each solo round's missed words feed (``bigboggle train``
    #: drills them); ``None``: none is kept.
    deck: Path | None = None

    def __post_init__(self) -> None:
        if self.players:
            self.teams, self.min_length = settle_setup(
                list(self.players), self.rules, self.teams, self.min_length or None
            )
        elif self.teams is not None:
            raise RoundInputError("teams: team play needs --players")
        elif self.min_length:
            raise RoundInputError(
                "handicaps are for named players at a table (--players); "
                "for yourself, use --min-length"
            )
        if self.practice and self.timer is not None:
            raise RoundInputError("a practice round has no timer; drop --timer or --practice")
        if self.band is not None:  # a band no board can meet is an error now, not mid-game
            shake_in_band(self.rules, self.words, self.band, seed=self.seed or 0)
        if self.seed is None and self.board is None:
            self.seed = new_seed()
        if self.opponents and self.teams is not None:
            raise RoundInputError("opponents play for themselves: drop --teams or --opponent")
        self.seats = seat_opponents(tuple(self.opponents), self.players or (PLAYER,))

    @property
    def table_mode(self) -> bool:
        """Whether this is a game for a real table of players."""
        return bool(self.players)

    @property
    def seconds(self) -> float:
        """The round's length in seconds."""
        if self.practice:
            return PRACTICE_SECONDS
        return float(self.timer if self.timer is not None else self.rules.timer)

    @property
    def opponent_seconds(self) -> float:
        """How long the opponents play: the round's length, and in a practice round (which
        has no timer) a standard one, the rules' timer; their whole list then counts whenever
        the round ends."""
        if self.practice:
            return float(self.rules.timer)
        return self.seconds
