"""Computer opponents in rooms: the host adds and removes them (bounds, errors), they take
seats marked in every view, never connect, never host, and are never rated; their lists are
made once at a round's start and stored with it, their words judged like a person's at their
own times on the server's clock (a timer, another process, or the catch-up before scoring:
the result is the same), crossed off against people's by the rules, counted in the totals.
The service on SQLite and PostgreSQL; the protocol through the ASGI test client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, select
from sqlalchemy.orm import Session
from starlette.testclient import WebSocketTestSession

from bigboggle import Dictionary, Rules, solve
from bigboggle.errors import (
    GameStateError,
    NotFoundError,
    NotHostError,
    RoomFullError,
    RoundInputError,
)
from bigboggle.limits import (
    MAX_ROOM_OPPONENTS,
    MAX_STRENGTH_LENGTH,
    OPPONENT_NEWS_INTERVAL,
    OPPONENT_WORDS_PER_TRANSACTION,
)
from bigboggle.services import jobs
from bigboggle.services.compute import run_here
from bigboggle.services.ratings import Ratings, room_contest_key
from bigboggle.services.rooms import GRACE, START_DELAY, RoomRoundScored, Rooms, Seat
from bigboggle.services.rooms.opponents import clean_plan, round_seed
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.store import (
    AccountRow,
    RatedContestRow,
    RatingEventRow,
    RatingRow,
    RoomPlayerRow,
    RoomRoundRow,
    RoomWordRow,
    Store,
)
from bigboggle.web import create_app
from bigboggle.web.plumbing import Services
from conftest import FakeClock

pytestmark = pytest.mark.once

ANN = "ann"


@pytest.fixture
def rooms(store: Store, clock: FakeClock) -> Rooms:
    return Rooms(store, DictionaryShelf(), clock)


def room_of(rooms: Rooms, **settings: Any) -> str:
    code, _ = rooms.create(ANN, {"timer": 20, **settings})
    return code


def host(code: str) -> Seat:
    return Seat(code, ANN)


def plan_of(store: Store, code: str, number: int = 1) -> dict[str, Any]:
    with store.session() as session:
        row = session.scalar(
            select(RoomRoundRow).where(RoomRoundRow.room == code, RoomRoundRow.number == number)
        )
        assert row is not None and row.opponents is not None
        return row.opponents


def words_of(store: Store, code: str, player: str) -> list[tuple[str, float, dict[str, Any]]]:
    with store.session() as session:
        return [
            (entry, at, verdict or {})
            for entry, at, verdict in session.execute(
                select(RoomWordRow.entry, RoomWordRow.at, RoomWordRow.verdict)
                .join(RoomRoundRow, RoomRoundRow.id == RoomWordRow.round_id)
                .where(RoomRoundRow.room == code, RoomWordRow.player == player)
                .order_by(RoomWordRow.id)
            )
        ]


def finish(rooms: Rooms, clock: FakeClock, code: str) -> dict[str, Any]:
    due = rooms.next_deadline(code)
    assert due is not None
    clock.now = due
    stored = rooms.end_round_if_due(code)
    assert stored is not None
    return stored


# -- seats -------------------------------------------------------------------------------------


def test_an_opponent_takes_a_marked_seat_that_is_never_connected(rooms: Rooms) -> None:
    code = room_of(rooms)
    assert rooms.add_opponent(host(code), "club") == "Club bot"
    assert rooms.add_opponent(host(code), "club") == "Club bot 2"
    view = rooms.view(host(code)).to_json()
    assert view["players"] == [ANN, "Club bot", "Club bot 2"]
    assert view["opponents"] == {"Club bot": "club", "Club bot 2": "club"}
    assert "Club bot" not in view["presence"] and view["members"] == {}
    assert rooms.public(code).to_json()["opponents"] == view["opponents"]
    # A person who calls themselves after an opponent is no opponent: the mark is the seat's.
    rooms.join(code, "Expert bot")
    assert "Expert bot" not in rooms.public(code).to_json()["opponents"]
    assert rooms.add_opponent(host(code), "expert") == "Expert bot 2"


def test_only_the_host_adds_known_strengths_within_the_rooms_size(rooms: Rooms) -> None:
    code = room_of(rooms, max_players=3)
    rooms.join(code, "bob")
    with pytest.raises(NotHostError):
        rooms.add_opponent(Seat(code, "bob"), "club")
    with pytest.raises(RoundInputError, match="beginner, casual, club, expert, solver"):
        rooms.add_opponent(host(code), "grandmaster")
    with pytest.raises(RoundInputError, match="strength"):
        rooms.add_opponent(host(code), 3)
    rooms.add_opponent(host(code), "beginner")
    with pytest.raises(RoomFullError, match="3 players"):
        rooms.add_opponent(host(code), "beginner")
    with pytest.raises(RoomFullError):  # an opponent's seat counts for a person too
        rooms.join(code, "cy")


def test_a_room_seats_at_most_max_room_opponents_opponents(rooms: Rooms) -> None:
    """However many seats the room has: each opponent's list is a solve at every start and
    its words are writes (review 16, H1)."""
    code = room_of(rooms, max_players=50)
    names = [rooms.add_opponent(host(code), "beginner") for _ in range(MAX_ROOM_OPPONENTS)]
    with pytest.raises(RoomFullError, match=f"already has {MAX_ROOM_OPPONENTS} computer opponents"):
        rooms.add_opponent(host(code), "solver")
    rooms.join(code, "bob")  # people still find seats
    rooms.remove_opponent(host(code), names[0])
    rooms.add_opponent(host(code), "solver")  # a removed one's place is free again
    assert len(rooms.public(code).to_json()["opponents"]) == MAX_ROOM_OPPONENTS


def test_removing_an_opponent_is_the_hosts_and_for_opponents_seats_only(rooms: Rooms) -> None:
    code = room_of(rooms)
    rooms.join(code, "bob")
    name = rooms.add_opponent(host(code), "casual")
    with pytest.raises(NotHostError):
        rooms.remove_opponent(Seat(code, "bob"), name)
    with pytest.raises(NotFoundError, match="no seat 'nobody'"):
        rooms.remove_opponent(host(code), "nobody")
    with pytest.raises(RoundInputError, match="person's seat"):
        rooms.remove_opponent(host(code), "bob")
    rooms.remove_opponent(host(code), name)
    assert rooms.players(code) == [ANN, "bob"]
    with pytest.raises(NotFoundError):  # removed once
        rooms.remove_opponent(host(code), name)
    # It never played a round: it leaves nothing behind, not even its name.
    assert rooms.add_opponent(host(code), "casual") == "Casual bot"


def test_the_host_role_never_passes_to_an_opponent(rooms: Rooms, clock: FakeClock) -> None:
    code = room_of(rooms)
    rooms.add_opponent(host(code), "club")
    rooms.connected(host(code))
    due = rooms.disconnected(host(code))
    assert due is not None
    clock.now = due + 1
    assert rooms.hand_over_if_away(code) is None  # nobody connected: an opponent never is
    rooms.join(code, "bob")
    assert rooms.connected(Seat(code, "bob")).new_host == "bob"  # the first person connected


# -- a round -----------------------------------------------------------------------------------


def test_the_list_is_made_once_at_the_start_and_stored_with_the_round(
    rooms: Rooms, store: Store
) -> None:
    code = room_of(rooms)
    # The solver: in a 20-second round a person-like opponent may write nothing at all.
    name = rooms.add_opponent(host(code), "solver")
    started = rooms.start_round(host(code), seed=11)
    assert name in started.players
    plan = plan_of(store, code)
    with store.session() as session:
        seed = session.scalar(select(RoomPlayerRow.opponent_seed).where(RoomPlayerRow.name == name))
    assert seed is not None
    made = jobs.opponent_entries(
        rooms.shelf.spec, "standard", "big", {"timer": 20, "teams": None}, started.board,
        "solver", round_seed(seed, 1), 20.0,
    )  # fmt: skip
    assert plan["lists"][name] == clean_plan(made, 20.0) and plan["lists"][name]
    assert plan["played"] == {name: 0} and plan["strengths"] == {name: "solver"}
    assert all(0 < at < 20 for at, _ in plan["lists"][name])


def test_a_start_refused_makes_no_list(rooms: Rooms) -> None:
    """Refusals come before any work on the board: a list is made only for a round started."""
    code = room_of(rooms)
    rooms.join(code, "bob")
    rooms.add_opponent(host(code), "club")
    jobs_run: list[Any] = []
    rooms.runner = lambda fn, /, *args: jobs_run.append(fn) or run_here(fn, *args)
    with pytest.raises(NotHostError):
        rooms.start_round(Seat(code, "bob"))
    rooms.start_round(host(code))
    with pytest.raises(GameStateError, match="already running"):
        rooms.start_round(host(code))
    assert jobs_run == [jobs.opponent_entries]


def test_words_arrive_at_their_own_times_through_the_judge(
    rooms: Rooms, store: Store, clock: FakeClock
) -> None:
    code = room_of(rooms)
    name = rooms.add_opponent(host(code), "solver")
    started = rooms.start_round(host(code), seed=5)
    entries = plan_of(store, code)["lists"][name]
    assert rooms.play_opponents(code).submitted == 0  # the countdown: nothing due yet
    first_due = rooms.next_opponent_word(code)
    assert first_due == pytest.approx(started.starts_at + entries[0][0])
    clock.now = started.starts_at + 10
    played = rooms.play_opponents(code)
    due_by_now = [e for e in entries if e[0] <= 10]
    assert played.submitted == len(due_by_now) > 0
    assert played.next_due == pytest.approx(started.starts_at + entries[len(due_by_now)][0])
    stored = words_of(store, code, name)
    assert [(entry, at) for entry, at, _ in stored] == [
        (word, pytest.approx(started.starts_at + at)) for at, word in due_by_now
    ]
    assert {verdict["verdict"] for _, _, verdict in stored} == {"scored"}  # the solver's
    assert rooms.play_opponents(code).submitted == 0  # each word once
    counts = rooms.word_counts(code)
    assert counts == (1, {ANN: 0, name: len(due_by_now)})
    assert rooms.view(host(code)).to_json()["round"]["counts"] == {ANN: 0, name: len(due_by_now)}


def test_crossing_off_against_people_and_the_catch_up_before_scoring(
    rooms: Rooms, store: Store, clock: FakeClock, standard: Dictionary
) -> None:
    """No timer ever fires here: every word due is submitted before the round is scored, and
    a word a person and the solver both found is crossed off for both."""
    code = room_of(rooms)
    rooms.join(code, "bob")
    name = rooms.add_opponent(host(code), "solver")
    started = rooms.start_round(host(code), seed=3)
    clock.now = started.starts_at + 1
    found = [f.word for f in solve(started.board, standard, Rules.preset("big"))]
    shared, fake = found[0], "qzxqzx"
    rooms.submit(Seat(code, "bob"), shared)
    rooms.submit(Seat(code, "bob"), fake)
    stored = finish(rooms, clock, code)
    players = stored["round"]["players"]
    assert players[name]["opponent"] == "solver" and "opponent" not in players["bob"]
    solver_words = {w["word"]: w for w in players[name]["words"]}
    assert set(solver_words) == set(found)  # all caught up, none twice
    assert solver_words[shared]["verdict"] == "crossed_off"
    bob = {w["word"]: w["verdict"] for w in players["bob"]["words"]}
    assert bob[shared] == "crossed_off"
    assert stored["tally"]["scores"][name] == players[name]["score"] > 0
    assert rooms.standings(code).totals[name] == players[name]["score"]
    assert [e for e, _, _ in words_of(store, code, name)] == [
        w for _, w in plan_of(store, code)["lists"][name]
    ]
    result = rooms.round_result(code, 1).to_json()
    assert result["players"][name]["opponent"] == "solver"


def test_another_process_and_a_timer_submit_the_same_words_once(
    rooms: Rooms, store: Store, clock: FakeClock
) -> None:
    code = room_of(rooms)
    name = rooms.add_opponent(host(code), "solver")  # words all through a 20-second round
    started = rooms.start_round(host(code), seed=9)
    other = Rooms(store, DictionaryShelf(), clock)  # another process on the same database
    clock.now = started.starts_at + 5
    first = rooms.play_opponents(code).submitted
    clock.now = started.starts_at + 12
    second = other.play_opponents(code).submitted
    assert rooms.play_opponents(code).submitted == 0
    stored = finish(other, clock, code)
    entries = plan_of(store, code)["lists"][name]
    assert first and second and first + second == len([e for e in entries if e[0] <= 12])
    assert [w["word"] for w in stored["round"]["players"][name]["words"]] == [
        word for _, word in entries
    ]


def test_an_opponent_added_during_a_round_plays_the_next(
    rooms: Rooms, store: Store, clock: FakeClock
) -> None:
    code = room_of(rooms)
    started = rooms.start_round(host(code), seed=2)
    name = rooms.add_opponent(host(code), "casual")
    assert name not in started.players
    assert rooms.next_opponent_word(code) is None
    stored = finish(rooms, clock, code)
    assert name not in stored["round"]["players"]
    assert name in rooms.start_round(host(code), seed=4).players
    assert name in plan_of(store, code, 2)["lists"]


def test_a_removed_opponent_plays_no_more_words(
    rooms: Rooms, store: Store, clock: FakeClock
) -> None:
    code = room_of(rooms)
    name = rooms.add_opponent(host(code), "solver")
    started = rooms.start_round(host(code), seed=6)
    clock.now = started.starts_at + 6
    played = rooms.play_opponents(code).submitted
    rooms.remove_opponent(host(code), name)
    assert rooms.next_opponent_word(code) is None
    stored = finish(rooms, clock, code)
    assert len(stored["round"]["players"][name]["words"]) == played  # its words stay
    assert rooms.view(host(code)).to_json()["opponents"] == {}


def test_removing_an_opponent_with_words_due_drops_them_and_the_round_is_scored(
    rooms: Rooms, store: Store, clock: FakeClock
) -> None:
    """Words of the removed opponent that were due but not yet played when it was removed
    are dropped, never an error that rolls back the others' words or wedges the scoring
    (review 16, M1): both the timer's path and the catch-up before scoring."""
    code = room_of(rooms)
    gone = rooms.add_opponent(host(code), "solver")
    stays = rooms.add_opponent(host(code), "solver")
    started = rooms.start_round(host(code), seed=6)
    lists = plan_of(store, code)["lists"]
    clock.now = started.starts_at + 3
    assert rooms.play_opponents(code).submitted > 0
    kept = len(words_of(store, code, gone))
    clock.now = started.starts_at + 6  # more words of both are due; no timer has played them
    assert any(3 < at <= 6 for at, _ in lists[gone])
    rooms.remove_opponent(host(code), gone)
    played = rooms.play_opponents(code)  # the timer: the other's words only
    assert played.submitted == len([at for at, _ in lists[stays] if 3 < at <= 6])
    stored = finish(rooms, clock, code)  # the catch-up: the other's words to the deadline
    players = stored["round"]["players"]
    assert kept > 0 and len(players[gone]["words"]) == kept  # its words so far stay
    assert [w["word"] for w in players[stays]["words"]] == [word for _, word in lists[stays]]
    assert rooms.start_round(host(code)).number == 2  # the room goes on


