"""Members' history: the plays recorded when a member's solo game, daily board or room round
is scored (once each), the missed-words summary, and the rooms' hook that tells listeners
(the ratings) of each scored round and of each game's end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from bigboggle import Dictionary, Rules, solve
from bigboggle.limits import MISSED_WORDS_COUNTERS
from bigboggle.names import name_key
from bigboggle.services import history
from bigboggle.services.rooms import START_DELAY, RoomRoundScored, Rooms, Seat
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import AccountRow, MissedWordsRow, PlayRow, PlayTotalRow, Store
from conftest import FakeClock, postgres_schema

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"

pytestmark = pytest.mark.once


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, db_url: str) -> Iterator[str]:
    """A fresh database: a SQLite file, or a PostgreSQL schema (skipped without one)."""
    if request.param == "sqlite":
        yield db_url
    else:
        with postgres_schema("test_history", migrated=True) as url:
            yield url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    opened = Store(store_url)
    yield opened
    opened.close()


@pytest.fixture
def sqlite_store(db_url: str) -> Iterator[Store]:
    """A SQLite file only: for what does not depend on the database (the hook's calls)."""
    opened = Store(db_url)
    yield opened
    opened.close()


def make_member(store: Store, name: str) -> int:
    """A member named ``name`` (no password: these tests never log in), by id."""
    with store.session() as session:
        row = AccountRow(username=name, name_key=name_key(name), created_at=0.0)
        session.add(row)
        session.flush()
        return row.id


def plays_of(store: Store, account_id: int) -> list[PlayRow]:
    with store.session() as session:
        return list(
            session.scalars(
                select(PlayRow).where(PlayRow.account_id == account_id).order_by(PlayRow.id)
            )
        )


def missed_of(store: Store, account_id: int, family: str = "5x5") -> dict[str, object]:
    with store.session() as session:
        row = session.get(MissedWordsRow, (account_id, family))
        return dict(row.summary) if row is not None else {}


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


def test_a_failing_listener_breaks_nothing(sqlite_store: Store, clock: FakeClock) -> None:
    rooms = Rooms(sqlite_store, DictionaryShelf(), clock)
    heard: list[int] = []

    def broken(event: RoomRoundScored) -> None:
        raise RuntimeError("listener bug")

    rooms.on_round_scored.extend([broken, lambda event: heard.append(event.number)])
    code, _ = rooms.create("ann")
    play_room_round(rooms, clock, code, {})
    assert heard == [1]
    assert rooms.public(code).rounds_played == 1


def test_the_host_ending_a_game_between_rounds_is_heard(
    sqlite_store: Store, clock: FakeClock
) -> None:
    rooms = Rooms(sqlite_store, DictionaryShelf(), clock)
    heard: list[RoomRoundScored] = []
    rooms.on_round_scored.append(heard.append)
    code, _ = rooms.create("ann")
    play_room_round(rooms, clock, code, {})
    rooms.end_game(Seat(code, "ann"))
    assert [(e.number, e.over) for e in heard] == [(1, False), (1, True)]
    rooms.rematch(Seat(code, "ann"))  # the finished game's end told again before it goes
    assert [(e.number, e.over) for e in heard[2:]] == [(1, True)]
    rooms.end_game(Seat(code, "ann"))  # a game without a scored round: nothing to tell
    assert len(heard) == 3


def test_the_host_ending_a_running_round_is_heard_once_as_over(
    sqlite_store: Store, clock: FakeClock
) -> None:
    rooms = Rooms(sqlite_store, DictionaryShelf(), clock)
    heard: list[RoomRoundScored] = []
    rooms.on_round_scored.append(heard.append)
    code, _ = rooms.create("ann")
    rooms.start_round(Seat(code, "ann"), seed=7)
    clock.advance(START_DELAY + 1)
    rooms.end_game(Seat(code, "ann"))
    assert [(e.number, e.over) for e in heard] == [(1, True)]


# -- solo and daily plays ------------------------------------------------------------------------


def test_a_members_solo_game_is_recorded_once_when_scored(
    store: Store, clock: FakeClock, standard: Dictionary
) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    ann = make_member(store, "ann")
    solution = solve(BOARD, standard, Rules.preset("big"))
    other = next(found.word for found in solution if len(found.word) < 5)
    started = games.start("big", board=BOARD, account_id=ann)
    assert started.game.player == "ann"  # no name given: the member's own
    for entry in ["lines", other, "xyzzy", "lines"]:
        clock.advance(1)
        games.submit(started.game.id, entry, started.key)
    finished = games.finish(started.game.id, started.key)
    games.get(started.game.id, started.key)  # reads, settles again: nothing more recorded
    games.settle(started.game.id)
    [play] = plays_of(store, ann)
    assert (play.kind, play.rules, play.family, play.ref) == ("solo", "big", "5x5", started.game.id)
    assert play.score == finished.game.score and play.daily_date is None
    assert play.max_score == solution.total_score
    assert play.words == 2 and play.longest_word == "lines"
    points = {found.word: found.score for found in solution}
    assert play.best_word == max(["lines", other], key=lambda w: (points[w], len(w)))
    assert play.best_word_points == points[play.best_word]
    assert play.played_at == finished.game.ended_at
    summary = missed_of(store, ann)
    assert summary["games"] == 1
    counts = summary["counts"]
    assert isinstance(counts, dict) and "lines" not in counts and other not in counts
    rare = {m["word"] for m in finished.results["missed"] if m["rare"]}  # type: ignore[index]
    assert rare and not rare & set(counts)  # only the words worth learning are counted
    common = {m["word"] for m in finished.results["missed"] if not m["rare"]}  # type: ignore[index]
    assert set(counts) == {w for w in common if not m_offensive(w)}


def m_offensive(word: str) -> bool:
    from bigboggle.family import is_offensive

    return is_offensive(word)


def test_a_guests_game_records_nothing(sqlite_store: Store, clock: FakeClock) -> None:
    games = SoloGames(sqlite_store, DictionaryShelf(), clock)
    started = games.start("big", board=BOARD, player="ann")
    games.finish(started.game.id, started.key)
    with sqlite_store.session() as session:
        assert session.scalar(select(func.count()).select_from(PlayRow)) == 0


def test_a_members_daily_board_is_a_daily_play_under_their_name(
    store: Store, clock: FakeClock
) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    bob = make_member(store, "Bob")
    started = games.start("big", daily=True, player="someone else", account_id=bob)
    assert started.game.player == "Bob"  # a member plays the daily board as themselves
    clock.advance(Rules.preset("big").timer + 1)
    games.settle(started.game.id)  # the server's timer at the deadline
    games.settle(started.game.id)
    [play] = plays_of(store, bob)
    assert play.kind == "daily" and play.daily_date == started.game.daily_date
    assert play.words == 0 and play.longest_word is None and play.best_word is None
    [entry] = games.leaderboard("big", started.game.daily_date or "")
    assert entry.to_json()["member"] is True and entry.to_json()["username"] == "Bob"


# -- room plays ----------------------------------------------------------------------------------


def test_each_members_seat_gets_one_play_per_round(
    store: Store, clock: FakeClock, standard: Dictionary
) -> None:
    rooms = Rooms(store, DictionaryShelf(), clock)
    ann, cy = make_member(store, "ann"), make_member(store, "cy")
    code, _ = rooms.create("ann", {"rounds": 2}, account_id=ann)
    rooms.join(code, "bob")  # a guest
    rooms.join(code, "cyril", account_id=cy)  # a member may sit under another free name
    board = str(rooms.start_round(Seat(code, "ann"), seed=7).board)
    clock.advance(START_DELAY)
    found = sorted(solve(board, standard, Rules.preset("big")), key=lambda w: -w.score)
    words = [w.word for w in found]
    rooms.submit(Seat(code, "ann"), words[0])
    rooms.submit(Seat(code, "bob"), words[0])  # crossed off for both
    rooms.submit(Seat(code, "bob"), words[1])
    rooms.submit(Seat(code, "ann"), words[2])
    deadline = rooms.next_deadline(code)
    assert deadline is not None
    clock.now = deadline
    assert rooms.end_round_if_due(code) is not None
    assert rooms.end_round_if_due(code, grace=False) is None
    [ann_play] = plays_of(store, ann)
    assert (ann_play.kind, ann_play.ref, ann_play.family) == ("room", f"{code}/1", "5x5")
    assert ann_play.score == found[2].score and ann_play.words == 2
    assert ann_play.best_word == words[2] and ann_play.best_word_points == found[2].score
    assert ann_play.max_score == sum(w.score for w in found)
    [cy_play] = plays_of(store, cy)
    assert cy_play.score == 0 and cy_play.words == 0
    ann_missed = missed_of(store, ann)["counts"]
    assert isinstance(ann_missed, dict)
    assert words[1] in ann_missed or history.is_rare(standard, words[1])  # bob found, ann missed
    assert words[0] not in ann_missed and words[2] not in ann_missed
    state = rooms.view(Seat(code, "bob")).to_json()
    # Only a seat under the member's own user name is marked (cyril is cy's, unmarked).
    assert state["members"] == {"ann": "ann"}
    assert rooms.public(code).to_json()["members"] == {"ann": "ann"}


def test_a_round_that_could_not_be_scored_records_nothing() -> None:
    assert history.facts_of_room_round({"unscored": "x"}, "ann", lambda w: True) is None
    assert history.facts_of_room_round({"round": {"players": {}}}, "ann", lambda w: True) is None


# -- the missed-words summary --------------------------------------------------------------------


def test_record_play_is_idempotent_and_counts_misses_once(store: Store) -> None:
    ann = make_member(store, "ann")
    fields = {
        "account_id": ann,
        "kind": "solo",
        "rules": "big",
        "family": "5x5",
        "ref": "game1",
        "played_at": 1.0,
        "daily_date": None,
        "score": 3,
        "max_score": 10,
        "words": 1,
        "longest_word": "lines",
        "best_word": "lines",
        "best_word_points": 2,
    }
    with store.write_session() as session:
        assert history.record_play(session, **fields, missed=["hemp", "hemp", "lane"])  # type: ignore[arg-type]
    with store.write_session() as session:
        assert not history.record_play(session, **{**fields, "score": 99}, missed=["hemp"])  # type: ignore[arg-type]
    [play] = plays_of(store, ann)
    assert play.score == 3
    assert missed_of(store, ann) == {"counts": {"hemp": 1, "lane": 1}, "games": 1, "misses": 2}
    with pytest.raises(ValueError, match="kind"), store.write_session() as session:
        history.record_play(session, **{**fields, "kind": "chess", "ref": "g2"})  # type: ignore[arg-type]


def test_the_summary_is_bounded_and_keeps_the_words_missed_most() -> None:
    summary: dict[str, object] = {}
    often = [f"often{i}" for i in range(10)]
    for game in range(60):
        once = [f"w{game}x{i}" for i in range(50)]  # each missed once: the summary overflows
        summary = history.summarise(summary, [*often, *once])
        counts = summary["counts"]
        assert isinstance(counts, dict) and len(counts) <= MISSED_WORDS_COUNTERS
    counts = summary["counts"]
    assert isinstance(counts, dict)
    assert summary["games"] == 60 and summary["misses"] == 60 * (10 + 50)
    # Misra-Gries: each count is at most the truth, and short by at most misses / (k + 1).
    bound = int(summary["misses"]) / (MISSED_WORDS_COUNTERS + 1)
    for word in often:
        assert word in counts and 60 - bound <= counts[word] <= 60
    assert list(counts)[:10] == sorted(often)  # the most missed first
    assert all(n <= 1 for w, n in counts.items() if w not in often)


def test_a_small_summary_counts_exactly() -> None:
    summary = history.summarise({}, ["b", "a"], counters=3)
    summary = history.summarise(summary, ["a", "c"], counters=3)
    assert summary == {"counts": {"a": 2, "b": 1, "c": 1}, "games": 2, "misses": 4}
    summary = history.summarise(summary, ["d", "a"], counters=3)  # four words, three counters
    assert summary["counts"] == {"a": 2}


def test_a_history_that_fails_loses_no_result(
    sqlite_store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug in the history")

    monkeypatch.setattr(history, "facts_of_room_round", broken)
    monkeypatch.setattr(history, "facts_of_solo", broken)
    rooms = Rooms(sqlite_store, DictionaryShelf(), clock)
    games = SoloGames(sqlite_store, DictionaryShelf(), clock)
    ann = make_member(sqlite_store, "ann")
    code, _ = rooms.create("ann", account_id=ann)
    play_room_round(rooms, clock, code, {})
    assert rooms.public(code).rounds_played == 1
    started = games.start("big", board=BOARD, account_id=ann)
    assert games.finish(started.game.id, started.key).results is not None
    assert plays_of(sqlite_store, ann) == []


# -- the play totals ---------------------------------------------------------------------------


def _plays(account: int) -> list[dict[str, object]]:
    """Plays of one member out of time order, with ties of word length and points, boards
    without points and a replayed ref: what the totals must sum."""
    words = [("lines", "quartz", 11), ("tears", "zebra", 11), (None, None, None), ("pets", "a", 2)]
    plays = []
    for number in range(18):
        longest, best, points = words[number % len(words)]
        plays.append(
            {
                "account_id": account,
                "kind": ("solo", "daily", "room")[number % 3],
                "rules": ("big", "classic")[number % 5 % 2],
                "family": ("5x5", "4x4")[number % 5 % 2],
                "ref": f"g{number}",
                "played_at": 500.0 - 10 * (number % 4),
                "daily_date": None,
                "score": (number * 7) % 30,
                "max_score": (None, 0, 40, 20)[number % 4],
                "words": 3,
                "longest_word": longest,
                "best_word": best,
                "best_word_points": points,
            }
        )
    return plays


def _stored_totals(store: Store) -> list[dict[str, object]]:
    with store.session() as session:
        rows = session.scalars(select(PlayTotalRow)).all()
        found = [
            {column: getattr(row, column) for column in history.new_total(vars(row))}
            for row in rows
        ]
    return sorted(found, key=lambda row: tuple(str(row[name]) for name in history.TOTAL_KEY))


def test_recording_plays_keeps_the_totals_the_bulk_fold_makes(store: Store) -> None:
    ann = make_member(store, "ann")
    plays = _plays(ann)
    for play in plays:
        with store.session() as session:
            assert history.record_play(session, **play)  # type: ignore[arg-type]
    with store.session() as session:  # a play recorded again counts nothing
        assert not history.record_play(session, **{**plays[0], "score": 999})  # type: ignore[arg-type]
    stored = _stored_totals(store)
    folded = sorted(
        history.fold_totals(plays),
        key=lambda row: tuple(str(row[name]) for name in history.TOTAL_KEY),
    )
    assert stored == folded
    assert sum(total["games"] for total in stored) == len(plays)  # type: ignore[misc]
    big_solo = next(t for t in stored if t["rules"] == "big" and t["kind"] == "solo")
    assert big_solo["best_score"] == max(
        p["score"]
        for p in plays
        if p["rules"] == "big" and p["kind"] == "solo"  # type: ignore[type-var]
    )


def test_a_tie_keeps_the_word_of_the_earlier_play_whatever_order_it_arrives_in() -> None:
    base = _plays(1)[0] | {"max_score": 10, "score": 20}
    later = base | {"ref": "b", "played_at": 900.0, "longest_word": "later", "best_word": "zz"}
    earlier = base | {"ref": "a", "played_at": 100.0, "longest_word": "early", "best_word": "yy"}
    for order in ([later, earlier], [earlier, later]):
        (total,) = history.fold_totals(order)
        assert total["longest_word"] == "early" and total["best_word"] == "yy"
        assert total["best_share"] == 1.0 and total["games"] == 2
    longer = later | {"ref": "c", "longest_word": "longest", "best_word_points": 12}
    (total,) = history.fold_totals([earlier, longer])
    assert total["longest_word"] == "longest" and total["best_word"] == "zz"
    assert total["best_word_points"] == 12 and total["best_word_at"] == 900.0
