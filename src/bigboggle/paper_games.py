"""Tournaments of games played with the real box and scored here, kept in a database.

A tournament fixes the rules, the dictionary and how it ends (first to a points target, a number
of rounds, or both). Each round stores what was entered (board, lists, teams, handicaps); the
results are recomputed from it by :func:`~bigboggle.scoring.score_round`, so what a page shows
can never drift from the scoring rules.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from .errors import GameStateError, RoundInputError
from .round_input import parse_round_request
from .rules import Rules
from .scoring import MAX_NAME_LENGTH, RoundResult, Tournament, score_round
from .shelf import DictionaryShelf
from .solo_games import NotFoundError
from .store import RoundRow, Store, TournamentRow

#: Most rounds a tournament keeps (a sanity limit, far past any evening's play).
MAX_ROUNDS = 200
#: Rules options a tournament may set (the timer is the players' own sand-glass).
TOURNAMENT_OPTIONS = frozenset(
    {"advanced", "min_length", "challenge", "challenge_bonus", "teams", "duplicates", "scoring"}
)


@dataclass(frozen=True)
class TournamentView:
    """A tournament with every round scored and the standings."""

    row: TournamentRow
    rules: Rules
    tournament: Tournament

    def to_json(self) -> dict[str, Any]:
        row = self.row
        tournament = self.tournament
        totals = tournament.totals
        return {
            "id": row.id,
            "name": row.name,
            "rules": row.rules,
            "options": row.options,
            "dictionary": row.dictionary,
            "target": row.target,
            "rounds": row.rounds,
            "played": [
                {"number": number, **result.to_json()}
                for number, result in enumerate(tournament.results, start=1)
            ],
            "totals": {name: totals[name] for name in tournament.standings},
            "standings": tournament.standings,
            "leaders": tournament.leaders,
            "over": tournament.is_over,
            "winner": tournament.winner,
        }


class PaperTournaments:
    """Tournaments on ``store``, scored with dictionaries from ``shelf``."""

    def __init__(
        self, store: Store, shelf: DictionaryShelf, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.clock = clock

    def create(
        self,
        name: str,
        rules: str = "big",
        *,
        options: Mapping[str, Any] | None = None,
        dictionary: str | None = None,
        target: int | None = None,
        rounds: int | None = None,
    ) -> TournamentView:
        """A new tournament; :class:`RoundInputError` or :class:`RulesError` on bad settings."""
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_LENGTH * 2:
            raise RoundInputError(
                f"name: give the tournament a name of 1-{MAX_NAME_LENGTH * 2} characters, "
                f"not {name!r}"
            )
        ruleset = _rules(rules, options)
        Tournament(target=target, rounds=rounds)  # checks the ending
        if rounds is not None and rounds > MAX_ROUNDS:
            raise RoundInputError(f"rounds={rounds} is more than the limit of {MAX_ROUNDS}")
        words = self.shelf.get(dictionary or ruleset.dictionary)
        row = TournamentRow(
            id=secrets.token_urlsafe(8)[:10],
            name=name.strip(),
            rules=ruleset.name,
            options=dict(options or {}),
            dictionary=words.name,
            target=target,
            rounds=rounds,
            created_at=self.clock(),
            played=[],
        )
        with self.store.session() as session:
            session.add(row)
        return self.get(row.id)

    def get(self, tournament_id: str) -> TournamentView:
        """The tournament with its rounds scored; :class:`NotFoundError` if there is none."""
        row = self._load(tournament_id)
        rules = _rules(row.rules, row.options)
        tournament = Tournament(target=row.target, rounds=row.rounds)
        for played in row.played:
            if tournament.is_over:  # (rounds added by a race before the lock existed)
                break
            tournament.add(self._score(row, rules, played.request))
        return TournamentView(row, rules, tournament)

    def add_round(self, tournament_id: str, data: Any) -> tuple[RoundResult, TournamentView]:
        """Score a round (``{"board", "players", "teams", "min_length"}``) and keep it."""
        view = self.get(tournament_id)
        if view.tournament.is_over:
            raise RoundInputError("the tournament is over; start a new one")
        if len(view.row.played) >= MAX_ROUNDS:
            raise RoundInputError(f"the tournament has {MAX_ROUNDS} rounds; no more fit")
        request = parse_round_request(data)
        for key in ("rules", "dictionary", "options"):
            if getattr(request, key) is not None:
                raise RoundInputError(f"{key}: set by the tournament; leave it out of a round")
        if request.board is None:
            raise RoundInputError("board: missing; give the round's board")
        stored = {
            "board": str(request.board),
            "players": request.players,
            "teams": request.teams,
            "min_length": request.min_length,
        }
        result = self._score(view.row, view.rules, stored)
        with self.store.write_session() as session:
            session.scalar(
                select(TournamentRow).where(TournamentRow.id == tournament_id).with_for_update()
            )
            number = (
                session.scalar(
                    select(func.max(RoundRow.number)).where(RoundRow.tournament_id == tournament_id)
                )
                or 0
            ) + 1
            if number != len(view.row.played) + 1:
                # Another round was added while this one was scored: the standings it was
                # checked against have changed. The client can send it again.
                raise GameStateError("another round was added meanwhile; reload and try again")
            session.add(
                RoundRow(
                    tournament_id=tournament_id,
                    number=number,
                    request=stored,
                    created_at=self.clock(),
                )
            )
        return result, self.get(tournament_id)

    def recent(self, limit: int = 20) -> list[TournamentRow]:
        """The most recently created tournaments."""
        with self.store.session() as session:
            return list(
                session.scalars(
                    select(TournamentRow).order_by(TournamentRow.created_at.desc()).limit(limit)
                ).all()
            )

    def _score(self, row: TournamentRow, rules: Rules, stored: Mapping[str, Any]) -> RoundResult:
        return score_round(
            stored["board"],
            stored["players"],
            rules,
            self.shelf.get(row.dictionary),
            teams=stored.get("teams"),
            min_length=stored.get("min_length"),
        )

    def _load(self, tournament_id: str) -> TournamentRow:
        if not isinstance(tournament_id, str) or not 1 <= len(tournament_id) <= 16:
            raise NotFoundError(f"no tournament {tournament_id!r}")
        with self.store.session() as session:
            row = session.get(TournamentRow, tournament_id)
            if row is None:
                raise NotFoundError(f"no tournament {tournament_id!r}")
            return row


def _rules(name: str, options: Mapping[str, Any] | None) -> Rules:
    options = dict(options or {})
    unknown = sorted(set(options) - TOURNAMENT_OPTIONS)
    if unknown:
        raise RoundInputError(
            f"options: {unknown[0]!r} is not a tournament option; options: "
            f"{', '.join(sorted(TOURNAMENT_OPTIONS))}"
        )
    return Rules.preset(name, **options)