def seats_of(store: Store, code: str) -> list[tuple[str, bool]]:
    """The room's seat rows: (name, removed), in join order."""
    with store.session() as session:
        return [
            (name, kicked is not None)
            for name, kicked in session.execute(
                select(RoomPlayerRow.name, RoomPlayerRow.kicked_at)
                .where(RoomPlayerRow.room == code)
                .order_by(RoomPlayerRow.id)
            )
        ]


def test_an_opponent_removed_before_it_played_leaves_no_seat_behind(
    rooms: Rooms, store: Store, clock: FakeClock
) -> None:
    """Adding and removing opponents leaves no row for ever (review 16, L7); one that was in
    a round keeps its removed seat, whose name its results use."""
    code = room_of(rooms)
    for _ in range(20):
        rooms.remove_opponent(host(code), rooms.add_opponent(host(code), "club"))
    assert seats_of(store, code) == [(ANN, False)]
    name = rooms.add_opponent(host(code), "solver")
    started = rooms.start_round(host(code), seed=4)
    late = rooms.add_opponent(host(code), "club")  # seated during the round: not in it
    clock.now = started.starts_at + 2
    rooms.remove_opponent(host(code), late)
    rooms.remove_opponent(host(code), name)
    assert seats_of(store, code) == [(ANN, False), (name, True)]
    stored = finish(rooms, clock, code)
    assert stored["round"]["players"][name]["opponent"] == "solver"
    assert rooms.add_opponent(host(code), "solver") == "Solver bot 2"  # its name stays taken


