"""The ratings service on SQLite and PostgreSQL: rated room games played to their end through
the real rooms service (members only, teams, late joiners, removed players, unrated rooms),
the daily boards settled once their day is over (ties included), each contest rated once
whoever asks again, the history kept; and the web app's periodic task."""

from __future__ import annotations

import datetime as dt
import inspect
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg.errors
import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce
from sqlalchemy import Insert, event, func, select
from sqlalchemy.exc import OperationalError

from bigboggle import Dictionary, Rules, solve
from bigboggle.errors import RoundInputError, StoreError
from bigboggle.limits import (
    RATING_DAILY_PER_SETTLE,
    RATING_HISTORY_ROWS,
    ROOM_RATING_LOOKBACK,
    ROOM_RATING_PER_SWEEP,
)
from bigboggle.rating import DEFAULT_MU, Entrant, display, rate
from bigboggle.services.ratings import (
    DAILY_LOOKBACK_DAYS,
    Ratings,
    daily_contest_key,
    room_contest_key,
)
from bigboggle.services.rooms import START_DELAY, RoomRoundScored, Rooms, RoomSettings, Seat
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.store import (
    AccountRow,
    PlayRow,
    RatedContestRow,
    RatingEventRow,
    RatingRow,
    SoloGameRow,
    Store,
)
from conftest import FakeClock

pytestmark = pytest.mark.once


@pytest.fixture
def ratings(store: Store, clock: FakeClock) -> Ratings:
    return Ratings(store, clock)


@pytest.fixture
def heard(store: Store, clock: FakeClock, ratings: Ratings) -> tuple[Rooms, list[RoomRoundScored]]:
    """Rooms whose scored rounds the ratings hear (as the web app wires them), and every
    event they heard."""
    rooms = Rooms(store, DictionaryShelf(), clock)
    events: list[RoomRoundScored] = []
    rooms.on_round_scored.append(events.append)
    rooms.on_round_scored.append(ratings.on_room_round)
    return rooms, events


def members(store: Store, *names: str) -> dict[str, int]:
    """Accounts for ``names`` (as the accounts service would make them): name -> id."""
    ids = {}
    with store.session() as session:
        for name in names:
            row = AccountRow(username=name, name_key=name, password_hash=None, created_at=0.0)
            session.add(row)
            session.flush()
            ids[name] = row.id
    return ids


def play_round(
    rooms: Rooms, clock: FakeClock, code: str, words: dict[str, int], standard: Dictionary
) -> None:
    """One round: the host starts it, each player in ``words`` plays that many words of
    their own (different players' words differ, so nothing is crossed off), then it is
    scored at its deadline."""
    host = rooms.public(code).to_json()["host"]
    board = rooms.start_round(
        Seat(code, host), seed=7 + rooms.public(code).to_json()["rounds_played"]
    ).board
    clock.advance(START_DELAY)
    found = [f.word for f in solve(board, standard, Rules.preset("big"))]
    start = 0
    for player, count in words.items():
        for word in found[start : start + count]:
            rooms.submit(Seat(code, player), word)
        start += count
    deadline = rooms.next_deadline(code)
    assert deadline is not None
    clock.now = deadline
    assert rooms.end_round_if_due(code) is not None


def expected_after(
    entrants: list[Entrant], before: dict[int, tuple[float, float]] | None = None
) -> dict[int, tuple[float, float]]:
    return rate(entrants, before or {})


def stored(store: Store, family: str = "5x5") -> dict[int, tuple[float, float, float, int]]:
    with store.session() as session:
        return {
            r.account_id: (r.mu, r.sigma, r.display, r.games)
            for r in session.scalars(select(RatingRow).where(RatingRow.family == family))
        }


def count(store: Store, table: Any) -> int:
    with store.session() as session:
        return int(session.scalar(select(func.count()).select_from(table)) or 0)


