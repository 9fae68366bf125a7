"""The board: an immutable grid of faces with a text notation that round-trips.

Notation (input case-insensitive, output canonical): rows separated by ``/`` (newlines also work;
with neither, spaces separate rows); in a row each cell is a letter, ``Qu`` (a lone ``Q`` also
means ``Qu``), a bracketed multi-letter face such as ``[Th]``, or ``.`` for a blank. A trailing
``*`` marks the challenge cube's cell (never a blank: the challenge cube has no blank face). Canonical text: ``LINES/TQuARD/HEMOP/ABCKI/PSTEW``.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from . import implementation
from .errors import BoardError, SearchBudgetExceeded, quoted
from .limits import MAX_BOARD_TEXT, MAX_QUOTED

Position = tuple[int, int]
Path = tuple[Position, ...]

MIN_SIDE = 2
MAX_SIDE = 12
MAX_FACE_LETTERS = 3

# Spelled out rather than string.ascii_letters: importing string compiles its Template's
# regular expression, a cost every process that reads a board would pay for nothing.
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


@functools.cache
def adjacency(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """For each row-major cell of a ``rows`` x ``cols`` grid, its neighbours' indices (sides
    and corners). One shared table per shape, so solvers can key caches on its identity."""
    return tuple(
        tuple(
            r * cols + c
            for r in range(max(0, row - 1), min(rows, row + 2))
            for c in range(max(0, col - 1), min(cols, col + 2))
            if (r, c) != (row, col)
        )
        for row in range(rows)
        for col in range(cols)
    )


@dataclass
class SearchBudget:
    """Cells a path search may still try. Pass one object to several searches to cap their
    total; :meth:`Board.path_for` takes from it as it goes."""

    left: int


class _FaceOfLetters(dict[str, str]):
    """A cell's lowercase letters -> its canonical face, each worked out once."""

    def __missing__(self, letters: str) -> str:
        face = self[letters] = canonical_face(letters)
        return face


def canonical_face(text: str) -> str:
    """The canonical spelling of a face: ``"A"``, ``"Qu"``, ``"Th"``; ``""`` is a blank.

    A lone ``q`` is the ``Qu`` face, as on every real die.
    """
    if not isinstance(text, str):
        raise TypeError(f"a face is text, not {quoted(text)}")
    if text == "":
        return ""
    if len(text) > MAX_FACE_LETTERS or not (set(text) <= _ASCII_LETTERS):
        raise BoardError(f"face {quoted(text)} must be 1-{MAX_FACE_LETTERS} letters A-Z")
    lower = text.lower()
    if lower == "q":
        return "Qu"
    if any(ch == "q" and lower[i + 1 : i + 2] != "u" for i, ch in enumerate(lower)):
        raise BoardError(
            f"face {quoted(text)}: a q on a face is always followed by u, as on real dice"
        )
    return text[0].upper() + text[1:].lower()


def _check_shape(rows: Sequence[Sequence[str]]) -> None:
    """Refuse more rows or columns than a board has before looking at a face (``len`` only;
    :class:`TypeError` for something that is not rows)."""
    if len(rows) > MAX_SIDE:
        raise BoardError(f"board has {len(rows)} rows; a board has {MIN_SIDE}-{MAX_SIDE} rows")
    for number, row in enumerate(rows, start=1):
        if len(row) > MAX_SIDE:
            raise BoardError(
                f"row {number} has {len(row)} cells; a board has {MIN_SIDE}-{MAX_SIDE} columns"
            )


def spelled_face(face: str) -> str:
    """A canonical face as a board text spells it: ``A``, ``Qu``, ``[Th]``, ``.`` (a blank)."""
    return _format_face(face)


def _format_face(face: str) -> str:
    if face == "":
        return "."
    if len(face) == 1 or face == "Qu":
        return face
    return f"[{face}]"


