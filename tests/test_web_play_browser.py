"""The play feel of solo games and the daily board in a real browser (Playwright driving Debian's
Chromium against a real server on loopback): the typed word's path lit on the board (a Qu cube,
a two-letter face, a letter that cannot go on), a scored word arriving with its points, the score,
words found and the board's points meter, the sounds (the page's WebAudio calls observed: none
while off, one sound per scored word when on, none under reduced motion), the next game in one
click from the results (same settings, a new board; or the same board), the family filter among
the missed words and on /play, a phone's screen keeping board, field and verdict in view, and the
daily board's refusal naming the game as players know it. Screenshots under
``test-artifacts/screenshots/``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from bigboggle import Dictionary, Rules, solve
from browser_support import DESKTOP, PHONE, SHOTS, axe_clean, shot
from live_server import LiveServer

pytestmark = pytest.mark.once

#: A board with a Qu cube (top left), a two-letter face ([Th]) and a blank: "quite" runs
#: Qu-I-T-E, "theta" starts on [Th], and "porn" (an offensive word) is one of its words.
BOARD = "QuINES/TARDH/EMOPA/[Th]BCKI/PST.W"

#: Records every sound the page starts: each OscillatorNode.start() call, with its wave and
#: pitch, into window.__sounds (the page's WebAudio is real; this only watches it).
RECORD_SOUNDS = """
window.__sounds = [];
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.__sounds.push({ type: this.type, frequency: this.frequency.value });
  return start.apply(this, args);
};
"""


def start_game(server: LiveServer, **request: Any) -> dict[str, Any]:
    status, game = server.call("POST", "/api/games", {"player": "ann", **request})
    assert status == 201, game
    return game


def open_game(tab: Any, server: LiveServer, game: dict[str, Any]) -> None:
    """Open ``game``'s page in ``tab`` as the browser that started it (holding its key)."""
    tab.goto(server.url + "/rules")
    tab.evaluate(
        "([id, key]) => { localStorage.setItem('bigboggle:game', id);"
        " localStorage.setItem(`bigboggle:key:${id}`, key); }",
        [game["id"], game["key"]],
    )
    tab.goto(server.url + f"/games/{game['id']}")
    tab.locator("#board-meter .meter-text").wait_for()


def lit_cells(tab: Any) -> list[list[int]]:
    return tab.eval_on_selector_all(
        ".board .cell.typing", "cells => cells.map(c => [Number(c.dataset.r), Number(c.dataset.c)])"
    )


