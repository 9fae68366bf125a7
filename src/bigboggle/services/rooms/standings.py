"""A room's running totals across rounds, kept small however many rounds are played.

Each scored round is reduced to its tally (:func:`tally_of`: points and counts of scored words
per length, per competitor), and the room keeps the sum (:class:`Standings`), so reading a
room's totals never reads its rounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...scoring import RoundResult, competition_places
from .settings import RoomSettings


def tally_of(result: RoundResult) -> dict[str, Any]:
    """What the standings need of a round: each competitor's points and how many of its scored
    words have each length (``{"scores": {"ann": 7}, "lengths": {"ann": {"5": 1, "4": 2}}}``)."""
    lengths: dict[str, dict[str, int]] = {}
    for name, values in result.long_word_lengths().items():
        counts: dict[str, int] = {}
        for value in values:
            counts[str(value)] = counts.get(str(value), 0) + 1
        lengths[name] = counts
    return {"scores": dict(result.scores), "lengths": lengths}


@dataclass
class Standings:
    """The running totals of a room: points and scored word lengths per competitor over the
    rounds scored so far. Ordered as :class:`bigboggle.scoring.Tournament` orders them: points,
    then the longer words (compared longest first), then name. Kept as counts of words per
    length, so it stays small however many rounds are played."""

    rounds: int = 0
    totals: dict[str, int] = field(default_factory=dict)
    lengths: dict[str, dict[str, int]] = field(default_factory=dict)
    #: The number of this game's first round in the room: a rematch starts a new game (its
    #: totals from nothing) in the same room, whose earlier rounds belong to the games before.
    first_round: int = 1

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Standings:
        return cls(
            int(data.get("rounds", 0)),
            dict(data.get("totals", {})),
            {name: dict(counts) for name, counts in data.get("lengths", {}).items()},
            int(data.get("first_round", 1)),
        )

    def to_json(self) -> dict[str, Any]:
        """The totals as stored (copies: storing them shares nothing with this object)."""
        stored: dict[str, Any] = {
            "rounds": self.rounds,
            "totals": dict(self.totals),
            "lengths": {name: dict(counts) for name, counts in self.lengths.items()},
        }
        if self.first_round != 1:  # a rematch's (a room's first game stores what it did)
            stored["first_round"] = self.first_round
        return stored

    def add(self, tally: Mapping[str, Any]) -> None:
        """Count one scored round (its :func:`tally_of`)."""
        self.rounds += 1
        for name, points in tally["scores"].items():
            self.totals[name] = self.totals.get(name, 0) + points
            self.lengths.setdefault(name, {})
        for name, counts in tally["lengths"].items():
            mine = self.lengths.setdefault(name, {})
            for letters, count in counts.items():
                mine[letters] = mine.get(letters, 0) + count

    def _keys(self) -> dict[str, tuple[int, ...]]:
        # Sorted longest-first lists compare as the counts per length, longest length first.
        every = sorted({int(n) for counts in self.lengths.values() for n in counts}, reverse=True)
        return {
            name: tuple(-self.lengths.get(name, {}).get(str(n), 0) for n in every)
            for name in self.totals
        }

    @property
    def order(self) -> list[str]:
        """Competitors from first to last."""
        keys = self._keys()
        return sorted(self.totals, key=lambda name: (-self.totals[name], keys[name], name))

    def ordered_totals(self) -> dict[str, int]:
        """Competitor -> points, from first to last (as the room's views show them)."""
        return {name: self.totals[name] for name in self.order}

    def places(self) -> dict[str, int]:
        """Competitor -> place over the game, first to last: competitors tied exactly (the
        same points and the same longer words, so that no rule parts them, as a tournament's
        standings) share the better place, as in "1 ann, 1 bob, 3 cy"."""
        keys = self._keys()
        return competition_places(self.order, lambda name: (self.totals[name], keys[name]))

    def is_over(self, settings: RoomSettings) -> bool:
        """Whether the settings' ending is reached: the rounds played, or the target."""
        if settings.rounds is not None and self.rounds >= settings.rounds:
            return True
        return settings.target is not None and any(
            points >= settings.target for points in self.totals.values()
        )

    def winner(self, over: bool) -> str | None:
        """The sole leader once the game is over (``None`` before, or on an exact tie)."""
        order = self.order
        if not over or not order:
            return None
        keys = self._keys()
        first = order[0]
        tied = [n for n in order if self.totals[n] == self.totals[first] and keys[n] == keys[first]]
        return first if len(tied) == 1 else None
