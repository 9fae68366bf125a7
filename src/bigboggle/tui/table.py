"""Table mode: the screen is the tray for a game at a real table.

Everyone reads the one board while the timer runs and writes on paper; then each player types
their list in turn, and the round is scored by the rules (crossing off, teams, handicaps,
advanced play, the challenge cube), round after round, as a tournament if asked.

A computer opponent at the table (``--opponent``) writes its list as the timer runs (the tray
shows how many words each has written, never which); when time is up its list is what it had
written by then (in a practice round, which has no timer, the list of a standard-length round),
and it is scored with the people's, crossing off included, in the results and the totals.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Digits, Footer, TextArea

from ..board import Board, Path
from ..errors import BoggleError
from ..family import is_offensive
from ..scoring import RoundResult, score_round
from ..solver import solve
from ..verdicts import Verdict, WordResult
from .board_view import BoardView, Plain, cells
from .clock import clock_text
from .host import GameScreen
from .opponents import Playing, play_round, progress_line
from .solo import first_entries, offensive_note, plural, repeat_label


class TrayScreen(GameScreen):
    """The board and the timer, big, for everyone at the table."""

    BINDINGS = [Binding("ctrl+e", "end_round", "Time's up now")]

    def __init__(self, board: Board) -> None:
        super().__init__()
        self.board = board
        self.deadline = 0.0
        self.started = 0.0
        self.done = False
        #: The computer opponents at the table, writing their lists as the timer runs.
        self.playing: list[Playing] = []

    DEFAULT_CSS = """
    TrayScreen #tray { align: center middle; height: 1fr; width: 100%; }
    TrayScreen #tray Plain { width: auto; max-width: 100%; }
    TrayScreen #tray BoardView { width: auto; }
    TrayScreen #tray Digits { width: auto; }
    """

    def compose(self) -> ComposeResult:
        settings = self.host.settings
        players = ", ".join(settings.players)
        if settings.seats:
            players += " and " + ", ".join(seat.name for seat in settings.seats)
        rules = settings.rules
        notes = [f"{rules.min_length}+ letters, adjoining cubes, no cube twice"]
        if rules.challenge:
            notes.append(f"a word through the * cube: +{rules.challenge_bonus}")
        if settings.min_length:
            notes.append(
                "handicaps: "
                + ", ".join(f"{n} {m}+ letters" for n, m in settings.min_length.items())
            )
        with Vertical(id="tray"):
            yield Plain(f"Round {self.host.round_number}: {players}. Write your words on paper.")
            yield BoardView(self.board, id="board", big=self.app.size.height >= 34)
            yield Digits("", id="clock")
            yield Plain("\n".join(notes), id="countdown")
            if settings.seats:
                yield Plain("", id="rivals")
        yield Footer()

    def on_mount(self) -> None:
        settings = self.host.settings
        self.started = self.host.clock()
        self.deadline = self.started + settings.seconds
        if settings.seats:
            self.playing = play_round(
                settings.seats,
                solve(self.board, settings.words, settings.rules),
                settings.words,
                settings.rules,
                settings.opponent_seconds,
                self.host.opponent_seeds[-1],
            )
        self.tick()
        self.set_interval(0.25, self.tick)

    def tick(self) -> None:
        """Count down; when time is up, collect the lists."""
        if self.done:
            return
        now = self.host.clock()
        left = self.deadline - now
        if self.playing:
            for one in self.playing:
                one.due(now - self.started)
            self.query_one("#rivals", Plain).update(progress_line(self.playing))
        digits = self.query_one("#clock", Digits)
        if self.host.settings.practice:
            digits.update("--:--")
        else:
            digits.update(clock_text(left))
        if left <= 0:
            self.app.bell()
            self.notify("Time's up! Pens down.")
            self.collect()

    def action_end_round(self) -> None:
        self.collect()

    def collect(self) -> None:
        """Time's up: each player types their list in turn."""
        if self.done:
            return
        self.done = True
        settings = self.host.settings
        # Pens down: an opponent's list is what it wrote by now (in practice, its whole list).
        elapsed = float("inf") if settings.practice else self.host.clock() - self.started
        written = {one.seat.name: one.written_by(elapsed) for one in self.playing}
        self.host.switch_or_push(EntryScreen(self.board, settings.players, {}, written))