def test_words_due_at_once_are_stored_in_bounded_transactions_each_list_read_once(
    rooms: Rooms, store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catch-up before scoring stores hundreds of words (no timer fired) in
    transactions of at most OPPONENT_WORDS_PER_TRANSACTION words, so other writes get in
    between, and reads each opponent's stored words once a transaction, not once a word
    (review 16, H1: 9,048 words in one transaction of ~5 minutes)."""
    code = room_of(rooms, rules="superbig", timer=15)
    names = [rooms.add_opponent(host(code), "solver") for _ in range(2)]
    started = rooms.start_round(host(code), seed=7)
    lists = plan_of(store, code)["lists"]
    total = sum(len(lists[name]) for name in names)
    assert total > OPPONENT_WORDS_PER_TRANSACTION  # more than one transaction's worth

    def count_words() -> int:
        with store.session() as session:
            return len(session.scalars(select(RoomWordRow.id)).all())

    per_transaction: list[int] = []
    write_session = store.write_session

    @contextmanager
    def counted() -> Iterator[Session]:
        before = count_words()
        with write_session() as session:
            yield session
        per_transaction.append(count_words() - before)

    reads: list[str] = []  # statements reading one player's words of a round

    def on_execute(*args: Any) -> None:
        statement = " ".join(str(args[2]).split())
        if statement.startswith("SELECT") and "room_words.player =" in statement:
            reads.append(statement)

    monkeypatch.setattr(store, "write_session", counted)
    event.listen(store.engine, "before_cursor_execute", on_execute)
    try:
        clock.now = started.deadline + GRACE
        stored = rooms.end_round_if_due(code)
    finally:
        event.remove(store.engine, "before_cursor_execute", on_execute)
    assert stored is not None
    assert sum(len(stored["round"]["players"][name]["words"]) for name in names) == total
    batches = [n for n in per_transaction if n]
    assert sum(batches) == total and max(batches) <= OPPONENT_WORDS_PER_TRANSACTION
    assert len(batches) == -(-total // OPPONENT_WORDS_PER_TRANSACTION)
    assert 0 < len(reads) <= len(names) * len(batches)  # each list once a transaction


def test_the_host_ending_the_game_stops_the_words_at_the_end(
    rooms: Rooms, store: Store, clock: FakeClock
) -> None:
    code = room_of(rooms)
    name = rooms.add_opponent(host(code), "solver")
    started = rooms.start_round(host(code), seed=8)
    clock.now = started.starts_at + 7
    stored = rooms.end_game(host(code))
    assert stored is not None
    entries = plan_of(store, code)["lists"][name]
    assert len(stored["round"]["players"][name]["words"]) == len([e for e in entries if e[0] < 7])


# -- never rated -------------------------------------------------------------------------------


def test_opponents_count_in_the_totals_and_are_never_rated(
    store: Store, clock: FakeClock, standard: Dictionary
) -> None:
    rooms = Rooms(store, DictionaryShelf(), clock)
    ratings = Ratings(store, clock)
    heard: list[RoomRoundScored] = []
    rooms.on_round_scored.append(heard.append)
    rooms.on_round_scored.append(ratings.on_room_round)
    ids = {}
    with store.session() as session:
        for person in ("ann", "bob"):
            row = AccountRow(username=person, name_key=person, created_at=0.0)
            session.add(row)
            session.flush()
            ids[person] = row.id
    code, _ = rooms.create(ANN, {"timer": 20, "rounds": 1}, account_id=ids["ann"])
    rooms.join(code, "bob", account_id=ids["bob"])
    bot = rooms.add_opponent(host(code), "solver")
    started = rooms.start_round(host(code), seed=1)
    clock.now = started.starts_at + 1
    found = [f.word for f in solve(started.board, standard, Rules.preset("big"))]
    rooms.submit(Seat(code, "ann"), found[-1])
    finish(rooms, clock, code)
    event = heard[-1]
    assert event.over and event.seats[bot] is None  # no account: not an entrant
    assert next(iter(event.totals)) == bot  # the solver wins the game
    with store.session() as session:
        rated = {r.account_id for r in session.scalars(select(RatingRow))}
        events = session.scalars(select(RatingEventRow)).all()
        assert session.get(RatedContestRow, room_contest_key(code, 1)) is not None
    assert rated == {ids["ann"], ids["bob"]}
    assert {e.account_id for e in events} == rated and len(events) == 2


# -- the protocol ------------------------------------------------------------------------------


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, clock=clock)) as test_client:
        yield test_client


_IDS = iter(range(1, 2**40))


def answer(socket: WebSocketTestSession, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` with a fresh id; the reply to it."""
    message_id = next(_IDS)
    socket.send_json({**message, "id": message_id})
    for _ in range(50):
        reply = socket.receive_json()
        if reply.get("re") == message_id:
            return reply
    raise AssertionError(f"no reply to {message}")


def until(socket: WebSocketTestSession, kind: str, limit: int = 80) -> dict[str, Any]:
    for _ in range(limit):
        message = socket.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind!r} message in {limit}")


