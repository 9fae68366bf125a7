"""Tournaments of games played with the real box and scored here, kept in a database.

A tournament fixes the rules, the dictionary and how it ends (first to a points target, a number
of rounds, or both). Each round stores what was entered (board, lists, teams, handicaps).

**Scored once, when added.** A round is scored by :func:`~bigboggle.scoring.score_round` when it
is added, through the service's :class:`~bigboggle.services.compute.Runner` (a web server passes its
worker pool, so the scoring runs in another process within a time budget), and its result and the
standings after it are stored with it. Reading a tournament scores nothing: it reads them back.
Rounds stored before results were kept are scored once, on the first read of their tournament,
and stored; from then on that tournament reads like any other.

**Owned.** Creating a tournament answers a private key (only its hash is stored); adding a
round, renaming and deleting need it. Reading stays public. A tournament from before keys has no
owner: it is read-only for everyone, since nobody can prove it is theirs and leaving it open
would leave open the hole keys close (a stranger "winning" someone's tournament).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ..board import Board
from ..errors import (
    BoggleError,
    BusyError,
    GameStateError,
    NotFoundError,
    NotOwnerError,
    RoundInputError,
)
from ..judge import Judge
from ..limits import (
    MAX_BOARD_TEXT,
    MAX_TOURNAMENT_ENTRIES,
    MAX_TOURNAMENT_NAME,
    MAX_TOURNAMENT_ROUND_ENTRIES,
    MAX_TOURNAMENT_ROUNDS,
)
from ..names import clean_name
from ..round_input import load_json, parse_round_request
from ..round_setup import RoundSetup, require_teams, team_of
from ..rules import Rules, check_options
from ..scoring import RoundResult, Tournament, judge_round, score_round
from . import jobs
from .compute import Runner, run_here
from .keys import holds_key, new_key
from .shelf import DictionaryShelf
from .store import Store, TournamentRoundRow, TournamentRow

#: Most rounds a tournament keeps (a sanity limit, far past any evening's play).
MAX_ROUNDS = MAX_TOURNAMENT_ROUNDS
#: Rules options a tournament may set (the timer is the players' own sand-glass).
TOURNAMENT_OPTIONS = frozenset(
    {
        "advanced",
        "min_length",
        "challenge",
        "challenge_bonus",
        "teams",
        "duplicates",
        "scoring",
        "family",
    }
)


@dataclass(frozen=True)
class RoundTally:
    """What the standings need of a scored round: each competitor's points and the letter
    counts of its scored words (longest first, for tie-breaks). A :class:`Tournament` adds
    these up just as it adds up :class:`~bigboggle.scoring.RoundResult`\\ s."""

    scores: dict[str, int]
    lengths: dict[str, tuple[int, ...]]

    @classmethod
    def of(cls, result: RoundResult) -> RoundTally:
        """The tally of a scored round."""
        return cls(result.scores, result.long_word_lengths())

    def long_word_lengths(self) -> dict[str, tuple[int, ...]]:
        """Competitor -> letter counts of its scored words, longest first."""
        return self.lengths

    def to_json(self) -> dict[str, Any]:
        return {
            "scores": dict(self.scores),
            "lengths": {name: list(values) for name, values in self.lengths.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RoundTally:
        """The tally that :meth:`to_json` wrote."""
        return cls(
            {name: int(points) for name, points in data["scores"].items()},
            {name: tuple(values) for name, values in data["lengths"].items()},
        )


@dataclass(frozen=True)
class ScoredRound:
    """A round as scored when it was added: its number, its result (the JSON of
    ``bigboggle score --json``) and its tally."""

    number: int
    result: dict[str, Any]
    tally: RoundTally

    @property
    def scores(self) -> dict[str, int]:
        """Competitor -> points in this round."""
        return self.tally.scores

    def to_json(self) -> dict[str, Any]:
        """The round as the API answers it: its number and its result."""
        return {"number": self.number, **self.result}


def score_tournament_round(
    spec: jobs.ShelfSpec,
    dictionary: str,
    rules: str,
    options: Mapping[str, Any] | None,
    board: str,
    players: Mapping[str, Sequence[str]],
    teams: Mapping[str, Sequence[str]] | None,
    min_length: Mapping[str, int] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Score one tournament round from plain data: the job a :class:`Runner` runs (in a worker
    process on a web server). Returns the round's result JSON and its tally's JSON."""
    result = score_round(
        board,
        players,
        tournament_rules(rules, options),
        jobs.words(spec, dictionary),
        teams=teams,
        min_length=min_length,
    )
    return result.to_json(), RoundTally.of(result).to_json()


