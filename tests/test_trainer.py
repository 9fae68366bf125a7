"""The trainer's core: drills hold the word's path or are anagrams of it, seeded; answers are
judged (the word, "also a word here", wrong); the schedule (FSRS) grows with Good and falls back
with Again, with due dates and a daily allowance of new cards; decks are checked when read and
kept in files atomically."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import fsrs
import pytest

from bigboggle import Board, Dictionary, Rules, solve
from bigboggle.dictionary import COMMON_LEVEL
from bigboggle.errors import DeckError, RoundInputError
from bigboggle.limits import (
    TRAINER_DECK_BYTES,
    TRAINER_MAX_CARDS,
    TRAINER_MAX_WORD_LETTERS,
    TRAINER_NEW_PER_DAY,
    TRAINER_WORDS_PER_GAME,
)
from bigboggle.trainer import (
    Card,
    Deck,
    DeckFile,
    Outcome,
    answer_card,
    drill_for,
    faces_of,
    is_trainable,
    judge,
    quick_seconds,
    rating_for,
    schedule,
    worth_training,
)

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
NOW = 1_790_000_000.0  # 2026-09-21 21:33:20 UTC
DAY = 86_400.0


def fragment_word(
    drill_grid: tuple[tuple[str, ...], ...], path: tuple[tuple[int, int], ...]
) -> str:
    return "".join(drill_grid[r][c] for r, c in path).lower()


# -- drills -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("word", ["stone", "queen", "aardvarks", "internationalism"])
def test_a_laid_fragment_holds_the_word_along_a_path_seeded(word: str) -> None:
    card = Card(word, added=NOW, due=NOW)
    drill = drill_for(card)
    assert drill.kind == "fragment" and drill.path is not None
    assert fragment_word(drill.grid, drill.path) == word
    board = Board.from_faces(drill.grid)
    assert board.is_valid_path(drill.path) and 3 <= board.rows == board.cols <= 6
    assert drill.letters == len(word) and drill.first == faces_of(word)[0]
    assert drill.start == drill.path[0]
    assert drill_for(Card(word, added=NOW + 5, due=NOW + 9)) == drill  # the same, anywhere
    # The drill's JSON names the card, not the word (nor its path).
    shown = json.dumps(drill.to_json())
    assert word not in shown.lower().replace(" ", "") or word in drill.to_json()["board"].lower()
    assert "path" not in drill.to_json()


def test_a_fragment_of_the_real_board_is_its_cells_around_the_path(standard: Dictionary) -> None:
    board = Board(BOARD)
    words = solve(board, standard, Rules.preset("big")).words
    small = next(w for w in words if max(r for r, _ in w.path) - min(r for r, _ in w.path) < 2)
    wide = next(w for w in words if len({c for _, c in w.path}) == 5)
    for found, side in ((small, 3), (wide, 5)):
        drill = drill_for(Card(found.word, board=str(board), path=found.path))
        assert drill.kind == "fragment" and len(drill.grid) == len(drill.grid[0]) >= side
        assert drill.path is not None and fragment_word(drill.grid, drill.path) == found.word
        # Each cell is the real board's: the fragment is a window onto it.
        top = found.path[0][0] - drill.path[0][0]
        left = found.path[0][1] - drill.path[0][1]
        for r, row in enumerate(drill.grid):
            for c, face in enumerate(row):
                assert board.faces[top + r][left + c] == face


def test_an_anagram_is_the_words_faces_shuffled_never_the_word() -> None:
    seen = set()
    for reps in (1, 3, 5, 7):
        card = Card("queens", reps=reps)
        drill = drill_for(card)
        assert drill.kind == "anagram" and len(drill.grid) == 1
        tiles = drill.grid[0]
        assert sorted(tiles) == sorted(faces_of("queens")) and "Qu" in tiles
        assert "".join(tiles).lower() != "queens"
        assert drill_for(card) == drill
        seen.add(tiles)
    assert len(seen) > 1  # a new shuffle each time it comes up
    # A word whose letters are all alike cannot be shuffled: it stays a fragment.
    assert drill_for(Card("aaa", reps=1)).kind == "fragment"


# -- judging ----------------------------------------------------------------------------------------


def test_answers_are_judged_the_word_also_a_word_or_wrong(standard: Dictionary) -> None:
    card = Card("stone")
    drill = drill_for(card)
    assert judge(card, "  STONE ", standard).outcome is Outcome.RIGHT
    board = Board.from_faces(drill.grid)
    others = [
        w.word for w in solve(board, standard, Rules.preset("big")).words if w.word != "stone"
    ]
    assert others, "the fragment holds other words"
    also = judge(card, others[0], standard)
    assert also.outcome is Outcome.ALSO and also.word is None and "also a word here" in also.message
    wrong = judge(card, "zebra", standard)
    assert wrong.outcome is Outcome.WRONG and wrong.word == "stone" and wrong.path == drill.path
    assert judge(card, "", standard, gave_up=True).outcome is Outcome.GAVE_UP
    with pytest.raises(RoundInputError, match="empty"):
        judge(card, "  ", standard)
    with pytest.raises(RoundInputError, match="at most"):
        judge(card, "x" * 61, standard)
    # On an anagram, another word of exactly those letters is also right; a word of others not.
    anagram = Card("stone", reps=1)
    assert judge(anagram, "notes", standard).outcome is Outcome.ALSO
    assert judge(anagram, "note", standard).outcome is Outcome.WRONG
    assert judge(anagram, "stone", standard).outcome is Outcome.RIGHT


def test_ratings_follow_the_answer() -> None:
    quick = quick_seconds("stone")
    assert rating_for(Outcome.RIGHT, "stone", quick, hinted=False) is fsrs.Rating.Good
    assert rating_for(Outcome.RIGHT, "stone", quick + 1, hinted=False) is fsrs.Rating.Hard
    assert rating_for(Outcome.RIGHT, "stone", 1, hinted=True) is fsrs.Rating.Hard
    assert rating_for(Outcome.WRONG, "stone", 1, hinted=False) is fsrs.Rating.Again
    assert rating_for(Outcome.GAVE_UP, "stone", 1, hinted=False) is fsrs.Rating.Again
    assert rating_for(Outcome.ALSO, "stone", 1, hinted=False) is None


# -- the schedule -----------------------------------------------------------------------------------


def test_intervals_grow_with_good_and_fall_back_with_again() -> None:
    card = Card("stone", added=NOW, due=NOW)
    now = NOW
    intervals = []
    for _ in range(6):
        card = schedule(card, fsrs.Rating.Good, now)
        intervals.append(card.due - now)
        now = card.due
    # Two learning steps (minutes), then days that grow.
    assert intervals[0] == 600 and card.state == fsrs.State.Review
    days = [interval / DAY for interval in intervals[1:]]
    assert days[0] >= 1 and all(b > a for a, b in itertools.pairwise(days))
    assert card.reps == 6 and card.lapses == 0 and card.first_review == NOW
    lapsed = schedule(card, fsrs.Rating.Again, now)
    assert lapsed.state == fsrs.State.Relearning and lapsed.lapses == 1
    assert lapsed.due - now == 600  # back to the relearning step
    assert lapsed.stability is not None and card.stability is not None
    assert lapsed.stability < card.stability
    # Deterministic: no fuzzing.
    assert schedule(card, fsrs.Rating.Good, now) == schedule(card, fsrs.Rating.Good, now)


def test_a_lapse_is_a_learned_card_forgotten_not_one_still_learning() -> None:
    card = schedule(Card("stone", added=NOW, due=NOW), fsrs.Rating.Good, NOW)
    assert card.state == fsrs.State.Learning
    again = schedule(card, fsrs.Rating.Again, NOW + 600)
    assert again.lapses == 0  # still learning: Again is a step back, not a lapse


def test_first_reviews_dated_after_today_do_not_use_up_todays_new_cards() -> None:
    deck = Deck()
    for index in range(TRAINER_NEW_PER_DAY + 2):
        deck.add_missed(f"word{chr(97 + index % 26)}{chr(97 + index // 26)}"[:7], NOW)
    ahead = NOW + 3 * DAY  # a deck answered on a device whose clock runs days ahead
    for card in deck.queue(ahead)[:TRAINER_NEW_PER_DAY]:
        deck.review(card.word, fsrs.Rating.Good, ahead)
    assert sum(card.is_new for card in deck.queue(NOW)) == 2  # the new cards left, today


def test_the_queue_takes_due_cards_then_new_ones_within_the_days_allowance() -> None:
    deck = Deck()
    for index in range(TRAINER_NEW_PER_DAY + 5):
        deck.add_missed(f"word{chr(97 + index % 26)}{chr(97 + index // 26)}"[:7], NOW)
    deck.add_missed("stone", NOW, misses=4)
    queue = deck.queue(NOW)
    assert len(queue) == TRAINER_NEW_PER_DAY and queue[0].word == "stone"  # most missed first
    # Started today, cards use the allowance up: after all of it, no new card until tomorrow.
    now = NOW
    for card in queue:
        deck.review(card.word, fsrs.Rating.Good, now)
    counts = deck.counts(now)
    assert counts["new"] == 0 and counts["due"] == 0 and counts["next_due"] == now + 600
    assert deck.next_card(now) is None
    assert deck.next_card(now + 600) is not None  # the learning step is due
    tomorrow = deck.queue(NOW + DAY)
    assert sum(card.is_new for card in tomorrow) == 6  # the rest of the new cards
    assert sum(not card.is_new for card in tomorrow) == TRAINER_NEW_PER_DAY


def test_answering_a_card_schedules_it_and_also_leaves_it(standard: Dictionary) -> None:
    deck = Deck()
    deck.add_missed("stone", NOW)
    card = deck.cards["stone"]
    also = answer_card(deck, card.id, "notes", standard, NOW, seconds=1)
    assert also.rating is None and deck.cards["stone"] == card
    right = answer_card(deck, card.id, "stone", standard, NOW, seconds=1)
    assert right.rating is fsrs.Rating.Good and deck.cards["stone"].reps == 1
    with pytest.raises(RoundInputError, match="no card"):
        answer_card(deck, "nope", "stone", standard, NOW)
    progress = right.to_json(NOW)["progress"]
    assert progress["due_in"] == 600 and progress["reps"] == 1 and not progress["learned"]


def test_adding_missed_words_counts_them_and_keeps_the_deck_bounded() -> None:
    deck = Deck()
    board = Board(BOARD)
    path = board.path_for("lines")
    assert deck.add_missed("stone", NOW)
    assert not deck.add_missed("stone", NOW + 1)
    assert deck.cards["stone"].misses == 2
    assert not deck.add_missed("X", NOW) and not deck.add_missed("ab", NOW)
    assert not deck.add_missed("a" * (TRAINER_MAX_WORD_LETTERS + 1), NOW)
    with pytest.raises(RoundInputError, match="does not spell"):
        deck.add_missed("stone", NOW, board=board, path=path)
    with pytest.raises(RoundInputError, match="both or neither"):
        deck.add_missed("lines", NOW, board=board)
    assert deck.add_missed("lines", NOW, board=board, path=path)
    assert deck.cards["lines"].path == path
    # note() is idempotent: a history read twice counts nothing twice.
    assert not deck.note("stone", NOW, misses=2) and deck.cards["stone"].misses == 2
    deck.note("lines", NOW, misses=5)
    assert deck.cards["lines"].misses == 5
    full = Deck()
    words = [w.word for w in solve(BOARD, Dictionary.builtin(), Rules.preset("big")).words]
    letters = "abcdefghijklmnopqrstuvwxyz"
    fillers = [f"{a}{b}{c}" for a in letters for b in letters for c in letters]
    for at, word in enumerate(fillers[:TRAINER_MAX_CARDS]):
        full.add_missed(word, NOW + at)
    # A full deck of new cards gives up the one missed least and added first for a new miss.
    assert full.add_missed(words[0], NOW + 1000)
    assert len(full) == TRAINER_MAX_CARDS and fillers[0] not in full.cards
    assert words[0] in full.cards


def test_a_full_deck_gives_up_the_best_known_card_never_one_being_learned() -> None:
    letters = "abcdefghijklmnopqrstuvwxyz"
    fillers = [f"{a}{b}{c}" for a in letters for b in letters for c in letters]
    deck = Deck()
    for word in fillers[:TRAINER_MAX_CARDS]:
        deck.add_missed(word, NOW, misses=3)
    learning, known, better_known = fillers[0], fillers[1], fillers[2]
    deck.cards[learning] = schedule(deck.cards[learning], fsrs.Rating.Good, NOW)
    for word, reviews in ((known, 2), (better_known, 4)):
        now = NOW
        for _ in range(reviews):
            deck.cards[word] = schedule(deck.cards[word], fsrs.Rating.Good, now)
            now = deck.cards[word].due
    assert deck.cards[learning].state == fsrs.State.Learning
    assert deck.cards[better_known].due > deck.cards[known].due
    # The mastered word goes first; the words being fed in now are never given up.
    assert deck.add_missed("stone", NOW, misses=3, keep={"stone", better_known})
    assert known not in deck.cards and better_known in deck.cards
    assert deck.add_missed("lines", NOW, misses=3) and better_known not in deck.cards
    # With no learned card left, only a new card missed no more often than the newcomer goes
    # (all were missed 3 times): a word missed once is left out, one missed 3 times gets in.
    assert not deck.add_missed("tones", NOW, misses=1)
    assert deck.add_missed("notes", NOW, misses=3) and fillers[3] not in deck.cards
    assert learning in deck.cards and len(deck) == TRAINER_MAX_CARDS
    # Nothing to give up (all kept): the word is left out.
    every = set(deck.cards)
    assert not deck.add_missed("stones", NOW, misses=9, keep=every | {"stones"})
    assert set(deck.cards) == every


def test_a_rounds_missed_words_worth_training(standard: Dictionary) -> None:
    solution = solve(BOARD, standard, Rules.preset("big"))
    chosen = worth_training(solution.words, standard)
    assert len(chosen) == TRAINER_WORDS_PER_GAME
    points = [word.score for word in chosen if not isinstance(word, str)]
    assert points == sorted(points, reverse=True)
    assert all(
        (standard.level(word.word) or 0) <= COMMON_LEVEL
        for word in chosen
        if not isinstance(word, str)
    )
    assert worth_training(["stone", "X", "stone"]) == ["stone"]


# -- decks as data --------------------------------------------------------------------------------


def test_a_deck_round_trips_as_json() -> None:
    deck = Deck()
    board = Board(BOARD)
    deck.add_missed("lines", NOW, board=board, path=board.path_for("lines"))
    deck.add_missed("stone", NOW)
    deck.review("stone", fsrs.Rating.Good, NOW)
    data = json.loads(json.dumps(deck.to_json()))
    assert Deck.from_json(data).to_json() == deck.to_json()
    assert Deck.from_text(json.dumps(data)).cards == deck.cards


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: [], "deck: expected an object"),
        (lambda d: {**d, "version": 2}, r"deck\.version: expected 1"),
        (lambda d: {**d, "extra": 1}, "unknown key 'extra'"),
        (lambda d: {**d, "cards": "x"}, r"deck\.cards: expected a list"),
        (lambda d: {**d, "cards": d["cards"] * 2}, r"'lines' is there twice"),
        (lambda d: {**d, "cards": [7]}, r"deck\.cards\[0\]: expected an object"),
        (lambda d: card(d, word="Lines"), r"cards\[0\]\.word: expected a word"),
        (lambda d: card(d, word="l" * 200), r"cards\[0\]\.word"),
        (lambda d: card(d, due="soon"), r"cards\[0\]\.due: expected a number"),
        (lambda d: card(d, due=float("nan")), r"cards\[0\]\.due"),
        (lambda d: card(d, due=1e300), r"cards\[0\]\.due"),
        (lambda d: card(d, reps=-1), r"cards\[0\]\.reps"),
        (lambda d: card(d, reps=True), r"cards\[0\]\.reps"),
        (lambda d: card(d, state=9), r"cards\[0\]\.state"),
        (lambda d: card(d, difficulty=50.0), r"cards\[0\]\.difficulty"),
        (lambda d: card(d, path=[[0, 0]]), r"cards\[0\]: path: does not spell"),
        (lambda d: card(d, path=[[0, 0]] * 100), r"cards\[0\]\.path: expected a list"),
        (lambda d: card(d, path=[["a", 0]]), r"cards\[0\]\.path\[0\]"),
        (lambda d: card(d, board="L*/*"), r"cards\[0\]: "),
        (lambda d: card(d, board="x" * 10_000), r"cards\[0\]: board: too long"),
        (lambda d: card(d, board=None), r"both or neither"),
        (lambda d: card(d, hack=1), r"cards\[0\]: unknown key 'hack'"),
        (lambda d: {**d, "cards": d["cards"] * (TRAINER_MAX_CARDS + 1)}, "at most 500 cards"),
        # Numbers are bounded before they become floats: a 401-digit time has no float.
        (lambda d: card(d, due=10**400), r"cards\[0\]\.due: expected a number 0-7\.25"),
        (lambda d: card(d, added=-(10**400)), r"cards\[0\]\.added: expected a number"),
        (lambda d: card(d, due=7_258_118_401), r"cards\[0\]\.due"),  # after 2200
        (lambda d: card(d, misses=10**400), r"cards\[0\]\.misses: expected a whole number"),
        (lambda d: card(d, difficulty=10**400), r"cards\[0\]\.difficulty"),
        # The schedule as a whole: what FSRS asserts, and what schedule() never writes.
        (lambda d: answered(d, state=2, stability=None), r"cards\[0\]\.stability: a card answ"),
        (lambda d: answered(d, state=3, difficulty=None), r"cards\[0\]\.difficulty"),
        (lambda d: answered(d, last_review=None), r"cards\[0\]\.last_review"),
        (lambda d: answered(d, first_review=None), r"cards\[0\]\.first_review"),
        (lambda d: answered(d, state=3, step=None), r"cards\[0\]\.step: a card in its"),
        (lambda d: answered(d, state=2, step=0), r"cards\[0\]\.step: a card in review"),
        (lambda d: answered(d, step=11), r"cards\[0\]\.step: expected a whole number 0-10"),
        (lambda d: answered(d, lapses=2), r"cards\[0\]\.lapses: at most one lapse per"),
        (lambda d: card(d, state=2), r"cards\[0\]\.state: a new card \(reps 0\) has state 1"),
        (lambda d: card(d, step=None), r"cards\[0\]\.step: a new card"),
        (lambda d: card(d, stability=3.0), r"cards\[0\]\.stability: a new card"),
        (lambda d: card(d, last_review=NOW), r"cards\[0\]\.last_review: a new card"),
        (lambda d: card(d, lapses=1), r"cards\[0\]\.lapses: a new card"),
    ],
)
def test_a_corrupt_or_hostile_deck_is_refused_with_a_clear_error(change, message) -> None:  # type: ignore[no-untyped-def]
    deck = Deck()
    board = Board(BOARD)
    deck.add_missed("lines", NOW, board=board, path=board.path_for("lines"))
    with pytest.raises(DeckError, match=message):
        Deck.from_json(change(deck.to_json()))


def card(deck: dict, **changes: object) -> dict:  # type: ignore[type-arg]
    return {**deck, "cards": [{**deck["cards"][0], **changes}]}


def answered(deck: dict, **changes: object) -> dict:  # type: ignore[type-arg]
    """``deck``'s card answered once (Good: learning, step 1), then ``changes``."""
    reviewed = schedule(Card("lines", added=NOW, due=NOW), fsrs.Rating.Good, NOW).to_json()
    kept = {key: reviewed[key] for key in reviewed if key not in ("word", "board", "path")}
    return card(deck, **{**kept, **changes})