def split_list(text: str) -> list[str]:
    """A typed paper list: words separated by new lines, spaces or commas."""
    return [word for word in re.split(r"[\s,;]+", text) if word]


class EntryScreen(GameScreen):
    """One player types their paper list; ctrl+s passes the keyboard to the next player."""

    # ctrl+s is not a priority binding: it then reaches the list's TextArea in turn, after the
    # keys typed before it (a priority binding ran ahead of keys still queued for the TextArea, so
    # a list typed or pasted in one burst lost its last words, or all of them).
    BINDINGS = [
        Binding("ctrl+s", "done", "Done: next player"),
        Binding("question_mark", "app.help", "Help", priority=True, show=False),
    ]

    def __init__(
        self,
        board: Board,
        players: tuple[str, ...],
        lists: dict[str, list[str]],
        opponents: Mapping[str, list[str]] | None = None,
    ) -> None:
        super().__init__()
        self.board = board
        self.players = players
        self.lists = lists
        #: The computer opponents' lists, written by the time the pens went down.
        self.opponents = dict(opponents or {})
        self.player = players[len(lists)]

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield BoardView(self.board, id="board")
            with Vertical(id="side"):
                yield Plain(f"{self.player}: type your list", id="who")
                yield Plain(
                    "One word per line (or separated by spaces), exactly as written on paper.\n"
                    "ctrl+s when done."
                )
        yield TextArea(id="list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#list", TextArea).focus()

    def action_done(self) -> None:
        lists = dict(self.lists)
        lists[self.player] = split_list(self.query_one("#list", TextArea).text)
        settings = self.host.settings
        if len(lists) < len(self.players):
            self.host.switch_or_push(EntryScreen(self.board, self.players, lists, self.opponents))
            return
        try:
            result = score_round(
                self.board,
                {**lists, **self.opponents},
                settings.rules,
                settings.words,
                teams=settings.teams,
                min_length=settings.min_length or None,
            )
        except BoggleError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        if self.host.tournament is not None:
            self.host.tournament.add(result)
        for name, points in result.scores.items():
            self.host.totals[name] = self.host.totals.get(name, 0) + points
        self.host.switch_or_push(TableResultsScreen(result))


def team_line(result: RoundResult, team: str) -> str | None:
    """How a team's points come from its members' when some of them wrote the same word
    (``red 3 = ann 2 + amy 2 - 1 shared (cats)``); ``None`` when nothing is shared."""
    sharing = result.team_sharing(team)
    if sharing is None:
        return None
    words = ", ".join(sharing.first_shared) + (", ..." if sharing.more_shared else "")
    return (
        f"{team} {sharing.score} = "
        + " + ".join(f"{member} {score}" for member, score in sharing.members)
        + f" - {sharing.counted_twice} shared ({words}: once for the team)"
    )


