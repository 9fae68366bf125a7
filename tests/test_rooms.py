"""Multiplayer rooms in the library: seats, the host's controls, rounds on the server's clock,
crossing off across players and teams, handicaps, the challenge cube, totals, and the database
as the only memory (a second Rooms object on the same database carries on)."""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
import sqlalchemy as sa
from sqlalchemy import select, update

from bigboggle import Board, Dictionary, Rules, shake, solve
from bigboggle.errors import (
    BusyError,
    GameStateError,
    KickedError,
    NotFoundError,
    NotHostError,
    RoomClosedError,
    RoomFullError,
    RoundInputError,
    RulesError,
    WordListError,
)
from bigboggle.limits import MAX_SETTINGS_BYTES
from bigboggle.scoring import Tournament, score_round
from bigboggle.services.compute import run_here
from bigboggle.services.rooms import (
    CODE_LENGTH,
    CODE_LETTERS,
    GRACE,
    JUDGE_CACHE,
    SCORING_LEASE,
    START_DELAY,
    Presence,
    RoomRoundResult,
    Rooms,
    RoomSettings,
    Seat,
    Standings,
    normal_code,
    tally_of,
)
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.store import RoomRoundRow, RoomRow, RoomWordRow, Store
from bigboggle.verdicts import Verdict
from conftest import FakeClock, postgres_schema

pytestmark = pytest.mark.once

T = TypeVar("T")


@pytest.fixture
def rooms(db_url: str, clock: FakeClock) -> Rooms:
    return Rooms(Store(db_url), DictionaryShelf(), clock)


def words_on(board: str, standard: Dictionary, rules: Rules | None = None) -> list[str]:
    return [found.word for found in solve(board, standard, rules or Rules.preset("big"))]


def play_round(rooms: Rooms, clock: FakeClock, code: str, seed: int = 7) -> str:
    """Start a round as the host (ann) and move to its start; returns the board."""
    board = rooms.start_round(Seat(code, "ann"), seed=seed).board
    clock.advance(START_DELAY)
    return board


def finish(rooms: Rooms, clock: FakeClock, code: str) -> None:
    deadline = rooms.next_deadline(code)
    assert deadline is not None
    clock.now = deadline
    assert rooms.end_round_if_due(code) is not None


def test_seats_tokens_and_limits(rooms: Rooms) -> None:
    code, ann_token = rooms.create("ann", {"max_players": 2})
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_LETTERS)
    bob, bob_token = rooms.join(code.lower(), "bob")  # codes are not case-sensitive
    assert bob == Seat(code, "bob")
    assert rooms.resume(ann_token) == Seat(code, "ann")
    assert rooms.resume(bob_token) == Seat(code, "bob")
    assert rooms.players(code) == ["ann", "bob"]
    with pytest.raises(RoomFullError, match="full"):
        rooms.join(code, "cy")
    with pytest.raises(NotFoundError):
        rooms.join("ZZZZZZZZZZ", "cy")
    with pytest.raises(NotFoundError):
        rooms.resume("not-a-real-token")


def test_names_must_be_new_and_sane(rooms: Rooms) -> None:
    code, _ = rooms.create("ann")
    with pytest.raises(RoundInputError, match="taken"):
        rooms.join(code, "ANN")
    with pytest.raises(RoundInputError, match="name"):
        rooms.join(code, "")
    with pytest.raises(RoundInputError, match="longer"):
        rooms.join(code, "x" * 41)