def test_a_rated_room_game_rates_its_members_as_rate_says(
    store: Store,
    clock: FakeClock,
    ratings: Ratings,
    heard: tuple[Rooms, list[RoomRoundScored]],
    standard: Dictionary,
) -> None:
    rooms, events = heard
    ids = members(store, "ann", "bob", "cy")
    code, _ = rooms.create("ann", {"timer": 5, "rounds": 2}, account_id=ids["ann"])
    rooms.join(code, "bob", account_id=ids["bob"])
    rooms.join(code, "cy", account_id=ids["cy"])
    play_round(rooms, clock, code, {"ann": 3, "bob": 1}, standard)
    assert stored(store) == {}  # not over yet: nothing rated
    play_round(rooms, clock, code, {"ann": 2, "bob": 2}, standard)
    assert events[-1].over
    totals = rooms.standings(code).totals
    assert totals["ann"] > totals["bob"] > totals["cy"] == 0
    expected = expected_after([Entrant((ids[n],), totals[n]) for n in ("ann", "bob", "cy")])
    got = stored(store)
    for name in ("ann", "bob", "cy"):
        mu, sigma, shown, games = got[ids[name]]
        assert (mu, sigma) == pytest.approx(expected[ids[name]], abs=1e-12)
        assert shown == display(mu, sigma) and games == 1
    assert got[ids["ann"]][0] > DEFAULT_MU > got[ids["cy"]][0]
    assert ratings.ratings(ids["ann"]) == {
        "5x5": {
            "mu": got[ids["ann"]][0],
            "sigma": got[ids["ann"]][1],
            "display": got[ids["ann"]][2],
            "games": 1,
        }
    }
    rating = ratings.rating(ids["bob"], "5x5")
    assert rating is not None and rating.games == 1
    assert ratings.rating(ids["bob"], "4x4") is None
    # The history: one change each, with its place in the field.
    [change] = ratings.history(ids["cy"], "5x5")
    assert (change.contest, change.place, change.field) == (room_contest_key(code, 1), 3, 3)
    assert (change.mu, change.sigma) == pytest.approx(expected[ids["cy"]], abs=1e-12)
    # Heard again (the host's end, another process), the game changes nothing.
    ratings.on_room_round(events[-1])
    assert stored(store) == got
    assert count(store, RatingEventRow) == 3 and count(store, RatedContestRow) == 1
    # A rematch is a new contest: the second game starts from the first's ratings.
    rooms.rematch(Seat(code, "ann"))
    play_round(rooms, clock, code, {"bob": 3}, standard)
    play_round(rooms, clock, code, {"bob": 1}, standard)
    before = {a: (m, s) for a, (m, s, _, _) in got.items()}
    totals = rooms.standings(code).totals
    again = expected_after([Entrant((ids[n],), totals[n]) for n in ("ann", "bob", "cy")], before)
    after = stored(store)
    assert {a: (m, s) for a, (m, s, _, _) in after.items()} == pytest.approx(again)
    assert after[ids["bob"]][3] == 2
    assert [c.contest for c in ratings.history(ids["bob"], "5x5")] == [
        room_contest_key(code, 1),
        room_contest_key(code, 3),
    ]


def test_an_unrated_room_changes_nothing(
    store: Store, clock: FakeClock, heard: tuple[Rooms, list[RoomRoundScored]], standard: Dictionary
) -> None:
    rooms, events = heard
    ids = members(store, "ann", "bob")
    code, _ = rooms.create("ann", {"timer": 5, "rounds": 1, "rated": False}, account_id=ids["ann"])
    rooms.join(code, "bob", account_id=ids["bob"])
    assert rooms.public(code).to_json()["settings"]["rated"] is False
    play_round(rooms, clock, code, {"ann": 2}, standard)
    assert events[-1].over
    # Decided once: the key is kept (so that the sweep passes over it), no rating changes.
    assert stored(store) == {} and count(store, RatedContestRow) == 1
    assert count(store, RatingEventRow) == 0


def test_a_game_in_which_no_member_played_a_word_is_not_rated(
    store: Store,
    clock: FakeClock,
    ratings: Ratings,
    heard: tuple[Rooms, list[RoomRoundScored]],
    standard: Dictionary,
) -> None:
    """Two idle tabs (all zero, nothing entered) are not a contest; a guest's words do not
    make one of it either; one member's words do."""
    rooms, events = heard
    ids = members(store, "ann", "bob")
    code, _ = rooms.create("ann", {"timer": 5, "rounds": 1}, account_id=ids["ann"])
    rooms.join(code, "bob", account_id=ids["bob"])
    rooms.join(code, "zed")  # a guest
    play_round(rooms, clock, code, {"zed": 2}, standard)
    assert events[-1].over
    assert rooms.standings(code).totals["ann"] == rooms.standings(code).totals["bob"] == 0
    assert stored(store) == {} and count(store, RatingEventRow) == 0
    assert ratings.sweep_rooms() == []  # decided: not swept again
    rooms.rematch(Seat(code, "ann"))
    play_round(rooms, clock, code, {"bob": 1}, standard)
    assert set(stored(store)) == {ids["ann"], ids["bob"]}