def test_the_typed_words_path_lights_up_and_a_dead_letter_shows_at_once(
    page: Any, server: LiveServer
) -> None:
    from playwright.sync_api import expect

    game = start_game(server, board=BOARD, options={"timer": 300})
    open_game(page, server, game)
    field = page.locator("#word")
    # The search itself (livepath.js's findPath) by the game's rules: faces whole, a lone q
    # never matches Qu, no cell twice, neighbours include diagonals, blanks never.
    paths = page.evaluate(
        """async () => {
          const { findPath } = await import('/static/livepath.js');
          const board = document.querySelector('.board');
          return Object.fromEntries(['q', 'qu', 'QUITE', 'theta', 'ama', 'mam', 'tw', 'thb', '']
            .map((w) => [w, findPath(board, w)]));
        }"""
    )
    assert paths["q"] is None and paths["qu"] == [[0, 0]]
    assert paths["QUITE"] == [[0, 0], [0, 1], [1, 0], [2, 0]]
    assert paths["theta"] == [[3, 0], [2, 0], [1, 0], [1, 1]]
    assert paths["thb"] == [[3, 0], [3, 1]]
    assert paths["ama"] is None  # one A next to the M: not the same cube twice
    assert paths["mam"] is None and paths["tw"] is None and paths[""] is None
    # Typing letter by letter lights the path as it grows; "q" is a Qu cube begun.
    field.press_sequentially("q")
    expect(page.locator(".cell.typing")).to_have_count(1)
    assert lit_cells(page) == [[0, 0]]
    expect(field).not_to_have_class("no-path")
    field.press_sequentially("uit")
    expect(page.locator(".cell.typing")).to_have_count(3)
    assert lit_cells(page) == [[0, 0], [0, 1], [1, 0]]
    expect(page.locator(".path-line")).to_have_count(1)
    # A letter that cannot follow: said at once, the part that can be spelled stays lit.
    field.press_sequentially("x")
    expect(field).to_have_class("no-path")
    expect(field).to_have_attribute("aria-invalid", "true")
    note = page.locator(".livepath-note")
    expect(note).to_have_text('Not on the board: "x" cannot follow "quit"')
    field.press_sequentially("y")  # more letters: the same message, not announced again
    expect(note).to_have_text('Not on the board: "x" cannot follow "quit"')
    page.keyboard.press("Backspace")
    expect(note).to_have_attribute("aria-live", "polite")
    expect(page.locator(".cell.typing")).to_have_count(3)
    shot(page, "play-dead-letter-desktop")
    page.keyboard.press("Backspace")
    expect(field).not_to_have_class("no-path")
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(note).to_have_text("")
    field.press_sequentially("e")
    expect(page.locator(".cell.typing")).to_have_count(4)
    # Enter sends it; the board and the field are clear for the next word.
    page.keyboard.press("Enter")
    expect(page.locator("#verdict")).to_have_text("quite: scored, 2 points")
    expect(page.locator(".cell.typing")).to_have_count(0)
    expect(page.locator(".path-line")).to_have_count(0)
    # A two-letter face is typed as its two letters; a word from no cube is dead at once.
    field.press_sequentially("th")
    assert lit_cells(page) == [[3, 0]]
    field.fill("")
    field.press_sequentially("z")
    expect(field).to_have_class("no-path")
    expect(note).to_have_text('Not on the board: no cube starts "z"')
    expect(page.locator(".cell.typing")).to_have_count(0)
    field.fill("")
    # Tracing still works beside typing: a word dragged across its cells is sent.
    theta = [[3, 0], [2, 0], [1, 0], [1, 1]]
    first = page.locator(f'.cell[data-r="{theta[0][0]}"][data-c="{theta[0][1]}"]').bounding_box()
    page.mouse.move(first["x"] + first["width"] / 2, first["y"] + first["height"] / 2)
    page.mouse.down()
    for row, col in theta[1:]:
        cell = page.locator(f'.cell[data-r="{row}"][data-c="{col}"]').bounding_box()
        page.mouse.move(cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] / 2, steps=4)
    page.mouse.up()
    expect(page.locator("#verdict")).to_have_text("theta: scored, 2 points")
    axe_clean(page, "a running game")
    # Lit again for a new board (a room's next round): one message line, not two.
    notes = page.evaluate(
        """async () => {
          const { lightTyping } = await import('/static/livepath.js');
          lightTyping(document.querySelector('.board'), document.getElementById('word')).stop();
          return document.querySelectorAll('.livepath-note').length;
        }"""
    )
    assert notes == 1