def test_only_the_host_starts_and_configures(rooms: Rooms) -> None:
    code, _ = rooms.create("ann")
    rooms.join(code, "bob")
    with pytest.raises(NotHostError):
        rooms.start_round(Seat(code, "bob"))
    with pytest.raises(NotHostError):
        rooms.configure(Seat(code, "bob"), {"timer": 30})
    rooms.configure(Seat(code, "ann"), {"timer": 30})
    assert rooms.public(code).to_json()["settings"]["timer"] == 30


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        ({"rules": "giant"}, RulesError, "unknown rules"),
        ({"timer": 2}, RulesError, "timer"),
        ({"options": {"teams": True}}, RulesError, "settings.options: unknown room option .teams."),
        ({"colour": "red"}, RoundInputError, "unknown key 'colour'"),
        ({"max_players": 500}, RoundInputError, "max_players"),
        ({"dictionary": "klingon"}, Exception, "unknown dictionary"),
        ({"teams": ["red"]}, RoundInputError, "teams"),
    ],
)
def test_bad_settings_are_refused_by_name(
    rooms: Rooms, settings: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        rooms.create("ann", settings)


def test_a_round_on_the_servers_clock(rooms: Rooms, clock: FakeClock, standard: Dictionary) -> None:
    code, _ = rooms.create("ann", {"timer": 60})
    rooms.join(code, "bob")
    ann, bob = Seat(code, "ann"), Seat(code, "bob")
    started = rooms.start_round(ann, seed=7)
    assert started.board == str(shake("big", 7).board)
    assert started.starts_at == clock.now + START_DELAY
    assert started.deadline == started.starts_at + 60
    with pytest.raises(GameStateError, match="already running"):
        rooms.start_round(ann)
    with pytest.raises(GameStateError, match="not started yet"):
        rooms.submit(ann, "fine")
    clock.advance(START_DELAY)
    words = words_on(started.board, standard)
    assert rooms.submit(ann, words[0]).verdict is Verdict.SCORED
    assert rooms.submit(ann, words[0]).verdict is Verdict.REPEATED
    assert rooms.submit(bob, words[0]).verdict is Verdict.SCORED  # private: not crossed off yet
    assert rooms.submit(bob, words[1]).verdict is Verdict.SCORED
    # Each player sees only their own words while the round runs.
    assert [w["word"] for w in rooms.view(ann).to_json()["round"]["words"]] == [words[0]]
    clock.now = started.deadline
    with pytest.raises(GameStateError, match="time is up"):
        rooms.submit(bob, words[2])
    assert rooms.end_round_if_due(code) is None  # the grace: words on their way still count
    clock.advance(GRACE)
    result = rooms.end_round_if_due(code)
    assert result is not None
    assert rooms.end_round_if_due(code) is None  # scored once
    scored = result["round"]["players"]
    assert [w["verdict"] for w in scored["ann"]["words"]] == ["crossed_off"]
    assert [w["verdict"] for w in scored["bob"]["words"]] == ["crossed_off", "scored"]
    view = rooms.view(bob).to_json()
    assert view["round"] is None and view["last"]["number"] == 1
    assert view["totals"] == {"bob": scored["bob"]["score"], "ann": 0}
    assert view["last"]["missed"] and view["last"]["board"] == started.board


def test_teams_handicaps_and_the_challenge_cube(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = rooms.create("ann", {"options": {"challenge": True}})
    for name in ("bob", "cy"):
        rooms.join(code, name)
    rooms.configure(
        Seat(code, "ann"),
        {
            "options": {"challenge": True},
            "teams": {"red": ["ann", "bob"], "blue": ["cy"]},
            "handicaps": {"cy": 3},
        },
    )
    board = play_round(rooms, clock, code, seed=11)
    assert Board(board).challenge is not None
    rules = Rules.preset("big", min_length=3)
    everything = solve(board, standard, rules)
    three = next(f.word for f in everything if len(f.word) == 3 and not f.bonus)
    through = next(f for f in everything if len(f.word) >= 4 and f.bonus)
    assert rooms.submit(Seat(code, "cy"), three).score == 1  # cy may play 3-letter words
    assert rooms.submit(Seat(code, "ann"), three).verdict is Verdict.TOO_SHORT
    assert rooms.submit(Seat(code, "ann"), through.word).bonus == 5
    rooms.submit(Seat(code, "bob"), through.word)  # same team: not crossed off
    finish(rooms, clock, code)
    view = rooms.view(Seat(code, "cy")).to_json()
    last = view["last"]
    assert last["teams"]["red"]["score"] == through.score
    assert last["teams"]["blue"]["score"] == 1
    assert view["standings"] == ["red", "blue"]


def test_teams_must_cover_every_player(rooms: Rooms) -> None:
    code, _ = rooms.create("ann")
    rooms.join(code, "bob")
    rooms.configure(Seat(code, "ann"), {"teams": {"red": ["ann"]}})
    with pytest.raises(RoundInputError, match="bob"):
        rooms.start_round(Seat(code, "ann"))


def test_a_latecomer_in_team_play_joins_the_smallest_team(rooms: Rooms) -> None:
    """Teams set, then cat and dan join: each goes on the team with the fewest members (the
    first such), so Start is not refused for a player on no team, and everyone sees it."""
    code, _ = rooms.create("ann")
    rooms.join(code, "bob")
    rooms.configure(Seat(code, "ann"), {"teams": {"red": ["ann"], "blue": ["bob"]}})
    rooms.join(code, "cat")
    assert rooms.public(code).to_json()["settings"]["teams"] == {
        "red": ["ann", "cat"],
        "blue": ["bob"],
    }
    rooms.join(code, "dan")
    assert rooms.public(code).to_json()["settings"]["teams"] == {
        "red": ["ann", "cat"],
        "blue": ["bob", "dan"],
    }
    assert rooms.start_round(Seat(code, "ann")).board


def test_without_team_play_a_latecomer_is_on_no_team(rooms: Rooms) -> None:
    code, _ = rooms.create("ann")
    rooms.join(code, "bob")
    assert rooms.public(code).to_json()["settings"]["teams"] is None


def test_totals_carry_over_until_the_target(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = rooms.create("ann", {"target": 5})
    rooms.join(code, "bob")
    while not rooms.public(code).to_json()["over"]:
        board = play_round(rooms, clock, code, seed=int(clock.now) % 1000)
        for word in words_on(board, standard)[:3]:
            rooms.submit(Seat(code, "ann"), word)
        finish(rooms, clock, code)
    public = rooms.public(code).to_json()
    assert public["winner"] == "ann" and public["totals"]["ann"] >= 5
    with pytest.raises(GameStateError, match="over"):
        rooms.start_round(Seat(code, "ann"))
    with pytest.raises(GameStateError, match="over"):
        rooms.join(code, "late")


def test_tied_competitors_share_a_place(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    """ann and bob find nothing, cy finds a word: cy is first, ann and bob share 2nd, in the
    round's places and the game's (a tie is no ranking by name), and nobody wins a tie."""
    code, _ = rooms.create("ann", {"rounds": 1})
    rooms.join(code, "bob")
    rooms.join(code, "cy")
    board = play_round(rooms, clock, code)
    rooms.submit(Seat(code, "cy"), words_on(board, standard)[0])
    finish(rooms, clock, code)
    view = rooms.view(Seat(code, "ann")).to_json()
    assert view["standings"] == ["cy", "ann", "bob"]
    assert view["places"] == {"cy": 1, "ann": 2, "bob": 2}
    assert view["last"]["places"] == {"cy": 1, "ann": 2, "bob": 2}
    assert view["winner"] == "cy"

    code, _ = rooms.create("ann", {"rounds": 1})
    rooms.join(code, "bob")
    play_round(rooms, clock, code)
    finish(rooms, clock, code)
    view = rooms.view(Seat(code, "bob")).to_json()
    assert view["places"] == {"ann": 1, "bob": 1} == view["last"]["places"]
    assert view["over"] and view["winner"] is None


def test_a_round_stored_before_places_were_kept_gets_them_from_its_tally() -> None:
    stored = {
        "round": {"ranking": ["ann", "bob", "cy"]},
        "tally": {"scores": {"ann": 3, "bob": 3, "cy": 1}},
    }
    assert RoomRoundResult.of_stored(1, None, stored).to_json()["places"] == {
        "ann": 1,
        "bob": 1,
        "cy": 3,
    }


def test_longer_words_part_equal_points() -> None:
    """Equal points are no tie when the longer words part them (the rule that orders them)."""
    standings = Standings()
    standings.add({"scores": {"ann": 5, "bob": 5}, "lengths": {"ann": {"5": 1}, "bob": {"4": 1}}})
    assert standings.places() == {"ann": 1, "bob": 2}


def test_a_late_joiner_waits_for_the_next_round(rooms: Rooms, clock: FakeClock) -> None:
    code, _ = rooms.create("ann")
    play_round(rooms, clock, code)
    rooms.join(code, "dan")
    with pytest.raises(GameStateError, match="next one"):
        rooms.submit(Seat(code, "dan"), "word")
    assert rooms.view(Seat(code, "dan")).to_json()["round"]["playing"] is False


def refusal(rooms: Rooms, seat: Seat, entry: str = "word") -> GameStateError:
    """The GameStateError (or subclass) ``seat``'s word is refused with."""
    with pytest.raises(GameStateError) as refused:
        rooms.submit(seat, entry)
    return refused.value


def test_during_the_countdown_a_word_is_refused_in_the_words_room_js_shows(
    rooms: Rooms,
) -> None:
    code, _ = rooms.create("ann")
    rooms.start_round(Seat(code, "ann"), seed=7)
    refused = refusal(rooms, Seat(code, "ann"))
    assert (type(refused), str(refused)) == (GameStateError, "the round has not started yet")


def test_a_late_joiner_during_the_countdown_is_told_the_round_has_not_started(
    rooms: Rooms,
) -> None:
    """The clock is checked before who plays, as before the round engine drove rooms."""
    code, _ = rooms.create("ann")
    rooms.start_round(Seat(code, "ann"), seed=7)
    rooms.join(code, "dan")
    assert str(refusal(rooms, Seat(code, "dan"))) == "the round has not started yet"


def test_a_late_joiner_after_the_deadline_is_told_time_is_up(
    rooms: Rooms, clock: FakeClock
) -> None:
    code, _ = rooms.create("ann")
    started = rooms.start_round(Seat(code, "ann"), seed=7)
    rooms.join(code, "dan")
    clock.now = started.deadline
    assert str(refusal(rooms, Seat(code, "dan"))) == "time is up: the round's deadline has passed"


def test_a_removed_seat_after_the_deadline_is_told_time_is_up_not_removed(
    rooms: Rooms, clock: FakeClock
) -> None:
    """A word out of time is refused as such (``not_now``), whoever sends it; a removed seat
    is told so only while the round takes words."""
    code, _ = rooms.create("ann")
    rooms.join(code, "bob")
    started = rooms.start_round(Seat(code, "ann"), seed=7)
    rooms.kick(Seat(code, "ann"), "bob")
    clock.now = started.deadline
    refused = refusal(rooms, Seat(code, "bob"))
    assert type(refused) is GameStateError and "time is up" in str(refused)


def test_a_removed_seat_during_the_countdown_is_told_the_round_has_not_started(
    rooms: Rooms,
) -> None:
    code, _ = rooms.create("ann")
    rooms.join(code, "bob")
    rooms.start_round(Seat(code, "ann"), seed=7)
    rooms.kick(Seat(code, "ann"), "bob")
    refused = refusal(rooms, Seat(code, "bob"))
    assert (type(refused), str(refused)) == (GameStateError, "the round has not started yet")


def test_a_removed_seat_while_the_round_runs_is_told_it_was_removed(
    rooms: Rooms, clock: FakeClock
) -> None:
    code, _ = rooms.create("ann")
    rooms.join(code, "bob")
    play_round(rooms, clock, code)
    rooms.kick(Seat(code, "ann"), "bob")
    assert isinstance(refusal(rooms, Seat(code, "bob")), KickedError)


def test_a_rooms_word_is_bounded_by_the_one_entry_limit(rooms: Rooms, clock: FakeClock) -> None:
    from bigboggle.limits import MAX_ENTRY_LENGTH

    code, _ = rooms.create("ann")
    play_round(rooms, clock, code)
    with pytest.raises(RoundInputError, match=f"the limit is {MAX_ENTRY_LENGTH}$"):
        rooms.submit(Seat(code, "ann"), "a" * (MAX_ENTRY_LENGTH + 1))


def test_another_process_on_the_same_database_carries_on(
    db_url: str, clock: FakeClock, standard: Dictionary
) -> None:
    first = Rooms(Store(db_url), DictionaryShelf(), clock)
    code, token = first.create("ann")
    board = play_round(first, clock, code)
    word = words_on(board, standard)[0]
    first.submit(Seat(code, "ann"), word)
    second = Rooms(Store(db_url), DictionaryShelf(), clock)  # a restart, or another server
    seat = second.resume(token)
    assert [w["word"] for w in second.view(seat).to_json()["round"]["words"]] == [word]
    assert second.submit(seat, word).verdict is Verdict.REPEATED
    clock.now = second.next_deadline(code)  # type: ignore[assignment]
    assert second.end_round_if_due(code) is not None
    assert first.end_round_if_due(code) is None  # already scored by the other
    assert first.view(seat).to_json()["totals"]["ann"] > 0


def test_a_lowered_target_ends_the_game_at_once(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = rooms.create("ann", {"timer": 30})
    board = play_round(rooms, clock, code)
    for word in words_on(board, standard)[:3]:
        rooms.submit(Seat(code, "ann"), word)
    finish(rooms, clock, code)
    rooms.configure(Seat(code, "ann"), {"timer": 30, "target": 1})  # already passed
    public = rooms.public(code).to_json()
    assert public["over"] and public["winner"] == "ann"
    with pytest.raises(GameStateError, match="over"):
        rooms.start_round(Seat(code, "ann"))
    with pytest.raises(GameStateError, match="over"):
        rooms.configure(Seat(code, "ann"), {"rounds": 5})
    view = rooms.view(Seat(code, "ann")).to_json()
    assert view["last"]["number"] == 1 and view["rounds_played"] == 1


def test_results_belong_to_their_own_round(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = rooms.create("ann", {"timer": 30})
    for seed in (1, 2):
        board = play_round(rooms, clock, code, seed=seed)
        rooms.submit(Seat(code, "ann"), words_on(board, standard)[seed])
        finish(rooms, clock, code)
        last = rooms.view(Seat(code, "ann")).to_json()["last"]
        assert last["number"] == seed and last["board"] == board
        assert [w["word"] for w in last["players"]["ann"]["words"]] == [
            words_on(board, standard)[seed]
        ]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"teams": {"": ["ann"]}}, "name"),
        ({"teams": {"red": ["ann", "ann"]}}, "two teams"),
        ({"teams": {"red": ["ann"], "blue": ["ann"]}}, "two teams"),
        ({"teams": {"red": []}}, "list of players"),
        ({"handicaps": {"ann": 99}}, "word length"),
        ({"handicaps": {"": 3}}, "name"),
    ],
)
def test_teams_and_handicaps_are_checked_when_set(
    rooms: Rooms, settings: dict[str, object], message: str
) -> None:
    code, _ = rooms.create("ann")
    with pytest.raises(RoundInputError, match=message):
        rooms.configure(Seat(code, "ann"), settings)


def test_two_starts_or_two_joins_at_once_give_one_winner(rooms: Rooms) -> None:
    import threading

    code, _ = rooms.create("ann")
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def attempt(action: str) -> None:
        barrier.wait()
        try:
            if action == "start":
                rooms.start_round(Seat(code, "ann"))
            else:
                rooms.join(code, "bob")
            outcomes.append(f"{action}: ok")
        except (GameStateError, RoundInputError) as exc:
            outcomes.append(f"{action}: {type(exc).__name__}")

    threads = [
        threading.Thread(target=attempt, args=(a,)) for a in ("start", "start", "join", "join")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == [
        "join: RoundInputError",
        "join: ok",
        "start: GameStateError",
        "start: ok",
    ]
    assert rooms.players(code) == ["ann", "bob"]


# -- bounded settings, names, host powers, stored results, idle rooms -------------------


class CountingRunner:
    """A real runner (it runs the job here) that counts the jobs it ran, by function name."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def __call__(self, fn: Callable[..., T], /, *args: Any) -> T:
        self.calls[fn.__name__] = self.calls.get(fn.__name__, 0) + 1
        return run_here(fn, *args)


@pytest.fixture
def runner() -> CountingRunner:
    return CountingRunner()


@pytest.fixture
def counted(db_url: str, clock: FakeClock, runner: CountingRunner) -> Rooms:
    return Rooms(Store(db_url), DictionaryShelf(), clock, runner=runner)


def test_room_codes_have_over_40_bits_and_read_loosely(rooms: Rooms) -> None:
    assert CODE_LENGTH * math.log2(len(CODE_LETTERS)) >= 40
    assert not set(CODE_LETTERS) & set("AEIOU01")
    codes = {rooms.create(f"host{n}")[0] for n in range(20)}
    assert len(codes) == 20
    code = codes.pop()
    spaced = f"{code[:5].lower()}-{code[5:]}"
    assert rooms.public(spaced).to_json()["room"] == code
    assert normal_code(f" {code[:3]} {code[3:]} ") == code
    with pytest.raises(NotFoundError):
        normal_code("x" * 500)


def test_settings_are_bounded_before_they_are_read(rooms: Rooms) -> None:
    huge = {"handicaps": {f"p{n}": 3 for n in range(60_000)}}
    with pytest.raises(RoundInputError, match=f"limit is {MAX_SETTINGS_BYTES:,}"):
        rooms.create("ann", huge)
    code, _ = rooms.create("ann")
    with pytest.raises(RoundInputError, match="bytes of JSON"):
        rooms.configure(Seat(code, "ann"), {"rules": "big", "options": {"x" * 5000: 1}})


@pytest.mark.parametrize(
    ("settings", "who"),
    [
        ({"handicaps": {"ann": 3, "zed": 3}}, "zed"),
        ({"teams": {"red": ["ann"], "blue": ["bob", "ghost"]}}, "ghost"),
    ],
)
def test_handicaps_and_teams_name_seated_players_only(
    rooms: Rooms, settings: dict[str, Any], who: str
) -> None:
    code, _ = rooms.create("ann")
    rooms.join(code, "bob")
    with pytest.raises(RoundInputError, match=f"'{who}' is not a player in room {code}"):
        rooms.configure(Seat(code, "ann"), settings)
    with pytest.raises(RoundInputError, match="'bob' is not a player in the new room"):
        rooms.create("cy", {"handicaps": {"bob": 3}})


def test_settings_names_are_matched_to_seats_as_spelled(rooms: Rooms) -> None:
    code, _ = rooms.create("Ann")
    rooms.join(code, "bob")
    rooms.configure(
        Seat(code, "Ann"), {"handicaps": {"ANN": 3}, "teams": {"red": ["ann"], "blue": ["BOB"]}}
    )
    settings = rooms.public(code).to_json()["settings"]
    assert settings["handicaps"] == {"Ann": 3}
    assert settings["teams"] == {"red": ["Ann"], "blue": ["bob"]}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("alice\u200b", "invisible or control character"),
        ("al\x00ice", "invisible or control character"),
        ("ALICE", "taken"),
        ("\u0410lice", "taken"),  # a Cyrillic A
        ("\uff41lice", "taken"),  # a full-width a
        ("  alice ", "taken"),
    ],
)
def test_look_alike_names_cannot_share_a_room(rooms: Rooms, name: str, message: str) -> None:
    code, _ = rooms.create("alice")
    with pytest.raises(RoundInputError, match=message):
        rooms.join(code, name)
    assert rooms.players(code) == ["alice"]


def test_names_are_kept_in_their_normal_form(rooms: Rooms) -> None:
    code, _ = rooms.create("ann")
    seat, token = rooms.join(code, "  \uff42ob  ")  # full-width b
    assert seat == Seat(code, "bob") == rooms.resume(token)


def test_the_host_kicks_a_seat(rooms: Rooms, clock: FakeClock, standard: Dictionary) -> None:
    code, _ = rooms.create("ann")
    bob, bob_token = rooms.join(code, "bob")
    rooms.join(code, "cy")
    rooms.configure(
        Seat(code, "ann"),
        {"handicaps": {"bob": 3}, "teams": {"red": ["ann", "cy"], "blue": ["bob"]}},
    )
    with pytest.raises(NotHostError):
        rooms.kick(bob, "cy")
    with pytest.raises(GameStateError, match="cannot remove themselves"):
        rooms.kick(Seat(code, "ann"), "ann")
    with pytest.raises(NotFoundError, match="no player 'dan'"):
        rooms.kick(Seat(code, "ann"), "dan")
    board = play_round(rooms, clock, code)
    word = words_on(board, standard)[0]
    rooms.submit(bob, word)
    rooms.kick(Seat(code, "ann"), "bob")
    with pytest.raises(KickedError, match="removed bob"):
        rooms.resume(bob_token)
    with pytest.raises(KickedError):
        rooms.submit(bob, words_on(board, standard)[1])  # a socket still open: refused too
    with pytest.raises(RoundInputError, match="taken"):
        rooms.join(code, "Bob")  # the name stays taken in this room
    assert rooms.players(code) == ["ann", "cy"]
    settings = rooms.public(code).to_json()["settings"]
    assert settings["handicaps"] == {} and settings["teams"] == {"red": ["ann", "cy"]}
    finish(rooms, clock, code)  # bob's word was played: it stays in the round
    assert (
        rooms.view(Seat(code, "ann")).to_json()["last"]["players"]["bob"]["words"][0]["word"]
        == word
    )
    assert rooms.start_round(Seat(code, "ann")).players == ("ann", "cy")


def test_the_host_ends_the_game_mid_round(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = rooms.create("ann")
    bob, _ = rooms.join(code, "bob")
    with pytest.raises(NotHostError):
        rooms.end_game(bob)
    board = play_round(rooms, clock, code)
    words = words_on(board, standard)
    rooms.submit(bob, words[0])
    rooms.submit(bob, words[1])
    stored = rooms.end_game(Seat(code, "ann"))
    assert stored is not None
    assert [w["word"] for w in stored["round"]["players"]["bob"]["words"]] == words[:2]
    with pytest.raises(GameStateError):
        rooms.submit(bob, words[2])
    public = rooms.public(code).to_json()
    assert public["over"] and public["winner"] == "bob" and public["rounds_played"] == 1
    with pytest.raises(GameStateError, match="over"):
        rooms.start_round(Seat(code, "ann"))
    with pytest.raises(GameStateError, match="already over"):
        rooms.end_game(Seat(code, "ann"))


def test_the_host_role_passes_after_host_away(rooms: Rooms, clock: FakeClock) -> None:
    code, _ = rooms.create("ann")
    ann, bob, cy = Seat(code, "ann"), rooms.join(code, "bob")[0], rooms.join(code, "cy")[0]
    for seat in (ann, bob, cy):
        assert rooms.connected(seat) == Presence()
    assert rooms.connected(ann) == Presence()  # a second tab of ann's
    assert rooms.disconnected(ann) is None  # one tab closed: ann is still here
    due = rooms.disconnected(ann)
    assert due == clock.now + rooms.limits.host_away
    assert rooms.disconnected(bob) is None  # not the host
    clock.advance(rooms.limits.host_away - 1)
    assert rooms.hand_over_if_away(code) is None  # not away long enough
    assert rooms.connected(bob) == Presence(host_due=due)  # bob is told when to ask again
    rooms.disconnected(bob)
    clock.advance(1)
    assert rooms.hand_over_if_away(code) == "cy"  # bob has left too: the next one present
    assert rooms.public(code).to_json()["host"] == "cy"
    rooms.start_round(cy)  # the new host's powers
    with pytest.raises(NotHostError):
        rooms.start_round(ann)


def test_with_nobody_left_the_room_winds_down_until_someone_comes_back(
    rooms: Rooms, clock: FakeClock
) -> None:
    code, _ = rooms.create("ann")
    code, _ = rooms.create("ann")
    ann, bob = Seat(code, "ann"), rooms.join(code, "bob")[0]
    rooms.connected(ann)
    rooms.connected(bob)
    rooms.disconnected(bob)
    rooms.disconnected(ann)
    clock.advance(rooms.limits.host_away + 1)
    assert rooms.hand_over_if_away(code) is None  # nobody here: nothing to do
    assert rooms.public(code).to_json()["host"] == "ann"
    assert rooms.connected(bob) == Presence(new_host="bob")  # the first back takes over
    assert rooms.public(code).to_json()["host"] == "bob"
    assert rooms.connected(ann) == Presence()  # ann is a player now


def test_verdicts_and_results_are_stored_and_views_score_nothing(
    counted: Rooms, runner: CountingRunner, clock: FakeClock, standard: Dictionary, db_url: str
) -> None:
    code, _ = counted.create("ann")
    bob = counted.join(code, "bob")[0]
    board = play_round(counted, clock, code)
    words = words_on(board, standard)
    given = [counted.submit(bob, entry).to_json() for entry in (words[0], "qzqz", words[1])]
    with counted.store.session() as session:
        stored = session.scalars(select(RoomWordRow.verdict).order_by(RoomWordRow.id)).all()
    assert list(stored) == given
    fresh = Rooms(Store(db_url), DictionaryShelf(), clock, runner=runner)  # another process
    assert fresh.view(bob).to_json()["round"]["words"] == given
    assert not fresh._judges  # the view judged nothing: it read the verdicts
    finish(counted, clock, code)
    assert runner.calls == {"score_room_round": 1}
    with counted.store.session() as session:
        result = session.scalar(select(RoomRoundRow.result))
    assert result is not None and result["round"]["players"]["bob"]["score"] > 0
    for _ in range(5):
        assert fresh.view(bob).to_json()["last"]["players"] == result["round"]["players"]
        fresh.public(code).to_json()
        assert fresh.round_result(code, 1).to_json()["board"] == board
    assert runner.calls == {"score_room_round": 1}
    assert fresh.view(bob).to_json()["totals"] == {
        "bob": result["round"]["players"]["bob"]["score"],
        "ann": 0,
    }


def test_rows_from_before_are_filled_in_once(
    counted: Rooms, runner: CountingRunner, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = counted.create("ann")
    ann = Seat(code, "ann")
    board = play_round(counted, clock, code)
    word = words_on(board, standard)[0]
    counted.submit(ann, word)
    counted.submit(ann, "qzqz")
    with counted.store.session() as session:  # as an older bigboggle left them
        session.execute(update(RoomWordRow).values(verdict=None))
    assert [w["word"] for w in counted.view(ann).to_json()["round"]["words"]] == [word, "qzqz"]
    with counted.store.session() as session:
        assert None not in session.scalars(select(RoomWordRow.verdict)).all()
    finish(counted, clock, code)
    with counted.store.session() as session:
        session.execute(update(RoomRoundRow).values(result=None))
        session.execute(update(RoomRow).values(standings=None))
    runner.calls.clear()
    clock.advance(SCORING_LEASE)  # long ago, as old rows are
    for _ in range(3):  # reading scores nothing: the round shows as being scored
        view = counted.view(ann).to_json()
        assert view["last"] is None and view["round"]["scoring"] and view["rounds_played"] == 0
        with pytest.raises(NotFoundError):
            counted.round_result(code, 1).to_json()
        counted.public(code).to_json()
    assert runner.calls == {}
    assert counted.score_overdue().scored == [code]  # at start-up, in the background
    assert counted.score_overdue().scored == []
    assert runner.calls == {"score_room_round": 1}  # scored once, then read back
    views = [counted.view(ann).to_json() for _ in range(3)]
    assert views[0]["last"]["number"] == 1 and views[0]["rounds_played"] == 1
    assert views[0]["totals"]["ann"] == views[2]["totals"]["ann"] > 0
    assert counted.round_result(code, 1).to_json()["board"] == board
    assert runner.calls == {"score_room_round": 1}


def test_reads_never_score_a_round_whose_scorer_died(
    counted: Rooms, runner: CountingRunner, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = counted.create("ann")
    ann = Seat(code, "ann")
    board = play_round(counted, clock, code)
    counted.submit(ann, words_on(board, standard)[0])
    clock.advance(3600)
    with counted.store.session() as session:  # claimed by a process that died
        session.execute(update(RoomRoundRow).values(ended_at=clock.now))
    clock.advance(SCORING_LEASE + 1)  # the lease has run out
    for _ in range(20):  # 20 players' views and strangers' reads of the round
        assert counted.view(ann).to_json()["round"]["scoring"] is True
        assert counted.view(ann).to_json()["last"] is None
        with pytest.raises(NotFoundError, match="no scored round 1"):
            counted.round_result(code, 1).to_json()
        assert counted.public(code).to_json()["rounds_played"] == 0
    assert runner.calls == {}
    assert counted.end_round_if_due(code) is not None  # the round's timer scores it, once
    assert counted.end_round_if_due(code) is None
    assert runner.calls == {"score_room_round": 1}
    assert counted.view(ann).to_json()["last"]["number"] == 1


def test_a_round_that_cannot_be_scored_is_marked_once_and_the_others_go_on(
    counted: Rooms, runner: CountingRunner, clock: FakeClock, standard: Dictionary
) -> None:
    old, fine = counted.create("ann")[0], counted.create("ann")[0]
    for code in (old, fine):
        board = play_round(counted, clock, code)
        counted.submit(Seat(code, "ann"), words_on(board, standard)[0])
    clock.advance(3600)
    with counted.store.session() as session:  # an older bigboggle seated 'ann' and 'Ann'
        played = session.scalar(select(RoomRoundRow).where(RoomRoundRow.room == old))
        assert played is not None
        session.execute(
            update(RoomRoundRow)
            .where(RoomRoundRow.id == played.id)
            .values(settings={**played.settings, "players": ["ann", "Ann"]}, ended_at=clock.now)
        )
        session.execute(update(RoomRow).where(RoomRow.code == old).values(standings=None))
    clock.advance(SCORING_LEASE)
    done = counted.score_overdue()
    assert sorted(done.scored) == sorted([old, fine]) and done.refused == 0
    assert counted.score_overdue().scored == []  # never tried again
    assert runner.calls == {"score_room_round": 2}
    marked = counted.round_result(old, 1).to_json()
    assert marked["number"] == 1 and marked["reason"].startswith("could not be scored: ")
    view = counted.view(Seat(old, "ann")).to_json()
    assert view["unscored"] == marked and view["last"] is None and view["round"] is None
    assert view["rounds_played"] == 0 and counted.public(old).to_json()["totals"] == {}
    assert counted.public(fine).to_json()["rounds_played"] == 1
    assert counted.end_round_if_due(old) is None
    assert runner.calls == {"score_room_round": 2}


def test_standings_order_as_a_tournament_does(standard: Dictionary) -> None:
    rules = Rules.preset("big")
    tournament, standings = Tournament(target=10_000), Standings()
    for seed in (3, 4, 5):
        board = shake("big", seed).board
        words = words_on(str(board), standard)
        result = score_round(
            board,
            {"ann": words[:4], "bob": words[2:6], "cy": words[::7][:5], "dan": []},
            rules,
            standard,
        )
        tournament.add(result)
        standings.add(tally_of(result))
        assert standings.order == tournament.standings
        assert standings.totals == tournament.totals
    assert standings.winner(True) == tournament.leaders[0]
    tied = Standings.from_json({"rounds": 1, "totals": {"a": 5, "b": 5}, "lengths": {}})
    assert tied.winner(True) is None and tied.winner(False) is None


def test_rounds_overdue_at_start_up_are_scored(
    counted: Rooms, runner: CountingRunner, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = counted.create("ann", {"timer": 30})
    board = play_round(counted, clock, code)
    counted.submit(Seat(code, "ann"), words_on(board, standard)[0])
    other, _ = counted.create("bob", {"timer": 600})
    counted.start_round(Seat(other, "bob"))
    clock.advance(60)  # the server was down past ann's deadline
    assert counted.score_overdue().scored == [code]
    assert counted.public(code).to_json()["rounds_played"] == 1
    assert [room for room, _ in counted.running()] == [other]
    assert counted.score_overdue().scored == []


def test_a_refused_scoring_lets_its_claim_go_at_once(db_url: str, clock: FakeClock) -> None:
    def refusing(fn: Callable[..., T], /, *args: Any) -> T:
        raise BusyError("the pool is full", retry_after=1)

    failing = Rooms(Store(db_url), DictionaryShelf(), clock, runner=refusing)
    code, _ = failing.create("ann")
    play_round(failing, clock, code)
    clock.advance(200)
    with pytest.raises(BusyError):
        failing.end_round_if_due(code)
    with pytest.raises(BusyError):  # a refused job lets its claim go: try again at once
        failing.end_round_if_due(code)
    working = Rooms(Store(db_url), DictionaryShelf(), clock)
    assert working.end_round_if_due(code) is not None
    assert working.public(code).to_json()["rounds_played"] == 1


def test_a_scorer_that_died_holds_its_round_for_the_lease(db_url: str, clock: FakeClock) -> None:
    rooms = Rooms(Store(db_url), DictionaryShelf(), clock)
    code, _ = rooms.create("ann")
    play_round(rooms, clock, code)
    clock.advance(200)
    with rooms.store.session() as session:  # claimed, then the process died
        session.execute(update(RoomRoundRow).values(ended_at=clock.now))
    assert rooms.end_round_if_due(code) is None  # someone may still be scoring it
    assert rooms.next_deadline(code) == clock.now + SCORING_LEASE
    clock.advance(SCORING_LEASE)
    assert rooms.end_round_if_due(code) is not None
    assert rooms.public(code).to_json()["rounds_played"] == 1


def test_idle_rooms_are_closed_for_good_and_stay_readable(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    code, token = rooms.create("ann")
    ann = Seat(code, "ann")
    board = play_round(rooms, clock, code)
    rooms.submit(ann, words_on(board, standard)[0])
    finish(rooms, clock, code)
    busy, _ = rooms.create("bob")
    clock.advance((rooms.limits.room_idle_days - 1) * 86_400)
    rooms.start_round(Seat(busy, "bob"))  # activity: bob's room stays open
    assert rooms.close_idle() == 0
    clock.advance(2 * 86_400)
    assert rooms.close_idle() == 1
    assert rooms.close_idle() == 0
    with pytest.raises(RoomClosedError, match="closed after 30 days"):
        rooms.join(code, "cy")
    with pytest.raises(RoomClosedError):
        rooms.start_round(ann)
    with pytest.raises(RoomClosedError):
        rooms.configure(ann, {"timer": 30})
    public = rooms.public(code).to_json()
    assert public["closed"] and public["rounds_played"] == 1 and public["totals"]["ann"] > 0
    assert rooms.round_result(code, 1).to_json()["board"] == board
    assert rooms.view(rooms.resume(token)).to_json()["last"]["number"] == 1
    assert not rooms.public(busy).to_json()["closed"]


def test_judges_are_kept_for_a_few_rounds_only(
    db_url: str, clock: FakeClock, standard: Dictionary
) -> None:
    rooms = Rooms(Store(db_url), DictionaryShelf(), clock)
    for n in range(JUDGE_CACHE + 5):
        code, _ = rooms.create(f"p{n}")
        board = rooms.start_round(Seat(code, f"p{n}"), seed=n).board
        clock.advance(START_DELAY)
        rooms.submit(Seat(code, f"p{n}"), "qzqz")
        clock.advance(-START_DELAY)
        assert len(rooms._judges) <= JUDGE_CACHE
        assert board


def test_a_judge_forgotten_by_another_thread_mid_lookup_is_no_error(
    rooms: Rooms, clock: FakeClock
) -> None:
    """The judges' cache is used from worker threads at once (a word, a round's end forgetting
    its judge): a lookup is one step under the lock, so a round's end landing in the middle of
    it waits, instead of removing the judge between finding it and marking it recent (a
    KeyError, before the lock)."""
    import threading
    from collections import OrderedDict

    code, _ = rooms.create("ann")
    play_round(rooms, clock, code)
    rooms.submit(Seat(code, "ann"), "qzqz")  # the round's judge is cached
    forgetting: list[threading.Thread] = []

    class Interleaved(OrderedDict[int, Any]):
        """Lets another thread forget the judge just after the lookup found it."""

        def get(self, key: int, default: Any = None) -> Any:
            found = super().get(key, default)
            if found is not None and not forgetting:
                other = threading.Thread(target=rooms._forget_judge, args=(key,))
                forgetting.append(other)
                other.start()
                other.join(0.2)  # under the lock it waits for this lookup; without, it pops now
            return found

    rooms._judges = Interleaved(rooms._judges)
    assert rooms.submit(Seat(code, "ann"), "qzqy").word == "qzqy"  # judged, no KeyError
    forgetting[0].join()
    assert not rooms._judges  # forgotten, once the lookup was done


def test_a_refused_scoring_at_start_up_does_not_stop_the_others(
    db_url: str, clock: FakeClock
) -> None:
    refusals = [BusyError("the pool is full")]

    def refuses_once(fn: Callable[..., T], /, *args: Any) -> T:
        if refusals:
            raise refusals.pop()
        return run_here(fn, *args)

    rooms = Rooms(Store(db_url), DictionaryShelf(), clock, runner=refuses_once)
    codes = [rooms.create(name, {"timer": 30})[0] for name in ("ann", "bob")]
    for code, name in zip(codes, ("ann", "bob"), strict=True):
        rooms.start_round(Seat(code, name))
    clock.advance(60)
    done = rooms.score_overdue()
    assert len(done.scored) == 1 and done.refused == 1  # the first was refused, not the second
    assert [due for _, due in rooms.running()] == [clock.now]  # let go: due again at once
    assert rooms.score_overdue().scored == [codes[0]]


@pytest.mark.parametrize(
    "failure", [WordListError("no word list named 'house'"), KeyError("players")]
)
def test_a_passing_failure_to_score_keeps_the_round_and_its_points(
    db_url: str, clock: FakeClock, standard: Dictionary, failure: Exception
) -> None:
    failures = [failure, failure]  # a word list missing at boot, or a bug: never a marker

    def fails_twice(fn: Callable[..., T], /, *args: Any) -> T:
        if failures:
            raise failures.pop()
        return run_here(fn, *args)

    rooms = Rooms(Store(db_url), DictionaryShelf(), clock, runner=fails_twice)
    code, _ = rooms.create("ann")
    board = play_round(rooms, clock, code)
    rooms.submit(Seat(code, "ann"), words_on(board, standard)[0])
    clock.advance(3600)
    done = rooms.score_overdue()
    assert done.scored == [] and done.retry == [code] and done.refused == 0
    with pytest.raises(type(failure)):  # its claim was let go: tried again at once
        rooms.end_round_if_due(code)
    assert rooms.public(code).to_json()["rounds_played"] == 0
    assert rooms.score_overdue().scored == [code]
    assert "unscored" not in rooms.round_result(code, 1).to_json()
    assert rooms.public(code).to_json()["totals"]["ann"] > 0


POSTGRES = os.environ.get("BIGBOGGLE_TEST_POSTGRES")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL schema (the row locks of SQLite are the whole database's)."""
    with postgres_schema("test_rooms", migrated=True) as url:
        yield url


def test_every_transaction_locks_the_room_first(
    postgres_url: str, clock: FakeClock, standard: Dictionary
) -> None:
    """Rooms, then their rounds and seats: one order everywhere, so no two transactions can
    wait for each other (a deadlock on PostgreSQL)."""
    store = Store(postgres_url)
    rooms = Rooms(store, DictionaryShelf(), clock)
    locks: dict[int, list[list[str]]] = {}

    def begun(connection: Any) -> None:
        locks.setdefault(id(connection), []).append([])

    def executed(connection: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "FOR UPDATE" in statement and locks.get(id(connection)):
            table = re.search(r"\bFROM\s+\"?(\w+)", statement)
            locks[id(connection)][-1].append(table.group(1) if table else statement)

    sa.event.listen(store.engine, "begin", begun)
    sa.event.listen(store.engine, "before_cursor_execute", executed)
    try:
        _play_every_locking_step(rooms, clock, standard)
    finally:
        store.close()
    transactions = [tables for each in locks.values() for tables in each if tables]
    both = [tables for tables in transactions if "rooms" in tables and len(set(tables)) > 1]
    assert any("room_rounds" in tables for tables in both), transactions
    assert any("room_players" in tables for tables in both), transactions
    assert all(tables[0] == "rooms" for tables in both), transactions


def _play_every_locking_step(rooms: Rooms, clock: FakeClock, standard: Dictionary) -> None:
    code, _ = rooms.create("ann")
    ann, bob = Seat(code, "ann"), rooms.join(code, "bob")[0]
    rooms.connected(ann)
    rooms.connected(bob)
    board = play_round(rooms, clock, code)
    rooms.submit(bob, words_on(board, standard)[0])
    clock.advance(5)
    rooms.end_game(ann)  # the room, then its round; the result: the room, then the round
    rooms.disconnected(ann)
    clock.advance(rooms.limits.host_away + 1)
    assert rooms.hand_over_if_away(code) == "bob"  # the room, then the seats


def test_the_rooms_limits_come_from_limits_py(rooms: Rooms) -> None:
    from bigboggle import limits

    for key, high in (
        ("max_players", limits.MAX_ROOM_PLAYERS),
        ("target", limits.MAX_ROOM_TARGET),
        ("rounds", limits.MAX_ROOM_ROUNDS),
    ):
        assert RoomSettings.from_json({key: high}).to_json()[key] == high
        with pytest.raises(RoundInputError, match=f"settings.{key}=.* must be a number 1-{high}"):
            RoomSettings.from_json({key: high + 1})
    assert JUDGE_CACHE == limits.JUDGE_CACHE


def test_a_rooms_words_are_judged_by_the_round_engine(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    """The room keeps the list in the database; the round engine (Round.resume + judge_next)
    decides: the list's limit, repeats, too short for this player, the verdict itself.

    At a full list this is an INTENDED change from rooms before the one engine drove them
    (rooms now follow it, as solo games do): a repeat is answered ``repeated``, as by a Round
    (rooms refused it as a full list), and a new word gets the engine's "player 'ann' has
    2000 words; no more fit" (rooms said "you have 2000 words; no more fit")."""
    from bigboggle.limits import MAX_LIST_LENGTH
    from bigboggle.round import Round

    code, _ = rooms.create("ann", {"timer": 60, "handicaps": {"ann": 3}})
    board = play_round(rooms, clock, code)
    words = words_on(board, standard)
    live = Round(board, Rules.preset("big", timer=60), standard, ["ann"], min_length={"ann": 3})
    live.start(clock())
    for entry in [words[0], words[0], "qzqz", words[1].upper()]:
        assert rooms.submit(Seat(code, "ann"), entry) == live.submit("ann", entry, clock())
    with rooms.store.write_session() as session:
        round_id = session.scalar(select(RoomRoundRow.id).where(RoomRoundRow.room == code))
        consonants = ("".join(letters) for letters in itertools.product("bcdfg", repeat=5))
        session.add_all(  # the list filled up to its limit (3 entries are in it already)
            RoomWordRow(round_id=round_id, player="ann", entry=entry, at=clock(), verdict=None)
            for entry in itertools.islice(consonants, MAX_LIST_LENGTH - 3)
        )
    with pytest.raises(RoundInputError, match=f"{MAX_LIST_LENGTH} words; no more fit"):
        rooms.submit(Seat(code, "ann"), words[2])
    again = rooms.submit(Seat(code, "ann"), words[0])  # a repeat is answered, as by the engine
    assert again.verdict is Verdict.REPEATED


# -- what the service hands out ------------------------------------------------------------------


def orm_rows_in(value: object, where: str = "value") -> list[str]:
    """Where in ``value`` (a dataclass's fields, a list, tuple, set or dict, keys too) an ORM
    row of the store is: nothing the service returns may be one."""
    import dataclasses

    from bigboggle.services.store import Base

    if isinstance(value, Base):
        return [f"{where}: {type(value).__name__}"]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            found
            for field in dataclasses.fields(value)
            for found in orm_rows_in(getattr(value, field.name), f"{where}.{field.name}")
        ]
    if isinstance(value, dict):
        return [
            found
            for key, item in value.items()
            for found in [
                *orm_rows_in(key, f"{where} key"),
                *orm_rows_in(item, f"{where}[{key!r}]"),
            ]
        ]
    if isinstance(value, list | tuple | set | frozenset):
        return [
            found for i, item in enumerate(value) for found in orm_rows_in(item, f"{where}[{i}]")
        ]
    return []


def test_orm_rows_in_finds_a_row_however_deep() -> None:
    row = RoomRow(code="ABCDEFGHJ")
    assert orm_rows_in({"a": [(1, row)]}) == ["value['a'][0][1]: RoomRow"]
    assert orm_rows_in(Seat("x", "y")) == []


def test_no_call_of_the_service_returns_an_orm_row(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    returned: dict[str, object] = {}
    code, token = returned["create"] = rooms.create("ann", {"timer": 60})
    ann = Seat(code, "ann")
    bob, _ = returned["join"] = rooms.join(code, "bob")
    returned["join cy"] = rooms.join(code, "cy")
    returned["resume"] = rooms.resume(token)
    returned["players"] = rooms.players(code)
    returned["configure"] = rooms.configure(ann, {"timer": 60, "handicaps": {"bob": 3}})
    started = returned["start_round"] = rooms.start_round(ann, seed=7)
    clock.advance(START_DELAY)
    returned["submit"] = rooms.submit(bob, words_on(started.board, standard)[0])
    returned["kick"] = rooms.kick(ann, "cy")
    returned["view while playing"] = rooms.view(bob)
    returned["next_deadline"] = rooms.next_deadline(code)
    returned["running"] = rooms.running()
    clock.now = started.deadline + GRACE
    returned["end_round_if_due"] = rooms.end_round_if_due(code)
    returned["score_overdue"] = rooms.score_overdue()
    returned["standings"] = rooms.standings(code)
    returned["view"] = rooms.view(bob)
    returned["public"] = rooms.public(code)
    returned["round_result"] = rooms.round_result(code, 1)
    returned["start again"] = rooms.start_round(ann, seed=8)
    returned["end_game"] = rooms.end_game(ann)
    returned["connected"] = rooms.connected(ann)
    returned["disconnected"] = rooms.disconnected(ann)
    assert returned["end_round_if_due"] is not None  # the round was scored here
    assert orm_rows_in(returned, "returned") == []


def test_the_standings_handed_out_are_a_copy(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    """Changing what standings() returns changes nothing stored."""
    code, _ = rooms.create("ann")
    board = play_round(rooms, clock, code)
    rooms.submit(Seat(code, "ann"), words_on(board, standard)[0])
    finish(rooms, clock, code)
    before = rooms.standings(code).to_json()
    handed = rooms.standings(code)
    handed.add({"scores": {"ann": 100, "zed": 5}, "lengths": {"ann": {"8": 1}}})
    handed.totals["ann"] = -1
    handed.lengths.setdefault("ann", {})["9"] = 9
    assert rooms.standings(code).to_json() == before
    assert rooms.public(code).to_json()["totals"] == {"ann": before["totals"]["ann"]}


def test_a_started_round_is_a_plain_value(rooms: Rooms, clock: FakeClock) -> None:
    import dataclasses

    from bigboggle.services.rooms import StartedRound

    code, _ = rooms.create("ann", {"timer": 60})
    started = rooms.start_round(Seat(code, "ann"), seed=7)
    assert started == StartedRound(
        1,
        str(shake("big", 7).board),
        clock.now + START_DELAY,
        clock.now + START_DELAY + 60,
        ("ann",),
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        started.deadline = 0.0  # type: ignore[misc]
    assert started.to_json()["players"] == ["ann"]
