"""One round of Boggle as a state machine, driven by a clock that the caller holds.

``ready`` --start(now)--> ``running`` --end(now) at or after the deadline--> ``ended``.
While running, :meth:`Round.submit` gives each word a private verdict at once (everything but
crossing off, which needs everyone's lists); at the end the round is scored by
:func:`~bigboggle.scoring.score_round`. The game never sleeps or reads a clock itself, so a
terminal, a web server and a test all drive it the same way: pass ``now`` in seconds on any
clock, as long as it is the same clock throughout.

A service that keeps a round in a database restores it for each word with
:meth:`Round.resume` (its stored clock and setup, nothing decided again) and asks
:meth:`Round.judge_next`, so a stored round follows the same rules as one held in memory.
Who may play and how (teams, handicaps) is checked by :mod:`bigboggle.round_setup`.
"""

from __future__ import annotations

import math
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .board import Board
from .dice import Shake, shake
from .dictionary import Dictionary, normalise
from .errors import GameStateError, RoundInputError, quoted
from .judge import Judge
from .limits import MAX_ENTRY_LENGTH, MAX_LIST_LENGTH
from .round_input import clean_entry
from .round_setup import RoundSetup, check_name, check_setup
from .rules import Rules
from .scoring import RoundResult, judge_round
from .verdicts import Verdict, WordResult


class Phase(StrEnum):
    """Where a round stands."""

    READY = "ready"
    RUNNING = "running"
    ENDED = "ended"


@dataclass(frozen=True)
class Submission:
    """A word a player submitted, when, and its private verdict at that moment."""

    player: str
    at: float
    result: WordResult