def score_stored_round(
    spec: jobs.ShelfSpec,
    dictionary: str,
    rules: str,
    options: Mapping[str, Any] | None,
    board: str,
    players: Mapping[str, Sequence[str]],
    teams: Mapping[str, Sequence[str]] | None,
    min_length: Mapping[str, int] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Score a round an older bigboggle stored without its result: the job for
    :meth:`PaperTournaments.get`'s one-time catch-up. Never fails on what the old schema
    accepted: if today's checks refuse the round (``Ann`` beside ``ann``, a name with a
    zero-width character), it is scored with its names as stored; if even that cannot be
    done, it gets a marker result (``"unscored": "could not be scored: …"``, no points) that
    is stored like any result, so it is not tried again on every read."""
    try:
        return score_tournament_round(
            spec, dictionary, rules, options, board, players, teams, min_length
        )
    except ValueError:  # (RoundInputError, BoardError, RulesError: today's checks refused it)
        pass
    try:
        ruleset = tournament_rules(rules, options)
        judge = Judge(Board.parse(board), ruleset, jobs.words(spec, dictionary))
        result = judge_round(
            judge, players, _setup_as_stored(players, ruleset, teams, min_length), teams
        )
        return result.to_json(), RoundTally.of(result).to_json()
    except (ValueError, KeyError, TypeError, AttributeError) as exc:  # (library errors too)
        return _unscored(board, exc), {"scores": {}, "lengths": {}}


def _setup_as_stored(
    players: Mapping[str, Sequence[str]],
    rules: Rules,
    teams: Mapping[str, Sequence[str]] | None,
    min_length: Mapping[str, int] | None,
) -> RoundSetup:
    """A round's setup with its names taken as stored (no normalising, no distinctness check);
    handicaps that do not fit are left at the rules' minimum; teams as round_setup has them
    (:func:`~bigboggle.round_setup.require_teams`, :func:`~bigboggle.round_setup.team_of`:
    everyone on one team, else :class:`RoundInputError`)."""
    minimums = dict.fromkeys(players, rules.min_length)
    for name, value in (min_length or {}).items():
        if name in minimums and isinstance(value, int) and not isinstance(value, bool):
            minimums[name] = value
    require_teams(rules, teams)
    return RoundSetup(minimums, None if teams is None else team_of(list(players), teams))


def _unscored(board: str, error: Exception) -> dict[str, Any]:
    """The result stored for an old round that cannot be scored: shown, never retried."""
    return {
        "board": board[:MAX_BOARD_TEXT],
        "players": {},
        "ranking": [],
        "unscored": f"could not be scored: {str(error)[:200]}",
    }


@dataclass(frozen=True)
class PaperTournament:
    """A tournament as stored: its name, rules, dictionary and how it ends. What a list of
    recent tournaments shows, and what a :class:`TournamentView` is of."""

    id: str
    name: str
    #: The preset's name, the options it was given and the dictionary's name.
    rules: str
    options: Mapping[str, Any]
    dictionary: str
    #: The points target and the number of rounds (either may be none).
    target: int | None
    rounds: int | None
    created_at: float
    #: Whether someone holds its key (a tournament from before keys is read-only).
    has_owner: bool

    def to_json(self) -> dict[str, Any]:
        """The tournament's settings in the API's names (a summary: no rounds, no standings)."""
        return {
            "id": self.id,
            "name": self.name,
            "rules": self.rules,
            "options": dict(self.options),
            "dictionary": self.dictionary,
            "target": self.target,
            "rounds": self.rounds,
            "has_owner": self.has_owner,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class TournamentView:
    """A tournament as stored: its settings, its rounds' results and its standings."""

    tournament: PaperTournament
    rules: Rules
    #: ``{"number", **RoundResult.to_json()}`` for each counted round, in order.
    played: tuple[dict[str, Any], ...]
    #: ``totals`` (in standings order), ``standings``, ``leaders``, ``over``, ``winner``.
    standings: dict[str, Any]
    #: The owner's private key: only in the answer that creates the tournament.
    key: str | None = None

    @property
    def over(self) -> bool:
        """Whether the target is reached or every round is played."""
        return bool(self.standings["over"])

    @property
    def has_owner(self) -> bool:
        """Whether someone holds its key (a tournament from before keys is read-only)."""
        return self.tournament.has_owner

    def to_json(self) -> dict[str, Any]:
        tournament = self.tournament
        data: dict[str, Any] = {
            "id": tournament.id,
            "name": tournament.name,
            "rules": tournament.rules,
            "options": dict(tournament.options),
            "dictionary": tournament.dictionary,
            "target": tournament.target,
            "rounds": tournament.rounds,
            "has_owner": self.has_owner,
            "played": list(self.played),
            **{name: self.standings[name] for name in _STANDINGS_KEYS},
            **{
                name: self.standings[name]
                for name in _LATER_STANDINGS_KEYS
                if name in self.standings
            },
        }
        if self.key is not None:
            data["key"] = self.key
        return data


