"""Members' profiles (services/profiles.py) on SQLite and PostgreSQL, from hand-made plays:
bests and shares per family, games by preset and mode, weekly averages, daily streaks across
month ends, the calendar, missed words, ratings with their history, what only the member
sees; and the profile's JSON, page and charts over HTTP (escaped, valid SVG, no script)."""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from itertools import count
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bigboggle.errors import NotFoundError
from bigboggle.limits import (
    PROFILE_CALENDAR_WEEKS,
    PROFILE_MISSED_WORDS,
    PROFILE_RATING_POINTS,
    PROFILE_RECENT_PLAYS,
    PROFILE_WEEKS,
)
from bigboggle.names import name_key
from bigboggle.services.history import record_play
from bigboggle.services.profiles import MISSED_NOTE, Profiles, streaks, top_missed
from bigboggle.services.store import (
    AccountRow,
    MissedWordsRow,
    RatingEventRow,
    RatingRow,
    Store,
)
from bigboggle.web import charts
from bigboggle.web.app import create_app
from bigboggle.web.auth import SESSION_COOKIE
from conftest import FakeClock

pytestmark = pytest.mark.once

#: The FakeClock's "now": Monday 2026-09-21, 21:33:20 UTC.
TODAY = dt.date(2026, 9, 21)
_refs = count(1)


def at(day: dt.date, hour: float = 12.0) -> float:
    """Seconds since the epoch of ``hour`` o'clock UTC on ``day``."""
    midnight = dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)
    return midnight.timestamp() + hour * 3600


def member(store: Store, name: str, account_id: int | None = None) -> int:
    with store.session() as session:
        row = AccountRow(username=name, name_key=name_key(name), created_at=at(TODAY) - 86_400)
        if account_id is not None:
            row.id = account_id
        session.add(row)
        session.flush()
        return row.id


def play(store: Store, account_id: int, **given: Any) -> None:
    """A play of ``account_id`` (a solo Big Boggle game today unless told otherwise)."""
    values: dict[str, Any] = {
        "kind": "solo",
        "rules": "big",
        "family": "5x5",
        "ref": f"game{next(_refs)}",
        "played_at": at(TODAY),
        "daily_date": None,
        "score": 10,
        "max_score": 100,
        "words": 5,
        "longest_word": None,
        "best_word": None,
        "best_word_points": None,
    }
    values.update(given)
    if values["kind"] == "daily" and values["daily_date"] is None:
        values["daily_date"] = (
            dt.datetime.fromtimestamp(values["played_at"], dt.UTC).date().isoformat()
        )
    with store.session() as session:  # as the services record it: the play and its totals
        assert record_play(session, account_id=account_id, **values)


def daily(store: Store, account_id: int, day: dt.date, score: int = 10, rules: str = "big") -> None:
    play(store, account_id, kind="daily", rules=rules, played_at=at(day), score=score)


# -- the streak rule, alone ---------------------------------------------------------------------


def test_streaks_run_across_month_and_year_ends() -> None:
    days = ["2025-12-30", "2025-12-31", "2026-01-01", "2026-02-27", "2026-02-28", "2026-03-01"]
    assert streaks(days, "2026-03-01") == (3, 3)
    assert streaks([*days, "2026-01-02"], "2026-03-01") == (3, 4)


def test_the_current_streak_stands_until_a_whole_day_is_missed() -> None:
    days = ["2026-09-19", "2026-09-20"]
    assert streaks(days, "2026-09-20") == (2, 2)  # played today
    assert streaks(days, "2026-09-21") == (2, 2)  # today not played yet: still standing
    assert streaks(days, "2026-09-22") == (0, 2)  # a whole day missed
    assert streaks([], "2026-09-22") == (0, 0)


def test_a_streak_counts_each_day_once_whatever_the_presets() -> None:
    assert streaks(["2026-09-20", "2026-09-20", "2026-09-21"], "2026-09-21") == (2, 2)


# -- the profile --------------------------------------------------------------------------------


