"""A room in Chromium, as its players see it: one board on screen from round to round (the last
round's results go when the next starts; the totals stay), the countdown before the board (a word
sent then is kept and the page says why), a word's verdict with its own points and the running
score apart, the host's "Next round" and the others' waiting, a rematch once the game is over,
the absolute share link copied, and each player's presence (away while their tab is hidden,
offline once it is closed). Players are browser contexts; rounds are short (5 s)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bigboggle import Dictionary, Rules, solve
from browser_support import DESKTOP, PHONE, shot
from browser_support import axe_clean as shared_axe_clean
from live_server import LiveServer

pytestmark = pytest.mark.once


#: A phone's share sheet (Debian's Chromium has none on Linux): it keeps what it was given.
SHARE_SHEET = "navigator.share = (data) => { window.__shared = data; return Promise.resolve(); };"

#: Makes the page believe its tab was hidden (or shown): what a browser does when the player
#: switches tabs or locks the phone.
SET_VISIBILITY = """(hidden) => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => hidden ? "hidden" : "visible" });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
    document.dispatchEvent(new Event("visibilitychange"));
}"""


#: Records the sounds the page starts (each OscillatorNode.start(), with its wave) into
#: window.__sounds, with sounds turned on for this browser (the page's WebAudio is real).
RECORD_SOUNDS = """
localStorage.setItem("bigboggle:sounds", "on");
window.__sounds = [];
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.__sounds.push({ type: this.type });
  return start.apply(this, args);
};
"""


def axe_clean(tab: Any, where: str) -> None:
    """browser_support's axe check, once the page's animations are at rest."""
    tab.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")
    shared_axe_clean(tab, where)


def hosted(
    server: LiveServer, open_page: Callable[..., Any], size: dict[str, int], **settings: Any
) -> tuple[Any, str]:
    """ann's tab in a new room she hosts (joined by her token), and the room's code."""
    status, room = server.call("POST", "/api/rooms", {"host": "ann", "settings": settings})
    assert status == 201, room
    ann = open_page(size["width"], size["height"], name="ann")
    ann.context.add_init_script(
        f"localStorage.setItem('bigboggle:room:{room['room']}', '{room['token']}');"
        " localStorage.setItem('bigboggle:name', 'ann');"
    )
    ann.goto(server.url + room["url"])
    return ann, room["room"]


def joined(
    server: LiveServer, open_page: Callable[..., Any], code: str, name: str, script: str = ""
) -> Any:
    """A player's tab (a phone) that joined room ``code`` by name (running ``script`` first)."""
    tab = open_page(PHONE["width"], PHONE["height"], name=name, has_touch=True)
    if script:
        tab.context.add_init_script(script)
    tab.goto(f"{server.url}/rooms/{code}")
    tab.fill("#name", name)
    tab.get_by_role("button", name="Join").click()
    return tab


