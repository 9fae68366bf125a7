"""The paper pages (scorekeeper, tournaments) and the board grid they share with the solver, in
a real browser against a real server: a typed Q is the Qu cube and the grid never shrinks or
loses a cube (typed, pasted, 4x4 to 6x6, two-letter faces, blanks, Backspace and arrows); the
Team field only with team play, and teams typed are never silently dropped; a tournament started
from an empty scorekeeper has player rows and scores a round; team totals that add up on screen
(a word two members found counts once, and says so); offensive missed words hidden; nothing
spills sideways at phone width and the board stays in view while the lists are typed; the
forms are wired and the grid sized as soon as the page has loaded (no request awaited first).
Screenshots under ``test-artifacts/screenshots/``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from bigboggle import Dictionary, Rules, score_round, solve
from browser_support import DESKTOP, PHONE, ROOT, SHOTS, shot
from live_server import LiveServer

pytestmark = pytest.mark.once

BOARD = "LINES/TQuARD/HEMOP/ABCKI/PSTEW"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def board_value(page: Any) -> str:
    return str(page.input_value("#board"))


def clear_board(page: Any) -> None:
    """Empty the board's text field as a user would (the grid follows it)."""
    page.fill("#board", "")


def type_into_grid(page: Any, keys: str, cell: int = 0) -> None:
    page.locator(".grid-cells input").nth(cell).click()
    page.keyboard.type(keys)


def paste_into_grid(page: Any, text: str, cell: int = 0) -> None:
    """Paste ``text`` into a cell, as the clipboard would hand it over (a real paste event)."""
    page.locator(".grid-cells input").nth(cell).focus()
    page.evaluate(
        """([index, text]) => {
            const data = new DataTransfer();
            data.setData("text/plain", text);
            const target = document.querySelectorAll(".grid-cells input")[index];
            target.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
        }""",
        [cell, text],
    )


def cell_values(page: Any) -> list[str]:
    values: list[str] = page.eval_on_selector_all(
        ".grid-cells input", "cells => cells.map(c => c.value)"
    )
    return values


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width}px wide"


def axe_violations(page: Any) -> list[str]:
    """Serious and critical axe-core violations in the page's main part as it stands (the
    header and footer are every page's, checked by their own tests)."""
    if not AXE.is_file():
        pytest.fail(f"axe-core is missing at {AXE} (npm ci)")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        "async () => (await axe.run('main', { resultTypes: ['violations'] })).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
        ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(', '))"
    )
    return list(found)