class Round:
    """A round: a board, the rules, the dictionary, the players and their words.

    ``teams`` and ``min_length`` are as for :func:`~bigboggle.scoring.score_round`. ``judge``,
    if given, is a :class:`~bigboggle.judge.Judge` already made for this board, rules and
    dictionary (making one solves the board); :class:`RoundInputError` if it was not.
    """

    def __init__(
        self,
        board: Board | str,
        rules: Rules,
        dictionary: Dictionary,
        players: Sequence[str] = (),
        *,
        teams: Mapping[str, Sequence[str]] | None = None,
        min_length: Mapping[str, int] | None = None,
        dealt: Shake | None = None,
        judge: Judge | None = None,
    ) -> None:
        self.board = board if isinstance(board, Board) else Board.parse(board)
        if judge is not None and (
            judge.board != self.board or judge.rules != rules or judge.words is not dictionary
        ):
            raise RoundInputError("judge: it was made for another board, rules or dictionary")
        self.rules = rules
        self.dictionary = dictionary
        self.teams = teams
        if min_length is not None and not isinstance(min_length, Mapping):
            raise RoundInputError(f"min_length: expected player -> minimum, not {min_length!r}")
        self.min_length = dict(min_length or {})
        self.dealt = dealt
        self._judge = judge if judge is not None else Judge(self.board, rules, dictionary)
        self._setup: RoundSetup | None = None
        self._lists: dict[str, list[str]] = {}
        self._submissions: list[Submission] = []
        self._phase = Phase.READY
        self._started: float | None = None
        self._deadline: float | None = None
        #: Whether a ``now`` before the start is the countdown to a start set in advance (a
        #: restored round) rather than a clock that went backwards (a round started at ``now``).
        self._counting_down = False
        self._result: RoundResult | None = None
        for name in players:
            self.add_player(name)

    @classmethod
    def shaken(
        cls,
        rules: Rules,
        dictionary: Dictionary,
        players: Sequence[str] = (),
        *,
        seed: int | None = None,
        teams: Mapping[str, Sequence[str]] | None = None,
        min_length: Mapping[str, int] | None = None,
    ) -> Round:
        """A game on a board shaken from the rules' dice (with the challenge cube if asked)."""
        dealt = shake(rules.dice, seed, challenge=rules.challenge)
        return cls(
            dealt.board, rules, dictionary, players, teams=teams, min_length=min_length, dealt=dealt
        )

    @classmethod
    def resume(
        cls,
        board: Board | str,
        rules: Rules,
        dictionary: Dictionary,
        players: Sequence[str],
        *,
        started_at: float,
        deadline: float,
        teams: Mapping[str, Sequence[str]] | None = None,
        min_length: Mapping[str, int] | None = None,
        judge: Judge | None = None,
    ) -> Round:
        """A running round restored from stored state (a database row), with none of its
        words: for a caller that keeps the lists itself and asks :meth:`judge_next` (or
        :meth:`check`) one word at a time.

        Words are taken from ``started_at`` until ``deadline`` (on the caller's clock; a
        ``started_at`` in the future is a round whose board is shown but not yet open). The
        setup (players, ``teams``, ``min_length``) is taken as stored, not checked again: it
        was checked when the round started (:meth:`start`, or the service that started it by
        :func:`~bigboggle.round_setup.check_setup`), so restoring a round never re-decides a
        rule, and costs no more with twelve players than with one. :meth:`end` checks it, as
        for any round. ``judge``, if given, is one already made for this board, rules and
        dictionary (making one solves the board: a caller that restores a round for every
        word keeps its judge); :class:`RoundInputError` if it was made for another.
        """
        _check_time(started_at)
        _check_time(deadline)
        if deadline < started_at:
            raise GameStateError(f"deadline={deadline!r} is before started_at={started_at!r}")
        if isinstance(players, str) or not all(isinstance(name, str) for name in players):
            raise RoundInputError(f"players: expected a list of names, not {quoted(players)}")
        game = cls(board, rules, dictionary, teams=teams, min_length=min_length, judge=judge)
        game._lists = {name: [] for name in players}
        game._phase = Phase.RUNNING
        game._started = started_at
        game._deadline = deadline
        game._counting_down = True
        return game

    # -- players -----------------------------------------------------------------------------

    def add_player(self, name: str) -> None:
        """Seat a player before the round ends; a name already seated is an error."""
        if self._phase is Phase.ENDED:
            raise GameStateError("the round has ended; players can no longer join")
        check_name(name, "players")
        if name in self._lists:
            raise RoundInputError(f"player {name!r} is already in the game")
        if self._phase is Phase.RUNNING:
            # Joining mid-round: the setup must still hold with the newcomer in it.
            check_setup([*self._lists, name], self.rules, self.teams, self.min_length)
        self._lists[name] = []

    @property
    def players(self) -> tuple[str, ...]:
        """The seated players, in the order they joined."""
        return tuple(self._lists)

    # -- the clock ---------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """``ready``, ``running`` or ``ended``."""
        return self._phase

    @property
    def deadline(self) -> float | None:
        """When the timer runs out (on the caller's clock), once started."""
        return self._deadline

    @property
    def started_at(self) -> float | None:
        """When the round started (on the caller's clock), once started."""
        return self._started

    def start(self, now: float, duration: float | None = None) -> float:
        """Start the timer at ``now`` for ``duration`` seconds (default: the rules' timer).

        Returns the deadline.
        """
        if self._phase is not Phase.READY:
            raise GameStateError(f"the round is {self._phase.value}; it can start only once")
        _check_time(now)
        seconds = self.rules.timer if duration is None else duration
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not math.isfinite(seconds)
            or seconds <= 0
        ):
            raise GameStateError(f"duration={duration!r} must be a positive number of seconds")
        if not self._lists:
            raise GameStateError("the round has no players")
        self._setup = check_setup(self._lists, self.rules, self.teams, self.min_length)
        self._started = now
        self._deadline = now + seconds
        self._phase = Phase.RUNNING
        return self._deadline

    def time_left(self, now: float) -> float:
        """Seconds until the deadline (0 when it has passed or the round has not started)."""
        if self._deadline is None or self._phase is Phase.ENDED:
            return 0.0
        return max(0.0, self._deadline - now)

    def is_over(self, now: float) -> bool:
        """Whether the deadline has passed (or the round has been ended)."""
        return self._phase is Phase.ENDED or (self._deadline is not None and now >= self._deadline)

    # -- words -------------------------------------------------------------------------------

    def submit(self, player: str, entry: str, now: float) -> WordResult:
        """Submit a word; returns its private verdict at once.

        ``scored`` here means "good so far": at the end the word may still be crossed off by
        another player's list. A repeated word is answered ``repeated`` and not stored again.
        :class:`GameStateError` before the start and from the deadline on.
        """
        self._check_open(player, entry, now)
        words = self._lists[player]
        result = self.check(player, entry)
        if result.verdict is Verdict.REPEATED:
            return result
        _check_room(player, len(words))
        words.append(entry)
        self._submissions.append(Submission(player, now, result))
        return result

    def judge_next(
        self, player: str, entry: str, now: float, *, earlier: Container[str], count: int
    ) -> WordResult:
        """The verdict :meth:`submit` would give ``entry`` at ``now`` if ``player``'s list already
        held ``count`` entries whose words (normalised) are in ``earlier``; nothing is stored.

        For a caller that keeps the list itself (a database) rather than in this game, so that a
        submit costs the same at the 2,000th word as at the first: ``earlier`` may be a container
        that looks one word up. The same refusals as :meth:`submit`.
        """
        self._check_open(player, entry, now)
        result = self._judge.judge(entry, self._minimum(player), earlier)
        if result.verdict is not Verdict.REPEATED:
            _check_room(player, count)
        return result

    def check(self, player: str, entry: str) -> WordResult:
        """The private verdict ``entry`` would get from ``player`` now (nothing is stored)."""
        earlier = {normalise(word) for word in self._lists.get(player, [])}
        return self._judge.judge(entry, self._minimum(player), earlier)

    def _minimum(self, player: str) -> int:
        return self.min_length.get(player, self.rules.min_length)

    def check_clock(self, now: float) -> None:
        """Refuse a word at ``now`` unless the round takes words then: :class:`GameStateError`
        before the start ("the round has not started yet", what a player sees during a
        restored round's countdown; with both times if the clock went backwards past the
        start of a round started at ``now``) and from the deadline on ("time is up: the
        round's deadline has passed"). :meth:`submit` and :meth:`judge_next` check this
        first; a service that checks what it knows of a player (a seat removed, a latecomer)
        calls it before those checks, so a word out of time is refused as such whoever sends
        it."""
        if self._phase is Phase.READY:
            raise GameStateError("the round has not started yet")
        _check_time(now)
        if self._started is not None and now < self._started:
            if self._counting_down:
                raise GameStateError("the round has not started yet")
            raise GameStateError(
                f"the round has not started yet: now={now!r} is before the round started "
                f"({self._started!r}); the clock went backwards"
            )
        if self.is_over(now):
            raise GameStateError("time is up: the round's deadline has passed")

    def _check_open(self, player: str, entry: object, now: float) -> None:
        """Refuse a word out of time (:meth:`check_clock`), from a stranger, or not text."""
        self.check_clock(now)
        if player not in self._lists:
            raise RoundInputError(f"player {player!r} is not in this game")
        if not isinstance(entry, str):
            raise RoundInputError(f"a word must be text, not {entry!r}")

    def words_of(self, player: str) -> tuple[str, ...]:
        """The entries ``player`` has submitted, in order (repeats not stored)."""
        if player not in self._lists:
            raise RoundInputError(f"player {player!r} is not in this game")
        return tuple(self._lists[player])

    @property
    def submissions(self) -> tuple[Submission, ...]:
        """Every stored submission, in order."""
        return tuple(self._submissions)

    # -- the end -----------------------------------------------------------------------------

    def end(self, now: float, *, early: bool = False) -> RoundResult:
        """End the round and score it; before the deadline only with ``early=True``.

        Ending again returns the same result.
        """
        if self._result is not None:
            return self._result
        if self._phase is Phase.READY:
            raise GameStateError("the round has not started yet")
        _check_time(now)
        if not early and not self.is_over(now):
            raise GameStateError(
                f"the round still has {self.time_left(now):.1f} seconds; end it early explicitly"
            )
        setup = check_setup(self._lists, self.rules, self.teams, self.min_length)
        result = judge_round(self._judge, self._lists, setup, self.teams)
        self._phase = Phase.ENDED
        self._result = result
        return result

    @property
    def result(self) -> RoundResult | None:
        """The scored round once ended, else ``None``."""
        return self._result


