"""The end of a room's round: claimed, scored, stored, once, whoever gets there first.

A round is scored once its deadline (plus :data:`GRACE`, for words already on their way) has
passed, in three steps so that no lock is held while it is scored: it is claimed (marked ended:
from then on no word gets in; only one caller wins this), scored through the runner from its
stored words (:func:`score_room_round`, a job a worker process can run: the same
:func:`~bigboggle.scoring.score_round` as every round), then its result and the room's totals
are stored in one locked transaction (the first result stored wins). A claim whose scorer died
is taken over after :data:`SCORING_LEASE`. Reading a room scores nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session

from ...errors import BoardError, BudgetExceededError, BusyError, RoundInputError, RulesError
from ...rules import Rules
from ...scoring import score_round
from .. import history, jobs
from ..compute import Runner
from ..shelf import DictionaryShelf
from ..store import RoomPlayerRow, RoomRoundRow, RoomRow, RoomWordRow, Store
from .queries import (
    bump,
    current_round,
    latest_round_ids,
    lock_room,
    lock_round,
    played_settings,
    seat_accounts,
)
from .settings import RoomSettings
from .standings import Standings, tally_of

#: Seconds after the deadline before a round is scored: words already sent still arrive.
GRACE = 0.5
#: Seconds a round may stay "being scored" (ended, no result) before another caller scores it
#: again: the scorer died or its job was refused.
SCORING_LEASE = 30.0
#: The longest reason kept in a round's "could not be scored" marker (characters).
MAX_REASON = 300

log = logging.getLogger(__name__)


def score_room_round(
    board: str,
    lists: dict[str, list[str]],
    rules_name: str,
    options: dict[str, Any],
    dictionary: str,
    spec: jobs.ShelfSpec,
    teams: dict[str, list[str]] | None,
    min_length: dict[str, int] | None,
) -> dict[str, Any]:
    """Score a room's round from plain data (so a worker process can run it): the stored form,
    ``{"round": RoundResult.to_json(), "tally": {"scores", "lengths"}}``."""
    rules = Rules.preset(rules_name, **options)
    result = score_round(
        board, lists, rules, jobs.words(spec, dictionary), teams=teams, min_length=min_length
    )
    return {"round": result.to_json(), "tally": tally_of(result)}


def record_round_plays(
    session: Session, played: RoomRoundRow, common: Callable[[str], bool]
) -> int:
    """Write a ``room`` play into the history of each member seated in ``played`` (a round
    with its result) who played it, in ``session`` (the transaction that stores the result,
    or that makes a seat a member's); ``common`` says which missed words are worth learning.
    Once per member and round (:func:`~bigboggle.services.history.record_play`); returns how
    many were new. A round that could not be scored records nothing."""
    result = played.result
    if result is None or "round" not in result:
        return 0
    players = set(result["round"].get("players", {}))
    seats = session.execute(
        select(RoomPlayerRow.name, RoomPlayerRow.account_id).where(
            RoomPlayerRow.room == played.room, RoomPlayerRow.account_id.is_not(None)
        )
    ).all()
    family = history.family_of_board(played.board)
    rules = str(played.settings.get("rules", "big"))
    recorded = 0
    # Members in the order of their ids: each play locks its member's missed-words row, and
    # two rounds locking two members' rows in opposite orders could wait for each other.
    for name, account_id in sorted(seats, key=lambda seat: (seat[1], seat[0])):
        if name not in players or account_id is None:
            continue
        facts = history.facts_of_room_round(result, name, common)
        if facts is None:
            continue
        recorded += history.record_facts(
            session,
            account_id=account_id,
            kind="room",
            rules=rules,
            family=family,
            ref=f"{played.room}/{played.number}",
            played_at=played.ended_at if played.ended_at is not None else played.deadline,
            daily_date=None,
            facts=facts,
        )
    return recorded


def mark_opponents(stored: dict[str, Any], opponents: dict[str, Any] | None) -> dict[str, Any]:
    """A round's stored result with each computer opponent's entry among its players marked
    ``"opponent": STRENGTH`` (from the round's ``opponents``: who played it as one), so the
    results say which seats were opponents whatever their names."""
    strengths: dict[str, str] = (opponents or {}).get("strengths", {})
    players = stored.get("round", {}).get("players", {})
    for name, strength in strengths.items():
        if name in players:
            players[name] = {**players[name], "opponent": strength}
    return stored


def unscored_marker(error: Exception) -> dict[str, Any]:
    """The result stored for a round today's checks refuse: it counts for nothing and is
    never tried again; its reason is cut to :data:`MAX_REASON` characters."""
    reason = str(error) or type(error).__name__
    if len(reason) > MAX_REASON:
        reason = reason[:MAX_REASON] + "…"
    return {"unscored": f"could not be scored: {reason}"}


@dataclass(frozen=True)
class RoomRoundScored:
    """A room's round whose result has just been stored (the transaction committed): what
    :attr:`RoundEnds.on_round_scored`'s listeners hear, once per round stored.

    Also heard once when the host ends a game between rounds, or settings end it (a target
    already passed): then it is the game's last scored round again, with ``over`` true, so a
    listener that acts at a game's end (the ratings) hears every end. Listeners must therefore
    be idempotent (the ratings are, by contest key; the history by play)."""

    code: str
    #: The round's number in the room.
    number: int
    #: The number of the current game's first round (:attr:`Standings.first_round`): the
    #: game's rounds are ``first_round..number``.
    first_round: int
    #: The preset the round was played by (``RoomSettings.rules``).
    rules: str
    #: Whether the room's game is over after this round (its ending reached, or the host
    #: ended it).
    over: bool
    #: When the result was stored (the server's clock).
    at: float
    #: Every seat the room has had (removed ones too): name -> its member's account id, or
    #: ``None`` for a guest. The round's own players are ``result["round"]["players"]``.
    seats: dict[str, int | None]
    #: The round's stored result: ``{"round": RoundResult.to_json(), "tally": …}``, or a
    #: marker ``{"unscored": reason}`` for a round that could not be scored (counts nothing).
    result: dict[str, Any]
    #: The game's totals after this round (competitor -> points, first to last), the ranking
    #: a finished game is rated by.
    totals: dict[str, int] = field(default_factory=dict)


#: What listens to rounds being stored (see :attr:`RoundEnds.on_round_scored`).
RoundListener = Callable[[RoomRoundScored], None]


@dataclass
class CatchUp:
    """What :meth:`Rooms.score_overdue` did: the rooms whose rounds it scored (or marked as
    unscorable), and how many rounds the pool refused (to try again later)."""

    scored: list[str] = field(default_factory=list)
    refused: int = 0
    #: The rooms whose round must be tried again: refused by the pool, or failed (logged).
    retry: list[str] = field(default_factory=list)


class RoundEnds:
    """Scores rooms' rounds on ``store``: claims, runs :func:`score_room_round` through
    ``runner`` with dictionaries named by ``shelf``, stores results and totals. ``forget`` is
    told the id of each round stored (to drop what was kept in memory for playing it)."""

    def __init__(
        self,
        store: Store,
        shelf: DictionaryShelf,
        clock: Callable[[], float],
        runner: Runner,
        forget: Callable[[int], object],
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.clock = clock
        self.runner = runner
        self.forget = forget
        #: Called with a :class:`RoomRoundScored` after each round's result is stored (after
        #: its transaction commits), in the thread that stored it. A listener that raises is
        #: logged and skipped: it never undoes or delays the round's scoring for the others.
        self.on_round_scored: list[RoundListener] = []
        #: Called with a claimed round (ended: no person's word gets in) before it is scored:
        #: the rooms submit the computer opponents' words still due (each at its own time),
        #: so a result never depends on timers having fired.
        self.before_scoring: Callable[[RoomRoundRow], object] | None = None

    # -- one round -------------------------------------------------------------------------

    def score_if_due(self, current: RoomRoundRow, grace: bool = True) -> dict[str, Any] | None:
        """Score ``current`` if it is due (see :meth:`Rooms.end_round_if_due`): the stored
        result to the caller that scored it, ``None`` to everyone else."""
        claimed = self._claim(current, grace)
        if claimed is None:
            return None
        try:
            if self.before_scoring is not None:
                self.before_scoring(claimed)
            stored = mark_opponents(
                self.runner(score_room_round, *self._job_of(claimed)), claimed.opponents
            )
        except (BusyError, BudgetExceededError):
            self._release(claimed)
            raise
        except (RoundInputError, RulesError, BoardError) as exc:  # today's checks refuse it
            stored = unscored_marker(exc)
            log.warning("round %d of room %s %s", claimed.number, claimed.room, stored["unscored"])
        except Exception:  # passing (a word list missing at boot) or a bug: never lose points
            self._release(claimed)
            raise
        return stored if self._store_result(claimed.id, stored) else None

    def _claim(self, current: RoomRoundRow, grace: bool) -> RoomRoundRow | None:
        """Mark ``current`` (a round without a result) ended, if it is due and nobody else
        holds it: the claimed row, or ``None``."""
        now = self.clock()
        if current.ended_at is None:
            if now < current.deadline + (GRACE if grace else 0.0):
                return None
        elif now < current.ended_at + SCORING_LEASE:
            return None  # being scored by somebody else
        with self.store.write_session() as session:
            locked = lock_round(session, current.id)
            if locked is None or locked.result is not None:
                return None
            if locked.ended_at is not None and locked.ended_at != current.ended_at:
                return None  # another caller claimed it meanwhile
            locked.ended_at = now
            session.flush()
            return locked

    def _release(self, claimed: RoomRoundRow) -> None:
        """Let go of a claim whose job the pool refused: the round stays ended (no word gets
        in) but may be claimed again at once, not only after the lease."""
        assert claimed.ended_at is not None
        with self.store.write_session() as session:
            session.execute(
                update(RoomRoundRow)
                .where(
                    RoomRoundRow.id == claimed.id,
                    RoomRoundRow.ended_at == claimed.ended_at,
                    RoomRoundRow.result.is_(None),
                )
                .values(ended_at=claimed.ended_at - SCORING_LEASE)
            )

    def _job_of(self, played: RoomRoundRow) -> tuple[Any, ...]:
        """The arguments of :func:`score_room_round` for ``played``: its stored words, in the
        order they arrived, and the setup it was played by."""
        settings = RoomSettings.from_json(played_settings(played))
        players: list[str] = played.settings["players"]
        lists: dict[str, list[str]] = {name: [] for name in players}
        with self.store.session() as session:
            for player, entry in session.execute(
                select(RoomWordRow.player, RoomWordRow.entry)
                .where(RoomWordRow.round_id == played.id)
                .order_by(RoomWordRow.id)
            ):
                if player in lists:
                    lists[player].append(entry)
        return (
            played.board,
            lists,
            settings.rules,
            settings.rules_options(),
            settings.dictionary_name,
            self.shelf.spec,
            settings.teams,
            {n: m for n, m in settings.handicaps.items() if n in lists} or None,
        )

    def _store_result(self, round_id: int, stored: dict[str, Any]) -> bool:
        """Store a round's result and count it in its room's totals (once); ends the game if
        the ending is reached. ``False`` if another caller stored it first. A marker (a round
        that could not be scored) is stored and counts for nothing. The room is locked before
        the round, as everywhere (the other order could deadlock with :meth:`Rooms.end_game`)."""
        with self.store.session() as session:
            code = session.scalar(select(RoomRoundRow.room).where(RoomRoundRow.id == round_id))
            members = session.scalar(
                select(RoomPlayerRow.id)
                .where(RoomPlayerRow.room == code, RoomPlayerRow.account_id.is_not(None))
                .limit(1)
            )
        if code is None:
            return False
        # The word list (for which missed words are worth learning) is fetched before the
        # room is locked: fetching it may load it.
        common = self._common_words(round_id) if members is not None else None
        with self.store.write_session() as session:
            room = lock_room(session, code)
            locked = lock_round(session, round_id)
            if locked is None or locked.result is not None:
                return False
            locked.result = stored
            played = locked
            history.guarded(
                session,
                lambda: record_round_plays(session, played, common or (lambda word: False)),
                f"round {played.number} of room {code}",
            )
            if room.standings is not None and "tally" in stored:
                standings = Standings.from_json(room.standings)
                standings.add(stored["tally"])
                room.standings = standings.to_json()
                if standings.is_over(RoomSettings.from_json(room.settings)):
                    room.over = True
            bump(session, locked.room)
            counted = room.standings is not None
            standings = Standings.from_json(room.standings or {})
            event = RoomRoundScored(
                code=code,
                number=locked.number,
                first_round=standings.first_round,
                rules=str(locked.settings.get("rules", "big")),
                over=room.over,
                at=self.clock(),
                seats=seat_accounts(session, code),
                result=stored,
                totals=standings.ordered_totals(),
            )
        self.forget(round_id)
        if not counted:  # an old room: count every round now
            with self.store.session() as session:
                old = session.get(RoomRow, code)
            if old is not None:
                totals = self.standings_of(old)
                with self.store.session() as session:
                    over = bool(session.scalar(select(RoomRow.over).where(RoomRow.code == code)))
                event = replace(event, over=over, totals=totals.ordered_totals())
        self.publish(event)
        return True

    def _common_words(self, round_id: int) -> Callable[[str], bool] | None:
        """Which missed words of round ``round_id`` a member's summary counts (its word
        list's common ones); ``None`` if its word list cannot be had now."""
        with self.store.session() as session:
            played = session.get(RoomRoundRow, round_id)
            if played is None:
                return None
            settings = played_settings(played)
        try:
            words = self.shelf.get(RoomSettings.from_json(settings).dictionary_name)
        except Exception:  # a word list gone: the plays are kept, without missed words
            log.warning("no word list for the missed words of round id %d", round_id)
            return None
        return history.worth_learning(words)

    def publish(self, event: RoomRoundScored, strict: bool = False) -> None:
        """Tell each of :attr:`on_round_scored` about ``event``; one that raises is logged
        and the next is still told (a listener never breaks the scoring). ``strict``: the
        first listener's error is raised once all were told (for a caller that must not go
        on unless every listener took the event)."""
        failed: Exception | None = None
        for listener in list(self.on_round_scored):
            try:
                listener(event)
            except Exception as exc:
                log.exception("a listener to round %d of room %s failed", event.number, event.code)
                failed = failed or exc
        if strict and failed is not None:
            raise failed

    def publish_game_end(self, code: str, strict: bool = False) -> None:
        """Tell the listeners that room ``code``'s game ended between rounds (the host ended
        it, or new settings reached its ending), or is about to give way to a rematch: its
        last scored round again, ``over`` true. Nothing is told if the game has no scored
        round, or is not over, or while its last round is still being scored (whose storing
        tells the end itself). ``strict`` as for :meth:`publish`."""
        with self.store.session() as session:
            room = session.get(RoomRow, code)
            if room is None or not room.over or room.standings is None:
                return
            if current_round(session, code) is not None:
                return
            standings = Standings.from_json(room.standings)
            last = session.scalars(
                select(RoomRoundRow)
                .where(
                    RoomRoundRow.room == code,
                    RoomRoundRow.number >= standings.first_round,
                    RoomRoundRow.result.is_not(None),
                )
                .order_by(RoomRoundRow.number.desc())
                .limit(1)
            ).first()
            if last is None or last.result is None:
                return
            event = RoomRoundScored(
                code=code,
                number=last.number,
                first_round=standings.first_round,
                rules=str(last.settings.get("rules", "big")),
                over=True,
                at=self.clock(),
                seats=seat_accounts(session, code),
                result=last.result,
                totals=standings.ordered_totals(),
            )
        self.publish(event, strict)

    # -- the totals ------------------------------------------------------------------------

    def standings_of(self, room: RoomRow) -> Standings:
        """``room``'s totals; an old room's (from before totals were kept) are added up from
        the results stored so far (scoring nothing: its old rounds are scored by
        :meth:`score_overdue`), and stored once no ended round of it is left without one."""
        if room.standings is not None:
            return Standings.from_json(room.standings)
        code = room.code
        with self.store.write_session() as session:
            locked = lock_room(session, code)
            if locked.standings is not None:
                return Standings.from_json(locked.standings)
            standings = Standings()
            results = session.execute(
                select(RoomRoundRow.ended_at, RoomRoundRow.result)
                .where(RoomRoundRow.room == code)
                .order_by(RoomRoundRow.number)
            ).all()
            for _, result in results:
                if result is not None and "tally" in result:
                    standings.add(result["tally"])
            if any(ended is not None and result is None for ended, result in results):
                return standings  # rounds left to score: counted again next time
            locked.standings = standings.to_json()
            if standings.is_over(RoomSettings.from_json(locked.settings)):
                locked.over = True
            return standings

    # -- every room ------------------------------------------------------------------------

    def next_deadline(self, code: str) -> float | None:
        """When the room's round is due to be scored: its deadline plus the grace, or (if its
        scoring was interrupted) when another caller may score it; ``None`` with no round."""
        with self.store.session() as session:
            current = current_round(session, code)
        if current is None:
            return None
        if current.ended_at is None:
            return current.deadline + GRACE
        return current.ended_at + SCORING_LEASE

    def running(self) -> list[tuple[str, float]]:
        """Every room with a round not yet scored, and when it is due (for timers)."""
        with self.store.session() as session:
            rows = session.execute(
                select(RoomRoundRow.room, RoomRoundRow.deadline, RoomRoundRow.ended_at).where(
                    RoomRoundRow.result.is_(None),
                    or_(RoomRoundRow.ended_at.is_(None), RoomRoundRow.id.in_(latest_round_ids())),
                )
            ).all()
        return [
            (code, deadline + GRACE if ended is None else ended + SCORING_LEASE)
            for code, deadline, ended in rows
        ]

    def score_overdue(self) -> CatchUp:
        """See :meth:`Rooms.score_overdue`."""
        now = self.clock()
        with self.store.session() as session:
            due = session.scalars(
                select(RoomRoundRow)
                .where(
                    RoomRoundRow.result.is_(None),
                    or_(
                        and_(RoomRoundRow.ended_at.is_(None), RoomRoundRow.deadline + GRACE <= now),
                        RoomRoundRow.ended_at + SCORING_LEASE <= now,
                    ),
                )
                .order_by(RoomRoundRow.id)
            ).all()
        done = CatchUp()
        for played in due:
            try:
                if self.score_if_due(played) is not None:
                    done.scored.append(played.room)
            except (BusyError, BudgetExceededError):
                done.refused += 1
                done.retry.append(played.room)
            except Exception:  # claim let go: tried again later, points kept
                log.exception("could not score round %d of room %s", played.number, played.room)
                done.retry.append(played.room)
        return done
