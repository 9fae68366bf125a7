"""A member's profile and the leaderboards in Chromium, against a real server: at desktop
(1280×800) and phone (390×844) width, in the light and the dark theme, each page has no
serious or critical axe-core violation, no sideways scroll, and leaves a screenshot
(``test-artifacts/screenshots/profiles-PAGE-WIDTH-THEME.png``); with scripts off, the profile's
charts and tables are all there; the leaderboard's period links and form work by keyboard."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from bigboggle.names import name_key
from bigboggle.services.history import fold_totals
from bigboggle.services.store import (
    AccountRow,
    MissedWordsRow,
    PlayRow,
    PlayTotalRow,
    RatingEventRow,
    RatingRow,
    SoloGameRow,
    Store,
)
from browser_support import DESKTOP, PHONE
from live_server import LiveServer
from test_web_tour import Tour

pytestmark = pytest.mark.once

#: A name that must show as text, never as markup.
HOSTILE = "<b>Zoë</b>"


def _today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def _at(day: dt.date, hour: float = 12.0) -> float:
    return dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC).timestamp() + hour * 3600


@pytest.fixture(scope="module")
def seeded(server: LiveServer) -> Iterator[LiveServer]:
    """The server's database with members, their plays over 20 weeks, a daily streak to
    today, ratings with their history, missed words, and today's daily board with guests."""
    store = Store(server.db_url)
    today = _today()
    now = time.time()
    with store.session() as session:
        names = ["ann", HOSTILE, "bob", "cy", "dee"]
        accounts = []
        for name in names:
            row = AccountRow(username=name, name_key=name_key(name), created_at=now - 200 * 86_400)
            session.add(row)
            session.flush()
            accounts.append(row.id)
        ann = accounts[0]
        plays: list[dict[str, Any]] = []
        for number in range(140):
            day = today - dt.timedelta(days=number)
            daily = number < 9 or number % 3 == 0
            plays.append(
                dict(
                    account_id=ann,
                    kind="daily" if daily else ("room" if number % 5 == 0 else "solo"),
                    rules="big" if number % 4 else "superbig",
                    family="5x5" if number % 4 else "6x6",
                    ref=f"ann{number}" if number % 5 else f"ROOM/{number}",
                    played_at=min(now - 60, _at(day, 10)),
                    daily_date=day.isoformat() if daily else None,
                    score=40 + (number * 7) % 60,
                    max_score=300 + number,
                    words=20,
                    longest_word="quarterbacks" if number == 30 else "stone",
                    best_word="quarterbacks" if number == 30 else "stones",
                    best_word_points=11 if number == 30 else 3,
                )
            )
        session.add_all(PlayRow(**play) for play in plays)
        session.add_all(PlayTotalRow(**total) for total in fold_totals(plays))  # as recorded
        for number in range(30):
            session.add(
                RatingEventRow(
                    account_id=ann,
                    family="5x5",
                    contest=f"daily:{number}",
                    at=now - (30 - number) * 86_400,
                    place=1 + number % 4,
                    field=5,
                    mu=25 + number / 5,
                    sigma=8 - number / 6,
                    display=1_000 + 12 * number + (number % 3) * 9,
                )
            )
        for place, account in enumerate(accounts):
            session.add(
                RatingRow(
                    account_id=account,
                    family="5x5",
                    mu=30,
                    sigma=3,
                    display=1_400 - 50 * (place // 2),
                    games=30,
                    updated_at=now,
                )
            )
        session.add(
            MissedWordsRow(
                account_id=ann,
                family="5x5",
                summary={
                    "counts": {f"word{n}": 30 - n for n in range(25)} | {"<i>x</i>": 20},
                    "games": 60,
                },
            )
        )
        for number, (player, score, account) in enumerate(
            [
                ("ann", 88, ann),
                ("guest one", 70, None),
                (HOSTILE, 70, accounts[1]),
                ("cy", 40, accounts[3]),
            ]
        ):
            session.add(
                SoloGameRow(
                    id=f"daily{number:04d}",
                    rules="big",
                    options={},
                    dictionary="standard",
                    board="LINES/TQARD/HEMOP/ABCKI/PSTEW",
                    seed=None,
                    player=player,
                    daily_date=today.isoformat(),
                    daily_key=f"{today}/big/{player.lower()}",
                    account_id=account,
                    started_at=now - 400,
                    deadline=now - 220,
                    ended_at=now - 220 + number,
                    score=score,
                    max_score=400,
                )
            )
    store.close()
    yield server


def test_the_profile_and_leaderboards_in_both_themes_and_widths(
    open_page: Any, seeded: LiveServer, axe_source: Path
) -> None:
    from playwright.sync_api import expect

    page = open_page(DESKTOP["width"], DESKTOP["height"], name="tab")
    looker = Tour(page, axe_source, prefix="profiles")

    page.goto(f"{seeded.url}/players/ann")
    expect(page.locator("h1")).to_have_text("ann")
    expect(page.locator("#streak")).to_contain_text("Current streak: 10 days")
    expect(page.locator("#bests")).to_contain_text("quarterbacks (11 points)")
    expect(page.locator("svg.line-chart")).to_have_count(3)  # two weekly, one rating
    expect(page.locator("svg.calendar-chart rect.cal-day")).not_to_have_count(0)
    looker.look("profile")

    page.goto(f"{seeded.url}/players/{quote(HOSTILE, safe='')}")
    expect(page.locator("h1")).to_have_text(HOSTILE)  # as text, not bold markup
    looker.look("profile-new-member")

    page.goto(f"{seeded.url}/leaderboard")
    board = page.locator("#leaderboard tbody tr")
    expect(board).to_have_count(4)
    expect(board.nth(0)).to_contain_text("ann")
    expect(board.nth(1).locator("td").first).to_have_text("2")
    expect(board.nth(2).locator("td").first).to_have_text("2")  # a tie shares its place
    expect(board.nth(3).locator("td").first).to_have_text("4")
    expect(board.nth(2)).to_contain_text(HOSTILE)
    looker.look("leaderboard-day")

    page.get_by_role("link", name="All time").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{seeded.url}/leaderboard?rules=big&period=all")  # and its load
    expect(page.locator("#leaderboard tbody tr")).to_have_count(5)
    expect(page.locator("#board-rule")).to_contain_text("by rating on 5x5 boards")
    looker.look("leaderboard-all")

    page.select_option("#period", "week")
    page.select_option("#rules", "superbig")
    page.get_by_role("button", name="Show").press("Enter")
    page.wait_for_url(f"{seeded.url}/leaderboard?rules=superbig&period=week")
    expect(page.locator("#board-heading")).to_contain_text("Super Big Boggle")
    assert not looker.problems, "\n".join(looker.problems)


def test_the_profile_reads_without_scripts(open_page: Any, seeded: LiveServer) -> None:
    from playwright.sync_api import expect

    page = open_page(PHONE["width"], PHONE["height"], name="no-js", java_script_enabled=False)
    page.goto(f"{seeded.url}/players/ann")
    expect(page.locator("h1")).to_have_text("ann")
    expect(page.locator("svg[role=img] title").first).to_contain_text("ann's mean score per week")
    page.locator("summary", has_text="The numbers, week by week").click()
    expect(page.locator("details").first.locator("tbody tr")).not_to_have_count(0)
    expect(page.locator(".missed-words li").first).to_contain_text("word0")
    expect(page.get_by_text("<i>x</i>")).to_be_visible()