class Board:
    """A rectangular Boggle board of 2-12 rows and columns, immutable and hashable.

    ``Board("LINES/TQARD/HEMOP/ABCKI/PSTEW")`` parses the notation; ``str(board)`` gives the
    canonical text back and ``repr(board)`` is ``Board('…')``. Cells are addressed by
    ``(row, column)``, both 0-based.
    """

    __slots__ = (
        "_challenge",
        "_cols",
        "_faces",
        "_letter_counts",
        "_letters",
        "_neighbours",
        "_rows",
        "_total_letters",
    )

    _rows: int
    _cols: int
    _faces: tuple[str, ...]
    _letters: tuple[str, ...]
    _challenge: int | None
    _neighbours: tuple[tuple[int, ...], ...]
    _letter_counts: dict[str, int] | None  # worked out by the first path_for that needs it
    _total_letters: int

    def __init__(self, text: str) -> None:
        # The compiled core reads the common notation in a microsecond or two, giving exactly
        # the cells this module's parser gives (a property test holds them to it); it declines
        # anything else, bad texts included, which the parser below then reads or refuses.
        cells = implementation.core().parse_text(text)
        if cells is not None:
            letters, rows, cols, challenge = cells
            self._init_letters(letters, rows, cols, None if challenge < 0 else challenge)
            return
        faces, challenge_index = _parse(text)
        self._init(faces, challenge_index)

    @classmethod
    def _from_notation(cls, text: str) -> Board:
        """The board this module's own parser reads from ``text``, never the compiled one's:
        the yardstick the compiled parser is tested against."""
        board = cls.__new__(cls)
        rows, challenge = _parse(text)
        board._init(rows, challenge)
        return board

    @classmethod
    def parse(cls, text: str) -> Board:
        """Parse board notation; :class:`BoardError` says what is wrong and where."""
        return cls(text)

    @classmethod
    def from_faces(cls, rows: Sequence[Sequence[str]], challenge: Position | None = None) -> Board:
        """Build a board from rows of face strings (``""`` for a blank).

        ``challenge`` is the ``(row, column)`` of the challenge cube, if any.
        """
        try:
            _check_shape(rows)
            canonical = [[canonical_face(face) for face in row] for row in rows]
        except TypeError:
            raise BoardError("faces must be rows of text, like [['A', 'Qu'], ['Th', '']]") from None
        board = cls.__new__(cls)
        index = None
        if challenge is not None:
            if (
                not isinstance(challenge, tuple | list)
                or len(challenge) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in challenge)
            ):
                raise BoardError(f"challenge cell {quoted(challenge)} must be (row, column)")
            row, col = challenge
            width = len(canonical[0]) if canonical else 0
            if not (0 <= row < len(canonical) and 0 <= col < width):
                raise BoardError(f"challenge cell {quoted(challenge)} is outside the board")
            if canonical[row][col] == "":
                raise BoardError(
                    f"challenge cell {quoted(challenge)} is blank; the challenge cube always "
                    "shows a letter"
                )
            index = row * width + col
        board._init(canonical, index)
        return board

    def _init(self, rows: Sequence[Sequence[str]], challenge: int | None) -> None:
        height = len(rows)
        width = len(rows[0]) if rows else 0
        if not MIN_SIDE <= height <= MAX_SIDE:
            raise BoardError(
                f"board has {height} row{'s' if height != 1 else ''}; "
                f"a board has {MIN_SIDE}-{MAX_SIDE} rows"
            )
        for number, row in enumerate(rows, start=1):
            if len(row) != width:
                raise BoardError(
                    f"row {number} has {len(row)} cells but row 1 has {width}; "
                    "a board must be rectangular"
                )
        if not MIN_SIDE <= width <= MAX_SIDE:
            raise BoardError(
                f"board has {width} column{'s' if width != 1 else ''}; "
                f"a board has {MIN_SIDE}-{MAX_SIDE} columns"
            )
        faces = tuple(face for row in rows for face in row)
        self._set(faces, tuple(face.lower() for face in faces), height, width, challenge)

    def _init_letters(
        self, letters: tuple[str, ...], rows: int, cols: int, challenge: int | None
    ) -> None:
        """A board from checked cells: each cell's lowercase letters, row-major."""
        self._set(tuple(map(_FACE_OF_LETTERS.__getitem__, letters)), letters, rows, cols, challenge)

    def _set(
        self,
        faces: tuple[str, ...],
        letters: tuple[str, ...],
        rows: int,
        cols: int,
        challenge: int | None,
    ) -> None:
        self._rows = rows
        self._cols = cols
        self._faces = faces
        self._letters = letters
        self._challenge = challenge
        self._letter_counts = None
        self._total_letters = 0
        self._neighbours = adjacency(rows, cols)

    # -- shape and cells ---------------------------------------------------------------------

    @property
    def rows(self) -> int:
        """Number of rows."""
        return self._rows

    @property
    def cols(self) -> int:
        """Number of columns."""
        return self._cols

    @property
    def size(self) -> tuple[int, int]:
        """``(rows, columns)``."""
        return (self._rows, self._cols)

    @property
    def faces(self) -> tuple[tuple[str, ...], ...]:
        """The canonical faces, row by row (``""`` for a blank)."""
        cols = self._cols
        return tuple(self._faces[i : i + cols] for i in range(0, len(self._faces), cols))

    @property
    def cell_faces(self) -> tuple[str, ...]:
        """The canonical faces in row-major order, one per cell."""
        return self._faces

    @property
    def cell_letters(self) -> tuple[str, ...]:
        """The lowercase letters each cell contributes to a word, row-major (``""``: blank)."""
        return self._letters

    @property
    def challenge(self) -> Position | None:
        """``(row, column)`` of the challenge cube, or ``None``."""
        if self._challenge is None:
            return None
        return divmod(self._challenge, self._cols)

    @property
    def challenge_index(self) -> int | None:
        """Row-major index of the challenge cube's cell, or ``None``."""
        return self._challenge

    def __getitem__(self, position: Position) -> str:
        row, col = position
        return self._faces[self.index(row, col)]

    def index(self, row: int, col: int) -> int:
        """Row-major index of ``(row, col)``; :class:`IndexError` if it is off the board."""
        if not (0 <= row < self._rows and 0 <= col < self._cols):
            raise IndexError(f"cell ({row}, {col}) is off a {self._rows}x{self._cols} board")
        return row * self._cols + col

    def position(self, index: int) -> Position:
        """``(row, column)`` of a row-major cell index."""
        row, col = divmod(index, self._cols)
        return (row, col)

    def positions(self) -> Iterator[Position]:
        """Every cell, row by row."""
        for row in range(self._rows):
            for col in range(self._cols):
                yield (row, col)

    def neighbours(self, row: int, col: int) -> tuple[Position, ...]:
        """The cells adjoining ``(row, col)`` by a side or a corner (blank ones included)."""
        return tuple(self.position(i) for i in self._neighbours[self.index(row, col)])

    @property
    def adjacency(self) -> tuple[tuple[int, ...], ...]:
        """For each row-major cell index, the indices of its neighbours."""
        return self._neighbours

    # -- words -------------------------------------------------------------------------------

    def path_for(
        self,
        word: str,
        *,
        through: Position | None = None,
        budget: int | SearchBudget | None = None,
    ) -> Path | None:
        """A path that spells ``word`` on this board, or ``None``.

        With ``through``, only a path that uses that cell counts (used for the challenge cube).
        The path is a tuple of ``(row, column)``; the same cell is never used twice and a blank
        never matches. Words whose letters the board does not hold are rejected at once; a
        search may still take exponential time on adversarial input, so ``budget`` caps the
        cells tried and raises :class:`SearchBudgetExceeded` past it (a :class:`SearchBudget`
        object is drawn down, so that one budget can cover many searches).
        """
        allowance = SearchBudget(budget) if isinstance(budget, int) else budget
        target = word.lower()
        required = None if through is None else self.index(*through)
        if not target or not self._could_hold(target):
            return None
        letters = self._letters
        neighbours = self._neighbours

        def extend(cell: int, offset: int, used: list[int]) -> list[int] | None:
            face = letters[cell]
            if not face or not target.startswith(face, offset):
                return None
            if allowance is not None:
                allowance.left -= 1
                if allowance.left < 0:
                    raise SearchBudgetExceeded(f"gave up looking for {word!r}: out of steps")
            used.append(cell)
            end = offset + len(face)
            if end == len(target):
                if required is None or required in used:
                    return used
            else:
                for nxt in neighbours[cell]:
                    if nxt not in used:
                        found = extend(nxt, end, used)
                        if found is not None:
                            return found
            used.pop()
            return None

        for start in range(len(letters)):
            found = extend(start, 0, [])
            if found is not None:
                return tuple(self.position(i) for i in found)
        return None

    def _could_hold(self, target: str) -> bool:
        """Whether the board has at least as many of each letter as ``target`` needs."""
        available = self._letter_counts
        if available is None:
            every = "".join(self._letters)
            self._total_letters = len(every)
            available = self._letter_counts = dict(Counter(every))
        if len(target) > self._total_letters:
            return False
        return all(target.count(letter) <= available.get(letter, 0) for letter in set(target))

    def spell(self, path: Sequence[Position]) -> str:
        """The lowercase letters along ``path`` (no adjacency check)."""
        return "".join(self._letters[self.index(row, col)] for row, col in path)

    def is_valid_path(self, path: Sequence[Position]) -> bool:
        """Whether ``path`` is on the board, adjoining step by step, with no cell twice or blank."""
        try:
            cells = [self.index(row, col) for row, col in path]
        except (IndexError, TypeError, ValueError):
            return False
        if not cells or len(set(cells)) != len(cells):
            return False
        if any(not self._letters[cell] for cell in cells):
            return False
        return all(b in self._neighbours[a] for a, b in itertools.pairwise(cells))

    # -- text --------------------------------------------------------------------------------

    def __str__(self) -> str:
        cells = [_format_face(face) for face in self._faces]
        if self._challenge is not None:
            cells[self._challenge] += "*"
        cols = self._cols
        return "/".join("".join(cells[i : i + cols]) for i in range(0, len(cells), cols))

    def __repr__(self) -> str:
        return f"Board({str(self)!r})"

    def render(self) -> str:
        """The board as a grid of text, one row per line, in the notation's cell spelling
        (``[Th]``, ``.`` for a blank, ``*`` after the challenge cell), so it parses back."""
        cells = [_format_face(face) for face in self._faces]
        if self._challenge is not None:
            cells[self._challenge] += "*"
        width = max(len(cell) for cell in cells) + 1
        cols = self._cols
        lines = []
        for start in range(0, len(cells), cols):
            lines.append(
                " ".join(cell.ljust(width) for cell in cells[start : start + cols]).rstrip()
            )
        return "\n".join(lines)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self._cols, self._faces, self._challenge) == (
            other._cols,
            other._faces,
            other._challenge,
        )

    def __hash__(self) -> int:
        return hash((self._cols, self._faces, self._challenge))