def test_no_member_is_not_found_and_names_compare_by_their_key(
    store: Store, clock: FakeClock
) -> None:
    member(store, "Ann")
    profiles = Profiles(store, clock)
    assert profiles.profile("ANN").name == "Ann"
    assert profiles.profile("  ann ").name == "Ann"
    for name in ("bob", "", "a\u200bnn", "x" * 10_000, 42):
        with pytest.raises(NotFoundError, match="no member called"):
            profiles.profile(name)


def test_games_are_counted_by_preset_and_mode(store: Store, clock: FakeClock) -> None:
    ann = member(store, "ann")
    for _ in range(3):
        play(store, ann)
    daily(store, ann, TODAY)
    play(store, ann, kind="room", ref="ABCD/1", rules="classic", family="4x4")
    view = Profiles(store, clock).profile("ann")
    assert view.games == 5
    by_rules = {games.rules: games.to_json() for games in view.presets}
    assert by_rules["big"] == {
        "rules": "big",
        "title": "Big Boggle (5x5, Deluxe dice)",
        "solo": 3,
        "daily": 1,
        "room": 0,
        "total": 4,
    }
    assert by_rules["classic"]["room"] == 1
    assert [games.rules for games in view.presets] == ["classic", "big"]  # the presets' order


def test_bests_are_kept_per_family(store: Store, clock: FakeClock) -> None:
    ann = member(store, "ann")
    play(
        store,
        ann,
        score=40,
        max_score=400,
        longest_word="stone",
        best_word="stones",
        best_word_points=3,
    )
    play(
        store,
        ann,
        score=30,
        max_score=100,
        longest_word="lines",
        best_word="lines",
        best_word_points=2,
    )
    play(
        store,
        ann,
        score=5,
        max_score=None,
        longest_word="tinsel",
        best_word="tinsel",
        best_word_points=3,
    )
    play(
        store,
        ann,
        family="4x4",
        rules="classic",
        score=90,
        max_score=90,
        longest_word="cat",
        best_word="cats",
        best_word_points=1,
    )
    bests = {best.family: best for best in Profiles(store, clock).profile("ann").bests}
    big = bests["5x5"]
    assert (big.games, big.best_score) == (3, 40)
    assert big.best_share == pytest.approx(0.3)
    assert big.longest_word == "tinsel"
    assert (big.best_word, big.best_word_points) == ("stones", 3)  # the first to score 3
    assert bests["4x4"].best_score == 90
    assert bests["4x4"].best_share == pytest.approx(1.0)


def test_weekly_averages_cover_the_last_weeks_monday_to_sunday(
    store: Store, clock: FakeClock
) -> None:
    ann = member(store, "ann")
    sunday = TODAY - dt.timedelta(days=1)
    play(store, ann, played_at=at(TODAY, 0.0), score=20, max_score=100)  # this week's Monday
    play(store, ann, played_at=at(TODAY, 1.0), score=40, max_score=None)
    play(store, ann, played_at=at(sunday, 23.99), score=10, max_score=50)  # last week
    oldest = TODAY - dt.timedelta(weeks=PROFILE_WEEKS - 1)
    play(store, ann, played_at=at(oldest), score=7, max_score=70)
    play(store, ann, played_at=at(oldest - dt.timedelta(days=1)), score=999)  # too old
    weekly = Profiles(store, clock).profile("ann").weekly
    assert len(weekly) == PROFILE_WEEKS
    assert weekly[-1].to_json() == {
        "week": "2026-09-21",
        "games": 2,
        "mean_score": 30.0,
        "mean_share": pytest.approx(0.2),  # only the play whose board total is known
    }
    assert (weekly[-2].week, weekly[-2].games, weekly[-2].mean_share) == ("2026-09-14", 1, 0.2)
    assert (weekly[0].week, weekly[0].games, weekly[0].mean_score) == (oldest.isoformat(), 1, 7)
    assert weekly[1].games == 0 and weekly[1].mean_score is None