def test_a_forged_schedule_is_refused_at_load_never_inside_fsrs(standard: Dictionary) -> None:
    """A few hundred random cards (each field drawn from what is legal, off by one kind, or
    absent) through Deck.from_json, the queue and answer_card: each is a DeckError at load or
    a clean answer, never an error from FSRS (the shape of review 16's M4: a card in review
    without its stability made FSRS assert, a 500)."""
    rng = random.Random(16)
    choices: dict[str, list[object]] = {
        "reps": [0, 1, 2, 7, _MAX],
        "lapses": [0, 1, 3],
        "state": [1, 2, 3],
        "step": [None, 0, 1, 2, 10],
        "stability": [None, 1e-4, 0.5, 3.0, 1e6],
        "difficulty": [None, 1.0, 5.5, 10.0],
        "due": [0, NOW - 30 * DAY, NOW, NOW + DAY, _LAST],
        "last_review": [None, 0, NOW - 400 * DAY, NOW - 60, NOW + 3 * DAY, _LAST],
        "first_review": [None, 0, NOW - DAY, NOW],
    }
    loaded = answers = 0
    for _ in range(400):
        fields = {key: rng.choice(values) for key, values in choices.items()}
        data = {"version": 1, "cards": [{**Card("stone").to_json(), "added": NOW, **fields}]}
        try:
            deck = Deck.from_json(data)
        except DeckError:
            continue
        loaded += 1
        held = deck.cards["stone"]
        assert deck.queue(_LAST) == [held]  # (due by the last time a deck holds)
        for how in ({"answer": "stone"}, {"answer": "xyz"}, {"answer": "", "gave_up": True}):
            again = Deck.from_json(data)
            done = answer_card(again, held.id, how.pop("answer"), standard, NOW, **how)  # type: ignore[arg-type]
            assert done.card.reps == min(_MAX, held.reps + 1)
            Deck.from_json(again.to_json())  # what it writes, it reads back
            answers += 1
    assert loaded > 40 and answers == 3 * loaded  # (both kinds of deck were drawn)


