"""A team challenge passed between three browsers at different times, in Chromium: Ann makes it
from the form (teams Red and Blue) and plays for Red, Bob (a phone, Blue) and then Cy (Red) open
the link, each sees the others' scores but no word before finishing their own round, and
afterwards everyone's words with crossing off between the teams (team-mates' common words
kept), the team standings, and what nobody found; the copy button copies the link and says so, the share button hands the
link to the Web Share API; a finished solo game's results make a challenge in one click; the
pages are clean for axe-core at both widths. Each player's own round's page is whole for them
(not sealed), and the standings the page draws after a round count it even when their first
answer lags behind (the page asks again)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bigboggle import Dictionary, Rules, solve
from browser_support import DESKTOP, PHONE, ROOT, shot
from live_server import LiveServer

pytestmark = pytest.mark.once

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: Milliseconds to wait for a step that needs the server's worker pool (a start solves the
#: board; the first job also starts a worker process): long on a busy machine.
SLOW = 30_000


def axe_clean(tab: Any, where: str) -> None:
    """No serious or critical axe-core violation in the page's main part as it stands."""
    if not AXE.is_file():
        pytest.fail(f"axe-core is missing at {AXE} (npm ci)")
    tab.evaluate(AXE.read_text())
    found = tab.evaluate("async () => (await axe.run({ include: [['main']] })).violations")
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in found]
    assert [v for v in bad if v[1] in ("serious", "critical")] == [], f"{where}: {bad}"


def play_round(
    tab: Any,
    server: LiveServer,
    name: str | None,
    pick: Callable[[list[str]], list[str]],
    team: str | None = None,
    lagging: bool = False,
) -> list[str]:
    """On the challenge's page: play the next round under ``name`` (for ``team``), enter the
    words ``pick`` chooses from the board's, end the game (its page then whole for its
    player), and come back to the standings (``lagging``: their first answer not counting the
    round yet, :func:`lagging_standings`). The words."""
    from playwright.sync_api import expect

    if name is not None:
        tab.get_by_label("Your name").fill(name)
    if team is not None:
        tab.get_by_label("Your team").select_option(team)
    tab.get_by_role("button", name="Play").click()
    expect(tab.locator("#word")).to_be_enabled(timeout=SLOW)
    expect(tab.get_by_role("meter")).to_be_visible()  # drawn by the page's script: it runs
    # The board as the player's page has it (a stranger's GET of a running round has none).
    board = tab.evaluate("JSON.parse(document.getElementById('game-data').textContent).board")
    words = pick([found.word for found in solve(board, STANDARD, Rules.preset("classic")).words])
    for word in words:
        tab.locator("#word").fill(word)
        tab.locator("#word").press("Enter")
        expect(tab.locator("#my-words")).to_contain_text(word)
    tab.once("dialog", lambda dialog: dialog.accept())
    tab.get_by_role("button", name="I'm done: end the game").click()
    # The player's own game, whole (not sealed as for the others): their words, in the second
    # person.
    expect(tab.locator("section.results #result-lists")).to_be_visible(timeout=SLOW)
    expect(tab.locator("section.sealed-results")).to_have_count(0)
    expect(tab.locator("section.results")).to_contain_text("You found")
    if words:
        expect(tab.locator("#result-lists")).to_contain_text(words[0])
    asked = lagging_standings(tab, name) if lagging and name else None
    back = tab.get_by_role("link", name="See the standings")
    expect(back).to_be_visible(timeout=SLOW)
    back.click()
    expect(tab.locator("#challenge-results")).to_be_visible()
    if asked is not None:
        # The first standings did not count the round: the page asked again, then drew them.
        expect(tab.locator("#overall")).to_contain_text(str(name))
        _until(tab, lambda: "part" in asked)
        assert asked[:2] == ["stale", "results"] and asked.index("part") > 1, asked
        tab.unroute("**/challenges/*/**")
    return words


def _until(tab: Any, check: Callable[[], bool], tries: int = 400) -> None:
    """Wait for ``check`` (the tab's events handled meanwhile), 20 s at most."""
    for _ in range(tries):
        if check():
            return
        tab.wait_for_timeout(50)
    raise AssertionError("waited 20 s in vain")