def test_a_game_whose_rating_was_lost_is_rated_by_the_sweep(
    store: Store, clock: FakeClock, ratings: Ratings, standard: Dictionary
) -> None:
    """The process died after the last round's commit (no listener heard it): the sweep
    rates the game, once, as OpenSkill's own Plackett-Luce rates three players by their
    totals; at most its limit per call; games older than its look-back are left."""
    rooms = Rooms(store, DictionaryShelf(), clock)  # no ratings listening: a lost rating
    ids = members(store, "ann", "bob", "cy")
    code, _ = rooms.create("ann", {"timer": 5, "rounds": 1}, account_id=ids["ann"])
    rooms.join(code, "bob", account_id=ids["bob"])
    rooms.join(code, "cy", account_id=ids["cy"])
    play_round(rooms, clock, code, {"ann": 3, "bob": 1, "cy": 2}, standard)
    assert rooms.public(code).to_json()["over"] and stored(store) == {}
    assert ratings.sweep_rooms() == [room_contest_key(code, 1)]
    totals = rooms.standings(code).totals
    model = PlackettLuce()
    order = ("ann", "bob", "cy")
    expected = model.rate([[model.rating()] for _ in order], scores=[totals[n] for n in order])
    got = stored(store)
    for name, [player] in zip(order, expected, strict=True):
        assert got[ids[name]][:2] == pytest.approx((player.mu, player.sigma), abs=1e-12)
    assert ratings.sweep_rooms() == []  # once
    assert count(store, RatingEventRow) == 3
    # More lost games than one sweep decides: the rest wait for the next call.
    codes = []
    for _ in range(2):
        other, _ = rooms.create("ann", {"timer": 5, "rounds": 1}, account_id=ids["ann"])
        rooms.join(other, "bob", account_id=ids["bob"])
        play_round(rooms, clock, other, {"ann": 1}, standard)
        codes.append(other)
    first = ratings.sweep_rooms(limit=1)
    assert len(first) == 1 and first + ratings.sweep_rooms(limit=1) == sorted(
        room_contest_key(c, 1) for c in codes
    )
    # A game that ended longer ago than the look-back is left as it is.
    old, _ = rooms.create("ann", {"timer": 5, "rounds": 1}, account_id=ids["ann"])
    rooms.join(old, "bob", account_id=ids["bob"])
    play_round(rooms, clock, old, {"bob": 1}, standard)
    clock.advance(ROOM_RATING_LOOKBACK * 86_400 + 60)
    assert ratings.sweep_rooms() == []
    assert ROOM_RATING_PER_SWEEP >= 1


def test_a_rematch_rates_the_game_before_it_first(
    store: Store, clock: FakeClock, ratings: Ratings, standard: Dictionary
) -> None:
    """The host ends a game between rounds and its end is never heard (the process died, or
    a rematch in another tab came first): the rematch itself has the game rated before the
    room forgets where it began; a listener that fails refuses the rematch."""
    rooms = Rooms(store, DictionaryShelf(), clock)  # nobody listening when the game ends
    ids = members(store, "ann", "bob")
    code, _ = rooms.create("ann", {"timer": 5, "rounds": 3}, account_id=ids["ann"])
    rooms.join(code, "bob", account_id=ids["bob"])
    play_round(rooms, clock, code, {"ann": 2, "bob": 1}, standard)
    assert rooms.end_game(Seat(code, "ann")) is None  # between rounds
    assert stored(store) == {}

    def failing(_event: RoomRoundScored) -> None:
        raise StoreError("the database cannot answer")

    rooms.on_round_scored.append(failing)
    with pytest.raises(StoreError):
        rooms.rematch(Seat(code, "ann"))
    assert rooms.public(code).to_json()["over"]  # no rematch: the game can still be rated
    rooms.on_round_scored.remove(failing)
    rooms.on_round_scored.append(ratings.on_room_round)
    rooms.rematch(Seat(code, "ann"))
    assert not rooms.public(code).to_json()["over"]
    got = stored(store)
    assert got[ids["ann"]][0] > DEFAULT_MU > got[ids["bob"]][0]
    assert [c.contest for c in ratings.history(ids["bob"], "5x5")] == [room_contest_key(code, 1)]