def test_the_daily_streak_and_calendar(store: Store, clock: FakeClock) -> None:
    ann = member(store, "ann")
    clock.now = at(dt.date(2026, 10, 2), 9)  # a Friday
    for day in ("2026-09-28", "2026-09-29", "2026-09-30", "2026-10-01"):  # across a month end
        daily(store, ann, dt.date.fromisoformat(day), score=12)
    daily(store, ann, dt.date(2026, 9, 30), score=30, rules="classic")  # the same day again
    for number in range(1, 6):  # a longer run, long ago
        daily(store, ann, dt.date(2026, 3, number))
    play(store, ann, played_at=at(dt.date(2026, 9, 27)))  # a solo game: not a daily play
    record = Profiles(store, clock).profile("ann").daily
    assert (record.current_streak, record.longest_streak) == (4, 5)
    assert not record.played_today and record.days_played == 9
    calendar = record.calendar
    first = dt.date.fromisoformat(calendar[0].date)
    assert first.weekday() == 0 and calendar[-1].date == "2026-10-02"
    assert len(calendar) == 7 * (PROFILE_CALENDAR_WEEKS - 1) + 5  # Monday to Friday this week
    by_date = {day.date: day for day in calendar}
    assert by_date["2026-09-30"].best == 30 and by_date["2026-09-30"].played
    assert not by_date["2026-09-27"].played


def test_missed_words_are_the_top_ones_with_a_note(store: Store, clock: FakeClock) -> None:
    ann = member(store, "ann")
    counts = {f"word{n:02d}": n for n in range(1, 26)} | {"aaa": 25}
    with store.session() as session:
        session.add(
            MissedWordsRow(account_id=ann, family="5x5", summary={"counts": counts, "games": 9})
        )
        session.add(MissedWordsRow(account_id=ann, family="4x4", summary={"counts": "broken"}))
    view = Profiles(store, clock).profile("ann")
    (missed,) = view.missed
    assert missed.family == "5x5" and missed.games == 9
    assert len(missed.words) == PROFILE_MISSED_WORDS
    assert missed.words[:3] == (("aaa", 25), ("word25", 25), ("word24", 24))
    assert view.to_json()["missed_note"] == MISSED_NOTE and "approximate" in MISSED_NOTE


def test_a_broken_missed_words_summary_counts_as_empty() -> None:
    assert top_missed(None) == (0, [])
    assert top_missed({"counts": {"a": True, "b": -1, "c": "x", "d": 2}, "games": "x"}) == (
        0,
        [("d", 2)],
    )


def test_ratings_with_their_last_changes_oldest_first(store: Store, clock: FakeClock) -> None:
    ann = member(store, "ann")
    with store.session() as session:
        session.add(
            RatingRow(
                account_id=ann,
                family="5x5",
                mu=30,
                sigma=4,
                display=1_720,
                games=60,
                updated_at=clock.now,
            )
        )
        for number in range(60):
            session.add(
                RatingEventRow(
                    account_id=ann,
                    family="5x5",
                    contest=f"c{number}",
                    at=clock.now - 1000 + number,
                    place=1,
                    field=2,
                    mu=25,
                    sigma=8,
                    display=1_000 + number,
                )
            )
    (rating,) = Profiles(store, clock).profile("ann").ratings
    assert (rating.family, rating.display, rating.games) == ("5x5", 1_720, 60)
    assert len(rating.history) == PROFILE_RATING_POINTS
    assert [point.display for point in rating.history] == [
        1_000 + n for n in range(60 - PROFILE_RATING_POINTS, 60)
    ]


def test_the_last_plays_are_the_members_own(store: Store, clock: FakeClock) -> None:
    ann = member(store, "ann")
    for number in range(PROFILE_RECENT_PLAYS + 3):
        play(store, ann, ref=f"g{number}", played_at=at(TODAY) - number)
    play(store, ann, kind="room", ref="WXYZ/3", played_at=at(TODAY) + 5)
    profiles = Profiles(store, clock)
    assert profiles.profile("ann").recent is None
    assert "recent" not in profiles.profile("ann").to_json()
    recent = profiles.profile("ann", own=True).recent
    assert recent is not None and len(recent) == PROFILE_RECENT_PLAYS
    assert [item.link for item in recent[:3]] == ["/rooms/WXYZ", "/games/g0", "/games/g1"]