def check_entry(entry: object) -> str:
    """``entry`` as a word to judge (stripped of surrounding blanks), bounded before anything
    reads it: :class:`RoundInputError` naming ``word`` if it is not text, blank, or longer
    than :data:`~bigboggle.limits.MAX_ENTRY_LENGTH` (no word on any board is longer), or holds
    a control character; characters that draw nothing are removed
    (:func:`bigboggle.round_input.clean_entry`). For a
    service that takes words from the outside (rooms, solo games), before it looks anything
    up."""
    if not isinstance(entry, str) or not entry.strip():
        raise RoundInputError(f"word: expected a word, not {quoted(entry, 20)}")
    if len(entry) > MAX_ENTRY_LENGTH:
        raise RoundInputError(
            f"word: {quoted(entry, 20)} is {len(entry)} characters; the limit is {MAX_ENTRY_LENGTH}"
        )
    word = clean_entry(entry).strip()  # invisible characters out, controls refused
    if not word:
        raise RoundInputError(f"word: expected a word, not {quoted(entry, 20)}")
    return word


def _check_room(player: str, count: int) -> None:
    if count >= MAX_LIST_LENGTH:
        raise RoundInputError(f"player {player!r} has {MAX_LIST_LENGTH} words; no more fit")


def _check_time(now: float) -> None:
    if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
        raise GameStateError(f"now={now!r} must be a finite number of seconds")