def test_a_typed_q_is_the_qu_cube_on_score_and_solve(
    open_page: Callable[..., Any], server: LiveServer, standard: Dictionary
) -> None:
    from playwright.sync_api import expect

    page = open_page(**DESKTOP, bypass_csp=True)
    # The sequence: Q fills its cell as Qu and the cursor moves on.
    page.goto(server.url + "/score")
    cells = page.locator(".grid-cells input")
    expect(cells).to_have_count(25)
    type_into_grid(page, "LINESTQARDHEMOPABCKIPSTEW")
    expect(page.locator("#board")).to_have_value(BOARD)
    assert cell_values(page)[6] == "Qu"
    expect(cells.nth(24)).to_be_focused()
    # "QU" typed out, lowercase, with slashes: the same board (the u is the Qu cube's).
    clear_board(page)
    type_into_grid(page, "lines/tquard/hemop/abcki/pstew")
    expect(page.locator("#board")).to_have_value(BOARD)
    # Qu followed by a U cube is QUU; a two-letter face in brackets; a blank; the challenge mark.
    clear_board(page)
    type_into_grid(page, "quuA*[th].")
    expect(page.locator("#board")).to_have_value("QuUA*[Th]./_____/_____/_____/_____")
    assert cell_values(page)[:5] == ["Qu", "U", "A*", "Th", "."]
    page.keyboard.type("*")  # a blank cube is never the challenge cube
    expect(page.locator(".grid-status")).to_contain_text("a blank cube can't be it")
    expect(page.locator("#board")).to_have_value("QuUA*[Th]./_____/_____/_____/_____")
    # Backspace takes back the cube before the cursor; arrows move without typing.
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    expect(page.locator("#board")).to_have_value("QuUA*__/_____/_____/_____/_____")
    page.keyboard.press("ArrowDown")
    page.keyboard.type("x")
    page.keyboard.press("ArrowUp")
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    page.keyboard.type("e")
    expect(page.locator("#board")).to_have_value("QuEA*__/___X_/_____/_____/_____")
    expect(cells).to_have_count(25)
    # By keyboard alone: the grid is one tab stop (the cell the cursor is in), arrows move in it.
    page.locator("#board").focus()
    page.keyboard.press("Tab")
    expect(cells.nth(2)).to_be_focused()
    page.keyboard.press("Tab")
    if page.locator("#photo-file").count():  # "Take a photo of the tray" follows the grid
        expect(page.locator("#photo-file")).to_be_focused()
        page.keyboard.press("Tab")
    expect(page.locator("#rules")).to_be_focused()

    # The solver: the same grid; the board solves, and the page after it keeps all 25 cubes.
    page.goto(server.url + "/solve")
    type_into_grid(page, "LINESTQARDHEMOPABCKIPSTEW")
    expect(page.locator("#board")).to_have_value(BOARD)
    page.get_by_role("button", name="Solve", exact=True).click()
    solution = solve(BOARD, standard, Rules.preset("big"))
    expect(page.locator("#result-heading")).to_have_text(
        f"{solution.count} words, {solution.total_score} points"
    )
    expect(page.locator(".grid-cells input")).to_have_count(25)
    assert cell_values(page) == [
        "L", "I", "N", "E", "S", "T", "Qu", "A", "R", "D", "H", "E", "M", "O", "P",
        "A", "B", "C", "K", "I", "P", "S", "T", "E", "W",
    ]  # fmt: skip
    # A board the server refused comes back in a grid of the rules' size, not cut to its rows.
    page.goto(server.url + "/solve?board=LINES/TQ")
    expect(page.locator("#solve-error")).to_contain_text("row 2 has 2 cells")
    expect(page.locator(".grid-cells input")).to_have_count(25)
    assert cell_values(page)[:8] == [*"LINES", "T", "Qu", ""]
    # A grid with a cube missing is not sent: the grid says which cell, and nothing moves.
    address = page.url
    clear_board(page)
    type_into_grid(page, "LINESTQ")
    page.keyboard.press("Enter")
    status = page.locator(".grid-status")
    expect(status).to_have_text(
        "Row 2, column 3 of the grid is empty: type its cube (. for a blank cube)."
    )
    expect(page.locator(".grid-cells input").nth(7)).to_be_focused()
    assert page.url == address
    assert axe_violations(page) == []