def test_a_scored_word_arrives_with_its_points_and_the_meter_moves(
    open_page: Callable[..., Any], server: LiveServer, standard: Dictionary
) -> None:
    from playwright.sync_api import expect

    total = solve(BOARD, standard, Rules.preset("big")).total_score
    game = start_game(server, board=BOARD, options={"timer": 300})
    assert game["max_score"] == total
    tab = open_page(**DESKTOP)
    tab.add_init_script(RECORD_SOUNDS)
    open_game(tab, server, game)
    meter = tab.locator("#board-meter [role=meter]")
    expect(tab.locator("#board-meter .meter-text")).to_have_text(f"0 of {total} points (0%)")
    expect(meter).to_have_attribute("aria-valuemax", str(total))
    toggle = tab.get_by_role("button", name="Sound")
    expect(toggle).to_have_attribute("aria-pressed", "false")  # off until asked for
    field = tab.locator("#word")
    field.fill("quinate")
    field.press("Enter")
    expect(tab.locator("#my-words li").first).to_contain_text("quinate")
    fresh = tab.locator("#my-words li.fresh")
    expect(fresh.locator(".gain")).to_have_text("+5")
    expect(tab.locator("#score-so-far")).to_have_text("5")
    expect(tab.locator("#words-found")).to_have_text("1")
    expect(meter).to_have_attribute("aria-valuenow", "5")
    expect(tab.locator("#board-meter .meter-text")).to_have_text(
        f"5 of {total} points ({round(500 / total, 1):g}%)"
    )
    assert tab.evaluate("window.__sounds") == []  # sounds off: not one call
    height = tab.viewport_size["height"]
    for selector in (".board", "#word", "#verdict", "#board-meter"):  # all in view on a desktop
        box = tab.locator(selector).bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box)
    # Sounds on: the toggle says so, plays one note to show it, and each scored word plays.
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    heard = len(tab.evaluate("window.__sounds"))
    assert heard > 0
    field.fill("quires")
    field.press("Enter")
    expect(tab.locator("#score-so-far")).to_have_text("8")
    expect(tab.locator("#my-words li.fresh .gain")).to_have_text("+3")
    expect(tab.locator("#my-words .gain")).to_have_count(1)  # the newest word's only
    after_scored = tab.evaluate("window.__sounds")
    assert len(after_scored) == 2 * heard  # the same "scored" sound again
    field.fill("quires")
    field.press("Enter")
    expect(tab.locator("#verdict")).to_have_text("quires: already found")
    field.fill("zzzz")
    field.press("Enter")
    expect(tab.locator("#verdict")).to_contain_text("zzzz: not on the board")
    sounds = tab.evaluate("window.__sounds")
    kinds = {sound["type"] for sound in sounds[len(after_scored) :]}
    assert kinds == {"triangle", "square"}  # repeated, then not-a-word: their own sounds
    expect(tab.locator("#words-found")).to_have_text("2")
    expect(tab.locator("#score-so-far")).to_have_text("8")
    # The choice is this browser's: a reload keeps it.
    tab.reload()
    expect(tab.get_by_role("button", name="Sound")).to_have_attribute("aria-pressed", "true")
    expect(tab.locator("#words-found")).to_have_text("2")
    expect(tab.locator("#board-meter .meter-text")).to_contain_text(f"8 of {total} points")
    shot(tab, "play-feedback-desktop")
    # Turned off again: silence.
    tab.get_by_role("button", name="Sound").click()
    expect(tab.get_by_role("button", name="Sound")).to_have_attribute("aria-pressed", "false")
    tab.locator("#word").fill("quire")
    tab.locator("#word").press("Enter")
    expect(tab.locator("#score-so-far")).to_have_text("10")
    assert tab.evaluate("window.__sounds") == []
    # Time nearly up: its own sound (a game with less than ten seconds left plays it at once).
    tab.get_by_role("button", name="Sound").click()
    hurry = start_game(server, board=BOARD, options={"timer": 8})
    open_game(tab, server, hurry)
    expect(tab.locator("#game")).to_have_class(re.compile(r"\bhurry\b"))
    hurried = tab.evaluate("window.__sounds")
    assert [sound["frequency"] for sound in hurried] == [880, 880, 880]

    # Under reduced motion: no sound at all, even turned on, and no animation.
    calm = open_page(**DESKTOP, name="reduced-motion", reduced_motion="reduce")
    calm.add_init_script(RECORD_SOUNDS)
    other = start_game(server, board=BOARD, options={"timer": 300})
    open_game(calm, server, other)
    calm.get_by_role("button", name="Sound").click()
    expect(calm.get_by_role("button", name="Sound")).to_have_attribute("aria-pressed", "true")
    calm.locator("#word").fill("quinate")
    calm.locator("#word").press("Enter")
    expect(calm.locator("#my-words li.fresh .gain")).to_have_text("+5")
    assert calm.evaluate("document.getAnimations().length") == 0
    assert calm.evaluate("window.__sounds") == []