def test_the_room_shows_whether_the_game_in_progress_is_rated(
    store: Store, clock: FakeClock, heard: tuple[Rooms, list[RoomRoundScored]], standard: Dictionary
) -> None:
    """The game is rated as its first round was played: unticking "Rated game" after it
    changes the settings (the next game's), not the state's ``rated`` of this one."""
    rooms, _ = heard
    ids = members(store, "ann", "bob")
    code, _ = rooms.create("ann", {"timer": 5, "rounds": 2}, account_id=ids["ann"])
    rooms.join(code, "bob", account_id=ids["bob"])
    assert rooms.view(Seat(code, "bob")).to_json()["rated"] is None  # the settings decide
    play_round(rooms, clock, code, {"ann": 2, "bob": 1}, standard)
    rooms.configure(Seat(code, "ann"), {"timer": 5, "rounds": 2, "rated": False})
    state = rooms.view(Seat(code, "bob")).to_json()
    assert state["settings"]["rated"] is False and state["rated"] is True
    play_round(rooms, clock, code, {"bob": 1}, standard)
    assert set(stored(store)) == {ids["ann"], ids["bob"]}  # rated, as the state said
    rooms.rematch(Seat(code, "ann"))
    play_round(rooms, clock, code, {"bob": 1}, standard)
    assert rooms.view(Seat(code, "bob")).to_json()["rated"] is False


def test_the_rated_setting_is_a_boolean() -> None:
    assert RoomSettings().rated is True
    assert RoomSettings.from_json({"rated": False}).to_json()["rated"] is False
    with pytest.raises(RoundInputError, match=r"settings\.rated='yes' must be true or false"):
        RoomSettings.from_json({"rated": "yes"})
    with pytest.raises(RoundInputError, match=r"settings\.rated=1 must be true or false"):
        RoomSettings.from_json({"rated": 1})


def test_a_game_with_guests_rates_only_its_members_late_and_removed_ones_too(
    store: Store, clock: FakeClock, heard: tuple[Rooms, list[RoomRoundScored]], standard: Dictionary
) -> None:
    rooms, _ = heard
    ids = members(store, "ann", "bob", "dee")
    code, _ = rooms.create("ann", {"timer": 5, "rounds": 2}, account_id=ids["ann"])
    rooms.join(code, "bob", account_id=ids["bob"])
    rooms.join(code, "zed")  # a guest
    play_round(rooms, clock, code, {"zed": 4, "bob": 2, "ann": 1}, standard)
    rooms.kick(Seat(code, "ann"), "bob")  # bob leaves with his total
    rooms.join(code, "dee", account_id=ids["dee"])  # dee comes late
    play_round(rooms, clock, code, {"zed": 1, "dee": 1}, standard)
    totals = rooms.standings(code).totals
    assert set(totals) == {"ann", "bob", "zed", "dee"}
    expected = expected_after([Entrant((ids[n],), totals[n]) for n in ("ann", "bob", "dee")])
    got = stored(store)
    assert set(got) == {ids["ann"], ids["bob"], ids["dee"]}  # the guest is not rated
    for name in ("ann", "bob", "dee"):
        assert got[ids[name]][:2] == pytest.approx(expected[ids[name]], abs=1e-12)


def test_teams_are_rated_as_sides(
    store: Store, clock: FakeClock, heard: tuple[Rooms, list[RoomRoundScored]], standard: Dictionary
) -> None:
    rooms, _ = heard
    ids = members(store, "ann", "bob", "cy")
    code, _ = rooms.create("ann", {"timer": 5, "rounds": 1}, account_id=ids["ann"])
    rooms.join(code, "bob", account_id=ids["bob"])
    rooms.join(code, "cy", account_id=ids["cy"])
    rooms.join(code, "zed")
    rooms.configure(
        Seat(code, "ann"),
        {"timer": 5, "rounds": 1, "teams": {"red": ["ann", "bob"], "blue": ["cy", "zed"]}},
    )
    play_round(rooms, clock, code, {"ann": 2, "cy": 1, "zed": 3}, standard)
    totals = rooms.standings(code).totals
    assert set(totals) == {"red", "blue"}
    sides = [
        Entrant((ids["ann"], ids["bob"]), totals["red"]),
        Entrant((ids["cy"],), totals["blue"]),
    ]
    expected = expected_after(sides)
    got = stored(store)
    assert {a: v[:2] for a, v in got.items()} == pytest.approx(expected)
    assert [c.field for c in Ratings(store).history(ids["cy"], "5x5")] == [2]