def test_grid_sizes_two_letter_faces_blanks_and_paste(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = open_page(**PHONE, has_touch=True, bypass_csp=True)
    page.goto(server.url + "/score")
    cells = page.locator(".grid-cells input")
    # 4x4: the rules' size while the grid is empty; QU typed out is one cube.
    page.select_option("#rules", "classic")
    expect(cells).to_have_count(16)
    type_into_grid(page, "QUITALESDOGSMEANT")
    expect(page.locator("#board")).to_have_value("QuITA/LESD/OGSM/EANT")
    # 6x6 (Super Big Boggle): two-letter faces, blanks, the challenge cube.
    clear_board(page)
    page.select_option("#rules", "superbig")
    expect(cells).to_have_count(36)
    type_into_grid(page, "[th]abcde.fghij*klmnopqrstuvwxyzab.c[in]efg")
    expect(page.locator("#board")).to_have_value(
        "[Th]ABCDE/.FGHIJ*/KLMNOP/QuRSTUV/WXYZAB/.C[In]EFG"
    )
    expect(cells).to_have_count(36)
    no_sideways_scroll(page)
    shot(page, "test_grid_sizes-6x6-phone")
    # "[He" then Tab finishes a two-letter face too, and the next cell is next.
    page.locator(".grid-cells input").nth(34).click()
    page.keyboard.type("[he")
    page.keyboard.press("Tab")
    page.keyboard.type("r")
    expect(page.locator("#board")).to_have_value(
        "[Th]ABCDE/.FGHIJ*/KLMNOP/QuRSTUV/WXYZAB/.C[In]E[He]R"
    )
    # A whole board pasted into a cell gives the grid its shape (a 5x5 into a 6x6 grid).
    paste_into_grid(page, "lines/tquard/hemop/abcki/pstew", cell=3)
    expect(cells).to_have_count(25)
    expect(page.locator("#board")).to_have_value(BOARD)
    # Rows by spaces (the core's notation without slashes), and one row of 16 into a 5x5 grid.
    paste_into_grid(page, "ABCD EFGH IJKL MNOP")
    expect(page.locator("#board")).to_have_value("ABCD/EFGH/IJKL/MNOP")
    clear_board(page)
    page.select_option("#rules", "big")
    expect(cells).to_have_count(25)
    paste_into_grid(page, "QUITALESDOGSMEANT")
    expect(page.locator("#board")).to_have_value("QuITA/LESD/OGSM/EANT")
    # A row pasted into the middle fills from that cell; a paste with characters no cube has
    # is refused, naming them, and the grid keeps what it had.
    clear_board(page)
    expect(cells).to_have_count(25)
    paste_into_grid(page, "hemop", cell=10)
    expect(page.locator("#board")).to_have_value("_____/_____/HEMOP/_____/_____")
    paste_into_grid(page, "hemo1p", cell=0)
    expect(page.locator(".grid-status")).to_contain_text('"1" is no part of a board')
    expect(page.locator("#board")).to_have_value("_____/_____/HEMOP/_____/_____")
    no_sideways_scroll(page)
    assert axe_violations(page) == []


def fill_player(page: Any, index: int, name: str, words: str, team: str | None = None) -> None:
    page.locator(".player-name").nth(index).fill(name)
    if team is not None:
        page.locator(".player-team").nth(index).fill(team)
    page.locator(".player-words").nth(index).fill(words)


def test_the_team_field_only_with_team_play_and_never_silently_dropped(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = open_page(**PHONE, has_touch=True)
    page.goto(server.url + "/score")
    teams = page.locator(".team-field")
    expect(page.locator(".player")).to_have_count(2)
    expect(teams.nth(0)).to_be_hidden()
    expect(teams.nth(1)).to_be_hidden()
    assert page.locator(".player-team").nth(0).is_disabled()
    page.get_by_label("Team play").check()
    expect(teams.nth(0)).to_be_visible()
    fill_player(page, 0, "ann", "lines", team="red")
    fill_player(page, 1, "bob", "romaine", team="blue")
    # Team play turned off after teams were typed: the form says they are not used.
    page.get_by_label("Team play").uncheck()
    expect(teams.nth(0)).to_be_hidden()
    expect(page.locator("#teams-note")).to_have_text(
        "Team play is off, so the teams typed (red, blue) are not used: each player scores "
        "alone. Turn team play on to score by teams."
    )
    page.fill("#board", BOARD)
    # The board stays in view beside (on a phone: above) the lists being typed.
    words = page.locator(".player-words").nth(1)
    words.focus()
    expect(page.locator("#board-peek .board")).to_be_in_viewport()
    expect(words).to_be_in_viewport()
    box = words.bounding_box()
    assert box is not None  # the list being typed is not under the board
    on_top = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).className", [box["x"] + 20, box["y"] + 10]
    )
    assert on_top == "player-words"
    SHOTS.mkdir(parents=True, exist_ok=True)  # the screen as the player sees it while typing
    page.screenshot(path=str(SHOTS / "test_the_team_field-typing-phone.png"))
    no_sideways_scroll(page)
    page.get_by_role("button", name="Score the round").click()
    expect(page.locator("#round-result table.ranking caption")).to_have_text("Players, best first")
    # Team play back on: the teams count, and the note goes.
    page.get_by_label("Team play").check()
    expect(page.locator("#teams-note")).to_be_hidden()
    page.get_by_role("button", name="Score the round").click()
    expect(page.locator("#round-result table.ranking caption")).to_have_text("Teams, best first")
    no_sideways_scroll(page)


