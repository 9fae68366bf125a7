"""Solo games against computer opponents, with hints, in a real browser (Playwright driving
Debian's Chromium against a real server on loopback): the /play form's opponents and hints, the
game page's opponents' counts arriving on the server's clock and its hints panel (a hint's path
marked on the board, its cost shown), and the results (the ranking, every opponent's list with
its crossed-off words, the hints used); at desktop width in the light theme and at phone width in
the dark one, each checked with axe-core. Screenshots under ``test-artifacts/screenshots/``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from browser_support import DESKTOP, PHONE, axe_clean, shot
from live_server import LiveServer

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


def assert_in_view(tab: Any, selectors: tuple[str, ...], where: str) -> None:
    """Each of ``selectors`` lies wholly inside ``tab``'s viewport as the page stands."""
    viewport = tab.viewport_size
    for selector in selectors:
        box = tab.locator(selector).bounding_box()
        assert box is not None, (where, selector)
        assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (
            where,
            selector,
            box,
        )
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (
            where,
            selector,
            box,
        )


def test_the_play_form_starts_a_game_against_three_opponents_with_hints(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    tab = open_page(**DESKTOP)
    tab.goto(server.url + "/play")
    tab.select_option("#opponent-count", "3")
    tab.select_option("#opponent-strength", "expert")
    tab.check("#hints")
    axe_clean(tab, "/play with opponents and hints chosen")
    tab.click("#start-button")
    # Three lists are made first. Wait for the game page's load, not only its address: its
    # script wires the word form, and an Enter before that submits the form as a page load.
    tab.wait_for_url(re.compile(r"/games/"), timeout=30000)
    seats = tab.locator("#opponent-counts li")
    expect(seats).to_have_count(3)
    expect(seats.first).to_contain_text("Expert bot")
    expect(tab.locator("#opponent-counts li").nth(2)).to_contain_text("Expert bot 3")
    expect(tab.locator("#hints-panel button[data-hint]")).to_have_count(4)
    tab.fill("#word", "lines")
    tab.press("#word", "Enter")
    tab.locator("#hints-panel button[data-hint='letters']").click()
    expect(tab.locator("#hint-list li")).to_contain_text("starting with", timeout=15000)
    expect(tab.locator("#hint-cost")).to_have_text("−2")
    axe_clean(tab, "a game against opponents with a hint used")
    shot(tab, "solo-opponents-running-desktop")
    # The opponents' counts and the hints take nothing from the play area: the board, the field,
    # the verdict and the meter stay in view, on a desktop and (the page brings the game back
    # into view when the height changes) on a phone.
    playing = (".board", "#word", "#verdict", "#board-meter")
    assert_in_view(tab, playing, "desktop, 3 opponents and hints")
    tab.set_viewport_size(PHONE)
    tab.fill("#word", "zzzz")
    tab.press("#word", "Enter")
    expect(tab.locator("#verdict")).to_contain_text("zzzz:")
    assert_in_view(tab, (*playing, "#clock"), "phone, 3 opponents and hints")
    shot(tab, "solo-opponents-running-phone")
    tab.set_viewport_size(DESKTOP)
    tab.on("dialog", lambda dialog: dialog.accept())
    tab.click("#end-button")
    ranking = tab.locator("#ranking tbody tr")
    expect(ranking).to_have_count(4)
    expect(tab.locator("#ranking tr.you")).to_contain_text("(you)")
    expect(tab.locator("#hints-used li")).to_have_count(1)
    expect(tab.locator("#hints-used li")).to_contain_text("the word was")
    expect(tab.locator(".opponent-heading")).to_have_count(3)
    axe_clean(tab, "the results against opponents")


def test_opponents_words_arrive_and_cross_off_on_a_phone_in_the_dark(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    status, game = server.call(
        "POST",
        "/api/games",
        {
            "board": BOARD,
            "player": "ann",
            "options": {"timer": 12},
            "opponents": [{"strength": "solver", "seed": 1}],
            "hints": True,
        },
    )
    assert status == 201, game
    tab = open_page(**PHONE, has_touch=True, color_scheme="dark")
    tab.goto(server.url + "/rules")
    tab.evaluate(
        "([id, key]) => { localStorage.setItem('bigboggle:game', id);"
        " localStorage.setItem(`bigboggle:key:${id}`, key); }",
        [game["id"], game["key"]],
    )
    tab.goto(server.url + f"/games/{game['id']}")
    tab.fill("#word", "lines")
    tab.press("#word", "Enter")
    expect(tab.locator("#verdict")).to_contain_text("lines")
    tab.locator("#hints-panel button[data-hint='path']").click()
    expect(tab.locator(".board .cell.hint-cell").first).to_be_visible(timeout=15000)
    assert tab.locator(".board .cell.hint-first").count() == 1
    # The solver's count grows on the clock, from its times alone (no request per second).
    expect(tab.locator("#opponent-counts .count").first).not_to_have_text("0", timeout=8000)
    axe_clean(tab, "a running game on a phone, dark")
    shot(tab, "solo-opponents-running-phone-dark")
    # The page goes on to the results at the deadline.
    expect(tab.locator("#score-heading")).to_be_visible(timeout=20000)
    expect(tab.locator("#my-words li").first).to_contain_text("crossed off")
    solver = tab.locator(".opponent-words")
    expect(solver.locator(".v-crossed_off").first).to_be_visible()
    expect(tab.locator("#ranking tbody tr").first).to_contain_text("Solver bot")
    expect(tab.locator("#hints-used li")).to_contain_text("the word was")
    # A missed word the solver found says so on a line of its own: the word is never broken.
    found_by = tab.locator("#missed-words li:not([hidden]) .word:has(.found-by)").first
    expect(found_by.locator(".found-by")).to_contain_text("found by Solver bot")
    word_box = found_by.locator(".w").bounding_box()
    note_box = found_by.locator(".found-by").bounding_box()
    assert word_box is not None and note_box is not None
    line = tab.evaluate(
        "(el) => parseFloat(getComputedStyle(el).lineHeight) || 1.5 * parseFloat(getComputedStyle(el).fontSize)",
        found_by.locator(".w").element_handle(),
    )
    assert word_box["height"] < 1.5 * line, "the missed word wrapped inside itself"
    assert note_box["y"] >= word_box["y"] + word_box["height"] - 1
    axe_clean(tab, "the results on a phone, dark")
