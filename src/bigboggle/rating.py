"""Ratings: OpenSkill (Plackett-Luce) updates of a contest's entrants, as a pure function.

A contest is a rated room game (ranked by its final totals: a free-for-all, or teams) or a day's
daily board of one preset (ranked by score). Ratings are kept per preset family, by board size
(:func:`family_of`): a 4×4 game says little about a 6×6 one. Only members are rated: the
service gives the entrants (members, with their ratings) and stores what comes back; this
module opens no database and reads no clock.
"""

from __future__ import annotations

from dataclasses import dataclass


def family_of(rows: int, cols: int) -> str:
    """The rating family of a board of ``rows`` × ``cols`` cubes: ``"4x4"``, ``"5x5"``,
    ``"6x6"`` (any other size: its own family, written the same way)."""
    return f"{rows}x{cols}"


@dataclass(frozen=True)
class Entrant:
    """One side of a contest: a member, or a team of members (their account ids), and the
    points it finished with (higher is better; equal points tie)."""

    account_ids: tuple[int, ...]
    score: int
