"""The room's "Rated game" setting in Chromium: on by default, the host turns it off by
keyboard, every player's settings summary says so, the choice survives a reload and reaches the
room's state; the settings form stays clean for axe-core at desktop and phone widths. Once a
game's first round is played, the summary says how that game is rated, whatever the settings
say afterwards (the next game's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from browser_support import DESKTOP, PHONE, axe_clean, shot
from live_server import LiveServer

pytestmark = pytest.mark.once


def test_the_host_turns_a_room_unrated(server: LiveServer, open_page: Callable[..., Any]) -> None:
    from playwright.sync_api import expect

    status, room = server.call("POST", "/api/rooms", {"host": "ann", "settings": {"timer": 30}})
    assert status == 201, room
    code = room["room"]
    ann = open_page(DESKTOP["width"], DESKTOP["height"], name="ann")
    ann.context.add_init_script(
        f"localStorage.setItem('bigboggle:room:{code}', '{room['token']}');"
        " localStorage.setItem('bigboggle:name', 'ann');"
    )
    ann.goto(server.url + room["url"])
    bob = open_page(PHONE["width"], PHONE["height"], name="bob", has_touch=True)
    bob.goto(f"{server.url}/rooms/{code}")
    bob.fill("#name", "bob")
    bob.get_by_role("button", name="Join").click()
    for tab in (ann, bob):
        expect(tab.locator("#settings-summary")).to_contain_text("Rated game.")

    ann.locator("#settings-panel summary").click()
    rated = ann.get_by_label("Rated game")
    expect(rated).to_be_checked()
    axe_clean(ann, "room settings, desktop")
    shot(ann, "room-rated-desktop")
    ann.set_viewport_size(PHONE)
    axe_clean(ann, "room settings, phone")
    shot(ann, "room-rated-phone")
    ann.set_viewport_size(DESKTOP)

    rated.focus()
    ann.keyboard.press("Space")  # by keyboard alone
    expect(rated).not_to_be_checked()
    ann.get_by_role("button", name="Save the settings").press("Enter")
    for tab in (ann, bob):
        expect(tab.locator("#settings-summary")).to_contain_text("Not rated.")
    status, state = server.call("GET", f"/api/rooms/{code}")
    assert status == 200 and state["settings"]["rated"] is False
    ann.reload()
    ann.locator("#settings-panel summary").click()
    expect(ann.get_by_label("Rated game")).not_to_be_checked()


def test_the_summary_shows_how_the_game_in_progress_is_rated(
    server: LiveServer, open_page: Callable[..., Any]
) -> None:
    from playwright.sync_api import expect

    settings = {"timer": 5, "rounds": 2}
    status, room = server.call("POST", "/api/rooms", {"host": "ann", "settings": settings})
    assert status == 201, room
    code = room["room"]
    ann = open_page(DESKTOP["width"], DESKTOP["height"], name="ann-game")
    ann.context.add_init_script(
        f"localStorage.setItem('bigboggle:room:{code}', '{room['token']}');"
        " localStorage.setItem('bigboggle:name', 'ann');"
    )
    ann.goto(server.url + room["url"])
    ann.locator("#host-panel").get_by_role("button", name="Start a round").click()
    summary = ann.locator("#settings-summary")
    expect(summary).to_contain_text("1 round played", timeout=15_000)
    ann.locator("#settings-panel summary").click()
    ann.get_by_label("Rated game").uncheck()
    ann.fill("#s-timer", "6")  # seen in the summary once saved
    ann.get_by_role("button", name="Save the settings").click()
    expect(summary).to_contain_text("6 s")
    status, state = server.call("GET", f"/api/rooms/{code}")
    assert status == 200 and state["settings"]["rated"] is False
    expect(summary).to_contain_text("Rated game. 1 round played")  # as its first round
    ann.reload()
    expect(summary).to_contain_text("6 s")
    expect(summary).to_contain_text("Rated game. 1 round played")
    shot(ann, "room-rated-in-progress-desktop")