@pytest.mark.parametrize("path", ["/score", "/solve"])
def test_the_forms_are_wired_and_the_grid_sized_when_the_page_has_loaded(
    open_page: Callable[..., Any], server: LiveServer, path: str
) -> None:
    """A click right after the page loads reaches the script, not a plain form submission.

    The scorekeeper once awaited /api/rules before wiring its forms: in that gap "Start a
    tournament" reloaded the page and lost what was typed. The rules' sizes are now on the
    page itself; /api/rules is held here, and the page must not need it.
    """
    page = open_page(**DESKTOP)
    page.route("**/api/rules*", lambda route: None)  # held, never answered
    page.goto(server.url + path)
    cells = "document.querySelectorAll('.grid-cells input').length"
    assert page.evaluate(cells) == 25
    page.select_option("#rules", "superbig")
    assert page.evaluate(cells) == 36
    if path == "/score":
        prevented = page.evaluate(
            """() => ["tournament-form", "round-form"].map((id) => {
                 const event = new SubmitEvent("submit", { cancelable: true });
                 document.getElementById(id).dispatchEvent(event);
                 return event.defaultPrevented;
               })"""
        )
        assert prevented == [True, True]


def test_a_tournament_from_an_empty_scorekeeper_has_player_rows(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = open_page(**PHONE, has_touch=True)
    page.goto(server.url + "/score")
    page.fill("#t-name", "Empty start")
    page.get_by_role("button", name="Start a tournament").click()
    page.wait_for_url("**/tournaments/*")
    expect(page.locator("#round-form .player")).to_have_count(2)
    expect(page.locator(".grid-cells input")).to_have_count(25)
    type_into_grid(page, "LINESTQARDHEMOPABCKIPSTEW")
    fill_player(page, 0, "ann", "romaine")
    fill_player(page, 1, "bob", "moraines")
    # The first round a server scores waits for its worker process to start: on a busy
    # machine that alone can outlast expect's 5 s, so wait for the answer and the reload.
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith("/rounds"), timeout=60_000
    ) as posted:
        page.get_by_role("button", name="Score and add the round").click()
    assert posted.value.ok, posted.value.status
    page.wait_for_load_state()
    expect(page.locator("#standings tbody tr")).to_have_count(2)
    expect(page.locator("#standings tbody tr").nth(0)).to_contain_text("bob")
    expect(page.locator("#rounds > details")).to_have_count(1)
    # The next round's form has the players named in the last one.
    expect(page.locator(".player-name").nth(1)).to_have_value("bob")
    no_sideways_scroll(page)


TEAM_LISTS = {"ann": ["lines", "arsenite"], "bob": ["lines", "romaine"], "cat": ["moraines"]}
TEAMS = {"red": ["ann", "bob"], "blue": ["cat"]}


