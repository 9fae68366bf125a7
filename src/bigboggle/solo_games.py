"""Timed solo games kept in a database: start, submit words, end, results, and the daily board.

The server's clock is the authority: a game stores its start and deadline, and every word is
judged and stored with the time it arrived; a word at or after the deadline is refused. Nothing
lives only in memory: each call rebuilds the :class:`~bigboggle.game.Game` from the stored rows
(board, rules, words in order), so a restarted server, or another server process on the same
database, carries on where the last one stopped.

The daily board is the same for everyone on a date (UTC) and preset: its seed comes from the date,
the preset and a secret kept in the database, so tomorrow's board cannot be worked out today.
Each name is counted once per day and preset on the leaderboard.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from .analysis import MAX_SEED, Band, shake_in_band
from .dice import shake
from .dictionary import COMMON_LEVEL, Dictionary
from .errors import GameStateError, RoundInputError, RulesError
from .game import Game
from .rules import Rules
from .scoring import MAX_LIST_LENGTH, RoundResult, check_name
from .shelf import DictionaryShelf
from .store import GameRow, Store, WordRow
from .verdicts import WordResult

#: Options a solo game may set (teams and crossing off need other players).
SOLO_OPTIONS = frozenset({"advanced", "min_length", "challenge", "timer"})
#: Longest entry accepted as a word (longer text is not a word on any board).
MAX_ENTRY_LENGTH = 60


class NotFoundError(RoundInputError):
    """No game (or tournament) with that id."""


class NotOwnerError(GameStateError):
    """A change to a game by someone without its key."""


@dataclass(frozen=True)
class SoloView:
    """A solo game as the player sees it at ``now``: the board, the clock, the words so far and,
    once over, the scored round."""

    row: GameRow
    rules: Rules
    dictionary: Dictionary
    game: Game
    now: float
    #: Whether the view is its player's (who may see the words of a game still running).
    owner: bool = False
    #: The game's private key: only in the answer that starts the game.
    key: str | None = None

    @property
    def over(self) -> bool:
        return self.game.result is not None

    @property
    def result(self) -> RoundResult | None:
        return self.game.result

    def to_json(self) -> dict[str, Any]:
        """The game as the API answers it (results only once it is over)."""
        row = self.row
        player = row.player
        data: dict[str, Any] = {
            "id": row.id,
            "board": row.board,
            "rules": row.rules,
            "options": row.options,
            "dictionary": row.dictionary,
            "seed": row.seed,
            "player": player,
            "daily": row.daily_date,
            "min_length": self.rules.min_length,
            "started_at": row.started_at,
            "deadline": row.deadline,
            "now": self.now,
            "time_left": round(self.game.time_left(self.now), 3),
            "phase": "ended" if self.over else "running",
            "replay": replay_query(row),
        }
        if self.key is not None:
            data["key"] = self.key
        result = self.result
        if result is None:
            # A running game's words are its player's business (a daily rival could copy them).
            shown = self.game.submissions if self.owner else ()
            data["words"] = [submission.result.to_json() for submission in shown]
            data["score_so_far"] = sum(s.result.score for s in shown)
            return data
        mine = result.players[player]
        best = result.solution.total_score
        data["words"] = [word.to_json() for word in mine.words]
        data["ended_at"] = row.ended_at
        data["score"] = mine.score
        data["max_score"] = best
        data["share"] = round(mine.score / best, 4) if best else 0.0
        data["found"] = sum(1 for word in mine.words if word.verdict.is_valid)
        data["total_words"] = result.solution.count
        data["missed"] = [
            {**missed.to_json(), "rare": _is_rare(self.dictionary, missed.word)}
            for missed in result.missed
        ]
        return data


def _is_rare(words: Dictionary, word: str) -> bool:
    level = words.level(word)
    return level is not None and level > COMMON_LEVEL


def replay_query(row: GameRow) -> dict[str, Any]:
    """What it takes to shake the same board again: the rules, options and seed."""
    query: dict[str, Any] = {"rules": row.rules, "dictionary": row.dictionary}
    if row.seed is not None:
        query["seed"] = row.seed
    else:
        query["board"] = row.board
    query.update({key: value for key, value in row.options.items() if value is not None})
    return query


@dataclass(frozen=True)
class LeaderboardEntry:
    """One finished daily game."""

    player: str
    score: int
    max_score: int
    game_id: str
    ended_at: float

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "score": self.score,
            "max_score": self.max_score,
            "game": self.game_id,
            "ended_at": self.ended_at,
        }


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def utc_date(now: float) -> str:
    """The UTC calendar date of ``now`` (seconds since the epoch), as ``YYYY-MM-DD``."""
    return dt.datetime.fromtimestamp(now, tz=dt.UTC).date().isoformat()


def check_date(text: str) -> str:
    """``text`` if it is a real date written ``YYYY-MM-DD``; :class:`RoundInputError` if not."""
    try:
        if not isinstance(text, str) or len(text) != 10:
            raise ValueError
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise RoundInputError(f"date {text!r} is not a date written YYYY-MM-DD") from None


class SoloGames:
    """Solo games on ``store``, with dictionaries from ``shelf`` and time from ``clock``."""

    def __init__(
        self,
        store: Store,
        shelf: DictionaryShelf,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.clock = clock

    # -- starting ----------------------------------------------------------------------------

    def rules_for(self, rules: str, options: Mapping[str, Any] | None) -> Rules:
        """The preset with solo options applied; :class:`RulesError` names a bad option."""
        options = dict(options or {})
        unknown = sorted(set(options) - SOLO_OPTIONS)
        if unknown:
            raise RulesError(
                f"option {unknown[0]!r} does not apply to a solo game; options: "
                f"{', '.join(sorted(SOLO_OPTIONS))}"
            )
        return Rules.preset(rules, **options)

    def start(
        self,
        rules: str = "big",
        *,
        options: Mapping[str, Any] | None = None,
        dictionary: str | None = None,
        seed: int | None = None,
        board: str | None = None,
        band: Band | None = None,
        player: str = "you",
        daily: bool = False,
    ) -> SoloView:
        """Start a game now: a shake of the preset's dice (``seed``, or a fresh one; the first
        shake inside ``band`` if given), or a given ``board``; or today's daily board."""
        check_name(player, "player")
        now = self.clock()
        if daily:
            if options or seed is not None or board is not None or band is not None:
                raise RulesError("the daily board is played by the preset's own rules: no options")
            if dictionary not in (None, Rules.preset(rules).dictionary):
                raise RulesError("the daily board uses the preset's own dictionary")
        ruleset = self.rules_for(rules, options)
        words = self.shelf.get(dictionary or ruleset.dictionary)
        date = None
        if daily:
            date = utc_date(now)
            seed = self.daily_seed(ruleset.name, date)
        if board is not None:
            if seed is not None or band is not None:
                raise RulesError("give a board or a seed (or band), not both")
            from .board import Board

            board_text = str(Board.parse(board))
        else:
            if seed is None:
                seed = secrets.randbelow(2**32)
            if not 0 <= seed <= MAX_SEED:
                raise RulesError(f"seed {seed!r} must be between 0 and {MAX_SEED}")
            if band is not None:
                dealt, seed = shake_in_band(ruleset, words, band, seed=seed, tries=2000)
            else:
                dealt = shake(ruleset.dice, seed, challenge=ruleset.challenge)
            board_text = str(dealt.board)
        key = secrets.token_urlsafe(18)
        row = GameRow(
            id=secrets.token_urlsafe(8)[:10],
            owner_hash=_hash(key),
            rules=ruleset.name,
            options=dict(options or {}),
            dictionary=words.name,
            board=board_text,
            seed=seed,
            player=player,
            daily_date=date,
            daily_key=f"{date}/{ruleset.name}/{player.casefold()}" if date else None,
            started_at=now,
            deadline=now + ruleset.timer,
            words=[],
        )
        try:
            with self.store.session() as session:
                session.add(row)
        except IntegrityError:
            raise GameStateError(
                f"{player!r} has already played the {ruleset.name} daily board of {date}"
            ) from None
        return replace(self._view(row, now, owner=True), key=key)

    def daily_seed(self, rules: str, date: str) -> int:
        """The seed of the daily board of ``rules`` on ``date``."""
        secret = self.store.setting("daily_secret", lambda: secrets.token_hex(32))
        digest = hmac.new(secret.encode(), f"{date}/{rules}".encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:6], "big")  # 48 bits: exact in JavaScript too

    # -- playing -----------------------------------------------------------------------------

    def get(self, game_id: str, key: str | None = None) -> SoloView:
        """The game as it stands now; a game whose deadline has passed is ended and scored.
        With the game's ``key``, a running game's words are shown too."""
        now = self.clock()
        row = self._load(game_id)
        if row.ended_at is None and now >= row.deadline:
            row = self._end(row.id, now)
        return self._view(row, now, owner=self._is_owner(row, key))

    def submit(self, game_id: str, entry: str, key: str | None) -> tuple[WordResult, SoloView]:
        """Judge ``entry`` now and store it before answering; only with the game's ``key``.
        :class:`GameStateError` once the deadline has passed or the game has ended."""
        if not isinstance(entry, str) or not entry.strip():
            raise RoundInputError(f"word: expected a word, not {entry!r}")
        if len(entry) > MAX_ENTRY_LENGTH:
            raise RoundInputError(
                f"word: {entry[:20]!r}… is {len(entry)} characters; the limit is {MAX_ENTRY_LENGTH}"
            )
        entry = entry.strip()
        self._check_owner(self._load(game_id), key)
        with self.store.write_session() as session:  # one word at a time per game
            row = session.scalar(select(GameRow).where(GameRow.id == game_id).with_for_update())
            if row is None:
                raise NotFoundError(f"no game {game_id!r}")
            if row.ended_at is not None:
                raise GameStateError("the game has ended")
            now = self.clock()
            game = self._view(row, now).game
            if len(row.words) >= MAX_LIST_LENGTH:
                raise RoundInputError(f"this game has {MAX_LIST_LENGTH} words; no more fit")
            result = game.submit(row.player, entry, now)  # refuses after the deadline
            if len(game.submissions) > len(row.words):
                session.add(WordRow(game_id=row.id, seq=len(row.words), entry=entry, at=now))
        return result, self._view(self._load(game_id), now, owner=True)

    def finish(self, game_id: str, key: str | None) -> SoloView:
        """End the game now (before the deadline: the player has had enough); only with the
        game's ``key``."""
        now = self.clock()
        row = self._load(game_id)
        self._check_owner(row, key)
        if row.ended_at is None:
            row = self._end(row.id, now)
        return self._view(row, now, owner=True)

    def leaderboard(self, rules: str, date: str, limit: int = 100) -> list[LeaderboardEntry]:
        """The day's finished daily games for ``rules``, best first (earlier finish breaks ties).
        Games whose deadline has passed are scored first."""
        Rules.preset(rules)
        check_date(date)
        now = self.clock()
        with self.store.session() as session:
            stale = session.scalars(
                select(GameRow.id).where(
                    GameRow.daily_date == date,
                    GameRow.rules == rules,
                    GameRow.ended_at.is_(None),
                    GameRow.deadline <= now,
                )
            ).all()
        for game_id in stale:
            self.get(game_id)
        with self.store.session() as session:
            rows = session.scalars(
                select(GameRow)
                .where(
                    GameRow.daily_date == date,
                    GameRow.rules == rules,
                    GameRow.ended_at.is_not(None),
                )
                .order_by(GameRow.score.desc(), GameRow.ended_at, GameRow.id)
                .limit(limit)
            ).all()
            return [
                LeaderboardEntry(
                    row.player, row.score or 0, row.max_score or 0, row.id, row.ended_at or 0.0
                )
                for row in rows
            ]

    def recent(self, limit: int = 20) -> list[GameRow]:
        """The most recently finished games (a running one is its player's business)."""
        with self.store.session() as session:
            return list(
                session.scalars(
                    select(GameRow)
                    .where(GameRow.ended_at.is_not(None))
                    .order_by(GameRow.ended_at.desc())
                    .limit(limit)
                ).all()
            )

    # -- internals ---------------------------------------------------------------------------

    def _load(self, game_id: str) -> GameRow:
        if not isinstance(game_id, str) or not 1 <= len(game_id) <= 16:
            raise NotFoundError(f"no game {game_id!r}")
        with self.store.session() as session:
            row = session.get(GameRow, game_id)
            if row is None:
                raise NotFoundError(f"no game {game_id!r}")
            return row

    def _build(self, row: GameRow) -> tuple[Rules, Dictionary, Game]:
        rules = self.rules_for(row.rules, row.options)
        words = self.shelf.get(row.dictionary)
        game = Game(row.board, rules, words, [row.player])
        game.start(row.started_at, row.deadline - row.started_at)
        for word in row.words:
            game.submit(row.player, word.entry, word.at)
        return rules, words, game

    def _view(self, row: GameRow, now: float, *, owner: bool = False) -> SoloView:
        rules, words, game = self._build(row)
        if row.ended_at is not None:
            game.end(max(row.ended_at, row.started_at), early=True)
        return SoloView(row, rules, words, game, now, owner)

    def _is_owner(self, row: GameRow, key: str | None) -> bool:
        if row.owner_hash is None:  # a game from before keys: anyone may play it
            return True
        return isinstance(key, str) and hmac.compare_digest(_hash(key), row.owner_hash)

    def _check_owner(self, row: GameRow, key: str | None) -> None:
        if not self._is_owner(row, key):
            raise NotOwnerError(
                f"game {row.id!r} is another player's (its key is missing or wrong)"
            )

    def _end(self, game_id: str, now: float) -> GameRow:
        """Score the game from its stored words and mark it ended, in one locked transaction
        (so a word stored meanwhile is either in the score or refused)."""
        with self.store.write_session() as session:
            row = session.scalar(select(GameRow).where(GameRow.id == game_id).with_for_update())
            assert row is not None
            if row.ended_at is None:
                _, _, game = self._build(row)
                ended_at = min(now, row.deadline)
                result = game.end(ended_at, early=True)
                row.ended_at = ended_at
                row.score = result.players[row.player].score
                row.max_score = result.solution.total_score
        return self._load(game_id)
