"""Guests' games becoming a member's: when a guest signs up or logs in, the solo games and room
seats this browser played as a guest (it holds their keys and tokens) become the member's, and
their plays go into the member's history.

The key is the proof: a solo game is claimed with its owner key (the one its start answered),
a room seat with its resume token. Only what has no member yet changes hands; a game or seat
already another member's is left alone (counted as refused), and one already the claimant's
counts for nothing, so a claim made twice changes nothing the second time. Some rules stay:

- **The daily board's slot.** One daily game per name and day: a claimed daily game played
  under another name stays under that name on the day's leaderboard (names are never
  rewritten), and a member keeps one daily play per preset and day: a guest's daily game of a
  day and preset the member already has (as a member, or claimed earlier in the same claim) is
  refused.
- **One seat per member and room** (as :meth:`Rooms.join` keeps it): a seat in a room where
  the member already sits is refused.

The cost is bounded by what the claim names (at most
:data:`~bigboggle.limits.CLAIM_MAX_GAMES` games and :data:`~bigboggle.limits.CLAIM_MAX_SEATS`
seats): one query per kind of row, not one per item, then one play recorded per scored game
or round the guest played.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import RoundInputError
from ..limits import CLAIM_MAX_GAMES, CLAIM_MAX_SEATS, MAX_KEY_LENGTH
from . import history
from .keys import holds_key, key_hash
from .rooms.queries import played_settings
from .rooms.settings import RoomSettings
from .shelf import DictionaryShelf
from .solo_games import record_solo_play
from .store import AccountRow, RoomPlayerRow, RoomRoundRow, RoomRow, SoloGameRow, Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClaimCounts:
    """What a claim did: games and seats that became the member's, and those refused (a
    wrong key or token, unknown, another member's, or against a rule above)."""

    games: int = 0
    seats: int = 0
    refused: int = 0
    #: The guest's trainer cards now in the member's deck (``None``: the claim brought no
    #: deck; see :meth:`~bigboggle.services.training.Training.adopt_guest_deck`).
    cards: int | None = None
    #: The guest's trainer cards that did not fit in the member's deck (it was full): the
    #: browser keeps its copy while any are left out (``None``: the claim brought no deck).
    left_out: int | None = None

    def to_json(self) -> dict[str, int]:
        data = {"games": self.games, "seats": self.seats, "refused": self.refused}
        if self.cards is not None:
            data["cards"] = self.cards
        if self.left_out is not None:
            data["left_out"] = self.left_out
        return data