def test_the_summary_for_api_me(store: Store, clock: FakeClock) -> None:
    ann = member(store, "ann")
    play(store, ann)
    play(store, ann)
    with store.session() as session:
        session.add(
            RatingRow(
                account_id=ann,
                family="6x6",
                mu=27,
                sigma=5,
                display=1_480,
                games=2,
                updated_at=clock.now,
            )
        )
    profiles = Profiles(store, clock)
    assert profiles.summary(ann) == {
        "games": 2,
        "ratings": {"6x6": {"mu": 27, "sigma": 5, "display": 1_480, "games": 2}},
    }
    assert profiles.summary(ann + 100) == {"games": 0, "ratings": {}}


# -- the charts -----------------------------------------------------------------------------------

HOSTILE = '<script>alert("x")</script>&amp;'


def test_a_line_chart_is_valid_svg_with_its_title_and_every_string_escaped() -> None:
    svg = charts.line_chart(
        "weekly-score",
        [
            charts.Point(HOSTILE, 3.0),
            charts.Point("b", None),
            charts.Point("c", 5.0),
            charts.Point("d", 6.0),
        ],
        title=f"{HOSTILE}'s scores",
        desc=HOSTILE,
    )
    root = ElementTree.fromstring(str(svg))
    ns = "{http://www.w3.org/2000/svg}"
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == "weekly-score-title weekly-score-desc"
    assert root.find(f"{ns}title").text == f"{HOSTILE}'s scores"  # type: ignore[union-attr]
    assert root.find(f"{ns}desc").text == HOSTILE  # type: ignore[union-attr]
    assert "<script" not in str(svg) and "style=" not in str(svg)
    assert len(root.findall(f"{ns}circle")) == 3
    assert len(root.findall(f"{ns}polyline")) == 1  # broken at the gap: one run of two


def axis_labels(svg: str) -> list[str]:
    """The y axis's labels of a line chart, bottom to top."""
    root = ElementTree.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    return [
        text.text or ""
        for text in root.findall(f"{ns}text")
        if text.get("text-anchor") == "end" and text.get("dominant-baseline") == "middle"
    ]


@pytest.mark.parametrize(
    ("shares", "expected"),
    [
        ([0.05], ["0%", "5%", "10%"]),  # one week: a few points of room, not ±100
        ([0.6], ["54%", "60%", "66%"]),  # a tenth of the value either side
        ([1.0], ["90%", "95%", "100%"]),  # never past 100%
        ([0.0], ["0%", "2%", "5%"]),
        ([0.02, 0.98], ["0%", "50%", "100%"]),  # clamped at both ends
        ([0.4, 0.6], ["38%", "50%", "62%"]),
    ],
)
def test_the_share_axis_stays_within_0_and_100_percent(
    shares: list[float], expected: list[str]
) -> None:
    points = [charts.Point(f"w{n}", share) for n, share in enumerate(shares)]
    svg = str(charts.line_chart("share", points, title="t", desc="d", percent=True))
    assert axis_labels(svg) == expected


def test_a_single_score_gets_a_little_room() -> None:
    svg = str(charts.line_chart("score", [charts.Point("w1", 10.0)], title="t", desc="d"))
    assert axis_labels(svg) == ["9", "10", "11"]
    svg = str(charts.line_chart("score", [charts.Point("w1", 500.0)], title="t", desc="d"))
    assert axis_labels(svg) == ["450", "500", "550"]


def test_a_chart_without_values_says_so() -> None:
    svg = charts.line_chart("empty", [charts.Point("a", None)], title="t", desc="d")
    assert "No games yet" in str(ElementTree.tostring(ElementTree.fromstring(str(svg))))


def test_a_chart_id_is_checked() -> None:
    with pytest.raises(ValueError, match="chart id"):
        charts.line_chart('x" onload="', [], title="t", desc="d")