def test_two_rounds_one_board_the_countdown_the_verdicts_and_a_rematch(
    server: LiveServer, open_page: Callable[..., Any], standard: Dictionary
) -> None:
    from playwright.sync_api import expect

    ann, code = hosted(server, open_page, DESKTOP, timer=5, rounds=2)
    bob = joined(server, open_page, code, "bob", RECORD_SOUNDS)
    expect(ann.locator("#players li[data-player='bob']")).to_be_visible()
    expect(bob.locator("#waiting")).to_have_text("Waiting for ann to start a round.")
    expect(ann.locator("#room-banner")).to_have_attribute("data-phase", "lobby")
    axe_clean(ann, "the host's lobby")
    ann.locator("#host-panel").get_by_role("button", name="Start a round").click()

    # The countdown: no board yet, a word typed now is kept and the page says why.
    for tab in (ann, bob):
        expect(tab.locator("#countdown")).to_be_visible()
        expect(tab.locator("#board-slot")).to_be_hidden()
        expect(tab.locator("#room-banner")).to_have_attribute("data-phase", "countdown")
    bob.fill("#word", "lines")
    bob.keyboard.press("Enter")
    expect(bob.locator("#verdict")).to_contain_text("Not yet: the round starts in")
    expect(bob.locator("#word")).to_have_value("lines")
    shot(bob, "room-countdown-phone")

    # The round: the board, a verdict with the word's own points, the running score apart.
    for tab in (ann, bob):
        expect(tab.locator("#board-slot .cell").first).to_be_visible(timeout=6_000)
        expect(tab.locator("#countdown")).to_be_hidden()
    expect(bob.locator("#verdict")).to_have_text(
        "The board is here: press Enter to send your word."
    )
    bob.locator("#word").press("Enter")  # the kept word goes now
    expect(bob.locator("#verdict")).to_contain_text("lines: ")
    # A word not on the board, twice: the repeat says what the first entry was, with its sound.
    bob.fill("#word", "zzzz")
    bob.keyboard.press("Enter")
    expect(bob.locator("#verdict")).to_have_text("zzzz: not on the board")
    heard = len(bob.evaluate("window.__sounds"))
    bob.fill("#word", "zzzz")
    bob.keyboard.press("Enter")
    expect(bob.locator("#verdict")).to_have_text("zzzz: entered already (not on the board)")
    assert {s["type"] for s in bob.evaluate("window.__sounds")[heard:]} == {"square"}  # invalid
    found = solve_all(ann, standard)
    for word in found.words[:2]:
        ann.fill("#word", word.word)
        ann.keyboard.press("Enter")
        points = f"{word.score} point{'s' if word.score != 1 else ''}"
        expect(ann.locator("#verdict")).to_have_text(f"{word.word}: scored, {points}")
    ann.fill("#word", found.words[0].word)  # found already
    ann.keyboard.press("Enter")
    expect(ann.locator("#verdict")).to_have_text(f"{found.words[0].word}: already found")
    total = found.words[0].score + found.words[1].score
    expect(ann.locator("#score-line")).to_have_text(
        f"Your score: {total} point{'s' if total != 1 else ''} so far (2 words)."
    )
    expect(ann.locator("#my-words li")).to_have_count(2)
    axe_clean(ann, "a round in play")
    shot(bob, "room-playing-phone")
    box = bob.locator("#board-slot .board").bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"]  # the board in view

    # Results: "Next round" for the host, waiting for the others.
    for tab in (ann, bob):
        expect(tab.locator("#results")).to_be_visible(timeout=15_000)
        expect(tab.locator("#play")).to_be_hidden()
    expect(ann.locator("#start-round")).to_have_text("Next round")
    expect(ann.locator("#host-panel")).to_be_visible()
    expect(bob.locator("#host-panel")).to_be_hidden()
    expect(bob.locator("#waiting")).to_have_text("Waiting for ann to start the next round.")
    expect(bob.locator("#room-banner")).to_contain_text("Waiting for ann to start the next round")
    axe_clean(bob, "a round's results")
    shot(ann, "room-results-desktop")
    ann.locator("#start-round").click()

    # Round 2: round 1's results are gone, one board on screen, the totals stay.
    for tab in (ann, bob):
        expect(tab.locator("#results")).to_be_hidden()
        expect(tab.locator("#round-result .board")).to_have_count(0)
        expect(tab.locator("#standings")).to_be_visible()
        expect(tab.locator("#standings")).to_contain_text("ann")
        expect(tab.locator("#round-number")).to_have_text("2")
        expect(tab.locator("#board-slot .cell").first).to_be_visible(timeout=6_000)
        expect(tab.locator(".board:visible")).to_have_count(1)
    shot(ann, "room-round-two-desktop")

    # The game is over after 2 rounds: a rematch for the host, the totals from zero.
    expect(ann.locator("#rematch")).to_be_visible(timeout=15_000)
    expect(bob.locator("#waiting")).to_have_text("Waiting for ann to start a rematch.")
    expect(ann.locator("#room-banner")).to_have_attribute("data-phase", "over")
    ann.locator("#rematch").click()
    for tab in (ann, bob):
        expect(tab.locator("#room-banner")).to_have_attribute("data-phase", "lobby")
        expect(tab.locator("#standings")).to_be_hidden()
        expect(tab.locator("#results")).to_be_hidden()
    expect(ann.locator("#start-round")).to_have_text("Start a round")
    expect(bob.locator("#waiting")).to_have_text("Waiting for ann to start a round.")


