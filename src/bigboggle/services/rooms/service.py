"""The rooms service: seats, the host's powers, rounds on the server's clock, words.

Everything a room knows is in the store, and every call reads what it needs from there, so any
number of server processes can serve one room (they only need to tell each other that something
happened; see :mod:`bigboggle.web.hub`). A word is judged by the round engine
(:class:`~bigboggle.round.Round`, restored from the round's row for each word) and stored, with
its verdict, before the verdict is returned, so an acknowledged word survives a crash. Rounds
are scored by :class:`~bigboggle.services.rooms.scoring.RoundEnds`.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ...board import Board
from ...dice import new_seed, shake
from ...dictionary import normalise
from ...errors import (
    GameStateError,
    KickedError,
    NotFoundError,
    NotHostError,
    RoomClosedError,
    RoomFullError,
    RoundInputError,
    quoted,
)
from ...judge import Judge
from ...limits import JUDGE_CACHE, ServerLimits
from ...names import clean_name, name_key
from ...round import Round, check_entry
from ...round_setup import check_setup
from ...verdicts import Verdict, WordResult
from ..compute import Runner, run_here
from ..keys import key_hash
from ..members import check_name_free
from ..shelf import DictionaryShelf
from ..store import RoomPlayerRow, RoomRoundRow, RoomRow, RoomWordRow, Store
from .codes import new_code, new_token, normal_code
from .opponents import Played, RoomOpponents
from .queries import (
    bump,
    current_round,
    last_scored,
    lock_room,
    lock_round,
    played_settings,
    round_players,
    seat_members,
    seat_opponents,
    seat_presence,
    seated_players,
)
from .scoring import CatchUp, RoundEnds, RoundListener
from .seats import Presence, Seat
from .settings import RoomSettings
from .standings import Standings
from .views import RoomPublicView, RoomRoundResult, RoomRoundView, RoomView, StartedRound

#: Seconds between "start" and the first word: time for every screen to show the board.
START_DELAY = 3.0


@dataclass(frozen=True)
class _Plans:
    """A round being dealt: the room's settings and the round's number it was dealt for, and
    its opponents' lists (name -> plan)."""

    settings: dict[str, Any]
    number: int
    lists: dict[str, list[list[Any]]]


_DAY = 86_400.0


