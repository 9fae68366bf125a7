"""Solo play: a timed round with a verdict for every word, then the results and missed words.

In a practice round the hints of :mod:`bigboggle.hints` are free (F2: the words left by length,
F3: a word's length and first letters, F4: its starting cube, F5: its whole path), and the
results list those used. A solo round's missed words feed the trainer's deck file when the
settings name one (:class:`bigboggle.trainer.DeckFile`).

With computer opponents (``--opponent``), they sit in the same :class:`bigboggle.Round`: their
entries are submitted at their own times as the clock passes them (the screen shows how many
each has written, never which), and when the round ends each plays its round out (ending early
ends it for you, not for them). The round is then scored with everyone's lists, crossing off
included, and the results show each opponent's list, its verdicts and the ranking.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Iterable, Sequence
from pathlib import Path as FilePath

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Input, Static

from ..board import Board, Path
from ..dictionary import COMMON_LEVEL, Dictionary
from ..errors import BoggleError
from ..family import is_offensive
from ..hints import HINT_LABELS, Hint, hint
from ..judge import Judge
from ..round import Round, check_entry
from ..scoring import RoundResult
from ..solver import FoundWord, Solution
from ..trainer import DeckFile
from ..verdicts import Verdict, WordResult
from .board_view import BoardView, Plain, cells
from .clock import clock_text
from .host import GameScreen
from .opponents import Playing, play_round, progress_line
from .settings import PLAYER

__all__ = ["PLAYER", "PlayScreen", "ResultsScreen"]


def verdict_line(result: WordResult, first: WordResult | None = None) -> str:
    """A one-line verdict for the status line. ``first`` is the earlier entry a ``repeated``
    one repeats: a word typed again is told what it was (``not on the board (again)``), and
    only a good word reads "already found"."""
    if result.verdict is Verdict.SCORED:
        points = plural(result.score, "point")
        bonus = f" (+{result.bonus} challenge cube)" if result.bonus else ""
        return f"{result.word.upper()}: {points}{bonus}"
    shown = result.word.upper() if result.word else repr(result.entry)
    return f"{shown}: {repeat_label(result, first)}"


def repeat_label(result: WordResult, first: WordResult | None) -> str:
    """The verdict's label, saying for a repeat what the first entry of the word was."""
    if result.verdict is not Verdict.REPEATED or first is None:
        return result.verdict.label
    if first.verdict.is_valid:
        return f"{result.verdict.label} (already found)"
    return f"{first.verdict.label} (again)"


def first_entries(results: Iterable[WordResult]) -> dict[str, WordResult]:
    """Each word's first entry in a list (what its later repeats repeat)."""
    first: dict[str, WordResult] = {}
    for result in results:
        if result.verdict is not Verdict.REPEATED:
            first.setdefault(result.word, result)
    return first


def offensive_note(hidden: int, key: str) -> str:
    """The row that stands for the missed words the family filter hides."""
    return f"{plural(hidden, 'offensive word')} hidden: press {key} to show"


