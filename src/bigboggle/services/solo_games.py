"""Timed solo games kept in a database: start, submit words, end, results, and the daily board.

The server's clock is the authority: a game stores its start and deadline, and every word is
judged and stored, with the verdict it got and the game's running count and score, before the
answer leaves; the game's round engine (:class:`~bigboggle.round.Round`, restored from the stored
start and deadline) refuses a word at or after the deadline. Nothing lives only in memory, so a
restarted server, or another server process on the same database, carries on where the last one
stopped. A submit costs the same at the 2,000th word as at the first: the round engine judges the
one entry against the stored list, looked up one word at a time; only the end replays the whole
list, once, to score it. Words stored before verdicts were kept get theirs (replayed once) on the
game's first use. Each game's engine (its judge has solved the board) is made at the game's
first word, where the words arrive, and kept for its next word in a bounded cache
(``SOLO_ENGINE_CACHE``): a game started and never played takes no place in it. A start solves
its board through the service's runner (the web server's worker pool) for the board's points,
and a daily start whose name has played refuses before any work on the board.

**No work on read.** A game past its deadline is ended and scored by its player's own request
(with the key) or by :meth:`SoloGames.settle` (the web server's timer at the deadline, and at
start-up for games overdue), once, under a claim kept in the database; anyone else reads it as
``scoring`` until its results are stored. The daily leaderboard reads stored scores only.

What the service answers are plain values (:mod:`~bigboggle.services.solo_views`), never its
rows; the daily board's dates, seeds and name slots are :mod:`~bigboggle.services.daily`'s, the
owner keys :mod:`~bigboggle.services.keys`'.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..analysis import Band
from ..board import Board
from ..dice import MAX_SEED, new_seed, shake
from ..dictionary import Dictionary
from ..errors import (
    GameStateError,
    NotFoundError,
    NotOwnerError,
    RulesError,
)
from ..hints import Hint, check_kind, hint, net_score
from ..limits import (  # noqa: F401 (MAX_ENTRY_LENGTH: an old path)
    MAX_ENTRY_LENGTH,
    MAX_HINTS_PER_GAME,
    MAX_LIST_LENGTH,
    MAX_OPPONENT_CELLS,
    MAX_SOLO_OPPONENTS,
    SOLO_ENGINE_CACHE,
)
from ..names import clean_name
from ..opponents import Opponent, check_strength, opponent_name
from ..round import Round, check_entry
from ..rules import Rules, check_options
from ..scoring import RoundResult, competition_places
from ..solver import solve
from ..verdicts import Verdict, WordResult
from . import history, jobs
from .compute import Runner, run_here
from .daily import check_date, daily_key, daily_seed, utc_date
from .keys import holds_key, new_key
from .members import check_name_free, marked_member, username_of
from .shelf import DictionaryShelf
from .solo_views import (
    HintAnswer,
    LeaderboardEntry,
    OpponentChoice,
    OpponentSeat,
    SoloGame,
    SoloView,
    Submitted,
)
from .store import (
    AccountRow,
    Setting,
    SoloGameRow,
    SoloHintRow,
    SoloOpponentRow,
    SoloWordRow,
    Store,
)

#: Options a solo game may set (teams and crossing off need other players).
SOLO_OPTIONS = frozenset({"advanced", "min_length", "challenge", "timer", "family"})
#: The seat a solo game's round engine gives its one player. The stored name is shown but plays
#: no part in judging, so a game stored under a name today's checks refuse (an invisible
#: character, from before names were checked) is judged and scored like any other.
SEAT = "player"
#: Seconds after which a claim to score a game (see :meth:`SoloGames._claim`) is taken to be
#: abandoned (its process died mid-job) and another request may score the game instead.
SCORING_CLAIM_SECONDS = 120.0
#: The setting that keeps the secret the daily boards' seeds are made from.
DAILY_SECRET = "daily_secret"

#: A listener told the id of each game whose results were just stored (after the transaction
#: commits): how a service built on solo games (challenges) learns of a finish without the solo
#: games importing it.
ScoredListener = Callable[[str], None]

log = logging.getLogger(__name__)


def solo_rules(rules: str, options: Mapping[str, Any] | None) -> Rules:
    """The preset with solo options applied; :class:`RulesError` names a bad option."""
    options = dict(options or {})
    check_options(options, SOLO_OPTIONS, "options", "solo game")
    return Rules.preset(rules, **options)


#: A computer opponent's part of a game, as the scoring job takes it: its seat name, strength
#: and timed entries (seconds into the round, entry).
OpponentList = tuple[str, str, Sequence[tuple[float, str]]]


def score_solo_game(
    spec: jobs.ShelfSpec,
    dictionary: str,
    rules: str,
    options: Mapping[str, Any] | None,
    board: str,
    player: str,
    started_at: float,
    deadline: float,
    entries: Sequence[tuple[str, float]],
    ended_at: float,
    opponents: Sequence[OpponentList] = (),
    hints: Sequence[Mapping[str, Any]] = (),
    practice: bool = False,
    hints_allowed: bool = False,
) -> dict[str, Any]:
    """Score a finished solo game from plain data: the job a :class:`~bigboggle.services.compute.Runner`
    runs (in a worker process on a web server). The round engine replays the stored entries in
    order, with each computer opponent's entries written before the game ended (at their own
    times) in its own seat, and ends the round: one :class:`Round` with every seat, so the
    rules cross off words found by several (``duplicates`` per the preset). Returns the results
    as a finished game shows them: the player's verdicts after crossing off, their score net of
    the ``hints`` used (each a stored hint's JSON with its ``cost``; never below zero), the
    opponents' lists with verdicts and scores, a ranking (with opponents), and the player's
    missed words (with who found each, if an opponent did)."""
    words = jobs.words(spec, dictionary)
    seats = [SEAT, *(name for name, _strength, _entries in opponents)]
    game = Round.resume(  # (the stored name plays no part)
        board, solo_rules(rules, options), words, seats, started_at=started_at, deadline=deadline
    )
    for entry, at in entries:
        game.submit(SEAT, entry, at)
    end = max(ended_at, started_at)
    for name, _strength, timed in opponents:
        for offset, entry in timed:
            if started_at + offset < end:  # written before the game ended
                game.submit(name, entry, started_at + offset)
    result = game.end(end, early=True)
    mine = result.players[SEAT]
    best = result.solution.total_score
    used = [dict(stored) for stored in hints]
    cost = sum(int(stored.get("cost", 0)) for stored in used)
    score = net_score(mine.score, cost)
    mine_valid = {word.word for word in mine.words if word.verdict.is_valid}
    finders = _finders(result, [name for name, _strength, _entries in opponents])
    data: dict[str, Any] = {
        "words": [word.to_json() for word in mine.words],
        "score": score,
        "points": mine.score,
        "max_score": best,
        "share": round(score / best, 4) if best else 0.0,
        "found": len(mine_valid),
        "crossed_off": sum(1 for word in mine.words if word.verdict is Verdict.CROSSED_OFF),
        "total_words": result.solution.count,
        "missed": [
            {
                **missed.to_json(),
                "rare": _is_rare(words, missed.word),
                **({"found_by": finders[missed.word]} if missed.word in finders else {}),
            }
            for missed in result.solution.words
            if missed.word not in mine_valid
        ],
        "hints": {
            "allowed": practice or hints_allowed,
            "practice": practice,
            "used": used,
            "cost": cost,
        },
    }
    if opponents:
        data["opponents"] = [
            _opponent_result(result, name, strength) for name, strength, _entries in opponents
        ]
        data["ranking"] = _ranking(result, player, score, dict((n, s) for n, s, _ in opponents))
    return data


def _opponent_result(result: RoundResult, name: str, strength: str) -> dict[str, Any]:
    """An opponent's part of the results: its words with their verdicts (after crossing off)
    and its score."""
    seat = result.players[name]
    return {
        "name": name,
        "strength": strength,
        "label": Opponent.label(strength),
        "words": [word.to_json() for word in seat.words],
        "score": seat.score,
        "found": sum(1 for word in seat.words if word.verdict.is_valid),
        "crossed_off": sum(1 for word in seat.words if word.verdict is Verdict.CROSSED_OFF),
    }


def _finders(result: RoundResult, names: Sequence[str]) -> dict[str, list[str]]:
    """Word -> the opponents whose lists hold it as a good word (scored or crossed off)."""
    found: dict[str, list[str]] = {}
    for name in names:
        for word in result.players[name].words:
            if word.verdict.is_valid:
                found.setdefault(word.word, []).append(name)
    return found


def _ranking(
    result: RoundResult, player: str, score: int, strengths: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Every seat from first to last as :attr:`RoundResult.ranking` orders them (points, then
    longer words, then name), with the player's score net of hints; equal scores share a place."""
    scores = dict(result.scores)
    scores[SEAT] = score
    lengths = result.long_word_lengths()
    names = {seat: (player if seat == SEAT else seat) for seat in scores}
    order = sorted(
        scores, key=lambda seat: (-scores[seat], tuple(-n for n in lengths[seat]), names[seat])
    )
    places = competition_places(order, scores.__getitem__)
    return [
        {
            "name": names[seat],
            "score": scores[seat],
            "place": places[seat],
            "you": seat == SEAT,
            **({"strength": strengths[seat]} if seat in strengths else {}),
        }
        for seat in order
    ]


def solo_hint(
    spec: jobs.ShelfSpec,
    dictionary: str,
    rules: str,
    options: Mapping[str, Any] | None,
    board: str,
    kind: str,
    found: Sequence[str],
    free: bool,
) -> dict[str, Any]:
    """The hint of ``kind`` for a player who has found ``found`` on ``board``, as stored: the
    runner's job (solving the board is CPU work). The board's words are those its scoring
    counts (under the family filter, none it refuses); the hinted word is the easiest by the
    dictionary's levels (:func:`bigboggle.hints.hint`)."""
    words = jobs.words(spec, dictionary)
    ruleset = solo_rules(rules, options)
    solution = solve(board, words, ruleset)
    if ruleset.family:
        solution = solution.without_offensive()
    given = hint(kind, solution, found, level=words.level if words.has_levels else None, free=free)
    return {
        "kind": given.kind,
        "revealed": dict(given.revealed),
        "word": given.word,
        "cost": given.cost,
        "text": given.text,
    }


def _is_rare(words: Dictionary, word: str) -> bool:
    return history.is_rare(words, word)


class SoloGames:
    """Solo games on ``store``, with dictionaries from ``shelf`` and time from ``clock``."""

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
        #: Told each game's id once its results are stored (see :data:`ScoredListener`); a
        #: listener's error is logged, never the scoring's: the results are already kept.
        self.on_scored: list[ScoredListener] = []
        #: Each recent game's round engine (its judge solved the board once), by game id, least
        #: recently used first; at most ``SOLO_ENGINE_CACHE``. Only ``judge_next`` is asked of
        #: them, which keeps nothing: a game's board, rules, dictionary and clock never change.
        self._engines: OrderedDict[str, Round] = OrderedDict()
        self._engines_lock = threading.Lock()

    # -- starting ----------------------------------------------------------------------------

    def rules_for(self, rules: str, options: Mapping[str, Any] | None) -> Rules:
        """The preset with solo options applied; :class:`RulesError` names a bad option."""
        return solo_rules(rules, options)

    def start(
        self,
        rules: str = "big",
        *,
        options: Mapping[str, Any] | None = None,
        dictionary: str | None = None,
        seed: int | None = None,
        board: str | None = None,
        band: Band | None = None,
        player: str | None = None,
        daily: bool = False,
        account_id: int | None = None,
        opponents: Sequence[OpponentChoice | str] = (),
        practice: bool = False,
        hints: bool = False,
        private_until: float | None = None,
    ) -> SoloView:
        """Start a game now: a shake of the preset's dice (``seed``, or a fresh one; the first
        shake inside ``band`` if given), or a given ``board``; or today's daily board.
        ``player`` is kept in its normal form (:func:`~bigboggle.names.clean_name`).

        ``account_id`` is the member playing (``None`` for a guest): the game is theirs, and
        its play goes into their history when it is scored. A member plays the daily board
        under their user name, whatever ``player`` says (one name per member on the
        leaderboard and in the ratings); a practice game under ``player``, their user name if
        ``None``. A name a member holds is theirs alone (:mod:`~bigboggle.services.members`):
        anyone else's start under it (a look-alike too) is refused with
        :class:`~bigboggle.errors.NameTakenError` before any work on the board, and again in
        the transaction that stores the game.

        ``opponents`` are computer opponents (at most ``MAX_SOLO_OPPONENTS``; a strength name or
        an :class:`OpponentChoice`): each one's timed list is made now through the runner
        (``jobs.opponents_entries``, one job for all) and stored with the game; their words count against the
        player's at the end, crossed off by the rules. ``practice`` makes hints free and keeps
        the game out of the member's history; ``hints`` allows hints at their cost. The daily
        board allows none of these (it is everyone's same solo board, once a day)."""
        choices = _check_opponents(opponents)
        player = self._player_name(player, daily, account_id)
        now = self.clock()
        if daily:
            if choices or practice or hints:
                raise RulesError(
                    "the daily board is played alone, as it counts on its leaderboard: "
                    "no opponents, practice or hints (start an ordinary game for those)"
                )
            if options or seed is not None or board is not None or band is not None:
                raise RulesError("the daily board is played by the preset's own rules: no options")
            if dictionary not in (None, Rules.preset(rules).dictionary):
                raise RulesError("the daily board uses the preset's own dictionary")
        ruleset = self.rules_for(rules, options)
        words = self.shelf.get(dictionary or ruleset.dictionary)
        with self.store.session() as session:
            check_name_free(session, player, account_id)  # before any work on the board
        date = slot = None
        if daily:
            date = utc_date(now)
            slot = daily_key(date, ruleset.name, player)
            self._check_daily_free(slot, player, ruleset, date)  # before any work on the board
            with self.store.session() as session:
                _check_member_daily_free(session, account_id, ruleset, date)
            seed = self.daily_seed(ruleset.name, date)
        board_text, seed = self._deal(ruleset, options, words, seed, board, band)
        if choices:
            _check_opponents_board(board_text)
        # The board's points, known from the start: what the player's meter measures against
        # (nothing is solved on a read). Solving is CPU work a stranger asks for, so it runs
        # through the runner (the web server's bounded worker pool), not in this thread; the
        # game's round engine is made at its first word (see :meth:`submit`).
        max_score = self.runner(
            jobs.board_points, self.shelf.spec, board_text, ruleset.name, options, words.name
        )
        game_id = secrets.token_urlsafe(8)[:10]
        seats = self._seat_opponents(game_id, choices, player, ruleset, options, words, board_text)
        key, owner_hash = new_key()
        row = SoloGameRow(
            id=game_id,
            owner_hash=owner_hash,
            rules=ruleset.name,
            options=dict(options or {}),
            dictionary=words.name,
            board=board_text,
            seed=seed,
            player=player,
            daily_date=date,
            daily_key=slot,
            account_id=account_id,
            started_at=now,
            deadline=now + ruleset.timer,
            word_count=0,
            score_so_far=0,
            max_score=max_score,
            practice=practice or None,
            hints_allowed=hints or None,
            private_until=_checked_private_until(private_until),
        )
        try:
            with self.store.write_session() as session:
                check_name_free(session, player, account_id)  # a member signed up meanwhile
                if date is not None:  # a claim (or a start) meanwhile: in this transaction
                    _check_member_daily_free(session, account_id, ruleset, date, lock=True)
                session.add(row)
                session.flush()  # the game before its opponents (their key names it)
                session.add_all(seats)
        except IntegrityError:  # the same slot taken meanwhile, by a start that raced this one
            raise _played_already(player, ruleset, date) from None
        return SoloView(
            _game_of(row), ruleset, now, owner=True, key=key, opponents=_seats_of(seats)
        )

    def _seat_opponents(
        self,
        game_id: str,
        choices: Sequence[OpponentChoice],
        player: str,
        rules: Rules,
        options: Mapping[str, Any] | None,
        words: Dictionary,
        board: str,
    ) -> list[SoloOpponentRow]:
        """Each opponent's row: a seat name free beside the player's, and its timed list for the
        whole round, made through the runner (solving is CPU work), at most a list's length."""
        taken = [player, SEAT]
        seats: list[SoloOpponentRow] = []
        if not choices:
            return seats
        seeds = [new_seed() if choice.seed is None else choice.seed for choice in choices]
        lists = self.runner(  # one job: the board solved once for every opponent
            jobs.opponents_entries,
            self.shelf.spec,
            words.name,
            rules.name,
            options,
            board,
            [(choice.strength, seed) for choice, seed in zip(choices, seeds, strict=True)],
            float(rules.timer),
        )
        for index, (choice, seed, timed) in enumerate(zip(choices, seeds, lists, strict=True)):
            name = opponent_name(choice.strength, taken)
            taken.append(name)
            seats.append(
                SoloOpponentRow(
                    game_id=game_id,
                    seat=index,
                    name=name,
                    strength=choice.strength,
                    seed=seed,
                    entries=[[round(at, 3), entry] for at, entry in timed[:MAX_LIST_LENGTH]],
                )
            )
        return seats

    def _player_name(self, player: str | None, daily: bool, account_id: int | None) -> str:
        """The name a game is played under: a member's user name on the daily board (and
        when no name is given), else ``player`` in its normal form (``"you"`` if none)."""
        if account_id is not None and (daily or player is None):
            with self.store.session() as session:
                username = username_of(session, account_id)
            if username is None:
                raise NotFoundError("that member's account no longer exists")
            return username
        return clean_name("you" if player is None else player, "player")

    def _deal(
        self,
        rules: Rules,
        options: Mapping[str, Any] | None,
        words: Dictionary,
        seed: int | None,
        board: str | None,
        band: Band | None,
    ) -> tuple[str, int | None]:
        """The new game's board, as text, and the seed it was shaken from: ``board`` as given
        (no seed), or a shake of the rules' dice from ``seed`` (a fresh one if none), the first
        one inside ``band`` if given (a search of shakes: the runner's job)."""
        if board is not None:
            if seed is not None or band is not None:
                raise RulesError("give a board or a seed (or band), not both")
            return str(Board.parse(board)), None
        if seed is None:
            seed = new_seed()
        if not 0 <= seed <= MAX_SEED:
            raise RulesError(f"seed {seed!r} must be between 0 and {MAX_SEED}")
        if band is not None:
            spec = self.shelf.spec
            seed = self.runner(jobs.seed_in_band, spec, rules.name, options, words.name, band, seed)
        return str(shake(rules.dice, seed, challenge=rules.challenge).board), seed

    def _check_daily_free(self, slot: str, player: str, rules: Rules, date: str) -> None:
        """:class:`GameStateError` if ``player`` (or a look-alike name) has already played this
        daily board: a lookup of its slot, so a refused start costs no work on the board. A
        game holds its slot from its start, whatever becomes of it (running, ended, past its
        deadline and unscored, claimed by a member): the row keeps its key. (Two starts at once
        may both pass; the slot's unique key refuses the second's insert.)"""
        with self.store.session() as session:
            taken = session.scalar(
                select(SoloGameRow.id).where(SoloGameRow.daily_key == slot).limit(1)
            )
        if taken is not None:
            raise _played_already(player, rules, date)

    def daily_seed(self, rules: str, date: str) -> int:
        """The seed of the daily board of ``rules`` on ``date`` (from the server's secret)."""
        secret = self.store.setting(DAILY_SECRET, lambda: secrets.token_hex(32))
        return daily_seed(secret, rules, date)

    # -- playing -----------------------------------------------------------------------------

    def get(
        self, game_id: str, key: str | None = None, *, account_id: int | None = None
    ) -> SoloView:
        """The game as it stands now. With the game's ``key`` (or as ``account_id``, the member
        whose game it is: its page for them in any browser), a running game's words are shown
        too (as stored: nothing is judged again), a private game's are not sealed, and a game
        whose deadline has passed is ended and scored (once: see :meth:`settle`). Anyone
        else's read does no work: a game past its deadline whose results are not stored yet
        reads as ``scoring``."""
        now = self.clock()
        row = self._load(game_id)
        owner = self._is_owner(row, key) or (
            account_id is not None and row.account_id == account_id
        )
        if owner:
            row = self._settle(row, now)
        return self._view(row, now, owner=owner)

    def settle(self, game_id: str) -> SoloView:
        """End the game if its deadline has passed and score it if it has ended unscored: what
        a timer calls at a game's deadline (and a server at start-up for games overdue). The
        scoring happens once, under a claim: a second caller meanwhile reads ``scoring``."""
        now = self.clock()
        return self._view(self._settle(self._load(game_id), now), now)

    def overdue(self, limit: int = 1000) -> list[tuple[str, float]]:
        """Games past their deadline or ended whose results are not stored, with their
        deadlines, earliest first (``limit`` at most): what a server settles at start-up. Only
        games someone else reads (see :func:`needs_timer`): the rest are scored by their
        player's next request."""
        now = self.clock()
        with self.store.session() as session:
            return [
                (game_id, deadline)
                for game_id, deadline in session.execute(
                    select(SoloGameRow.id, SoloGameRow.deadline)
                    .where(
                        SoloGameRow.result.is_(None),
                        or_(SoloGameRow.deadline <= now, SoloGameRow.ended_at.is_not(None)),
                        _SCORED_UNREAD,
                    )
                    .order_by(SoloGameRow.deadline)
                    .limit(limit)
                )
            ]

    def running(self, limit: int = 10_000) -> list[tuple[str, float]]:
        """Games still running (not ended, deadline to come) that need a timer (see
        :func:`needs_timer`), with their deadlines, earliest first (``limit`` at most): what a
        server times at start-up."""
        now = self.clock()
        with self.store.session() as session:
            return [
                (game_id, deadline)
                for game_id, deadline in session.execute(
                    select(SoloGameRow.id, SoloGameRow.deadline)
                    .where(
                        SoloGameRow.ended_at.is_(None), SoloGameRow.deadline > now, _SCORED_UNREAD
                    )
                    .order_by(SoloGameRow.deadline)
                    .limit(limit)
                )
            ]

    def submit(self, game_id: str, entry: str, key: str | None) -> Submitted:
        """Judge ``entry`` now and store it, with its verdict, before answering; only with the
        game's ``key``. The word is bounded first (:func:`bigboggle.round.check_entry`).
        :class:`GameStateError` once the deadline has passed (as the game's round engine
        refuses it, without building one for a word that cannot count; the game is then ended
        and scored, its player being here) or the game has ended.

        The cost does not grow with the list: the game's round engine judges the one entry
        (:meth:`~bigboggle.round.Round.judge_next`) against the stored list, asked one word at a
        time by an indexed lookup, and the count and score so far are kept on the game's row.
        """
        entry = check_entry(entry)
        row = self._load(game_id)
        self._check_owner(row, key)
        now = self.clock()
        if row.ended_at is None and now >= row.deadline:
            # The engine would refuse this word (Round.check_clock, the same deadline): do not
            # build one, solving the board, to be told so. End and score the game, its player
            # being here, and refuse the word as the engine does.
            self._settle(row, now)
            raise GameStateError("time is up: the round's deadline has passed")
        game = self._engine(row)  # solving the board (once per game): outside the write lock
        try:
            return self._store_word(game, game_id, entry)
        except GameStateError:
            now = self.clock()
            if row.ended_at is None and game.is_over(now):
                self._settle(row, now)  # time is up and its player is here: end and score it now
            raise

    def _store_word(self, game: Round, game_id: str, entry: str) -> Submitted:
        """Judge ``entry`` by the game's round engine (which refuses it from the deadline on,
        and past the list's limit) and store it with its verdict, one word at a time per game."""
        with self.store.write_session() as session:
            locked = _lock(session, game_id)
            if locked is None:
                raise NotFoundError(f"no game {game_id!r}")
            if locked.ended_at is not None:
                raise GameStateError("the game has ended")
            if locked.word_count is None or locked.score_so_far is None:
                _count_old_words(session, locked, self._fresh_game(locked))
            count, points = locked.word_count or 0, locked.score_so_far or 0
            now = self.clock()
            result = game.judge_next(
                SEAT, entry, now, earlier=_StoredWords(session, game_id), count=count
            )
            if result.verdict is not Verdict.REPEATED:
                session.add(_word_row(game_id, count, entry, now, result))
                count, points = count + 1, points + result.score
                locked.word_count, locked.score_so_far = count, points
            deadline = locked.deadline
        return Submitted(result, count, points, now, deadline)

    def finish(self, game_id: str, key: str | None) -> SoloView:
        """End the game now (before the deadline: the player has had enough); only with the
        game's ``key``."""
        now = self.clock()
        row = self._load(game_id)
        self._check_owner(row, key)
        if row.ended_at is None:
            row = self._end(row.id, now)
        return self._view(self._settle(row, now), now, owner=True)

    def use_hint(self, game_id: str, kind: str, key: str | None) -> HintAnswer:
        """A hint of ``kind`` (:data:`bigboggle.hints.HINT_COSTS`) for the game's player, now;
        only with the game's ``key``, while the game runs, and only in a practice game (free)
        or one whose options allow hints (at their cost, taken from the score at the end).

        The hint is stored with the game before it is answered (so the results list it, and
        charge it, whatever happens to the answer). The same hint asked again (the same kind
        revealing the same thing: the hinted word is unchanged) is shown again at no cost and
        not stored twice. :class:`GameStateError` (409) when hints are not allowed, the game is
        over, ``MAX_HINTS_PER_GAME`` are used, or no word is left to hint at; a
        :class:`RulesError` names an unknown kind."""
        kind = check_kind(kind)
        row = self._load(game_id)
        self._check_owner(row, key)
        if not (row.practice or row.hints_allowed):
            raise GameStateError(
                "hints are not allowed in this game: start a practice game, or one with hints on"
            )
        now = self.clock()
        if row.ended_at is None and now >= row.deadline:
            self._settle(row, now)  # its player is here: end and score it now
        if row.ended_at is not None or now >= row.deadline:
            raise GameStateError("the game has ended: hints are for a game being played")
        with self.store.session() as session:
            found = list(
                session.scalars(
                    select(SoloWordRow.word).where(
                        SoloWordRow.game_id == game_id,
                        SoloWordRow.verdict == Verdict.SCORED.value,
                    )
                ).all()
            )
            count = session.scalar(
                select(func.count()).select_from(SoloHintRow).where(SoloHintRow.game_id == game_id)
            )
        if (count or 0) >= MAX_HINTS_PER_GAME:
            raise GameStateError(f"at most {MAX_HINTS_PER_GAME} hints a game: none is left")
        given = self.runner(
            solo_hint,
            self.shelf.spec,
            row.dictionary,
            row.rules,
            row.options,
            row.board,
            kind,
            [word for word in found if word],
            bool(row.practice),
        )
        return self._store_hint(game_id, given)

    def _store_hint(self, game_id: str, given: Mapping[str, Any]) -> HintAnswer:
        """Store ``given`` (:func:`solo_hint`'s) with the game, in its locked row's transaction
        (the clock, the limit and "asked already" checked again there), and answer it."""
        revealed = {**dict(given["revealed"]), "text": given["text"]}
        with self.store.write_session() as session:
            locked = _lock(session, game_id)
            if locked is None:
                raise NotFoundError(f"no game {game_id!r}")
            now = self.clock()
            if locked.ended_at is not None or now >= locked.deadline:
                raise GameStateError("the game has ended: hints are for a game being played")
            stored = session.scalars(
                select(SoloHintRow).where(SoloHintRow.game_id == game_id).order_by(SoloHintRow.seq)
            ).all()
            cost = sum(used.cost for used in stored)
            for used in stored:
                if used.kind == given["kind"] and used.revealed == revealed:
                    shown = _hint_json(used, with_word=False)
                    return HintAnswer(shown, True, len(stored), cost, now, locked.deadline)
            if len(stored) >= MAX_HINTS_PER_GAME:
                raise GameStateError(f"at most {MAX_HINTS_PER_GAME} hints a game: none is left")
            new = SoloHintRow(
                game_id=game_id,
                seq=len(stored),
                kind=str(given["kind"]),
                at=now,
                word=given["word"],
                revealed=revealed,
                cost=int(given["cost"]),
            )
            session.add(new)
            session.flush()
            shown = _hint_json(new, with_word=False)
            deadline = locked.deadline
        return HintAnswer(shown, False, len(stored) + 1, cost + new.cost, now, deadline)

    def leaderboard(self, rules: str, date: str, limit: int = 100) -> list[LeaderboardEntry]:
        """The day's scored daily games for ``rules``, best first (earlier finish breaks ties),
        each with its place by competition ranking (equal scores share a place, the next one
        skips: 1, 2, 2, 4, as the leaderboards of :mod:`~bigboggle.services.leaderboards`).
        Only stored scores are read: a game past its deadline but not scored yet is left off
        until its player's next request (or the server's timer) scores it. Nothing here judges
        or parses a stored name, so no one row can fail the board."""
        Rules.preset(rules)
        check_date(date)
        with self.store.session() as session:
            rows = session.execute(
                select(SoloGameRow, AccountRow.username)
                .outerjoin(AccountRow, AccountRow.id == SoloGameRow.account_id)
                .where(
                    SoloGameRow.daily_date == date,
                    SoloGameRow.rules == rules,
                    SoloGameRow.ended_at.is_not(None),
                    SoloGameRow.score.is_not(None),
                )
                .order_by(SoloGameRow.score.desc(), SoloGameRow.ended_at, SoloGameRow.id)
                .limit(limit)
            ).all()
        entries: list[LeaderboardEntry] = []
        for index, (row, username) in enumerate(rows):
            score = row.score or 0
            tied = bool(entries) and entries[-1].score == score
            entries.append(
                LeaderboardEntry(
                    row.player,
                    score,
                    row.max_score or 0,
                    row.id,
                    row.ended_at or 0.0,
                    member=marked_member(row.player, username),
                    place=entries[-1].place if tied else index + 1,
                )
            )
        return entries

    def recent(self, limit: int = 20) -> list[SoloGame]:
        """The most recently finished games (a running one is its player's business)."""
        with self.store.session() as session:
            return [
                replace(_game_of(row), member=marked_member(row.player, username))
                for row, username in session.execute(
                    select(SoloGameRow, AccountRow.username)
                    .outerjoin(AccountRow, AccountRow.id == SoloGameRow.account_id)
                    .where(SoloGameRow.ended_at.is_not(None))
                    .order_by(SoloGameRow.ended_at.desc())
                    .limit(limit)
                )
            ]

    # -- internals ---------------------------------------------------------------------------

    def _load(self, game_id: str) -> SoloGameRow:
        if not isinstance(game_id, str) or not 1 <= len(game_id) <= 16:
            raise NotFoundError(f"no game {game_id!r}")
        with self.store.session() as session:
            row = session.get(SoloGameRow, game_id)
            if row is None:
                raise NotFoundError(f"no game {game_id!r}")
            return row

    def _fresh_game(self, row: SoloGameRow) -> Round:
        """The game's round engine restored from its row (running from its stored start to its
        stored deadline) with none of its words: judging one entry costs the same whatever the
        list holds. Its one player sits as :data:`SEAT`."""
        rules = self.rules_for(row.rules, row.options)
        return Round.resume(
            row.board,
            rules,
            self._words(row),
            [SEAT],
            started_at=row.started_at,
            deadline=row.deadline,
        )

    def _engine(self, row: SoloGameRow) -> Round:
        """The game's round engine from the cache (made once per game, not per word: making one
        solves the board twice, 5-30 ms on a 12x12 board), for :meth:`Round.judge_next` only."""
        with self._engines_lock:
            game = self._engines.get(row.id)
            if game is not None:
                self._engines.move_to_end(row.id)
                return game
        game = self._fresh_game(row)  # (outside the lock: two threads may both make one)
        self._keep_engine(row.id, game)
        return game

    def _keep_engine(self, game_id: str, game: Round) -> None:
        """Keep ``game`` as the game's engine, dropping the least recently used past the cap."""
        with self._engines_lock:
            self._engines[game_id] = game
            self._engines.move_to_end(game_id)
            while len(self._engines) > SOLO_ENGINE_CACHE:
                self._engines.popitem(last=False)

    def _forget_engine(self, game_id: str) -> None:
        with self._engines_lock:
            self._engines.pop(game_id, None)

    def _words(self, row: SoloGameRow) -> Dictionary:
        return self.shelf.get(row.dictionary)

    def _view(self, row: SoloGameRow, now: float, *, owner: bool = False) -> SoloView:
        """The game as stored (judging and scoring nothing, bar counting a pre-verdicts
        game's words once for its player)."""
        rules = self.rules_for(row.rules, row.options)
        game = _game_of(row)
        if row.result is not None:
            return SoloView(game, rules, now, owner, results=row.result)
        seats = self._opponent_seats(row.id)
        if row.ended_at is not None or now >= row.deadline:
            return SoloView(game, rules, now, owner, scoring=True, opponents=seats)
        shown: tuple[WordResult, ...] = ()
        used: tuple[dict[str, Any], ...] = ()
        if owner:
            if row.word_count is None:  # a game from before verdicts were kept
                with self.store.write_session() as session:
                    locked = _lock(session, row.id)
                    if locked is not None and locked.word_count is None:
                        _count_old_words(session, locked, self._fresh_game(locked))
            shown = self._stored_words(row.id)
            used = tuple(_hint_json(hint_row, with_word=False) for hint_row in self._hints(row.id))
        return SoloView(game, rules, now, owner, words=shown, opponents=seats, hints=used)

    def _opponent_seats(self, game_id: str) -> tuple[OpponentSeat, ...]:
        with self.store.session() as session:
            rows = session.scalars(
                select(SoloOpponentRow).where(SoloOpponentRow.game_id == game_id)
            ).all()
            return _seats_of(rows)

    def _opponent_lists(self, game_id: str) -> list[OpponentList]:
        """Each opponent's seat name, strength and timed entries, in seat order."""
        with self.store.session() as session:
            rows = session.scalars(
                select(SoloOpponentRow)
                .where(SoloOpponentRow.game_id == game_id)
                .order_by(SoloOpponentRow.seat)
            ).all()
            return [
                (row.name, row.strength, [(float(at), str(entry)) for at, entry in row.entries])
                for row in rows
            ]

    def _hints(self, game_id: str) -> list[SoloHintRow]:
        """The hints the game's player has used, in order."""
        with self.store.session() as session:
            return list(
                session.scalars(
                    select(SoloHintRow)
                    .where(SoloHintRow.game_id == game_id)
                    .order_by(SoloHintRow.seq)
                ).all()
            )

    def _stored_words(self, game_id: str) -> tuple[WordResult, ...]:
        """The verdicts the game's words got when they arrived, in order."""
        with self.store.session() as session:
            rows = session.scalars(
                select(SoloWordRow).where(SoloWordRow.game_id == game_id).order_by(SoloWordRow.seq)
            ).all()
            return tuple(_stored_result(word) for word in rows)

    def _is_owner(self, row: SoloGameRow, key: str | None) -> bool:
        if row.owner_hash is None:  # a game from before keys: anyone may play it
            return True
        return holds_key(row.owner_hash, key)

    def _check_owner(self, row: SoloGameRow, key: str | None) -> None:
        if not self._is_owner(row, key):
            raise NotOwnerError(
                f"game {row.id!r} is another player's (its key is missing or wrong)"
            )

    def _settle(self, row: SoloGameRow, now: float) -> SoloGameRow:
        """End the game if its deadline has passed, and score it if it has ended unscored and
        no one else is scoring it; the row as it then stands."""
        if row.ended_at is None and now >= row.deadline:
            row = self._end(row.id, now)
        if row.ended_at is not None and row.result is None and self._claim(row.id, now):
            try:
                row = self._score(row)
            finally:
                self._release(row.id)
        return row

    def _end(self, game_id: str, now: float) -> SoloGameRow:
        """Mark the game ended (in a locked transaction, so a word stored meanwhile is either
        in before the end or refused); scoring it is :meth:`_settle`'s."""
        with self.store.write_session() as session:
            row = _lock(session, game_id)
            if row is None:
                raise NotFoundError(f"no game {game_id!r}")
            if row.ended_at is None:
                row.ended_at = min(now, row.deadline)
        self._forget_engine(game_id)
        return row

    def _claim(self, game_id: str, now: float) -> bool:
        """Whether this caller may score the game: the one who stores the claim (a setting
        ``scoring/ID`` written under the game's row lock, so one caller in any process wins)
        while no result is stored and no fresh claim exists. A claim older than
        :data:`SCORING_CLAIM_SECONDS` was abandoned (its process died) and is taken over."""
        with self.store.write_session() as session:
            row = _lock(session, game_id)
            if row is None or row.result is not None:
                return False
            claim = session.get(Setting, _claim_key(game_id))
            if claim is None:
                session.add(Setting(key=_claim_key(game_id), value=repr(now)))
                return True
            try:
                fresh = now - float(claim.value) < SCORING_CLAIM_SECONDS
            except ValueError:
                fresh = False
            if fresh:
                return False
            claim.value = repr(now)
            return True

    def _release(self, game_id: str) -> None:
        """Drop the claim to score the game (scored, or the job failed: the next try may)."""
        with self.store.write_session() as session:
            session.execute(delete(Setting).where(Setting.key == _claim_key(game_id)))

    def _score(self, row: SoloGameRow) -> SoloGameRow:
        """Score an ended game, through the runner, and store its results (a read after that
        scores nothing); only under a claim (:meth:`_claim`)."""
        assert row.ended_at is not None
        with self.store.session() as session:
            entries = [
                (entry, at)
                for entry, at in session.execute(
                    select(SoloWordRow.entry, SoloWordRow.at)
                    .where(SoloWordRow.game_id == row.id)
                    .order_by(SoloWordRow.seq)
                )
            ]
        results = self.runner(
            score_solo_game,
            self.shelf.spec,
            row.dictionary,
            row.rules,
            row.options,
            row.board,
            row.player,
            row.started_at,
            row.deadline,
            entries,
            row.ended_at,
            self._opponent_lists(row.id),
            [_hint_json(used, with_word=True) for used in self._hints(row.id)],
            bool(row.practice),
            bool(row.hints_allowed),
        )
        with self.store.write_session() as session:
            locked = _lock(session, row.id)
            if locked is None:
                raise NotFoundError(f"no game {row.id!r}")
            if locked.result is None:
                locked.result = results
                locked.score, locked.max_score = results["score"], results["max_score"]
                history.guarded(session, lambda: record_solo_play(session, locked), row.id)
                stored = True
            else:
                stored = False
        if stored:
            self._tell_scored(row.id)
        return self._load(row.id)

    def _tell_scored(self, game_id: str) -> None:
        """Tell :attr:`on_scored`'s listeners that ``game_id``'s results are stored."""
        for listener in self.on_scored:
            try:
                listener(game_id)
            except Exception:  # a listener's failure must not undo or hide the stored result
                log.exception("a listener of game %s's scoring failed", game_id)


def record_solo_play(session: Session, row: SoloGameRow) -> bool:
    """Write the play of a scored game into its member's history (in ``session``, the
    transaction that stores its results or makes it a member's): a ``daily`` play for the
    daily board, ``solo`` otherwise, with the score shown (after crossing off against its
    computer opponents, net of hints). Nothing for a guest's game, a practice game or one not
    scored yet; once only (:func:`~bigboggle.services.history.record_play`)."""
    if row.account_id is None or row.result is None or row.practice:
        return False  # (a practice game is nobody's history: its hints were free)
    return history.record_facts(
        session,
        account_id=row.account_id,
        kind="daily" if row.daily_date is not None else "solo",
        rules=row.rules,
        family=history.family_of_board(row.board),
        ref=row.id,
        played_at=row.ended_at if row.ended_at is not None else row.deadline,
        daily_date=row.daily_date,
        facts=_public_facts(row),
    )


def _public_facts(row: SoloGameRow) -> history.PlayFacts:
    """What a member's history keeps of a scored game: a private game's (a challenge round's)
    without any word of it (its best and longest, and the missed words its summary counts),
    as a profile shows them to anyone: no word of a round may leak before the challenge
    closes, and the history is written once, so they stay out for good."""
    facts = history.facts_of_solo(row.result or {})
    if row.private_until is None:
        return facts
    return replace(facts, longest_word=None, best_word=None, best_word_points=None, missed=())


def _game_of(row: SoloGameRow) -> SoloGame:
    """The stored game as plain values (what leaves the service instead of its row)."""
    return SoloGame(
        id=row.id,
        rules=row.rules,
        options=dict(row.options),
        dictionary=row.dictionary,
        board=row.board,
        seed=row.seed,
        player=row.player,
        daily_date=row.daily_date,
        started_at=row.started_at,
        deadline=row.deadline,
        ended_at=row.ended_at,
        score=row.score,
        max_score=row.max_score,
        has_owner=row.owner_hash is not None,
        practice=bool(row.practice),
        hints_allowed=bool(row.hints_allowed),
        private_until=row.private_until,
    )


def _check_opponents_board(board: str) -> None:
    """Computer opponents play boards of the presets' sizes (:data:`MAX_OPPONENT_CELLS`)."""
    parsed = Board.parse(board)
    if parsed.rows * parsed.cols > MAX_OPPONENT_CELLS:
        raise RulesError(
            f"opponents: computer opponents play boards of up to {MAX_OPPONENT_CELLS} cells "
            f"(6x6), not {parsed.rows}x{parsed.cols}: play this board alone"
        )


def _checked_private_until(until: float | None) -> float | None:
    """``until`` for a private game: a finite time (what a service asks for, never input)."""
    if until is not None and not (isinstance(until, int | float) and math.isfinite(until)):
        raise ValueError(f"private_until must be a finite time, not {until!r:.40}")
    return None if until is None else float(until)


def _check_opponents(opponents: Sequence[OpponentChoice | str] | None) -> list[OpponentChoice]:
    """The opponents a start asks for, checked before any work: at most
    ``MAX_SOLO_OPPONENTS``, each a known strength (:class:`RulesError` naming the one at fault
    and the choices) with a seed in range if given."""
    if opponents is None:
        return []
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        raise RulesError(f"opponents: expected a list, not {opponents!r:.60}")
    if len(opponents) > MAX_SOLO_OPPONENTS:
        raise RulesError(
            f"opponents: at most {MAX_SOLO_OPPONENTS} in a solo game, not {len(opponents)}"
        )
    choices: list[OpponentChoice] = []
    for index, choice in enumerate(opponents):
        wanted = choice if isinstance(choice, OpponentChoice) else OpponentChoice(choice)
        try:
            Opponent(check_strength(wanted.strength), 0 if wanted.seed is None else wanted.seed)
        except RulesError as error:
            raise RulesError(f"opponents[{index}]: {error}") from None
        choices.append(wanted)
    return choices


def _seats_of(rows: Sequence[SoloOpponentRow]) -> tuple[OpponentSeat, ...]:
    """A game's opponents as anyone may see them while it runs: names, strengths, times."""
    return tuple(
        OpponentSeat(row.name, row.strength, tuple(float(at) for at, _entry in row.entries))
        for row in sorted(rows, key=lambda seat: seat.seat)
    )


def _hint_json(row: SoloHintRow, *, with_word: bool) -> dict[str, Any]:
    """A stored hint as :meth:`bigboggle.hints.Hint.to_json` shows it, with when it was used."""
    revealed = dict(row.revealed)
    text = str(revealed.pop("text", ""))
    shown = Hint(row.kind, revealed, row.word, row.cost, text).to_json(with_word=with_word)
    shown["at"] = row.at
    return shown


def _check_member_daily_free(
    session: Session, account_id: int | None, rules: Rules, date: str, *, lock: bool = False
) -> None:
    """:class:`GameStateError` if member ``account_id`` already has a game of the daily board of
    ``rules`` on ``date`` (their own start, or a guest game they claimed: the name it was played
    under does not matter). ``lock`` first locks the member's account row (PostgreSQL), so a
    claim or another start of the same member waits for this transaction (on SQLite the write
    session holds the database's write lock already)."""
    if account_id is None:
        return
    if lock:
        session.scalar(select(AccountRow.id).where(AccountRow.id == account_id).with_for_update())
    held = session.scalar(
        select(SoloGameRow.player)
        .where(
            SoloGameRow.account_id == account_id,
            SoloGameRow.daily_date == date,
            SoloGameRow.rules == rules.name,
        )
        .limit(1)
    )
    if held is not None:
        raise GameStateError(
            f"you have already played the {rules.title} daily board of {date} "
            f"(as {held!r}): each member plays it once"
        )


def _played_already(player: str, rules: Rules, date: str | None) -> GameStateError:
    return GameStateError(
        f"{player!r} (or a name that looks the same) has already played the "
        f"{rules.title} daily board of {date}"
    )


def _claim_key(game_id: str) -> str:
    return f"scoring/{game_id}"


class _StoredWords:
    """The words already on one game's list, as the judge asks about them: one word at a time,
    each an indexed lookup, instead of the whole list read for every submit.

    The judge asks only about a normalised word of letters; a stored entry that was not a word
    (digits, other scripts) can never equal one, so asking among the stored verdicts' words is
    the same as asking among every stored entry normalised (what :meth:`Round.check` does)."""

    def __init__(self, session: Session, game_id: str) -> None:
        self._session = session
        self._game_id = game_id

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        found = self._session.scalar(
            select(SoloWordRow.id)
            .where(SoloWordRow.game_id == self._game_id, SoloWordRow.word == word)
            .limit(1)
        )
        return found is not None


#: Games whose results someone other than their player reads, so a server scores them at
#: their deadline: daily games (the leaderboard) and games with a word (or counted before
#: counts were kept). A wordless practice game is scored by its player's next read instead.
_SCORED_UNREAD = or_(
    SoloGameRow.daily_date.is_not(None),
    SoloGameRow.word_count.is_(None),
    SoloGameRow.word_count > 0,
)


def needs_timer(daily: bool, words: int | None) -> bool:
    """Whether a server should end and score a game at its deadline, without anyone's read:
    a daily game (its leaderboard), or a game with words (as :data:`_SCORED_UNREAD`)."""
    return daily or words is None or words > 0


def _lock(session: Session, game_id: str) -> SoloGameRow | None:
    """The game's row, locked for the rest of the transaction."""
    return session.scalar(select(SoloGameRow).where(SoloGameRow.id == game_id).with_for_update())


def _word_row(game_id: str, seq: int, entry: str, at: float, result: WordResult) -> SoloWordRow:
    return SoloWordRow(
        game_id=game_id,
        seq=seq,
        entry=entry,
        at=at,
        word=result.word,
        verdict=result.verdict.value,
        score=result.score,
        bonus=result.bonus,
        path=[list(step) for step in result.path] if result.path is not None else None,
    )


def _stored_result(row: SoloWordRow) -> WordResult:
    path = tuple((int(r), int(c)) for r, c in row.path) if row.path is not None else None
    return WordResult(
        row.entry,
        row.word or row.entry,
        Verdict(row.verdict or Verdict.NOT_A_WORD),  # (every row has one once counted)
        row.score or 0,
        row.bonus or 0,
        path,
    )


def _count_old_words(session: Session, row: SoloGameRow, game: Round) -> None:
    """Give a game stored before verdicts were kept its words' verdicts, count and score, once
    (each entry submitted again, in order, to the game's round engine)."""
    count = points = 0
    for word in session.scalars(
        select(SoloWordRow).where(SoloWordRow.game_id == row.id).order_by(SoloWordRow.seq)
    ):
        result = game.submit(SEAT, word.entry, word.at)
        word.word, word.verdict = result.word, result.verdict.value
        word.score, word.bonus = result.score, result.bonus
        word.path = [list(step) for step in result.path] if result.path is not None else None
        count, points = count + 1, points + result.score
    row.word_count, row.score_so_far = count, points
