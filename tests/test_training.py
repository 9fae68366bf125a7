"""The trainer as a service: a member's deck fed from their history (on SQLite and PostgreSQL),
progress kept per card; a guest's deck fed from this browser's games by their keys (a wrong key
contributes nothing), scheduled statelessly; and the routes under /api/trainer with their
bounds and errors."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import fsrs
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from bigboggle import Board, Dictionary, Rules, solve
from bigboggle.errors import DeckError, RoundInputError
from bigboggle.limits import (
    CLAIM_MAX_GAMES,
    TRAINER_DECK_BYTES,
    TRAINER_FED_GAMES_KEPT,
    TRAINER_FEED_GAMES,
    TRAINER_GUEST_GAMES,
    TRAINER_MAX_CARDS,
    TRAINER_WORDS_PER_GAME,
)
from bigboggle.services import training as training_module
from bigboggle.services.accounts import Accounts
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import MissedWordsRow, SoloGameRow, Store, TrainerCardRow
from bigboggle.services.training import (
    FedGame,
    FedGames,
    Training,
    merge_decks,
    missed_of_result,
)
from bigboggle.trainer import Card, Deck, card_id, drill_for, schedule
from bigboggle.web import create_app
from bigboggle.web.auth import SESSION_COOKIE
from conftest import FakeClock, make_member

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
OTHER = "LINES/TQARD/XXXXX/XXXXX/XXXXX"  # shares two rows with BOARD
THIRD = "RATES/OLINE/SPACT/HUMID/GRAVE"


def play(
    games: SoloGames, clock: FakeClock, *, account_id: int | None = None, board: str = BOARD
) -> tuple[str, str]:
    """A finished solo game on ``board`` with one word found: its id and key."""
    started = games.start("big", board=board, player="guest", account_id=account_id)
    clock.advance(1)
    games.submit(started.game.id, "lines", started.key)
    games.finish(started.game.id, started.key)
    return started.game.id, started.key or ""


def missed_in(store: Store, game_id: str, most: int | None) -> list[str]:
    with store.session() as session:
        result = session.scalar(select(SoloGameRow.result).where(SoloGameRow.id == game_id))
    return [word.word for word in missed_of_result(result, most)]


def cards_of(store: Store, account_id: int) -> dict[str, dict[str, object]]:
    with store.session() as session:
        return {
            row.word: row.card
            for row in session.scalars(
                select(TrainerCardRow).where(TrainerCardRow.account_id == account_id)
            )
        }


def right_answer(training: Training, drill: dict[str, object], deck: Deck) -> str:
    card = deck.find(str(drill["card"]))
    assert card is not None
    return card.word


def test_a_members_deck_is_fed_from_their_history_and_keeps_progress(
    store: Store, clock: FakeClock
) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    training = Training(store, DictionaryShelf(), clock)
    ann, bob = make_member(store, "ann"), make_member(store, "bob")
    assert training.member_state(ann).to_json() == {
        "counts": {"cards": 0, "due": 0, "new": 0, "learned": 0, "next_due": None},
        "drill": None,
        "hint": None,
    }
    first, _ = play(games, clock, account_id=ann)
    second, _ = play(games, clock, account_id=ann, board=OTHER)
    state = training.member_state(ann)
    stored = cards_of(store, ann)
    assert cards_of(store, bob) == {}
    # Each game gives its highest-scoring common missed words, with their board and path; the
    # summary adds the words missed in both games (two misses), with the latest board's path.
    # (The summary's counts are approximate: a word missed twice may have been cut.)
    with store.session() as session:
        summary = session.scalars(select(MissedWordsRow.summary)).one()
    both = {word for word, misses in summary["counts"].items() if misses >= 2}
    assert both <= set(missed_in(store, first, None)) & set(missed_in(store, second, None))
    expected = set(missed_in(store, first, 15)) | set(missed_in(store, second, 15)) | both
    assert set(stored) == expected and both and TRAINER_WORDS_PER_GAME == 15
    assert "lines" not in stored  # found, not missed
    assert {w for w, card in stored.items() if card["misses"] == 2} == both
    for word, card in stored.items():
        assert card["board"] in (str(Board(BOARD)), str(Board(OTHER)))
        assert Board(str(card["board"])).spell([tuple(s) for s in card["path"]]) == word
    assert all(stored[word]["board"] == str(Board(OTHER)) for word in both)
    assert state.counts["cards"] == len(expected) and state.counts["new"] > 0
    assert state.drill is not None and state.drill["kind"] == "fragment"
    # Fed again: nothing is counted twice.
    training.member_state(ann)
    assert cards_of(store, ann) == stored
    # An answer: right and quick is Good, kept with the card; a reload shows the next drill.
    deck = Deck.from_json({"version": 1, "cards": [{**c, "word": w} for w, c in stored.items()]})
    word = right_answer(training, state.drill, deck)
    view = training.member_answer(ann, str(state.drill["card"]), word.upper(), seconds=2.0)
    body = view.to_json()
    assert body["result"]["outcome"] == "right" and body["result"]["rating"] == "good"
    assert body["result"]["word"] == word and body["result"]["path"]
    kept = cards_of(store, ann)[word]
    assert kept["reps"] == 1 and kept["due"] == clock.now + 600  # FSRS's second learning step
    again = Training(store, DictionaryShelf(), clock).member_state(ann)
    assert again.drill is not None and again.drill["card"] != state.drill["card"]
    # A wrong answer is Again; an unknown card is refused.
    wrong = training.member_answer(ann, str(again.drill["card"]), "zzzz", seconds=1.0).to_json()
    assert wrong["result"]["outcome"] == "wrong" and wrong["result"]["rating"] == "again"
    with pytest.raises(RoundInputError, match="no card"):
        training.member_answer(ann, "0123456789abcdef", "lines")


def test_a_members_summary_words_become_cards_and_recent_games_are_bounded(
    store: Store, clock: FakeClock
) -> None:
    training = Training(store, DictionaryShelf(), clock)
    ann = make_member(store, "ann")
    with store.session() as session:
        session.add(
            MissedWordsRow(
                account_id=ann,
                family="5x5",
                summary={"counts": {"stone": 3, "lines": 1, "X!": 5}, "games": 3, "misses": 9},
            )
        )
    state = training.member_state(ann)
    stored = cards_of(store, ann)
    # Missed once is not yet worth a card from a summary; a non-word never is.
    assert set(stored) == {"stone"} and stored["stone"]["misses"] == 3
    assert stored["stone"]["board"] is None
    assert state.drill is not None and state.drill["kind"] == "fragment"
    assert "stone" not in str(state.drill)  # the drill does not spell the word out


def test_a_full_members_deck_gives_up_its_best_known_cards_for_new_misses(
    store: Store, clock: FakeClock
) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    training = Training(store, DictionaryShelf(), clock)
    ann = make_member(store, "ann")
    letters = "abcdefghijklmnopqrstuvwxyz"
    fillers = [f"{a}{b}{c}" for a in letters for b in letters for c in letters][:TRAINER_MAX_CARDS]
    with store.session() as session:
        for at, word in enumerate(fillers):  # all learned, the later ones known further ahead
            card = Card(word, added=clock.now, due=clock.now)
            for step in range(3):
                card = schedule(card, fsrs.Rating.Good, clock.now + step * 600)
            card = replace(card, due=card.due + at)
            data = card.to_json()
            del data["word"]
            session.add(TrainerCardRow(account_id=ann, word=word, card=data, due=card.due))
    play(games, clock, account_id=ann)
    training.member_state(ann)
    stored = cards_of(store, ann)
    fed = [word for word in stored if word not in fillers]
    assert len(stored) == TRAINER_MAX_CARDS and len(fed) == TRAINER_WORDS_PER_GAME
    # The cards given up are the best known: those due furthest ahead.
    assert set(fillers) - set(stored) == set(fillers[-len(fed) :])
    # Fed again, the deck is the same: a feed never pushes out its own words.
    training.member_state(ann)
    assert cards_of(store, ann) == stored


def test_two_feeds_of_one_members_deck_at_once_both_answer(
    store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two tabs open /train at once: without a lock on the member, both fed the deck and the
    # second's insert of the same new cards failed on PostgreSQL's unique key (a 500).
    games = SoloGames(store, DictionaryShelf(), clock)
    training = Training(store, DictionaryShelf(), clock)
    ann = make_member(store, "ann")
    play(games, clock, account_id=ann)
    barrier = threading.Barrier(2, timeout=2)
    feed = Training._feed

    def feed_together(self: Training, *args: Any) -> None:
        with contextlib.suppress(threading.BrokenBarrierError):  # the other waits on the lock
            barrier.wait()
        feed(self, *args)

    monkeypatch.setattr(Training, "_feed", feed_together)
    with ThreadPoolExecutor(2) as pool:
        states = list(pool.map(lambda _: training.member_state(ann), range(2)))
    assert states[0].counts["cards"] == states[1].counts["cards"] > 0


def drilled(word: str, at: float, times: int = 1, **changes: Any) -> Card:
    """``word``'s card answered Good ``times`` times from ``at``, ten minutes apart."""
    card = Card(word, added=at, due=at, **changes)
    for step in range(times):
        card = schedule(card, fsrs.Rating.Good, at + step * 600)
    return card


