"""Rooms over the WebSocket protocol, through the ASGI test client: several players in a room,
private verdicts, crossing off at the end, teams and handicaps, the deadline on a clock the test
holds, resuming with a token, and an error (never a dropped connection) for every bad message.

Every message a test sends gets its id from one counter (:func:`send`), so no reply can be
taken for another's; deadlines and rate limits run on the test's clock, which a test moves only
once the server has read what came before (:func:`read_and_dropped`); each test checks one
thing."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
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
from bigboggle.limits import PRESENCE_BURST, PRESENCE_RATE, ServerLimits
from bigboggle.services.compute import run_here
from bigboggle.services.rooms import GRACE, START_DELAY, Rooms, Seat
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.store import RoomRoundRow, Store
from bigboggle.web import create_app, room_timers
from bigboggle.web.hub import Event, LocalHub
from bigboggle.web.plumbing import Services
from bigboggle.web.protocol import MAX_MESSAGE_BYTES, MESSAGE_TYPES, CloseCode
from bigboggle.web.room_guards import WindowLimit
from bigboggle.web.room_timers import FIRST_RETRY, IDLE_CHECK_SECONDS, RoomTimers
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


#: The ids the tests' messages carry: unique across a test session (so that a reply can never
#: be taken for another's), and below :data:`FUZZ_IDS`, where the fuzz draws its own.
MESSAGE_IDS = itertools.count(1)
#: The fuzz's random ids come from here up to the protocol's largest id: never a test's.
FUZZ_IDS = 2**52


def send(socket: WebSocketTestSession, message: dict[str, Any]) -> int:
    """Send ``message`` with a fresh id (no test picks one by hand); the id, to match replies."""
    message_id = next(MESSAGE_IDS)
    assert message_id < FUZZ_IDS
    socket.send_json({**message, "id": message_id})
    return message_id


def answer(socket: WebSocketTestSession, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` (with an id) and return the reply to it (verdict, error, pong, state)."""
    message_id = send(socket, message)
    for _ in range(30):
        reply = socket.receive_json()
        if reply.get("re") == message_id:
            return reply
    raise AssertionError(f"no reply to {message}")


def services(client: TestClient) -> Services:
    """The services of the client's app (its rooms, its timers)."""
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    return found


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


@contextmanager
def three_players(client: TestClient, timer: int = 60) -> Iterator[Table]:
    """A room of ann (the host, joined by her token), bob and cy (joined by name), and a round
    ann started, as bob saw it arrive: still in its start delay."""
    room = create(client, timer=timer)
    code = room["room"]
    with (
        client.websocket_connect("/ws") as ann,
        client.websocket_connect("/ws") as bob,
        client.websocket_connect("/ws") as cy,
    ):
        welcomes = {
            "ann": join(client, ann, token=room["token"]),
            "bob": join(client, bob, room=code.lower(), name="bob"),
            "cy": join(client, cy, room=code, name="cy"),
        }
        before = answer(ann, {"type": "state"})["state"]
        started = answer(ann, {"type": "start"})["state"]
        state = until(bob, "state")
        while state["state"]["round"] is None:
            state = until(bob, "state")
        yield Table(ann, bob, cy, welcomes, before, started, state["state"])


@dataclasses.dataclass
class Table:
    """Three players' sockets, their welcomes, ann's view before the round and her answer to
    "start", and the view bob got when the round arrived."""

    ann: WebSocketTestSession
    bob: WebSocketTestSession
    cy: WebSocketTestSession
    welcomes: dict[str, dict[str, Any]]
    before: dict[str, Any]
    started: dict[str, Any]
    seen: dict[str, Any]

    def words(self, standard: Dictionary) -> list[str]:
        """The round's words, best first."""
        return [f.word for f in solve(self.seen["round"]["board"], standard, Rules.preset("big"))]


def test_a_token_joins_without_a_new_token_and_a_name_gets_one(client: TestClient) -> None:
    with three_players(client) as table:
        assert table.welcomes["ann"]["player"] == "ann" and "token" not in table.welcomes["ann"]
        assert table.welcomes["bob"]["token"]


def test_every_player_is_listed_and_the_creator_hosts(client: TestClient) -> None:
    with three_players(client) as table:
        assert table.before["players"] == ["ann", "bob", "cy"]
        assert table.before["host"] == "ann"


def test_a_round_runs_its_timer_after_the_start_delay(client: TestClient) -> None:
    with three_players(client, timer=60) as table:
        assert table.started["round"] is not None
        round_ = table.seen["round"]
        assert round_["deadline"] - round_["starts_at"] == 60
        assert round_["starts_at"] - table.seen["now"] == START_DELAY


def test_a_word_in_the_start_delay_is_not_now(client: TestClient, standard: Dictionary) -> None:
    with three_players(client) as table:
        early = answer(table.ann, {"type": "submit", "word": table.words(standard)[0]})
        assert early["type"] == "error" and early["code"] == "not_now"