def lagging_standings(tab: Any, name: str) -> list[str]:
    """Make the challenge's first standings answer lag behind (``name`` not yet among the
    players of any round: as a busy server counts a round a moment after its finish), and note
    what the page asks for: ``stale`` (that answer), ``results`` (the next ones), ``part``
    (the standings' HTML). The list."""
    import json

    asked: list[str] = []

    def answer(route: Any) -> None:
        url = route.request.url
        if url.split("?")[0].endswith("/standings"):
            asked.append("part")
            route.continue_()
            return
        if not url.split("?")[0].endswith("/results"):
            route.continue_()
            return
        if asked:
            asked.append("results")
            route.continue_()
            return
        asked.append("stale")
        real = route.fetch()
        body = real.json()
        for shown in body.get("round_results", []):
            shown["players"] = [row for row in shown["players"] if row.get("name") != name]
        route.fulfill(response=real, body=json.dumps(body))

    tab.route("**/challenges/*/**", answer)
    return asked


STANDARD = Dictionary.builtin("standard")


def last_game_key(tab: Any, code: str) -> str:
    """The key this browser keeps for its round 1 game in challenge ``code`` (its seat's proof)."""
    key: str = tab.evaluate(
        """(code) => {
          const mine = JSON.parse(localStorage.getItem(`bigboggle:challenge:${code}`));
          return localStorage.getItem(`bigboggle:key:${mine.games[1]}`);
        }""",
        code,
    )
    return key