def solve_all(tab: Any, standard: Dictionary) -> Any:
    """Every word of the board on ``tab`` with its points."""
    faces = tab.locator("#board-slot .cell").evaluate_all("cells => cells.map(c => c.dataset.face)")
    rows = [
        "".join(f if len(f) == 1 else f"[{f}]" for f in faces[r * 5 : r * 5 + 5]) for r in range(5)
    ]
    return solve("/".join(rows).replace("[Qu]", "Qu"), standard, Rules.preset("big"))


def test_the_share_link_is_absolute_and_copied_and_presence_follows_the_tabs(
    server: LiveServer, open_page: Callable[..., Any]
) -> None:
    from playwright.sync_api import expect

    ann, code = hosted(server, open_page, DESKTOP)
    ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
    link = f"{server.url}/rooms/{code}"
    expect(ann.locator("#share-link")).to_have_value(link)
    ann.get_by_role("button", name="Copy").click()
    expect(ann.locator("#copy-status")).to_have_text("Copied the link.")
    assert ann.evaluate("navigator.clipboard.readText()") == link

    bob = joined(server, open_page, code, "bob")
    expect(bob.locator("#share-button")).to_be_hidden()  # no share sheet: no button
    cy = joined(server, open_page, code, "cy", SHARE_SHEET)
    cy.get_by_role("button", name="Share…").click()
    assert cy.evaluate("window.__shared.url") == link
    expect(ann.locator("#players li[data-player='bob']")).to_have_attribute(
        "data-presence", "online"
    )
    expect(ann.locator("#players li[data-player='cy']")).to_contain_text("online")
    bob.evaluate(SET_VISIBILITY, True)  # bob switches to another tab
    expect(ann.locator("#players li[data-player='bob']")).to_have_attribute("data-presence", "away")
    expect(cy.locator("#players li[data-player='bob']")).to_contain_text("away")
    shot(cy, "room-presence-phone")
    axe_clean(cy, "the lobby on a phone")
    bob.evaluate(SET_VISIBILITY, False)  # and back
    expect(ann.locator("#players li[data-player='bob']")).to_have_attribute(
        "data-presence", "online"
    )
    # bob opens the room in a second tab (the same browser: the same seat), then closes it; a
    # closing tab first says it is hidden. His first tab is in view: he stays online.
    second = bob.context.new_page()
    second.goto(f"{server.url}/rooms/{code}")
    expect(second.locator("#players li[data-player='bob']")).to_contain_text("you")
    second.evaluate(SET_VISIBILITY, True)
    second.close()
    dan = joined(server, open_page, code, "dan")  # news after the closing tab's
    expect(ann.locator("#players li[data-player='dan']")).to_be_visible()
    for tab in (ann, bob, dan):
        expect(tab.locator("#players li[data-player='bob']")).to_have_attribute(
            "data-presence", "online"
        )
    bob.evaluate(SET_VISIBILITY, True)  # his last tab in view hidden: away now
    expect(ann.locator("#players li[data-player='bob']")).to_have_attribute("data-presence", "away")
    bob.evaluate(SET_VISIBILITY, False)
    bob.goto("about:blank")  # bob closes the room's tab (the tab itself stays for its screenshot)
    expect(ann.locator("#players li[data-player='bob']")).to_have_attribute(
        "data-presence", "offline"
    )
    expect(cy.locator("#players li[data-player='bob']")).to_contain_text("offline")
    shot(ann, "room-presence-desktop")


