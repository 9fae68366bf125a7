"""The Textual application: settings, the clock, and the order of the screens."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from textual.app import App
from textual.binding import Binding

from ..analysis import Band, shake_in_band
from ..board import Board
from ..dice import new_seed, shake
from ..dictionary import Dictionary
from ..errors import RoundInputError
from ..rules import Rules
from ..scoring import Tournament, check_setup

#: How long a practice round runs: it has no timer, so effectively forever.
PRACTICE_SECONDS = 10.0**9

Clock = Callable[[], float]


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

    def __post_init__(self) -> None:
        for name in self.players:
            if self.players.count(name) > 1:
                raise RoundInputError(f"players: {name!r} appears twice; names must differ")
        if self.players:
            check_setup(list(self.players), self.rules, self.teams, self.min_length)
        elif self.teams:
            raise RoundInputError("teams: team play needs --players")
        elif self.min_length:
            raise RoundInputError(
                "handicaps are for named players at a table (--players); "
                "for yourself, use --min-length"
            )
        if self.teams is not None and len(self.teams) < 2:
            raise RoundInputError("teams: team play needs at least two teams")
        if self.practice and self.timer is not None:
            raise RoundInputError("a practice round has no timer; drop --timer or --practice")
        if self.band is not None:  # a band no board can meet is an error now, not mid-game
            shake_in_band(self.rules, self.words, self.band, seed=self.seed or 0)
        if self.seed is None and self.board is None:
            self.seed = new_seed()

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


class BoggleApp(App[None]):
    """Big Boggle in the terminal. ``clock`` gives "now" in seconds (tests pass their own)."""

    TITLE = "bigboggle"
    CSS = """
    Screen { layout: vertical; }
    #top { height: auto; }
    #left { width: auto; height: auto; }
    #side { width: 1fr; height: auto; padding: 0 1; }
    #countdown { text-style: bold; padding: 0 1; }
    #verdict { height: 1; padding: 0 1; }
    #summary { width: 1fr; height: auto; padding: 0 1; }
    DataTable { height: 1fr; }
    #found { height: 9; }
    TextArea { height: 1fr; }
    """
    BINDINGS = [
        Binding("f1", "help", "Help"),
        Binding("question_mark", "help", "Help", show=False),
        Binding("ctrl+q", "quit", "Quit"),
    ]

    def __init__(
        self, settings: PlaySettings, clock: Clock = time.monotonic, key_guard: float = 1.0
    ) -> None:
        super().__init__()
        self.settings = settings
        self.clock = clock
        #: Seconds during which a results screen ignores its letter keys, so that letters still
        #: being typed when time runs out do not quit or skip the results.
        self.key_guard = key_guard
        self.round_number = 0
        self.tournament: Tournament | None = None
        if settings.table_mode and (settings.target or settings.rounds):
            self.tournament = Tournament(target=settings.target, rounds=settings.rounds)
        self.totals: dict[str, int] = {}
        #: The seed each round's board was shaken from (None for a given board).
        self.round_seeds: list[int | None] = []

    def next_board(self) -> Board:
        """The board of the next round (the given one first, then seeded or fresh shakes)."""
        self.round_number += 1
        settings = self.settings
        if self.round_number == 1 and settings.board is not None:
            self.round_seeds.append(None)
            return settings.board
        seed = None if settings.seed is None else settings.seed + self.round_number - 1
        if settings.band is not None:
            previous = self.round_seeds[-1] if self.round_seeds else None
            start = previous + 1 if previous is not None else seed
            if start is None:
                start = new_seed()
            dealt, used = shake_in_band(settings.rules, settings.words, settings.band, seed=start)
            self.round_seeds.append(used)
            return dealt.board
        self.round_seeds.append(seed)
        return shake(settings.rules.dice, seed, challenge=settings.rules.challenge).board

    def on_mount(self) -> None:
        self.start_round()

    def start_round(self) -> None:
        """Shake (or take) the next board and show the screen that plays it."""
        from .solo import PlayScreen
        from .table import TrayScreen

        board = self.next_board()
        if self.settings.table_mode:
            self.switch_or_push(TrayScreen(board))
        else:
            self.switch_or_push(PlayScreen(board))

    def switch_or_push(self, screen: object) -> None:
        """Show ``screen`` in place of the current game screen (closing the help if open)."""
        from textual.screen import ModalScreen, Screen

        assert isinstance(screen, Screen)
        while isinstance(self.screen, ModalScreen):
            self.pop_screen()
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def action_help(self) -> None:
        """Show the keys and the rules."""
        from .help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.settings))
