"""Guests' games becoming a member's: solo games by their keys, room seats by their tokens,
with their plays recorded; wrong keys refused, other members' games left alone, a claim made
twice changing nothing; and POST /api/me/claim over the web."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, select, text

from bigboggle import Dictionary, Rules, solve
from bigboggle.errors import RoundInputError
from bigboggle.limits import (
    CLAIM_BODY_BYTES,
    CLAIM_MAX_GAMES,
    CLAIM_MAX_SEATS,
    TRAINER_DECK_BYTES,
)
from bigboggle.services.accounts import Accounts
from bigboggle.services.claims import ClaimCounts, Claims
from bigboggle.services.rooms import START_DELAY, Rooms, Seat
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import PlayRow, RoomPlayerRow, SoloGameRow, Store
from bigboggle.web import create_app
from bigboggle.web.auth import SESSION_COOKIE
from conftest import FakeClock, make_member, postgres_schema

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


def plays(store: Store, account_id: int) -> list[tuple[str, str, int]]:
    with store.session() as session:
        return [
            (kind, ref, score)
            for kind, ref, score in session.execute(
                select(PlayRow.kind, PlayRow.ref, PlayRow.score)
                .where(PlayRow.account_id == account_id)
                .order_by(PlayRow.ref)
            )
        ]


def owner_of(store: Store, game_id: str) -> int | None:
    with store.session() as session:
        return session.scalar(select(SoloGameRow.account_id).where(SoloGameRow.id == game_id))


def test_guest_games_with_their_keys_become_the_members(
    store: Store, clock: FakeClock, standard: Dictionary
) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    claims = Claims(store, DictionaryShelf(), clock)
    ann, bob = make_member(store, "ann"), make_member(store, "bob")
    word = solve(BOARD, standard, Rules.preset("big")).words[0]
    scored = games.start("big", board=BOARD, player="guest")
    clock.advance(1)
    games.submit(scored.game.id, word.word, scored.key)
    games.finish(scored.game.id, scored.key)
    running = games.start("big", board=BOARD, player="guest")  # not scored yet
    wrong = games.start("big", board=BOARD, player="guest")
    bobs = games.start("big", board=BOARD, account_id=bob)
    daily = games.start("big", daily=True, player="guest2")
    games.finish(daily.game.id, daily.key)
    counts = claims.adopt(
        ann,
        games=[
            (scored.game.id, scored.key or ""),
            (running.game.id, running.key or ""),
            (wrong.game.id, "not-its-key"),
            (bobs.game.id, bobs.key or ""),  # another member's, even with its key
            (daily.game.id, daily.key or ""),
            ("nosuchgame", "x"),
        ],
    )
    assert counts == ClaimCounts(games=3, seats=0, refused=3)
    assert owner_of(store, scored.game.id) == ann and owner_of(store, running.game.id) == ann
    assert owner_of(store, wrong.game.id) is None and owner_of(store, bobs.game.id) == bob
    assert plays(store, ann) == sorted(
        [("solo", scored.game.id, word.score), ("daily", daily.game.id, 0)], key=lambda p: p[1]
    )
    # The claimed daily game stays under the name it was played as.
    assert games.get(daily.game.id).game.player == "guest2"
    # The running game's play is recorded when it is scored, as the member's.
    games.finish(running.game.id, running.key)
    assert ("solo", running.game.id, 0) in plays(store, ann)
    # A claim made again changes nothing.
    again = claims.adopt(ann, games=[(scored.game.id, scored.key or "")])
    assert again == ClaimCounts(games=0, seats=0, refused=0)
    assert len(plays(store, ann)) == 3


def test_one_daily_play_per_member_day_and_preset(store: Store, clock: FakeClock) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    claims = Claims(store, DictionaryShelf(), clock)
    ann = make_member(store, "ann")
    first = games.start("big", daily=True, player="guest1")
    clock.advance(1)  # the earlier game is the one kept
    second = games.start("big", daily=True, player="guest2")
    counts = claims.adopt(
        ann, games=[(first.game.id, first.key or ""), (second.game.id, second.key or "")]
    )
    assert counts == ClaimCounts(games=1, seats=0, refused=1)
    assert owner_of(store, first.game.id) == ann and owner_of(store, second.game.id) is None


def test_guest_seats_with_their_tokens_become_the_members(
    store: Store, clock: FakeClock, standard: Dictionary
) -> None:
    rooms = Rooms(store, DictionaryShelf(), clock)
    claims = Claims(store, DictionaryShelf(), clock)
    ann, bob = make_member(store, "ann"), make_member(store, "bob")
    code, host = rooms.create("guest ann")
    _, other = rooms.join(code, "guest bob")
    board = rooms.start_round(Seat(code, "guest ann"), seed=7).board
    clock.advance(START_DELAY)
    word = solve(board, standard, Rules.preset("big")).words[0]
    rooms.submit(Seat(code, "guest ann"), word.word)
    deadline = rooms.next_deadline(code)
    assert deadline is not None
    clock.now = deadline
    rooms.end_round_if_due(code)
    rooms.start_round(Seat(code, "guest ann"), seed=8)  # a round being played: scored later
    second, _ = rooms.create("second room")
    _, also_mine = rooms.join(second, "ann again")
    _, bobs_token = rooms.join(second, "b", account_id=bob)
    counts = claims.adopt(ann, seats=[host, also_mine, bobs_token, "x" * 24])
    assert counts == ClaimCounts(games=0, seats=2, refused=2)
    assert plays(store, ann) == [("room", f"{code}/1", word.score)]
    assert plays(store, bob) == []
    # The second seat in one room is refused: a member sits once per room.
    assert claims.adopt(ann, seats=[other]) == ClaimCounts(refused=1)
    assert claims.adopt(ann, seats=[host]) == ClaimCounts()  # again: nothing changes
    clock.now = (rooms.next_deadline(code) or 0) + 1
    rooms.end_round_if_due(code)
    assert [p[1] for p in plays(store, ann)] == [f"{code}/1", f"{code}/2"]
    with store.session() as session:
        held = session.scalars(
            select(RoomPlayerRow.name).where(RoomPlayerRow.account_id == ann)
        ).all()
    assert sorted(held) == ["ann again", "guest ann"]


def test_a_seat_claimed_while_its_round_is_stored_keeps_the_play(
    clock: FakeClock, standard: Dictionary
) -> None:
    """PostgreSQL (READ COMMITTED): the round's transaction has read the seat as a guest's
    and not committed yet while the guest claims the seat. The claim waits for the room, so
    it reads the stored result once the round commits: the play is the member's."""
    with postgres_schema("test_claims_race") as url:
        store = Store(url)
        try:
            claim_racing_the_round(store, clock, standard)
        finally:
            store.close()


