"""The SQL every part of the rooms service shares: locking a room, bumping its sequence number,
finding its current and last scored round, its seated players.

Every transaction that locks a room and its rounds or seats locks the room first
(:func:`lock_room`), so two of them can never wait for each other.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ...errors import NotFoundError, quoted
from ..members import marked_member
from ..store import AccountRow, RoomPlayerRow, RoomRoundRow, RoomRow


def lock_room(session: Session, code: str) -> RoomRow:
    """The room ``code``, locked for this transaction and read afresh;
    :class:`NotFoundError` if there is none."""
    room = session.scalar(
        select(RoomRow)
        .where(RoomRow.code == code)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    if room is None:
        raise NotFoundError(f"no room {quoted(code, 30)}")
    return room


def lock_round(session: Session, round_id: int) -> RoomRoundRow | None:
    """The round ``round_id``, locked for this transaction and read afresh (lock its room
    first, if the transaction locks that too)."""
    return session.scalar(
        select(RoomRoundRow)
        .where(RoomRoundRow.id == round_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )


def bump(session: Session, code: str) -> None:
    """Count a change to room ``code`` (its ``seq``: clients resync when it moves)."""
    session.execute(update(RoomRow).where(RoomRow.code == code).values(seq=RoomRow.seq + 1))


def seated_players(session: Session, code: str) -> list[str]:
    """The room's seated players (not the removed ones), in the order they joined."""
    return list(
        session.scalars(
            select(RoomPlayerRow.name)
            .where(RoomPlayerRow.room == code, RoomPlayerRow.kicked_at.is_(None))
            .order_by(RoomPlayerRow.id)
        ).all()
    )


def seat_accounts(session: Session, code: str) -> dict[str, int | None]:
    """Every seat the room has had (removed ones too), in join order: name -> its member's
    account id, or ``None`` for a guest's seat."""
    return {
        name: account_id
        for name, account_id in session.execute(
            select(RoomPlayerRow.name, RoomPlayerRow.account_id)
            .where(RoomPlayerRow.room == code)
            .order_by(RoomPlayerRow.id)
        )
    }


def seat_members(session: Session, code: str) -> dict[str, str]:
    """The room's seated players whose seat is a member's and who sit under their own user
    name (:func:`~bigboggle.services.members.marked_member`): seat name -> user name. A seat a
    member took (or claimed) under another name is not marked as a member's."""
    return {
        name: username
        for name, username in session.execute(
            select(RoomPlayerRow.name, AccountRow.username)
            .join(AccountRow, AccountRow.id == RoomPlayerRow.account_id)
            .where(RoomPlayerRow.room == code, RoomPlayerRow.kicked_at.is_(None))
            .order_by(RoomPlayerRow.id)
        )
        if marked_member(name, username) is not None
    }


def seat_opponents(session: Session, code: str) -> dict[str, str]:
    """The room's seated computer opponents, in join order: seat name -> strength (the mark
    every view that lists seats carries, so no name can pass for an opponent's)."""
    return {
        name: strength
        for name, strength in session.execute(
            select(RoomPlayerRow.name, RoomPlayerRow.opponent)
            .where(
                RoomPlayerRow.room == code,
                RoomPlayerRow.kicked_at.is_(None),
                RoomPlayerRow.opponent.is_not(None),
            )
            .order_by(RoomPlayerRow.id)
        )
        if strength is not None
    }


def current_round(session: Session, code: str) -> RoomRoundRow | None:
    """The room's round in play or being scored: its latest, if it has no result yet."""
    latest = session.scalars(
        select(RoomRoundRow)
        .where(RoomRoundRow.room == code)
        .order_by(RoomRoundRow.number.desc())
        .limit(1)
    ).first()
    return latest if latest is not None and latest.result is None else None


def last_scored(session: Session, code: str) -> RoomRoundRow | None:
    """The room's latest round that has a result (scored, or marked as unscorable)."""
    return session.scalars(
        select(RoomRoundRow)
        .where(RoomRoundRow.room == code, RoomRoundRow.result.is_not(None))
        .order_by(RoomRoundRow.number.desc())
        .limit(1)
    ).first()


def latest_round_ids() -> Any:
    """The id of each room's latest round (a subquery)."""
    return select(func.max(RoomRoundRow.id)).group_by(RoomRoundRow.room).scalar_subquery()


def played_settings(played: RoomRoundRow) -> dict[str, Any]:
    """The room settings a round was played by (stored with it, beside its players)."""
    return {key: value for key, value in played.settings.items() if key != "players"}


def round_players(played: RoomRoundRow) -> list[str]:
    """The players of a round: those seated when it started, in join order."""
    players: list[str] = played.settings["players"]
    return players


def seat_presence(session: Session, code: str) -> dict[str, str]:
    """Each seated player's presence, in join order: ``"online"`` (a connection open with its
    tab in view), ``"away"`` (connected, but every open connection's tab is hidden:
    ``away_since`` is set while connected only then) or ``"offline"`` (no connection open)."""
    rows = session.execute(
        select(RoomPlayerRow.name, RoomPlayerRow.sockets, RoomPlayerRow.away_since)
        .where(
            RoomPlayerRow.room == code,
            RoomPlayerRow.kicked_at.is_(None),
            RoomPlayerRow.opponent.is_(None),  # a computer opponent is never connected
        )
        .order_by(RoomPlayerRow.id)
    ).all()
    return {
        name: "offline" if not sockets else "online" if away_since is None else "away"
        for name, sockets, away_since in rows
    }