_MAX = 1_000_000
_LAST = 7_258_118_400.0  # 2200-01-01 UTC: the latest time a deck may hold


def test_a_cards_board_is_checked_as_the_board_parser_reads_it() -> None:
    """The deck's own cheap check of a card's board (its canonical text, read on every guest
    request, review 16's M3) agrees with Board on every dice set's boards of at most 6 a side,
    multi-letter faces, Qu, blanks and the challenge cube included: each card placed on such a
    board reads back; a board in any other notation, or a path off it, is refused."""
    from bigboggle.dice import DICE_SETS, shake

    read = 0
    for name in DICE_SETS:
        for seed in range(6):
            board = shake(name, seed, challenge=seed % 2 == 1).board
            if max(board.rows, board.cols) > 6:
                break
            rows = str(board).split("/")
            blanked = Board("/".join([rows[0][:1] + "." + rows[0][2:], *rows[1:]]))
            for each in (board, blanked):
                path = next((p for p in _paths(each) if _fits(each, p)), None)
                if path is None:
                    continue
                deck = Deck()
                assert deck.add_missed(each.spell(path), NOW, board=each, path=path)
                assert Deck.from_json(deck.to_json()).cards == deck.cards
                read += 1
                data = deck.to_json()
                lower = card(data, board=str(each).lower())
                with pytest.raises(DeckError, match="as this module writes it"):
                    Deck.from_json(lower)
                off = card(data, path=[[r + each.rows, c] for r, c in path])
                with pytest.raises(DeckError, match=r"path: does not spell"):
                    Deck.from_json(off)
    assert read >= 12
    for bad in ("AB/C", "AB/CD/", "A*B*/CD", ".*B/CD", "[Qu]B/CD", "[Qa]B/CD", "[Abcd]B/CD"):
        with pytest.raises(DeckError, match="as this module writes it"):
            Deck.from_json(
                card(
                    Deck().to_json() | {"cards": [Card("abc").to_json()]}, board=bad, path=[[0, 0]]
                )
            )