def test_team_totals_add_up_on_screen(
    open_page: Callable[..., Any], server: LiveServer, standard: Dictionary
) -> None:
    from playwright.sync_api import expect

    page = open_page(**DESKTOP, bypass_csp=True)
    page.goto(server.url + "/score")
    page.get_by_label("Team play").check()
    page.get_by_role("button", name="Add a player").click()
    for i, (name, words) in enumerate(TEAM_LISTS.items()):
        team = next(t for t, members in TEAMS.items() if name in members)
        fill_player(page, i, name, "\n".join(words), team=team)
    page.fill("#board", BOARD)
    page.get_by_role("button", name="Score the round").click()

    result = score_round(
        BOARD, TEAM_LISTS, Rules.preset("big").with_options(teams=True), standard, teams=TEAMS
    ).to_json()
    red, players = result["teams"]["red"], result["players"]
    lines = next(w["score"] for w in players["ann"]["words"] if w["word"] == "lines")
    assert red["score"] == players["ann"]["score"] + players["bob"]["score"] - lines

    view = page.locator("#round-result")
    # The shared word says it counts once, in both members' lists.
    ann_list = view.locator(".list", has_text="ann (red)")
    expect(ann_list.locator("li.shared")).to_have_count(1)
    expect(ann_list.locator("li.shared .shared-note")).to_have_text(
        "shared with bob - counts once for red"
    )
    expect(view.locator(".list", has_text="bob (red)").locator(".shared-note")).to_have_text(
        "shared with ann - counts once for red"
    )
    expect(view.locator(".list", has_text="cat (blue)").locator(".shared-note")).to_have_count(0)
    # The sums: members' points, minus what the shared words counted twice, are the team's.
    row = view.locator("table.team-sums tr[data-team='red']")
    members = row.locator(".members-points").inner_text()
    shared = row.locator(".shared-points").inner_text()
    total = int(row.locator(".team-points").inner_text())
    ann, bob, together = (int(n) for n in re.findall(r"\d+", members))
    assert (ann, bob) == (players["ann"]["score"], players["bob"]["score"])
    assert together == ann + bob
    assert shared == f"− {lines}: lines (ann and bob)"
    assert total == together - lines == red["score"]
    ranking = view.locator("table.ranking tbody tr", has_text="red")
    expect(ranking.locator("td.num")).to_have_text(str(red["score"]))
    expect(view.locator("table.team-sums tr[data-team='blue'] .shared-points")).to_have_text("none")
    no_sideways_scroll(page)
    shot(page, "test_team_totals-desktop")
    # The same results on a phone: nothing spills sideways.
    page.set_viewport_size(PHONE)
    expect(row.locator(".team-points")).to_be_visible()
    no_sideways_scroll(page)
    assert axe_violations(page) == []
    page.emulate_media(color_scheme="dark")  # the dark theme's contrast too
    assert axe_violations(page) == []
    shot(page, "test_team_totals-phone-dark")