def daily_play(
    store: Store, account: int, date: str, score: int, rules: str = "big", family: str = "5x5"
) -> None:
    """A member's daily play, as the history service records it."""
    at = dt.datetime.fromisoformat(date).replace(hour=12, tzinfo=dt.UTC).timestamp()
    with store.session() as session:
        session.add(
            PlayRow(
                account_id=account,
                kind="daily",
                rules=rules,
                family=family,
                ref=f"daily-{date}-{rules}-{account}",
                played_at=at,
                daily_date=date,
                score=score,
                words=score,
            )
        )


def test_the_daily_board_is_rated_once_after_its_day(store: Store, ratings: Ratings) -> None:
    ids = members(store, "ann", "bob", "cy", "dee")
    for name, score in (("ann", 40), ("bob", 25), ("cy", 40), ("dee", 3)):
        daily_play(store, ids[name], "2026-09-20", score)
    daily_play(store, ids["ann"], "2026-09-20", 11, rules="classic", family="4x4")
    daily_play(store, ids["bob"], "2026-09-20", 30, rules="classic", family="4x4")
    daily_play(store, ids["bob"], "2026-09-21", 99)  # today's: not over yet
    assert ratings.settle_daily("2026-09-20") == []  # the day is not over
    done = ratings.settle_daily("2026-09-21")
    assert sorted(done) == [
        daily_contest_key("2026-09-20", "big"),
        daily_contest_key("2026-09-20", "classic"),
    ]
    entrants = [
        Entrant((ids[n],), s) for n, s in (("ann", 40), ("bob", 25), ("cy", 40), ("dee", 3))
    ]
    expected = expected_after(entrants)
    got = stored(store)
    assert {a: v[:2] for a, v in got.items()} == pytest.approx(expected, abs=1e-12)
    assert got[ids["ann"]][:2] == pytest.approx(got[ids["cy"]][:2])  # a tie: the same update
    small = stored(store, "4x4")
    assert small[ids["bob"]][0] > DEFAULT_MU > small[ids["ann"]][0]
    [change] = ratings.history(ids["cy"], "5x5")
    assert (change.place, change.field) == (1, 4)
    assert ratings.history(ids["dee"], "5x5")[0].place == 4
    # Asked again, nothing changes; the next day rates the 21st.
    assert ratings.settle_daily("2026-09-21") == []
    assert stored(store) == got
    # bob alone on the 21st: one side, settled without a change.
    assert ratings.settle_daily("2026-09-22") == [daily_contest_key("2026-09-21", "big")]
    assert stored(store)[ids["bob"]][3] == 1
    assert count(store, RatedContestRow) == 3


def test_the_daily_board_checked_against_openskill_with_a_tie(
    store: Store, ratings: Ratings
) -> None:
    """A day's board of four members, two tied, settled: OpenSkill's own update of the
    field ranked by score (ties share a rank), with the members' earlier ratings."""
    ids = members(store, "ann", "bob", "cy", "dee")
    scores = {"ann": 40, "bob": 25, "cy": 40, "dee": 3}
    for name, score in scores.items():
        daily_play(store, ids[name], "2026-09-19", score)
    daily_play(store, ids["ann"], "2026-09-18", 1)
    daily_play(store, ids["dee"], "2026-09-18", 9)
    ratings.settle_daily("2026-09-19")  # the 18th: ann and dee have ratings before the 19th
    before = stored(store)
    assert ratings.settle_daily("2026-09-20") == [daily_contest_key("2026-09-19", "big")]
    model = PlackettLuce()
    order = ("ann", "bob", "cy", "dee")
    teams = [
        [model.rating(*before[ids[n]][:2])] if ids[n] in before else [model.rating()] for n in order
    ]
    expected = model.rate(teams, ranks=[2, 3, 2, 4])  # any ranks in the same order rank alike
    got = stored(store)
    for name, [player] in zip(order, expected, strict=True):
        assert got[ids[name]][:2] == pytest.approx((player.mu, player.sigma), abs=1e-12)