class TableResultsScreen(GameScreen):
    """Everyone's verdicts, the round's points, the running totals and the words nobody found.

    Once a tournament is over, ``n`` starts a new game (the next round would have no game)."""

    BINDINGS = [
        Binding("n", "next_round", "Next round"),
        Binding("n", "new_game", "New game"),
        Binding("o", "toggle_offensive", "Offensive words"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, result: RoundResult) -> None:
        super().__init__()
        self.result = result
        self.paths: dict[str, Path | None] = {}
        self.show_offensive: bool | None = None
        teams = result.teams or {}
        #: Player -> team, and each team's words several members wrote (team play only).
        self.team_of = {member: name for name, team in teams.items() for member in team.members}
        self.shared = {name: result.shared_words(name) for name in teams}

    @property
    def game_over(self) -> bool:
        """Whether this round ended the tournament."""
        tournament = self.host.tournament
        return tournament is not None and tournament.is_over

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer ``n`` as the next round while the game goes on, as a new game once over."""
        if action == "next_round":
            return not self.game_over
        if action == "new_game":
            return self.game_over
        if action == "toggle_offensive":
            return any(is_offensive(missed.word) for missed in self.result.missed)
        return True

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield BoardView(self.result.board, id="board")
            yield Plain(self.summary(), id="summary")
        table: DataTable[str] = DataTable(id="verdicts", cursor_type="row", zebra_stripes=True)
        yield table
        yield Footer()

    def summary(self) -> str:
        """This round's points and the standings so far."""
        result = self.result
        scores = result.scores
        lines = ["This round: " + ", ".join(f"{name} {scores[name]}" for name in result.ranking)]
        tournament = self.host.tournament
        totals = tournament.totals if tournament is not None else self.host.totals
        standings = (
            tournament.standings
            if tournament is not None
            else sorted(totals, key=lambda name: -totals[name])
        )
        lines.append("Totals: " + ", ".join(f"{name} {totals[name]}" for name in standings))
        if tournament is not None and tournament.is_over:
            if tournament.winner is not None:
                lines.append(f"The game is over: {tournament.winner} wins!")
            else:
                lines.append(f"The game is over: a tie between {' and '.join(tournament.leaders)}.")
        if result.teams is not None:
            lines.append("Team play: a word two team-mates wrote counts once for the team.")
            lines.extend(line for team in result.teams if (line := team_line(result, team)))
        missed = result.missed
        worth = plural(sum(m.score for m in missed), "point")
        lines.append(f"Nobody found {plural(len(missed), 'word')} worth {worth}.")
        next_step = "n: new game" if self.game_over else "n: next round"
        offensive = ", o: offensive words" if self.check_action("toggle_offensive", ()) else ""
        lines.append(f"Select a row to see its path. {next_step}{offensive}, q: quit.")
        return "\n".join(lines)

    def on_mount(self) -> None:
        if self.show_offensive is None:
            self.show_offensive = self.host.settings.show_offensive
        table = self.query_one("#verdicts", DataTable)
        table.add_columns("player", "word", "verdict", "pts")
        self.fill()
        table.focus()

    def verdict_text(self, name: str, entry: WordResult, first: WordResult | None) -> str:
        """An entry's verdict, saying what a repeat repeats and when a team shares a word."""
        label = repeat_label(entry, first)
        team = self.team_of.get(name)
        if entry.verdict is Verdict.SCORED and team is not None and entry.word in self.shared[team]:
            label += f" (shared: once for {team})"
        return label

    def fill(self) -> None:
        """Everyone's entries, then the words nobody found (offensive ones unless asked)."""
        table = self.query_one("#verdicts", DataTable)
        table.clear()
        self.paths.clear()
        for name, player in self.result.players.items():
            first = first_entries(player.words)
            for index, entry in enumerate(player.words):
                key = f"{name}:{index}"
                verdict = self.verdict_text(name, entry, first.get(entry.word))
                table.add_row(*cells(name, entry.word, verdict, entry.score or ""), key=key)
                self.paths[key] = entry.path
        shown = self.result.missed
        if not self.show_offensive:
            shown = tuple(missed for missed in shown if not is_offensive(missed.word))
        for missed in shown[:50]:
            key = f"missed:{missed.word}"
            table.add_row(*cells("(nobody)", missed.word, "missed", missed.score), key=key)
            self.paths[key] = missed.path
        hidden = len(self.result.missed) - len(shown)
        if hidden:
            table.add_row(*cells("…", "", offensive_note(hidden, "o"), ""), key="offensive")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value if event.row_key is not None else None
        self.query_one("#board", BoardView).highlight(self.paths.get(key or ""))

    def action_next_round(self) -> None:
        if not self.game_over:
            self.host.start_round()

    def action_new_game(self) -> None:
        if self.game_over:
            self.host.new_game()

    def action_toggle_offensive(self) -> None:
        self.show_offensive = not self.show_offensive
        self.fill()
