"""The preset's real dice as a prior: every die lies in the tray once, so a reading of the
whole grid is an assignment of dice to cells (the Hungarian method), and a cell's face is one
its die has.

A reading the classifier got wrong is often one that no die left for that cell could show (two
cells read as the only ``Qu``, a ``J`` where the ``BJKQuXZ`` die is already placed elsewhere):
the assignment that best explains every cell at once moves it to the likeliest face its die
does have.

But a tray may hold another edition's dice (Big Boggle's have changed over the years; a
replacement die from another set): a face the classifier is far surer of than of anything the
dice could show there is kept, as a die of its own. Such a "die of another set" costs
:data:`OTHER_DIE_PENALTY` (a log of odds), so it wins only against a die whose best face is
that many times less likely; an ordinary misreading, with the right face a runner-up, is still
put right.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment  # type: ignore[import-untyped]

#: The smallest probability taken into account (a log of 0 would rule a die out for a cell on
#: the classifier's word alone).
FLOOR = 1e-6
#: How many times likelier (as a natural log) the classifier must find a face than any face the
#: dice left could show there, for the cell to be read as a die of another set.
OTHER_DIE_PENALTY = float(np.log(100))


def assign_dice(
    probabilities: np.ndarray,
    classes: Sequence[str],
    dice: Sequence[Sequence[str]],
    *,
    required: int | None = None,
    other_dice: bool = True,
) -> list[int]:
    """For each cell (a row of ``probabilities`` over ``classes``), the index of the die in
    ``dice`` that lies there: the assignment, each die used at most once, under which the
    cells' faces are likeliest (each cell counts its die's likeliest face). ``dice`` may hold
    more dice than cells (a challenge cube that replaced one of them): die ``required`` is then
    in the tray for certain (the challenge cube is; which die it replaced is not known). With
    ``other_dice``, a cell may also be given a die of another set (index ``len(dice)`` or
    more: any face, at the cost of :data:`OTHER_DIE_PENALTY`)."""
    cells = probabilities.shape[0]
    if len(dice) < cells:
        raise ValueError(f"{len(dice)} dice for {cells} cells")
    index = {face: i for i, face in enumerate(classes)}
    logs = np.log(np.maximum(probabilities, FLOOR))
    score = np.empty((cells, len(dice)))
    for d, die in enumerate(dice):
        columns = sorted({index[face] for face in die if face in index})
        score[:, d] = logs[:, columns].max(axis=1) if columns else np.log(FLOOR)
    if required is not None:
        # Every assignment that places it gains the same: one that leaves it out never wins.
        score[:, required] += -np.log(FLOOR) * cells
    if other_dice:
        # One column per cell: a die of another set, showing the classifier's likeliest face
        # that is a letter (a blank, where the dice have none, is a cube not seen at all).
        lettered = [i for i, face in enumerate(classes) if face]
        best = logs[:, lettered].max(axis=1)
        others = np.full((cells, cells), best[:, None] - OTHER_DIE_PENALTY)
        score = np.hstack([score, others])
    chosen_cells, chosen_dice = linear_sum_assignment(score, maximize=True)
    assignment = [0] * cells
    for cell, die in zip(chosen_cells, chosen_dice, strict=True):
        assignment[int(cell)] = int(die)
    return assignment


def restrict(probabilities: np.ndarray, classes: Sequence[str], die: Sequence[str]) -> np.ndarray:
    """One cell's probabilities over ``classes`` given that ``die`` lies there: those of its
    faces, renormalised (the others 0)."""
    allowed = np.array([face in die for face in classes])
    kept = np.where(allowed, np.maximum(probabilities, FLOOR), 0.0)
    total = kept.sum()
    return kept / total if total > 0 else kept