def test_a_challenge_passed_between_three_browsers(
    server: LiveServer, open_page: Callable[..., Any]
) -> None:
    from playwright.sync_api import expect

    # Ann makes a one-round classic team challenge from the form, by keyboard.
    ann = open_page(DESKTOP["width"], DESKTOP["height"], name="ann")
    ann.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    ann.add_init_script(
        "window.__shared = []; navigator.share = (data) => { window.__shared.push(data);"
        " return Promise.resolve(); };"
    )
    ann.goto(server.url + "/challenges")
    axe_clean(ann, "the new challenge form")
    ann.get_by_label("Game").select_option("classic")
    ann.get_by_label("Timer").select_option("60")
    ann.get_by_label("Teams (optional)").fill("Red, Blue")
    shot(ann, "challenge-form-with-teams")
    ann.set_viewport_size(PHONE)
    axe_clean(ann, "the new challenge form with teams, phone")
    shot(ann, "challenge-form-with-teams-phone")
    ann.set_viewport_size(DESKTOP)
    ann.get_by_role("button", name="Make the challenge").press("Enter")
    expect(ann.locator("h1")).to_contain_text("Challenge", timeout=SLOW)
    link = ann.locator("#share-link").input_value()
    code = link.rsplit("/", 1)[-1]
    assert link == f"{server.url}/challenges/{code}"
    ann.get_by_role("button", name="Copy link").click()
    expect(ann.locator("#share-status")).to_contain_text("Link copied")
    assert ann.evaluate("navigator.clipboard.readText()") == link
    ann.get_by_role("button", name="Share…").click()
    expect(ann.locator("#share-status")).to_contain_text("Shared")
    assert ann.evaluate("window.__shared[0].url") == link
    expect(ann.locator("#team-list")).to_contain_text("Red (nobody yet)")
    axe_clean(ann, "a fresh challenge, desktop")
    ann.get_by_label("Your name").fill("Ann")
    ann.get_by_role("button", name="Play").click()  # no team chosen: the form says so
    expect(ann.locator("#team:invalid")).to_have_count(1)
    assert ann.url == link
    ann_words = play_round(ann, server, "Ann", lambda w: w[:3], team="Red", lagging=True)
    expect(ann.locator("#overall")).to_contain_text("Ann")
    expect(ann.locator(".round-lists")).to_contain_text(ann_words[0])  # her own words, shown
    shot(ann, "challenge-ann-after-her-round")

    # Bob, later, on a phone: Ann's score and place, none of her words, then his round.
    bob = open_page(PHONE["width"], PHONE["height"], name="bob", has_touch=True)
    bob.goto(link)
    expect(bob.locator("#challenge-results")).to_contain_text("Ann")
    expect(bob.locator(".private-note")).to_be_visible()
    for word in ann_words:
        expect(bob.locator("main")).not_to_contain_text(word)
    axe_clean(bob, "the challenge before playing, phone")
    shot(bob, "challenge-bob-before")
    bob_words = play_round(bob, server, "Bob", lambda w: [w[0], w[5]], team="Blue")
    bob_lists = bob.locator(".round-lists")
    expect(bob_lists).to_contain_text(ann_words[1])  # Ann's words, now that his round is done
    expect(bob_lists.get_by_role("list", name="Ann's words")).to_contain_text("crossed off")
    expect(bob_lists).to_contain_text("What nobody found")
    axe_clean(bob, "the standings after playing, phone")

    # Cy: the two scores, no words; then all three lists, crossed off among all of them.
    cy = open_page(DESKTOP["width"], DESKTOP["height"], name="cy")
    cy.goto(link)
    expect(cy.locator("#overall")).to_contain_text("Bob")
    for word in set(ann_words + bob_words):
        expect(cy.locator("main")).not_to_contain_text(word)
    cy_words = play_round(cy, server, "Cy", lambda w: [w[2], w[5], w[7]], team="Red")
    cy_lists = cy.locator(".round-lists")
    expect(cy_lists.get_by_role("list", name="Bob's words")).to_contain_text(bob_words[1])
    expect(cy.locator("#overall tbody tr")).to_have_count(3)
    teams = cy.locator("#team-standings tbody tr")
    expect(teams).to_have_count(2)
    expect(teams.filter(has_text="Red")).to_contain_text("Ann, Cy")
    expect(teams.filter(has_text="Blue")).to_contain_text("Bob")
    rare = cy.locator("ul.missed li.rare")
    if rare.count():  # the rarer missed words wait behind a box, ticked by keyboard
        expect(rare.first).to_be_hidden()
        cy.locator("input.show-rare").focus()
        cy.keyboard.press("Space")
        expect(rare.first).to_be_visible()
    status, results = server.call("GET", f"/api/challenges/{code}/results")
    assert status == 200
    assert results["round_results"][0]["finished"] == 3
    status, mine = server.call(
        "GET", f"/api/challenges/{code}/results", headers={"X-Game-Key": last_game_key(cy, code)}
    )
    assert status == 200
    verdicts = {
        player["name"]: {word["word"]: word["verdict"] for word in player["words"]}
        for player in mine["round_results"][0]["players"]
    }
    # Ann and Cy (Red) both found cy_words[0]: kept for both; Bob (Blue) crosses off the rest.
    assert verdicts["Ann"][cy_words[0]] == verdicts["Cy"][cy_words[0]] == "scored"
    assert verdicts["Ann"][bob_words[0]] == verdicts["Bob"][bob_words[0]] == "crossed_off"
    assert verdicts["Cy"][bob_words[1]] == verdicts["Bob"][bob_words[1]] == "crossed_off"
    axe_clean(cy, "the standings of three, desktop")
    cy.set_viewport_size(PHONE)
    axe_clean(cy, "the standings of three, phone")
    shot(cy, "challenge-cy-phone")
    cy.emulate_media(color_scheme="dark")
    axe_clean(cy, "the standings of three, phone, dark theme")
    shot(cy, "challenge-cy-phone-dark")

    # Ann comes back: Bob's and Cy's words are hers to see (she finished her round first).
    ann.reload()
    expect(ann.locator(".round-lists").get_by_role("list", name="Cy's words")).to_be_visible()
    expect(ann.locator("#play-state")).to_contain_text("played every round")
    expect(ann.locator("#play-form")).to_be_hidden()


def test_a_finished_games_results_make_a_challenge(
    server: LiveServer, open_page: Callable[..., Any]
) -> None:
    from playwright.sync_api import expect

    dee = open_page(PHONE["width"], PHONE["height"], name="dee", has_touch=True)
    dee.goto(server.url + "/play")
    dee.get_by_label("Your name").fill("Dee")
    dee.get_by_role("button", name="Start the clock").click()
    expect(dee.locator("#word")).to_be_enabled(timeout=SLOW)
    expect(dee.get_by_role("meter")).to_be_visible()  # drawn by the page's script: it runs
    dee.once("dialog", lambda dialog: dialog.accept())
    dee.get_by_role("button", name="I'm done: end the game").click()
    make = dee.get_by_role("button", name="Challenge a friend to this board")
    expect(make).to_be_visible(timeout=SLOW)
    axe_clean(dee, "a finished game's results with the challenge button, phone")
    dee.get_by_label("Rounds").select_option("2")  # a match: this board, then a fresh one
    make.click()
    expect(dee.locator("h1")).to_contain_text("Challenge")
    expect(dee.locator("#overall")).to_contain_text("Dee")
    expect(dee.locator("#play-state")).to_contain_text("round 2 of 2")