def _fits(board: Board, path: tuple[tuple[int, int], ...]) -> bool:
    return board.is_valid_path(path) and is_trainable(board.spell(path))


def _paths(board: Board) -> Iterator[tuple[tuple[int, int], ...]]:
    """Three-cell paths across ``board``'s first rows (letters or not)."""
    for top in range(board.cols - 2):
        yield ((0, top), (0, top + 1), (1, top + 2))
        yield ((1, top), (0, top + 1), (0, top + 2))


def test_deck_text_is_bounded_before_it_is_parsed() -> None:
    with pytest.raises(DeckError, match=f"more than {TRAINER_DECK_BYTES}"):
        Deck.from_text(" " * (TRAINER_DECK_BYTES + 1))
    with pytest.raises(DeckError, match="not JSON"):
        Deck.from_text("{")
    # A full deck of long words with boards and paths (and every field at its longest) fits.
    board = Board("ABCDEF/GHIJKL/MNOPQR/STUVWX/YZABCD/EFGHIJ")
    path = tuple((r, c) for r in range(4) for c in (range(6) if r % 2 == 0 else range(5, -1, -1)))
    word = board.spell(path)[:TRAINER_MAX_WORD_LETTERS]
    path = path[: len(word)]
    longest = Card(
        word,
        board=str(board),
        path=path,
        misses=999_999,
        added=NOW,
        reps=999_999,
        lapses=999_999,
        state=3,
        step=0,
        stability=1234.567890123,
        difficulty=5.43210987654,
        due=NOW + 0.123456789,
        last_review=NOW + 0.123456789,
        first_review=NOW + 0.123456789,
    )
    deck = {"version": 1, "cards": [longest.to_json()] * TRAINER_MAX_CARDS}
    text = json.dumps(deck, separators=(",", ":"))  # as a browser and DeckFile write it
    assert len(text) <= TRAINER_DECK_BYTES


