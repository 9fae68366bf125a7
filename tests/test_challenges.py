"""Asynchronous challenges as a service (SQLite and PostgreSQL): players at different times on a
fake clock, each round scored again among everyone who finished it (crossing off by the rules),
no word visible before one's own finish, closing and finality, bounds, and races."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import select

from bigboggle import Dictionary, Rules, score_round, solve
from bigboggle.errors import (
    GameStateError,
    NameTakenError,
    NotFoundError,
    NotOwnerError,
    RoundInputError,
    RulesError,
    WordListError,
)
from bigboggle.limits import (
    CHALLENGE_DEFAULT_HOURS,
    CHALLENGE_MAX_HOURS,
    CHALLENGE_MAX_PLAYERS,
    CHALLENGE_MAX_ROUNDS,
    CHALLENGE_MAX_TEAMS,
    CHALLENGE_SWEEP_ROUNDS,
    PROFILE_CHALLENGES,
)
from bigboggle.services.challenges import (
    CODE_LENGTH,
    CODE_LETTERS,
    RESERVATION_SECONDS,
    Challenges,
    member_challenges,
    normal_code,
    shown_code,
)
from bigboggle.services.compute import run_here
from bigboggle.services.profiles import Profiles
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.solo_views import SoloView
from bigboggle.services.store import ChallengeGameRow, ChallengePlayerRow, ChallengeRoundRow, Store
from conftest import FakeClock, make_member

pytestmark = pytest.mark.once

HOUR = 3600.0


@pytest.fixture
def solo(store: Store, clock: FakeClock) -> SoloGames:
    return SoloGames(store, DictionaryShelf(), clock)


@pytest.fixture
def challenges(store: Store, solo: SoloGames) -> Challenges:
    return Challenges(store, solo.shelf, solo)


def valid_words(board: str, standard: Dictionary, rules: str = "big") -> list[str]:
    """The board's words, best first (so tests can choose which lists share which)."""
    return [found.word for found in solve(board, standard, Rules.preset(rules)).words]


def play_words(
    challenges: Challenges,
    code: str,
    player: str,
    words: list[str],
    *,
    key: str | None = None,
    account_id: int | None = None,
    finish: bool = True,
) -> SoloView:
    """``player``'s next round: start it, enter ``words``, finish it (unless told not to)."""
    view, _ = challenges.play(code, player, key=key, account_id=account_id)
    assert view.key is not None
    for word in words:
        challenges.solo.submit(view.game.id, word, view.key)
    if finish:
        challenges.solo.finish(view.game.id, view.key)
    return view


def round_json(challenges: Challenges, code: str, number: int = 1, **proof: Any) -> dict[str, Any]:
    result: dict[str, Any] = challenges.get(code, **proof).results_json()["round_results"][
        number - 1
    ]
    return result