def test_a_day_waits_for_its_members_unscored_games(store: Store, ratings: Ratings) -> None:
    """After downtime the overdue daily games are scored in the background: a day is not
    rated while a member's game of it (that preset) is still unscored; a guest's unscored
    game, or another preset's, does not hold it."""
    ids = members(store, "ann", "bob", "cy")
    daily_play(store, ids["ann"], "2026-09-19", 10)
    daily_play(store, ids["bob"], "2026-09-19", 20)
    at = dt.datetime(2026, 9, 19, 23, 58, tzinfo=dt.UTC).timestamp()

    def game(name: str, account: int | None, rules: str = "big") -> SoloGameRow:
        return SoloGameRow(
            id=f"g-{name}-{rules}",
            rules=rules,
            dictionary="standard",
            board="ABCD" * 6 + "A",
            player=name,
            daily_date="2026-09-19",
            account_id=account,
            started_at=at,
            deadline=at + 180,
        )

    with store.session() as session:
        session.add_all(
            [game("cy", ids["cy"]), game("zed", None), game("cy", ids["cy"], rules="classic")]
        )
    assert ratings.settle_daily("2026-09-20") == []  # cy's big game is not scored yet
    assert stored(store) == {}
    with store.session() as session:
        cy_big = session.get(SoloGameRow, "g-cy-big")
        assert cy_big is not None
        cy_big.ended_at, cy_big.score, cy_big.result = at + 180, 30, {"score": 30}
    daily_play(store, ids["cy"], "2026-09-19", 30)  # what scoring it records
    assert ratings.settle_daily("2026-09-20") == [daily_contest_key("2026-09-19", "big")]
    assert set(stored(store)) == set(ids.values())


def test_new_ratings_are_inserted_in_the_order_of_their_members(
    store: Store, ratings: Ratings
) -> None:
    """Two contests inserting the same newcomers in opposite orders could deadlock on
    PostgreSQL: the rows go in by account id, whatever the ranking."""
    ids = members(store, "ann", "bob", "cy")
    inserted: list[list[int]] = []

    def seen(_conn: Any, clause: Any, multiparams: Any, _params: Any, _options: Any) -> None:
        if isinstance(clause, Insert) and clause.table.name == RatingRow.__tablename__:
            inserted.append([row["account_id"] for row in multiparams])

    event.listen(store.engine, "before_execute", seen)
    try:
        ranked = [Entrant((ids["cy"],), 9), Entrant((ids["ann"],), 5), Entrant((ids["bob"],), 1)]
        assert ratings.rate_contest("order", "5x5", 1.0, ranked)
    finally:
        event.remove(store.engine, "before_execute", seen)
    assert inserted == [sorted(ids.values())]


