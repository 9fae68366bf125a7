"""Rooms over the WebSocket protocol, through the ASGI test client: several players in a room,
private verdicts, crossing off at the end, teams and handicaps, the deadline on a clock the test
holds, resuming with a token, and an error (never a dropped connection) for every bad message."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import os
import random
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event, select
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from bigboggle import Dictionary, Rules, solve
from bigboggle.errors import BudgetExceededError, BusyError
from bigboggle.limits import ServerLimits
from bigboggle.services.compute import run_here
from bigboggle.services.rooms import GRACE, START_DELAY, Rooms, Seat
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.store import RoomRoundRow, Store
from bigboggle.web import create_app
from bigboggle.web import rooms as web_rooms
from bigboggle.web.hub import Event, LocalHub
from bigboggle.web.protocol import MAX_MESSAGE_BYTES, MESSAGE_TYPES
from bigboggle.web.rooms import (
    CLOSE_KICKED,
    CLOSE_POLICY,
    CLOSE_REPLACED,
    FIRST_RETRY,
    IDLE_CHECK_SECONDS,
    RoomTimers,
    TokenBucket,
    WindowLimit,
)
from conftest import FakeClock

pytestmark = pytest.mark.once


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, clock=clock)) as test_client:
        yield test_client


def until(socket: WebSocketTestSession, kind: str, limit: int = 30) -> dict[str, Any]:
    """The next message of ``kind`` (skipping others, such as room news)."""
    for _ in range(limit):
        message = socket.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind!r} message in {limit}")


#: Message ids, unique across a test session (so that a reply can never be taken for another's).
MESSAGE_IDS = itertools.count(1)


def answer(socket: WebSocketTestSession, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` (with an id) and return the reply to it (verdict, error, pong, state)."""
    message_id = next(MESSAGE_IDS)
    socket.send_json({**message, "id": message_id})
    for _ in range(30):
        reply = socket.receive_json()
        if reply.get("re") == message_id:
            return reply
    raise AssertionError(f"no reply to {message}")


def join(client: TestClient, socket: WebSocketTestSession, **fields: Any) -> dict[str, Any]:
    socket.send_json({"type": "join", **fields})
    welcome = until(socket, "welcome")
    until(socket, "state")
    return welcome


def create(client: TestClient, host: str = "ann", **settings_: Any) -> dict[str, Any]:
    created = client.post("/api/rooms", json={"host": host, "settings": settings_})
    assert created.status_code == 201, created.text
    data: dict[str, Any] = created.json()
    return data