def test_a_word_sent_before_the_games_words_arrive_stays_in_the_list(
    page: Any, server: LiveServer
) -> None:
    """The page fetches the player's words after it is drawn; a word entered before that answer
    arrives waits for it, so the answer (the list as it was before the word) cannot wipe the
    word's verdict from the list or reset the count (CI caught a fast first word lost so)."""
    from playwright.sync_api import expect

    game = start_game(server, board=BOARD, options={"timer": 300})
    held: list[Any] = []
    state_url = re.compile(rf".*/api/games/{re.escape(game['id'])}$")

    def hold_the_first_get(route: Any) -> None:
        if route.request.method == "GET" and not held:
            held.append((route, route.fetch()))  # answered now, delivered later
        else:
            route.continue_()

    page.route(state_url, hold_the_first_get)
    page.goto(server.url + "/rules")
    page.evaluate(
        "([id, key]) => localStorage.setItem(`bigboggle:key:${id}`, key)", [game["id"], game["key"]]
    )
    page.goto(server.url + f"/games/{game['id']}")
    page.locator("#board-meter .meter-text").wait_for()
    for _ in range(200):  # the page's own GET of the game, held here
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page never asked for its words"
    page.locator("#word").fill("quinate")
    page.locator("#word").press("Enter")
    page.wait_for_timeout(300)  # time enough for the word to go ahead of the held answer
    route, answer = held[0]
    route.fulfill(response=answer)
    expect(page.locator("#my-words li").first).to_contain_text("quinate")
    expect(page.locator("#words-found")).to_have_text("1")
    expect(page.locator("#score-so-far")).to_have_text("5")
    expect(page.locator("#verdict")).to_contain_text("quinate")


def test_play_again_opens_a_new_board_with_the_same_settings(page: Any, server: LiveServer) -> None:
    from playwright.sync_api import expect

    options = {"timer": 75, "advanced": True, "challenge": True}
    game = start_game(server, rules="superbig", seed=11, options=options)
    status, _ = server.call(
        "POST", f"/api/games/{game['id']}/finish", headers={"X-Game-Key": game["key"]}
    )
    assert status == 200
    page.goto(server.url + f"/games/{game['id']}")
    expect(page.locator("#score-heading")).to_be_focused()
    axe_clean(page, "a game's results")
    page.get_by_role("button", name="Play again").first.click()
    page.wait_for_url(lambda url: url.rsplit("/", 1)[1] != game["id"])
    new_id = page.url.rsplit("/", 1)[1]
    _, again = server.call("GET", f"/api/games/{new_id}")
    assert again["rules"] == "superbig" and again["options"] == options
    assert again["seed"] != 11 and again["board"] != game["board"]
    assert again["deadline"] - again["started_at"] == 75
    # The page plays it: this browser holds its key.
    expect(page.locator("#word")).to_be_enabled()
    assert page.evaluate(f"localStorage.getItem('bigboggle:key:{new_id}')")
    assert page.evaluate("localStorage.getItem('bigboggle:game')") == new_id
    page.locator("#word").fill("zzzzz")
    page.keyboard.press("Enter")
    expect(page.locator("#verdict")).to_contain_text("zzzzz: not on the board")
    # "Same board again" replays the finished one; "Change settings" goes to /play, filled in.
    page.goto(server.url + f"/games/{game['id']}")
    page.get_by_role("button", name="Same board again").first.click()
    page.wait_for_url(lambda url: url.rsplit("/", 1)[1] not in (game["id"], new_id))
    _, same = server.call("GET", "/api/games/" + page.url.rsplit("/", 1)[1])
    assert same["board"] == game["board"] and same["options"] == options
    page.goto(server.url + f"/games/{game['id']}")
    page.get_by_role("link", name="Change settings").first.click()
    expect(page.locator("#rules")).to_have_value("superbig")
    expect(page.locator("#advanced")).to_be_checked()
    expect(page.locator("#seed")).to_have_value("")