def test_a_deadlock_is_tried_again(store: Store, ratings: Ratings) -> None:
    """PostgreSQL aborting the contest's transaction (a deadlock: SQLSTATE 40P01) is tried
    again, and the contest rated once; an error no new try passes is raised at once."""
    ids = members(store, "ann", "bob")
    entrants = [Entrant((ids["ann"],), 5), Entrant((ids["bob"],), 4)]
    failures = [psycopg.errors.DeadlockDetected("deadlock detected")]

    def abort(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.startswith("INSERT INTO rating_events") and failures:
            raise OperationalError(statement, None, failures.pop())

    event.listen(store.engine, "before_cursor_execute", abort)
    try:
        assert ratings.rate_contest("deadlocked", "5x5", 1.0, entrants)
        assert not failures and count(store, RatingEventRow) == 2
        assert count(store, RatedContestRow) == 1
        failures.append(psycopg.errors.DiskFull("no space left"))
        with pytest.raises(StoreError, match="no space left"):
            ratings.rate_contest("full", "5x5", 1.0, entrants)
        assert not failures and count(store, RatedContestRow) == 1
    finally:
        event.remove(store.engine, "before_cursor_execute", abort)


def test_settling_is_bounded_per_call(store: Store, ratings: Ratings) -> None:
    ids = members(store, "ann", "bob")
    for day in range(1, 5):
        for name, score in (("ann", day), ("bob", 10)):
            daily_play(store, ids[name], f"2026-09-0{day}", score)
    assert ratings.settle_daily("2026-09-05", limit=3) == [
        daily_contest_key(f"2026-09-0{day}", "big") for day in (1, 2, 3)
    ]
    assert ratings.settle_daily("2026-09-05", limit=3) == [daily_contest_key("2026-09-04", "big")]
    assert stored(store)[ids["bob"]][3] == 4
    with pytest.raises(RoundInputError, match="not a date"):
        ratings.settle_daily("tomorrow")


def test_a_contest_is_rated_once(store: Store, ratings: Ratings) -> None:
    ids = members(store, "ann", "bob")
    entrants = [Entrant((ids["ann"],), 5), Entrant((ids["bob"],), 4)]
    assert ratings.rate_contest("test:1", "5x5", 1.0, entrants)
    first = stored(store)
    assert not ratings.rate_contest("test:1", "5x5", 2.0, entrants)
    assert not Ratings(store).rate_contest("test:1", "5x5", 2.0, entrants)  # another process
    assert stored(store) == first
    assert count(store, RatingEventRow) == 2
    # One side only: the key is kept, no rating changes.
    assert ratings.rate_contest("test:2", "5x5", 3.0, [Entrant((ids["ann"],), 5)])
    assert stored(store) == first


def test_the_web_app_wires_the_ratings_and_settles_at_start_up(
    store: Store, clock: FakeClock
) -> None:
    from bigboggle.web.app import create_app

    ids = members(store, "ann", "bob")
    daily_play(store, ids["ann"], "2026-09-19", 10)
    daily_play(store, ids["bob"], "2026-09-19", 20)
    app = create_app(store, clock=clock)  # the clock is 2026-09-21
    found = app.state.services
    assert found.ratings.on_room_round in found.rooms.on_round_scored
    with TestClient(app) as client:
        client.portal.call(found.rating_tasks.settled, 1)
        assert found.rating_tasks.rated == [daily_contest_key("2026-09-19", "big")]
        daily_play(store, ids["ann"], "2026-09-20", 10)
        daily_play(store, ids["bob"], "2026-09-20", 5)
        client.portal.call(found.rating_tasks.wake)
        client.portal.call(found.rating_tasks.settled, 2)
        assert found.rating_tasks.rated[-1] == daily_contest_key("2026-09-20", "big")
    assert stored(store)[ids["ann"]][3] == 2


def test_the_periodic_task_sweeps_the_room_games_left_unrated(
    store: Store, clock: FakeClock, standard: Dictionary
) -> None:
    """A room game whose end was never heard (the server died after its last round's commit)
    is rated by the web app's task at start-up, as a daily board is; the task sweeps
    :data:`ROOM_RATING_PER_SWEEP` games per call, call after call."""
    from bigboggle.web.app import create_app

    assert inspect.signature(Ratings.sweep_rooms).parameters["limit"].default == (
        ROOM_RATING_PER_SWEEP
    )
    rooms = Rooms(store, DictionaryShelf(), clock)  # the process that died: nobody listened
    ids = members(store, "ann", "bob")
    code, _ = rooms.create("ann", {"timer": 5, "rounds": 1}, account_id=ids["ann"])
    rooms.join(code, "bob", account_id=ids["bob"])
    play_round(rooms, clock, code, {"ann": 1}, standard)
    assert stored(store) == {}
    app = create_app(store, clock=clock)
    found = app.state.services
    with TestClient(app) as client:
        client.portal.call(found.rating_tasks.settled, 1)
        assert found.rating_tasks.swept == [room_contest_key(code, 1)]
    assert set(stored(store)) == {ids["ann"], ids["bob"]}


def test_processes_racing_rate_a_contest_once_and_share_newcomers(store: Store) -> None:
    """Two services (as two processes would) at once: the same contest is rated by one of
    them; two contests with the same newcomer both count (the later writer reads the row the
    other made)."""
    ids = members(store, "ann", "bob", "cy")
    same = [Entrant((ids["ann"],), 5), Entrant((ids["bob"],), 4)]
    go = threading.Barrier(2)

    def race(key: str, entrants: list[Entrant]) -> bool:
        go.wait()
        return Ratings(store).rate_contest(key, "5x5", 1.0, entrants)

    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(race, ["same", "same"], [same, same]))
    assert sorted(answers) == [False, True]
    assert count(store, RatingEventRow) == 2
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(race, "a", [Entrant((ids["cy"],), 9), Entrant((ids["ann"],), 1)])
        second = pool.submit(race, "b", [Entrant((ids["cy"],), 0), Entrant((ids["bob"],), 1)])
        assert first.result() and second.result()
    assert stored(store)[ids["cy"]][3] == 2
    assert count(store, RatingEventRow) == 6


