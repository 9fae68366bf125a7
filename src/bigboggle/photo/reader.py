"""A photo of the tray to a board: :func:`read_board`.

The photo is decoded within bounds (:mod:`~bigboggle.photo.image`), the grid of the rules' size
found and warped square (:mod:`~bigboggle.photo.grid`), each cube's letter cut out
(:mod:`~bigboggle.photo.glyphs`) and read in whichever of its four rotations it lies
(:mod:`~bigboggle.photo.classifier`), and the readings made consistent with the rules' real
dice (:mod:`~bigboggle.photo.prior`). Every cell keeps its confidence and the runner-up
readings, so a person can check the doubtful ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..board import Board
from ..dice import CHALLENGE_CUBE, dice_set
from ..errors import PhotoError
from ..rules import Rules
from .classifier import Classifier
from .faces import FACES
from .glyphs import normalize_cell
from .grid import find_grid
from .image import decode_photo
from .prior import assign_dice, restrict

#: Every reading a cell can have: the classifier's faces and the blank face.
CLASSES: tuple[str, ...] = (*FACES, "")
#: Below this confidence a cell's reading is marked for a person to check.
DOUBTFUL = 0.9
#: How sure a cell with no letter found is blank (the rest spread over the faces).
BLANK_SURE = 0.97
#: How many runner-up readings each cell lists.
ALTERNATIVES = 3


@dataclass(frozen=True)
class CellReading:
    """One cube as read: its ``face`` (``""`` blank), how sure (0-1), the runner-up readings
    with theirs, and the rotation its letter lies in (degrees counter-clockwise)."""

    face: str
    confidence: float
    alternatives: tuple[tuple[str, float], ...]
    rotation: int

    @property
    def doubtful(self) -> bool:
        """Whether a person should check this cell."""
        return self.confidence < DOUBTFUL

    def to_json(self) -> dict[str, Any]:
        return {
            "face": self.face,
            "confidence": round(self.confidence, 4),
            "alternatives": [
                {"face": face, "confidence": round(confidence, 4)}
                for face, confidence in self.alternatives
            ],
            "rotation": self.rotation,
            "doubtful": self.doubtful,
        }


@dataclass(frozen=True)
class Reading:
    """A board read from a photo: the board, each cell's reading (row by row) and the grid's
    corners (top-left, top-right, bottom-right, bottom-left) as fractions of the photo's
    width and height, to draw the reading over the photo whatever size it is shown at."""

    board: Board
    cells: tuple[CellReading, ...]
    corners: tuple[tuple[float, float], ...]

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``bigboggle read --json`` and ``POST /api/read-board``."""
        return {
            "board": str(self.board),
            "rows": self.board.rows,
            "cols": self.board.cols,
            "cells": [cell.to_json() for cell in self.cells],
            "doubtful": sum(cell.doubtful for cell in self.cells),
            "grid": [[round(x, 5), round(y, 5)] for x, y in self.corners],
        }


def read_board(
    photo: bytes | np.ndarray,
    rules: Rules,
    *,
    use_dice: bool = True,
    classifier: Classifier | None = None,
) -> Reading:
    """The board in ``photo`` (a JPEG, PNG or WebP file's bytes, or an RGB array) of the size
    ``rules`` fix; with ``use_dice``, read as the rules' dice can show it (each die once; the
    challenge cube in place of one when the rules have it; a face far likelier than any the
    dice could show there is kept, as a die of another edition: see :mod:`.prior`). :class:`~bigboggle.errors.PhotoError`
    if the photo cannot be read or no grid is found in it."""
    rgb = decode_photo(photo) if not isinstance(photo, np.ndarray) else photo
    height, width = rgb.shape[:2]
    grid = find_grid(rgb, rules.rows, rules.cols)
    probabilities, rotations = _read_cells(grid.cells(), classifier or Classifier.load())
    challenge: tuple[int, int] | None = None
    if use_dice:
        dice = list(dice_set(rules.dice).dice)
        if rules.challenge:
            dice.append(CHALLENGE_CUBE)  # in place of one die, whichever the shake took
        assignment = assign_dice(
            probabilities, CLASSES, dice, required=len(dice) - 1 if rules.challenge else None
        )
        final = np.stack(
            [
                # A die of another set (past the preset's): the classifier's reading stands.
                restrict(probabilities[cell], CLASSES, dice[die] if die < len(dice) else FACES)
                for cell, die in enumerate(assignment)
            ]
        )
        if rules.challenge and len(dice) - 1 in assignment:
            challenge = divmod(assignment.index(len(dice) - 1), rules.cols)
    else:
        final = probabilities
    cells = tuple(
        _cell_reading(final[cell], probabilities[cell], int(rotations[cell]))
        for cell in range(len(final))
    )
    if sum(cell.doubtful for cell in cells) > len(cells) // 2:
        raise PhotoError(
            f"no {rules.rows}x{rules.cols} board could be read in the photo (most cubes are "
            "unclear): photograph the whole tray from above, in good light, and choose the "
            "rules of its size"
        )
    faces = [cell.face for cell in cells]
    if challenge is not None and not faces[challenge[0] * rules.cols + challenge[1]]:
        challenge = None
    board = Board.from_faces(
        [faces[r * rules.cols : (r + 1) * rules.cols] for r in range(rules.rows)],
        challenge=challenge,
    )
    corners = tuple((float(x) / width, float(y) / height) for x, y in grid.corners)
    return Reading(board, cells, corners)


def _read_cells(crops: list[np.ndarray], classifier: Classifier) -> tuple[np.ndarray, np.ndarray]:
    """Each crop's probabilities over :data:`CLASSES`, and its letter's rotation."""
    glyphs = [normalize_cell(crop) for crop in crops]
    found = [i for i, glyph in enumerate(glyphs) if glyph is not None]
    letters = [glyph for glyph in glyphs if glyph is not None]
    probabilities = np.full((len(crops), len(CLASSES)), (1 - BLANK_SURE) / len(FACES))
    probabilities[:, -1] = BLANK_SURE
    rotations = np.zeros(len(crops), dtype=int)
    if found:
        stack = np.stack(letters).astype(np.float32)
        read, turned = classifier.predict(stack)
        sure = 1 - (1 - BLANK_SURE) / 100  # a letter was found: blank is unlikely
        for row, i in enumerate(found):
            probabilities[i, :-1] = read[row] * sure
            probabilities[i, -1] = 1 - sure
            rotations[i] = int(turned[row])
    return probabilities, rotations


def _cell_reading(final: np.ndarray, seen: np.ndarray, rotation: int) -> CellReading:
    """A cell's reading from its probabilities under the dice (``final``) and as the
    classifier saw it (``seen``, for the runner-up readings)."""
    best = int(np.argmax(final))
    # The dice's confidence, lowered by how much likelier the classifier found another face: a
    # reading the dice overrode is doubtful, however sure the dice are of it.
    confidence = float(final[best]) * float(seen[best] / seen.max())
    order = np.argsort(-seen)
    alternatives = tuple((CLASSES[i], float(seen[i])) for i in order if i != best)[:ALTERNATIVES]
    return CellReading(CLASSES[best], confidence, alternatives, rotation)