# -- decks in files -----------------------------------------------------------------------------


def test_a_deck_file_adds_a_rounds_missed_words_and_keeps_them(
    tmp_path: Path, standard: Dictionary
) -> None:
    path = tmp_path / "deep" / "deck.json"
    solution = solve(BOARD, standard, Rules.preset("big"))
    added = DeckFile(path).add_missed(*solution.words, board=BOARD, words=standard, now=NOW)
    assert added == TRAINER_WORDS_PER_GAME
    deck = DeckFile(path).load()
    assert len(deck) == TRAINER_WORDS_PER_GAME
    assert all(card.board == str(Board(BOARD)) and card.path for card in deck)
    # Again: counted as misses, no new card; plain words too, without a board.
    assert DeckFile(path).add_missed(*solution.words, board=BOARD, words=standard, now=NOW) == 0
    assert {card.misses for card in DeckFile(path).load()} == {2}
    assert DeckFile(path).add_missed("zebra", now=NOW) == 1
    assert DeckFile(path).load().cards["zebra"].board is None
    # A board too large for a fragment: the words come without it.
    big = "ABCDEFG/HIJKLMN/OPQRSTU/VWXYZAB/CDEFGHI/JKLMNOP/QRSTUVW"
    word = Board(big).spell(((0, 0), (0, 1), (0, 2)))
    from bigboggle.solver import FoundWord

    assert DeckFile(path).add_missed(FoundWord("abc", ((0, 0), (0, 1), (0, 2)), 1), board=big) == 1
    assert word == "abc" and DeckFile(path).load().cards["abc"].board is None
    assert not list(path.parent.glob("*.tmp"))  # written atomically, nothing left beside