def test_settling_rates_at_most_its_limit_per_call(store: Store, ratings: Ratings) -> None:
    ids = members(store, "ann", "bob")
    boards = [
        (f"2026-09-{day}", rules) for day in (17, 18, 19) for rules in ("big", "classic", "super")
    ]
    assert len(boards) > RATING_DAILY_PER_SETTLE
    for date, rules in boards:
        daily_play(store, ids["ann"], date, 3, rules=rules)
        daily_play(store, ids["bob"], date, 4, rules=rules)
    first = ratings.settle_daily("2026-09-20")
    assert first == [daily_contest_key(*board) for board in boards[:RATING_DAILY_PER_SETTLE]]
    rest = ratings.settle_daily("2026-09-20")
    assert rest == [daily_contest_key(*board) for board in boards[RATING_DAILY_PER_SETTLE:]]
    assert ratings.settle_daily("2026-09-20") == []


def test_the_history_answers_at_most_its_limit(store: Store, ratings: Ratings) -> None:
    [ann] = members(store, "ann").values()
    with store.session() as session:
        session.add_all(
            RatingEventRow(
                account_id=ann,
                family="5x5",
                contest=f"c{n}",
                at=float(n),
                place=1,
                field=2,
                mu=25.0 + n / 100,
                sigma=8.0,
                display=1000.0,
            )
            for n in range(RATING_HISTORY_ROWS + 5)
        )
    shown = ratings.history(ann, "5x5", limit=10_000)
    assert len(shown) == RATING_HISTORY_ROWS
    assert [c.contest for c in shown[:2]] == ["c5", "c6"]  # the last ones, oldest first
    assert shown[-1].contest == f"c{RATING_HISTORY_ROWS + 4}"
    assert [c.contest for c in ratings.history(ann, "5x5", limit=2)] == [
        f"c{RATING_HISTORY_ROWS + 3}",
        f"c{RATING_HISTORY_ROWS + 4}",
    ]
    assert ratings.history(ann, "4x4") == []


def test_settling_looks_back_a_week_only(store: Store, ratings: Ratings) -> None:
    ids = members(store, "ann", "bob")
    today = dt.date(2026, 9, 20)
    for back in (DAILY_LOOKBACK_DAYS, DAILY_LOOKBACK_DAYS + 1):
        date = (today - dt.timedelta(days=back)).isoformat()
        daily_play(store, ids["ann"], date, 3)
        daily_play(store, ids["bob"], date, 4)
    oldest = (today - dt.timedelta(days=DAILY_LOOKBACK_DAYS)).isoformat()
    assert ratings.settle_daily(today.isoformat()) == [daily_contest_key(oldest, "big")]


def test_settling_reads_the_last_days_from_an_index(db_url: str) -> None:
    """Which presets were played on the last days: a range of one index, read alone (on
    SQLite's plan), not every daily play the table holds."""
    store = Store(db_url)
    try:
        seen: list[tuple[str, Any]] = []

        def keep(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
            if "DISTINCT" in statement and "FROM plays" in statement:
                seen.append((statement, parameters))

        event.listen(store.engine, "before_cursor_execute", keep)
        try:
            Ratings(store).settle_daily("2026-09-20")
        finally:
            event.remove(store.engine, "before_cursor_execute", keep)
        [(statement, parameters)] = seen
        with store.engine.connect() as connection:
            plan = " ".join(
                str(row[-1])
                for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
            )
        assert "COVERING INDEX ix_plays_kind_date_rules (kind=? AND daily_date>" in plan, plan
    finally:
        store.engine.dispose()
