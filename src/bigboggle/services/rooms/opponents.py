"""Computer opponents in rooms: their seats, their lists made at a round's start, and their
words submitted on the server's clock through the same judge as people's.

An opponent is a seat (:class:`~bigboggle.services.store.RoomPlayerRow` with its strength and
seed) that no connection speaks for: it is never online, never host, never rated (it has no
account), and it counts toward ``max_players``. The host adds one between rounds or during one
(then it plays from the next round, as a person who joins during a round does) and removes
one at any time (its words already played stay in the round; no more come).

At a round's start each opponent's timed list is made through the runner
(:func:`bigboggle.services.jobs.opponent_entries`, from the seat's seed and the round's
number), once, and stored with the round (:attr:`RoomRoundRow.opponents`), so every process
and a restart submit the same words. A word is submitted at its own time (``starts_at`` plus
its seconds) by :meth:`RoomOpponents.play_due`, which the web's timers call at the next word's
time (:meth:`RoomOpponents.next_due`); before a round is scored every word due and not yet
submitted is submitted, each at its own time (:meth:`RoomOpponents.catch_up`), so a result
never depends on timers firing. How many of each list are submitted is stored with the list,
under the round's lock, so no word is submitted twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...dice import MAX_SEED, new_seed
from ...dictionary import normalise
from ...errors import BoggleError, GameStateError, NotFoundError, RoomFullError, RoundInputError
from ...errors import quoted as _quoted
from ...judge import Judge
from ...limits import MAX_LIST_LENGTH, MAX_ROOM_OPPONENTS, OPPONENT_WORDS_PER_TRANSACTION
from ...opponents import Opponent, opponent_name
from ...round import check_entry
from ...verdicts import WordResult
from .. import jobs
from ..compute import Runner
from ..keys import key_hash
from ..shelf import DictionaryShelf
from ..store import RoomPlayerRow, RoomRoundRow, Store
from .codes import new_token
from .queries import bump, current_round, lock_room, lock_round, round_players
from .seats import Seat
from .settings import RoomSettings

log = logging.getLogger(__name__)

#: Seconds two server processes' clocks may differ by: an opponent's seat may be in a round
#: whose start is up to this long before the seat was added by another process's clock.
CLOCK_SLACK = 60.0

#: An opponent's list as stored: ``[[seconds into the round, entry], …]``, by time.
Plan = list[list[Any]]


class RoundWords(Protocol):
    """The rooms' judge path for many words of one round in one transaction (see
    :class:`bigboggle.services.rooms.service.RoundWords`)."""

    def removed(self, player: str) -> bool:
        """Whether the host removed ``player``'s seat."""

    def store(self, player: str, entry: str, now: float) -> WordResult:
        """Judge ``player``'s ``entry`` at ``now`` and store it with its verdict."""


#: What opens the rooms' judge path in a session holding the round's lock:
#: ``(session, round, judge) -> RoundWords``.
OpenWords = Callable[[Session, RoomRoundRow, Judge], RoundWords]


@dataclass(frozen=True)
class Played:
    """What :meth:`RoomOpponents.play_due` did: how many words it submitted, and when the next
    one is due (the server's clock; ``None`` if no word is left to play in this round)."""

    submitted: int
    next_due: float | None


def strengths() -> list[str]:
    """The strengths an opponent may have, weakest first."""
    return list(Opponent.STRENGTHS)


def strength_choices() -> list[tuple[str, str]]:
    """Each strength and how a page offers it, weakest first: ``("club", "Club: about 25% of
    the board's points")``."""
    return [
        (name, f"{Opponent.label(name)}: about {share:.0%} of the board's points")
        for name, share in Opponent.STRENGTHS.items()
    ]


def check_strength(strength: object) -> str:
    """``strength`` if it names one of :func:`strengths`; :class:`RoundInputError` naming the
    choices otherwise."""
    if not isinstance(strength, str) or strength not in Opponent.STRENGTHS:
        raise RoundInputError(
            f"strength: unknown strength {_quoted(strength, 30)}; choose one of "
            f"{', '.join(strengths())}"
        )
    return strength


def round_seed(seat_seed: int, number: int) -> int:
    """The seed of an opponent's list in round ``number`` of its room: from its seat's seed, so
    the same seat plays each round afresh and the same round again alike."""
    return (seat_seed + number * 0x9E3779B97F4A7C15) % MAX_SEED


