"""The Textual application: the order of the screens, round after round.

The app is the one module of the terminal game that knows them all: the settings
(:mod:`.settings`), the clock (:mod:`.clock`) and the screens (:mod:`.solo`, :mod:`.table`,
:mod:`.help`), which see it only as the :class:`~.host.GameHost` it implements.
"""

from __future__ import annotations

import time
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.screen import ModalScreen, Screen

from ..analysis import shake_in_band
from ..board import Board
from ..dice import new_seed, shake
from ..scoring import Tournament
from .challenge import ChallengeIntroScreen
from .clock import Clock
from .help import HelpScreen
from .remote import ChallengeClient, KeyFile
from .settings import PlaySettings
from .solo import PlayScreen
from .table import TrayScreen


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
        #: Boards dealt over every game (round n's seed is ``seed + n - 1`` across new games,
        #: so a new game does not replay the last one's boards).
        self.boards_dealt = 0
        self.tournament: Tournament | None = None
        self.totals: dict[str, int] = {}
        self._reset_scores()
        #: The seed each round's board was shaken from (None for a given board).
        self.round_seeds: list[int | None] = []
        #: The seed each round's opponents derive theirs from: the board's seed, or for a given
        #: board ``--seed`` (or a fresh one), so a replayed seed replays the opponents too.
        self.opponent_seeds: list[int] = []

    def _reset_scores(self) -> None:
        """Totals from nought, and a fresh tournament when the table plays one."""
        settings = self.settings
        self.tournament = None
        if settings.table_mode and (settings.target or settings.rounds):
            self.tournament = Tournament(target=settings.target, rounds=settings.rounds)
        self.totals = {}

    def new_game(self) -> None:
        """Start a new game (a new tournament, totals from nought) on the next board."""
        self._reset_scores()
        self.round_number = 0
        self.start_round()

    def next_board(self) -> Board:
        """The board of the next round (the given one first, then seeded or fresh shakes)."""
        board = self._next_board()
        seed = self.round_seeds[-1]
        if seed is None:
            given = self.settings.seed if self.boards_dealt == 1 else None
            seed = given if given is not None else new_seed()
        self.opponent_seeds.append(seed)
        return board

    def _next_board(self) -> Board:
        self.round_number += 1
        self.boards_dealt += 1
        settings = self.settings
        if self.boards_dealt == 1 and settings.board is not None:
            self.round_seeds.append(None)
            return settings.board
        seed = None if settings.seed is None else settings.seed + self.boards_dealt - 1
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
        board = self.next_board()
        if self.settings.table_mode:
            self.switch_or_push(TrayScreen(board))
        else:
            self.switch_or_push(PlayScreen(board))

    def switch_or_push(self, screen: Screen[None]) -> None:
        """Show ``screen`` in place of the current game screen (closing the help if open)."""
        while isinstance(self.screen, ModalScreen):
            self.pop_screen()
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def action_help(self) -> None:
        """Show the keys and the rules."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.settings))


class ChallengeApp(App[None]):
    """A challenge's next round played on a bigboggle server (``bigboggle play --challenge``).

    ``info`` is the challenge as the server described it (read before the app starts, so a
    wrong code or an unreachable server is an error on the command line). ``player`` is the
    name to play under (else the one kept in ``keys`` for this challenge, else asked for);
    ``team`` the team to play for in a team challenge (else your seat's, else asked for);
    ``keys`` keeps each challenge's seat (a game key) for the next round.
    """

    TITLE = "bigboggle"
    CSS = BoggleApp.CSS
    BINDINGS = [Binding("ctrl+q", "quit", "Quit")]

    def __init__(
        self,
        client: ChallengeClient,
        code: str,
        info: dict[str, Any],
        *,
        player: str | None = None,
        keys: KeyFile | None = None,
        clock: Clock = time.monotonic,
        key_guard: float = 1.0,
        team: str | None = None,
    ) -> None:
        super().__init__()
        self.client = client
        self.code = code
        self.info = info
        self.team: str | None = team
        self.clock = clock
        self.key_guard = key_guard
        self.keys = keys
        kept = keys.seat(client.server, code, player) if keys is not None else None
        self.player: str | None = player
        self.key: str | None = None
        if kept is not None:
            self.player, self.key = kept["player"], kept["key"]

    def on_mount(self) -> None:
        self.push_screen(ChallengeIntroScreen())

    def switch_or_push(self, screen: Screen[None]) -> None:
        """Show ``screen`` in place of the current one."""
        while isinstance(self.screen, ModalScreen):
            self.pop_screen()
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