class Rooms:
    """Rooms on ``store``, with dictionaries from ``shelf``, time from ``clock``, rounds scored
    through ``runner`` (a worker pool in the web app) and the operator's ``limits``.

    The host starts rounds, changes the settings, removes (kicks) a seat and ends the game. A
    removed seat's token stops working, and its name stays taken in that room: a removed player
    cannot come back as themselves (they may join under another name, and be removed again).
    When the host has had no open connection for :attr:`ServerLimits.host_away` seconds, the
    role passes to the next seated player, in join order, who is connected. Rooms without
    activity for :attr:`ServerLimits.room_idle_days` are closed for good; their rounds stay
    readable."""

    def __init__(
        self,
        store: Store,
        shelf: DictionaryShelf,
        clock: Callable[[], float] = time.time,
        runner: Runner = run_here,
        limits: ServerLimits | None = None,
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.limits = limits or ServerLimits()
        #: Judges of rounds being played, by round id (the most recently used few).
        #: Used from the web app's worker threads (words, and the ends of rounds forgetting
        #: theirs) at once: every access holds :attr:`_judges_lock`.
        self._judges: OrderedDict[int, Judge] = OrderedDict()
        self._judges_lock = threading.Lock()
        #: The end of each round: claimed, scored, stored (with the room's totals).
        self.ends = RoundEnds(store, shelf, clock, runner, self._forget_judge)
        #: The computer opponents: their seats, lists and words (through :class:`RoundWords`).
        self.opponents = RoomOpponents(
            store,
            shelf,
            lambda: self.clock(),
            lambda: self.runner,
            self._judge,
            RoundWords,
        )
        self.ends.before_scoring = self.opponents.catch_up

    @property
    def clock(self) -> Callable[[], float]:
        """The server's clock (the one the rounds' deadlines are on), shared with :attr:`ends`."""
        return self.ends.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.ends.clock = clock

    @property
    def on_round_scored(self) -> list[RoundListener]:
        """The listeners told of each round stored (:class:`RoomRoundScored`, after its
        transaction commits; and of a game ended between rounds): :attr:`RoundEnds.on_round_scored`,
        the same list. Append to it; a listener that raises is logged, never breaks scoring."""
        return self.ends.on_round_scored

    @property
    def runner(self) -> Runner:
        """What runs a round's scoring (a worker pool in the web app), shared with :attr:`ends`."""
        return self.ends.runner

    @runner.setter
    def runner(self, runner: Runner) -> None:
        self.ends.runner = runner

    # -- seats -------------------------------------------------------------------------------

    def create(
        self, host: str, settings: Mapping[str, Any] | None = None, account_id: int | None = None
    ) -> tuple[str, str]:
        """A new room hosted by ``host`` (seated at once): its code and the host's token.
        Handicaps and teams may name the host only (nobody else is seated yet). ``account_id``
        is the member hosting (``None``: a guest): the seat is theirs, and its rounds go into
        their history. A name another member holds is refused (:class:`NameTakenError`, see
        :mod:`~bigboggle.services.members`), in the transaction that seats the host."""
        host = clean_name(host, "name")
        parsed = RoomSettings.from_json(settings or {})
        self.shelf.get(parsed.dictionary_name)
        for _ in range(20):
            code = new_code()
            parsed_here = parsed.for_seated([host], "the new room")
            now = self.clock()
            with self.store.write_session() as session:
                check_name_free(session, host, account_id)
                if session.get(RoomRow, code) is not None:  # pragma: no cover - 43 bits
                    continue
                session.add(
                    RoomRow(
                        code=code,
                        settings=parsed_here.to_json(),
                        host=host,
                        created_at=now,
                        active_at=now,
                        seq=0,
                        over=False,
                        standings=Standings().to_json(),
                    )
                )
                session.flush()
                return code, self._seat(session, code, host, account_id)
        raise GameStateError("could not find a free room code; try again")  # pragma: no cover

    def join(self, code: str, name: str, account_id: int | None = None) -> tuple[Seat, str]:
        """Seat ``name`` in room ``code``: the seat (the name in its normal form) and the
        player's private resume token. Names are unique in a room ignoring case, width and
        look-alike letters (:func:`bigboggle.names.name_key`), removed players' names too. In
        team play the newcomer joins the team with the fewest members (the first such), so a
        round can start without the host placing them: the settings everyone sees say so.

        ``account_id`` is the member joining (``None``: a guest): the seat is theirs. A member
        may sit under any free name, but a name a member holds is that member's alone
        (:class:`NameTakenError` for anyone else, checked in the transaction that seats). A
        member has one seat per room: joining again (from another device) gives them that
        seat back, under its name, with a fresh token."""
        name = clean_name(name, "name")
        code = self._room(code).code
        taken = RoundInputError(f"name {quoted(name)} is taken in room {code}; choose another")
        try:
            with self.store.write_session() as session:
                room = lock_room(session, code)
                self._require_open(room)
                if room.over:
                    raise GameStateError(f"the game in room {code} is over")
                settings = RoomSettings.from_json(room.settings)
                seated = session.execute(
                    select(
                        RoomPlayerRow.name, RoomPlayerRow.kicked_at, RoomPlayerRow.account_id
                    ).where(RoomPlayerRow.room == code)
                ).all()
                mine = [
                    (other, kicked)
                    for other, kicked, held in seated
                    if account_id is not None and held == account_id
                ]
                if mine:  # one seat per member and room (a game's ranking counts each once)
                    return self._seat_again(session, code, *mine[0])
                if name_key(name) in {name_key(other) for other, _, _ in seated}:
                    raise taken
                check_name_free(session, name, account_id)
                if sum(1 for _, kicked, _ in seated if kicked is None) >= settings.max_players:
                    raise RoomFullError(f"room {code} is full ({settings.max_players} players)")
                room.active_at = self.clock()
                if settings.teams is not None:  # team play: nobody may be on no team
                    room.settings = settings.with_latecomer(name).to_json()
                return Seat(code, name), self._seat(session, code, name, account_id)
        except IntegrityError:
            raise taken from None

    def _seat_again(
        self, session: Session, code: str, name: str, kicked: float | None
    ) -> tuple[Seat, str]:
        """A member's own seat in room ``code`` (as ``name``), given back to the member on
        another device (whatever name they typed): a fresh token, which the seat's earlier one
        no longer matches (that browser, back, is given the seat again the same way).
        :class:`KickedError` if the host removed it."""
        if kicked is not None:
            raise KickedError(f"the host removed {name} from room {code}")
        token = new_token()
        row = session.scalar(
            select(RoomPlayerRow).where(RoomPlayerRow.room == code, RoomPlayerRow.name == name)
        )
        assert row is not None  # read in this transaction, under the room's lock
        row.token_hash = key_hash(token)
        room = session.get(RoomRow, code)
        if room is not None:
            room.active_at = self.clock()
        return Seat(code, name), token

    def _seat(self, session: Session, code: str, name: str, account_id: int | None) -> str:
        token = new_token()
        session.add(
            RoomPlayerRow(
                room=code,
                name=name,
                token_hash=key_hash(token),
                joined_at=self.clock(),
                sockets=0,
                account_id=account_id,
            )
        )
        bump(session, code)
        return token

    def resume(self, token: str) -> Seat:
        """The seat a resume token belongs to; :class:`NotFoundError` if none,
        :class:`KickedError` if the host removed it."""
        if not isinstance(token, str) or not 10 <= len(token) <= 100:
            raise NotFoundError("that resume token is not valid")
        with self.store.session() as session:
            row = session.scalar(
                select(RoomPlayerRow).where(RoomPlayerRow.token_hash == key_hash(token))
            )
            if row is None:
                raise NotFoundError("that resume token is not valid")
            if row.kicked_at is not None:
                raise KickedError(f"the host removed {row.name} from room {row.room}")
            return Seat(row.room, row.name)

    def players(self, code: str) -> list[str]:
        """The seated players (not the removed ones) in the order they joined."""
        with self.store.session() as session:
            return seated_players(session, code)

    # -- presence and the host's handover ----------------------------------------------------

    def connected(self, seat: Seat) -> Presence:
        """A connection of ``seat`` opened, its page in view (the seat is online; a page
        opened hidden says so next, :meth:`set_hidden`). If the host has been away for longer than
        ``host_away``, the role passes now (to the first connected player after the host in
        join order); if the host is away for less, :attr:`Presence.host_due` says when it may
        pass (for a timer: the host may have left while no server ran)."""
        with self.store.write_session() as session:
            room = lock_room(session, seat.room)  # the room first, as everywhere
            session.execute(
                update(RoomPlayerRow)
                .where(RoomPlayerRow.room == seat.room, RoomPlayerRow.name == seat.player)
                .values(
                    sockets=func.coalesce(RoomPlayerRow.sockets, 0) + 1,
                    hidden=func.coalesce(RoomPlayerRow.hidden, 0),
                    away_since=None,
                )
            )
            return self._hand_over(session, room)

    def disconnected(self, seat: Seat, hidden: bool = False) -> float | None:
        """A connection of ``seat`` closed (``hidden``: its page's tab was hidden then). If
        that was the host's last one, returns when the host role may pass (now +
        ``host_away``), else ``None``. The seat is away from now if each connection left open
        is hidden; one left in view keeps it online."""
        now = self.clock()
        with self.store.write_session() as session:
            row = session.scalar(
                select(RoomPlayerRow)
                .where(RoomPlayerRow.room == seat.room, RoomPlayerRow.name == seat.player)
                .with_for_update()
            )
            if row is None:
                return None
            row.sockets = max(0, (row.sockets or 0) - 1)
            row.hidden = min(row.sockets, max(0, (row.hidden or 0) - hidden))
            if row.sockets:
                if row.hidden >= row.sockets and row.away_since is None:
                    row.away_since = now
                return None
            row.away_since = now
            host = session.scalar(select(RoomRow.host).where(RoomRow.code == seat.room))
            return now + self.limits.host_away if host == seat.player else None

    def hand_over_if_away(self, code: str) -> str | None:
        """Pass the host role on if the host has been away for longer than ``host_away`` and
        someone is connected: returns the new host, else ``None`` (with nobody connected,
        nothing happens: the room winds down until somebody comes back)."""
        with self.store.write_session() as session:
            return self._hand_over(session, lock_room(session, code)).new_host

    def _hand_over(self, session: Session, room: RoomRow) -> Presence:
        """The handover, in a session holding ``room``'s lock: the seats (and their socket
        counts) are read after it, locked too, so no connection or other handover slips in
        between reading who is connected and passing the role."""
        if room.closed_at is not None:
            return Presence()
        code = room.code
        rows = session.scalars(
            select(RoomPlayerRow)
            .where(RoomPlayerRow.room == code, RoomPlayerRow.kicked_at.is_(None))
            .order_by(RoomPlayerRow.id)
            .with_for_update()
            .execution_options(populate_existing=True)
        ).all()
        host = next((row for row in rows if row.name == room.host), None)
        if host is not None and host.sockets:
            return Presence()
        away = (
            0.0
            if host is None
            else (host.away_since if host.away_since is not None else host.joined_at)
        )
        if host is not None and self.clock() - away < self.limits.host_away:
            return Presence(host_due=away + self.limits.host_away)
        start = rows.index(host) + 1 if host is not None else 0
        for row in [*rows[start:], *rows[:start]]:
            if row.sockets and row.name != room.host:
                room.host = row.name
                room.active_at = self.clock()
                bump(session, code)
                return Presence(new_host=row.name)
        return Presence()

    def set_hidden(self, seat: Seat, hidden: bool) -> bool:
        """One open connection of ``seat`` says its page's tab is now hidden (or in view
        again); its caller tells each change of a connection once. The seat is away while
        every open connection is hidden (``away_since`` says since when), online while one is
        in view. Returns whether the seat's presence changed (a seat with no connection open
        changes nothing)."""
        with self.store.write_session() as session:
            row = session.scalar(
                select(RoomPlayerRow)
                .where(
                    RoomPlayerRow.room == seat.room,
                    RoomPlayerRow.name == seat.player,
                    RoomPlayerRow.kicked_at.is_(None),
                )
                .with_for_update()
            )
            if row is None or not row.sockets:
                return False
            step = 1 if hidden else -1
            row.hidden = min(row.sockets, max(0, (row.hidden or 0) + step))
            away = row.hidden >= row.sockets
            if (row.away_since is not None) == away:
                return False
            row.away_since = self.clock() if away else None
            return True

    def presence(self, code: str) -> dict[str, str]:
        """Each seated player's presence, in join order: ``"online"``, ``"away"`` (connected,
        the tab hidden) or ``"offline"`` (no connection open); read from the store, so every
        server process on it answers alike."""
        with self.store.session() as session:
            return seat_presence(session, normal_code(code))

    def reset_presence(self) -> None:
        """Forget every connection (for a server that is the only one on its database, at
        start-up: connections of a process that died are not open any more)."""
        now = self.clock()
        with self.store.write_session() as session:
            session.execute(
                update(RoomPlayerRow)
                .where(func.coalesce(RoomPlayerRow.sockets, 0) > 0)
                .values(sockets=0, hidden=0, away_since=now)
            )

    # -- the host's controls -----------------------------------------------------------------

    def configure(self, seat: Seat, settings: Mapping[str, Any]) -> RoomSettings:
        """New settings, by the host, between rounds; handicaps and teams may name seated
        players only. If the new ending is already reached (a target the leader has passed),
        the game ends now."""
        parsed = RoomSettings.from_json(settings)
        self.shelf.get(parsed.dictionary_name)
        standings = self.standings(seat.room)
        with self.store.write_session() as session:
            room = lock_room(session, seat.room)
            self._require_host(room, seat)
            self._require_playing(room)
            if current_round(session, seat.room) is not None:
                raise GameStateError("a round is running; change the settings after it")
            parsed = parsed.for_seated(seated_players(session, seat.room), f"room {seat.room}")
            room.settings = parsed.to_json()
            room.over = ended = standings.is_over(parsed)
            room.active_at = self.clock()
            bump(session, seat.room)
        if ended:  # the new ending is already reached: the game ends here
            self.ends.publish_game_end(seat.room)
        return parsed

    def start_round(self, seat: Seat, seed: int | None = None) -> StartedRound:
        """Shake a board and start a round (the host only; not while one runs): its number,
        board, clock and players."""
        self.end_round_if_due(seat.room)
        self.standings(seat.room)  # an old room's totals are counted before a new round
        seed = new_seed() if seed is None else seed
        dealt, plans = self._deal(seat, seed)
        try:
            with self.store.write_session() as session:
                room = lock_room(session, seat.room)
                self._require_host(room, seat)
                self._require_playing(room)
                if current_round(session, seat.room) is not None:
                    raise GameStateError("a round is already running")
                if room.settings != plans.settings:
                    raise GameStateError("the settings changed as the round was dealt; start again")
                settings = RoomSettings.from_json(room.settings)
                rules = settings.ruleset()
                players = seated_players(session, seat.room)
                check_setup(
                    players,
                    rules,
                    settings.teams,
                    self._minimums(settings, players),
                    where_teams="settings.teams",
                    where_min_length="settings.handicaps",
                )
                now = self.clock()
                number = self._next_number(session, seat.room)
                if number != plans.number:
                    raise GameStateError("a round started as this one was dealt; start again")
                seated = self.opponents.seated(session, seat.room)
                lists = {name: plans.lists.get(name, []) for name in seated if name in players}
                row = RoomRoundRow(
                    room=seat.room,
                    number=number,
                    board=str(dealt),
                    seed=seed,
                    settings={**settings.to_json(), "players": players},
                    starts_at=now + START_DELAY,
                    deadline=now + START_DELAY + rules.timer,
                    opponents=None
                    if not lists
                    else {
                        "lists": lists,
                        "played": dict.fromkeys(lists, 0),
                        "strengths": {name: seated[name][0] for name in lists},
                    },
                )
                session.add(row)
                room.active_at = now
                bump(session, seat.room)
        except IntegrityError:
            raise GameStateError("a round is already running") from None
        return StartedRound(number, str(dealt), row.starts_at, row.deadline, tuple(players))

    def _deal(self, seat: Seat, seed: int) -> tuple[Board, _Plans]:
        """The board of the round ``seat``'s host is starting (shaken from ``seed`` by the
        room's settings), and its opponents' lists, made through the runner before the room
        is locked (solving is CPU work): the start checks that the settings and the round's
        number are still those they were made for."""
        with self.store.session() as session:
            room = session.get(RoomRow, seat.room)
            if room is None:
                raise NotFoundError(f"no room {quoted(seat.room, 30)}")
            # Refused before any work on the board (checked again under the room's lock).
            self._require_host(room, seat)
            self._require_playing(room)
            if current_round(session, seat.room) is not None:
                raise GameStateError("a round is already running")
            stored = room.settings
            number = self._next_number(session, seat.room)
            seated = self.opponents.seated(session, seat.room)
        settings = RoomSettings.from_json(stored)
        rules = settings.ruleset()
        dealt = shake(rules.dice, seed, challenge=rules.challenge)
        lists = self.opponents.plans(seated, str(dealt.board), settings, number) if seated else {}
        return dealt.board, _Plans(stored, number, lists)

    @staticmethod
    def _next_number(session: Session, code: str) -> int:
        """The number the room's next round gets."""
        latest = session.scalar(
            select(func.max(RoomRoundRow.number)).where(RoomRoundRow.room == code)
        )
        return (latest or 0) + 1

    def kick(self, seat: Seat, player: str) -> None:
        """The host removes ``player``: their token stops working, their name stays taken in
        this room, and they leave the handicaps and teams. Words they already played in a
        running round stay in it (crossing off is everybody's); they play no later round."""
        if not isinstance(player, str):
            raise RoundInputError(f"player: expected a name, not {quoted(player)}")
        with self.store.write_session() as session:
            room = lock_room(session, seat.room)
            self._require_host(room, seat)
            self._require_open(room)
            if player == room.host:
                raise GameStateError("the host cannot remove themselves")
            row = session.scalar(
                select(RoomPlayerRow).where(
                    RoomPlayerRow.room == seat.room,
                    RoomPlayerRow.name == player,
                    RoomPlayerRow.kicked_at.is_(None),
                )
            )
            if row is None:
                raise NotFoundError(f"no player {quoted(player)} in room {seat.room}")
            row.kicked_at = self.clock()
            room.settings = RoomSettings.from_json(room.settings).without(player).to_json()
            room.active_at = self.clock()
            bump(session, seat.room)

    def end_game(self, seat: Seat) -> dict[str, Any] | None:
        """The host ends the game now. A running round ends at once and is scored with the
        words played so far (returned, as stored); the totals so far decide the winner."""
        with self.store.write_session() as session:
            room = lock_room(session, seat.room)
            self._require_host(room, seat)
            self._require_open(room)
            if room.over:
                raise GameStateError("the game is already over")
            room.over = True
            room.active_at = now = self.clock()
            current = current_round(session, seat.room)
            if current is not None and current.ended_at is None:
                locked = lock_round(session, current.id)
                if locked is not None and locked.deadline > now:
                    locked.deadline = max(now, locked.starts_at)
            bump(session, seat.room)
        if current is None:  # between rounds: the listeners hear of the end here
            self.ends.publish_game_end(seat.room)
            return None
        return self.end_round_if_due(seat.room, grace=False)

    def rematch(self, seat: Seat) -> None:
        """The host starts a new game in the room once the last one is over: the same
        settings and players, the totals from nothing (the earlier rounds stay readable, and
        belong to the game before: :attr:`Standings.first_round`).

        The listeners hear the finished game's end first, and must all take it (its rating
        stored): a rematch ends the room's only record of where that game began, so a rating
        the game's end lost (the process died after it, or a listener failed; or the end's
        own telling read the room after this rematch) could never be made up later. A listener
        that fails refuses the rematch with its error (try again)."""
        self.ends.publish_game_end(seat.room, strict=True)
        with self.store.write_session() as session:
            room = lock_room(session, seat.room)
            self._require_host(room, seat)
            self._require_open(room)
            if not room.over:
                raise GameStateError("the game is not over yet; a rematch comes after it")
            if current_round(session, seat.room) is not None:
                raise GameStateError("the last round is still being scored; try again")
            played = session.scalar(
                select(func.max(RoomRoundRow.number)).where(RoomRoundRow.room == seat.room)
            )
            room.standings = Standings(first_round=(played or 0) + 1).to_json()
            room.over = False
            room.active_at = self.clock()
            bump(session, seat.room)

    # -- words -------------------------------------------------------------------------------

    def submit(self, seat: Seat, entry: str) -> WordResult:
        """Judge ``entry`` for the seat's player now, store it with its verdict, and return the
        verdict. :class:`GameStateError` before the round starts, after its deadline, or for a
        player who is not in the round; :class:`KickedError` for a seat the host removed. The
        round's row is locked while the word is stored, so a word is either in the scored
        round or refused, never acknowledged and then left out.

        The rules are the round engine's: the word is bounded by
        :func:`~bigboggle.round.check_entry`, the round is restored from its row
        (:meth:`~bigboggle.round.Round.resume`, with this round's judge) and asked for the
        verdict the next word would get (:meth:`~bigboggle.round.Round.judge_next`: past the
        list's limit; too short for this player; repeated). What a room knows is checked
        around it, in this order: the round already scored, then the round's clock
        (:meth:`~bigboggle.round.Round.check_clock`: not started yet, time is up), then a
        player who joined after it started, then a seat the host removed; so a word out of
        time is refused as such, whoever sends it."""
        entry = check_entry(entry)
        current = self._running(seat.room)
        if current is None:
            raise GameStateError("no round is running")
        judge = self._judge(current)
        with self.store.write_session() as session:
            locked = lock_round(session, current.id)
            now = self.clock()
            if locked is None or locked.ended_at is not None:
                raise GameStateError("time is up: the round has been scored")
            return self._store_word(session, locked, seat.player, entry, now, judge)

    def _store_word(
        self,
        session: Session,
        locked: RoomRoundRow,
        player: str,
        entry: str,
        now: float,
        judge: Judge,
    ) -> WordResult:
        """Judge ``player``'s ``entry`` at ``now`` in the round ``locked`` (its row locked in
        ``session``) and store it with its verdict, through :class:`RoundWords`: the one path
        every word takes, a person's (:meth:`submit`, at the server's clock) and an
        opponent's (at its own time, many in one transaction)."""
        return RoundWords(session, locked, judge).store(player, entry, now)

    # -- computer opponents ------------------------------------------------------------------

    def add_opponent(self, seat: Seat, strength: object) -> str:
        """The host seats a computer opponent of ``strength`` (one of
        ``Opponent.STRENGTHS``): its name (``"Club bot"``, free in the room). It counts toward
        ``max_players`` (:class:`RoomFullError`), never connects, never hosts, is never rated.
        During a round it is seated at once and plays from the next round (as a person who
        joins then). :class:`RoundInputError` names the strengths for an unknown one."""
        return self.opponents.add(seat, strength, self._require_host_playing)

    def remove_opponent(self, seat: Seat, name: object) -> None:
        """The host removes the opponent seated as ``name``, at any time: its words already
        played stay in a running round, no more come. :class:`NotFoundError` for no such
        seat, :class:`RoundInputError` for a person's seat (removed by :meth:`kick`)."""
        self.opponents.remove(seat, name, self._require_host_open)

    def play_opponents(self, code: str) -> Played:
        """Submit the opponents' words due now in room ``code``'s running round (each at its own
        time, through the judge path every word takes): how many, and when the next is due
        (for a timer)."""
        return self.opponents.play_due(normal_code(code))

    def next_opponent_word(self, code: str) -> float | None:
        """When the next opponent's word of room ``code``'s running round is due, if any."""
        return self.opponents.next_due(normal_code(code))

    def word_counts(self, code: str) -> tuple[int, dict[str, int]] | None:
        """The running round's number and how many words each of its players has entered so
        far (people and opponents alike; the words themselves stay private until the end);
        ``None`` with no round running."""
        with self.store.session() as session:
            current = current_round(session, normal_code(code))
            if current is None:
                return None
            return current.number, self._counts(session, current)

    @staticmethod
    def _counts(session: Session, current: RoomRoundRow) -> dict[str, int]:
        counted = dict(
            session.execute(
                select(RoomWordRow.player, func.count())
                .where(RoomWordRow.round_id == current.id)
                .group_by(RoomWordRow.player)
            ).all()
        )
        return {name: int(counted.get(name, 0)) for name in round_players(current)}

    def _require_host_playing(self, room: RoomRow, seat: Seat) -> None:
        self._require_host(room, seat)
        self._require_playing(room)

    def _require_host_open(self, room: RoomRow, seat: Seat) -> None:
        self._require_host(room, seat)
        self._require_open(room)

    # -- the end of a round ------------------------------------------------------------------

    def end_round_if_due(self, code: str, *, grace: bool = True) -> dict[str, Any] | None:
        """Score the room's round if it is due (its deadline and the grace have passed), or if
        its scoring was interrupted (ended :data:`SCORING_LEASE` ago, no result). Returns the
        stored result (``{"round": …, "tally": …}``) to whichever caller scored it; ``None``
        to everyone else.

        Three steps, so that no lock is held while the round is scored: the round is marked
        ended (from then on no word gets in; only one caller wins this), then scored through
        the runner from its stored words, then its result and the room's totals are stored
        in one locked transaction (the first result stored wins).

        If the pool refuses the job (:class:`BusyError`, :class:`BudgetExceededError`), the
        claim is let go at once (the caller may try again whenever it likes) and the error is
        raised; so is any other failure (a word list missing at boot, a bug), to be tried
        again later. A round that cannot be scored at all (its stored data fails today's
        checks, :class:`RoundInputError`, :class:`RulesError` or :class:`BoardError`: a round
        from an older bigboggle) gets a marker, ``{"unscored": "could not be scored:
        <reason>"}``, stored as its result, so it is never tried again; the marker is returned."""
        with self.store.session() as session:
            current = current_round(session, code)
        if current is None:
            return None
        return self.ends.score_if_due(current, grace)

    def next_deadline(self, code: str) -> float | None:
        """When the room's round is due to be scored: its deadline plus the grace, or (if its
        scoring was interrupted) when another caller may score it; ``None`` with no round."""
        return self.ends.next_deadline(code)

    def running(self) -> list[tuple[str, float]]:
        """Every room with a round not yet scored, and when it is due (for timers)."""
        return self.ends.running()

    def score_overdue(self) -> CatchUp:
        """Score, one by one, every round due and without a result: rounds whose deadline
        passed while no server ran, rounds whose scoring was interrupted, and rounds from
        before results were stored (an older bigboggle), in every room (for a background
        task at start-up: reading a room never scores). Each goes through the same claim as
        a round's timer, so it is scored once whoever else tries. A round the pool refuses
        is counted in :attr:`CatchUp.refused` (call again later); one that cannot be scored
        gets its marker and is never tried again; one that fails otherwise (a word list
        missing, a bug) is logged and let go. Both are listed in :attr:`CatchUp.retry`."""
        return self.ends.score_overdue()

    # -- closing idle rooms ------------------------------------------------------------------

    def close_idle(self) -> int:
        """Close for good every room without activity for ``room_idle_days`` (and no round
        left to score): they refuse joins and rounds; their results stay readable. Returns
        how many were closed."""
        now = self.clock()
        before = now - self.limits.room_idle_days * _DAY
        unscored = select(RoomRoundRow.room).where(RoomRoundRow.result.is_(None))
        with self.store.write_session() as session:
            closed = session.execute(
                update(RoomRow)
                .where(
                    RoomRow.closed_at.is_(None),
                    func.coalesce(RoomRow.active_at, RoomRow.created_at) < before,
                    ~RoomRow.code.in_(unscored),
                )
                .values(closed_at=now, seq=RoomRow.seq + 1)
                .execution_options(synchronize_session=False)
            )
            return int(getattr(closed, "rowcount", 0) or 0)

    # -- what a player sees ------------------------------------------------------------------

    def view(self, seat: Seat) -> RoomView:
        """The room as ``seat``'s player sees it now: settings, players, the round in play with
        their own words and verdicts (as stored when they arrived), the last round's results
        (as stored when it was scored) and the totals. Reading only: nothing is scored here
        (a round past its deadline shows ``"scoring": true`` until its timer has scored it;
        one that could not be scored shows as ``"unscored": {"number", "seed", "reason"}``);
        words stored before verdicts were kept are judged once."""
        room = self._room(seat.room)
        standings = self.ends.standings_of(room)
        now = self.clock()
        with self.store.session() as session:
            players = seated_players(session, seat.room)
            current = current_round(session, seat.room)
            last = last_scored(session, seat.room)
            presence = seat_presence(session, seat.room)
            members = seat_members(session, seat.room)
            opponents = seat_opponents(session, seat.room)
            counts = self._counts(session, current) if current is not None else {}
            first = session.scalar(
                select(RoomRoundRow.settings).where(
                    RoomRoundRow.room == seat.room, RoomRoundRow.number == standings.first_round
                )
            )
        if last is not None and last.number < standings.first_round:
            last = None  # a round of the game before a rematch
        playing = None
        if current is not None:
            playing = RoomRoundView(
                number=current.number,
                board=current.board,
                starts_at=current.starts_at,
                deadline=current.deadline,
                playing=seat.player in round_players(current),
                words=tuple(self._verdicts(current, seat.player)),
                scoring=current.ended_at is not None or now >= current.deadline,
                counts=counts,
            )
        shown = None
        if last is not None and last.result is not None:
            shown = RoomRoundResult.of_stored(last.number, last.seed, last.result)
        return RoomView(
            room=room.code,
            you=seat.player,
            host=room.host,
            seq=room.seq,
            settings=room.settings,
            players=tuple(players),
            now=now,
            round=playing,
            last=shown if shown is not None and shown.scored else None,
            unscored=shown if shown is not None and not shown.scored else None,
            totals=standings.ordered_totals(),
            standings=tuple(standings.order),
            rounds_played=standings.rounds,
            over=room.over,
            winner=standings.winner(room.over),
            places=standings.places(),
            presence=presence,
            first_round=standings.first_round,
            members=members,
            rated=None if first is None else first.get("rated", True) is True,
            opponents=opponents,
        )

    def public(self, code: str) -> RoomPublicView:
        """What anyone may know of a room: settings, players, host, rounds, totals (readable
        after the room is closed too)."""
        room = self._room(code)
        standings = self.ends.standings_of(room)
        with self.store.session() as session:
            players = seated_players(session, room.code)
            members = seat_members(session, room.code)
            opponents = seat_opponents(session, room.code)
        return RoomPublicView(
            room=room.code,
            host=room.host,
            seq=room.seq,
            settings=room.settings,
            players=tuple(players),
            members=members,
            rounds_played=standings.rounds,
            totals=standings.ordered_totals(),
            over=room.over,
            winner=standings.winner(room.over),
            closed=room.closed_at is not None,
            first_round=standings.first_round,
            opponents=opponents,
        )

    def round_result(self, code: str, number: int) -> RoomRoundResult:
        """Round ``number`` of room ``code`` as scored (public once scored, as every player
        saw it; readable after the room is closed too); :class:`NotFoundError` if there is no
        such scored round (one still being scored is not found yet: reading never scores).
        A round that could not be scored reads as ``{"number", "seed", "reason"}``."""
        room = self._room(code)
        with self.store.session() as session:
            played = session.scalar(
                select(RoomRoundRow).where(
                    RoomRoundRow.room == room.code, RoomRoundRow.number == number
                )
            )
        if played is None or played.result is None:
            raise NotFoundError(f"room {room.code} has no scored round {number}")
        return RoomRoundResult.of_stored(played.number, played.seed, played.result)

    def standings(self, code: str) -> Standings:
        """The room's running totals (for a room from before they were kept: added up from
        its stored results, and stored once none of its ended rounds is left to score).

        A fresh :class:`Standings` each call, read from the store and sharing nothing with
        it: changing it changes nothing stored (the totals change only when a round is
        scored)."""
        return self.ends.standings_of(self._room(code))

    # -- internals ---------------------------------------------------------------------------

    def _verdicts(self, current: RoomRoundRow, player: str) -> list[dict[str, Any]]:
        with self.store.session() as session:
            rows = session.execute(
                select(RoomWordRow.id, RoomWordRow.entry, RoomWordRow.verdict)
                .where(RoomWordRow.round_id == current.id, RoomWordRow.player == player)
                .order_by(RoomWordRow.id)
            ).all()
        if all(verdict is not None for _, _, verdict in rows):
            return [verdict for _, _, verdict in rows]
        return self._judge_old_words(current, player, [(i, entry) for i, entry, _ in rows])

    def _judge_old_words(
        self, current: RoomRoundRow, player: str, rows: list[tuple[int, str]]
    ) -> list[dict[str, Any]]:
        """Verdicts for words stored before verdicts were kept: judged once, then stored."""
        judge = self._judge(current)
        minimum = self._minimums(RoomSettings.from_json(played_settings(current)), [player])[player]
        seen: set[str] = set()
        verdicts = []
        for _, entry in rows:
            result = judge.judge(entry, minimum, seen)
            seen.add(result.word)
            verdicts.append(result.to_json())
        with self.store.write_session() as session:
            for (word_id, _), verdict in zip(rows, verdicts, strict=True):
                session.execute(
                    update(RoomWordRow)
                    .where(RoomWordRow.id == word_id, RoomWordRow.verdict.is_(None))
                    .values(verdict=verdict)
                )
        return verdicts

    def _room(self, code: str) -> RoomRow:
        wanted = normal_code(code)
        with self.store.session() as session:
            room = session.get(RoomRow, wanted)
            if room is None:
                raise NotFoundError(f"no room {quoted(code, 30)}")
            return room

    def _require_host(self, room: RoomRow, seat: Seat) -> None:
        if seat.player != room.host:
            raise NotHostError(f"only the host ({room.host}) can do that")

    def _require_open(self, room: RoomRow) -> None:
        if room.closed_at is not None:
            days = self.limits.room_idle_days
            raise RoomClosedError(
                f"room {room.code} was closed after {days:g} days without play; its results "
                "stay readable; create a new room to play"
            )

    def _require_playing(self, room: RoomRow) -> None:
        self._require_open(room)
        if room.over:
            raise GameStateError("the game is over; create a new room to play again")

    def _running(self, code: str) -> RoomRoundRow | None:
        with self.store.session() as session:
            current = current_round(session, code)
        return current if current is not None and current.ended_at is None else None

    def _judge(self, current: RoomRoundRow) -> Judge:
        """The judge of a round being played, kept for the next word (making one solves the
        board): the most recently used :data:`~bigboggle.limits.JUDGE_CACHE` are kept."""
        with self._judges_lock:
            judge = self._judges.get(current.id)
            if judge is not None:
                self._judges.move_to_end(current.id)
                return judge
        settings = RoomSettings.from_json(played_settings(current))
        words = self.shelf.get(settings.dictionary_name)
        # Solving the board outside the lock: two threads may both make one (the last kept).
        judge = Judge(Board.parse(current.board), settings.ruleset(), words)
        with self._judges_lock:
            self._judges[current.id] = judge
            while len(self._judges) > JUDGE_CACHE:
                self._judges.popitem(last=False)
        return judge

    def _minimums(self, settings: RoomSettings, players: list[str]) -> dict[str, int]:
        rules = settings.ruleset()
        return {name: settings.handicaps.get(name, rules.min_length) for name in players}

    def _forget_judge(self, round_id: int) -> None:
        """Drop a scored round's judge (no more words come for it)."""
        with self._judges_lock:
            self._judges.pop(round_id, None)


def _resumed(
    played: RoomRoundRow, players: list[str], settings: RoomSettings, judge: Judge
) -> Round:
    """The round engine for ``played`` as stored (its players, clock, teams and handicaps),
    judging with ``judge``: restored, not set up again (its setup was checked at its start)."""
    return Round.resume(
        judge.board,
        judge.rules,
        judge.words,
        players,
        started_at=played.starts_at,
        deadline=played.deadline,
        teams=settings.teams,
        min_length={name: n for name, n in settings.handicaps.items() if name in players},
        judge=judge,
    )


@dataclass
class _SeatWords:
    """What one player has entered so far in a round, as stored: the normal forms of the
    entries, and how many."""

    words: set[str]
    count: int


class RoundWords:
    """The words of the round ``locked`` (its row locked in ``session``) being judged with
    ``judge`` and stored, one after another, in that one transaction: the path every word
    takes. The round's settings and engine are made once, and each player's entries so far
    are read once (at their first word here) and kept as words are stored, so storing ``n``
    words costs ``n`` judgements, not a reading of the whole list for each."""

    def __init__(self, session: Session, locked: RoomRoundRow, judge: Judge) -> None:
        self.session = session
        self.locked = locked
        self.players = round_players(locked)
        settings = RoomSettings.from_json(played_settings(locked))
        self.engine = _resumed(locked, self.players, settings, judge)
        self._seats: dict[str, _SeatWords] = {}
        self._kicked: dict[str, float | None] = {}

    def removed(self, player: str) -> bool:
        """Whether the host removed ``player``'s seat (read once in this transaction:
        :meth:`store` refuses a removed seat's words by the same reading)."""
        if player not in self._kicked:
            self._kicked[player] = self.session.scalar(
                select(RoomPlayerRow.kicked_at).where(
                    RoomPlayerRow.room == self.locked.room, RoomPlayerRow.name == player
                )
            )
        return self._kicked[player] is not None

    def store(self, player: str, entry: str, now: float) -> WordResult:
        """Judge ``player``'s ``entry`` at ``now`` and store it with its verdict (a repeat is
        answered, not stored). Refused, in this order: out of the round's time
        (:meth:`~bigboggle.round.Round.check_clock`), a player who joined after the round
        started (:class:`GameStateError`), a seat the host removed (:class:`KickedError`);
        then the engine's own refusals (past the list's limit)."""
        self.engine.check_clock(now)
        if player not in self.players:
            raise GameStateError("you joined during this round; play the next one")
        if self.removed(player):
            raise KickedError(f"the host removed {player} from room {self.locked.room}")
        seat = self._seat(player)
        result = self.engine.judge_next(player, entry, now, earlier=seat.words, count=seat.count)
        if result.verdict is not Verdict.REPEATED:
            self.session.add(
                RoomWordRow(
                    round_id=self.locked.id,
                    player=player,
                    entry=entry,
                    at=now,
                    verdict=result.to_json(),
                )
            )
            seat.words.add(normalise(entry))
            seat.count += 1
        return result

    def _seat(self, player: str) -> _SeatWords:
        seat = self._seats.get(player)
        if seat is None:
            earlier = self.session.scalars(
                select(RoomWordRow.entry).where(
                    RoomWordRow.round_id == self.locked.id, RoomWordRow.player == player
                )
            ).all()
            seat = _SeatWords({normalise(word) for word in earlier}, len(earlier))
            self._seats[player] = seat
        return seat