class Claims:
    """Claims of guests' games on ``store``; ``shelf`` gives the word lists that say which
    missed words of a room's round are worth learning."""

    def __init__(
        self, store: Store, shelf: DictionaryShelf, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.clock = clock

    def adopt(
        self,
        account_id: int,
        games: Sequence[tuple[str, str]] = (),
        seats: Sequence[str] = (),
    ) -> ClaimCounts:
        """Make the guest games ``games`` (``(id, key)`` pairs) and seats ``seats`` (resume
        tokens) member ``account_id``'s, where the key or token matches and no member has
        them; record their scored plays. :class:`RoundInputError` past the bounds."""
        games = checked_games(games)
        seats = _checked_seats(seats)
        common = self._word_lists(seats)
        with self.store.write_session() as session:
            won, refused = self._games(session, account_id, games)
            sat, refused_seats = self._seats(session, account_id, seats, common)
        return ClaimCounts(won, sat, refused + refused_seats)

    # -- solo games --------------------------------------------------------------------------

    def _games(
        self, session: Session, account_id: int, games: Sequence[tuple[str, str]]
    ) -> tuple[int, int]:
        keys = dict(games)
        rows = (
            session.scalars(
                select(SoloGameRow)
                .where(SoloGameRow.id.in_(list(keys)))
                .order_by(SoloGameRow.started_at, SoloGameRow.id)
                .with_for_update()
            ).all()
            if keys
            else []
        )
        # The member's account row locked: a daily start of theirs checks their games
        # under the same lock (PostgreSQL; SQLite's write session is one writer already), so a
        # claim and a start cannot both give the member one board of the same day.
        session.scalar(select(AccountRow.id).where(AccountRow.id == account_id).with_for_update())
        dailies = {
            (date, rules)
            for date, rules in session.execute(
                select(SoloGameRow.daily_date, SoloGameRow.rules).where(
                    SoloGameRow.account_id == account_id, SoloGameRow.daily_date.is_not(None)
                )
            )
        }
        won = 0
        refused = len(keys) - len(rows)  # unknown ids
        for row in rows:
            if row.owner_hash is None or not holds_key(row.owner_hash, keys[row.id]):
                refused += 1
            elif row.account_id == account_id:
                continue  # claimed before: nothing changes
            elif row.account_id is not None:
                refused += 1  # another member's
            elif row.daily_date is not None and (row.daily_date, row.rules) in dailies:
                refused += 1  # the member has this day's board of this preset already
            else:
                row.account_id = account_id
                if row.daily_date is not None:
                    dailies.add((row.daily_date, row.rules))
                history.guarded(session, partial(record_solo_play, session, row), row.id)
                won += 1
        return won, refused

    # -- room seats --------------------------------------------------------------------------

    def _seats(
        self,
        session: Session,
        account_id: int,
        tokens: Sequence[str],
        common: dict[str, Callable[[str], bool]],
    ) -> tuple[int, int]:
        hashes = {key_hash(token) for token in tokens}
        if hashes:
            # The seats' rooms locked first (in code order), as every room transaction locks
            # its room: a round of one being stored meanwhile either committed before (its
            # result is read below, for the plays) or waits and then sees the member's seat.
            rooms = select(RoomPlayerRow.room).where(RoomPlayerRow.token_hash.in_(list(hashes)))
            session.execute(
                select(RoomRow.code)
                .where(RoomRow.code.in_(rooms))
                .order_by(RoomRow.code)
                .with_for_update()
            ).all()
        rows = (
            session.scalars(
                select(RoomPlayerRow)
                .where(RoomPlayerRow.token_hash.in_(list(hashes)))
                .order_by(RoomPlayerRow.id)
                .with_for_update()
            ).all()
            if hashes
            else []
        )
        seated = set(
            session.scalars(
                select(RoomPlayerRow.room).where(RoomPlayerRow.account_id == account_id)
            ).all()
        )
        refused = len(hashes) - len(rows)  # unknown tokens
        claimed: dict[str, str] = {}  # room -> the seat's name
        for row in rows:
            if row.account_id == account_id:
                continue
            if row.account_id is not None or row.room in seated:
                refused += 1  # another member's seat, or a second seat in one room
                continue
            row.account_id = account_id
            seated.add(row.room)
            claimed[row.room] = row.name
        if claimed:
            self._room_plays(session, account_id, claimed, common)
        return len(claimed), refused

    def _room_plays(
        self,
        session: Session,
        account_id: int,
        claimed: dict[str, str],
        common: dict[str, Callable[[str], bool]],
    ) -> None:
        """Record the plays of the claimed seats' scored rounds (one query for them all)."""
        rounds = session.scalars(
            select(RoomRoundRow)
            .where(RoomRoundRow.room.in_(list(claimed)), RoomRoundRow.result.is_not(None))
            .order_by(RoomRoundRow.room, RoomRoundRow.number)
        ).all()
        for played in rounds:
            result = played.result
            if result is None:
                continue
            name = claimed[played.room]
            words = _dictionary_of(played)
            facts = history.facts_of_room_round(
                result, name, common.get(words or "", lambda word: False)
            )
            if facts is None:
                continue
            history.guarded(
                session,
                partial(
                    history.record_facts,
                    session,
                    account_id=account_id,
                    kind="room",
                    rules=str(played.settings.get("rules", "big")),
                    family=history.family_of_board(played.board),
                    ref=f"{played.room}/{played.number}",
                    played_at=played.ended_at if played.ended_at is not None else played.deadline,
                    daily_date=None,
                    facts=facts,
                ),
                f"round {played.number} of room {played.room}",
            )

    def _word_lists(self, tokens: Sequence[str]) -> dict[str, Callable[[str], bool]]:
        """The word lists of the rounds the seats played (fetched before any row is locked:
        fetching one may load it), as "worth learning" tests by dictionary name."""
        if not tokens:
            return {}
        hashes = [key_hash(token) for token in tokens]
        with self.store.session() as session:
            rooms = select(RoomPlayerRow.room).where(RoomPlayerRow.token_hash.in_(hashes))
            names = {
                _dictionary_of(played)
                for played in session.scalars(
                    select(RoomRoundRow).where(
                        RoomRoundRow.room.in_(rooms), RoomRoundRow.result.is_not(None)
                    )
                )
            }
        found: dict[str, Callable[[str], bool]] = {}
        for name in names:
            if name is None:
                continue
            try:
                found[name] = history.worth_learning(self.shelf.get(name))
            except Exception:  # a word list gone: the plays are kept, without missed words
                log.warning("no word list %r for a claim's missed words", name)
        return found


def _dictionary_of(played: RoomRoundRow) -> str | None:
    """The name of the word list a room's round was played with (``None`` if unreadable)."""
    try:
        return RoomSettings.from_json(played_settings(played)).dictionary_name
    except Exception:
        return None


def checked_games(games: Any, *, at_most: str = "may be claimed at once") -> list[tuple[str, str]]:
    """The claimed games, bounded: at most :data:`CLAIM_MAX_GAMES` ``(id, key)`` pairs of
    short strings (one check for every service a browser sends its games' keys to; ``at_most``
    ends the error's sentence for too many, as that service says it)."""
    if len(games) > CLAIM_MAX_GAMES:
        raise RoundInputError(f"games: at most {CLAIM_MAX_GAMES} games {at_most}")
    checked = []
    for index, pair in enumerate(games):
        game_id, key = pair
        if not (isinstance(game_id, str) and isinstance(key, str)):
            raise RoundInputError(f"games[{index}]: expected an id and a key, both strings")
        if not (1 <= len(game_id) <= 16 and 1 <= len(key) <= MAX_KEY_LENGTH):
            raise RoundInputError(f"games[{index}]: the id or key has an impossible length")
        checked.append((game_id, key))
    return checked


def _checked_seats(seats: Any) -> list[str]:
    """The claimed seats' tokens, bounded: at most :data:`CLAIM_MAX_SEATS` short strings."""
    if len(seats) > CLAIM_MAX_SEATS:
        raise RoundInputError(f"seats: at most {CLAIM_MAX_SEATS} seats may be claimed at once")
    for index, token in enumerate(seats):
        if not isinstance(token, str) or not 10 <= len(token) <= 100:
            raise RoundInputError(f"seats[{index}]: expected a seat's token")
    return list(seats)
