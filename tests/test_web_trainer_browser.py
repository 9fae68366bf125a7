"""The trainer in Chromium, against a real server: after two short solo games played as a guest,
/train shows drills from their missed words; an answer right and one wrong (by keyboard, the
hint too); the progress kept across a reload (the deck is this browser's); an anagram, with
another word of its letters "also" right; no serious or
critical axe-core violation at desktop and phone width in both themes, no sideways scroll
(screenshots ``trainer-STATE-SIZE-THEME.png``); and a guest's progress carried into the account
they sign up for, shown the same in another browser logged in."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import fsrs
import pytest
from playwright.sync_api import expect

from bigboggle.limits import TRAINER_MAX_CARDS
from bigboggle.trainer import Card, Deck
from browser_support import DESKTOP
from live_server import LiveServer
from test_web_tour import Tour

PASSWORD = "violet tractor harbour 92"

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
OTHER = "RATES/OLINE/SPACT/HUMID/GRAVE"

#: Two solo games started and finished by the page itself, their keys kept as startgame.js
#: keeps them (so the trainer reads them as claim.js does).
PLAY_TWO = """async (boards) => {
  for (const board of boards) {
    const post = (url, body, key) => fetch(url, {method: "POST", headers: {
      "Content-Type": "application/json", ...(key ? {"X-Game-Key": key} : {})},
      body: JSON.stringify(body)}).then((r) => r.json());
    const game = await post("/api/games", {board, player: "guest"});
    localStorage.setItem(`bigboggle:key:${game.id}`, game.key);
    await post(`/api/games/${game.id}/words`, {word: "lines"}, game.key);
    await post(`/api/games/${game.id}/finish`, {}, game.key);
  }
}"""


def _word_of(state: dict[str, Any]) -> str:
    card = Deck.from_json(state["deck"]).find(state["drill"]["card"])
    assert card is not None
    return card.word


def test_a_guest_trains_on_the_words_their_games_missed(
    open_page: Any, server: LiveServer, axe_source: Path
) -> None:
    page = open_page(DESKTOP["width"], DESKTOP["height"], name="trainer")
    tour = Tour(page, axe_source, prefix="trainer")
    page.goto(server.url + "/train")
    expect(page.locator("#trainer-empty")).to_be_visible()
    expect(page.locator("#trainer-empty-text")).to_contain_text("No missed words yet")
    expect(page.get_by_role("link", name="Trainer")).to_have_attribute("aria-current", "page")
    tour.look("empty")

    page.evaluate(PLAY_TWO, [BOARD, OTHER])
    with page.expect_response(lambda r: r.url.endswith("/api/trainer/guest")) as loaded:
        page.reload()
    state = loaded.value.json()
    assert state["counts"]["cards"] >= 15 and state["drill"]["kind"] == "fragment"
    expect(page.locator("#trainer-counts")).to_contain_text("words in your deck")
    expect(page.locator("#drill-prompt")).to_contain_text("-letter word on this board")
    expect(page.locator("#drill-view .board")).to_be_visible()
    expect(page.locator("#answer")).to_be_focused()

    # Right, by keyboard: typed and Enter; the word's path drawn, Next focused.
    first = _word_of(state)
    with page.expect_response(lambda r: r.url.endswith("/api/trainer/guest/answer")) as answered:
        page.keyboard.type(first)
        page.keyboard.press("Enter")
    after = answered.value.json()
    assert after["result"]["outcome"] == "right"
    expect(page.locator("#trainer-result")).to_contain_text("Right")
    expect(page.locator("#drill-view .cell.on-path")).to_have_count(len(after["result"]["path"]))
    expect(page.locator("#trainer-next")).to_be_focused()
    page.keyboard.press("Enter")

    # The hint (by keyboard), then a wrong answer: the word is shown.
    second = _word_of(after)
    assert second != first
    expect(page.locator("#answer")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator("#answer-hint")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#trainer-hint")).to_contain_text("it starts with")
    page.locator("#answer").fill("zzzz")
    page.locator("#answer").press("Enter")
    expect(page.locator("#trainer-result")).to_contain_text(f"the word was '{second}'")
    tour.look("wrong")

    # Reloaded: the progress is this browser's deck, sent back and scheduled again.
    with page.expect_response(lambda r: r.url.endswith("/api/trainer/guest")) as reloaded:
        page.reload()
    kept = Deck.from_json(reloaded.value.json()["deck"])
    assert kept.cards[first].reps == 1 and kept.cards[second].reps == 1
    assert kept.cards[first].due > kept.cards[second].due  # Good waits longer than Again
    assert sum(card.reps for card in kept) == 2
    expect(page.locator("#trainer-counts")).to_contain_text("words in your deck")

    # A card answered once before and due again is an anagram: its tiles; another word of the
    # same letters is "also" right and the card waits; then the word itself.
    deck = Deck()
    deck.add_missed("stone", time.time() - 7200)
    deck.review("stone", fsrs.Rating.Good, time.time() - 3600)
    page.evaluate(
        "(deck) => localStorage.setItem('bigboggle:trainer-deck', JSON.stringify(deck))",
        deck.to_json(),
    )
    page.reload()
    expect(page.locator("#drill-view .tiles li")).to_have_count(5)
    expect(page.locator("#drill-prompt")).to_contain_text("Unscramble")
    page.locator("#answer").fill("notes")
    page.locator("#answer").press("Enter")
    expect(page.locator("#trainer-result")).to_contain_text("also a word of these letters")
    expect(page.locator("#trainer-next")).to_be_hidden()
    tour.look("anagram")
    page.locator("#answer").fill("stone")
    page.locator("#answer").press("Enter")
    expect(page.locator("#trainer-result")).to_contain_text("Right")
    tour.check()


def test_a_guests_progress_goes_into_the_account_at_sign_up(
    open_page: Any, server: LiveServer
) -> None:
    guest = open_page(DESKTOP["width"], DESKTOP["height"], name="guest")
    guest.goto(server.url + "/train")
    guest.evaluate(PLAY_TWO, [BOARD])
    with guest.expect_response(lambda r: r.url.endswith("/api/trainer/guest")) as loaded:
        guest.reload()
    with guest.expect_response(lambda r: r.url.endswith("/api/trainer/guest/answer")):
        guest.locator("#answer").fill(_word_of(loaded.value.json()))
        guest.locator("#answer").press("Enter")
    expect(guest.locator("#trainer-result")).to_contain_text("Right")
    counts = guest.locator("#trainer-counts").inner_text()
    assert "15 words in your deck" in counts

    # "Sign up to keep it": the deck goes with the claim, and this browser's copy is dropped.
    guest.locator(".lead").get_by_role("link", name="sign up").click()
    guest.wait_for_url("**/signup?next=%2Ftrain")
    guest.fill("#username", "trainee")
    guest.fill("#password", "violet tractor harbour 92")
    guest.locator("#submit-button").click()
    expect(guest.locator("#account-done")).to_contain_text(
        "Your trainer's 15 words, with their progress, are now kept with your account."
    )
    assert guest.evaluate("localStorage.getItem('bigboggle:trainer-deck')") is None

    # Another browser, logged in: the member's trainer shows the same progress. (Its own guest
    # deck is damaged: the server refuses it, and the log-in goes on without it.)
    member = open_page(DESKTOP["width"], DESKTOP["height"], name="member")
    member.goto(server.url + "/login?next=%2Ftrain")
    member.evaluate(
        "localStorage.setItem('bigboggle:trainer-deck', JSON.stringify({version: 1, cards: [7]}))"
    )
    member.fill("#username", "trainee")
    member.fill("#password", "violet tractor harbour 92")
    member.locator("#submit-button").click()
    member.wait_for_url("**/train")
    expect(member.locator("#trainer")).to_have_attribute("data-member", "1")
    expect(member.locator("#trainer-counts")).to_have_text(counts)
    assert member.evaluate("localStorage.getItem('bigboggle:trainer-deck')") is None


def test_guest_words_that_do_not_fit_a_full_deck_stay_in_the_browser(
    open_page: Any, server: LiveServer
) -> None:
    letters = "abcdefghij"
    fillers = [f"{a}{b}{c}" for a in letters for b in letters for c in letters]
    page = open_page(DESKTOP["width"], DESKTOP["height"], name="full")
    status, _ = server.call("POST", "/api/account", {"username": "fuller", "password": PASSWORD})
    assert status in (200, 201)

    def log_in_with(deck: Deck, said: str) -> None:
        page.context.clear_cookies()
        page.goto(server.url + "/login?next=%2Ftrain")
        page.evaluate(
            "(deck) => localStorage.setItem('bigboggle:trainer-deck', JSON.stringify(deck))",
            deck.to_json(),
        )
        page.fill("#username", "fuller")
        page.fill("#password", PASSWORD)
        page.locator("#submit-button").click()
        expect(page.locator("#account-done")).to_contain_text(said)

    # The first log-in fills the account's deck: all carried, the browser's copy dropped.
    log_in_with(
        Deck({word: Card(word) for word in fillers[:TRAINER_MAX_CARDS]}),
        f"Your trainer's {TRAINER_MAX_CARDS} words, with their progress, are now kept",
    )
    assert page.evaluate("localStorage.getItem('bigboggle:trainer-deck')") is None
    # The next brings 3 words that do not fit: they stay in this browser, and /train says so.
    log_in_with(
        Deck({word: Card(word) for word in ("stone", "lines", "notes")}),
        "Your account's trainer deck is full: 3 words from your guest trainer did not fit",
    )
    page.goto(server.url + "/train")
    expect(page.locator("#trainer-left-out")).to_contain_text(
        "Your account's trainer deck is full: 3 words from your guest trainer did not fit"
    )
    kept = page.evaluate("JSON.parse(localStorage.getItem('bigboggle:trainer-deck'))")
    assert sorted(card["word"] for card in kept["cards"]) == ["lines", "notes", "stone"]