def test_a_guests_deck_is_merged_into_the_members_at_sign_up(
    store: Store, clock: FakeClock
) -> None:
    training = Training(store, DictionaryShelf(), clock)
    ann = make_member(store, "ann")
    now = clock.now
    placed = {"board": str(Board(BOARD)), "path": ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4))}
    mine = Deck({"lines": drilled("lines", now, 2, misses=1), "emu": Card("emu", added=now)})
    assert training.adopt_guest_deck(ann, mine.to_json()) == 2  # into an empty deck: as it was
    assert (
        Deck.from_json(
            {"version": 1, "cards": [{**c, "word": w} for w, c in cards_of(store, ann).items()]}
        ).cards
        == mine.cards
    )
    clock.advance(3600)
    guest = Deck(
        {
            "cat": drilled("cat", clock.now, 1),
            # Known to both: the member's was reviewed later; the guest's was missed more and
            # knows its board.
            "lines": Card("lines", misses=3, added=now - 60, due=clock.now, **placed),
            "bird": Card("bird", added=clock.now),
        }
    )
    assert training.adopt_guest_deck(ann, guest.to_json()) == 3
    stored = cards_of(store, ann)
    assert set(stored) == {"lines", "emu", "cat", "bird"}
    assert stored["cat"] == {k: v for k, v in guest.cards["cat"].to_json().items() if k != "word"}
    lines = mine.cards["lines"]
    assert stored["lines"]["reps"] == lines.reps == 2 and stored["lines"]["due"] == lines.due
    assert stored["lines"]["misses"] == 3 and stored["lines"]["added"] == now - 60
    assert stored["lines"]["board"] == placed["board"]
    # The member's trainer now counts the guest's progress (one card drilled, in learning).
    counts = training.member_state(ann).counts
    assert counts["cards"] == 4 and counts["new"] == 2
    # The same deck again changes nothing; a deck that is not one changes nothing either.
    assert training.adopt_guest_deck(ann, guest.to_json()) == 3
    assert cards_of(store, ann) == stored
    forged = {"version": 1, "cards": [{**Card("dog").to_json(), "due": "soon"}]}
    with pytest.raises(DeckError, match=r"^trainer_deck\.cards\[0\]\.due"):
        training.adopt_guest_deck(ann, forged)
    assert training.adopt_guest_deck(ann, {"version": 1, "cards": []}) == 0
    assert cards_of(store, ann) == stored


