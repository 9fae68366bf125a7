"""The pages in a real browser (Playwright driving Debian's Chromium) against a real server on
loopback: solve a board and see a path drawn, score a paper game and a tournament, play a solo
round with a short timer, play the daily board, a room with two players; the board the scripts
draw (rooms, scored rounds) is the server's own, cell for cell. Each test saves a screenshot under
``test-artifacts/screenshots/`` (not committed)."""

from __future__ import annotations

from typing import Any

import pytest

from bigboggle import Dictionary, Rules, shake, solve
from browser_support import SHOTS
from live_server import LiveServer

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


def test_solve_a_board_typed_into_the_grid_and_see_a_path(
    page: object, server: LiveServer, standard: Dictionary
) -> None:
    from playwright.sync_api import Page, expect
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    assert isinstance(page, Page)
    page.goto(server.url + "/solve")
    cells = page.locator(".grid-cells input")
    expect(cells).to_have_count(25)
    cells.first.click()
    page.keyboard.type("LINESTQuARDHEMOPABCKIPSTEW")  # the cursor moves on by itself
    expect(page.locator("#board")).to_have_value("LINES/TQuARD/HEMOP/ABCKI/PSTEW")
    page.get_by_role("button", name="Solve", exact=True).click()
    solution = solve(BOARD, standard, Rules.preset("big"))
    expect(page.locator("#result-heading")).to_have_text(
        f"{solution.count} words, {solution.total_score} points"
    )
    assert "board=LINES" in page.url  # the link reproduces the board
    word = page.locator("#word-list button", has_text="arsenite")
    polyline = page.locator(".path-layer polyline")
    for _ in range(3):  # a hover that lands while the list is still being laid out is moved again
        page.mouse.move(0, 0)
        word.hover()
        try:
            polyline.wait_for(state="attached", timeout=10_000)
            break
        except PlaywrightTimeout:
            continue
    points = polyline.get_attribute("points")
    assert points is not None and len(points.split()) == len("arsenite")
    expect(page.locator(".cell.on-path")).to_have_count(8)
    expect(page.locator("#path-caption")).to_contain_text("arsenite: A (row 2, column 3)")
    page.select_option("#filter-length", "8")
    expect(page.locator("#word-list li:visible")).to_have_count(solution.counts_by_length()[8])
    page.fill("#filter-start", "ro")
    expect(page.locator("#word-list li:visible")).to_have_count(1)


def test_score_a_paper_game_then_keep_a_tournament(
    page: object, server: LiveServer, browser: object
) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    page.goto(server.url + "/score")
    page.fill("#board", BOARD)
    names = page.locator(".player-name")
    names.nth(0).fill("ann")
    names.nth(1).fill("bob")
    page.locator(".player-words").nth(0).fill("lines\narsenite\nzebra")
    page.locator(".player-words").nth(1).fill("lines, dear")
    page.get_by_role("button", name="Add a player").click()
    names.nth(2).fill("kid")
    page.locator(".player-min").nth(2).select_option("3")
    page.locator(".player-words").nth(2).fill("sea")
    page.get_by_role("button", name="Score the round").click()
    ranking = page.locator("#round-result table.ranking tbody tr")
    expect(ranking).to_have_count(3)
    expect(ranking.nth(0)).to_contain_text("ann")
    expect(ranking.nth(0)).to_contain_text("11")
    expect(page.locator("#round-result .crossed")).to_have_text("Crossed off: lines")
    expect(page.locator("#round-result")).to_contain_text("kid: 1 point")
    page.locator("#round-result button.word", has_text="arsenite").hover()
    expect(page.locator("#round-result .cell.on-path")).to_have_count(8)

    page.fill("#t-name", "Friday night")
    page.select_option("#t-end", "target:50")
    page.get_by_role("button", name="Start a tournament").click()
    page.wait_for_url("**/tournaments/*")
    expect(page.locator("h1")).to_have_text("Friday night")
    expect(page.locator(".player-name").nth(2)).to_have_value("kid")  # players carried over
    page.fill("#board", BOARD)
    page.locator(".player-words").nth(0).fill("romaine")
    page.locator(".player-words").nth(1).fill("moraines")
    page.get_by_role("button", name="Score and add the round").click()
    expect(page.locator("#standings tbody tr").nth(0)).to_contain_text("bob")
    expect(page.locator("#standings tbody tr").nth(0)).to_contain_text("11")
    expect(page.locator("#rounds > details")).to_have_count(1)
    expect(page.locator("#read-only")).to_be_hidden()  # this browser holds the key

    # Someone else with the link (no key in their browser) follows it read-only.
    stranger = browser.new_context()  # type: ignore[attr-defined]
    other = stranger.new_page()
    other.goto(page.url)
    expect(other.locator("#standings tbody tr").nth(0)).to_contain_text("bob")
    expect(other.locator("#read-only")).to_contain_text("Only the person who started")
    expect(other.locator("#round-form")).to_be_hidden()
    expect(other.locator("#owner-tools")).to_be_hidden()
    stranger.close()

    # The owner renames it.
    page.fill("#new-name", "Friday late")
    page.get_by_role("button", name="Rename").click()
    expect(page.locator("h1")).to_have_text("Friday late")


