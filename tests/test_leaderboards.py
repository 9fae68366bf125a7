"""Leaderboards (services/leaderboards.py) on SQLite and PostgreSQL: competition places for
ties (1, 2, 2, 4) on every period, the viewer's own rank below the rows shown (counted, not
read), guests and members on the day's board, the week's window at its UTC edges, ratings per
family; bad presets, periods and limits named; and the JSON and page over HTTP."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from itertools import count
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bigboggle.errors import RoundInputError, RulesError
from bigboggle.limits import LEADERBOARD_ROWS, LEADERBOARD_WEEK_DAYS
from bigboggle.names import name_key
from bigboggle.services.leaderboards import Leaderboards, competition_places
from bigboggle.services.store import AccountRow, PlayRow, RatingRow, SoloGameRow, Store
from bigboggle.web.app import create_app
from bigboggle.web.auth import SESSION_COOKIE
from conftest import FakeClock

pytestmark = pytest.mark.once

#: The FakeClock's "now": Monday 2026-09-21, 21:33:20 UTC.
TODAY = dt.date(2026, 9, 21)
_ids = count(1)


def at(day: dt.date, hour: float = 12.0) -> float:
    midnight = dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)
    return midnight.timestamp() + hour * 3600


def member(store: Store, name: str) -> int:
    with store.session() as session:
        row = AccountRow(username=name, name_key=name_key(name), created_at=at(TODAY))
        session.add(row)
        session.flush()
        return row.id


def daily_game(
    store: Store,
    player: str,
    score: int | None,
    *,
    account_id: int | None = None,
    day: dt.date = TODAY,
    rules: str = "big",
    ended: float | None = None,
) -> str:
    """A daily game of ``player`` (scored unless ``score`` is None) and, for a member, its play."""
    game_id = f"d{next(_ids):06d}"
    finished = ended if ended is not None else at(day) + next(_ids)
    with store.session() as session:
        session.add(
            SoloGameRow(
                id=game_id,
                rules=rules,
                options={},
                dictionary="standard",
                board="LINES/TQARD/HEMOP/ABCKI/PSTEW",
                seed=None,
                player=player,
                daily_date=day.isoformat(),
                daily_key=f"{day}/{rules}/{player.lower()}",
                account_id=account_id,
                started_at=finished - 180,
                deadline=finished,
                ended_at=finished if score is not None else None,
                score=score,
                max_score=200,
            )
        )
        if account_id is not None and score is not None:
            session.add(play_row(account_id, score, day, rules, game_id, finished))
    return game_id


def play_row(
    account_id: int, score: int, day: dt.date, rules: str, ref: str, played_at: float
) -> PlayRow:
    return PlayRow(
        account_id=account_id,
        kind="daily",
        rules=rules,
        family="5x5",
        ref=ref,
        played_at=played_at,
        daily_date=day.isoformat(),
        score=score,
        max_score=200,
        words=3,
    )


def add_play(store: Store, account_id: int, score: int, day: dt.date, **given: Any) -> None:
    with store.session() as session:
        row = play_row(account_id, score, day, "big", f"p{next(_ids)}", at(day))
        for key, value in given.items():
            setattr(row, key, value)
        session.add(row)


def rating(store: Store, account_id: int, family: str, display: float) -> None:
    with store.session() as session:
        session.add(
            RatingRow(
                account_id=account_id,
                family=family,
                mu=25,
                sigma=4,
                display=display,
                games=3,
                updated_at=at(TODAY),
            )
        )


def places(board: Any) -> list[tuple[int, str, float]]:
    return [(entry.place, entry.player, entry.score) for entry in board.entries]


def test_competition_places() -> None:
    assert competition_places([]) == []
    assert competition_places([9, 7, 7, 5]) == [1, 2, 2, 4]
    assert competition_places([3, 3, 3]) == [1, 1, 1]
    assert competition_places([9, 8, 8, 8, 1]) == [1, 2, 2, 2, 5]


def test_the_day_ties_share_places_and_guests_are_there_unmarked(
    store: Store, clock: FakeClock
) -> None:
    ann, bob = member(store, "Ann"), member(store, "bob")
    daily_game(store, "Ann", 90, account_id=ann)
    daily_game(store, "carol", 70)
    daily_game(store, "bob", 70, account_id=bob)
    daily_game(store, "dave", 50)
    daily_game(store, "erin", None)  # still playing: not on the board
    daily_game(store, "fred", 99, day=TODAY - dt.timedelta(days=1))  # yesterday's
    daily_game(store, "gina", 99, rules="classic")  # another preset's
    board = Leaderboards(store, clock).board("big", "day")
    assert places(board) == [(1, "Ann", 90), (2, "carol", 70), (2, "bob", 70), (4, "dave", 50)]
    assert board.total == 4 and board.you is None
    rows = board.to_json()["leaderboard"]
    assert rows[0]["member"] is True and rows[0]["profile"] == "/players/Ann"
    assert "member" not in rows[1]
    assert rows[0]["max_score"] == 200 and rows[0]["game"].startswith("d")


def test_the_day_marks_a_members_game_only_under_the_members_own_name(
    store: Store, clock: FakeClock
) -> None:
    """A guest's daily game played as "Kasparov" and claimed by member troll04 is theirs, but
    the board must not show "Kasparov" as a member."""
    troll = member(store, "troll04")
    daily_game(store, "Kasparov", 80, account_id=troll)
    daily_game(store, "TROLL04", 60, account_id=troll, day=TODAY - dt.timedelta(days=1))
    rows = Leaderboards(store, clock).board("big", "day").to_json()["leaderboard"]
    assert [(row["player"], "member" in row) for row in rows] == [("Kasparov", False)]
    board = Leaderboards(store, clock).board("big", "day", viewer_id=troll)
    assert board.you is not None and board.you.player == "Kasparov"


def test_the_day_shows_your_rank_below_the_rows(store: Store, clock: FakeClock) -> None:
    zed = member(store, "zed")
    for number, score in enumerate([80, 70, 70, 60]):
        daily_game(store, f"p{number}", score)
    daily_game(store, "zed", 60, account_id=zed)
    daily_game(store, "last", 10)
    board = Leaderboards(store, clock).board("big", "day", viewer_id=zed, limit=2)
    assert len(board.entries) == 2 and board.total == 6
    assert board.you is not None
    assert (board.you.place, board.you.player, board.you.score) == (4, "zed", 60)
    you = board.to_json()["you"]
    assert you["shown"] is False and you["member"] is True
    shown = Leaderboards(store, clock).board("big", "day", viewer_id=zed)
    assert shown.you_shown and shown.to_json()["you"]["shown"] is True
    other = member(store, "nobody-played")
    assert Leaderboards(store, clock).board("big", "day", viewer_id=other).you is None


def test_the_week_sums_members_daily_points_in_its_utc_days(store: Store, clock: FakeClock) -> None:
    ann, bob, cid = member(store, "ann"), member(store, "bob"), member(store, "cid")
    first = TODAY - dt.timedelta(days=LEADERBOARD_WEEK_DAYS - 1)
    add_play(store, ann, 30, TODAY)
    add_play(store, ann, 20, first)  # the first day counted, at noon
    add_play(store, ann, 500, first - dt.timedelta(days=1), played_at=at(first, 0) - 1)
    add_play(store, bob, 50, first, played_at=at(first, 0.0))  # at the first day's midnight
    add_play(store, cid, 40, TODAY)
    add_play(store, cid, 99, TODAY, kind="solo", ref="solo1")  # not a daily play
    add_play(store, cid, 99, TODAY, rules="classic", ref="classic1")  # another preset
    daily_game(store, "guest", 300)  # guests are not on the week's board
    board = Leaderboards(store, clock).board("big", "week")
    assert board.since == first.isoformat() and board.today == TODAY.isoformat()
    assert places(board) == [(1, "ann", 50), (1, "bob", 50), (3, "cid", 40)]
    assert [entry.days for entry in board.entries] == [2, 1, 1]
    assert board.total == 3


def test_the_week_shows_your_rank_by_counting(store: Store, clock: FakeClock) -> None:
    ids = [member(store, f"m{number}") for number in range(5)]
    for account, score in zip(ids, [50, 40, 40, 30, 20], strict=True):
        add_play(store, account, score, TODAY)
    board = Leaderboards(store, clock).board("big", "week", viewer_id=ids[4], limit=2)
    assert board.you is not None and (board.you.place, board.you.score) == (5, 20)
    assert not board.you_shown
    tied = Leaderboards(store, clock).board("big", "week", viewer_id=ids[2], limit=1)
    assert tied.you is not None and tied.you.place == 2


def test_all_time_is_by_rating_in_the_presets_family(store: Store, clock: FakeClock) -> None:
    ann, bob, cid, dee = (member(store, name) for name in ("ann", "bob", "cid", "dee"))
    rating(store, ann, "5x5", 1_300.0)
    rating(store, bob, "5x5", 1_200.0)
    rating(store, cid, "5x5", 1_200.0)
    rating(store, dee, "5x5", 1_100.0)
    rating(store, dee, "4x4", 2_000.0)
    boards = Leaderboards(store, clock)
    big = boards.board("big", "all", viewer_id=dee, limit=3)
    assert places(big) == [(1, "ann", 1_300), (2, "bob", 1_200), (2, "cid", 1_200)]
    assert big.family == "5x5" and big.total == 4
    assert big.you is not None and (big.you.place, big.you.player) == (4, "dee")
    three = places(boards.board("big", "all", limit=3))
    assert places(boards.board("big-1979", "all")) == [*three, (4, "dee", 1_100)]
    assert places(boards.board("classic", "all")) == [(1, "dee", 2_000)]


def test_bad_presets_periods_and_limits_are_named(store: Store, clock: FakeClock) -> None:
    boards = Leaderboards(store, clock)
    with pytest.raises(RulesError, match="unknown rules 'huge'"):
        boards.board("huge", "day")
    with pytest.raises(RoundInputError, match="period 'month' is not one of day, week, all"):
        boards.board("big", "month")
    for limit in (0, LEADERBOARD_ROWS + 1, True):
        with pytest.raises(RoundInputError, match="limit"):
            boards.board("big", "day", limit=limit)
    assert boards.board("big", "day", limit=LEADERBOARD_ROWS).entries == ()


# -- over HTTP ----------------------------------------------------------------------------------


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    store = Store(db_url)
    # No lifespan: these pages only read (no timers, no worker pool, no settling task).
    yield TestClient(create_app(store, clock=clock))
    store.close()


def test_the_leaderboard_json(client: TestClient) -> None:
    store: Store = client.app.state.services.store  # type: ignore[attr-defined]
    ann = member(store, "ann")
    daily_game(store, "ann", 40, account_id=ann)
    daily_game(store, "guest", 40)
    body = client.get("/api/leaderboard?rules=big&period=day").json()
    assert [(row["place"], row["player"]) for row in body["leaderboard"]] == [
        (1, "ann"),
        (1, "guest"),
    ]
    assert body["period"] == "day" and body["total"] == 2 and "you" not in body
    week = client.get("/api/leaderboard", params={"period": "week"}).json()
    assert [row["player"] for row in week["leaderboard"]] == ["ann"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("rules=huge", "unknown rules 'huge'"),
        ("period=month", "period 'month' is not one of day, week, all"),
        ("limit=0", "limit"),
        ("period=" + "x" * 50, "period"),
        ("rules=" + "x" * 50, "rules"),
    ],
)
def test_bad_queries_are_a_400_naming_them(client: TestClient, query: str, message: str) -> None:
    answer = client.get(f"/api/leaderboard?{query}")
    assert answer.status_code == 400
    assert message in answer.json()["error"]


def test_the_leaderboard_page_works_without_scripts(client: TestClient) -> None:
    store: Store = client.app.state.services.store  # type: ignore[attr-defined]
    ann = member(store, "<b>ann</b>")
    daily_game(store, "<b>ann</b>", 40, account_id=ann)
    page = client.get("/leaderboard")
    assert page.status_code == 200
    html = page.text
    assert '<form class="row panel" method="get" action="/leaderboard"' in html
    assert 'href="/leaderboard?rules=big&amp;period=week"' in html
    assert "&lt;b&gt;ann&lt;/b&gt;" in html and "<b>ann</b>" not in html
    assert 'href="/players/%3Cb%3Eann%3C%2Fb%3E"' in html
    assert '<script type="module"' not in html
    bad = client.get("/leaderboard?period=month")
    assert bad.status_code == 400 and "period &#39;month&#39; is not one of" in bad.text
    assert 'id="leaderboard-choice"' in bad.text  # the choices stay
    assert client.get("/leaderboard?rules=classic&period=all").status_code == 200


def test_a_logged_in_member_sees_their_own_row_below_the_top(client: TestClient) -> None:
    found = client.app.state.services  # type: ignore[attr-defined]
    session = found.accounts.sign_up("zed", "correct horse battery staple")
    for number in range(3):
        daily_game(found.store, f"p{number}", 90 - number)
    daily_game(found.store, "zed", 5, account_id=session.member.id)
    client.cookies.set(SESSION_COOKIE, session.token)
    body = client.get("/api/leaderboard?limit=2").json()
    assert body["you"]["place"] == 4 and body["you"]["player"] == "zed"
    assert body["you"]["shown"] is False
    page = client.get("/leaderboard").text
    assert 'class="your-row"' not in page  # all four fit in the page's rows
    assert '<tr class="you">' in page and "(you)" in page
