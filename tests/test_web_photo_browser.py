"""The solver page's "Take a photo of the tray" in a real browser (Playwright driving Debian's
Chromium against a real server on loopback): a synthetic photo of a shaken tray is chosen, the
board read from it fills the board field and the grid, the photo is shown with the grid found
drawn over it, a cell is corrected by keyboard, and the corrected board is solved; on a phone's
width too; a file that is no photo is refused in words; the page is clean for axe-core."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("cv2")

from bigboggle import Dictionary, Rules, shake, solve
from bigboggle.photo.faces import HELD_OUT_FONTS
from bigboggle.photo.tray import render_tray
from browser_support import DESKTOP, PHONE, axe_clean, shot
from live_server import LiveServer

pytestmark = pytest.mark.once


def photo_file(
    tmp_path: Path, preset: str, seed: int, *, smudge_first: bool = False
) -> tuple[str, Path]:
    """A synthetic photo of a shake of ``preset``'s dice (a held-out font), and its board;
    ``smudge_first``: the top-left cube's letter painted over, as a thumb or a glare hides it."""
    import io

    import numpy as np
    from PIL import Image, ImageDraw

    package, font = HELD_OUT_FONTS[0]
    if not Path(font).is_file():
        pytest.skip(f"held-out font {font} missing (apt-get install {package})")
    rules = Rules.preset(preset)
    shaken = shake(rules.dice, seed)
    photo = render_tray(shaken, font, np.random.default_rng(seed))
    data = photo.jpeg
    if smudge_first:
        top_left, top_right, _, bottom_left = photo.corners
        centre = top_left + (top_right - top_left) / (2 * rules.cols)
        centre += (bottom_left - top_left) / (2 * rules.rows)
        radius = 0.35 * np.linalg.norm(top_right - top_left) / rules.cols
        picture = Image.fromarray(photo.rgb)
        ImageDraw.Draw(picture).ellipse(
            [*(centre - radius), *(centre + radius)], fill=(232, 230, 222)
        )
        buffer = io.BytesIO()
        picture.save(buffer, format="JPEG", quality=90)
        data = buffer.getvalue()
    path = tmp_path / f"{preset}-{seed}.jpg"
    path.write_bytes(data)
    return str(shaken.board), path