def test_a_solo_round_with_a_short_timer(
    page: object, server: LiveServer, standard: Dictionary
) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    page.goto(server.url + "/play?timer=8&seed=7")
    page.fill("#player", "tester")
    page.get_by_role("button", name="Start the clock").click()
    page.wait_for_url("**/games/*")
    _, game = server.call("GET", "/api/games/" + page.url.rsplit("/", 1)[1])
    assert game["board"] == str(shake("big", 7).board) and game["player"] == "tester"
    found = solve(game["board"], standard, Rules.preset("big"))
    typed, traced = found.words[0], found.words[1]
    page.fill("#word", typed.word)
    page.keyboard.press("Enter")
    expect(page.locator("#verdict")).to_contain_text(f"{typed.word}: scored")
    # Trace the second word by dragging across its cells.
    first = page.locator(f'.cell[data-r="{traced.path[0][0]}"][data-c="{traced.path[0][1]}"]')
    box = first.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    for row, col in traced.path[1:]:
        cell = page.locator(f'.cell[data-r="{row}"][data-c="{col}"]').bounding_box()
        assert cell is not None
        page.mouse.move(cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] / 2, steps=4)
    page.mouse.up()
    expect(page.locator("#verdict")).to_contain_text(f"{traced.word}: scored")
    page.fill("#word", "zzzz")
    page.keyboard.press("Enter")
    expect(page.locator("#verdict")).to_contain_text("zzzz: not on the board")
    expect(page.locator("#score-so-far")).to_have_text(str(typed.score + traced.score))
    # The server's deadline ends the game; the page shows the results.
    expect(page.locator("#score-heading")).to_contain_text(
        f"{typed.score + traced.score} points of {found.total_score}", timeout=20_000
    )
    expect(page.locator("#missed-words li:visible").first).to_be_visible()
    hidden = page.locator("#missed-words li.rare")
    if hidden.count():
        expect(hidden.first).to_be_hidden()
        page.get_by_label("rarer words").check()
        expect(hidden.first).to_be_visible()
    href = page.locator("#replay-link").get_attribute("href")
    assert href is not None and "seed=7" in href and "timer=8" in href


def test_the_daily_board_and_its_leaderboard(page: object, server: LiveServer) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    page.goto(server.url + "/daily")
    page.fill("#player", "daisy")
    page.get_by_role("button", name="Start the clock").click()
    page.wait_for_url("**/games/*")
    expect(page.locator("h1")).to_contain_text("Daily board")
    page.fill("#word", "qqqq")
    page.keyboard.press("Enter")
    expect(page.locator("#verdict")).to_contain_text("qqqq:")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="I'm done: end the game").click()
    expect(page.locator("#score-heading")).to_contain_text("0 points")
    page.get_by_role("link", name="See the leaderboard").click()
    expect(page.locator("#leaderboard")).to_contain_text("daisy")
    # The same name cannot play today's board twice.
    page.fill("#player", "Daisy")
    # As typed: not run into the name this browser played under (see the test below).
    expect(page.locator("#player")).to_have_value("Daisy")
    page.get_by_role("button", name="Start the clock").click()
    expect(page.locator("#daily-error")).to_contain_text("already played")


def starts(answer: Any) -> bool:
    """Whether a response is the answer to a game's start (POST /api/games)."""
    return bool(answer.request.method == "POST" and answer.url.endswith("/api/games"))


def hold_daily_script(page: Any) -> list[str]:
    """Hold back the body of ``page``'s daily.js until the test calls
    ``window.releaseDailyScript()`` (the module loads, but runs only then): a slow connection's
    order of events. The URLs of the scripts held, as they are asked for."""
    from playwright.sync_api import Route

    held: list[str] = []

    def hold(route: Route) -> None:
        held.append(route.request.url)
        script = route.fetch()
        wait = "await new Promise((release) => { window.releaseDailyScript = release; });\n"
        route.fulfill(response=script, body=wait + script.text())

    page.route(lambda url: "/static/daily.js" in url, hold)
    return held