def _split_rows(text: str) -> list[str]:
    """Rows of the notation: ``/`` and newlines separate rows; with neither, spaces do."""
    body = text.strip()
    if "/" in body or "\n" in body:
        lines = [line for line in body.splitlines() if line.strip()]
        rows = [part for line in lines for part in line.split("/")]
        cleaned = ["".join(row.split()) for row in rows]
        for number, row in enumerate(cleaned, start=1):
            if not row:
                raise BoardError(f"row {number} of board {quoted(text)} is empty")
        return cleaned
    return body.split()


def _check_text(text: object) -> str:
    """``text`` if it is board text of a size worth parsing; :class:`BoardError` otherwise,
    before any other work (a stranger's megabyte costs one ``len``)."""
    if not isinstance(text, str):
        raise BoardError(f"a board must be text, not {type(text).__name__}")
    if len(text) > MAX_BOARD_TEXT:
        raise BoardError(
            f"board text is {len(text)} characters; the limit is {MAX_BOARD_TEXT} "
            f"(a 12x12 board fits well within it): {quoted(text)}"
        )
    if not text.strip():
        raise BoardError("the board is empty; write rows like 'LINES/TQARD/HEMOP/ABCKI/PSTEW'")
    return text


def _error_at(
    what: str, why: str, row_number: int, offset: int, text: str, row_text: str
) -> BoardError:
    """``what`` at a character, and ``why``, as an error (built only when one is raised): the
    whole board is quoted if it is short, else the part of the row around the character."""
    place = f"row {row_number}, position {offset + 1}"
    if len(text) <= MAX_QUOTED:
        where = f"{place} of board {text!r}"
    else:
        half = MAX_QUOTED // 2 - 2
        where = (
            f"{place} of the board (near {quoted(row_text[max(0, offset - half) : offset + half])})"
        )
    return BoardError(f"{what} at {where}{why}")