def verdicts(round_data: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Player -> word -> verdict, from a visible round."""
    return {
        player["name"]: {word["word"]: word["verdict"] for word in player["words"]}
        for player in round_data["players"]
    }


# -- the three players ------------------------------------------------------------------------


def test_three_players_at_different_times_cross_off_among_all_who_finished(
    challenges: Challenges, clock: FakeClock, standard: Dictionary
) -> None:
    made = challenges.create("big", rounds=1, timer=60)
    code = made.code
    board = made.round_standings[0].board
    w = valid_words(board, standard)
    assert len(w) >= 6, board

    ann = play_words(challenges, code, "Ann", [w[0], w[1], w[2]])
    alone = round_json(challenges, code, key=ann.key)
    assert verdicts(alone) == {"Ann": {w[0]: "scored", w[1]: "scored", w[2]: "scored"}}

    clock.advance(5 * HOUR)
    bob = play_words(challenges, code, "Bob", [w[1], w[3]])
    two = round_json(challenges, code, key=bob.key)
    assert verdicts(two) == {
        "Ann": {w[0]: "scored", w[1]: "crossed_off", w[2]: "scored"},
        "Bob": {w[1]: "crossed_off", w[3]: "scored"},
    }

    clock.advance(30 * HOUR)
    cy = play_words(challenges, code, "Cy", [w[0], w[3], w[4], "zzzz"])
    three = round_json(challenges, code, key=cy.key)
    assert verdicts(three) == {
        "Ann": {w[0]: "crossed_off", w[1]: "crossed_off", w[2]: "scored"},
        "Bob": {w[1]: "crossed_off", w[3]: "crossed_off"},
        "Cy": {w[0]: "crossed_off", w[3]: "crossed_off", w[4]: "scored", "zzzz": "not_on_board"},
    }
    # The same as the one scoring function over the three lists, ranking and places too.
    expected = score_round(
        board,
        {"Ann": [w[0], w[1], w[2]], "Bob": [w[1], w[3]], "Cy": [w[0], w[3], w[4], "zzzz"]},
        Rules.preset("big", timer=60),
        standard,
    )
    assert three["ranking"] == expected.ranking
    assert {p["name"]: p["score"] for p in three["players"]} == expected.scores
    assert {p["name"]: p["place"] for p in three["players"]} == expected.places
    found = {w[0], w[1], w[2], w[3], w[4]}
    assert not found & {missed["word"] for missed in three["missed"]}
    assert len(three["missed"]) == len(w) - len(found)
    # Ann's own view, proven by her key, shows the others' words now that she has finished.
    assert verdicts(round_json(challenges, code, key=ann.key)) == verdicts(three)
    overall = challenges.get(code).results_json()["standings"]
    assert [row["name"] for row in overall] == expected.ranking


def _tie_challenge(
    challenges: Challenges, standard: Dictionary, **options: Any
) -> tuple[Any, list[str], str]:
    """A challenge made with ``options`` whose first board has two 4-letter words and a
    5-letter one (shaken again until one does): the challenge, those two words, that word."""
    for _ in range(50):
        made = challenges.create("big", timer=60, **options)
        found: dict[int, list[str]] = {}
        for word in valid_words(made.round_standings[0].board, standard):
            found.setdefault(len(word), []).append(word)
        if len(found.get(4, [])) >= 2 and found.get(5):
            return made, found[4][:2], found[5][0]
    pytest.fail("50 shakes without two 4-letter words and a 5-letter one")


def test_equal_totals_go_to_the_longer_words_as_each_round_ranks_them(
    challenges: Challenges, standard: Dictionary
) -> None:
    """Over the rounds, as in a tournament (and as a round's own ranking): equal points are
    ordered by the longer words, not by the name first in the alphabet, and share a place. A board with two
    4-letter words and a 5-letter one is drawn again until the shake gives one."""
    made, fours, five = _tie_challenge(challenges, standard, rounds=2)
    code = made.code
    amy = play_words(challenges, code, "Amy", fours)  # 1 + 1 points
    zed = play_words(challenges, code, "Zed", [five])  # 2 points, one longer word
    board = made.round_standings[0].board
    expected = score_round(
        board, {"Amy": fours, "Zed": [five]}, Rules.preset("big", timer=60), standard
    )
    assert expected.scores == {"Amy": 2, "Zed": 2} and expected.ranking == ["Zed", "Amy"]
    data = challenges.get(code).results_json()
    assert data["round_results"][0]["ranking"] == ["Zed", "Amy"]
    # Equal totals share their place, as in the round.
    assert [(row["name"], row["place"]) for row in data["standings"]] == [("Zed", 1), ("Amy", 1)]
    # Round 2 played with nothing scored: the totals stay level, and so does the tie-break.
    play_words(challenges, code, "Amy", [], key=amy.key)
    play_words(challenges, code, "Zed", [], key=zed.key)
    data = challenges.get(code).results_json()
    assert [(row["name"], row["total"], row["place"]) for row in data["standings"]] == [
        ("Zed", 2, 1),
        ("Amy", 2, 1),
    ]


def test_equal_team_totals_go_to_the_team_with_the_longer_words(
    challenges: Challenges, standard: Dictionary
) -> None:
    """A team's words count once, however many of its members wrote them: two members writing
    the same 5-letter word give their team one 5-letter word, which beats two 4-letter ones."""
    made, fours, five = _tie_challenge(challenges, standard, teams=["Alpha", "Omega"])
    code = made.code
    play_team(challenges, code, "Ann", "Alpha", fours)
    play_team(challenges, code, "Bob", "Omega", [five])
    play_team(challenges, code, "Cy", "Omega", [five])
    data = challenges.get(code).to_json()
    assert [(t["team"], t["total"], t["place"]) for t in data["team_standings"]] == [
        ("Omega", 2, 1),
        ("Alpha", 2, 1),
    ]


def test_ties_share_a_place(challenges: Challenges, standard: Dictionary) -> None:
    made = challenges.create("big", timer=60)
    w = valid_words(made.round_standings[0].board, standard)
    play_words(challenges, made.code, "Ann", [w[0]])
    play_words(challenges, made.code, "Bob", [w[0]])
    data = challenges.get(made.code).results_json()
    assert [p["place"] for p in data["round_results"][0]["players"]] == [1, 1]
    assert [row["place"] for row in data["standings"]] == [1, 1]


def test_duplicates_kept_as_a_house_rule(challenges: Challenges, standard: Dictionary) -> None:
    made = challenges.create("big", timer=60, duplicates="keep")
    w = valid_words(made.round_standings[0].board, standard)
    ann = play_words(challenges, made.code, "Ann", [w[0]])
    play_words(challenges, made.code, "Bob", [w[0]])
    assert verdicts(round_json(challenges, made.code, key=ann.key)) == {
        "Ann": {w[0]: "scored"},
        "Bob": {w[0]: "scored"},
    }


# -- privacy --------------------------------------------------------------------------------------


def test_no_word_or_board_is_visible_before_ones_own_finish(
    challenges: Challenges, clock: FakeClock, standard: Dictionary
) -> None:
    made = challenges.create("big", rounds=2, timer=60)
    code = made.code
    board = made.round_standings[0].board
    w = valid_words(board, standard)
    ann = play_words(challenges, code, "Ann", [w[0], w[1]])

    def shows_nothing(view_json: dict[str, Any]) -> None:
        text = json.dumps(view_json)
        assert board not in text
        assert w[0] not in text and w[1] not in text
        assert '"words"' not in text and '"missed"' not in text and '"game"' not in text

    stranger = challenges.get(code)
    shows_nothing(stranger.to_json())
    shows_nothing(stranger.results_json())
    assert stranger.results_json()["round_results"][0]["players"] == [
        {"name": "Ann", "place": 1, "score": ann_score(challenges, code), "found": 2}
    ]
    # Bob, playing (his key proves his seat), still sees none of it until he finishes.
    clock.advance(HOUR)
    bob = play_words(challenges, code, "Bob", [w[1]], finish=False)
    shows_nothing(challenges.get(code, key=bob.key).results_json())
    assert challenges.get(code, key=bob.key).you is not None
    challenges.solo.finish(bob.game.id, bob.key)
    mine = round_json(challenges, code, key=bob.key)
    assert mine["visible"] and mine["board"] == board
    assert verdicts(mine)["Ann"] == {w[0]: "scored", w[1]: "crossed_off"}
    # Round 2: Ann has not finished it, so its board and words stay hidden from her.
    ann2 = play_words(challenges, code, "Ann", [], key=ann.key, finish=False)
    board2 = made.round_standings[1].board
    assert ann2.game.board == board2
    challenges.solo.finish(ann2.game.id, ann2.key)
    bob_view = challenges.get(code, key=bob.key)
    assert not bob_view.results_json()["round_results"][1]["visible"]
    assert board2 not in json.dumps(bob_view.results_json())
    # A wrong key proves nothing.
    shows_nothing(challenges.get(code, key="not-a-key").results_json())


def ann_score(challenges: Challenges, code: str) -> int:
    standings = challenges.get(code).results_json()["standings"]
    return int(next(row["total"] for row in standings if row["name"] == "Ann"))


# -- rounds, seats, proof -----------------------------------------------------------------------


def test_a_match_of_rounds_played_in_turn_by_the_key_of_ones_games(
    challenges: Challenges, clock: FakeClock, standard: Dictionary
) -> None:
    made = challenges.create("classic", rounds=3, timer=30)
    code = made.code
    boards = [standing.board for standing in made.round_standings]
    assert len(set(boards)) == 3
    first, number = challenges.play(code, "Ann")
    assert number == 1 and first.game.board == boards[0]
    with pytest.raises(GameStateError, match="still running"):
        challenges.play(code, "Ann", key=first.key)
    with pytest.raises(NotOwnerError, match="has played this challenge"):
        challenges.play(code, "ann")  # the same name by its key, without proof
    w = valid_words(boards[0], standard, "classic")
    challenges.solo.submit(first.game.id, w[0], first.key)
    clock.advance(31)  # over by its deadline: the next play scores it on the way
    challenges.solo.get(first.game.id, first.key)
    second, number = challenges.play(code, "ANN", key=first.key)
    assert number == 2 and second.game.board == boards[1] and second.game.player == "Ann"
    challenges.solo.finish(second.game.id, second.key)
    third, number = challenges.play(code, None, key=second.key)  # any of the seat's keys
    assert number == 3 and third.game.board == boards[2]
    challenges.solo.finish(third.game.id, third.key)
    with pytest.raises(GameStateError, match="every round"):
        challenges.play(code, "Ann", key=first.key)
    view = challenges.get(code, key=third.key)
    assert view.you is not None and view.you.finished == (1, 2, 3) and view.you.next_round is None
    assert view.standings[0].rounds == {1: view.standings[0].total, 2: 0, 3: 0}
    assert not view.can_play


def test_a_proven_player_under_another_name_takes_a_new_seat(challenges: Challenges) -> None:
    made = challenges.create("classic", timer=30)
    ann = play_words(challenges, made.code, "Ann", [])
    other, number = challenges.play(made.code, "Zed", key=ann.key)
    assert number == 1 and other.game.player == "Zed"


def test_a_members_seat_is_their_account_and_their_name_is_theirs(
    challenges: Challenges, store: Store
) -> None:
    member = make_member(store, "Mira")
    made = challenges.create("classic", rounds=2, timer=30)
    with pytest.raises(NameTakenError):
        challenges.play(made.code, "mira")  # a guest under a member's name
    first, _ = challenges.play(made.code, None, account_id=member)
    assert first.game.player == "Mira"
    challenges.solo.finish(first.game.id, first.key)
    second, number = challenges.play(made.code, "anything", account_id=member)
    assert number == 2 and second.game.player == "Mira"
    challenges.solo.finish(second.game.id, second.key)
    listed = member_challenges(store, member, challenges.clock())
    assert [(c.code, c.finished, c.place, c.closed) for c in listed] == [(made.code, 2, 1, False)]
    profile = Profiles(store, challenges.clock).profile("Mira", own=True).to_json()
    assert profile["challenges"][0]["code"] == made.code
    assert "challenges" not in Profiles(store, challenges.clock).profile("Mira").to_json()


def test_a_challenge_from_a_finished_game_seats_its_player_with_it(
    challenges: Challenges, solo: SoloGames, store: Store, standard: Dictionary
) -> None:
    game = solo.start("big", options={"timer": 45, "advanced": True}, player="Dee")
    assert game.key is not None
    w = [word for word in valid_words(game.game.board, standard) if len(word) >= 5]
    solo.submit(game.game.id, w[0], game.key)
    with pytest.raises(GameStateError, match="not finished"):
        challenges.create(from_game=game.game.id, key=game.key)
    solo.finish(game.game.id, game.key)
    with pytest.raises(NotOwnerError):
        challenges.create(from_game=game.game.id)
    with pytest.raises(NotOwnerError):
        challenges.create(from_game=game.game.id, key="wrong")
    with pytest.raises(RulesError, match="timer"):
        challenges.create(from_game=game.game.id, key=game.key, timer=60)
    with pytest.raises(NotFoundError):
        challenges.create(from_game="nope", key=game.key)
    made = challenges.create(from_game=game.game.id, key=game.key, rounds=2)
    assert made.rules.timer == 45 and made.rules.min_length == 5
    assert made.round_standings[0].board == game.game.board
    assert made.you is not None and made.you.name == "Dee" and made.you.next_round == 2
    assert made.round_standings[0].visible  # Dee has finished round 1
    eve = play_words(challenges, made.code, "Eve", [w[0]])
    assert eve.game.board == game.game.board
    assert verdicts(round_json(challenges, made.code, key=eve.key)) == {
        "Dee": {w[0]: "crossed_off"},
        "Eve": {w[0]: "crossed_off"},
    }
    # A member's own finished game needs no key.
    member = make_member(store, "Fay")
    mine = solo.start("classic", options={"timer": 30}, account_id=member)
    assert mine.key is not None
    solo.finish(mine.game.id, mine.key)
    assert challenges.create(from_game=mine.game.id, account_id=member).maker == "Fay"


def test_todays_daily_board_makes_no_challenge(challenges: Challenges, solo: SoloGames) -> None:
    daily = solo.start("big", daily=True, player="Gus")
    assert daily.key is not None
    solo.finish(daily.game.id, daily.key)
    with pytest.raises(GameStateError, match="daily board"):
        challenges.create(from_game=daily.game.id, key=daily.key)


# -- closing and finality ------------------------------------------------------------------------


def test_closing_and_final_standings(
    challenges: Challenges, clock: FakeClock, standard: Dictionary
) -> None:
    made = challenges.create("big", timer=60, hours=2)
    code = made.code
    w = valid_words(made.round_standings[0].board, standard)
    play_words(challenges, code, "Ann", [w[0]])
    clock.advance(2 * HOUR - 10)  # just before the close
    late = play_words(challenges, code, "Bob", [w[0], w[1]], finish=False)
    clock.advance(20)  # closed, Bob still playing
    with pytest.raises(GameStateError, match="closed"):
        challenges.play(code, "Cy")
    view = challenges.get(code)
    assert view.closed and not view.final and not view.can_play
    assert not view.results_json()["round_results"][0]["visible"]  # a game is still running
    challenges.solo.submit(late.game.id, w[2], late.key)  # his clock is his own
    clock.advance(60)  # past Bob's deadline: nobody has read his game yet
    assert not challenges.get(code).final
    assert challenges.sweep() == 0  # the sweep scores his game; its listener stores the round
    final = challenges.get(code)
    assert final.final
    data = final.results_json()["round_results"][0]
    assert data["visible"]  # closed and over: everyone's words for everyone
    assert verdicts(data) == {
        "Ann": {w[0]: "crossed_off"},
        "Bob": {w[0]: "crossed_off", w[1]: "scored", w[2]: "scored"},
    }


def test_the_default_and_the_longest_time_open(challenges: Challenges, clock: FakeClock) -> None:
    made = challenges.create("classic")
    assert made.closes_at == clock() + CHALLENGE_DEFAULT_HOURS * HOUR
    longest = challenges.create("classic", hours=CHALLENGE_MAX_HOURS)
    assert longest.closes_at == clock() + CHALLENGE_MAX_HOURS * HOUR
    with pytest.raises(RulesError, match="hours"):
        challenges.create("classic", hours=CHALLENGE_MAX_HOURS + 1)


# -- bounds ------------------------------------------------------------------------------------------


#: The bounds tests: a bad setting is refused before the store is touched (checked against
#: the settings, the rules and the dictionary shelf), so they run on SQLite alone; the rest of
#: this file runs on both databases.
BEFORE_THE_STORE = pytest.mark.parametrize("store", ["sqlite"], indirect=True)


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"rounds": 0}, "rounds"),
        ({"rounds": CHALLENGE_MAX_ROUNDS + 1}, "rounds"),
        ({"rounds": True}, "rounds"),
        ({"hours": 0}, "hours"),
        ({"timer": 4}, "timer"),
        ({"options": {"teams": {"a": ["x"]}}}, "teams"),
        ({"options": {"min_length": 99}}, "min_length"),
        ({"duplicates": "sometimes"}, "duplicates"),
        ({"rules": "chess"}, "chess"),
        ({"dictionary": "klingon"}, "klingon"),
    ],
)
@BEFORE_THE_STORE
def test_bad_settings_are_named(
    challenges: Challenges, settings: dict[str, Any], named: str
) -> None:
    with pytest.raises((RulesError, WordListError)) as caught:
        challenges.create(**settings)
    assert named in str(caught.value)


def test_the_most_rounds(challenges: Challenges) -> None:
    made = challenges.create("classic", rounds=CHALLENGE_MAX_ROUNDS)
    assert len(made.round_standings) == CHALLENGE_MAX_ROUNDS


def test_the_most_players(challenges: Challenges, store: Store) -> None:
    if store.engine.dialect.name != "sqlite":
        pytest.skip("fifty starts once are enough")
    made = challenges.create("classic", timer=30)
    for n in range(CHALLENGE_MAX_PLAYERS):
        challenges.play(made.code, f"p{n}")
    with pytest.raises(GameStateError, match="full"):
        challenges.play(made.code, "one more")
    assert not challenges.get(made.code).can_play


def test_codes_are_short_and_read_loosely(challenges: Challenges) -> None:
    code = challenges.create("classic").code
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_LETTERS)
    assert normal_code(shown_code(code).lower()) == code
    assert challenges.get(" " + shown_code(code).lower()).code == code
    for bad in ("", "X" * 500, "IIIIIIII", None, 7, code[:-1]):
        with pytest.raises(NotFoundError):
            challenges.get(bad)  # type: ignore[arg-type]
    with pytest.raises(NotFoundError):
        challenges.play("BBBB-BBBB", "Ann")


def test_a_members_list_of_challenges_is_bounded(challenges: Challenges, store: Store) -> None:
    member = make_member(store, "Hal")
    for _ in range(PROFILE_CHALLENGES + 1):
        challenges.create("classic", account_id=member)
    listed = challenges.of_member(member)
    assert len(listed) == PROFILE_CHALLENGES
    assert all(not c.closed for c in listed)


# -- teams ---------------------------------------------------------------------------------------


def play_team(
    challenges: Challenges, code: str, player: str, team: str | None, words: list[str], **kw: Any
) -> SoloView:
    """``player``'s next round for ``team``: start it, enter ``words``, finish it."""
    view, _ = challenges.play(code, player, team=team, **kw)
    assert view.key is not None
    for word in words:
        challenges.solo.submit(view.game.id, word, view.key)
    challenges.solo.finish(view.game.id, view.key)
    return view


def test_team_mates_keep_their_common_words_and_teams_cross_off(
    challenges: Challenges, clock: FakeClock, standard: Dictionary
) -> None:
    made = challenges.create("big", timer=60, teams=["Red", "Blue", "Green"])
    assert made.to_json()["teams"] == [
        {"name": "Red", "players": []},
        {"name": "Blue", "players": []},
        {"name": "Green", "players": []},
    ]
    code = made.code
    board = made.round_standings[0].board
    w = valid_words(board, standard)
    ann = play_team(challenges, code, "Ann", "Red", [w[0], w[1]])
    clock.advance(HOUR)
    play_team(challenges, code, "Cy", "red", [w[0], w[2]])  # team names read as names are
    # Only Red has finished: Blue and Green (nobody finished) are left out of the round.
    only_red = round_json(challenges, code, key=ann.key)
    assert [team["team"] for team in only_red["team_standings"]] == ["Red"]
    assert verdicts(only_red) == {
        "Ann": {w[0]: "scored", w[1]: "scored"},
        "Cy": {w[0]: "scored", w[2]: "scored"},
    }
    clock.advance(HOUR)
    bob = play_team(challenges, code, "Bob", "Blue", [w[1], w[3]])
    both = round_json(challenges, code, key=bob.key)
    assert verdicts(both) == {  # w[0] is Red's twice, not crossed off; w[1] is on both teams
        "Ann": {w[0]: "scored", w[1]: "crossed_off"},
        "Cy": {w[0]: "scored", w[2]: "scored"},
        "Bob": {w[1]: "crossed_off", w[3]: "scored"},
    }
    lists = {"Ann": [w[0], w[1]], "Cy": [w[0], w[2]], "Bob": [w[1], w[3]]}
    teams = {"Red": ["Ann", "Cy"], "Blue": ["Bob"]}
    expected = score_round(board, lists, Rules.preset("big", timer=60), standard, teams=teams)
    assert expected.teams is not None
    assert {p["name"]: p["score"] for p in both["players"]} == {
        name: player.score for name, player in expected.players.items()
    }
    assert {p["name"]: p["team"] for p in both["players"]} == {
        "Ann": "Red",
        "Cy": "Red",
        "Bob": "Blue",
    }
    # The players' ranking stays the players'; the teams' is beside it.
    scores = {p["name"]: p["score"] for p in both["players"]}
    assert [scores[name] for name in both["ranking"]] == sorted(scores.values(), reverse=True)
    assert [(t["team"], t["score"], t["place"]) for t in both["team_standings"]] == [
        (team, expected.teams[team].score, expected.places[team]) for team in expected.ranking
    ]
    red = next(t for t in both["team_standings"] if t["team"] == "Red")
    assert red["members"] == ["Ann", "Cy"]
    assert red["score"] < scores["Ann"] + scores["Cy"]  # w[0] counts once for Red
    data = challenges.get(code).to_json()
    assert data["teams"] == [
        {"name": "Red", "players": ["Ann", "Cy"]},
        {"name": "Blue", "players": ["Bob"]},
        {"name": "Green", "players": []},
    ]
    assert [(t["team"], t["total"]) for t in data["team_standings"]] == [
        (team, expected.teams[team].score) for team in expected.ranking
    ]
    assert {p["name"]: p["team"] for p in data["players"]} == teams_of(data)
    # A stranger sees the teams and their scores, never a word.
    text = json.dumps(challenges.get(code).results_json())
    assert w[0] not in text and w[3] not in text and '"words"' not in text


def teams_of(data: dict[str, Any]) -> dict[str, str]:
    return {player: team["name"] for team in data["teams"] for player in team["players"]}


def test_team_standings_share_places_over_rounds(
    challenges: Challenges, standard: Dictionary
) -> None:
    made = challenges.create("big", rounds=2, timer=60, teams=["Red", "Blue"])
    boards = [standing.board for standing in made.round_standings]
    first = valid_words(boards[0], standard)
    second = valid_words(boards[1], standard)
    pair = next(
        (a, b)
        for a in first
        for b in first
        if a != b and len(a) == len(b) and not (a.startswith(b) or b.startswith(a))
    )
    ann = play_team(challenges, made.code, "Ann", "Red", [pair[0]])
    play_team(challenges, made.code, "Bob", "Blue", [pair[1]])
    one = round_json(challenges, made.code, key=ann.key)
    assert [t["place"] for t in one["team_standings"]] == [1, 1]
    assert [p["place"] for p in one["players"]] == [1, 1]
    overall = challenges.get(made.code).results_json()["team_standings"]
    assert [t["place"] for t in overall] == [1, 1]
    # Round 2: Red alone finishes and scores; Blue stays on round 1's points.
    play_team(challenges, made.code, "Ann", None, [second[0]], key=ann.key)
    overall = challenges.get(made.code).results_json()["team_standings"]
    assert [(t["team"], t["place"]) for t in overall] == [("Red", 1), ("Blue", 2)]
    two = round_json(challenges, made.code, 2, key=ann.key)
    assert overall[0]["rounds"] == {
        "1": one["team_standings"][0]["score"],
        "2": two["team_standings"][0]["score"],
    }
    assert set(overall[1]["rounds"]) == {"1"}


def test_a_team_is_required_refused_and_fixed(
    challenges: Challenges, store: Store, standard: Dictionary
) -> None:
    made = challenges.create("big", rounds=2, timer=60, teams=["Red", "Blue"])
    with pytest.raises(RulesError, match=r"team: .*choose one of 'Red', 'Blue'"):
        challenges.play(made.code, "Ann")
    with pytest.raises(RulesError, match=r"team='Green' is not a team here; choose one of"):
        challenges.play(made.code, "Ann", team="Green")
    with pytest.raises(RoundInputError, match="team"):
        challenges.play(made.code, "Ann", team="")
    assert challenges.get(made.code).seats == ()  # nothing seated by a refused play
    ann = play_team(challenges, made.code, "Ann", "Red", [])
    with pytest.raises(NotOwnerError, match="has played this challenge"):  # not "choose a team"
        challenges.play(made.code, "ANN")
    with pytest.raises(RulesError, match=r"'Ann' plays for 'Red'.*fixed"):
        challenges.play(made.code, "Ann", key=ann.key, team="Blue")
    again, number = challenges.play(made.code, "Ann", key=ann.key, team="RED")
    assert number == 2
    with store.session() as session:
        seat = session.scalar(
            select(ChallengePlayerRow).where(ChallengePlayerRow.code == made.code)
        )
        assert seat is not None and seat.team == "Red"
    you = challenges.get(made.code, key=again.key).you
    assert you is not None and you.team == "Red"
    plain = challenges.create("big", timer=60)
    with pytest.raises(RulesError, match="has no teams"):
        challenges.play(plain.code, "Ann", team="Red")
    assert plain.to_json()["teams"] is None and "team_standings" not in plain.to_json()


@pytest.mark.parametrize(
    ("teams", "named"),
    [
        (["Red"], "teams: 1 given; a challenge with teams has 2 to"),
        ([], "teams: 0 given"),
        ([f"t{n}" for n in range(CHALLENGE_MAX_TEAMS + 1)], f"2 to {CHALLENGE_MAX_TEAMS}"),
        (["Red", "RED"], "teams[1]: 'Red' and 'RED' are the same name"),
        ([7, "Blue"], "teams[0]: a name must be text"),
        (["Red", "x" * 500], "teams[1]: name"),
        ("Red", "teams: expected a list"),
    ],
)
@BEFORE_THE_STORE
def test_bad_teams_are_named(challenges: Challenges, teams: Any, named: str) -> None:
    with pytest.raises((RulesError, RoundInputError)) as caught:
        challenges.create("classic", teams=teams)
    assert named in str(caught.value)


def test_the_most_teams(challenges: Challenges) -> None:
    names = [f"Team {n}" for n in range(CHALLENGE_MAX_TEAMS)]
    made = challenges.create("classic", teams=names)
    assert [team for team, _ in made.teams or ()] == names


def test_a_team_challenge_from_a_finished_game_seats_its_player_on_a_team(
    challenges: Challenges, solo: SoloGames, standard: Dictionary
) -> None:
    game = solo.start("big", options={"timer": 45}, player="Dee")
    assert game.key is not None
    solo.finish(game.game.id, game.key)
    teams = ["Owls", "Larks"]
    with pytest.raises(RulesError, match="team: this challenge is played in teams"):
        challenges.create(from_game=game.game.id, key=game.key, teams=teams)
    with pytest.raises(RulesError, match="team: only with from_game"):
        challenges.create("big", teams=teams, team="Owls")
    with pytest.raises(RulesError, match="team: this challenge has no teams"):
        challenges.create(from_game=game.game.id, key=game.key, team="Owls")
    made = challenges.create(from_game=game.game.id, key=game.key, teams=teams, team="larks")
    assert made.you is not None and made.you.team == "Larks"
    data = made.to_json()
    assert teams_of(data) == {"Dee": "Larks"}
    assert data["team_standings"] == [{"team": "Larks", "place": 1, "total": 0, "rounds": {"1": 0}}]


# -- races and catching up -----------------------------------------------------------------------


def test_a_finish_that_raced_another_never_stores_fewer_games(
    challenges: Challenges, solo: SoloGames, standard: Dictionary
) -> None:
    """Ann's standings are computed while Bob finishes (his store lands first): Ann's, counting
    only her game, must not replace his; hers reads again and finds both counted."""
    made = challenges.create("big", timer=60)
    code = made.code
    w = valid_words(made.round_standings[0].board, standard)
    bob = play_words(challenges, code, "Bob", [w[0]], finish=False)
    solo.on_scored.clear()  # Ann's listener is called by hand below, at the worst moment
    ann = play_words(challenges, code, "Ann", [w[0], w[1]])
    solo.on_scored.append(challenges.on_game_scored)
    calls = 0

    def racing_runner(job: Callable[..., Any], *args: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:  # Ann's job, computed from her game alone: Bob finishes meanwhile
            challenges.runner = run_here
            solo.finish(bob.game.id, bob.key)
        return job(*args)

    challenges.runner = racing_runner
    assert challenges._recompute(code, 1, ann.game.id) is False  # nothing left to store
    with challenges.store.session() as session:
        row = session.get(ChallengeRoundRow, (code, 1))
        assert row is not None
        assert sorted(row.counted_games) == sorted([ann.game.id, bob.game.id])
    assert verdicts(round_json(challenges, code, key=ann.key)) == {
        "Ann": {w[0]: "crossed_off", w[1]: "scored"},
        "Bob": {w[0]: "crossed_off"},
    }


def test_a_rounds_words_are_private_until_the_challenge_closes(
    challenges: Challenges, solo: SoloGames, store: Store, clock: FakeClock, standard: Dictionary
) -> None:
    # A round's game page and a member's public history would otherwise show its words to
    # someone who has not played the round yet.
    ann = make_member(store, "ann")
    made = challenges.create("big", timer=60, hours=2)
    word = valid_words(made.round_standings[0].board, standard)[0]
    view = play_words(challenges, made.code, "ann", [word], account_id=ann)
    seen = solo.get(view.game.id).to_json()
    assert seen["sealed"] is True and word not in json.dumps(seen)
    assert word in json.dumps(solo.get(view.game.id, view.key).to_json())  # its player's own

    def texts(value: Any) -> set[str]:  # every string value of a JSON document (not its keys)
        if isinstance(value, str):
            return {value}
        if isinstance(value, dict):
            return set().union(*map(texts, value.values())) if value else set()
        if isinstance(value, list):
            return set().union(*map(texts, value)) if value else set()
        return set()

    shown = texts(Profiles(store, clock).profile("ann").to_json())
    board_words = set(valid_words(made.round_standings[0].board, standard))
    assert not board_words & shown  # no word of the board at all
    # Nor may the game start a challenge of its own (with an earlier close, say).
    with pytest.raises(GameStateError, match="a round of another challenge"):
        challenges.create(from_game=view.game.id, key=view.key, hours=1)
    clock.advance(2 * HOUR + 1)  # closed, but a game started at the close may still run
    assert solo.get(view.game.id).to_json()["sealed"] is True
    clock.advance(60 + 61)  # a round's timer and its scoring later: over
    assert word in json.dumps(solo.get(view.game.id).to_json())


def test_a_challenge_of_a_members_game_seats_them_under_their_user_name(
    challenges: Challenges, solo: SoloGames, store: Store
) -> None:
    mara = make_member(store, "Mara")
    game = solo.start("big", player="you", account_id=mara)
    solo.finish(game.game.id, game.key)
    made = challenges.create(from_game=game.game.id, key=game.key)
    assert made.maker == "Mara" and [seat.name for seat in made.seats] == ["Mara"]
    assert solo.get(game.game.id).to_json()["sealed"] is True  # its first round now


def test_two_new_players_of_one_name_at_once_get_one_seat(challenges: Challenges) -> None:
    made = challenges.create("classic", timer=30)
    barrier = threading.Barrier(2)

    def attempt(_: int) -> str:
        barrier.wait()
        try:
            challenges.play(made.code, "Twin")
            return "seated"
        except (NotOwnerError, GameStateError):
            return "refused"

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(attempt, range(2)))
    assert outcomes == ["refused", "seated"]
    assert [seat.name for seat in challenges.get(made.code).seats] == ["Twin"]


def test_one_seat_starts_one_game_of_a_round(challenges: Challenges) -> None:
    made = challenges.create("classic", rounds=2, timer=30)
    first = play_words(challenges, made.code, "Ann", [])
    # Six at once (two tabs, a retrying client): on PostgreSQL the seat-and-round unique key
    # decides between the racers, and the losers are told so (never an IntegrityError).
    barrier = threading.Barrier(6)

    def attempt(_: int) -> int | None:
        barrier.wait()
        try:
            return challenges.play(made.code, "Ann", key=first.key)[1]
        except GameStateError:
            return None

    with ThreadPoolExecutor(6) as pool:
        outcomes = list(pool.map(attempt, range(6)))
    assert sorted(outcomes, key=str) == [2, None, None, None, None, None]


def test_the_sweep_catches_up_what_a_listener_missed(
    challenges: Challenges, solo: SoloGames, clock: FakeClock, standard: Dictionary
) -> None:
    made = challenges.create("big", rounds=2, timer=60)
    code = made.code
    w = valid_words(made.round_standings[0].board, standard)
    solo.on_scored.clear()  # a crash between the result and the standings
    ann = play_words(challenges, code, "Ann", [w[0]])
    assert challenges.get(code).standings == ()
    solo.on_scored.append(challenges.on_game_scored)
    assert challenges.sweep() == 1
    assert challenges.get(code).standings[0].total > 0
    # A round begun and abandoned without a word: no timer scores it, the sweep does.
    _abandoned, number = challenges.play(code, "Ann", key=ann.key)
    assert number == 2
    clock.advance(61)
    challenges.sweep()
    view = challenges.get(code, key=ann.key)
    assert view.you is not None and view.you.finished == (1, 2)
    # A round reserved by a start that died before its game began is given up.
    with challenges.store.write_session() as session:
        zoe = ChallengePlayerRow(code=code, name="Zoe", name_key="zoe", joined_at=clock())
        session.add(zoe)
        session.flush()
        session.add(
            ChallengeGameRow(
                code=code, number=1, player_id=zoe.id, game_id=None, reserved_at=clock()
            )
        )

    def zoe_playing() -> int | None:
        return next(seat.playing for seat in challenges.get(code).seats if seat.name == "Zoe")

    assert zoe_playing() == 1  # held open: no standings are final while it is
    clock.advance(RESERVATION_SECONDS + 1)
    challenges.sweep()
    assert zoe_playing() is None
    with challenges.store.session() as session:
        assert (
            session.scalar(select(ChallengeGameRow).where(ChallengeGameRow.game_id.is_(None)))
            is None
        )
    # The sweep does at most `limit` rounds a call (CHALLENGE_SWEEP_ROUNDS by default).
    solo.on_scored.clear()
    for name in ("Bob", "Cy"):
        other = challenges.create("classic", timer=30)
        play_words(challenges, other.code, name, [])
    solo.on_scored.append(challenges.on_game_scored)
    assert challenges.sweep(limit=1) == 1
    assert challenges.sweep(limit=CHALLENGE_SWEEP_ROUNDS) == 1
    assert challenges.sweep() == 0


@pytest.fixture(autouse=True)
def _no_leaked_listeners(solo: SoloGames) -> Iterator[None]:
    yield
    solo.on_scored.clear()