def test_ties_share_a_place_and_the_rooms_small_words(
    server: LiveServer, open_page: Callable[..., Any]
) -> None:
    """A one-round game nobody scores in: ann and bob share 1st in the round's ranking and the
    totals (the banner says it is a tie), each list says "No words entered."; the summary says
    "1 round" and names the game by its title; a name of spaces is refused with a reason; the
    name field has the focus on arrival; "Copied the link." goes after a few seconds; the
    per-player settings line up."""
    from playwright.sync_api import expect

    ann, code = hosted(server, open_page, DESKTOP, timer=5, rounds=1)
    ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
    summary = ann.locator("#settings-summary")
    expect(summary).to_contain_text("Big Boggle (5x5, Deluxe dice), 5 s, 1 round.")  # not "big"
    expect(summary).to_contain_text("0 rounds played.")
    ann.get_by_role("button", name="Copy").click()
    expect(ann.locator("#copy-status")).to_have_text("Copied the link.")
    expect(ann.locator("#copy-status")).to_have_text("", timeout=8_000)

    bob = open_page(PHONE["width"], PHONE["height"], name="bob", has_touch=True)
    bob.goto(f"{server.url}/rooms/{code}")
    expect(bob.locator("#name")).to_be_focused()  # the next step: typing a name
    bob.keyboard.type("   ")
    bob.keyboard.press("Enter")
    expect(bob.locator("#room-error")).to_have_text(
        "Type a name to join: it cannot be only spaces."
    )
    expect(bob.locator("#name")).to_be_focused()
    bob.fill("#name", "bob")
    bob.keyboard.press("Enter")
    expect(bob.locator("#room-error")).to_be_hidden()
    expect(ann.locator("#players li[data-player='bob']")).to_be_visible()

    # The host's per-player settings: each name in line with its fields, the rows apart.
    ann.locator("#settings-panel summary").click()
    rows = ann.locator("#s-players .row")
    expect(rows).to_have_count(2)
    boxes = []
    for i in range(2):
        name = rows.nth(i).locator(".w").bounding_box()
        team = rows.nth(i).locator(".p-team").bounding_box()
        assert abs((name["y"] + name["height"] / 2) - (team["y"] + team["height"] / 2)) <= 3
        boxes.append(rows.nth(i).bounding_box())
    assert boxes[1]["y"] - (boxes[0]["y"] + boxes[0]["height"]) >= 6  # rows do not touch
    shot(ann, "room-settings-desktop")
    ann.set_viewport_size(PHONE)
    shot(ann, "room-settings-phone")
    ann.set_viewport_size(DESKTOP)
    ann.locator("#settings-panel summary").click()

    ann.locator("#start-round").click()
    for tab in (ann, bob):
        expect(tab.locator("#results")).to_be_visible(timeout=20_000)
        ranking = tab.locator("#round-result table.ranking tbody tr")
        expect(ranking).to_have_count(2)
        expect(ranking.locator("td:first-child")).to_have_text(["1", "1"])
        expect(tab.locator("#totals tbody tr td:first-child")).to_have_text(["1", "1"])
        expect(tab.locator("#winner")).to_have_text("The game ends in a tie.")
        expect(tab.locator("#round-result .no-words")).to_have_text(
            ["No words entered.", "No words entered."]
        )
    expect(summary).to_contain_text("1 round played.")
    shot(bob, "room-tie-phone")
    shot(ann, "room-tie-desktop")


def tab_to(tab: Any, selector: str, presses: int = 60) -> None:
    """Press Tab until ``selector`` has the focus (and shows it), at most ``presses`` times."""
    for _ in range(presses):
        tab.keyboard.press("Tab")
        if tab.evaluate("(s) => document.activeElement === document.querySelector(s)", selector):
            style = tab.locator(selector).evaluate(
                "n => { const s = getComputedStyle(n);"
                " return s.outlineStyle !== 'none' || s.boxShadow !== 'none'; }"
            )
            assert style, f"the focus on {selector} does not show"
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_a_host_plays_a_round_and_starts_the_next_by_keyboard_alone(
    server: LiveServer, open_page: Callable[..., Any], standard: Dictionary
) -> None:
    from playwright.sync_api import expect

    ann, _code = hosted(server, open_page, PHONE, timer=5)
    expect(ann.locator("#host-panel")).to_be_visible()
    tab_to(ann, "#start-round")
    ann.keyboard.press("Enter")
    expect(ann.locator("#board-slot .cell").first).to_be_visible(timeout=6_000)
    expect(ann.locator("#word")).to_be_focused()  # typing goes to the word at once
    word = solve_all(ann, standard).words[0]
    ann.keyboard.type(word.word)
    ann.keyboard.press("Enter")
    expect(ann.locator("#verdict")).to_contain_text(f"{word.word}: scored")
    expect(ann.locator("#results-heading")).to_be_focused(timeout=15_000)
    tab_to(ann, "#start-round")
    expect(ann.locator("#start-round")).to_have_text("Next round")
    ann.keyboard.press("Enter")
    expect(ann.locator("#round-number")).to_have_text("2")
    expect(ann.locator("#results")).to_be_hidden()