def test_verdicts_come_at_once_and_each_player_sees_only_their_words(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with three_players(client) as table:
        words = table.words(standard)
        clock.advance(START_DELAY)
        for socket, word in ((table.ann, words[0]), (table.bob, words[0]), (table.bob, words[1])):
            assert answer(socket, {"type": "submit", "word": word})["result"]["verdict"] == "scored"
        assert answer(table.cy, {"type": "submit", "word": "qqqq"})["result"]["verdict"] != (
            "scored"
        )
        mine = answer(table.cy, {"type": "state"})["state"]["round"]["words"]
        assert [w["word"] for w in mine] == ["qqqq"]  # nobody else's words


def test_a_word_after_the_deadline_is_refused_as_time_is_up(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with three_players(client, timer=60) as table:
        clock.advance(START_DELAY + 60)
        late = answer(table.bob, {"type": "submit", "word": table.words(standard)[2]})
        assert late["code"] == "not_now" and "time is up" in late["message"]


def test_everyone_gets_the_same_results_with_shared_words_crossed_off(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with three_players(client, timer=60) as table:
        words = table.words(standard)
        clock.advance(START_DELAY)
        answer(table.ann, {"type": "submit", "word": words[0]})
        answer(table.bob, {"type": "submit", "word": words[0]})
        answer(table.bob, {"type": "submit", "word": words[1]})
        clock.advance(60 + GRACE)
        answer(table.cy, {"type": "state"})  # any request past the deadline gets the round scored
        results = {
            name: until(sock, "results") for name, sock in [("ann", table.ann), ("bob", table.bob)]
        }
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
        client.portal.call(services(client).room_timers.recheck)  # type: ignore[union-attr]
        results = until(ann, "results", limit=50)  # the room's timer scores it
        assert results["round"]["number"] == 1


@contextmanager
def grown_and_young(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> Iterator[tuple[WebSocketTestSession, WebSocketTestSession, str]]:
    """ann (team "grown") and kid (team "young", handicap 3) in a running round; a 3-letter
    word on its board."""
    room = create(client)
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as kid:
        join(client, ann, token=room["token"])
        join(client, kid, room=room["room"], name="kid")
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
        yield ann, kid, three


def test_only_the_host_configures_the_room(client: TestClient) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as kid:
        join(client, ann, token=room["token"])
        join(client, kid, room=room["room"], name="kid")
        refused = answer(kid, {"type": "configure", "settings": {"timer": 10}})
        assert refused["code"] == "not_host"


def test_a_handicap_over_the_protocol_scores_a_short_word_for_that_player_only(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with grown_and_young(client, clock, standard) as (ann, kid, three):
        assert answer(kid, {"type": "submit", "word": three})["result"]["score"] == 1
        assert answer(ann, {"type": "submit", "word": three})["result"]["verdict"] == "too_short"


def test_teams_over_the_protocol_are_scored_and_ranked_as_teams(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with grown_and_young(client, clock, standard) as (ann, kid, three):
        answer(kid, {"type": "submit", "word": three})
        answer(ann, {"type": "submit", "word": three})
        clock.advance(200)
        answer(ann, {"type": "state"})
        results = until(kid, "results")
        assert results["round"]["teams"]["young"]["score"] == 1
        assert results["standings"] == ["young", "grown"]


@contextmanager
def reloaded(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> Iterator[tuple[WebSocketTestSession, str, str]]:
    """ann scored a word in a running round, then her page reloaded: her new socket, resumed
    with her token; the board; the word."""
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        board = answer(ann, {"type": "start"})["state"]["round"]["board"]
        clock.advance(START_DELAY)
        word = solve(board, standard, Rules.preset("big")).words[0].word
        assert answer(ann, {"type": "submit", "word": word})["result"]["verdict"] == "scored"
    with client.websocket_connect("/ws") as again:  # the page reloaded
        join(client, again, token=room["token"])
        yield again, board, word


def test_a_reload_resumes_with_the_token_and_keeps_the_words(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with reloaded(client, clock, standard) as (again, board, word):
        state = answer(again, {"type": "state"})["state"]
        assert state["you"] == "ann" and state["round"]["board"] == board
        assert [w["word"] for w in state["round"]["words"]] == [word]


def test_a_word_sent_before_a_reload_is_repeated_after_it(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with reloaded(client, clock, standard) as (again, _board, word):
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


BAD_JOINS = [
    ({"type": "submit", "word": "lines"}, "not_joined"),
    ({"type": "join", "room": "ZZZZZ", "name": "x"}, "not_found"),
    ({"type": "join", "room": "FULL", "name": "bob"}, "room_full"),
    ({"type": "join", "token": "x" * 20}, "not_found"),
    ({"type": "join"}, "bad_message"),
]


@pytest.mark.parametrize(("message", "code"), BAD_JOINS, ids=[code for _, code in BAD_JOINS])
def test_joins_to_unknown_or_full_rooms_and_messages_before_joining_are_refused(
    client: TestClient, message: dict[str, Any], code: str
) -> None:
    full = create(client, max_players=1)["room"]
    if message.get("room") == "FULL":
        message = {**message, "room": full}
    with client.websocket_connect("/ws") as stranger:
        assert answer(stranger, message)["code"] == code
        assert answer(stranger, {"type": "ping"})["type"] == "pong"  # still connected


EVIL = "<img src=x onerror=alert(1)>"


def test_a_rooms_public_api_shows_the_players_and_no_token(client: TestClient) -> None:
    room = create(client, host=EVIL)
    public = client.get(f"/api/rooms/{room['room']}").json()
    assert public["players"] == [EVIL] and "token" not in json.dumps(public)
    assert public["first_round"] == 1  # a room's first game starts at round 1


def test_a_rooms_page_escapes_the_players_names(client: TestClient) -> None:
    room = create(client, host=EVIL)
    page = client.get(f"/rooms/{room['room']}")
    assert page.status_code == 200 and EVIL not in page.text


def test_an_unknown_room_is_a_404_on_the_page_and_the_api(client: TestClient) -> None:
    assert client.get("/rooms/ZZZZZ").status_code == 404
    assert client.get("/api/rooms/ZZZZZ").json()["error"].startswith("no room")


def test_a_room_with_bad_settings_is_refused_naming_the_setting(client: TestClient) -> None:
    bad = client.post("/api/rooms", json={"host": "ann", "settings": {"timer": 1}})
    assert bad.status_code == 400 and "timer" in bad.json()["error"]


def test_the_rooms_page_is_served(client: TestClient) -> None:
    assert client.get("/rooms").status_code == 200


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def _clear_of_test_ids(value: Any) -> Any:
    """A fuzzed id moved out of the tests' own (an int from 0 up to :data:`FUZZ_IDS` is moved
    above it), so that no reply to a fuzzed message can be taken for a test's."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < FUZZ_IDS:
        return value + FUZZ_IDS
    return value


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
        "id": json_values.map(_clear_of_test_ids),
        "v": json_values,
        "player": json_values,
    },
)


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One server for every example of the fuzz below (each gets a room and a connection of
    its own; starting a server per example cost most of the test's minute), with the room and
    join allowances per address raised so that 150 examples from one address are not refused."""
    db = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'fuzz.sqlite3'}"
    limits = small_limits(rooms_per_address_hour=10**6, joins_per_address_minute=10**6)
    with TestClient(create_app(db, limits=limits)) as client:
        yield client


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(messages | json_values, min_size=1, max_size=6))
def test_fuzzed_messages_never_break_the_connection_or_the_room(
    fuzz_client: TestClient, batch: list[Any]
) -> None:
    room = create(fuzz_client)
    with fuzz_client.websocket_connect("/ws") as ann:
        join(fuzz_client, ann, token=room["token"])
        for message in batch:
            ann.send_text(json.dumps(message))
        assert answer(ann, {"type": "ping"})["type"] == "pong"
        state = answer(ann, {"type": "state"})
        assert state["type"] == "state" and state["state"]["you"] == "ann"


# -- limits, host powers, timers at deadlines ------------------------------------------


def small_limits(**changed: Any) -> ServerLimits:
    return dataclasses.replace(ServerLimits(), **changed)


@contextmanager
def app_client(db: str | Store, clock: FakeClock, **limits: Any) -> Iterator[TestClient]:
    with TestClient(create_app(db, clock=clock, limits=small_limits(**limits))) as test_client:
        yield test_client


def read_and_dropped(client: TestClient, dropped: int) -> None:
    """Wait until the server has dropped ``dropped`` messages over the rate in all (it reads a
    socket's messages in order, so every message sent before the last dropped one has been
    read): the test may then move the clock, knowing no earlier message will be read on the
    moved clock."""
    wait_for(
        lambda: _refusals(client, "ws_dropped") >= dropped,
        tries=1000,
        what=lambda: _refusals(client, "ws_dropped"),
    )


def closed_with(socket: WebSocketTestSession) -> tuple[list[dict[str, Any]], int]:
    """The messages a socket gets until the server closes it, and the close code."""
    got = []
    try:
        while True:
            got.append(socket.receive_json())
    except WebSocketDisconnect as closed:
        return got, closed.code


@contextmanager
def flooded(
    db_url: str, clock: FakeClock
) -> Iterator[tuple[list[int], list[dict[str, Any]], int, WebSocketTestSession]]:
    """200 pings at once from one socket (burst 5, closed after 20 drops; the clock stands
    still, so the bucket never refills), beside an honest player, bob: the ids sent, what the
    flooding socket got, its close code, and bob's socket."""
    with app_client(db_url, clock, ws_burst=5, ws_flood_drops=20) as client:
        room = create(client)
        with client.websocket_connect("/ws") as flood, client.websocket_connect("/ws") as honest:
            join(client, honest, room=room["room"], name="bob")  # 1 of bob's 5
            sent = [send(flood, {"type": "ping"}) for _ in range(200)]
            got, code = closed_with(flood)
            yield sent, got, code, honest


def test_a_flood_is_dropped_unanswered_and_then_closed(db_url: str, clock: FakeClock) -> None:
    with flooded(db_url, clock) as (sent, got, code, _honest):
        assert code == CloseCode.POLICY
        assert [(m.get("type"), m.get("re")) for m in got[:5]] == [("pong", n) for n in sent[:5]]
        assert [m["code"] for m in got[5:]] == ["rate_limited", "flooding"]  # no reply each


def test_a_flood_leaves_the_other_players_alone(db_url: str, clock: FakeClock) -> None:
    with flooded(db_url, clock) as (_sent, _got, _code, honest):
        assert answer(honest, {"type": "ping"})["type"] == "pong"
        assert answer(honest, {"type": "state"})["state"]["you"] == "bob"


def test_a_quiet_client_is_forgiven_its_drops(db_url: str, clock: FakeClock) -> None:
    with (
        app_client(db_url, clock, ws_burst=3, ws_rate=1.0, ws_flood_drops=5) as client,
        client.websocket_connect("/ws") as socket,
    ):
        for burst in range(1, 4):  # three rounds of a burst and 4 drops each: 12 drops in all
            sent = [send(socket, {"type": "ping"}) for _ in range(7)]
            replies = [socket.receive_json() for _ in range(4)]
            assert [r.get("code", r["type"]) for r in replies] == ["pong"] * 3 + ["rate_limited"]
            assert [r["re"] for r in replies[:3]] == sent[:3]
            read_and_dropped(client, 4 * burst)
            clock.advance(3)  # quiet long enough to refill the bucket
        assert answer(socket, {"type": "ping"})["type"] == "pong"


def test_one_seat_holds_a_few_sockets_the_newest_win(db_url: str, clock: FakeClock) -> None:
    with app_client(db_url, clock, sockets_per_seat=2) as client:
        room = create(client)
        with ExitStack() as stack:
            sockets = [stack.enter_context(client.websocket_connect("/ws")) for _ in range(3)]
            for socket in sockets[:2]:
                join(client, socket, token=room["token"])
            sockets[2].send_json({"type": "join", "token": room["token"]})
            got, code = closed_with(sockets[0])  # the oldest one goes
            assert code == CloseCode.REPLACED and got[-1]["code"] == "replaced"
            until(sockets[2], "welcome")
            for socket in sockets[1:]:
                assert answer(socket, {"type": "state"})["state"]["you"] == "ann"


def test_a_socket_over_the_addresss_limit_is_closed(db_url: str, clock: FakeClock) -> None:
    with (
        app_client(db_url, clock, sockets_per_address=2) as client,
        client.websocket_connect("/ws") as one,
        client.websocket_connect("/ws") as two,
    ):
        with client.websocket_connect("/ws") as three:
            got, code = closed_with(three)
            assert code == CloseCode.POLICY and got[0]["code"] == "too_many_sockets"
        assert answer(one, {"type": "ping"})["type"] == "pong"
        assert answer(two, {"type": "ping"})["type"] == "pong"


def test_a_closed_socket_frees_its_place(db_url: str, clock: FakeClock) -> None:
    with app_client(db_url, clock, sockets_per_address=2) as client:
        with client.websocket_connect("/ws"), client.websocket_connect("/ws"):
            pass
        with client.websocket_connect("/ws") as one, client.websocket_connect("/ws") as two:
            assert answer(one, {"type": "ping"})["type"] == "pong"
            assert answer(two, {"type": "ping"})["type"] == "pong"


def test_room_creation_is_limited_per_address(db_url: str, clock: FakeClock) -> None:
    with app_client(db_url, clock, rooms_per_address_hour=2) as client:
        create(client)
        create(client)
        refused = client.post("/api/rooms", json={"host": "ann"})
        assert refused.status_code == 429 and "at most 2 an hour" in refused.json()["error"]
        assert refused.headers["Retry-After"] == "3600"


def test_room_creation_is_allowed_again_after_the_hour(db_url: str, clock: FakeClock) -> None:
    with app_client(db_url, clock, rooms_per_address_hour=2) as client:
        create(client)
        create(client)
        clock.advance(3600)
        create(client)


@contextmanager
def three_bad_guesses(db_url: str, clock: FakeClock) -> Iterator[tuple[WebSocketTestSession, str]]:
    """A socket whose address has used its 3 joins a minute on codes that name no room; the
    code of a room that exists."""
    with app_client(db_url, clock, joins_per_address_minute=3) as client:
        room = create(client)
        with client.websocket_connect("/ws") as guesser:
            for code in ("BBBBBBBBBB", "CCCCCCCCCC", "DDDDDDDDDD"):
                assert answer(guesser, {"type": "join", "room": code, "name": "x"})["code"] == (
                    "not_found"
                )
            yield guesser, room["room"]


def test_join_attempts_are_limited_per_address(db_url: str, clock: FakeClock) -> None:
    with three_bad_guesses(db_url, clock) as (guesser, code):
        refused = answer(guesser, {"type": "join", "room": code, "name": "x"})
        assert refused["code"] == "too_many_joins" and "try again in 60 s" in (refused["message"])


def test_joins_are_allowed_again_after_the_minute(db_url: str, clock: FakeClock) -> None:
    with three_bad_guesses(db_url, clock) as (guesser, code):
        clock.advance(60)
        joined = answer(guesser, {"type": "join", "room": code, "name": "x"})
        assert joined["type"] == "welcome"


def test_settings_over_the_protocol_are_for_seated_players(client: TestClient) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        ghost = answer(ann, {"type": "configure", "settings": {"handicaps": {"ghost": 3}}})
        assert ghost["code"] == "bad_input" and "'ghost' is not a player" in ghost["message"]
        state = answer(ann, {"type": "state"})["state"]
        assert state["settings"]["handicaps"] == {}


def test_a_rooms_settings_are_bounded(client: TestClient) -> None:
    huge = client.post(
        "/api/rooms",
        json={"host": "bob", "settings": {"handicaps": {f"p{n}": 3 for n in range(600)}}},
    )  # over the settings' 4 KB, under the body's 16 KB
    assert huge.status_code == 400 and "settings: 5,305 bytes" in huge.text, huge.text


def test_look_alike_names_over_the_protocol(client: TestClient) -> None:
    room = create(client, host="alice")
    with client.websocket_connect("/ws") as other:
        for name in ("alice\u200b", "ALICE", "\u0430lice"):
            refused = answer(other, {"type": "join", "room": room["room"], "name": name})
            assert refused["code"] == "bad_input", refused
    assert client.get(f"/api/rooms/{room['room']}").json()["players"] == ["alice"]


def test_only_the_host_kicks(client: TestClient) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        join(client, ann, token=room["token"])
        join(client, bob, room=room["room"], name="bob")
        assert answer(bob, {"type": "kick", "player": "ann"})["code"] == "not_host"


@contextmanager
def bob_kicked(client: TestClient) -> Iterator[tuple[str, str, dict[str, Any], list[Any], int]]:
    """ann (the host) kicked bob: the room's code, bob's token, ann's answer, what bob's socket
    got before it closed, and its close code."""
    room = create(client)
    code = room["room"]
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        join(client, ann, token=room["token"])
        bob_token = join(client, bob, room=code, name="bob")["token"]
        kicked = answer(ann, {"type": "kick", "player": "bob"})
        got, close_code = closed_with(bob)
    yield code, bob_token, kicked, got, close_code


def test_a_kicked_players_socket_is_closed_and_the_room_lists_them_no_more(
    client: TestClient,
) -> None:
    with bob_kicked(client) as (_code, _token, kicked, got, close_code):
        assert kicked["type"] == "state" and kicked["state"]["players"] == ["ann"]
        assert close_code == CloseCode.KICKED and got[-1]["code"] == "kicked"


def test_a_kicked_players_token_no_longer_works(client: TestClient) -> None:
    with (
        bob_kicked(client) as (_code, token, _kicked, _got, _close),
        client.websocket_connect("/ws") as again,
    ):
        assert answer(again, {"type": "join", "token": token})["code"] == "kicked"


def test_a_kicked_players_name_stays_taken(client: TestClient) -> None:
    with (
        bob_kicked(client) as (code, _token, _kicked, _got, _close),
        client.websocket_connect("/ws") as again,
    ):
        taken = answer(again, {"type": "join", "room": code, "name": "Bob"})
        assert taken["code"] == "bad_input" and "taken" in taken["message"]


@contextmanager
def a_word_in(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> Iterator[tuple[WebSocketTestSession, WebSocketTestSession]]:
    """ann (the host) and bob in a running round in which bob has a word: their sockets."""
    room = create(client)
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        join(client, ann, token=room["token"])
        join(client, bob, room=room["room"], name="bob")
        board = answer(ann, {"type": "start"})["state"]["round"]["board"]
        clock.advance(START_DELAY)
        word = solve(board, standard, Rules.preset("big")).words[0].word
        assert answer(bob, {"type": "submit", "word": word})["type"] == "verdict"
        yield ann, bob


def test_only_the_host_ends_the_game(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with a_word_in(client, clock, standard) as (_ann, bob):
        assert answer(bob, {"type": "end"})["code"] == "not_host"


def test_the_hosts_end_scores_the_round_for_everyone(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with a_word_in(client, clock, standard) as (ann, bob):
        ended = answer(ann, {"type": "end"})
        assert ended["state"]["over"] and ended["state"]["round"] is None
        results = until(bob, "results")
        assert results["over"] and results["winner"] == "bob"


def test_an_ended_game_starts_no_round(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with a_word_in(client, clock, standard) as (ann, _bob):
        answer(ann, {"type": "end"})
        assert answer(ann, {"type": "start"})["code"] == "not_now"


def test_the_host_role_passes_when_the_host_is_away(client: TestClient, clock: FakeClock) -> None:
    room = create(client)
    timers: RoomTimers = services(client).room_timers
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
    timers: RoomTimers = services(client).room_timers
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
        # Let the joins' own work end first (on a busy machine a thread may still be at it):
        # until half a second passes with no query, at most 10 s.
        settling: list[str] = []
        event.listen(store.engine, "before_cursor_execute", lambda *a: settling.append(a[2]))
        for _ in range(20):
            seen = len(settling)
            time.sleep(0.5)
            if len(settling) == seen:
                break
        event.listen(store.engine, "before_cursor_execute", lambda *args: queries.append(args[2]))
        time.sleep(1.5)  # the old timers polled every 0.5 s; now nothing runs
        assert queries == []


def started(client: TestClient) -> RoomTimers:
    """The app's timers, once their start-up work (in the background) is done."""
    timers: RoomTimers = services(client).room_timers
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
    monkeypatch.setattr(room_timers, "FIRST_RETRY", 0.01)  # the catch-up's pauses, shortened
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


@contextmanager
def closed_at_start_up(db_url: str, clock: FakeClock) -> Iterator[tuple[TestClient, str, str]]:
    """A room idle for 31 days, closed when the server starts: its client, code and host's
    token."""
    rooms = Rooms(Store(db_url), DictionaryShelf(), clock)
    code, token = rooms.create("ann")
    clock.advance(31 * 86_400)
    with TestClient(create_app(db_url, clock=clock)) as client:  # closed at start-up
        started(client)
        yield client, code, token


def test_a_closed_room_stays_readable(db_url: str, clock: FakeClock) -> None:
    with closed_at_start_up(db_url, clock) as (client, code, _token):
        assert client.get(f"/api/rooms/{code}").json()["closed"] is True


def test_a_closed_room_starts_no_round(db_url: str, clock: FakeClock) -> None:
    with (
        closed_at_start_up(db_url, clock) as (client, _code, token),
        client.websocket_connect("/ws") as ann,
    ):
        join(client, ann, token=token)
        refused = answer(ann, {"type": "start"})
        assert refused["code"] == "closed" and "closed after 30 days" in refused["message"]


def test_a_closed_room_takes_no_new_player(db_url: str, clock: FakeClock) -> None:
    with (
        closed_at_start_up(db_url, clock) as (client, code, _token),
        client.websocket_connect("/ws") as late,
    ):
        refused = answer(late, {"type": "join", "room": code, "name": "bob"})
        assert refused["code"] == "closed"


def test_a_host_who_never_came_hands_over_to_who_did(client: TestClient, clock: FakeClock) -> None:
    room = create(client)  # ann created the room and never opened it (or left while no server ran)
    timers: RoomTimers = services(client).room_timers
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
        "id": rng.choice([rng.randint(FUZZ_IDS, 2**53), -5, "7", None]),
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
                    token = send(socket, {"type": "ping"})
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


def _refusals(client: TestClient, reason: str) -> float:
    """How many refusals for ``reason`` ``/metrics`` counts."""
    series = f'bigboggle_refusals_total{{reason="{reason}"}} '
    for line in client.get("/metrics").text.splitlines():
        if line.startswith(series):
            return float(line.removeprefix(series))
    return 0.0


@contextmanager
def a_word_submitted(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> Iterator[WebSocketTestSession]:
    """ann alone in a room, a word submitted in its 30-second round: her socket."""
    room = create(client, timer=30)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        state = answer(ann, {"type": "start"})["state"]
        clock.advance(START_DELAY)
        word = solve(state["round"]["board"], standard, Rules.preset("big")).words[0].word
        assert answer(ann, {"type": "submit", "word": word})["type"] == "verdict"
        yield ann


def test_metrics_count_open_sockets(client: TestClient) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        assert _metric(client, "bigboggle_websockets_open") == 1
        ann.send_json({"type": "join", "token": room["token"]})  # already joined: an error
        until(ann, "error")
        assert _metric(client, "bigboggle_websockets_open") == 1  # an error closes nothing
    assert _metric(client, "bigboggle_websockets_open") == 0


def test_metrics_count_words_submitted(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with a_word_submitted(client, clock, standard):
        assert _metric(client, "bigboggle_words_submitted_total") == 1


def test_metrics_count_rounds_scored(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with a_word_submitted(client, clock, standard) as ann:
        clock.advance(30 + GRACE)
        answer(ann, {"type": "state"})  # scores the round that is due
        assert _metric(client, "bigboggle_rounds_scored_total") == 1


# -- review fixes: reads that score, retries, start-up, the host's end, limits -------------------


def refused_three_times(client: TestClient, clock: FakeClock) -> dict[str, Any]:
    """A round whose scoring the worker pool refuses three times, then does: waits for each
    retry's timer at 1 s, 2 s, 4 s (not the 30 s lease) and moves the clock to it; the
    results that come at last."""
    rooms: Rooms = services(client).rooms
    timers: RoomTimers = services(client).room_timers
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
        return until(ann, "results")


def test_a_refused_round_is_retried_soon_and_a_little_later_each_time(
    client: TestClient, clock: FakeClock
) -> None:
    assert refused_three_times(client, clock)["round"]["number"] == 1


def test_each_refusal_to_score_a_round_is_one_log_line(
    client: TestClient, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    refused_three_times(client, clock)
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
    working = app.state.services.rooms.runner

    def slow(fn: Any, /, *args: Any) -> Any:
        release.wait(10)  # a slow scoring (bounded, so a server that waits fails, not hangs)
        return working(fn, *args)

    app.state.services.rooms.runner = slow
    with TestClient(app) as client:
        assert client.get(f"/api/rooms/{code}").json()["rounds_played"] == 0  # served at once
        assert client.get(f"/api/rooms/{code}/rounds/1").status_code == 404  # being scored
        release.set()
        started(client)
        assert client.get(f"/api/rooms/{code}").json()["rounds_played"] == 1


def test_the_hosts_end_in_the_start_delay_brings_the_results_at_the_start(
    client: TestClient, clock: FakeClock
) -> None:
    timers: RoomTimers = services(client).room_timers
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
        for _ in range(4):
            send(socket, {"type": "ping"})
        replies = [socket.receive_json() for _ in range(4)]
        assert [r.get("code", r["type"]) for r in replies] == ["pong"] * 3 + ["rate_limited"]
        answered, replies = [], []
        for second in range(1, 6):  # just over the rate: one message a second gets in, one is
            clock.advance(1)  # dropped
            answered.append(send(socket, {"type": "ping"}))
            send(socket, {"type": "ping"})
            replies.append(socket.receive_json())
            read_and_dropped(client, 1 + second)
        clock.advance(0.5)  # not refilled: still the same burst
        send(socket, {"type": "ping"})  # dropped: no token
        read_and_dropped(client, 7)
        clock.advance(0.5)
        answered.append(send(socket, {"type": "ping"}))
        replies.append(socket.receive_json())
        assert [r.get("code", r["type"]) for r in replies] == ["pong"] * 6  # no error each
        assert [r["re"] for r in replies] == answered  # the first of each second's pair
        clock.advance(10)  # quiet long enough: a new burst, told again
        for _ in range(4):
            send(socket, {"type": "ping"})
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


def test_a_code_too_long_is_a_bad_message(client: TestClient) -> None:
    with client.websocket_connect("/ws") as socket:
        too_long = answer(socket, {"type": "join", "room": "B" * 25, "name": "dan"})
        assert too_long["code"] == "bad_message"


@pytest.mark.parametrize(
    ("field", "limit"),
    [("word", "MAX_ENTRY_LENGTH"), ("player", "MAX_NAME_LENGTH")],
)
def test_a_submits_fields_are_bounded_by_the_one_limits(field: str, limit: str) -> None:
    """The protocol's bound on a word (and a name) is limits.py's, the one the rooms service
    and the round engine apply, not a copy of its value."""
    from bigboggle import limits
    from bigboggle.web import protocol

    bound = getattr(limits, limit)
    fits = {"type": "submit", "word": "w", field: "a" * bound}
    assert protocol.parse(json.dumps(fits)).type == "submit"
    with pytest.raises(protocol.ProtocolError) as refused:
        protocol.parse(json.dumps({**fits, field: "a" * (bound + 1)}))
    assert refused.value.code == "bad_message" and field in refused.value.message


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        (lambda room: room.lower(), "not_now"),
        (lambda room: f"{room[:5]}-{room[5:]}", "not_now"),
        (lambda room: f" {room[:5]} {room[5:]} ", "not_now"),
        (lambda room: f"{room}!", "not_yours"),
        (lambda room: "", "not_yours"),
        (lambda room: room[:-1], "not_yours"),
    ],
    ids=["lower-case", "dashes", "spaces", "not-a-code", "empty", "another-room"],
)
def test_a_submit_naming_its_room_reads_the_code_as_the_rooms_service_does(
    client: TestClient, typed: Callable[[str], str], code: str
) -> None:
    """A word that names its own room in any typing the service reads (normal_code) is the
    seat's (here refused only for the time: no round runs); anything else is not_yours."""
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        refused = answer(ann, {"type": "submit", "word": "lines", "room": typed(room["room"])})
        assert (refused["type"], refused["code"]) == ("error", code), refused


def test_an_odd_type_is_quoted_short(client: TestClient) -> None:
    with client.websocket_connect("/ws") as socket:
        odd = answer(socket, {"type": "nope" * 1000})
        assert odd["code"] == "unknown_type" and len(odd["message"]) < 300


def test_an_odd_version_is_quoted_short(client: TestClient) -> None:
    with client.websocket_connect("/ws") as socket:
        version = answer(socket, {"type": "ping", "v": "9" * 3000})
        assert version["code"] == "bad_version" and len(version["message"]) < 300


def test_the_rooms_event_queue_is_limits_pys(clock: FakeClock) -> None:
    from bigboggle import limits
    from bigboggle.web.hub import QUEUE_LIMIT, LocalHub

    assert LocalHub().subscribe("BCDFGHJKLM").maxsize == QUEUE_LIMIT == limits.ROOM_EVENT_QUEUE


def test_the_addresses_a_window_keeps_are_limits_pys(clock: FakeClock) -> None:
    from bigboggle import limits

    window = WindowLimit(1, 60, clock)
    assert window.keys == limits.ADDRESSES_KEPT
    for n in range(limits.ADDRESSES_KEPT + 5):
        window.hit(f"10.0.{n // 256}.{n % 256}")
    assert len(window) == limits.ADDRESSES_KEPT


# -- presence and rematch ------------------------------------------------------------------------


def presence_until(
    socket: WebSocketTestSession, wanted: dict[str, str], limit: int = 30
) -> dict[str, Any]:
    """The first ``presence`` message (skipping others) whose map is ``wanted``."""
    seen = []
    for _ in range(limit):
        message = until(socket, "presence")
        seen.append(message["presence"])
        if message["presence"] == wanted:
            return message
    raise AssertionError(f"presence never became {wanted}; seen {seen}")


def test_a_player_whose_page_closes_is_offline_for_everyone_at_once(client: TestClient) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        with client.websocket_connect("/ws") as bob:
            join(client, bob, room=room["room"], name="bob")
            assert answer(ann, {"type": "state"})["state"]["presence"] == {
                "ann": "online",
                "bob": "online",
            }
        presence_until(ann, {"ann": "online", "bob": "offline"})
        assert answer(ann, {"type": "state"})["state"]["presence"]["bob"] == "offline"


def test_a_hidden_tab_is_away_for_everyone_then_online_again(client: TestClient) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        join(client, ann, token=room["token"])
        join(client, bob, room=room["room"], name="bob")
        hidden = answer(bob, {"type": "presence", "state": "away"})
        assert hidden["type"] == "presence" and hidden["presence"]["bob"] == "away"
        presence_until(ann, {"ann": "online", "bob": "away"})
        assert answer(ann, {"type": "state"})["state"]["presence"]["bob"] == "away"
        assert answer(bob, {"type": "presence", "state": "online"})["presence"]["bob"] == "online"
        presence_until(ann, {"ann": "online", "bob": "online"})


def test_presence_is_per_connection_a_tab_in_view_keeps_a_seat_online(
    client: TestClient,
) -> None:
    """bob has two tabs (one seat, two sockets): the second one hidden, then closed (a closing
    tab first says hidden), leaves him online while the first is in view; the first hidden
    too, he is away; both gone, offline."""
    room = create(client)
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        join(client, ann, token=room["token"])
        token = join(client, bob, room=room["room"], name="bob")["token"]
        with client.websocket_connect("/ws") as second:
            join(client, second, token=token)
            assert answer(second, {"type": "presence", "state": "away"})["presence"] == {
                "ann": "online",
                "bob": "online",
            }
            assert answer(second, {"type": "presence", "state": "away"})["presence"]["bob"] == (
                "online"  # said twice by one connection: still one hidden tab
            )
        presence_until(ann, {"ann": "online", "bob": "online"})
        assert answer(ann, {"type": "state"})["state"]["presence"]["bob"] == "online"
        assert answer(bob, {"type": "presence", "state": "away"})["presence"]["bob"] == "away"
        presence_until(ann, {"ann": "online", "bob": "away"})
        with client.websocket_connect("/ws") as third:  # a new tab, in view: online again
            join(client, third, token=token)
            presence_until(ann, {"ann": "online", "bob": "online"})
        presence_until(ann, {"ann": "online", "bob": "away"})  # the hidden one is left
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        assert answer(ann, {"type": "state"})["state"]["presence"]["bob"] == "offline"


def test_a_hidden_host_keeps_the_role(client: TestClient, clock: FakeClock) -> None:
    """Away is not gone: the host role passes only when the host has no connection open."""
    room = create(client)
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        join(client, ann, token=room["token"])
        join(client, bob, room=room["room"], name="bob")
        answer(ann, {"type": "presence", "state": "away"})
        clock.advance(ServerLimits().host_away * 2)
        assert services(client).rooms.hand_over_if_away(room["room"]) is None
        assert answer(bob, {"type": "state"})["state"]["host"] == "ann"


def test_presence_changes_are_limited_per_connection(client: TestClient, clock: FakeClock) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        states = itertools.cycle(["away", "online"])
        for _ in range(PRESENCE_BURST):
            assert answer(ann, {"type": "presence", "state": next(states)})["type"] == "presence"
        refused = answer(ann, {"type": "presence", "state": next(states)})
        assert refused["code"] == "rate_limited" and "presence" in refused["message"]
        clock.advance(1 / PRESENCE_RATE)
        assert answer(ann, {"type": "presence", "state": "away"})["presence"]["ann"] == "away"


def test_a_presence_change_over_the_rate_is_applied_once_the_rate_allows(
    client: TestClient, clock: FakeClock
) -> None:
    """Quick flips ending hidden: the last, refused for rate, is not lost; once the bucket
    refills the room sees ann away (she had stayed online for as long as her socket was open)."""
    room = create(client)
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        join(client, ann, token=room["token"])
        join(client, bob, room=room["room"], name="bob")
        states = itertools.cycle(["away", "online"])
        for _ in range(PRESENCE_BURST):  # ends online: an even number of flips
            assert answer(ann, {"type": "presence", "state": next(states)})["type"] == "presence"
        refused = answer(ann, {"type": "presence", "state": "away"})
        assert refused["code"] == "rate_limited" and "applied" in refused["message"]
        assert answer(ann, {"type": "state"})["state"]["presence"]["ann"] == "online"
        clock.advance(1 / PRESENCE_RATE)
        client.portal.call(services(client).room_timers.recheck)  # type: ignore[union-attr]
        seen = [answer(ann, {"type": "state"})["state"]["presence"]["ann"] for _ in range(20)]
        assert "away" in seen, seen
        assert seen[-1] == "away"
        heard = until(bob, "presence", limit=50)
        while heard["presence"]["ann"] != "away":
            heard = until(bob, "presence", limit=50)


def test_a_stale_presence_event_is_not_the_last_word(client: TestClient) -> None:
    """Two publishers' presence events may come in either order (two tabs of a seat, maybe on
    two processes): one carrying an old map, arriving last, must not leave the room seeing
    ann away while she is looking. Each connection reads the map afresh on the event."""
    room = create(client)
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as bob:
        join(client, ann, token=room["token"])
        join(client, bob, room=room["room"], name="bob")
        stale = {"kind": "presence", "presence": {"ann": "away", "bob": "online"}}
        client.portal.call(services(client).hub.publish, room["room"], stale)
        heard = until(bob, "presence")
        assert heard["presence"] == {"ann": "online", "bob": "online"}


def test_a_presence_message_is_checked(client: TestClient) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        before = answer(ann, {"type": "presence", "state": "away"})
        assert before["code"] == "not_joined"
        join(client, ann, token=room["token"])
        for bad in ({"state": "gone"}, {}, {"state": "away", "player": "bob"}):
            refused = answer(ann, {"type": "presence", **bad})
            assert refused["code"] == "bad_message", refused
        assert answer(ann, {"type": "state"})["state"]["presence"] == {"ann": "online"}


def test_a_rematch_is_the_hosts_once_the_game_is_over(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with a_word_in(client, clock, standard) as (ann, bob):
        assert answer(ann, {"type": "rematch"})["code"] == "not_now"  # not over yet
        answer(ann, {"type": "end"})
        assert answer(bob, {"type": "rematch"})["code"] == "not_host"


def test_a_rematch_starts_a_new_game_in_the_room_with_the_totals_reset(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    with a_word_in(client, clock, standard) as (ann, bob):
        answer(ann, {"type": "end"})
        over = until(bob, "results")
        assert over["over"] and over["totals"]["bob"] > 0
        again = answer(ann, {"type": "rematch"})["state"]
        assert not again["over"] and again["winner"] is None
        assert again["totals"] == {} and again["rounds_played"] == 0 and again["last"] is None
        assert over["over"] and again["first_round"] == 2
        assert again["players"] == ["ann", "bob"]
        state = until(bob, "state")["state"]
        while state["over"]:
            state = until(bob, "state")["state"]
        assert state["last"] is None and state["totals"] == {}
        started = answer(ann, {"type": "start"})["state"]
        assert started["round"]["number"] == 2  # the room's rounds go on counting
        clock.advance(START_DELAY + 200)
        client.portal.call(services(client).room_timers.recheck)  # type: ignore[union-attr]
        results = until(bob, "results")
        assert results["round"]["number"] == 2 and results["over"] is False
        now = answer(ann, {"type": "state"})["state"]
        assert now["rounds_played"] == 1 and now["first_round"] == 2
        public = client.get(f"/api/rooms/{again['room']}").json()
        assert public["rounds_played"] == 1 and public["first_round"] == 2  # round 1: the old game
        assert client.get(f"/api/rooms/{again['room']}/rounds/2").status_code == 200


def test_the_family_filter_is_a_rooms_setting(client: TestClient) -> None:
    """The room page's "Family filter" box sends ``options.family``; the room keeps it."""
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        saved = answer(ann, {"type": "configure", "settings": {"options": {"family": True}}})
        assert saved["state"]["settings"]["options"] == {"family": True}
        refused = answer(ann, {"type": "configure", "settings": {"options": {"family": "yes"}}})
        assert refused["code"] == "bad_input" and "family" in refused["message"]