def test_a_full_deck_takes_the_guests_most_drilled_new_words_first() -> None:
    held = Deck({"ant": Card("ant"), "bee": Card("bee")})
    guest = Deck(
        {
            "cat": Card("cat", misses=5),
            "dog": drilled("dog", 0.0, 1),
            "ant": drilled("ant", 0.0, 2),
        }
    )
    assert merge_decks(held, guest, most=3) == 2  # ant merged, dog joins, no room for cat
    assert list(held.cards) == ["ant", "bee", "dog"] and held.cards["ant"] == guest.cards["ant"]


def test_a_word_in_both_decks_keeps_the_card_reviewed_later() -> None:
    # The member reviewed "lines" yesterday (3 reviews); an old browser's copy has more reviews
    # but its last is 60 days old: the member's newer schedule stays, the misses are the larger.
    day = 86_400.0
    mine = drilled("lines", 100 * day, 3, misses=1)
    stale = drilled("lines", 40 * day, 4, misses=2)
    assert stale.last_review is not None and mine.last_review is not None
    assert stale.reps > mine.reps and stale.last_review < mine.last_review
    held = Deck({"lines": mine})
    assert merge_decks(held, Deck({"lines": stale})) == 1
    assert held.cards["lines"] == replace(mine, misses=2, added=stale.added)  # the earlier
    # The other way round, the guest's later review wins; on a tie, the member's card.
    held = Deck({"lines": stale})
    merge_decks(held, Deck({"lines": mine}))
    assert held.cards["lines"] == replace(mine, misses=2, added=stale.added)
    tied = replace(mine, stability=mine.stability + 1, misses=0)
    held = Deck({"lines": tied})
    merge_decks(held, Deck({"lines": mine}))
    assert held.cards["lines"] == replace(tied, misses=1)