def services(client: TestClient) -> Services:
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    return found


def test_the_protocol_adds_and_removes_opponents_with_its_error_codes(
    client: TestClient,
) -> None:
    made = client.post("/api/rooms", json={"host": ANN, "settings": {"max_players": 3}}).json()
    code = made["room"]
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        assert answer(ann, {"type": "join", "token": made["token"]})["type"] == "welcome"
        assert answer(bob, {"type": "join", "room": code, "name": "bob"})["type"] == "welcome"
        refused = answer(bob, {"type": "add_opponent", "strength": "club"})
        assert (refused["type"], refused["code"]) == ("error", "not_host")
        unknown = answer(ann, {"type": "add_opponent", "strength": "wizard"})
        assert unknown["code"] == "bad_input" and "beginner, casual, club" in unknown["message"]
        long = answer(ann, {"type": "add_opponent", "strength": "x" * (MAX_STRENGTH_LENGTH + 1)})
        assert long["code"] == "bad_message"
        added = answer(ann, {"type": "add_opponent", "strength": "club"})
        assert added["type"] == "state"
        assert added["state"]["opponents"] == {"Club bot": "club"}
        assert added["state"]["players"] == [ANN, "bob", "Club bot"]
        full = answer(ann, {"type": "add_opponent", "strength": "club"})
        assert full["code"] == "room_full"
        person = answer(ann, {"type": "remove_opponent", "seat": "bob"})
        assert person["code"] == "bad_input"
        missing = answer(ann, {"type": "remove_opponent", "seat": "nobody"})
        assert missing["code"] == "not_found"
        assert answer(bob, {"type": "remove_opponent", "seat": "Club bot"})["code"] == "not_host"
        removed = answer(ann, {"type": "remove_opponent", "seat": "Club bot"})
        assert removed["type"] == "state" and removed["state"]["opponents"] == {}
        seen = until(bob, "state")
        while seen["state"]["opponents"]:
            seen = until(bob, "state")
        assert "Club bot" not in seen["state"]["players"]
    assert client.get(f"/api/rooms/{code}").json()["opponents"] == {}