def test_the_calendar_is_a_week_per_column() -> None:
    monday = dt.date(2026, 8, 31)
    days = [
        charts.Day((monday + dt.timedelta(days=n)).isoformat(), n if n % 3 else None)
        for n in range(10)
    ]
    root = ElementTree.fromstring(str(charts.calendar("cal", days, title=HOSTILE, desc="d")))
    cells = [element for element in root if element.tag.endswith("rect")]
    assert len(cells) == 10
    assert {cell.get("x") for cell in cells[:7]} == {cells[0].get("x")}
    assert cells[7].get("x") != cells[0].get("x") and cells[7].get("y") == cells[0].get("y")
    assert "cal-none" in (cells[0].get("class") or "")
    assert "cal-3" in (cells[8].get("class") or "")  # the best of these days


# -- over HTTP ----------------------------------------------------------------------------------


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    store = Store(db_url)
    # No lifespan: these pages only read (no timers, no worker pool, no settling task).
    yield TestClient(create_app(store, clock=clock))
    store.close()


def test_the_profile_json_and_page(client: TestClient, clock: FakeClock) -> None:
    store: Store = client.app.state.services.store  # type: ignore[attr-defined]
    ann = member(store, "ann")
    play(store, ann, score=42, longest_word="stones", best_word="stones", best_word_points=3)
    daily(store, ann, TODAY)
    answer = client.get("/api/players/ANN")
    assert answer.status_code == 200
    body = answer.json()
    assert body["name"] == "ann" and body["games"] == 2 and "recent" not in body
    assert body["daily"]["current_streak"] == 1
    page = client.get("/players/ann")
    assert page.status_code == 200
    html = page.text
    assert "<h1>ann</h1>" in html and "stones" in html
    assert 'src="/static/profile.js' not in html  # readable as it comes: no script of its own
    assert "style=" not in html
    svgs = re.findall(r"<svg class=\"chart.*?</svg>", html, re.S)
    assert len(svgs) == 3
    for svg in svgs:
        ElementTree.fromstring(svg)


def test_no_member_is_a_404_page_and_json(client: TestClient) -> None:
    assert client.get("/api/players/nobody").json() == {"error": "no member called 'nobody'"}
    page = client.get("/players/nobody")
    assert page.status_code == 404 and "no member called" in page.text
    long = client.get("/api/players/" + "x" * 200)
    assert long.status_code == 400


def test_a_hostile_name_and_words_render_as_text(client: TestClient) -> None:
    store: Store = client.app.state.services.store  # type: ignore[attr-defined]
    name = "<script>alert(1)<b>"
    ann = member(store, name)
    play(
        store,
        ann,
        longest_word="<img src=x>",
        best_word="<i>w</i>",
        best_word_points=2,
        missed=["<svg onload=x>"],
    )
    page = client.get("/players/%3Cscript%3Ealert(1)%3Cb%3E")
    assert page.status_code == 200
    html = page.text
    assert "<script>alert" not in html and "<img src=x>" not in html and "<svg onload" not in html
    assert "&lt;script&gt;alert(1)&lt;b&gt;" in html and "&lt;img src=x&gt;" in html
    for svg in re.findall(r"<svg class=\"chart.*?</svg>", html, re.S):
        ElementTree.fromstring(svg)


def test_your_own_profile_lists_your_last_games(client: TestClient) -> None:
    found = client.app.state.services  # type: ignore[attr-defined]
    session = found.accounts.sign_up("Ann", "correct horse battery staple")
    play(found.store, session.member.id, ref="abc123")
    assert "recent" not in client.get("/api/players/ann").json()  # a stranger's view
    client.cookies.set(SESSION_COOKIE, session.token)
    mine = client.get("/api/players/ann").json()
    assert [item["link"] for item in mine["recent"]] == ["/games/abc123"]
    page = client.get("/players/ANN").text
    assert 'href="/games/abc123"' in page and "Only you see this list." in page
    other = found.accounts.sign_up("bob", "correct horse battery staple")
    client.cookies.set(SESSION_COOKIE, other.token)
    assert "recent" not in client.get("/api/players/ann").json()