#: Lowercase letters -> canonical face, as the compiled parser's cells are turned into faces.
_FACE_OF_LETTERS = _FaceOfLetters()


def _parse(text: str) -> tuple[list[list[str]], int | None]:
    """The rows of faces and the challenge cell's index; one pass over the (bounded) text."""
    text = _check_text(text)
    rows: list[list[str]] = []
    challenge: tuple[int, int] | None = None
    for row_number, row_text in enumerate(_split_rows(text), start=1):
        cells: list[str] = []
        i = 0
        end = len(row_text)
        while i < end:
            ch = row_text[i]
            if ch in _ASCII_LETTERS:
                if ch == "q" or ch == "Q":
                    cells.append("Qu")
                    if i + 1 < end and row_text[i + 1] in "uU":
                        i += 1
                else:
                    cells.append(ch.upper())
            elif ch == ".":
                cells.append("")
            elif ch == "[":
                close = row_text.find("]", i + 1)  # scans only what the face consumes
                if close < 0:
                    raise _error_at("unclosed '['", "", row_number, i, text, row_text)
                inner = row_text[i + 1 : close]
                if not inner or not set(inner) <= _ASCII_LETTERS or len(inner) > MAX_FACE_LETTERS:
                    raise _error_at(
                        f"face {quoted('[' + inner + ']')}",
                        f" must be 1-{MAX_FACE_LETTERS} letters A-Z, like [Th]",
                        row_number,
                        i,
                        text,
                        row_text,
                    )
                cells.append(canonical_face(inner))
                i = close
            elif ch == "*":
                if not cells:
                    raise _error_at(
                        "'*'", " must follow the cell it marks", row_number, i, text, row_text
                    )
                if challenge is not None:
                    raise _error_at(
                        "second '*'",
                        "; a board has at most one challenge cell",
                        row_number,
                        i,
                        text,
                        row_text,
                    )
                if cells[-1] == "":
                    raise _error_at(
                        "'*' after a blank cell",
                        "; the challenge cube always shows a letter, and a blank cell can "
                        "never be used, so its bonus could never be earned",
                        row_number,
                        i,
                        text,
                        row_text,
                    )
                challenge = (row_number - 1, len(cells) - 1)
            else:
                raise _error_at(
                    f"unexpected character {ch!r}",
                    "; cells are letters, Qu, [Th]-style faces, '.' for a blank and '*' after "
                    "the challenge cell",
                    row_number,
                    i,
                    text,
                    row_text,
                )
            i += 1
        rows.append(cells)
    index = None
    if challenge is not None:
        index = challenge[0] * len(rows[0]) + challenge[1]
    return rows, index