def test_a_photo_of_the_tray_is_read_corrected_and_solved(
    open_page: Any, server: LiveServer, standard: Dictionary, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    truth, path = photo_file(tmp_path, "big", 21)
    tab = open_page(**DESKTOP)
    tab.goto(server.url + "/solve")
    button = tab.get_by_text("Take a photo of the tray")
    expect(button).to_be_visible()
    tab.locator("#photo-file").set_input_files(str(path))
    expect(tab.locator(".photo-status")).to_contain_text("Read 25 cubes", timeout=30_000)
    expect(tab.locator("#board")).to_have_value(truth)
    expect(tab.locator(".photo-preview img")).to_be_visible()
    expect(tab.locator(".photo-preview polygon")).to_have_count(1)
    axe_clean(tab, "the solver with a photo read")
    shot(tab, "photo-read-desktop")
    # A correction by keyboard: the first cube typed over (as if the reader had got it wrong).
    first = tab.locator(".grid-cells input").first
    first.click()
    replacement = "E" if truth[0] != "E" else "A"
    tab.keyboard.press("Backspace")
    tab.keyboard.type(replacement)
    corrected = replacement + truth[1:]
    expect(tab.locator("#board")).to_have_value(corrected)
    tab.get_by_role("button", name="Solve", exact=True).click()
    solution = solve(corrected, standard, Rules.preset("big"))
    expect(tab.locator("#result-heading")).to_have_text(
        f"{solution.count} words, {solution.total_score} points"
    )


def test_on_a_phone_and_with_a_file_that_is_no_photo(
    open_page: Any, server: LiveServer, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    truth, path = photo_file(tmp_path, "classic", 4)
    phone = open_page(**PHONE, has_touch=True, is_mobile=True)
    phone.goto(server.url + "/solve")
    phone.select_option("#rules", "classic")
    phone.locator("#photo-file").set_input_files(str(path))
    expect(phone.locator(".photo-status")).to_contain_text("Read 16 cubes", timeout=30_000)
    expect(phone.locator("#board")).to_have_value(truth)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width  # nothing wider than the phone
    axe_clean(phone, "the solver with a photo read, phone")
    shot(phone, "photo-read-phone")
    # A correction by touch: the last cube tapped and typed over, as a player fixes a misreading.
    last = phone.locator(".grid-cells input").last
    box = last.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44  # a finger's target
    last.tap()
    expect(last).to_be_focused()
    replacement = "E" if not truth.endswith("E") else "A"
    phone.keyboard.press("Backspace")
    phone.keyboard.type(replacement)
    corrected = truth[: -2 if truth.endswith("Qu") else -1] + replacement
    expect(phone.locator("#board")).to_have_value(corrected)
    phone.get_by_role("button", name="Solve", exact=True).tap()
    expect(phone.locator("#result-heading")).to_contain_text("words")
    # The solved board's page: its photo control is wired when it shows (a file chosen before
    # then would go unread).
    expect(phone.get_by_text("Take a photo of the tray")).to_be_visible()
    text = tmp_path / "notes.jpg"
    text.write_text("not a photo")
    phone.locator("#photo-file").set_input_files(str(text))
    expect(phone.locator(".photo-status")).to_contain_text("could not be read")
    expect(phone.locator(".photo-status")).to_contain_text("not a photo")
    expect(phone.locator("#board")).to_have_value(corrected)  # the board before is kept


def test_a_cube_the_reader_doubts_is_marked_to_check_and_corrected(
    page: Any, server: LiveServer, tmp_path: Path
) -> None:
    """The top-left cube's letter hidden: the reader (whose dice rule out a blank cube) marks
    that cell to check, in the grid (for a screen reader too), in the words above it and on
    the photo; typing the right letter takes the mark away."""
    from playwright.sync_api import expect

    truth, path = photo_file(tmp_path, "big", 33, smudge_first=True)
    page.goto(server.url + "/solve")
    page.locator("#photo-file").set_input_files(str(path))
    status = page.locator(".photo-status")
    expect(status).to_contain_text("Check the 1 marked in the grid (a1:", timeout=30_000)
    first = page.locator(".grid-cells input").first
    expect(first).to_have_class(re.compile(r"\bdoubtful\b"))
    expect(first).to_have_attribute("aria-label", re.compile(r"Row 1, column 1, check: read as"))
    expect(page.locator(".photo-preview ellipse")).to_have_count(1)
    assert page.locator(".grid-cells input.doubtful").count() == 1
    axe_clean(page, "a doubtful cube marked")
    first.click()
    page.keyboard.press("Backspace")
    page.keyboard.type(truth[:2] if truth.startswith("Qu") else truth[0])
    expect(first).not_to_have_class(re.compile(r"\bdoubtful\b"))
    expect(page.locator("#board")).to_have_value(truth)


def test_the_scorekeeper_reads_the_board_from_a_photo_and_scores_the_round(
    page: Any, server: LiveServer, standard: Dictionary, tmp_path: Path
) -> None:
    """On the scorekeeper (the paper game's round entry, shared with tournaments): the board
    read from a photo of a Boggle tray (the form's rules: classic), two players' lists typed,
    the round scored on that board."""
    from playwright.sync_api import expect

    truth, path = photo_file(tmp_path, "classic", 8)
    page.goto(server.url + "/score")
    page.select_option("#rules", "classic")
    page.locator("#photo-file").set_input_files(str(path))
    expect(page.locator(".photo-status")).to_contain_text("Read 16 cubes", timeout=30_000)
    expect(page.locator("#board")).to_have_value(truth)
    words = [found.word for found in solve(truth, standard, Rules.preset("classic")).words]
    for index, (name, chosen) in enumerate((("ann", words[:3]), ("bob", words[2:5]))):
        page.locator(".player-name").nth(index).fill(name)
        page.locator(".player-words").nth(index).fill("\n".join(chosen))
    axe_clean(page, "the scorekeeper with a photo read")
    page.get_by_role("button", name="Score the round").click()
    view = page.locator("#round-result")
    expect(view).to_contain_text("ann", timeout=30_000)
    expect(view.locator(".list", has_text="ann").locator("li", has_text=words[0])).to_have_count(1)