def test_the_daily_start_waits_for_its_script(page: object, server: LiveServer) -> None:
    """On a slow connection the daily page's HTML is in well before its script: until the
    script has wired the form, neither Start nor Enter in the name field does anything (they
    would submit the plain form, reloading the page and losing the name and the game chosen),
    and once it has, Start starts the game."""
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    held = hold_daily_script(page)
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.method + " " + request.url))
    page.goto(server.url + "/daily?rules=superbig")
    assert len(held) == 1
    start = page.get_by_role("button", name="Start the clock")
    expect(start).to_be_disabled()
    page.fill("#player", "slowpoke")
    page.press("#player", "Enter")
    page.evaluate("window.releaseDailyScript()")
    expect(start).to_be_enabled()
    expect(page.locator("#player")).to_have_value("slowpoke")  # not reloaded, nor overwritten
    with page.expect_response(starts) as started:
        start.click()
    assert started.value.status == 201
    page.wait_for_url("**/games/*")
    expect(page.locator("h1")).to_contain_text("Daily board")
    assert [url for url in sent if "/daily" in url and "static" not in url] == [
        f"GET {server.url}/daily?rules=superbig"
    ]
    assert len(held) == 1


@pytest.mark.parametrize("way", ["fill", "click"])
def test_a_name_typed_as_the_daily_script_runs_is_kept_as_typed(
    page: object, server: LiveServer, way: str
) -> None:
    """The daily page offers the name this browser last played under, but never in a field
    someone is in. Playwright's fill focuses and selects the field, then types in a second
    step, and the page's script may run in between (CI's run of the daily test above): the
    stored "daisy" written into the focused field stood in front of the typed "Daisy", so the
    start asked for "daisyDaisy", a name that had not played today, and a second daily game
    began where "already played" was due. A person who clicks into the empty field as the
    script arrives, and types, met the same. Here the script runs between the two steps; the
    name is the one typed, and the start is refused as that name's second game today."""
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    name = {"fill": "wren", "click": "robin"}[way]
    status, _ = server.call("POST", "/api/games", {"daily": True, "player": name})
    assert status == 201  # this name has today's board (its game holds the slot from its start)
    page.goto(server.url + "/rules")
    page.evaluate("name => localStorage.setItem('bigboggle:name', name)", name)
    hold_daily_script(page)
    page.goto(server.url + "/daily")
    field = page.locator("#player")
    if way == "fill":
        field.select_text()  # fill's first step: the field focused, its text selected
    else:
        field.click()
    page.evaluate("window.releaseDailyScript()")
    start = page.get_by_role("button", name="Start the clock")
    expect(start).to_be_enabled()  # the script has run
    typed = name.capitalize()
    page.keyboard.insert_text(typed)  # fill's second step, or the person's keys
    expect(field).to_have_value(typed)
    with page.expect_response(starts) as started:
        start.click()
    assert started.value.status == 409
    expect(page.locator("#daily-error")).to_contain_text("already played")
    assert page.url == server.url + "/daily"


def test_phone_width_and_keyboard_only(browser: object, server: LiveServer) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 375, "height": 740}, has_touch=True)  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(server.url + f"/solve?board={BOARD}")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375  # nothing spills sideways
    page.keyboard.press("Tab")
    expect(page.locator(".skip")).to_be_focused()
    page.locator("#word-list button").first.focus()
    expect(page.locator(".cell.on-path").first).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "test_phone_width_and_keyboard_only.png"), full_page=True)
    context.close()


def test_two_players_in_a_room_and_a_reload_mid_round(
    browser: object, server: LiveServer, standard: Dictionary
) -> None:
    from playwright.sync_api import Page, expect

    contexts = [browser.new_context(viewport={"width": 1100, "height": 1000}) for _ in range(2)]  # type: ignore[attr-defined]
    ann, bob = (context.new_page() for context in contexts)
    errors: list[str] = []
    for page in (ann, bob):
        assert isinstance(page, Page)
        page.on("pageerror", lambda error: errors.append(str(error)))
    ann.goto(server.url + "/rooms")
    ann.fill("#host", "ann")
    ann.get_by_role("button", name="Create the room").click()
    ann.wait_for_url("**/rooms/*")
    bob.goto(ann.url)
    bob.fill("#name", "bob")
    bob.get_by_role("button", name="Join").click()
    expect(ann.locator("#players")).to_contain_text("bob")
    ann.locator("#settings-panel summary").click()
    ann.fill("#s-timer", "12")
    ann.get_by_role("button", name="Save the settings").click()
    expect(bob.locator("#settings-summary")).to_contain_text("12 s")
    ann.get_by_role("button", name="Start a round").click()
    expect(bob.locator("#play")).to_be_visible()
    code = ann.url.rsplit("/", 1)[1]
    _, public = server.call("GET", f"/api/rooms/{code}")
    assert public["players"] == ["ann", "bob"]
    expect(ann.locator("#clock")).to_contain_text("0:", timeout=10_000)  # past "Starts in"
    board = ann.locator("#board-slot .cell")
    faces = [board.nth(i).get_attribute("data-face") or "" for i in range(25)]
    text = "/".join(
        "".join(f if len(f) == 1 else f"[{f}]" for f in faces[r * 5 : r * 5 + 5]) for r in range(5)
    )
    words = [
        found.word for found in solve(text.replace("[Qu]", "Qu"), standard, Rules.preset("big"))
    ]
    for page, entries in ((ann, words[:2]), (bob, [words[0], words[2]])):
        for word in entries:
            page.fill("#word", word)
            page.keyboard.press("Enter")
            expect(page.locator("#verdict")).to_contain_text(f"{word}: scored")
    bob.reload()  # bob's page reloads mid-round: his seat and words come back
    expect(bob.locator("#my-words li")).to_have_count(2)
    expect(bob.locator("#my-words")).to_contain_text(words[2])
    for page in (ann, bob):
        expect(page.locator("#results")).to_be_visible(timeout=30_000)
        expect(page.locator("#round-result .crossed")).to_have_text(f"Crossed off: {words[0]}")
    tables = [page.locator("#totals tbody").inner_text() for page in (ann, bob)]
    assert tables[0] == tables[1]
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, page in (("ann", ann), ("bob", bob)):
        page.screenshot(path=str(SHOTS / f"test_room_{name}.png"), full_page=True)
    for context in contexts:
        context.close()
    assert errors == []


