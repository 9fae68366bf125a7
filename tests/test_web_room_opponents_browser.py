"""Computer opponents in a room, in Chromium: the host adds one by strength, every player sees
its seat marked "computer" (a badge apart from the name), a short round in which its word count
grows on the server's clock, results with its list (marked too) crossed off against a person's,
the totals counting it, and the host removing it; at desktop and phone widths, axe-clean."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bigboggle import Dictionary, Rules, solve
from browser_support import DESKTOP, shot
from live_server import LiveServer
from test_web_room_browser import axe_clean, hosted, joined

pytestmark = pytest.mark.once

#: The board's text as the page drew it: each row's faces, rows apart by "/".
BOARD_TEXT = """() => [...document.querySelectorAll('#board-slot .board-row')]
    .map((row) => [...row.querySelectorAll('.cell')].map((c) => c.dataset.face).join(''))
    .join('/')"""


def test_a_host_adds_an_opponent_that_plays_a_round_and_shows_in_the_results(
    server: LiveServer, open_page: Callable[..., Any], standard: Dictionary
) -> None:
    from playwright.sync_api import expect

    ann, code = hosted(server, open_page, DESKTOP, timer=8)
    bob = joined(server, open_page, code, "bob")
    expect(ann.locator("#players li[data-player='bob']")).to_be_visible()

    # The host adds the solver by its strength; everyone sees the seat marked, never online.
    panel = ann.locator("#opponent-area")
    expect(panel).to_be_visible()
    panel.get_by_label("Strength").select_option("solver")
    panel.get_by_role("button", name="Add an opponent").click()
    for tab in (ann, bob):
        seat = tab.locator("#players li[data-player='Solver bot']")
        expect(seat.locator(".opponent-badge")).to_have_text("computer: Solver")
        expect(seat).to_have_attribute("data-presence", "computer")
    expect(
        ann.get_by_role("button", name="Remove Solver bot (computer opponent, Solver)")
    ).to_be_visible()
    expect(bob.locator("#opponent-area")).to_be_hidden()  # the host's alone
    axe_clean(ann, "the host's lobby with an opponent")
    shot(ann, "room-opponent-lobby-desktop")
    shot(bob, "room-opponent-lobby-phone")

    # A short round: the opponent's count grows on the server's clock.
    ann.locator("#host-panel").get_by_role("button", name="Start a round").click()
    expect(bob.locator("#board-slot .cell").first).to_be_visible(timeout=15_000)
    board = bob.evaluate(BOARD_TEXT)
    count = bob.locator("#players li[data-player='Solver bot'] .word-count")
    expect(count).not_to_have_text("0 words", timeout=8_000)
    shot(bob, "room-opponent-playing-phone")

    # bob finds a word the solver finds too: crossed off for both by the rules.
    words = [f.word for f in solve(board, standard, Rules.preset("big"))]
    bob.fill("#word", words[0])
    bob.keyboard.press("Enter")
    expect(bob.locator("#verdict")).to_contain_text(words[0])

    for tab in (ann, bob):
        expect(tab.locator("#results")).to_be_visible(timeout=20_000)
        heading = tab.locator("#round-result .list h4", has_text="Solver bot")
        expect(heading.locator(".opponent-badge")).to_have_text("computer: Solver")
        expect(tab.locator("#totals th", has_text="Solver bot")).to_be_visible()
    crossed = ann.locator("#round-result .crossed")
    expect(crossed).to_contain_text(words[0])
    axe_clean(ann, "the results with an opponent")
    axe_clean(bob, "the results at phone width")
    shot(ann, "room-opponent-results-desktop")
    shot(bob, "room-opponent-results-phone")

    # The host removes it: gone from the seats for everyone, the totals keep its points.
    ann.get_by_role("button", name="Remove Solver bot (computer opponent, Solver)").click()
    for tab in (ann, bob):
        expect(tab.locator("#players li[data-player='Solver bot']")).to_have_count(0)