def plural(count: int, noun: str) -> str:
    """``1 word``, ``2 words``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


class WordInput(Input):
    """The word line; ``?`` opens the help even while typing (no word has a ``?``)."""

    BINDINGS = [Binding("question_mark", "app.help", "Help", priority=True, show=False)]


class PlayScreen(GameScreen):
    """A solo round: the board, the countdown, the word line and the words found so far."""

    BINDINGS = [
        Binding("ctrl+e", "end_round", "End the round", priority=True),
        Binding("f2", "hint('words_left')", "Hint: left", priority=True),
        Binding("f3", "hint('letters')", "letters", priority=True),
        Binding("f4", "hint('start')", "cube", priority=True),
        Binding("f5", "hint('path')", "path", priority=True),
    ]

    def __init__(self, board: Board) -> None:
        super().__init__()
        self.board = board
        self.game: Round | None = None
        self.solution: Solution | None = None
        #: The computer opponents playing this round, with their timed lists.
        self.playing: list[Playing] = []
        #: The hints used in this (practice) round, in order.
        self.hints: list[Hint] = []

    def compose(self) -> ComposeResult:
        settings = self.host.settings
        with Horizontal(id="top"):
            with Vertical(id="left", classes="auto"):
                yield BoardView(self.board, id="board")
                yield Plain("", id="countdown")
            with Vertical(id="side"):
                yield Plain(
                    f"{settings.rules.title}: words of {settings.rules.min_length}+ letters"
                )
                yield Plain("Found: 0 words, 0 points", id="score")
                if settings.seats:
                    yield Plain("", id="rivals")
                table: DataTable[str] = DataTable(id="found", cursor_type="row", zebra_stripes=True)
                yield table
        yield WordInput(placeholder="Type a word and press Enter  (? help, ctrl+e end)", id="word")
        yield Plain("", id="verdict")
        yield Footer()

    def on_mount(self) -> None:
        settings = self.host.settings
        judge = Judge(self.board, settings.rules, settings.words)  # the board solved once
        self.solution = judge.solution
        players = [PLAYER, *(seat.name for seat in settings.seats)]
        self.game = Round(self.board, settings.rules, settings.words, players, judge=judge)
        if settings.seats:
            self.playing = play_round(
                settings.seats,
                judge.solution,
                settings.words,
                settings.rules,
                settings.opponent_seconds,
                self.host.opponent_seeds[-1],
            )
        self.game.start(self.host.clock(), duration=settings.seconds)
        found = self.query_one("#found", DataTable)
        found.add_columns("word", "pts")
        found.can_focus = False
        self.query_one("#word", Input).focus()
        self.tick()
        self.set_interval(0.25, self.tick)

    def tick(self) -> None:
        """Show the time left; end the round when it runs out."""
        game = self.game
        if game is None or game.result is not None:
            return
        now = self.host.clock()
        countdown = self.query_one("#countdown", Static)
        if self.host.settings.practice:
            countdown.update("Practice: no timer")
        else:
            countdown.update(f"Time left {clock_text(game.time_left(now))}")
        if game.is_over(now):
            self.finish(now)
        elif self.playing:
            self.opponents_write(now)

    def opponents_write(self, now: float, *, to_the_end: bool = False) -> None:
        """Submit the opponents' entries due by ``now`` (all of them ``to_the_end``), each at
        its own time on the round's clock, and show how many each has written."""
        game = self.game
        if game is None or game.started_at is None:
            return
        started = game.started_at
        for one in self.playing:
            entries = one.rest() if to_the_end else one.due(now - started)
            for at, entry in entries:
                try:
                    game.submit(one.seat.name, entry, started + at)
                except BoggleError:  # past a list's limit (or the deadline): it stops writing
                    one.sent = len(one.entries)
                    break
        self.query_one("#rivals", Static).update(progress_line(self.playing))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        entry = event.value.strip()
        game = self.game
        if not entry or game is None or game.result is not None:
            return
        now = self.host.clock()
        if game.is_over(now):
            self.finish(now)
            return
        earlier = first_entries(sub.result for sub in game.submissions if sub.player == PLAYER)
        try:  # bounded and cleaned as every front end's words are (controls refused)
            result = game.submit(PLAYER, check_entry(entry), now)
        except BoggleError as exc:
            self.query_one("#verdict", Static).update(str(exc))
            return
        self.query_one("#verdict", Static).update(verdict_line(result, earlier.get(result.word)))
        if result.verdict is Verdict.SCORED:
            found = self.query_one("#found", DataTable)
            found.add_row(*cells(result.word, result.score))
            found.move_cursor(row=found.row_count - 1)
            self.query_one("#board", BoardView).highlight(result.path)
            total = sum(  # the player's own points: the opponents' words are submissions too
                sub.result.score
                for sub in game.submissions
                if sub.player == PLAYER and sub.result.verdict is Verdict.SCORED
            )
            self.query_one("#score", Static).update(
                f"Found: {plural(found.row_count, 'word')}, {plural(total, 'point')}"
            )

    def action_end_round(self) -> None:
        self.finish(self.host.clock(), early=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hints are offered in practice rounds only."""
        if action == "hint":
            return self.host.settings.practice
        return True

    def action_hint(self, kind: str) -> None:
        """A free hint (practice): shown on the verdict line, a cube or path lit on the board."""
        game, solution = self.game, self.solution
        if not self.host.settings.practice or game is None or solution is None:
            return
        found = {
            sub.result.word
            for sub in game.submissions
            if sub.player == PLAYER and sub.result.verdict.is_valid
        }
        verdict = self.query_one("#verdict", Static)
        try:
            given = hint(kind, solution, found, level=self.host.settings.words.level, free=True)
        except BoggleError as exc:
            verdict.update(str(exc))
            return
        self.hints.append(given)
        verdict.update(f"Hint: {given.text}")
        board = self.query_one("#board", BoardView)
        if kind == "path":
            board.highlight(tuple((row, col) for row, col in given.revealed["path"]))
        elif kind == "start":
            row, col = given.revealed["cell"]
            board.highlight(((row, col),))

    def finish(self, now: float, early: bool = False) -> None:
        """End the round and show the results."""
        game = self.game
        if game is None:
            return
        if self.playing and game.result is None:
            self.opponents_write(now, to_the_end=True)
        result = game.end(now, early=early)
        deck = self.host.settings.deck
        note = feed_deck(deck, result, self.host.settings.words) if deck is not None else ""
        self.host.switch_or_push(ResultsScreen(result, hints=self.hints, deck_note=note))


def missed_by_you(result: RoundResult) -> list[FoundWord]:
    """The board's words you did not find (whoever else did), best first."""
    have = {entry.word for entry in result.players[PLAYER].words if entry.verdict.is_valid}
    return [found for found in result.solution.words if found.word not in have]


def feed_deck(path: FilePath | None, result: RoundResult, words: Dictionary) -> str:
    """Add the round's missed words to the trainer's deck at ``path``; a line saying so (or
    why the deck was left alone: a round is never lost to its deck)."""
    if path is None:
        return ""
    try:
        added = DeckFile(path).add_missed(*missed_by_you(result), board=result.board, words=words)
    except (BoggleError, OSError) as exc:
        return f"Your trainer deck was left as it was: {exc}"
    return f"Trainer: {plural(added, 'new card')} from the words you missed (bigboggle train)."


class ResultsScreen(GameScreen):
    """The end of a solo round: the score, its share of the board, and every missed word."""

    BINDINGS = [
        Binding("r", "toggle_rare", "Rarer words"),
        Binding("o", "toggle_offensive", "Offensive words"),
        Binding("n", "new_game", "New board"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self, result: RoundResult, *, hints: Sequence[Hint] = (), deck_note: str = ""
    ) -> None:
        super().__init__()
        self.result = result
        #: The hints used in the round (free in practice), and what became of the missed
        #: words in the trainer's deck.
        self.hints = tuple(hints)
        self.deck_note = deck_note
        self.show_rare = False
        #: Whether missed words the family filter marks offensive are listed (o toggles).
        self.show_offensive: bool | None = None
        self.paths: dict[str, Path | None] = {}
        self.opened = time.monotonic()

    def settled(self) -> bool:
        """Whether the letter keys work yet (not while the last word is still being typed)."""
        return time.monotonic() - self.opened >= self.host.key_guard

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield BoardView(self.result.board, id="board")
            yield Plain(self.summary(), id="summary")
        table: DataTable[str] = DataTable(id="words", cursor_type="row", zebra_stripes=True)
        yield table
        yield Footer()

    def summary(self) -> str:
        """Score, share of the board's points, and how to replay the board."""
        result = self.result
        player = result.players[PLAYER]
        best = result.solution.total_score
        share = 100 * player.score / best if best else 0.0
        found = len(player.scored)
        replay = self.replay_command()
        return (
            f"You scored {plural(player.score, 'point')} with {plural(found, 'word')}.\n"
            + self.opponents_summary()
            + f"The board holds {plural(result.solution.count, 'word')} worth "
            f"{plural(best, 'point')}: "
            f"you found {share:.0f}% of the points.\n"
            + self.hints_line()
            + (f"{self.deck_note}\n" if self.deck_note else "")
            + f"\nReplay this board: {replay}\n\n"
            "Select a word to see its path. r: rarer missed words."
            + (" o: offensive ones." if self.check_action("toggle_offensive", ()) else "")
        )

    def hints_line(self) -> str:
        """The hints used, each with the word it was about (the round is over), or nothing."""
        if not self.hints:
            return ""
        used = "; ".join(
            HINT_LABELS[given.kind].lower() + (f" ({given.word})" if given.word else "")
            for given in self.hints
        )
        return f"Hints used (free in practice): {used}.\n"

    def opponents_summary(self) -> str:
        """With opponents: the crossing off of your words, and the ranking (else nothing)."""
        result = self.result
        if len(result.players) == 1:
            return ""
        crossed = sum(
            entry.verdict is Verdict.CROSSED_OFF for entry in result.players[PLAYER].words
        )
        places = result.places
        ranking = ", ".join(
            f"{places[name]}. {name} {result.scores[name]}" for name in result.ranking
        )
        lines = [f"Ranking: {ranking}"]
        if crossed:
            lines.insert(
                0,
                f"{plural(crossed, 'word')} of yours crossed off: "
                f"an opponent wrote {'it' if crossed == 1 else 'them'} too.",
            )
        return "\n".join(lines) + "\n"

    def replay_command(self) -> str:
        """The command that plays this board again (with the same opponents, if any)."""
        settings = self.host.settings
        parts = ["bigboggle", "play", "--rules", settings.rules.name]
        seed = self.host.round_seeds[-1] if self.host.round_seeds else None
        if seed is not None:
            parts += ["--seed", str(seed)]
            if settings.rules.challenge:
                parts.append("--challenge")
        else:
            parts += ["--board", str(self.result.board)]
            if settings.seats:  # the opponents' lists come from this seed
                parts += ["--seed", str(self.host.opponent_seeds[-1])]
        if settings.words.name not in ("standard",):
            parts += ["--dictionary", settings.words.name]
        if settings.seats:
            if settings.timer is not None:
                parts += ["--timer", f"{settings.timer:g}"]
            if settings.practice:
                parts.append("--practice")
            for seat in settings.seats:
                parts += ["--opponent", seat.strength]
        return shlex.join(parts)

    def on_mount(self) -> None:
        if self.show_offensive is None:
            self.show_offensive = self.host.settings.show_offensive
        table = self.query_one("#words", DataTable)
        table.add_columns("word", "pts", "")
        self.fill()
        table.focus()

    def fill(self) -> None:
        """List the player's words, then the missed ones (common ones unless asked)."""
        table = self.query_one("#words", DataTable)
        table.clear()
        self.paths.clear()
        words = self.host.settings.words
        for entry in self.result.players[PLAYER].words:
            note = entry.verdict.label
            table.add_row(
                *cells(entry.word, entry.score or "", f"yours: {note}"), key=f"y:{entry.word}"
            )
            self.paths[f"y:{entry.word}"] = entry.path
        for index, seat in enumerate(self.host.settings.seats):
            for number, entry in enumerate(self.result.players[seat.name].words):
                key = f"o{index}:{number}"
                note = f"{seat.name}: {entry.verdict.label}"
                table.add_row(*cells(entry.word, entry.score or "", note), key=key)
                self.paths[key] = entry.path
        missed_label = "nobody found" if self.host.settings.seats else "missed"
        hidden = offensive = 0
        for missed in self.result.missed:
            if not self.show_offensive and is_offensive(missed.word):
                offensive += 1
                continue
            level = words.level(missed.word)
            if not self.show_rare and level is not None and level > COMMON_LEVEL:
                hidden += 1
                continue
            rare = "" if level is None or level <= COMMON_LEVEL else " (rare)"
            table.add_row(
                *cells(missed.word, missed.score, f"{missed_label}{rare}"), key=f"m:{missed.word}"
            )
            self.paths[f"m:{missed.word}"] = missed.path
        if hidden:
            table.add_row(*cells("…", "", f"{plural(hidden, 'rarer word')}: press r"), key="hidden")
        if offensive:
            table.add_row(*cells("…", "", offensive_note(offensive, "o")), key="offensive")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value if event.row_key is not None else None
        self.query_one("#board", BoardView).highlight(self.paths.get(key or ""))

    def action_toggle_rare(self) -> None:
        if self.settled():
            self.show_rare = not self.show_rare
            self.fill()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer ``o`` only when the family filter has missed words to hide or show."""
        if action == "toggle_offensive":
            return any(is_offensive(missed.word) for missed in self.result.missed)
        return True

    def action_toggle_offensive(self) -> None:
        if self.settled():
            self.show_offensive = not self.show_offensive
            self.fill()

    def action_new_game(self) -> None:
        if self.settled():
            self.host.start_round()

    def action_quit(self) -> None:
        if self.settled():
            self.app.exit()