#: Qu, a two-letter face, a blank, M W Z (underlined) and the challenge cube (after [Th]).
ODD_BOARD = "QuMWZE/A[Th]*.RS/LINES"

#: What a page's board is made of, for comparing two: the board's attributes and every cell's
#: tag, attributes, text and whether it can be pressed.
DESCRIBE_BOARDS = """async ([text, interactive]) => {
  const { renderBoard } = await import("/static/board.js");
  const attributes = (node) => Object.fromEntries([...node.attributes].map((a) => [a.name, a.value]));
  const describe = (board) => ({
    board: attributes(board),
    rows: board.querySelectorAll(":scope > .board-row").length,
    layer: attributes(board.querySelector(":scope > svg.path-layer")),
    cells: [...board.querySelectorAll(".cell")].map((cell) => ({
      tag: cell.tagName, attributes: attributes(cell), text: cell.textContent.trim(),
      disabled: Boolean(cell.disabled),
    })),
  });
  const drawn = renderBoard(text, { interactive }).querySelector(":scope > .board");
  return [describe(document.querySelector(".board-wrap > .board")), describe(drawn)];
}"""


def assert_same_board(served: dict[str, Any], drawn: dict[str, Any]) -> None:
    """The two descriptions agree, compared part by part so a failure names the cell."""
    assert served["board"] == drawn["board"]
    assert (served["rows"], served["layer"]) == (drawn["rows"], drawn["layer"])
    assert len(served["cells"]) == len(drawn["cells"])
    for cell, same in zip(served["cells"], drawn["cells"], strict=True):
        assert cell == same


def test_the_scripts_board_is_the_servers_cell_for_cell(page: object, server: LiveServer) -> None:
    """board.js (a room's board, a scored round's) draws what templates/_macros.html does, to
    trace on (a solo game's page) and as a picture (the solver's), Qu, blanks, the challenge
    cube and the underlined faces included."""
    from playwright.sync_api import Page

    assert isinstance(page, Page)
    status, game = server.call("POST", "/api/games", {"board": ODD_BOARD, "player": "ann"})
    assert status == 201 or status == 200, game
    assert game["board"] == ODD_BOARD
    page.goto(server.url + f"/games/{game['id']}")  # running: the board to trace on
    served, drawn = page.evaluate(DESCRIBE_BOARDS, [ODD_BOARD, True])
    assert_same_board(served, drawn)
    cells = {
        cell["attributes"]["data-r"] + cell["attributes"]["data-c"]: cell for cell in drawn["cells"]
    }
    assert len(cells) == 15 and drawn["rows"] == 3
    assert cells["00"]["text"] == "Qu" and cells["00"]["attributes"]["data-face"] == "Qu"
    assert cells["11"]["attributes"]["aria-label"] == "Th, row 2, column 2, challenge cube"
    assert "challenge" in cells["11"]["attributes"]["class"].split()
    assert cells["12"]["disabled"] and cells["12"]["text"] == "·"
    underlined = {key for key, cell in cells.items() if "underlined" in cell["attributes"]["class"]}
    assert underlined == {"01", "02", "03"}  # M, W, Z
    page.goto(server.url + f"/solve?board={ODD_BOARD}")  # the board as a picture
    served, drawn = page.evaluate(DESCRIBE_BOARDS, [ODD_BOARD, False])
    assert_same_board(served, drawn)
    assert len(drawn["cells"]) == 15
    assert drawn["board"]["aria-label"] == f"The board: {ODD_BOARD}"
