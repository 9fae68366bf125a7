"""The board drawn like the dice in the tray: a grid of cubes, with a word's path lit up."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widgets import Static

from ..board import Board, Position
from ..dice import UNDERLINED_FACES


class Plain(Static):
    """Static text shown as typed: never read as markup (players type ``[`` too)."""

    def __init__(self, content: str = "", **kwargs: object) -> None:
        super().__init__(content, markup=False, **kwargs)  # type: ignore[arg-type]


def cells(*values: object) -> tuple[Text, ...]:
    """Table cells shown as typed, never read as markup."""
    return tuple(Text(str(value)) for value in values)


class BoardView(Static):
    """A board in a box-drawn grid. ``highlight(path)`` lights the cells of a word, in order.

    The challenge cube's face carries a ``*``; M, W and Z are underlined as on the real dice;
    a blank face is ``·``. Highlighting uses reverse video, so it shows without colour too.
    """

    DEFAULT_CSS = """
    BoardView { width: auto; height: auto; padding: 0 1; }
    """

    def __init__(self, board: Board, *, big: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.board = board
        self.big = big
        self._path: tuple[Position, ...] = ()

    def show(self, board: Board) -> None:
        """Draw another board (and clear the highlight)."""
        self.board = board
        self._path = ()
        self.update(self.render_board())

    def highlight(self, path: Iterable[Position] | None) -> None:
        """Light up ``path`` (``None`` or empty: nothing)."""
        self._path = tuple(path or ())
        self.update(self.render_board())

    def on_mount(self) -> None:
        self.update(self.render_board())

    def render_board(self) -> Text:
        """The grid as styled text."""
        board = self.board
        order = {position: number for number, position in enumerate(self._path, start=1)}
        width = 5 if self.big else 3
        rule = "─" * width
        top = "┌" + "┬".join([rule] * board.cols) + "┐\n"
        middle = "├" + "┼".join([rule] * board.cols) + "┤\n"
        bottom = "└" + "┴".join([rule] * board.cols) + "┘"
        pad = ("│" + "│".join([" " * width] * board.cols) + "│\n") if self.big else ""
        text = Text(top)
        for row in range(board.rows):
            text.append(pad)
            text.append("│")
            for col in range(board.cols):
                face = board[row, col]
                shown = face if face else "·"
                mark = "*" if board.challenge == (row, col) else ""
                cell = (shown + mark).center(width)
                style = "bold"
                if face in UNDERLINED_FACES:
                    style += " underline"
                if (row, col) in order:
                    style += " reverse"
                    if order[(row, col)] == 1:
                        style += " italic"
                text.append(cell, style=style)
                text.append("│")
            text.append("\n")
            text.append(pad)
            text.append(middle if row < board.rows - 1 else bottom)
        return text