def test_a_full_members_deck_says_which_guest_words_did_not_fit(client: TestClient) -> None:
    # The claim's answer counts the guest's cards left out (the member's deck is full), so the
    # browser keeps its copy of them instead of dropping words that went nowhere.
    found = client.app.state.services  # type: ignore[attr-defined]
    ann = make_member(found.store, "ann")
    letters = "abcdefghij"
    full = Deck(
        {
            w: Card(w)
            for w in [f"{a}{b}{c}" for a in letters for b in letters for c in letters][
                :TRAINER_MAX_CARDS
            ]
        }
    )
    assert found.training.adopt_guest_deck(ann, full.to_json()) == TRAINER_MAX_CARDS
    session = Accounts(found.store, found.clock).start_session(ann, "password")
    client.cookies.set(SESSION_COOKIE, session.token)
    guest = Deck({"aaa": Card("aaa", misses=2), "stone": Card("stone"), "lines": Card("lines")})
    claimed = client.post("/api/me/claim", json={"trainer_deck": guest.to_json()}).json()
    assert claimed["cards"] == 1 and claimed["left_out"] == 2  # "aaa" merged; no room for 2
    assert "stone" not in cards_of(found.store, ann)
    assert found.training.merge_guest_deck(ann, {"version": 1, "cards": []}) == (0, 0)