def claim_racing_the_round(store: Store, clock: FakeClock, standard: Dictionary) -> None:
    rooms = Rooms(store, DictionaryShelf(), clock)
    claims = Claims(store, DictionaryShelf(), clock)
    ann = make_member(store, "ann")
    code, token = rooms.create("guest ann")
    board = rooms.start_round(Seat(code, "guest ann"), seed=7).board
    clock.advance(START_DELAY)
    word = solve(board, standard, Rules.preset("big")).words[0]
    rooms.submit(Seat(code, "guest ann"), word.word)
    clock.now = (rooms.next_deadline(code) or 0) + 1
    storing, held, go = threading.current_thread(), threading.Event(), threading.Event()
    backend: list[int] = []  # the round's transaction's server process

    def pause(_conn: Any, cursor: Any, statement: str, *_args: Any) -> None:
        # The round's transaction, past its read of the seats, before it commits.
        mine = threading.current_thread() is storing and not held.is_set()
        if mine and statement.startswith("UPDATE rooms"):
            backend.append(cursor.connection.info.backend_pid)
            held.set()
            go.wait()

    with ThreadPoolExecutor(2) as pool:
        event.listen(store.engine, "before_cursor_execute", pause)
        try:

            def store_round() -> None:
                nonlocal storing
                storing = threading.current_thread()
                rooms.end_round_if_due(code)

            stored = pool.submit(store_round)
            held.wait()
            claimed = pool.submit(claims.adopt, ann, seats=[token])
            while not claimed.done() and not waits_for(store, backend[0]):
                pass  # until the claim has finished or waits for the round's transaction
            go.set()
            stored.result()
            assert claimed.result() == ClaimCounts(seats=1)
        finally:
            go.set()
            event.remove(store.engine, "before_cursor_execute", pause)
    assert plays(store, ann) == [("room", f"{code}/1", word.score)]