_STANDINGS_KEYS = ("totals", "standings", "leaders", "over", "winner")
#: Added later: standings stored before them read without them.
_LATER_STANDINGS_KEYS = ("places", "tie_breaks")


def _standings_json(tournament: Tournament, entries: int = 0) -> dict[str, Any]:
    """What a read shows of the standings, worked out once when a round is added, with the
    running count of entries its rounds keep (bounded by ``MAX_TOURNAMENT_ENTRIES``)."""
    totals = tournament.totals
    return {
        "totals": {name: totals[name] for name in tournament.standings},
        "standings": tournament.standings,
        "leaders": tournament.leaders,
        "over": tournament.is_over,
        "winner": tournament.winner,
        "places": tournament.places,
        "tie_breaks": [tie.to_json() for tie in tournament.tie_breaks],
        "counted": len(tournament.results),
        "entries": entries,
    }


def _entries_of(request: Mapping[str, Any]) -> int:
    """How many entries a stored round request holds, across every player's list."""
    players = request.get("players")
    if not isinstance(players, Mapping):
        return 0
    return sum(len(words) for words in players.values() if isinstance(words, Sequence))


def _check_room_for(entries: int, stored_so_far: int) -> None:
    """Refuse a round whose lists would take the round or the tournament past its limit
    (before it is scored: what a tournament stores, and so what every read of it sends,
    stays bounded)."""
    if entries > MAX_TOURNAMENT_ROUND_ENTRIES:
        raise RoundInputError(
            f"players: the round's lists hold {entries:,} entries; a tournament round keeps at "
            f"most {MAX_TOURNAMENT_ROUND_ENTRIES:,} (MAX_TOURNAMENT_ROUND_ENTRIES)"
        )
    if stored_so_far + entries > MAX_TOURNAMENT_ENTRIES:
        raise RoundInputError(
            f"players: the round's {entries:,} entries would take the tournament past "
            f"{MAX_TOURNAMENT_ENTRIES:,} entries (MAX_TOURNAMENT_ENTRIES; it keeps "
            f"{stored_so_far:,}); start a new tournament"
        )