def test_a_guests_deck_comes_from_the_games_whose_keys_match(
    store: Store, clock: FakeClock
) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    training = Training(store, DictionaryShelf(), clock)
    game_id, key = play(games, clock)
    running = games.start("big", board=BOARD, player="guest")
    assert training.guest_state(None, [(game_id, "not-its-key")]).counts["cards"] == 0
    assert training.guest_state(None, [("nosuchgame", "x")]).counts["cards"] == 0
    assert training.guest_state(None, [(running.game.id, running.key or "")]).counts["cards"] == 0
    state = training.guest_state(None, [(game_id, key)])
    assert state.deck is not None and state.counts["cards"] == TRAINER_WORDS_PER_GAME
    deck = Deck.from_json(state.deck)
    assert all(card.board == str(Board(BOARD)) for card in deck)
    # Fed again with its own deck: the same deck.
    assert training.guest_state(state.deck, [(game_id, key)]).deck == state.deck
    # An answer schedules the card in the deck handed back; the server keeps nothing.
    assert state.drill is not None
    word = right_answer(training, state.drill, deck)
    view = training.guest_answer(state.deck, str(state.drill["card"]), word, seconds=60.0)
    body = view.to_json()
    assert body["result"]["rating"] == "hard"  # right, but slowly
    after = Deck.from_json(body["deck"])
    assert after.cards[word].reps == 1 and deck.cards[word].reps == 0
    with pytest.raises(DeckError, match=r"deck\.cards\[0\]\.due"):
        bad = {"version": 1, "cards": [{**state.deck["cards"][0], "due": "soon"}]}
        training.guest_state(bad, [])
    with pytest.raises(RoundInputError, match="games"):
        training.guest_state(None, [("g", "k")] * (CLAIM_MAX_GAMES + 1))


def test_a_guests_games_are_read_once_and_the_games_kept_are_bounded(
    store: Store, clock: FakeClock
) -> None:
    """A finished game's results never change, so the words it gives a deck are read once per
    process (review 16's M3: 50 games' results, 100 KB of JSON each, were read and sifted on
    every guest request, 2 s of CPU), and at most TRAINER_FED_GAMES_KEPT games are kept."""
    assert TRAINER_FED_GAMES_KEPT == 4096
    games = SoloGames(store, DictionaryShelf(), clock)
    training = Training(store, DictionaryShelf(), clock)
    assert training.fed.most == TRAINER_FED_GAMES_KEPT
    game = play(games, clock)
    first = training.guest_state(None, [game])
    assert first.counts["cards"] == TRAINER_WORDS_PER_GAME
    with store.write_session() as session:
        row = session.get(SoloGameRow, game[0])
        assert row is not None
        row.result = {**row.result, "missed": []}  # (a change no finished game sees)
    assert training.guest_state(None, [game]).deck == first.deck  # not read again
    assert Training(store, DictionaryShelf(), clock).guest_state(None, [game]).counts["cards"] == 0
    assert training.guest_state(None, [(game[0], "not-its-key")]).counts["cards"] == 0
    kept = FedGames(most=2)
    for name in ("a", "b", "c"):
        kept.put(name, FedGame(None, ()))
    assert len(kept) == 2 and kept.get("a") is None and kept.get("c") is not None