def test_a_bad_deck_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "deck.json"
    assert len(DeckFile(path).load()) == 0  # no file yet: an empty deck
    path.write_text('{"version": 1, "cards": [{"word": 5}]}')
    with pytest.raises(DeckError, match=r"deck\.json\.cards\[0\]\.word"):
        DeckFile(path).load()
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(DeckError, match="not UTF-8"):
        DeckFile(path).load()
    path.write_text("x" * (TRAINER_DECK_BYTES + 10))
    with pytest.raises(DeckError, match="more than"):
        DeckFile(path).load()
    folder = tmp_path / "folder.json"
    folder.mkdir()
    with pytest.raises(DeckError, match="cannot read"):
        DeckFile(folder).load()


def test_drills_are_the_same_in_another_process() -> None:
    code = (
        "from bigboggle.trainer import Card, drill_for;"
        "print(drill_for(Card('stone')).to_json(), drill_for(Card('stone', reps=1)).to_json())"
    )
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    here = f"{drill_for(Card('stone')).to_json()} {drill_for(Card('stone', reps=1)).to_json()}"
    assert other.stdout.strip() == here


# -- the terminal -----------------------------------------------------------------------------------


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_the_terminal_trainer_drills_judges_and_keeps_progress(
    tmp_path: Path, standard: Dictionary
) -> None:
    from textual.widgets import Input

    from bigboggle.tui.board_view import BoardView, Plain
    from bigboggle.tui.trainer import TrainerApp, TrainerScreen

    path = tmp_path / "deck.json"
    DeckFile(path).add_missed("stone", "quiet", now=NOW)
    clock, timer = Clock(NOW), Clock(0.0)

    def text(screen: TrainerScreen, selector: str) -> str:
        return str(screen.query_one(selector, Plain).render())

    async def main() -> None:
        app = TrainerApp(DeckFile(path), standard, clock, timer)
        async with app.run_test(size=(80, 30)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, TrainerScreen)
            assert "2 words in your deck" in text(screen, "#counts")
            drill = screen.drill
            assert drill is not None and drill.kind == "fragment"
            assert screen.query_one("#fragment", BoardView).display
            card = DeckFile(path).load().find(drill.card)
            assert card is not None
            # A wrong answer: Again, the word shown, Enter for the next drill.
            await pilot.press(*"zebra", "enter")
            assert "the word was" in text(screen, "#result") and "Again" in text(screen, "#result")
            await pilot.press("enter")
            second = screen.drill
            assert second is not None and second.card != drill.card
            # The hint, then the right answer: Hard.
            await pilot.press("f2")
            assert "starts with" in text(screen, "#hint")
            other = DeckFile(path).load().find(second.card)
            assert other is not None
            await pilot.press(*other.word, "enter")
            assert "Right" in text(screen, "#result") and "Hard" in text(screen, "#result")
            await pilot.press("enter")
            assert screen.drill is None and "comes back in" in text(screen, "#prompt")
            assert not screen.query_one("#answer", Input).display
            # Ten minutes on, the first card is due again: now an anagram of its letters.
            clock.now += 600
            screen.show_next()
            await pilot.pause()
            again = screen.drill
            assert again is not None and again.kind == "anagram"
            assert "[ " in text(screen, "#tiles")
            await pilot.press("f3")
            assert "The word was" in text(screen, "#result")
            await pilot.press("escape")

    asyncio.run(main())
    kept = DeckFile(path).load()
    assert sorted(card.reps for card in kept) == [1, 2]
    assert {card.lapses for card in kept} == {0}  # Again while still learning is no lapse