def test_offensive_missed_words_are_hidden_until_asked(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = open_page(**DESKTOP)
    page.goto(server.url + "/score")
    page.fill("#board", "SLUTS/TQARD/HEMOP/ABCKI/PSTEW")
    fill_player(page, 0, "ann", "dens")
    fill_player(page, 1, "bob", "toad")
    page.get_by_role("button", name="Score the round").click()
    missed = page.locator("#round-result details.missed")
    missed.locator("summary").click()
    slut = missed.locator("li.offensive", has_text=re.compile(r"^slut"))
    expect(slut.first).to_be_hidden()
    toggle = missed.locator(".family-toggle")
    expect(toggle).to_contain_text("offensive words hidden")
    toggle.get_by_role("button", name="Show").click()
    expect(slut.first).to_be_visible()
    toggle.get_by_role("button", name="Hide").click()
    expect(slut.first).to_be_hidden()
    # The summary counts what the list shows: the offensive words only once shown.
    summary = missed.locator("summary")
    shown = missed.locator("ul > li:not(.offensive)").count()
    every = missed.locator("ul > li").count()
    assert every > shown
    expect(summary).to_contain_text(f"{shown} words nobody found", use_inner_text=True)
    toggle.get_by_role("button", name="Show").click()
    expect(summary).to_contain_text(f"{every} words nobody found", use_inner_text=True)
    toggle.get_by_role("button", name="Hide").click()
    # Scoring again replaces the results: the filter forgets the replaced lists.
    for _ in range(2):
        page.evaluate("document.querySelector('#round-result details.missed').dataset.old = 'yes'")
        page.get_by_role("button", name="Score the round").click()
        expect(page.locator("#round-result details.missed[data-old]")).to_have_count(0)
        expect(page.locator("#round-result details.missed")).to_have_count(1)
    page.locator("#round-result details.missed summary").click()
    page.locator("#round-result .family-toggle button").click()
    expect(page.locator("#round-result .family-toggle")).to_contain_text("shown")
    assert (
        page.evaluate("async () => (await import('/static/family.js')).filteredLists()")
        == page.locator(".family-filtered").count()
        == 1
    )


@pytest.mark.parametrize("options", [{}, {"duplicates": "keep"}], ids=["cancel", "keep"])
def test_the_score_json_holds_what_explains_team_totals(
    standard: Dictionary, options: dict[str, str]
) -> None:
    """roundview.js adds each team up from the score JSON alone: its members' points
    (``players[m].score``, every scored word counted), less what each word several members
    scored counted more than once (their ``words[].score`` less ``teams[t].words[w]``), is
    ``teams[t].score``. A challenge cube's bonus and a house rule that keeps words two teams
    found included."""
    lists = {
        "ann": ["lines", "arsenite", "moraines"],
        "bob": ["lines", "romaine", "moraines"],
        "cat": ["moraines", "dear"],
        "dan": ["dear", "lines"],
    }
    teams = {"red": ["ann", "bob"], "blue": ["cat", "dan"]}
    rules = Rules.preset("big").with_options(teams=True, **options)
    result = score_round("LINES*/TQARD/HEMOP/ABCKI/PSTEW", lists, rules, standard, teams=teams)
    data = result.to_json()
    shared_somewhere = False
    for team, info in data["teams"].items():
        scored: dict[str, list[int]] = {}
        for member in info["members"]:
            for word in data["players"][member]["words"]:
                if word["verdict"] == "scored":
                    scored.setdefault(word["word"], []).append(word["score"])
        extra = sum(sum(points) - info["words"][w] for w, points in scored.items())
        shared_somewhere |= any(len(points) > 1 for points in scored.values())
        members = sum(data["players"][m]["score"] for m in info["members"])
        assert members - extra == info["score"], team
        assert set(scored) == set(info["words"])
    assert shared_somewhere


# -- pastes, the 12x12 grid on a phone, ties, the players' limit, errors in the page's words ----


def start_tournament(server: LiveServer, rounds: list[dict[str, Any]]) -> str:
    """A one-round tournament with ``rounds`` added over the API; its page's path."""
    import json as json_
    import urllib.request

    def post(path: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        request = urllib.request.Request(
            server.url + path,
            data=json_.dumps(body).encode(),
            headers={"Content-Type": "application/json", **headers},
        )
        with urllib.request.urlopen(request) as answer:  # our own loopback server
            found: dict[str, Any] = json_.loads(answer.read())
            return found

    made = post("/api/tournaments", {"name": "Ties", "rounds": len(rounds)}, {})
    for round_ in rounds:
        post(f"/api/tournaments/{made['id']}/rounds", round_, {"X-Tournament-Key": made["key"]})
    return f"/tournaments/{made['id']}"


#: Pastes of cubes or rows parted by spaces, tabs or commas, and the board each gives a 5x5 grid.
SEPARATED_PASTES = [
    ("L I N E S T Q A R D", "LINES/TQuARD/_____/_____/_____"),
    ("L\tI\tN\tE\tS", "LINES/_____/_____/_____/_____"),
    ("L, I, N, E, S, T", "LINES/T____/_____/_____/_____"),
    ("LINES\tTQARD\tHEMOP\tABCKI\tPSTEW", BOARD),
    ("L I N E S\nT Q A R D\nH E M O P\nA B C K I\nP S T E W", BOARD),
    ("lines, tquard, hemop, abcki, pstew", BOARD),
]


def test_a_paste_of_separated_cubes_fills_the_grid_in_order(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = open_page(**DESKTOP)
    page.goto(server.url + "/solve")
    for pasted, board in SEPARATED_PASTES:
        clear_board(page)
        expect(page.locator(".grid-cells input")).to_have_count(25)
        paste_into_grid(page, pasted)
        expect(page.locator("#board")).to_have_value(board)
        expect(page.locator(".grid-cells input")).to_have_count(25)
        expect(page.locator(".grid-status")).to_be_hidden()


def test_junk_and_mixed_pastes_are_refused_and_the_grid_keeps_its_size(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = open_page(**PHONE, has_touch=True)
    page.goto(server.url + "/score")
    cells = page.locator(".grid-cells input")
    paste_into_grid(page, "lines")
    for junk, said in [
        ("<img src=x onerror=alert(1)>", '"<=(1)" is no part of a board'),
        ("LINES T Q A R D", "single cubes and whole rows are mixed"),
        ("1 2 3 4", '"1234" is no part of a board'),
        (" , ; ", "holds no cubes"),
    ]:
        paste_into_grid(page, junk)
        expect(page.locator(".grid-status")).to_contain_text(said)
        expect(cells).to_have_count(25)
        expect(page.locator("#board")).to_have_value("LINES/_____/_____/_____/_____")
    shot(page, "test_paste-refused-phone")


@pytest.mark.parametrize("path", ["/solve", "/score"], ids=["solve", "score"])
def test_a_12x12_grid_fits_a_phone(
    open_page: Callable[..., Any], server: LiveServer, path: str
) -> None:
    from playwright.sync_api import expect

    page = open_page(**PHONE, has_touch=True)
    page.goto(server.url + path)
    page.fill("#board", "/".join(["ABCDEFGHIJK[Th]"] * 12))
    cells = page.locator(".grid-cells input")
    expect(cells).to_have_count(144)
    boxes = [cells.nth(i).bounding_box() for i in (0, 11)]
    assert boxes[1]["x"] + boxes[1]["width"] <= PHONE["width"], boxes  # every column in view
    assert boxes[0]["width"] >= 24 and boxes[0]["height"] >= 24, boxes  # still a finger's target
    editor = page.locator(".grid-editor")
    assert editor.evaluate("e => e.scrollWidth <= e.clientWidth")  # nothing hidden sideways
    # A two-letter face stays inside its cell.
    assert cells.nth(11).evaluate("c => c.scrollWidth <= c.clientWidth"), "letters spill out"
    no_sideways_scroll(page)
    shot(page, f"test_12x12{path.replace('/', '-')}-phone")


def test_a_two_letter_face_edited_reads_the_same_in_the_cell_and_the_field(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = open_page(**DESKTOP)
    page.goto(server.url + "/solve")
    type_into_grid(page, "[th")
    page.keyboard.press("Backspace")
    expect(page.locator(".grid-cells input").nth(0)).to_have_value("[T")
    expect(page.locator("#board")).to_have_value("[T]____/_____/_____/_____/_____")
    page.keyboard.type("e")
    page.keyboard.press("Tab")
    expect(page.locator("#board")).to_have_value("[Te]____/_____/_____/_____/_____")


def test_ties_share_a_place_and_errors_name_the_player_and_word(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = open_page(**DESKTOP)
    page.goto(server.url + "/score")
    page.fill("#board", BOARD)
    # 2 points each (bob's 5-letter word lists him first): one place, shared.
    fill_player(page, 0, "ann", "dear mare")
    fill_player(page, 1, "bob", "lines")
    page.get_by_role("button", name="Add a player").click()
    fill_player(page, 2, "cy", "ream")
    page.get_by_role("button", name="Score the round").click()
    rows = page.locator("#round-result table.ranking tbody tr")
    expect(rows).to_have_count(3)
    places = [rows.nth(i).locator("td").first.inner_text() for i in range(3)]
    assert places == ["1", "1", "3"], places
    # An over-long 8th word: the page names ann's word 8, not the API's players.ann[7].
    fill_player(page, 0, "ann", "\n".join(["dear"] * 7 + ["x" * 100]))
    page.get_by_role("button", name="Score the round").click()
    error = page.locator("#round-error")
    expect(error).to_contain_text("ann's word 8: ")
    expect(error).not_to_contain_text("players.ann[7]")
    # Add a player stops at the server's limit, and says why.
    add = page.get_by_role("button", name="Add a player")
    page.evaluate(
        "() => { const b = document.getElementById('add-player'); while (!b.disabled) b.click(); }"
    )
    expect(page.locator("#players .player")).to_have_count(100)
    expect(add).to_be_disabled()
    expect(page.locator("#players-limit")).to_be_visible()
    expect(page.locator("#players-limit")).to_contain_text("at most 100 players")
    page.locator(".remove-player").last.click()
    expect(add).to_be_enabled()
    expect(page.locator("#players-limit")).to_be_hidden()
    # A tournament's round tied 2-2 names both as best; standings share the place.
    path = start_tournament(
        server,
        [{"board": BOARD, "players": {"ann": ["dear", "mare"], "bob": ["ream", "roam"]}}],
    )
    page.goto(server.url + path)
    expect(page.locator("#rounds summary").first).to_contain_text("best: ann and bob (tied)")
    expect(page.locator("#standings tbody tr td:first-child")).to_have_text(["1", "1"])
    shot(page, "test_ties-tournament-desktop")