def test_the_family_filter_on_play_and_among_the_missed_words(
    page: Any, server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page.goto(server.url + "/play")
    page.get_by_label("Family filter").check()
    page.get_by_role("button", name="Start the clock").click()
    page.wait_for_url("**/games/*")
    _, game = server.call("GET", "/api/games/" + page.url.rsplit("/", 1)[1])
    assert game["options"].get("family") is True
    key = page.evaluate(f"localStorage.getItem('bigboggle:key:{game['id']}')")
    server.call("POST", f"/api/games/{game['id']}/finish", headers={"X-Game-Key": key})
    page.reload()
    expect(page.locator(".summary").first).to_contain_text("family filter")
    page.get_by_role("link", name="Change settings").first.click()
    expect(page.get_by_label("Family filter")).to_be_checked()
    # An unfiltered game's missed words hide the offensive ones, behind a toggle.
    plain = start_game(server, board=BOARD)
    server.call("POST", f"/api/games/{plain['id']}/finish", headers={"X-Game-Key": plain["key"]})
    page.goto(server.url + f"/games/{plain['id']}")
    porn = page.locator("#missed-words li.offensive", has_text="porn")
    expect(porn).to_have_count(1)
    expect(porn).to_be_hidden()
    expect(page.locator(".family-toggle")).to_contain_text("offensive word")
    page.locator(".family-toggle button").click()
    expect(porn).to_be_visible()
    page.locator(".family-toggle button").click()
    expect(porn).to_be_hidden()


def test_a_refused_word_looks_like_the_other_refusals(page: Any, server: LiveServer) -> None:
    from playwright.sync_api import expect

    # Under the family filter an offensive word is refused, styled as the other refusals.
    game = start_game(server, board=BOARD, options={"family": True})
    open_game(page, server, game)
    page.locator("#word").fill("porn")
    page.keyboard.press("Enter")
    expect(page.locator("#my-words .verdict.v-refused")).to_have_count(1)
    styles = page.evaluate(
        """() => {
          const probe = document.createElement('span');
          probe.className = 'verdict v-not_a_word';
          document.body.append(probe);
          const style = (node) => { const s = getComputedStyle(node); return [s.color, s.backgroundColor]; };
          return [style(document.querySelector('#my-words .v-refused')), style(probe)];
        }"""
    )
    assert styles[0] == styles[1], styles


def test_the_missed_counts_match_the_list(page: Any, server: LiveServer) -> None:
    from playwright.sync_api import expect

    # An unfiltered game's counts of missed words leave out the offensive ones while hidden.
    plain = start_game(server, board=BOARD)
    server.call("POST", f"/api/games/{plain['id']}/finish", headers={"X-Game-Key": plain["key"]})
    page.goto(server.url + f"/games/{plain['id']}")
    missed = page.locator("#missed-words > li")
    offensive = page.locator("#missed-words > li.offensive").count()
    assert offensive >= 1
    heading = page.get_by_role("heading", name="Missed words")
    every = missed.count()
    expect(heading).to_have_text(f"Missed words ({every - offensive})", use_inner_text=True)
    rare = page.locator("#missed-words > li.rare")
    rare_clean = page.locator("#missed-words > li.rare:not(.offensive)").count()
    expect(page.locator("label", has=page.locator("#show-rare"))).to_have_text(
        f"Show the {rare_clean} rarer words too", use_inner_text=True
    )
    page.locator(".family-toggle button").click()
    expect(heading).to_have_text(f"Missed words ({every})", use_inner_text=True)
    expect(page.locator("label", has=page.locator("#show-rare"))).to_have_text(
        f"Show the {rare.count()} rarer words too", use_inner_text=True
    )
    page.locator(".family-toggle button").click()
    expect(heading).to_have_text(f"Missed words ({every - offensive})", use_inner_text=True)


def test_on_a_phone_the_board_field_and_verdict_stay_in_view(
    open_page: Callable[..., Any], server: LiveServer, standard: Dictionary
) -> None:
    from playwright.sync_api import expect

    tab = open_page(**PHONE, has_touch=True, color_scheme="dark")  # (the dark theme, too)
    # The daily board: the same feel, and its refusal names the game as players know it.
    tab.goto(server.url + "/daily")
    tab.fill("#player", "pat")
    tab.get_by_role("button", name="Start the clock").click()
    tab.wait_for_url("**/games/*")
    tab.locator("#board-meter .meter-text").wait_for()
    words = solve(
        server.call("GET", "/api/games/" + tab.url.rsplit("/", 1)[1])[1]["board"],
        standard,
        Rules.preset("big"),
    ).words
    viewport = tab.viewport_size

    def in_view(selector: str) -> None:
        box = tab.locator(selector).bounding_box()
        assert box is not None, selector
        assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (selector, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (selector, box)

    for word in [w.word for w in words[:3]] + ["qqqq"]:
        tab.locator("#word").fill(word)
        tab.locator("#word").press("Enter")
        expect(tab.locator("#verdict")).to_contain_text(f"{word}:")
        for selector in (".board", "#word", "#verdict", "#clock", "#board-meter"):
            in_view(selector)
    # Tap a word's cells one by one, and its last again: sent, with the board still in view.
    traced = next(w for w in words[3:] if len(w.path) <= 6)
    for row, col in traced.path:
        tab.locator(f'.cell[data-r="{row}"][data-c="{col}"]').tap()
    last = traced.path[-1]
    tab.locator(f'.cell[data-r="{last[0]}"][data-c="{last[1]}"]').tap()
    expect(tab.locator("#verdict")).to_contain_text(f"{traced.word}: scored")
    in_view(".board")
    assert tab.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    # The on-screen keyboard takes the lower part of the screen: the board gives way.
    tab.set_viewport_size({"width": PHONE["width"], "height": 520})
    viewport = tab.viewport_size
    tab.locator("#word").focus()
    # The page fits itself on the visual viewport's resize event, which comes after the
    # resize itself (a loaded machine showed the verdict 4 px below before it had run).
    tab.wait_for_function(
        "() => document.getElementById('game').style.getPropertyValue('--view-height') === '520px'"
    )
    for selector in (".board", "#word", "#verdict"):
        in_view(selector)
    tab.set_viewport_size(PHONE)
    tab.wait_for_function(
        "height => document.getElementById('game').style.getPropertyValue('--view-height')"
        " === height + 'px'",
        arg=PHONE["height"],
    )
    # What a focus move or scrollIntoView brings into view in the words' column lands below
    # the pinned board, not under it.
    zone = tab.locator(".play-zone")

    def below_the_board(selector: str) -> None:
        target, pinned = tab.locator(selector).bounding_box(), zone.bounding_box()
        assert target is not None and pinned is not None, selector
        assert target["y"] >= pinned["y"] + pinned["height"], (selector, target, pinned)

    for selector in (".play-words h2", "#my-words li:first-child"):
        tab.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        tab.locator(selector).evaluate("(node) => node.scrollIntoView()")
        below_the_board(selector)
    tab.locator("#word").focus()
    axe_clean(tab, "a running game on a phone")
    shot(tab, "play-phone-running")
    tab.screenshot(path=str(SHOTS / "play-phone-running-viewport.png"))  # what the player sees
    tab.once("dialog", lambda dialog: dialog.accept())
    tab.get_by_role("button", name="I'm done: end the game").click()
    expect(tab.locator("#score-heading")).to_be_visible(timeout=15_000)  # scored, then shown
    expect(tab.get_by_role("button", name="Play again").first).to_be_visible()
    in_view("#score-heading")  # the results open at their top, however far play had scrolled
    in_view("#play-again")
    axe_clean(tab, "a game's results on a phone, dark")
    shot(tab, "play-phone-results")
    tab.screenshot(path=str(SHOTS / "play-phone-results-viewport.png"))
    tab.goto(server.url + "/daily")
    tab.fill("#player", "Pat")
    tab.get_by_role("button", name="Start the clock").click()
    error = tab.locator("#daily-error")
    expect(error).to_contain_text("has already played the Big Boggle (5x5, Deluxe dice) daily")
    expect(error).not_to_contain_text("the big daily")