def test_a_round_with_three_players(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    room = create(client, timer=60)
    code = room["room"]
    with (
        client.websocket_connect("/ws") as ann,
        client.websocket_connect("/ws") as bob,
        client.websocket_connect("/ws") as cy,
    ):
        welcome = join(client, ann, token=room["token"])
        assert welcome["player"] == "ann" and "token" not in welcome
        assert join(client, bob, room=code.lower(), name="bob")["token"]
        join(client, cy, room=code, name="cy")
        started = answer(ann, {"type": "state"})  # ann's view lists everyone
        assert started["state"]["players"] == ["ann", "bob", "cy"]
        assert started["state"]["host"] == "ann"

        assert answer(ann, {"type": "start"})["state"]["round"] is not None
        state = until(bob, "state")
        while state["state"]["round"] is None:
            state = until(bob, "state")
        round_ = state["state"]["round"]
        assert round_["deadline"] - round_["starts_at"] == 60
        assert round_["starts_at"] - state["state"]["now"] == START_DELAY
        words = [f.word for f in solve(round_["board"], standard, Rules.preset("big"))]

        early = answer(ann, {"type": "submit", "word": words[0]})
        assert early["type"] == "error" and early["code"] == "not_now"
        clock.advance(START_DELAY)
        assert answer(ann, {"type": "submit", "word": words[0]})["result"]["verdict"] == "scored"
        assert answer(bob, {"type": "submit", "word": words[0]})["result"]["verdict"] == "scored"
        assert answer(bob, {"type": "submit", "word": words[1]})["result"]["verdict"] == "scored"
        assert answer(cy, {"type": "submit", "word": "qqqq"})["result"]["verdict"] != "scored"
        mine = answer(cy, {"type": "state"})["state"]["round"]["words"]
        assert [w["word"] for w in mine] == ["qqqq"]  # nobody else's words

        clock.advance(60)
        late = answer(bob, {"type": "submit", "word": words[2]})
        assert late["code"] == "not_now" and "time is up" in late["message"]
        clock.advance(GRACE)
        answer(cy, {"type": "state"})  # any request past the deadline gets the round scored
        results = {name: until(sock, "results") for name, sock in [("ann", ann), ("bob", bob)]}
        assert results["ann"]["round"] == results["bob"]["round"]
        scored = results["ann"]["round"]["players"]
        assert [w["verdict"] for w in scored["ann"]["words"]] == ["crossed_off"]
        assert [w["verdict"] for w in scored["bob"]["words"]] == ["crossed_off", "scored"]
        assert results["ann"]["totals"]["bob"] == scored["bob"]["score"] > 0
        assert results["ann"]["round"]["missed"]


def test_the_timer_ends_the_round_without_anyone_asking(
    client: TestClient, clock: FakeClock
) -> None:
    room = create(client, timer=30)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        assert answer(ann, {"type": "start"})["state"]["round"]["number"] == 1
        clock.advance(START_DELAY + 30 + GRACE)
        client.portal.call(client.app.state.timers.recheck)  # type: ignore[union-attr]
        results = until(ann, "results", limit=50)  # the room's timer scores it
        assert results["round"]["number"] == 1


def test_teams_and_handicaps_over_the_protocol(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    room = create(client)
    code = room["room"]
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as kid:
        join(client, ann, token=room["token"])
        join(client, kid, room=code, name="kid")
        configured = answer(
            ann,
            {
                "type": "configure",
                "settings": {
                    "teams": {"grown": ["ann"], "young": ["kid"]},
                    "handicaps": {"kid": 3},
                },
            },
        )
        assert configured["type"] != "error", configured
        refused = answer(kid, {"type": "configure", "settings": {"timer": 10}})
        assert refused["code"] == "not_host"
        assert answer(ann, {"type": "start"})["type"] == "state"
        board = until(kid, "state")["state"]["round"]
        while board is None:
            board = until(kid, "state")["state"]["round"]
        clock.advance(START_DELAY)
        three = next(
            f.word
            for f in solve(board["board"], standard, Rules.preset("big", min_length=3))
            if len(f.word) == 3
        )
        assert answer(kid, {"type": "submit", "word": three})["result"]["score"] == 1
        assert answer(ann, {"type": "submit", "word": three})["result"]["verdict"] == "too_short"
        clock.advance(200)
        answer(ann, {"type": "state"})
        results = until(kid, "results")
        assert results["round"]["teams"]["young"]["score"] == 1
        assert results["standings"] == ["young", "grown"]


def test_a_reload_resumes_with_the_token_and_keeps_the_words(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        board = answer(ann, {"type": "start"})["state"]["round"]["board"]
        clock.advance(START_DELAY)
        word = solve(board, standard, Rules.preset("big")).words[0].word
        assert answer(ann, {"type": "submit", "word": word})["result"]["verdict"] == "scored"
    with client.websocket_connect("/ws") as again:  # the page reloaded
        join(client, again, token=room["token"])
        state = answer(again, {"type": "state"})["state"]
        assert state["you"] == "ann" and state["round"]["board"] == board
        assert [w["word"] for w in state["round"]["words"]] == [word]
        assert answer(again, {"type": "submit", "word": word})["result"]["verdict"] == "repeated"


BAD_MESSAGES = [
    ("not json", "bad_json"),
    ("[1, 2]", "bad_message"),
    ('{"type": "dance"}', "unknown_type"),
    ('{"type": "submit", "word": "x", "v": 2}', "bad_version"),
    ('{"type": "submit"}', "bad_message"),
    ('{"type": "submit", "word": ""}', "bad_message"),
    ('{"type": "submit", "word": 5}', "bad_message"),
    ('{"type": "submit", "word": "lines", "extra": 1}', "bad_message"),
    ('{"type": "submit", "word": "lines", "player": "bob"}', "not_yours"),
    ('{"type": "submit", "word": "lines", "room": "OTHER"}', "not_yours"),
    ('{"type": "join", "room": "BCDFG", "name": "ann"}', "already_joined"),
    ('{"type": "start", "id": -1}', "bad_message"),
    ('{"type": "configure", "settings": {"timer": "soon"}}', "bad_input"),
    ('{"type": "configure", "settings": {"rules": "giant"}}', "bad_input"),
    ("x" * (MAX_MESSAGE_BYTES + 1), "too_big"),
]


@pytest.mark.parametrize(("raw", "code"), BAD_MESSAGES, ids=[code for _, code in BAD_MESSAGES])
def test_bad_messages_get_an_error_and_the_connection_keeps_working(
    client: TestClient, raw: str, code: str
) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        ann.send_text(raw)
        error = until(ann, "error")
        assert error["code"] == code, error
        assert error["message"]
        assert answer(ann, {"type": "ping"})["type"] == "pong"  # still connected
        assert answer(ann, {"type": "state"})["state"]["you"] == "ann"  # the room still works


def test_joins_to_unknown_or_full_rooms_and_messages_before_joining(client: TestClient) -> None:
    room = create(client, max_players=1)
    with client.websocket_connect("/ws") as stranger:
        assert answer(stranger, {"type": "submit", "word": "lines"})["code"] == "not_joined"
        assert answer(stranger, {"type": "join", "room": "ZZZZZ", "name": "x"})["code"] == (
            "not_found"
        )
        full = answer(stranger, {"type": "join", "room": room["room"], "name": "bob"})
        assert full["code"] == "room_full"
        assert answer(stranger, {"type": "join", "token": "x" * 20})["code"] == "not_found"
        assert answer(stranger, {"type": "join"})["code"] == "bad_message"
        assert answer(stranger, {"type": "ping"})["type"] == "pong"


def test_room_api_and_pages(client: TestClient) -> None:
    evil = "<img src=x onerror=alert(1)>"
    room = create(client, host=evil)
    public = client.get(f"/api/rooms/{room['room']}").json()
    assert public["players"] == [evil] and "token" not in json.dumps(public)
    page = client.get(f"/rooms/{room['room']}")
    assert page.status_code == 200 and evil not in page.text
    assert client.get("/rooms/ZZZZZ").status_code == 404
    assert client.get("/api/rooms/ZZZZZ").json()["error"].startswith("no room")
    bad = client.post("/api/rooms", json={"host": "ann", "settings": {"timer": 1}})
    assert bad.status_code == 400 and "timer" in bad.json()["error"]
    assert client.get("/rooms").status_code == 200


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
messages = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["join", "configure", "start", "submit", "state", "ping", "kick", "end", "x"]
        )
    },
    optional={
        "word": json_values,
        "room": json_values,
        "name": json_values,
        "token": json_values,
        "settings": json_values,
        "id": json_values,
        "v": json_values,
        "player": json_values,
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(messages | json_values, min_size=1, max_size=6))
def test_fuzzed_messages_never_break_the_connection_or_the_room(
    db_url: str, batch: list[Any]
) -> None:
    with TestClient(create_app(db_url)) as fuzz_client:
        room = create(fuzz_client)
        with fuzz_client.websocket_connect("/ws") as ann:
            join(fuzz_client, ann, token=room["token"])
            for message in batch:
                ann.send_text(json.dumps(message))
            assert answer(ann, {"type": "ping"})["type"] == "pong"
            state = answer(ann, {"type": "state"})
            assert state["type"] == "state" and state["state"]["you"] == "ann"


# -- issue 11: limits, host powers, timers at deadlines ------------------------------------------


def small_limits(**changed: Any) -> ServerLimits:
    return dataclasses.replace(ServerLimits(), **changed)


@contextmanager
def app_client(db: str | Store, clock: FakeClock, **limits: Any) -> Iterator[TestClient]:
    with TestClient(create_app(db, clock=clock, limits=small_limits(**limits))) as test_client:
        yield test_client


def closed_with(socket: WebSocketTestSession) -> tuple[list[dict[str, Any]], int]:
    """The messages a socket gets until the server closes it, and the close code."""
    got = []
    try:
        while True:
            got.append(socket.receive_json())
    except WebSocketDisconnect as closed:
        return got, closed.code


def test_a_flood_is_dropped_unanswered_and_then_closed(db_url: str, clock: FakeClock) -> None:
    with app_client(db_url, clock, ws_burst=5, ws_flood_drops=20) as client:
        room = create(client)
        with client.websocket_connect("/ws") as flood, client.websocket_connect("/ws") as honest:
            join(client, honest, room=room["room"], name="bob")  # 1 of bob's 5
            for n in range(200):  # the clock stands still: the bucket never refills
                flood.send_json({"type": "ping", "id": n})
            got, code = closed_with(flood)
            assert code == CLOSE_POLICY
            assert [m.get("type") for m in got[:5]] == ["pong"] * 5
            assert [m["code"] for m in got[5:]] == ["rate_limited", "flooding"]  # no reply each
            assert answer(honest, {"type": "ping"})["type"] == "pong"  # the others go on
            assert answer(honest, {"type": "state"})["state"]["you"] == "bob"


def test_a_quiet_client_is_forgiven_its_drops(db_url: str, clock: FakeClock) -> None:
    with (
        app_client(db_url, clock, ws_burst=3, ws_rate=1.0, ws_flood_drops=5) as client,
        client.websocket_connect("/ws") as socket,
    ):
        for _ in range(3):  # three rounds of a burst and 4 drops each: 12 drops in all
            for n in range(7):
                socket.send_json({"type": "ping", "id": n})
            replies = [socket.receive_json() for _ in range(4)]
            assert [r.get("code", r["type"]) for r in replies] == ["pong"] * 3 + ["rate_limited"]
            clock.advance(3)  # quiet long enough to refill the bucket
        assert answer(socket, {"type": "ping"})["type"] == "pong"


def test_tokens_bucket_and_windows_follow_the_clock(clock: FakeClock) -> None:
    bucket = TokenBucket(2, 0.5, clock)
    assert [bucket.take() for _ in range(3)] == [True, True, False]
    clock.advance(2)
    assert [bucket.take(), bucket.take()] == [True, False]
    clock.advance(-100)  # a clock that steps back refills nothing
    assert bucket.take() is False
    window = WindowLimit(2, 60, clock, keys=3)
    assert [window.hit("a"), window.hit("a")] == [None, None]
    assert window.hit("a") == 60
    clock.advance(59.5)
    assert window.hit("a") == 1  # at least a second
    clock.advance(0.5)
    assert window.hit("a") is None
    for n in range(100):
        window.hit(f"address-{n}")
    assert len(window) == 3  # bounded, however many addresses call


def test_one_seat_holds_a_few_sockets_the_newest_win(db_url: str, clock: FakeClock) -> None:
    with app_client(db_url, clock, sockets_per_seat=2) as client:
        room = create(client)
        with ExitStack() as stack:
            sockets = [stack.enter_context(client.websocket_connect("/ws")) for _ in range(3)]
            for socket in sockets[:2]:
                join(client, socket, token=room["token"])
            sockets[2].send_json({"type": "join", "token": room["token"]})
            got, code = closed_with(sockets[0])  # the oldest one goes
            assert code == CLOSE_REPLACED and got[-1]["code"] == "replaced"
            until(sockets[2], "welcome")
            for socket in sockets[1:]:
                assert answer(socket, {"type": "state"})["state"]["you"] == "ann"


def test_one_address_holds_a_few_sockets(db_url: str, clock: FakeClock) -> None:
    with app_client(db_url, clock, sockets_per_address=2) as client:
        with client.websocket_connect("/ws") as one, client.websocket_connect("/ws") as two:
            with client.websocket_connect("/ws") as three:
                got, code = closed_with(three)
                assert code == CLOSE_POLICY and got[0]["code"] == "too_many_sockets"
            assert answer(one, {"type": "ping"})["type"] == "pong"
            assert answer(two, {"type": "ping"})["type"] == "pong"
        with client.websocket_connect("/ws") as again:  # a closed one frees its place
            assert answer(again, {"type": "ping"})["type"] == "pong"


def test_room_creation_is_limited_per_address(db_url: str, clock: FakeClock) -> None:
    with app_client(db_url, clock, rooms_per_address_hour=2) as client:
        create(client)
        create(client)
        refused = client.post("/api/rooms", json={"host": "ann"})
        assert refused.status_code == 429 and "at most 2 an hour" in refused.json()["error"]
        assert refused.headers["Retry-After"] == "3600"
        clock.advance(3600)
        create(client)


def test_join_attempts_are_limited_per_address(db_url: str, clock: FakeClock) -> None:
    with app_client(db_url, clock, joins_per_address_minute=3) as client:
        room = create(client)
        with client.websocket_connect("/ws") as guesser:
            for code in ("BBBBBBBBBB", "CCCCCCCCCC", "DDDDDDDDDD"):
                assert answer(guesser, {"type": "join", "room": code, "name": "x"})["code"] == (
                    "not_found"
                )
            refused = answer(guesser, {"type": "join", "room": room["room"], "name": "x"})
            assert (
                refused["code"] == "too_many_joins" and "try again in 60 s" in (refused["message"])
            )
            clock.advance(60)
            joined = answer(guesser, {"type": "join", "room": room["room"], "name": "x"})
            assert joined["type"] == "welcome"


def test_settings_over_the_protocol_are_bounded_and_for_seated_players(
    client: TestClient,
) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        ghost = answer(ann, {"type": "configure", "settings": {"handicaps": {"ghost": 3}}})
        assert ghost["code"] == "bad_input" and "'ghost' is not a player" in ghost["message"]
        huge = client.post(
            "/api/rooms",
            json={"host": "bob", "settings": {"handicaps": {f"p{n}": 3 for n in range(600)}}},
        )  # over the settings' 4 KB, under the body's 16 KB
        assert huge.status_code == 400 and "settings: 5,305 bytes" in huge.text, huge.text
        state = answer(ann, {"type": "state"})["state"]
        assert state["settings"]["handicaps"] == {}


def test_look_alike_names_over_the_protocol(client: TestClient) -> None:
    room = create(client, host="alice")
    with client.websocket_connect("/ws") as other:
        for name in ("alice\u200b", "ALICE", "\u0430lice"):
            refused = answer(other, {"type": "join", "room": room["room"], "name": name})
            assert refused["code"] == "bad_input", refused
    assert client.get(f"/api/rooms/{room['room']}").json()["players"] == ["alice"]


def test_the_host_kicks_a_player_over_the_protocol(client: TestClient) -> None:
    room = create(client)
    code = room["room"]
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        join(client, ann, token=room["token"])
        bob_token = join(client, bob, room=code, name="bob")["token"]
        assert answer(bob, {"type": "kick", "player": "ann"})["code"] == "not_host"
        kicked = answer(ann, {"type": "kick", "player": "bob"})
        assert kicked["type"] == "state" and kicked["state"]["players"] == ["ann"]
        got, close_code = closed_with(bob)
        assert close_code == CLOSE_KICKED and got[-1]["code"] == "kicked"
    with client.websocket_connect("/ws") as again:
        assert answer(again, {"type": "join", "token": bob_token})["code"] == "kicked"
        taken = answer(again, {"type": "join", "room": code, "name": "Bob"})
        assert taken["code"] == "bad_input" and "taken" in taken["message"]


def test_the_host_ends_the_game_over_the_protocol(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        join(client, ann, token=room["token"])
        join(client, bob, room=room["room"], name="bob")
        board = answer(ann, {"type": "start"})["state"]["round"]["board"]
        clock.advance(START_DELAY)
        word = solve(board, standard, Rules.preset("big")).words[0].word
        assert answer(bob, {"type": "submit", "word": word})["type"] == "verdict"
        assert answer(bob, {"type": "end"})["code"] == "not_host"
        ended = answer(ann, {"type": "end"})
        assert ended["state"]["over"] and ended["state"]["round"] is None
        results = until(bob, "results")
        assert results["over"] and results["winner"] == "bob"
        assert answer(ann, {"type": "start"})["code"] == "not_now"


def test_the_host_role_passes_when_the_host_is_away(client: TestClient, clock: FakeClock) -> None:
    room = create(client)
    timers: RoomTimers = client.app.state.timers  # type: ignore[attr-defined]
    with client.websocket_connect("/ws") as bob:
        with client.websocket_connect("/ws") as ann:
            join(client, ann, token=room["token"])
            join(client, bob, room=room["room"], name="bob")
        # ann's page is gone: her absence is timed, nothing else.
        wait_for(lambda: (room["room"], "host") in client.portal.call(lambda: timers.scheduled))  # type: ignore[union-attr]
        clock.advance(ServerLimits().host_away)
        client.portal.call(timers.recheck)  # type: ignore[union-attr]
        state = until(bob, "state")
        while state["state"]["host"] != "bob":
            state = until(bob, "state")
        assert answer(bob, {"type": "start"})["type"] == "state"  # bob's powers now
        assert (room["room"], "host") not in client.portal.call(lambda: timers.scheduled)  # type: ignore[union-attr]


def wait_for(test: Any, tries: int = 200, what: Any = None) -> None:
    """Wait (briefly, without timing anything) until ``test()`` holds; ``what()`` tells what
    there was instead."""
    for _ in range(tries):
        if test():
            return
        time.sleep(0.01)
    raise AssertionError(f"the condition never held: {what() if what else ''}")


def test_a_rounds_timer_is_dropped_once_it_has_fired(client: TestClient, clock: FakeClock) -> None:
    room = create(client, timer=30)
    timers: RoomTimers = client.app.state.timers  # type: ignore[attr-defined]
    scheduled = lambda: client.portal.call(lambda: timers.scheduled)  # type: ignore[union-attr]  # noqa: E731
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        assert (room["room"], "round") not in scheduled()  # no round: no timer
        answer(ann, {"type": "start"})
        assert (room["room"], "round") in scheduled()
        clock.advance(START_DELAY + 30 + GRACE)
        client.portal.call(timers.recheck)  # type: ignore[union-attr]
        until(ann, "results")
        wait_for(lambda: (room["room"], "round") not in scheduled(), what=scheduled)
        assert set(scheduled()) == {("", "idle")}  # the daily closing of idle rooms only


def test_idle_sockets_make_no_database_queries(db_url: str, clock: FakeClock) -> None:
    store = Store(db_url)
    queries: list[str] = []
    with app_client(store, clock) as client, ExitStack() as stack:
        for n in range(10):
            room = create(client, host=f"host{n}")
            socket = stack.enter_context(client.websocket_connect("/ws"))
            join(client, socket, token=room["token"])
            answer(socket, {"type": "ping"})
        event.listen(store.engine, "before_cursor_execute", lambda *args: queries.append(args[2]))
        time.sleep(1.5)  # the old timers polled every 0.5 s; now nothing runs
        assert queries == []


def started(client: TestClient) -> RoomTimers:
    """The app's timers, once their start-up work (in the background) is done."""
    timers: RoomTimers = client.app.state.timers  # type: ignore[attr-defined]
    client.portal.call(timers.started.wait)  # type: ignore[union-attr]
    return timers


def test_rounds_overdue_at_start_up_are_scored(db_url: str, clock: FakeClock) -> None:
    rooms = Rooms(Store(db_url), DictionaryShelf(), clock)
    code, _ = rooms.create("ann", {"timer": 30})
    rooms.start_round(Seat(code, "ann"))
    clock.advance(3600)  # the server was down through the deadline
    with TestClient(create_app(db_url, clock=clock)) as client:
        started(client)
        public = client.get(f"/api/rooms/{code}").json()
        assert public["rounds_played"] == 1
        assert client.get(f"/api/rooms/{code}/rounds/1").json()["board"]
    with rooms.store.session() as session:
        assert session.scalar(select(RoomRoundRow.result)) is not None


class DeafHub(LocalHub):
    """A hub whose every publish fails, as a shared hub's does while Redis is away."""

    async def publish(self, room: str, event: Event) -> None:
        raise ConnectionError("Redis is away")


def over_budget(fn: Any, /, *args: Any) -> Any:
    """A worker pool for which every round's job exceeds its budget."""
    raise BudgetExceededError("the round's scoring ran past its budget")


async def start_up(timers: RoomTimers, clock: FakeClock) -> dict[tuple[str, str], float]:
    """Run the timers' start-up work to its end and the first closing of idle rooms (bounded,
    so that a start-up that never ends fails the test); the timers then waiting."""
    await timers.start()
    await asyncio.wait_for(timers.started.wait(), 10)
    idle = ("", "idle")
    while timers.scheduled.get(idle) != clock.now + IDLE_CHECK_SECONDS:
        await asyncio.sleep(0.01)
    scheduled = timers.scheduled
    await timers.stop()
    return scheduled


@pytest.mark.parametrize("trouble", ["publish fails", "always over budget"])
def test_start_up_ends_whatever_its_catch_up_meets(
    db_url: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, trouble: str
) -> None:
    monkeypatch.setattr(web_rooms, "FIRST_RETRY", 0.01)  # the catch-up's pauses, shortened
    deaf = trouble == "publish fails"
    rooms = Rooms(Store(db_url), DictionaryShelf(), clock, runner=run_here if deaf else over_budget)
    code, _ = rooms.create("ann", {"timer": 30})
    rooms.start_round(Seat(code, "ann"))
    clock.advance(3600)  # overdue at start-up
    timers = RoomTimers(rooms, DeafHub() if deaf else LocalHub())
    scheduled = asyncio.run(start_up(timers, clock))  # idle rooms get closed all the same
    if deaf:  # scored all the same; the players see it when they resync
        assert rooms.public(code).to_json()["rounds_played"] == 1
        assert (code, "round") not in scheduled
    else:  # left to the room's round timer, which retries with backoff
        assert rooms.public(code).to_json()["rounds_played"] == 0
        assert (code, "round") in scheduled


def test_a_running_round_gets_its_timer_at_start_up(db_url: str, clock: FakeClock) -> None:
    rooms = Rooms(Store(db_url), DictionaryShelf(), clock)
    code, _ = rooms.create("ann", {"timer": 30})
    begun = rooms.start_round(Seat(code, "ann"))
    with TestClient(create_app(db_url, clock=clock)) as client:
        timers = started(client)
        scheduled = client.portal.call(lambda: timers.scheduled)  # type: ignore[union-attr]
        assert scheduled[(code, "round")] == begun.deadline + GRACE


def test_a_closed_room_refuses_play_and_stays_readable(db_url: str, clock: FakeClock) -> None:
    rooms = Rooms(Store(db_url), DictionaryShelf(), clock)
    code, token = rooms.create("ann")
    clock.advance(31 * 86_400)
    with TestClient(create_app(db_url, clock=clock)) as client:  # closed at start-up
        started(client)
        assert client.get(f"/api/rooms/{code}").json()["closed"] is True
        with client.websocket_connect("/ws") as ann:
            join(client, ann, token=token)
            refused = answer(ann, {"type": "start"})
            assert refused["code"] == "closed" and "closed after 30 days" in refused["message"]
        with client.websocket_connect("/ws") as late:
            refused = answer(late, {"type": "join", "room": code, "name": "bob"})
            assert refused["code"] == "closed"


def test_a_host_who_never_came_hands_over_to_who_did(client: TestClient, clock: FakeClock) -> None:
    room = create(client)  # ann created the room and never opened it (or left while no server ran)
    timers: RoomTimers = client.app.state.timers  # type: ignore[attr-defined]
    with client.websocket_connect("/ws") as bob:
        join(client, bob, room=room["room"], name="bob")
        scheduled = client.portal.call(lambda: timers.scheduled)  # type: ignore[union-attr]
        assert scheduled[(room["room"], "host")] == clock.now + ServerLimits().host_away
        clock.advance(ServerLimits().host_away)
        client.portal.call(timers.recheck)  # type: ignore[union-attr]
        state = until(bob, "state")
        while state["state"]["host"] != "bob":
            state = until(bob, "state")


#: Messages the room-protocol fuzz sends (BIGBOGGLE_FUZZ_MESSAGES=20000 for the long run).
FUZZ_MESSAGES = int(os.environ.get("BIGBOGGLE_FUZZ_MESSAGES") or 600)


def fuzz_message(rng: random.Random) -> str:
    """One frame for the room protocol: mostly messages of a known type with odd fields."""
    oddities: list[Any] = [
        None,
        True,
        -1,
        2**63,
        1.5,
        "",
        "x" * rng.randint(1, 300),
        "\u0000\u200b\ud7ff",
        "ＡＢＣ",
        [1, [2, [3]]],
        {"a": {"b": {"c": []}}},
        rng.choice(["lines", "qzqz", "BCDFGHJKLM", "bcdfg-hjklm", "ann"]),
    ]
    kind = rng.random()
    if kind < 0.05:
        return rng.choice(["", "{", "[]", "null", '"x"', "{" * 50 + "}" * 50, "\ufeff{}"])
    message: dict[str, Any] = {
        "type": rng.choice((*MESSAGE_TYPES, "dance")),
        "id": rng.choice([rng.randint(0, 2**53), -5, "7", None]),
    }
    for key in rng.sample(["word", "room", "name", "token", "settings", "player", "v", "since"], 3):
        if rng.random() < 0.5:
            message[key] = rng.choice(oddities)
    if message["type"] == "configure" and rng.random() < 0.7:
        message["settings"] = {
            rng.choice(
                ["timer", "rules", "handicaps", "teams", "target", "options", "max_players"]
            ): (rng.choice(oddities))
        }
    if message["type"] == "end" and rng.random() < 0.9:
        message["type"] = "ping"  # ending the game ends the fun: rarely
    if message["type"] == "kick":
        message["player"] = rng.choice(["ann", "nobody", "", "x" * 50, 5])
    return json.dumps(message)


def test_a_fuzz_of_the_room_protocol_never_breaks_a_connection(
    db_url: str, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(11)
    limits = {"ws_burst": 10**6, "joins_per_address_minute": 10**6}
    with app_client(db_url, clock, **limits) as client:
        room = create(client)
        with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
            join(client, ann, token=room["token"])
            join(client, bob, room=room["room"], name="bob")
            sent = 0
            while sent < FUZZ_MESSAGES:
                for socket in (ann, bob):
                    for _ in range(10):
                        socket.send_text(fuzz_message(rng))
                        sent += 1
                    got = []
                    reply = {"type": None}
                    token = next(MESSAGE_IDS)
                    socket.send_json({"type": "ping", "id": token})
                    while reply.get("re") != token or reply["type"] != "pong":
                        reply = socket.receive_json()
                        got.append(reply)
                    assert not [m for m in got if m.get("code") == "internal"], got
                clock.advance(rng.choice([0, 0, 1, 30, 200]))
            for socket, name in ((ann, "ann"), (bob, "bob")):
                assert answer(socket, {"type": "state"})["state"]["you"] == name
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


def _metric(client: TestClient, name: str) -> float:
    """The value of an unlabelled series (or the sum of a labelled one) on ``/metrics``."""
    total = 0.0
    for line in client.get("/metrics").text.splitlines():
        if line.startswith(name) and not line.startswith("#"):
            series, _, value = line.rpartition(" ")
            if series == name or series.startswith(name + "{"):
                total += float(value)
    return total


def test_metrics_count_sockets_words_rounds_and_refusals(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    room = create(client, timer=30)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        assert _metric(client, "bigboggle_websockets_open") == 1
        state = answer(ann, {"type": "start"})["state"]
        clock.advance(START_DELAY)
        word = solve(state["round"]["board"], standard, Rules.preset("big")).words[0].word
        assert answer(ann, {"type": "submit", "word": word})["type"] == "verdict"
        assert _metric(client, "bigboggle_words_submitted_total") == 1
        clock.advance(30 + GRACE)
        answer(ann, {"type": "state"})  # scores the round that is due
        assert _metric(client, "bigboggle_rounds_scored_total") == 1
        ann.send_json({"type": "join", "token": room["token"]})  # already joined: an error
        until(ann, "error")
    assert _metric(client, "bigboggle_websockets_open") == 0


# -- review fixes: reads that score, retries, start-up, the host's end, limits -------------------


def test_a_refused_round_is_retried_soon_and_a_little_later_each_time(
    client: TestClient, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    rooms: Rooms = client.app.state.rooms  # type: ignore[attr-defined]
    timers: RoomTimers = client.app.state.timers  # type: ignore[attr-defined]
    scheduled = lambda: client.portal.call(lambda: timers.scheduled)  # type: ignore[union-attr]  # noqa: E731
    refusals = [BusyError("the pool is full", retry_after=1) for _ in range(3)]
    working = rooms.runner

    def refusing(fn: Any, /, *args: Any) -> Any:
        if refusals:
            raise refusals.pop()
        return working(fn, *args)

    rooms.runner = refusing
    room = create(client, timer=30)
    key = (room["room"], "round")
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        answer(ann, {"type": "start"})
        clock.advance(START_DELAY + 30 + GRACE)
        for delay in (FIRST_RETRY, 2 * FIRST_RETRY, 4 * FIRST_RETRY):  # not the 30 s lease
            client.portal.call(timers.recheck)  # type: ignore[union-attr]
            wait_for(lambda d=delay: scheduled().get(key) == clock.now + d, what=scheduled)
            clock.advance(delay)
        client.portal.call(timers.recheck)  # type: ignore[union-attr]
        assert until(ann, "results")["round"]["number"] == 1
    refused = [r for r in caplog.records if "refused to score" in r.getMessage()]
    assert len(refused) == 3 and all(r.exc_info is None for r in refused)  # one line each


def test_start_up_scores_in_the_background_and_serves_at_once(
    db_url: str, clock: FakeClock
) -> None:
    rooms = Rooms(Store(db_url), DictionaryShelf(), clock)
    code, _ = rooms.create("ann", {"timer": 30})
    rooms.start_round(Seat(code, "ann"))
    clock.advance(3600)  # overdue at start-up
    release = threading.Event()
    app = create_app(db_url, clock=clock)
    working = app.state.rooms.runner

    def slow(fn: Any, /, *args: Any) -> Any:
        release.wait(10)  # a slow scoring (bounded, so a server that waits fails, not hangs)
        return working(fn, *args)

    app.state.rooms.runner = slow
    with TestClient(app) as client:
        assert client.get(f"/api/rooms/{code}").json()["rounds_played"] == 0  # served at once
        assert client.get(f"/api/rooms/{code}/rounds/1").status_code == 404  # being scored
        release.set()
        started(client)
        assert client.get(f"/api/rooms/{code}").json()["rounds_played"] == 1


def test_the_hosts_end_in_the_start_delay_brings_the_results_at_the_start(
    client: TestClient, clock: FakeClock
) -> None:
    timers: RoomTimers = client.app.state.timers  # type: ignore[attr-defined]
    scheduled = lambda: client.portal.call(lambda: timers.scheduled)  # type: ignore[union-attr]  # noqa: E731
    room = create(client, timer=3000)
    key = (room["room"], "round")
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        starts_at = answer(ann, {"type": "start"})["state"]["round"]["starts_at"]
        assert answer(ann, {"type": "end"})["state"]["over"]  # before the round starts
        wait_for(lambda: scheduled().get(key) == starts_at + GRACE, what=scheduled)
        clock.advance(START_DELAY + GRACE)
        client.portal.call(timers.recheck)  # type: ignore[union-attr]
        results = until(ann, "results")
        assert results["over"] and results["round"]["number"] == 1


def test_rate_limited_is_told_once_per_burst(db_url: str, clock: FakeClock) -> None:
    with (
        app_client(db_url, clock, ws_burst=3, ws_rate=1.0, ws_flood_drops=50) as client,
        client.websocket_connect("/ws") as socket,
    ):
        for n in range(4):
            socket.send_json({"type": "ping", "id": n})
        replies = [socket.receive_json() for _ in range(4)]
        assert [r.get("code", r["type"]) for r in replies] == ["pong"] * 3 + ["rate_limited"]
        for _ in range(5):  # just over the rate: one message a second gets in, one is dropped
            clock.advance(1)
            socket.send_json({"type": "ping", "id": 10})
            socket.send_json({"type": "ping", "id": 11})
        clock.advance(0.5)  # not refilled: still the same burst
        socket.send_json({"type": "ping", "id": 12})  # dropped: no token
        clock.advance(0.5)
        socket.send_json({"type": "ping", "id": 13})
        replies = [socket.receive_json() for _ in range(6)]
        assert [r.get("code", r["type"]) for r in replies] == ["pong"] * 6  # no error each
        clock.advance(10)  # quiet long enough: a new burst, told again
        for n in range(4):
            socket.send_json({"type": "ping", "id": n})
        replies = [socket.receive_json() for _ in range(4)]
        assert [r.get("code", r["type"]) for r in replies] == ["pong"] * 3 + ["rate_limited"]


def test_a_code_typed_with_spaces_or_dashes_joins(client: TestClient) -> None:
    code = create(client)["room"]
    spaced = " ".join(code[i : i + 2] for i in range(0, len(code), 2))  # BC DF GH JK LM
    dashed = f"{code[:5].lower()} - {code[5:].lower()}"
    for typed, name in ((spaced, "bob"), (dashed, "cy")):
        with client.websocket_connect("/ws") as socket:
            welcome = answer(socket, {"type": "join", "room": typed, "name": name})
            assert welcome["type"] == "welcome" and welcome["room"] == code, welcome
    with client.websocket_connect("/ws") as socket:
        too_long = answer(socket, {"type": "join", "room": "B" * 25, "name": "dan"})
        assert too_long["code"] == "bad_message"
        odd = answer(socket, {"type": "nope" * 1000})
        assert odd["code"] == "unknown_type" and len(odd["message"]) < 300
        version = answer(socket, {"type": "ping", "v": "9" * 3000})
        assert version["code"] == "bad_version" and len(version["message"]) < 300


def test_the_web_rooms_limits_come_from_limits_py(clock: FakeClock) -> None:
    from bigboggle import limits
    from bigboggle.web.hub import QUEUE_LIMIT, LocalHub

    assert LocalHub().subscribe("BCDFGHJKLM").maxsize == QUEUE_LIMIT == limits.ROOM_EVENT_QUEUE
    window = WindowLimit(1, 60, clock)
    assert window.keys == limits.ADDRESSES_KEPT
    for n in range(limits.ADDRESSES_KEPT + 5):
        window.hit(f"10.0.{n // 256}.{n % 256}")
    assert len(window) == limits.ADDRESSES_KEPT