def clean_plan(entries: Iterable[tuple[float, str]], seconds: float) -> Plan:
    """An opponent's timed list as it is stored: times inside the round, entries a word box
    takes (:func:`~bigboggle.round.check_entry`), each word once, at most
    :data:`~bigboggle.limits.MAX_LIST_LENGTH`, by time. So every stored entry is judged and
    stored when its time comes (none refused for being repeated or over the list's limit)."""
    seen: set[str] = set()
    plan: Plan = []
    for at, entry in sorted(entries, key=lambda item: item[0]):
        if not 0 < at < seconds:
            continue
        try:
            word = check_entry(entry)
        except BoggleError:
            continue
        if normalise(word) in seen:
            continue
        seen.add(normalise(word))
        plan.append([float(at), word])
        if len(plan) >= MAX_LIST_LENGTH:
            break
    return plan


class RoomOpponents:
    """The computer opponents of the rooms on ``store``: seats added and removed by the host,
    lists made through ``runner`` (dictionaries named by ``shelf``), words stored through
    ``open_words`` (the rooms' judge path) with judges from ``judge_of``, on ``clock``."""

    def __init__(
        self,
        store: Store,
        shelf: DictionaryShelf,
        clock: Callable[[], float],
        runner: Callable[[], Runner],
        judge_of: Callable[[RoomRoundRow], Judge],
        open_words: OpenWords,
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.clock = clock
        self._runner = runner
        self._judge_of = judge_of
        self._open_words = open_words

    # -- seats ---------------------------------------------------------------------------------

    def add(self, seat: Seat, strength: object, require: Callable[[Any, Seat], None]) -> str:
        """Seat a new opponent of ``strength`` in ``seat``'s room (``require`` checks that the
        seat hosts the room and that it is open and playing): its name, free in the room
        (``"Club bot"``, ``"Club bot 2"`` …). During a round it plays from the next one.
        :class:`RoundInputError` names the strengths for an unknown one; :class:`RoomFullError`
        past ``max_players``, or past :data:`~bigboggle.limits.MAX_ROOM_OPPONENTS` opponents
        seated."""
        chosen = check_strength(strength)
        with self.store.write_session() as session:
            room = lock_room(session, seat.room)
            require(room, seat)
            seats = session.execute(
                select(RoomPlayerRow.name, RoomPlayerRow.kicked_at, RoomPlayerRow.opponent).where(
                    RoomPlayerRow.room == seat.room
                )
            ).all()
            settings = RoomSettings.from_json(room.settings)
            seated = [opponent for _, kicked, opponent in seats if kicked is None]
            if len(seated) >= settings.max_players:
                raise RoomFullError(
                    f"room {seat.room} is full ({settings.max_players} players); remove a "
                    "player or an opponent first"
                )
            if sum(1 for opponent in seated if opponent is not None) >= MAX_ROOM_OPPONENTS:
                raise RoomFullError(
                    f"room {seat.room} already has {MAX_ROOM_OPPONENTS} computer opponents, the "
                    "most a room may seat; remove one first"
                )
            name = opponent_name(chosen, [name for name, _, _ in seats])
            session.add(
                RoomPlayerRow(
                    room=seat.room,
                    name=name,
                    token_hash=key_hash(new_token()),  # nobody holds it: no one can sit here
                    joined_at=self.clock(),
                    sockets=0,
                    hidden=0,
                    opponent=chosen,
                    opponent_seed=new_seed(),
                )
            )
            if settings.teams is not None:  # team play: nobody may be on no team
                room.settings = settings.with_latecomer(name).to_json()
            room.active_at = self.clock()
            bump(session, seat.room)
        return name

    def remove(self, seat: Seat, name: object, require: Callable[[Any, Seat], None]) -> None:
        """Remove the opponent seated as ``name`` (the host only): its words already played in
        a running round stay (crossing off is everybody's), no more come (not even those
        due before now that no timer played yet), and it leaves the handicaps and teams.
        An opponent that was in a round keeps its seat, marked removed, whose name the
        rounds' results use (taken in the room, as a removed player's is); one that never
        was leaves nothing: its seat is deleted, so adding and removing opponents leaves no
        row behind. :class:`NotFoundError` for no such seat; :class:`RoundInputError` for a
        person's."""
        if not isinstance(name, str):
            raise RoundInputError(f"seat: expected an opponent's name, not {_quoted(name, 30)}")
        with self.store.write_session() as session:
            room = lock_room(session, seat.room)
            require(room, seat)
            row = session.scalar(
                select(RoomPlayerRow).where(
                    RoomPlayerRow.room == seat.room,
                    RoomPlayerRow.name == name,
                    RoomPlayerRow.kicked_at.is_(None),
                )
            )
            if row is None:
                raise NotFoundError(f"seat: no seat {_quoted(name, 40)} in room {seat.room}")
            if row.opponent is None:
                raise RoundInputError(
                    f"seat: {_quoted(name, 40)} is a person's seat, not an opponent's; "
                    "the host removes a person with kick"
                )
            if _ever_played(session, row):
                row.kicked_at = self.clock()
            else:
                session.delete(row)
            room.settings = RoomSettings.from_json(room.settings).without(name).to_json()
            room.active_at = self.clock()
            bump(session, seat.room)

    # -- a round's lists -------------------------------------------------------------------

    def seated(self, session: Session, code: str) -> dict[str, tuple[str, int]]:
        """The room's seated opponents: name -> (strength, seed)."""
        return {
            name: (strength, seed or 0)
            for name, strength, seed in session.execute(
                select(
                    RoomPlayerRow.name, RoomPlayerRow.opponent, RoomPlayerRow.opponent_seed
                ).where(
                    RoomPlayerRow.room == code,
                    RoomPlayerRow.kicked_at.is_(None),
                    RoomPlayerRow.opponent.is_not(None),
                )
            )
            if strength is not None
        }

    def plans(
        self,
        opponents: dict[str, tuple[str, int]],
        board: str,
        settings: RoomSettings,
        number: int,
    ) -> dict[str, Plan]:
        """Each opponent's timed list for round ``number`` on ``board``, made through the
        runner (solving is CPU work): name -> plan (see :func:`clean_plan`)."""
        rules = settings.ruleset()
        seconds = float(rules.timer)
        return {
            name: clean_plan(
                self._runner()(
                    jobs.opponent_entries,
                    self.shelf.spec,
                    settings.dictionary_name,
                    settings.rules,
                    settings.rules_options(),
                    board,
                    strength,
                    round_seed(seed, number),
                    seconds,
                ),
                seconds,
            )
            for name, (strength, seed) in opponents.items()
        }

    # -- their words on the clock ----------------------------------------------------------

    def play_due(self, code: str) -> Played:
        """Submit every opponent's word due now (at its own time) in room ``code``'s running
        round, through the rooms' judge path: how many, and when the next is due."""
        with self.store.session() as session:
            current = current_round(session, code)
        if current is None or current.ended_at is not None or not current.opponents:
            return Played(0, None)
        return self._play(current, self.clock(), ended=False)

    def catch_up(self, current: RoomRoundRow) -> int:
        """Before ``current`` (claimed: no person's word gets in any more) is scored, submit
        every opponent's word due before its deadline and not yet submitted, each at its own
        time (a timer that never fired: a restart, another process). How many."""
        if not current.opponents:
            return 0
        return self._play(current, current.deadline, ended=True).submitted

    def next_due(self, code: str) -> float | None:
        """When the next opponent's word of room ``code``'s running round is due (``None``:
        none left, or no round)."""
        with self.store.session() as session:
            current = current_round(session, code)
            if current is None or current.ended_at is not None or not current.opponents:
                return None
            return _next_due(current, self._removed(session, current))

    def _play(self, current: RoomRoundRow, until: float, *, ended: bool) -> Played:
        """Submit the words due by ``until`` of ``current``'s opponents still seated, in
        order of time, in transactions of at most
        :data:`~bigboggle.limits.OPPONENT_WORDS_PER_TRANSACTION` words (other writes get in
        between). ``ended``: the round is claimed for scoring (the catch-up); each
        transaction stops if the round is no longer as expected."""
        judge = self._judge_of(current)  # made outside the lock (it may solve the board)
        submitted = 0
        while True:
            batch = self._play_batch(current.id, until, judge, ended=ended)
            submitted += batch.submitted
            if not batch.more:
                return Played(submitted, batch.next_due)

    def _play_batch(self, round_id: int, until: float, judge: Judge, *, ended: bool) -> _Batch:
        """One transaction of :meth:`_play`: the next words due by ``until``, at most
        :data:`~bigboggle.limits.OPPONENT_WORDS_PER_TRANSACTION`, and how many are stored
        with the list. A removed opponent's words are dropped, never an error: its seat is
        read in the same transaction (and through the same path) as the words are stored."""
        with self.store.write_session() as session:
            locked = lock_round(session, round_id)
            if locked is None or locked.result is not None or not locked.opponents:
                return _Batch(0, None, more=False)
            if (locked.ended_at is not None) != ended:
                return _Batch(0, None, more=False)  # scored meanwhile, or (catching up) let go
            words = self._open_words(session, locked, judge)
            lists: dict[str, Plan] = locked.opponents.get("lists", {})
            players = set(round_players(locked))
            removed = {name for name in lists if name not in players or words.removed(name)}
            played = {name: int(n) for name, n in locked.opponents.get("played", {}).items()}
            due = _due(locked, lists, played, removed, until)
            handled = due[:OPPONENT_WORDS_PER_TRANSACTION]
            submitted = sum(self._submit(words, name, entry, at) for at, name, entry in handled)
            for _, name, _ in handled:
                played[name] = played.get(name, 0) + 1
            if handled:
                locked.opponents = {**locked.opponents, "played": played}
            next_due = _next_due(locked, removed)
        return _Batch(submitted, next_due, more=len(due) > len(handled))

    def _submit(self, words: RoundWords, name: str, entry: str, at: float) -> bool:
        """Store opponent ``name``'s ``entry`` at ``at``; whether it was. A word the judge
        path refuses (it should not: the list was cleaned at the start and each word is
        taken inside the round) is logged and passed over, never blocking the others'
        words or the round's scoring."""
        try:
            words.store(name, entry, at)
        except (GameStateError, RoundInputError) as exc:
            log.warning("an opponent's word passed over: %s's %r: %s", name, entry, exc)
            return False
        return True

    @staticmethod
    def _removed(session: Session, played: RoomRoundRow) -> set[str]:
        """The room's opponents whose seat was removed (their words are never played any
        more)."""
        return set(
            session.scalars(
                select(RoomPlayerRow.name).where(
                    RoomPlayerRow.room == played.room,
                    RoomPlayerRow.kicked_at.is_not(None),
                    RoomPlayerRow.opponent.is_not(None),
                )
            )
        )


@dataclass(frozen=True)
class _Batch:
    """One transaction of :meth:`RoomOpponents._play`: words submitted, when the next is due,
    and whether more were due by then than one transaction takes."""

    submitted: int
    next_due: float | None
    more: bool


def _due(
    played: RoomRoundRow,
    lists: dict[str, Plan],
    done: dict[str, int],
    removed: set[str],
    until: float,
) -> list[tuple[float, str, str]]:
    """Every word of ``played``'s opponents (not ``removed``) due by ``until`` and before the
    deadline, not yet submitted (each list's first ``done`` are): ``(at, name, entry)`` in
    order of time (each list's words stay in its order)."""
    due: list[tuple[float, str, str]] = []
    for name, plan in lists.items():
        if name in removed:
            continue
        for seconds, entry in plan[done.get(name, 0) :]:
            at = played.starts_at + float(seconds)
            if at > until or at >= played.deadline:
                break
            due.append((at, name, str(entry)))
    due.sort(key=lambda item: item[0])  # stable: a list's words keep their order
    return due


def _ever_played(session: Session, seat: RoomPlayerRow) -> bool:
    """Whether the opponent in ``seat`` was among the players of one of its room's rounds
    (only rounds that started after it was seated may hold it, give or take the clocks'
    :data:`CLOCK_SLACK`)."""
    rounds = session.scalars(
        select(RoomRoundRow.settings).where(
            RoomRoundRow.room == seat.room,
            RoomRoundRow.starts_at >= seat.joined_at - CLOCK_SLACK,
        )
    )
    return any(seat.name in (settings or {}).get("players", ()) for settings in rounds)


def _next_due(played: RoomRoundRow, removed: Container[str]) -> float | None:
    """When the next word of ``played``'s opponents (not ``removed``) is due, before its
    deadline; ``None`` if none is left."""
    plan = played.opponents or {}
    lists: dict[str, Plan] = plan.get("lists", {})
    done: dict[str, int] = plan.get("played", {})
    due = [
        played.starts_at + float(entries[int(done.get(name, 0))][0])
        for name, entries in lists.items()
        if name not in removed and int(done.get(name, 0)) < len(entries)
    ]
    upcoming = [at for at in due if at < played.deadline]
    return min(upcoming) if upcoming else None