@pytest.mark.parametrize(
    "text",
    [
        "{broken",
        # Review 16, M4: this card made FSRS assert once answered (a crash screen).
        json.dumps(
            {
                "version": 1,
                "cards": [{**Card("cat").to_json(), "reps": 1, "state": 2, "step": None}],
            }
        ),
    ],
)
def test_the_terminal_trainer_says_what_is_wrong_with_a_bad_deck(
    tmp_path: Path, standard: Dictionary, text: str
) -> None:
    from bigboggle.tui.board_view import Plain
    from bigboggle.tui.trainer import TrainerApp

    path = tmp_path / "deck.json"
    path.write_text(text)

    async def main() -> None:
        app = TrainerApp(DeckFile(path), standard)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert "Cannot read your deck" in str(app.screen.query_one("#result", Plain).render())

    asyncio.run(main())


def test_bigboggle_train_add(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from bigboggle.cli import cli

    path = tmp_path / "deck.json"
    runner = CliRunner()
    added = runner.invoke(cli, ["train", "--deck", str(path), "--add", "Stone", "quiet"])
    assert added.exit_code == 0 and "Added 2 new words" in added.output
    again = runner.invoke(cli, ["train", "--deck", str(path), "--add", "stone"])
    assert "Added 0 new words" in again.output and "(2 words in the deck)" in again.output
    assert DeckFile(path).load().cards["stone"].misses == 2
    unknown = runner.invoke(cli, ["train", "--deck", str(path), "--add", "zzzq", "x!"])
    assert unknown.exit_code == 2 and "'zzzq', 'x!'" in unknown.output
    assert runner.invoke(cli, ["train", "--deck", str(path), "--add"]).exit_code == 2
    assert runner.invoke(cli, ["train", "--deck", str(path), "stone"]).exit_code == 2
    path.write_text("[]")
    broken = runner.invoke(cli, ["train", "--deck", str(path)])
    assert broken.exit_code == 2 and "expected an object" in broken.output