def test_only_the_latest_games_feed_a_deck(
    store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TRAINER_FEED_GAMES of a member's games and TRAINER_GUEST_GAMES of a guest's are read,
    the latest first (here both made 1, so the earlier game adds nothing)."""
    assert TRAINER_FEED_GAMES == 20 and TRAINER_GUEST_GAMES == 50
    monkeypatch.setattr(training_module, "TRAINER_FEED_GAMES", 1)
    monkeypatch.setattr(training_module, "TRAINER_GUEST_GAMES", 1)
    games = SoloGames(store, DictionaryShelf(), clock)
    training = Training(store, DictionaryShelf(), clock)
    ann = make_member(store, "ann")
    earlier, _ = play(games, clock, account_id=ann, board=THIRD)
    latest, _ = play(games, clock, account_id=ann)
    training.member_state(ann)
    stored = cards_of(store, ann)
    # The latest game's words, and the summary's (missed in both games: on the latest board).
    assert set(missed_in(store, latest, 15)) <= set(stored)
    assert {card["board"] for card in stored.values()} == {str(Board(BOARD))}
    only_earlier = set(missed_in(store, earlier, 15)) - set(missed_in(store, latest, None))
    assert only_earlier and not only_earlier & set(stored)
    first = play(games, clock, board=THIRD)
    second = play(games, clock)
    state = training.guest_state(None, [first, second])
    assert state.deck is not None
    assert {card["word"] for card in state.deck["cards"]} == set(missed_in(store, second[0], 15))


def test_missed_words_of_a_stored_result_skip_rare_offensive_and_malformed_ones(
    standard: Dictionary,
) -> None:
    solution = solve(BOARD, standard, Rules.preset("big"))
    entries = [word.to_json() for word in solution.words]
    result = {
        "missed": [
            {**entries[0], "rare": True},
            {**entries[1], "offensive": True},
            {"word": 7, "path": []},
            {"word": "lines", "path": [["a", 0]]},
            "junk",
            *entries[2:],
        ]
    }
    found = missed_of_result(result)
    assert len(found) == TRAINER_WORDS_PER_GAME
    words = {word.word for word in found}
    assert entries[0]["word"] not in words and entries[1]["word"] not in words
    assert all(Board(BOARD).spell(word.path) == word.word for word in found)
    assert missed_of_result("nothing") == [] and missed_of_result({"missed": None}) == []


# -- over the web ----------------------------------------------------------------------------------


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, clock=clock)) as test_client:
        yield test_client


def finished_game(client: TestClient) -> dict[str, str]:
    started = client.post("/api/games", json={"board": BOARD, "player": "guest"}).json()
    headers = {"X-Game-Key": started["key"]}
    client.post(f"/api/games/{started['id']}/words", json={"word": "lines"}, headers=headers)
    client.post(f"/api/games/{started['id']}/finish", headers=headers)
    return {"id": started["id"], "key": started["key"]}


def test_the_guest_routes(client: TestClient) -> None:
    game = finished_game(client)
    state = client.post("/api/trainer/guest", json={"games": [game]}).json()
    assert state["counts"]["cards"] == TRAINER_WORDS_PER_GAME and state["deck"]["version"] == 1
    deck = Deck.from_json(state["deck"])
    card = deck.find(state["drill"]["card"])
    assert card is not None and drill_for(card).to_json() == state["drill"]
    body = {"deck": state["deck"], "card": state["drill"]["card"], "answer": card.word}
    answered = client.post("/api/trainer/guest/answer", json=body)
    assert answered.status_code == 200, answered.text
    assert answered.json()["result"]["outcome"] == "right"
    wrong_key = client.post("/api/trainer/guest", json={"games": [{**game, "key": "nope"}]})
    assert wrong_key.json()["counts"]["cards"] == 0
    bad_deck = client.post("/api/trainer/guest", json={"deck": {"version": 9, "cards": []}})
    assert bad_deck.status_code == 400 and "deck.version" in bad_deck.json()["error"]
    unknown = client.post("/api/trainer/guest/answer", json={**body, "card": "ffff"})
    assert unknown.status_code == 400 and "no card" in unknown.json()["error"]
    negative = client.post("/api/trainer/guest/answer", json={**body, "seconds": -1})
    assert negative.status_code == 400 and "seconds" in negative.json()["error"]
    extra = client.post("/api/trainer/guest/answer", json={**body, "cheat": True})
    assert extra.status_code == 400 and "cheat" in extra.json()["error"]
    huge = client.post(
        "/api/trainer/guest/answer",
        content=b'{"deck": {"x": "' + b"x" * TRAINER_DECK_BYTES + b'"}}',
        headers={"Content-Type": "application/json"},
    )
    assert huge.status_code == 413
    assert client.post("/api/trainer/guest", content=b"{}", headers={}).status_code == 415
    cross = client.post(
        "/api/trainer/guest", json={"games": [game]}, headers={"Origin": "https://evil.example"}
    )
    assert cross.status_code == 403


FORGED = {"word": "cat", "reps": 1, "state": 2, "step": None, "stability": None}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        # Review 16, M4: a card in review without its stability made FSRS assert (a 500).
        (FORGED, r"deck.cards[0].stability: a card answered (reps 1) needs its stability"),
        # Review 16, L1: a 401-digit time has no float (an OverflowError, a 500).
        ({"word": "cat", "due": 10**400}, "deck.cards[0].due: expected a number 0-7.25812e+09"),
    ],
)
def test_a_forged_guest_deck_is_a_400_naming_the_card(
    client: TestClient, changes: dict[str, object], message: str
) -> None:
    card = {**Card("dog").to_json(), **changes}
    text = json.dumps({"deck": {"version": 1, "cards": [card]}})
    headers = {"Content-Type": "application/json"}
    state = client.post("/api/trainer/guest", content=text, headers=headers)
    assert state.status_code == 400 and state.json()["error"].startswith(message)
    body = text[:-1] + f', "card": "{card_id("cat")}", "answer": "cat"}}'
    answer = client.post("/api/trainer/guest/answer", content=body, headers=headers)
    assert answer.status_code == 400 and answer.json()["error"].startswith(message)


def test_the_member_routes(client: TestClient, clock: FakeClock) -> None:
    assert client.get("/api/trainer").status_code == 401
    assert client.post("/api/trainer/answer", json={"card": "x", "answer": "y"}).status_code == 401
    found = client.app.state.services  # type: ignore[attr-defined]
    ann = make_member(found.store, "ann")
    session = Accounts(found.store, found.clock).start_session(ann, "password")
    client.cookies.set(SESSION_COOKIE, session.token)
    started = client.post("/api/games", json={"board": BOARD}).json()
    client.post(f"/api/games/{started['id']}/finish", headers={"X-Game-Key": started["key"]})
    state = client.get("/api/trainer").json()
    assert state["counts"]["cards"] == TRAINER_WORDS_PER_GAME and "deck" not in state
    given_up = client.post(
        "/api/trainer/answer", json={"card": state["drill"]["card"], "gave_up": True}
    ).json()
    assert given_up["result"]["outcome"] == "gave_up" and given_up["result"]["rating"] == "again"
    assert given_up["result"]["word"] in cards_of(found.store, ann)
    empty = client.post("/api/trainer/answer", json={"card": given_up["drill"]["card"]})
    assert empty.status_code == 400 and "answer" in empty.json()["error"]
    page = client.get("/train")
    assert page.status_code == 200 and 'data-member="1"' in page.text


def test_a_guests_deck_goes_into_the_account_with_the_claim(client: TestClient) -> None:
    game = finished_game(client)
    state = client.post("/api/trainer/guest", json={"games": [game]}).json()
    body = {"deck": state["deck"], "card": state["drill"]["card"], "gave_up": True}
    answered = client.post("/api/trainer/guest/answer", json=body).json()
    found = client.app.state.services  # type: ignore[attr-defined]
    ann = make_member(found.store, "ann")
    session = Accounts(found.store, found.clock).start_session(ann, "password")
    client.cookies.set(SESSION_COOKIE, session.token)
    forged = {"version": 1, "cards": [{**Card("dog").to_json(), "misses": -1}]}
    refused = client.post("/api/me/claim", json={"games": [game], "trainer_deck": forged})
    assert refused.status_code == 400
    assert refused.json()["error"].startswith("trainer_deck.cards[0].misses")
    assert cards_of(found.store, ann) == {}  # nothing changed: neither the deck nor the game
    assert client.post("/api/me/claim", json={"trainer_deck": []}).status_code == 400
    claim = {"games": [game], "trainer_deck": answered["deck"]}
    claimed = client.post("/api/me/claim", json=claim).json()
    assert claimed == {
        "games": 1,
        "seats": 0,
        "refused": 0,
        "cards": TRAINER_WORDS_PER_GAME,
        "left_out": 0,
    }
    # The member's trainer shows the guest's progress: the card given up is in learning, and
    # the game claimed (which fed the guest's deck) adds nothing twice.
    member = client.get("/api/trainer").json()
    assert member["counts"] == answered["counts"]
    word = answered["result"]["word"]
    assert cards_of(found.store, ann)[word]["lapses"] == 0
    assert cards_of(found.store, ann)[word]["reps"] == 1
