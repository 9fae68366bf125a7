"""Members in play, in Chromium against a real ``bigboggle serve``: a guest's room seat and
daily game become a member's when the guest signs up (claim.js, through the sign-up page),
the room's seat list and the daily leaderboard then mark the member's name with a "member"
badge linking to the profile, a member on the daily page plays under their user name, and both
pages pass axe-core in both themes at desktop and phone width."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from browser_support import DESKTOP, require_axe
from live_server import LiveServer
from test_web_tour import Tour

pytestmark = pytest.mark.once

PASSWORD = "violet tractor harbour 92"


def test_a_guest_turned_member_is_marked_in_the_room_and_on_the_daily_board(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = open_page(DESKTOP["width"], DESKTOP["height"], name="members")
    page.on("dialog", lambda dialog: dialog.accept())  # "end the game now?"
    # As a guest: a room, then the daily board.
    page.goto(server.url + "/rooms")
    page.fill("#host", "Mara")
    page.locator("#create-room button[type=submit]").click()
    page.wait_for_url("**/rooms/*")
    room_path = page.url.removeprefix(server.url)
    players = page.locator("#players")
    expect(players).to_contain_text("Mara")
    expect(players.locator(".member-badge")).to_have_count(0)
    page.goto(server.url + "/daily")
    page.fill("#player", "Mara")
    page.locator("#daily-start").click()
    page.wait_for_url("**/games/*")
    page.locator("#end-button").click()
    expect(page.locator("#score-heading")).to_be_visible(timeout=20_000)
    # Signing up hands both to the new member.
    page.goto(server.url + "/signup")
    page.fill("#username", "Mara")
    page.fill("#password", PASSWORD)
    page.locator("#submit-button").click()
    expect(page.locator("#account-done")).to_contain_text(
        "1 game and 1 room seat you played as a guest are now on your profile"
    )  # a room seat is not a game
    # The daily board: the member's entry is marked, and a member is not asked for a name.
    page.goto(server.url + "/daily")
    badge = page.locator("#leaderboard .member-badge")
    expect(badge).to_have_attribute("href", "/players/Mara")
    expect(badge).to_have_text("member")  # a badge apart from the name, read out as "member"
    expect(badge).to_have_accessible_name("member")
    expect(badge).to_have_attribute("title", "Mara's profile")
    expect(page.locator("#daily-as")).to_contain_text("You play as Mara")
    expect(page.locator("#player")).to_have_count(0)
    # The room: the seat is marked too.
    page.goto(server.url + room_path)
    expect(players.locator(".member-badge")).to_have_attribute("href", "/players/Mara")
    # A solo game from /play and from the home page's "Play now": played under the user name,
    # so that a challenge made of it seats the member as Mara, not "you".
    page.evaluate("localStorage.removeItem('bigboggle:name')")
    page.goto(server.url + "/play")
    expect(page.locator("#player")).to_have_value("Mara")
    for start in ("/play", "/"):
        page.goto(server.url + start)
        page.locator("#start-button" if start == "/play" else "#quick-play button").click()
        page.wait_for_url("**/games/*")
        game_id = page.url.rsplit("/", 1)[1]
        status, game = server.call("GET", f"/api/games/{game_id}")
        assert status == 200 and game["player"] == "Mara", game
        page.locator("#end-button").click()
        expect(page.locator("#score-heading")).to_be_visible(timeout=20_000)
    assert page.evaluate("localStorage.getItem('bigboggle:name')") is None  # not a guest's name
    tour = Tour(page, require_axe())
    tour.look("members-room")
    page.goto(server.url + "/daily")
    expect(badge).to_be_visible()
    tour.look("members-daily")
    tour.check()
