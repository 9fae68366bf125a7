"""The atlas page in Chromium (Playwright) against a real ``bigboggle serve`` given a real small
atlas by the operator's setting, ``BIGBOGGLE_ATLAS``: its SVG charts drawn with bars and
percentile lines, a board placed by the form and marked on its chart, a refused board shown in
the page, no serious axe-core violation in the light and the dark theme, and no sideways scroll
of the page at phone width (a wide table scrolls in its own box)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from atlas_support import real_atlas
from bigboggle import Dictionary, Rules
from bigboggle.dice import shake
from bigboggle.solver import tally_many
from browser_support import PHONE, axe_clean, shot
from live_server import LiveServer

pytestmark = pytest.mark.once


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path, standard: Dictionary
) -> Iterator[LiveServer]:
    """A server whose ``/atlas`` shows a real atlas of the 4x4 presets (two dictionaries)."""
    folder = tmp_path_factory.mktemp("atlas-browser")
    database = folder / "web.sqlite3"
    shutil.copyfile(migrated_sqlite, database)
    atlas = real_atlas([standard, Dictionary.builtin("common")], boards=300)
    atlas.save(folder / "atlas.json")
    live = LiveServer(
        f"sqlite:///{database}",
        folder / "server.log",
        env={"BIGBOGGLE_ATLAS": str(folder / "atlas.json")},
    ).start()
    yield live
    live.stop()


def test_the_atlas_draws_its_charts_and_places_a_board(page: Any, server: LiveServer) -> None:
    from playwright.sync_api import expect

    page.goto(server.url + "/atlas")
    expect(page.locator("main h1")).to_have_text("Atlas")
    charts = page.locator("svg.histogram-chart")
    expect(charts).to_have_count(4)  # points and words for 2 dictionaries, of the first game
    # The other game is a link away.
    page.locator('.atlas-contents a[href^="/atlas?rules=classic-old"]').click()
    page.wait_for_url("**/atlas?rules=classic-old*")
    expect(page.locator('.atlas-contents a[aria-current="page"]')).to_have_count(1)
    expect(charts).to_have_count(4)
    expect(page.locator("#preset-classic")).to_have_count(0)
    for index in range(4):
        chart = charts.nth(index)
        assert chart.get_attribute("role") == "img"
        assert chart.locator("rect.hist-bar").count() >= 10
        assert chart.locator("line.hist-mark-percentile").count() == 3
        box = chart.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 100
        # Bars are drawn, visibly: filled in the theme's accent, with a height.
        bar = chart.locator("rect.hist-bar").first
        assert bar.evaluate("b => getComputedStyle(b).fill") not in ("none", "rgb(0, 0, 0)")
        assert bar.bounding_box()["height"] > 0  # type: ignore[index]
    expect(page.locator("#preset-classic-old table.atlas-best").first).to_be_visible()

    board = str(shake(Rules.preset("classic").dice, 2024).board)
    [(points, words)] = tally_many([board], Dictionary.builtin("standard"), Rules.preset("classic"))
    page.fill("#board", board)
    page.select_option("#rules", "classic")
    page.locator("#atlas-form button[type=submit]").click()
    page.wait_for_url("**/atlas?board=*")
    assert "dictionary=" not in page.url  # the empty choice is left out of the link
    expect(page.locator("#standing-heading")).to_have_text(
        f"Your board: {points:,} points, {words:,} words"
    )
    expect(page.locator("#standing-text")).to_contain_text("better than")
    marked = page.locator("#chart-classic-standard-title").locator("xpath=..")
    expect(marked.locator("line.hist-mark-board")).to_have_count(1)
    expect(page.locator("line.hist-mark-board")).to_have_count(2)  # its points and words
    axe_clean(page, "atlas with a placed board, light")
    page.emulate_media(color_scheme="dark")
    axe_clean(page, "atlas with a placed board, dark")
    shot(page, "atlas-placed-dark")

    page.emulate_media(color_scheme="light")
    page.fill("#board", "LINES/TQARD/HEMOP/ABCKI/PSTEW")
    page.locator("#atlas-form button[type=submit]").click()
    expect(page.locator("#atlas-error")).to_contain_text("a classic board is 4x4, this one is 5x5")
    expect(page.locator("line.hist-mark-board")).to_have_count(0)
    axe_clean(page, "atlas with an error")


def test_the_atlas_fits_a_phone_in_both_themes(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    tab = open_page(PHONE["width"], PHONE["height"], has_touch=True, is_mobile=True)
    best = server.url + "/atlas?board=SERS/PATG/LINE/SERS&rules=classic-old"
    for theme in ("light", "dark"):
        tab.emulate_media(color_scheme=theme)
        tab.goto(best)
        expect(tab.locator("#standing-heading")).to_be_visible()
        width = tab.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the page is {width} px wide at phone width"
        chart = tab.locator("svg.histogram-chart").first.bounding_box()
        assert chart is not None and 250 < chart["width"] <= PHONE["width"]
        # The table of best boards is wider than a phone: it scrolls in its own box.
        scroller = tab.locator("#preset-classic-old .atlas-best").first.locator("xpath=..")
        assert scroller.evaluate("e => getComputedStyle(e).overflowX") == "auto"
        axe_clean(tab, f"atlas at phone width, {theme}")
        shot(tab, f"atlas-phone-{theme}")


def test_the_copy_button_copies_a_command(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    tab = open_page(permissions=["clipboard-read", "clipboard-write"])
    tab.goto(server.url + "/atlas")
    button = tab.locator("button.copy").first
    expect(button).to_be_visible()
    command = button.get_attribute("data-copy")
    assert command and command.startswith("bigboggle best ")
    button.click()
    expect(button).to_have_text("Copied")
    assert tab.evaluate("navigator.clipboard.readText()") == command