def test_the_protocol_refuses_an_opponent_past_the_rooms_limit_as_room_full(
    client: TestClient,
) -> None:
    made = client.post("/api/rooms", json={"host": ANN, "settings": {"max_players": 50}}).json()
    with client.websocket_connect("/ws") as ann:
        answer(ann, {"type": "join", "token": made["token"]})
        for _ in range(MAX_ROOM_OPPONENTS):
            assert answer(ann, {"type": "add_opponent", "strength": "beginner"})["type"] == "state"
        refused = answer(ann, {"type": "add_opponent", "strength": "beginner"})
    assert refused["code"] == "room_full"
    assert f"already has {MAX_ROOM_OPPONENTS} computer opponents" in refused["message"]


def test_words_arrive_on_the_servers_clock_and_the_results_show_them(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    made = client.post("/api/rooms", json={"host": ANN, "settings": {"timer": 20}}).json()
    code = made["room"]
    timers = services(client).room_timers
    with client.websocket_connect("/ws") as ann:
        answer(ann, {"type": "join", "token": made["token"]})
        answer(ann, {"type": "add_opponent", "strength": "solver"})
        started = answer(ann, {"type": "start"})["state"]["round"]
        board = started["board"]
        clock.now = started["starts_at"] + 4
        client.portal.call(timers.recheck)  # type: ignore[union-attr]
        counts = until(ann, "counts")
        assert counts["round"] == 1 and counts["counts"]["Solver bot"] > 0
        assert counts["seq"] is None
        # A person's word is news too (its count, never the word).
        found = [f.word for f in solve(board, standard, Rules.preset("big"))]
        assert answer(ann, {"type": "submit", "word": found[0]})["type"] == "verdict"
        assert until(ann, "counts")["counts"][ANN] == 1
        # A firing times the next for the next word, at least the news interval later.

        async def fire() -> float | None:
            await timers._play_opponents(code)
            return timers.scheduled.get((code, "opponents"))

        due = client.portal.call(fire)  # type: ignore[union-attr]
        assert due is not None and due >= clock.now + OPPONENT_NEWS_INTERVAL
        clock.now = started["deadline"] + GRACE
        client.portal.call(timers.recheck)  # type: ignore[union-attr]
        results = until(ann, "results")
    solver = results["round"]["players"]["Solver bot"]
    assert solver["opponent"] == "solver"
    words = {w["word"]: w["verdict"] for w in solver["words"]}
    assert set(words) == set(found) and words[found[0]] == "crossed_off"
    assert results["totals"]["Solver bot"] == solver["score"]


def test_a_round_whose_opponents_timer_never_fired_is_scored_with_all_their_words(
    client: TestClient, clock: FakeClock
) -> None:
    """As after a restart: the round is scored with every word due, though no timer of the
    opponent's fired."""
    made = client.post("/api/rooms", json={"host": ANN, "settings": {"timer": 10}}).json()
    with client.websocket_connect("/ws") as ann:
        answer(ann, {"type": "join", "token": made["token"]})
        answer(ann, {"type": "add_opponent", "strength": "expert"})
        started = answer(ann, {"type": "start"})["state"]["round"]
    rooms = services(client).rooms
    clock.now = started["deadline"] + GRACE + START_DELAY
    stored = rooms.end_round_if_due(made["room"])
    assert stored is not None
    with rooms.store.session() as session:
        plan = session.scalars(select(RoomRoundRow.opponents)).one()
    assert plan is not None
    assert [w["word"] for w in stored["round"]["players"]["Expert bot"]["words"]] == [
        word for _, word in plan["lists"]["Expert bot"]
    ]
    assert plan["played"]["Expert bot"] == len(plan["lists"]["Expert bot"])
