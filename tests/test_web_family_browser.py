"""The family filter and the solver's board in a real browser (Chromium against a live server).

- The solver hides the offensive words of a board built to hold some behind one "N offensive
  words hidden - Show" toggle (keyboard-usable); Show shows them, and the choice is remembered
  after a reload, in both directions.
- On a phone (390x844, dark theme) and on a desktop, the solver's board stays in view while the
  word list scrolls: a word tapped low in the list draws its path where the player can see it
  (defect 5). Both filter states and the phone's dark theme are checked with axe-core.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from browser_support import DESKTOP, PHONE, axe_clean, shot
from live_server import LiveServer

pytestmark = pytest.mark.once

#: A Big Boggle board built to hold offensive words (sluts, porn, shit, slut) among its 246.
BOARD = "SLUTS/HEARD/ITMOP/TBCKI/PORNW"
OFFENSIVE_ON_BOARD = {"sluts", "porn", "shit", "slut"}


def solver_url(server: LiveServer) -> str:
    return f"{server.url}/solve?board={quote(BOARD)}"


def visible_words(tab: Any) -> set[str]:
    return set(
        tab.eval_on_selector_all(
            "#word-list > li",
            "items => items.filter(i => i.checkVisibility()).map(i => i.dataset.word)",
        )
    )


def test_the_solver_hides_offensive_words_until_asked_and_remembers(
    open_page: Any, server: LiveServer
) -> None:
    tab = open_page(**DESKTOP)
    tab.goto(solver_url(server))
    items = tab.locator("#word-list > li")
    expect(items).to_have_count(246)
    offensive = tab.locator("#word-list > li.offensive")
    assert set(offensive.evaluate_all("items => items.map(i => i.dataset.word)")) == (
        OFFENSIVE_ON_BOARD
    )
    toggle = tab.locator(".family-toggle")
    expect(toggle).to_contain_text("4 offensive words hidden")
    for item in offensive.all():
        expect(item).to_be_hidden()
    shown = visible_words(tab)
    assert len(shown) == 242 and not shown & OFFENSIVE_ON_BOARD
    expect(tab.locator("#filter-count")).to_contain_text("242 words shown")
    axe_clean(tab, "the solver, offensive words hidden")

    # By keyboard: the toggle follows the filters.
    tab.focus("#filter-start")
    tab.keyboard.press("Tab")
    button = toggle.get_by_role("button", name="Show")
    expect(button).to_be_focused()
    tab.keyboard.press("Enter")
    expect(toggle).to_contain_text("4 offensive words shown")
    expect(toggle.get_by_role("button", name="Hide")).to_be_focused()
    expect(tab.locator("#filter-count")).to_contain_text("246 words shown")
    assert visible_words(tab) >= OFFENSIVE_ON_BOARD
    # The length filter still applies to them: 4 letters shows porn, shit, slut, not sluts.
    tab.select_option("#filter-length", "4")
    assert {"porn", "shit", "slut"} <= visible_words(tab) and "sluts" not in visible_words(tab)
    tab.select_option("#filter-length", "")
    axe_clean(tab, "the solver, offensive words shown")
    shot(tab, "family-solver-shown")

    tab.reload()
    expect(tab.locator(".family-toggle")).to_contain_text("4 offensive words shown")
    assert visible_words(tab) >= OFFENSIVE_ON_BOARD
    tab.locator(".family-toggle").get_by_role("button", name="Hide").click()
    expect(tab.locator(".family-toggle")).to_contain_text("4 offensive words hidden")
    tab.reload()
    expect(tab.locator(".family-toggle")).to_contain_text("4 offensive words hidden")
    assert not visible_words(tab) & OFFENSIVE_ON_BOARD

    # A board with no offensive word has no toggle.
    tab.goto(f"{server.url}/solve?board={quote('ABCD/EFGH/IJKL/MNOP')}")
    expect(tab.locator("#word-list > li").first).to_be_visible()
    expect(tab.locator(".family-toggle")).to_have_count(0)


def in_view(box: dict[str, float], height: float) -> bool:
    return box["y"] >= 0 and box["y"] + box["height"] <= height


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_solvers_board_stays_in_view_while_the_words_scroll(
    open_page: Any, server: LiveServer, size: dict[str, int]
) -> None:
    # The phone in the dark theme (its colours are checked by axe below), the desktop in light.
    scheme = "dark" if size is PHONE else "light"
    tab = open_page(**size, has_touch=True, color_scheme=scheme)
    tab.goto(solver_url(server))
    board = tab.locator(".solve-result .board")
    expect(board).to_be_visible()
    # Scroll to the end of the list, as a thumb would, and tap a word there.
    tab.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    tab.wait_for_function("window.scrollY > 0")
    word = tab.locator("#word-list > li:not(.offensive) button.word").last
    name = word.locator(".w").inner_text()
    word.tap()
    expect(tab.locator("#path-caption")).to_contain_text(name)
    height = size["height"]
    board_box = board.bounding_box()
    line_box = board.locator(".path-line").bounding_box()
    word_box = word.bounding_box()
    assert board_box and line_box and word_box
    assert in_view(board_box, height), board_box
    assert in_view(line_box, height), line_box
    assert in_view(word_box, height), word_box
    # The word is not under the board, and the board shows the path's cells.
    assert word_box["y"] >= board_box["y"] + board_box["height"] or (
        word_box["x"] >= board_box["x"] + board_box["width"]
    )
    expect(board.locator(".cell.on-path").first).to_be_visible()
    if size is PHONE:
        # At least a third of the screen is left for the words.
        assert board_box["height"] <= height * 0.5, board_box
        assert tab.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        axe_clean(tab, "the solver on a phone in the dark theme, scrolled")
    shot(tab, f"family-solver-scrolled-{size['width']}")


def test_offensive_words_are_hidden_from_the_first_paint_and_without_scripts(
    open_page: Any, server: LiveServer
) -> None:
    # Without scripts the server's own markup is all there is: style.css alone hides them (no
    # toggle then), and the count says what is shown.
    bare = open_page(**DESKTOP, name="no-js", java_script_enabled=False)
    bare.goto(solver_url(server))
    offensive = bare.locator("#word-list > li.offensive")
    expect(offensive).to_have_count(4)
    for item in offensive.all():
        expect(item).to_be_hidden()
    expect(bare.locator("#word-list > li:not(.offensive)").first).to_be_visible()
    expect(bare.locator("#filter-count")).to_contain_text("242 words shown")
    # The length menu counts what it would show: 4 letters holds porn, shit and slut.
    four = bare.locator("#filter-length option[value='4']")
    clean, shown = four.get_attribute("data-if-offensive-hidden"), four.inner_text()
    assert clean == shown and clean.startswith("4 letters (")
    every = int(four.get_attribute("data-if-offensive-shown").split("(")[1].rstrip(")"))
    assert int(clean.split("(")[1].rstrip(")")) == every - 3

    # With scripts, a stored "show" is on the root before any module runs: theme.js (blocking)
    # sets it on every page, one without family.js too.
    tab = open_page(**DESKTOP)
    tab.goto(server.url + "/rules")
    tab.evaluate("localStorage.setItem('bigboggle:show-offensive', 'true')")
    tab.reload()
    assert tab.evaluate("document.documentElement.classList.contains('show-offensive')")
    tab.goto(solver_url(server))
    expect(tab.locator(".family-toggle")).to_contain_text("4 offensive words shown")
    expect(tab.locator("#filter-length option[value='4']")).to_have_text(f"4 letters ({every})")
    # Hide, by keyboard: the root class goes, the words and the count follow.
    tab.locator(".family-toggle button").focus()
    tab.keyboard.press("Enter")
    expect(tab.locator(".family-toggle")).to_contain_text("4 offensive words hidden")
    assert not tab.evaluate("document.documentElement.classList.contains('show-offensive')")
    assert not visible_words(tab) & OFFENSIVE_ON_BOARD
    expect(tab.locator("#filter-length option[value='4']")).to_have_text(clean)
    # No item carries inline state: the filter is the root class alone.
    assert (
        tab.eval_on_selector_all(
            "#word-list > li.offensive", "l => l.filter(i => i.style.display).length"
        )
        == 0
    )