def waits_for(store: Store, backend: int) -> bool:
    """Whether a session waits for a lock the server process ``backend`` holds (PostgreSQL)."""
    with store.engine.connect() as connection:
        return bool(
            connection.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE CAST(:backend AS integer) = ANY(pg_blocking_pids(pid))"
                ),
                {"backend": backend},
            )
        )


def test_a_claim_is_bounded(store: Store, clock: FakeClock) -> None:
    claims = Claims(store, DictionaryShelf(), clock)
    ann = make_member(store, "ann")
    with pytest.raises(RoundInputError, match=f"at most {CLAIM_MAX_GAMES}"):
        claims.adopt(ann, games=[("g", "k")] * (CLAIM_MAX_GAMES + 1))
    with pytest.raises(RoundInputError, match=f"at most {CLAIM_MAX_SEATS}"):
        claims.adopt(ann, seats=["x" * 24] * (CLAIM_MAX_SEATS + 1))
    at_most = claims.adopt(ann, games=[(f"g{i}", "k") for i in range(CLAIM_MAX_GAMES)])
    assert at_most == ClaimCounts(refused=CLAIM_MAX_GAMES)


# -- over the web ----------------------------------------------------------------------------------


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, clock=clock)) as test_client:
        yield test_client


def test_the_claim_route(client: TestClient) -> None:
    guest = client.post("/api/games", json={"board": BOARD, "player": "guest"}).json()
    room = client.post("/api/rooms", json={"host": "guest"}).json()
    body = {"games": [{"id": guest["id"], "key": guest["key"]}], "seats": [room["token"]]}
    refused = client.post("/api/me/claim", json=body)
    assert refused.status_code == 401 and "log in" in refused.json()["error"]
    found = client.app.state.services  # type: ignore[attr-defined]
    ann = make_member(found.store, "ann")
    session = Accounts(found.store, found.clock).start_session(ann, "password")
    client.cookies.set(SESSION_COOKIE, session.token)
    claimed = client.post("/api/me/claim", json=body)
    assert claimed.status_code == 200
    assert claimed.json() == {"games": 1, "seats": 1, "refused": 0}
    assert client.post("/api/me/claim", json=body).json() == {"games": 0, "seats": 0, "refused": 0}
    assert owner_of(found.store, guest["id"]) == ann
    too_many = {"games": [{"id": "g", "key": "k"}] * (CLAIM_MAX_GAMES + 1)}
    answer = client.post("/api/me/claim", json=too_many)
    assert answer.status_code == 400 and "games" in answer.json()["error"]
    huge = client.post(
        "/api/me/claim",
        # The bound is a claim's with a trainer deck (which a claim may carry).
        content=b'{"seats": ["' + b"x" * (CLAIM_BODY_BYTES + TRAINER_DECK_BYTES) + b'"]}',
        headers={"Content-Type": "application/json"},
    )
    assert huge.status_code == 413
    assert client.post("/api/me/claim", content=b"games", headers={}).status_code == 415
    cross_site = client.post("/api/me/claim", json=body, headers={"Origin": "https://evil.example"})
    assert cross_site.status_code == 403
