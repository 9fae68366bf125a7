"""Members' history: the plays recorded when a member's solo game, daily board or room round
is scored (once each), the missed-words summary, and the rooms' hook that tells listeners
(the ratings) of each scored round and of each game's end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bigboggle.services.rooms import START_DELAY, RoomRoundScored, Rooms, Seat
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.store import Store
from conftest import FakeClock, postgres_schema

pytestmark = pytest.mark.once


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, db_url: str) -> Iterator[str]:
    """A fresh database: a SQLite file, or a PostgreSQL schema (skipped without one)."""
    if request.param == "sqlite":
        yield db_url
    else:
        with postgres_schema("test_history") as url:
            yield url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    opened = Store(store_url)
    yield opened
    opened.close()


def play_room_round(rooms: Rooms, clock: FakeClock, code: str, words: dict[str, list[str]]) -> None:
    """One round of room ``code`` (hosted by ann), ``words`` played, scored at its deadline."""
    rooms.start_round(Seat(code, "ann"), seed=7)
    clock.advance(START_DELAY)
    for player, entries in words.items():
        for entry in entries:
            rooms.submit(Seat(code, player), entry)
    deadline = rooms.next_deadline(code)
    assert deadline is not None
    clock.now = deadline
    assert rooms.end_round_if_due(code) is not None


def test_the_hook_hears_each_round_once_and_the_end_of_the_game(
    store: Store, clock: FakeClock
) -> None:
    rooms = Rooms(store, DictionaryShelf(), clock)
    heard: list[RoomRoundScored] = []
    rooms.on_round_scored.append(heard.append)
    code, _ = rooms.create("ann", {"rounds": 2})
    rooms.join(code, "bob")
    play_room_round(rooms, clock, code, {})
    assert rooms.end_round_if_due(code, grace=False) is None  # nothing more to score
    assert [(e.number, e.first_round, e.over, e.rules) for e in heard] == [(1, 1, False, "big")]
    assert heard[0].seats == {"ann": None, "bob": None}
    assert set(heard[0].result["round"]["players"]) == {"ann", "bob"}
    play_room_round(rooms, clock, code, {})
    assert [(e.number, e.over) for e in heard] == [(1, False), (2, True)]
    assert set(heard[1].totals) == {"ann", "bob"}


def test_a_failing_listener_breaks_nothing(store: Store, clock: FakeClock) -> None:
    rooms = Rooms(store, DictionaryShelf(), clock)
    heard: list[int] = []

    def broken(event: RoomRoundScored) -> None:
        raise RuntimeError("listener bug")

    rooms.on_round_scored.extend([broken, lambda event: heard.append(event.number)])
    code, _ = rooms.create("ann")
    play_room_round(rooms, clock, code, {})
    assert heard == [1]
    assert rooms.public(code).rounds_played == 1


def test_the_host_ending_a_game_between_rounds_is_heard(store: Store, clock: FakeClock) -> None:
    rooms = Rooms(store, DictionaryShelf(), clock)
    heard: list[RoomRoundScored] = []
    rooms.on_round_scored.append(heard.append)
    code, _ = rooms.create("ann")
    play_room_round(rooms, clock, code, {})
    rooms.end_game(Seat(code, "ann"))
    assert [(e.number, e.over) for e in heard] == [(1, False), (1, True)]
    rooms.rematch(Seat(code, "ann"))
    rooms.end_game(Seat(code, "ann"))  # a game without a scored round: nothing to tell
    assert len(heard) == 2


def test_the_host_ending_a_running_round_is_heard_once_as_over(
    store: Store, clock: FakeClock
) -> None:
    rooms = Rooms(store, DictionaryShelf(), clock)
    heard: list[RoomRoundScored] = []
    rooms.on_round_scored.append(heard.append)
    code, _ = rooms.create("ann")
    rooms.start_round(Seat(code, "ann"), seed=7)
    clock.advance(START_DELAY + 1)
    rooms.end_game(Seat(code, "ann"))
    assert [(e.number, e.over) for e in heard] == [(1, True)]
