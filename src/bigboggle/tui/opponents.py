"""The terminal game's computer opponents: their seats, their seeds and their timed lists.

An opponent is the core's :class:`bigboggle.opponents.Opponent`: from the board's solution it
writes a timed list, as a person of its strength would. This module seats the opponents the
player asked for (names free among the people's, so a table's totals keep them apart), derives
each one's seed from the round's seed (so ``--seed`` replays the same opponents on the same
board), and hands out each list's entries as they fall due on the round's clock. Their words
are judged as anyone's are: submitted to the solo round's :class:`bigboggle.Round`, or scored
with the table's lists by :func:`bigboggle.score_round`. No rule lives here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..dice import MAX_SEED
from ..dictionary import Dictionary
from ..errors import RoundInputError
from ..limits import MAX_TERMINAL_OPPONENTS
from ..opponents import Opponent, opponent_name
from ..rules import Rules
from ..solver import Solution


@dataclass(frozen=True)
class Seat:
    """An opponent at the game: its seat's name ("Club bot") and its strength ("club")."""

    name: str
    strength: str


def seat_opponents(strengths: Sequence[str], taken: Iterable[str]) -> tuple[Seat, ...]:
    """Seats for the opponents of ``strengths``, named apart from ``taken`` and each other.

    :class:`RoundInputError` for more than ``MAX_TERMINAL_OPPONENTS``; :class:`RulesError` for a
    strength that is not one of :attr:`Opponent.STRENGTHS` (the message names the choices).
    """
    if len(strengths) > MAX_TERMINAL_OPPONENTS:
        raise RoundInputError(
            f"opponents: {len(strengths)} asked for; a game seats at most {MAX_TERMINAL_OPPONENTS}"
        )
    names = list(taken)
    seats = []
    for strength in strengths:
        name = opponent_name(strength, names)  # RulesError naming the strengths for another
        names.append(name)
        seats.append(Seat(name, strength))
    return tuple(seats)


def opponent_seed(base: int, index: int) -> int:
    """The seed of the ``index``-th opponent in a round whose seed is ``base``.

    A hash of both (never Python's ``hash()``, which changes between processes), so opponents of
    one strength at one game play different lists, and a replayed seed gives the same ones on
    any machine.
    """
    text = f"bigboggle terminal opponent {base} {index}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") % (MAX_SEED + 1)


@dataclass
class Playing:
    """An opponent playing a round: its timed list and how much of it has been handed out."""

    seat: Seat
    #: ``(seconds into the round, entry)``, sorted by time.
    entries: tuple[tuple[float, str], ...]
    #: How many entries :meth:`due` has handed out so far.
    sent: int = field(default=0)

    def due(self, elapsed: float) -> list[tuple[float, str]]:
        """The entries written by ``elapsed`` seconds that were not handed out yet."""
        start = self.sent
        while self.sent < len(self.entries) and self.entries[self.sent][0] <= elapsed:
            self.sent += 1
        return list(self.entries[start : self.sent])

    def rest(self) -> list[tuple[float, str]]:
        """Every entry not handed out yet (the opponent plays its round out)."""
        return self.due(float("inf"))

    def written_by(self, elapsed: float) -> list[str]:
        """The entries of the list written by ``elapsed`` seconds (a table's pens down)."""
        return [entry for at, entry in self.entries if at <= elapsed]


def play_round(
    seats: Sequence[Seat],
    solution: Solution,
    dictionary: Dictionary,
    rules: Rules,
    seconds: float,
    seed: int,
) -> list[Playing]:
    """Each seated opponent's timed list for a round of ``seconds`` on a solved board.

    The board is solved once (``solution``) for all of them; ``seed`` is the round's, from which
    each opponent's own is derived (:func:`opponent_seed`).
    """
    return [
        Playing(
            seat,
            tuple(
                Opponent(seat.strength, seed=opponent_seed(seed, index)).play_solution(
                    solution, dictionary, rules, seconds
                )
            ),
        )
        for index, seat in enumerate(seats)
    ]


def progress_line(playing: Sequence[Playing]) -> str:
    """How many entries each opponent has written so far (never which)."""
    return "Opponents: " + ", ".join(
        f"{one.seat.name} {one.sent} word{'' if one.sent == 1 else 's'}" for one in playing
    )