class PaperTournaments:
    """Tournaments on ``store``, scored with dictionaries from ``shelf`` by ``runner``."""

    def __init__(
        self,
        store: Store,
        shelf: DictionaryShelf,
        clock: Callable[[], float] = time.time,
        runner: Runner = run_here,
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.clock = clock
        self.runner = runner

    # -- the owner's changes -------------------------------------------------------------------

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
        """A new tournament, with its owner's key in the view (``view.key``: shown once);
        :class:`RoundInputError` or :class:`RulesError` on bad settings."""
        shown = _check_tournament_name(name)
        ruleset = tournament_rules(rules, options)
        Tournament(target=target, rounds=rounds)  # checks the ending
        if rounds is not None and rounds > MAX_ROUNDS:
            raise RoundInputError(f"rounds={rounds} is more than the limit of {MAX_ROUNDS}")
        words = self.shelf.get(dictionary or ruleset.dictionary)
        key, owner_hash = new_key()
        row = TournamentRow(
            id=secrets.token_urlsafe(8)[:10],
            name=shown,
            rules=ruleset.name,
            options=dict(options or {}),
            dictionary=words.name,
            target=target,
            rounds=rounds,
            created_at=self.clock(),
            owner_hash=owner_hash,
            standings=_standings_json(Tournament(target=target, rounds=rounds)),
        )
        with self.store.session() as session:
            session.add(row)
        return replace(self.get(row.id), key=key)

    def add_round(
        self, tournament_id: str, data: Any, key: str | None
    ) -> tuple[ScoredRound, TournamentView]:
        """Score a round (``{"board", "players", "teams", "min_length"}``, or that JSON's text,
        parsed only once the key is checked) and keep it, with its result and the new
        standings; only with the tournament's ``key``."""
        row = self._load(tournament_id)
        _check_owner(row, key)
        standings = self._standings(row)
        counted = int(standings["counted"])
        if standings["over"]:
            raise RoundInputError("the tournament is over; start a new one")
        if counted >= MAX_ROUNDS:
            raise RoundInputError(f"the tournament has {MAX_ROUNDS} rounds; no more fit")
        stored = _round_entry(load_json(data, "the body") if isinstance(data, str) else data)
        entries = _entries_of(stored)
        _check_room_for(entries, self._entries_so_far(tournament_id, standings))
        result, tally = self.runner(
            score_tournament_round,
            self.shelf.spec,
            row.dictionary,
            row.rules,
            row.options,
            stored["board"],
            stored["players"],
            stored["teams"],
            stored["min_length"],
        )
        with self.store.write_session() as session:
            locked = _lock(session, tournament_id)
            if locked is None:
                raise NotFoundError(f"no tournament {tournament_id!r}")
            number = _last_number(session, tournament_id) + 1
            if number != counted + 1:
                # Another round was added while this one was scored: the standings it was
                # checked against have changed. The client can send it again.
                raise GameStateError("another round was added meanwhile; reload and try again")
            tournament = Tournament(target=locked.target, rounds=locked.rounds)
            for earlier in session.scalars(
                select(TournamentRoundRow.tally)
                .where(TournamentRoundRow.tournament_id == tournament_id)
                .order_by(TournamentRoundRow.number)
            ):
                tournament.add(RoundTally.from_json(earlier))
            tournament.add(RoundTally.from_json(tally))
            so_far = self._entries_so_far(tournament_id, locked.standings or standings, session)
            session.add(
                TournamentRoundRow(
                    tournament_id=tournament_id,
                    number=number,
                    request=stored,
                    created_at=self.clock(),
                    result=result,
                    tally=tally,
                )
            )
            locked.standings = _standings_json(tournament, so_far + entries)
        scored = ScoredRound(number, result, RoundTally.from_json(tally))
        return scored, self.get(tournament_id)

    def rename(self, tournament_id: str, name: str, key: str | None) -> TournamentView:
        """Give the tournament a new name; only with its ``key``."""
        shown = _check_tournament_name(name)
        _check_owner(self._load(tournament_id), key)
        with self.store.write_session() as session:
            locked = _lock(session, tournament_id)
            if locked is None:
                raise NotFoundError(f"no tournament {tournament_id!r}")
            locked.name = shown
        return self.get(tournament_id)

    def delete(self, tournament_id: str, key: str | None) -> None:
        """Delete the tournament and its rounds for good; only with its ``key``."""
        _check_owner(self._load(tournament_id), key)
        with self.store.write_session() as session:
            session.execute(
                delete(TournamentRoundRow).where(TournamentRoundRow.tournament_id == tournament_id)
            )
            session.execute(delete(TournamentRow).where(TournamentRow.id == tournament_id))

    # -- reading -------------------------------------------------------------------------------

    def get(self, tournament_id: str) -> TournamentView:
        """The tournament with its stored results and standings (scoring nothing, except once
        for rounds stored before results were kept); :class:`NotFoundError` if there is none."""
        row = self._load(tournament_id)
        standings = self._standings(row)
        with self.store.session() as session:
            rounds = session.execute(
                select(TournamentRoundRow.number, TournamentRoundRow.result)
                .where(
                    TournamentRoundRow.tournament_id == tournament_id,
                    TournamentRoundRow.number <= int(standings["counted"]),
                )
                .order_by(TournamentRoundRow.number)
            ).all()
        played = tuple({"number": number, **(result or {})} for number, result in rounds)
        rules = tournament_rules(row.rules, row.options)
        return TournamentView(_tournament_of(row), rules, played, dict(standings))

    def recent(self, limit: int = 20) -> list[PaperTournament]:
        """The most recently created tournaments."""
        with self.store.session() as session:
            return [
                _tournament_of(row)
                for row in session.scalars(
                    select(TournamentRow).order_by(TournamentRow.created_at.desc()).limit(limit)
                )
            ]

    def unscored(self, limit: int = 1000) -> list[str]:
        """Tournaments from before standings were stored (oldest first, ``limit`` at most):
        what a server scores in the background at start-up (:meth:`catch_up`), so no reader's
        request has to."""
        with self.store.session() as session:
            return list(
                session.scalars(
                    select(TournamentRow.id)
                    .where(TournamentRow.standings.is_(None))
                    .order_by(TournamentRow.created_at)
                    .limit(limit)
                )
            )

    def catch_up(self, tournament_id: str) -> None:
        """Score and store an old tournament's rounds and standings (nothing if stored)."""
        self._standings(self._load(tournament_id))

    # -- internals -----------------------------------------------------------------------------

    def _load(self, tournament_id: str) -> TournamentRow:
        if not isinstance(tournament_id, str) or not 1 <= len(tournament_id) <= 16:
            shown = tournament_id[:20] if isinstance(tournament_id, str) else tournament_id
            raise NotFoundError(f"no tournament {shown!r}")
        with self.store.session() as session:
            row = session.get(TournamentRow, tournament_id)
            if row is None:
                raise NotFoundError(f"no tournament {tournament_id!r}")
            return row

    def _entries_so_far(
        self, tournament_id: str, standings: Mapping[str, Any], session: Session | None = None
    ) -> int:
        """The entries the tournament's rounds keep: the running count in its standings, or,
        for standings stored before it was kept, counted once from its rounds."""
        if isinstance(standings.get("entries"), int):
            return int(standings["entries"])
        if session is None:
            with self.store.session() as own:
                return self._entries_so_far(tournament_id, standings, own)
        requests = session.scalars(
            select(TournamentRoundRow.request).where(
                TournamentRoundRow.tournament_id == tournament_id
            )
        )
        return sum(_entries_of(request) for request in requests)

    def _standings(self, row: TournamentRow) -> dict[str, Any]:
        """The stored standings; for a tournament from before they were stored, its rounds
        scored once (through the runner) and stored with them."""
        if row.standings is not None:
            return row.standings
        return self._score_old_rounds(row)

    def _score_old_rounds(self, row: TournamentRow) -> dict[str, Any]:
        """Score a tournament's rounds stored without results, storing each as soon as it is
        scored (a refusal part-way keeps the rounds before it), then its standings."""
        with self.store.session() as session:
            old = session.execute(
                select(
                    TournamentRoundRow.id,
                    TournamentRoundRow.request,
                    TournamentRoundRow.result,
                    TournamentRoundRow.tally,
                )
                .where(TournamentRoundRow.tournament_id == row.id)
                .order_by(TournamentRoundRow.number)
            ).all()
        tournament = Tournament(target=row.target, rounds=row.rounds)
        for round_id, request, result, tally in old:
            if tournament.is_over:  # (rounds added by a race before the lock existed)
                break
            if result is None or tally is None:
                tally = self._score_old_round(row, round_id, request)
            tournament.add(RoundTally.from_json(tally))
        standings = _standings_json(tournament, sum(_entries_of(request) for _, request, *_ in old))
        with self.store.write_session() as session:
            locked = _lock(session, row.id)
            if locked is None:
                raise NotFoundError(f"no tournament {row.id!r}")
            if locked.standings is None and _last_number(session, row.id) == len(old):
                locked.standings = standings
        return standings

    def _score_old_round(
        self, row: TournamentRow, round_id: int, request: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Score one old round through the runner and store its result at once; returns its
        tally. A round the runner refuses for good (over its budget, or any other library
        error) gets the "could not be scored" marker, stored like a result, so it is not
        tried on every read; the pool being busy (:class:`BusyError`) is passed on: the next
        read tries again."""
        board = request["board"]
        try:
            result, tally = self.runner(
                score_stored_round,
                self.shelf.spec,
                row.dictionary,
                row.rules,
                row.options,
                board,
                request["players"],
                request.get("teams"),
                request.get("min_length"),
            )
        except BusyError:
            raise
        except BoggleError as exc:  # (BudgetExceededError among them)
            result, tally = _unscored(str(board), exc), {"scores": {}, "lengths": {}}
        with self.store.write_session() as session:
            _lock(session, row.id)  # the tournament first, then its round (as add_round)
            stored = session.get(TournamentRoundRow, round_id)
            if stored is not None and (stored.result is None or stored.tally is None):
                stored.result, stored.tally = result, tally
        return tally


def _tournament_of(row: TournamentRow) -> PaperTournament:
    """The stored tournament as plain values (what leaves the service instead of its row)."""
    return PaperTournament(
        id=row.id,
        name=row.name,
        rules=row.rules,
        options=dict(row.options),
        dictionary=row.dictionary,
        target=row.target,
        rounds=row.rounds,
        created_at=row.created_at,
        has_owner=row.owner_hash is not None,
    )


def tournament_rules(name: str, options: Mapping[str, Any] | None) -> Rules:
    """The preset with a tournament's options; the one options error
    (:func:`bigboggle.rules.check_options`) names one that does not apply (a timer: the
    players keep their own)."""
    options = dict(options or {})
    check_options(options, TOURNAMENT_OPTIONS, "options", "tournament")
    return Rules.preset(name, **options)


def _check_tournament_name(name: object) -> str:
    """A tournament's name in its normal form (NFKC, no control or invisible characters)."""
    return clean_name(name, "name", max_length=MAX_TOURNAMENT_NAME)


def _check_owner(row: TournamentRow, key: str | None) -> None:
    if row.owner_hash is None:
        raise NotOwnerError(
            f"tournament {row.id!r} is from before owner keys and is read-only; start a new one"
        )
    if not holds_key(row.owner_hash, key):
        raise NotOwnerError(
            f"tournament {row.id!r} is someone else's (its key, X-Tournament-Key, is missing "
            "or wrong)"
        )


def _round_entry(data: Any) -> dict[str, Any]:
    """What a round request stores: checked for shape, its board in canonical form."""
    board = data.get("board") if isinstance(data, dict) else None
    if isinstance(board, str) and len(board) > MAX_BOARD_TEXT:
        raise RoundInputError(f"board: {len(board)} characters; the limit is {MAX_BOARD_TEXT}")
    request = parse_round_request(data)
    for key in ("rules", "dictionary", "options"):
        if getattr(request, key) is not None:
            raise RoundInputError(f"{key}: set by the tournament; leave it out of a round")
    if request.board is None:
        raise RoundInputError("board: missing; give the round's board")
    return {
        "board": str(request.board),
        "players": request.players,
        "teams": request.teams,
        "min_length": request.min_length,
    }


def _lock(session: Session, tournament_id: str) -> TournamentRow | None:
    """The tournament's row, locked for the rest of the transaction."""
    return session.scalar(
        select(TournamentRow).where(TournamentRow.id == tournament_id).with_for_update()
    )


def _last_number(session: Session, tournament_id: str) -> int:
    return (
        session.scalar(
            select(func.max(TournamentRoundRow.number)).where(
                TournamentRoundRow.tournament_id == tournament_id
            )
        )
        or 0
    )
