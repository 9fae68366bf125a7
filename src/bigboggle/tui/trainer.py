"""The trainer in the terminal (``bigboggle train``): drills from the words missed in the
terminal's solo rounds, kept in a deck file (:class:`~bigboggle.trainer.DeckFile`).

Each drill is the core's (:func:`~bigboggle.trainer.drill_for`): a board fragment drawn like
the board of a game, or an anagram's tiles. Type the word and press Enter; F2 shows the hint
(its first letter, and on a fragment its cell), F3 gives up; after an answer, Enter shows the
next drill. Each answer is judged and scheduled by the core and written to the file at once,
so progress is kept whenever the screen is left (Escape or Ctrl+Q).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Input

from ..board import Board
from ..dictionary import Dictionary
from ..errors import BoggleError
from ..trainer import Deck, DeckFile, Drill, Outcome, answer_card, drill_for
from .board_view import BoardView, Plain


def counts_text(deck: Deck, now: float) -> str:
    """The deck in a line: cards, due now, new today, learned."""
    counts = deck.counts(now)
    cards = counts["cards"]
    return (
        f"{cards} word{'s' if cards != 1 else ''} in your deck · {counts['due']} due · "
        f"{counts['new']} new today · {counts['learned']} learned"
    )


def later_text(deck: Deck, now: float) -> str:
    """What the screen says when nothing is due."""
    counts = deck.counts(now)
    if not counts["cards"]:
        return (
            "No missed words yet: play a solo round (bigboggle play), and the words you miss "
            "become drills here."
        )
    if counts["next_due"] is None:
        return "Nothing to drill now: come back tomorrow for new words."
    minutes = max(1, round((counts["next_due"] - now) / 60))
    if minutes < 90:
        return f"Nothing to drill now: the next word comes back in {minutes} minutes."
    return f"Nothing to drill now: the next word comes back in {round(minutes / 60)} hours."


def tiles_text(drill: Drill) -> str:
    """An anagram's tiles in a row, like cubes: ``[ T ] [ Qu ] …``."""
    return "  ".join(f"[ {tile} ]" for tile in drill.grid[0])


class TrainerScreen(Screen[None]):
    """One drill at a time from the deck in ``deck_file``, judged with ``words``; ``clock``
    gives the time of day (seconds since the epoch: the schedule's), ``timer`` how long an
    answer took."""

    BINDINGS = [
        Binding("f2", "hint", "Hint"),
        Binding("f3", "give_up", "Give up"),
        Binding("escape", "leave", "Leave"),
    ]
    DEFAULT_CSS = """
    TrainerScreen { padding: 1 2; }
    #counts { color: $text-muted; height: auto; }
    #prompt { text-style: bold; height: auto; margin: 1 0 0 0; }
    #tiles { height: auto; margin: 1 0; }
    #hint, #result { height: auto; }
    #answer { width: 40; }
    """

    def __init__(
        self,
        deck_file: DeckFile,
        words: Dictionary,
        clock: Callable[[], float] = time.time,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.deck_file = deck_file
        self.words = words
        self.clock = clock
        self.timer = timer
        self.deck = Deck()
        self.drill: Drill | None = None
        self.shown_at = 0.0
        self.hinted = False
        #: An answer was settled: Enter shows the next drill.
        self.settled = False

    def compose(self) -> ComposeResult:
        yield Plain("", id="counts")
        yield Plain("", id="prompt")
        yield BoardView(Board("ABC/DEF/GHI"), id="fragment")
        yield Plain("", id="tiles")
        yield Input(placeholder="Type the word and press Enter  (F2 hint, F3 give up)", id="answer")
        yield Plain("", id="hint")
        yield Plain("", id="result")
        yield Footer()

    def on_mount(self) -> None:
        try:
            self.deck = self.deck_file.load()
        except BoggleError as error:
            self.query_one("#answer", Input).display = False
            self.query_one("#fragment", BoardView).display = False
            self._say("#result", f"Cannot read your deck: {error}")
            return
        self.show_next()

    def _say(self, where: str, text: str) -> None:
        self.query_one(where, Plain).update(text)

    def show_next(self) -> None:
        """Show the next drill due, or say when one will be."""
        now = self.clock()
        card = self.deck.next_card(now)
        self._say("#counts", counts_text(self.deck, now))
        self._say("#hint", "")
        self._say("#result", "")
        self.settled = False
        self.hinted = False
        answer = self.query_one("#answer", Input)
        fragment = self.query_one("#fragment", BoardView)
        answer.value = ""
        if card is None:
            self.drill = None
            self._say("#prompt", later_text(self.deck, now))
            fragment.display = False
            self._say("#tiles", "")
            answer.display = False
            return
        drill = drill_for(card)
        self.drill = drill
        self._say("#prompt", drill.prompt)
        if drill.kind == "fragment":
            fragment.show(Board.from_faces(drill.grid))
            fragment.display = True
            self._say("#tiles", "")
        else:
            fragment.display = False
            self._say("#tiles", tiles_text(drill))
        answer.display = True
        answer.focus()
        self.shown_at = self.timer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self.settled:
            self.show_next()
            return
        if not event.value.strip():
            self._say("#result", "Type the word, or press F3 to give up.")
            return
        self._answer(event.value, gave_up=False)

    def action_hint(self) -> None:
        if self.drill is None or self.settled:
            return
        self.hinted = True
        self._say("#hint", f"Hint: it starts with {self.drill.first}.")
        if self.drill.start is not None:
            self.query_one("#fragment", BoardView).highlight([self.drill.start])

    def action_give_up(self) -> None:
        if self.drill is not None and not self.settled:
            self._answer("", gave_up=True)

    def action_leave(self) -> None:
        self.app.exit()

    def _answer(self, said: str, *, gave_up: bool) -> None:
        assert self.drill is not None
        now = self.clock()
        try:
            answered = answer_card(
                self.deck,
                self.drill.card,
                said,
                self.words,
                now,
                seconds=self.timer() - self.shown_at,
                hinted=self.hinted,
                gave_up=gave_up,
            )
            if answered.rating is not None:
                self.deck_file.keep(answered.card)
        except BoggleError as error:
            self._say("#result", str(error))
            return
        judgement = answered.judgement
        answer = self.query_one("#answer", Input)
        if judgement.outcome is Outcome.ALSO:
            self._say("#result", judgement.message)
            answer.value = ""
            return
        self.settled = True
        rating = answered.rating.name if answered.rating is not None else ""
        self._say("#result", f"{judgement.message}  ({rating}: press Enter for the next word)")
        if judgement.path is not None:
            self.query_one("#fragment", BoardView).highlight(judgement.path)
        self._say("#counts", counts_text(self.deck, now))
        answer.value = ""


class TrainerApp(App[None]):
    """``bigboggle train``: the trainer's screen over one deck file."""

    TITLE = "bigboggle trainer"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit")]

    def __init__(
        self,
        deck_file: DeckFile,
        words: Dictionary,
        clock: Callable[[], float] = time.time,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.screen_made = TrainerScreen(deck_file, words, clock, timer)

    def on_mount(self) -> None:
        self.push_screen(self.screen_made)
