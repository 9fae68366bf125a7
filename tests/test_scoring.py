"""Round scoring: verdicts and their order, points, challenge cube, teams, ranking, tournaments.

The boards and dictionaries are small enough to check every expectation by hand.

``LINES/TQuARD/HEMOP/ABCKI/PSTEW`` (row, column), 0-based::

    L(0,0) I(0,1)  N(0,2) E(0,3) S(0,4)
    T(1,0) Qu(1,1) A(1,2) R(1,3) D(1,4)
    H(2,0) E(2,1)  M(2,2) O(2,3) P(2,4)
    A(3,0) B(3,1)  C(3,2) K(3,3) I(3,4)
    P(4,0) S(4,1)  T(4,2) E(4,3) W(4,4)

On it (traced by hand): line, lines, mare, mares, ream, roam, ram, mear, quit (Qu-I-T), quilt
(Qu-I-L-T), qui (Qu-I). Not on it: nile (no E next to the L), step (no P next to an E after
S-T), dogs (no G).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from bigboggle import (
    Board,
    BoggleError,
    Dictionary,
    RoundInputError,
    RoundResult,
    Rules,
    Tournament,
    Verdict,
    WordResult,
    score_round,
)

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
CANONICAL = "LINES/TQuARD/HEMOP/ABCKI/PSTEW"
ON_BOARD = ["line", "lines", "quit", "quilt", "qui", "mare", "mares", "ream", "roam", "ram"]
NOT_ON_BOARD = ["nile", "dogs", "step"]
WORDS = Dictionary.from_words([*ON_BOARD, *NOT_ON_BOARD])

#: ``COATS/XXXT*X/POSEX``: the challenge cube is the T at (1, 3). "coat" and "coats" can be
#: traced through it (A(0,2) touches both T's) or around it (via T(0,3)); "pose" (bottom row)
#: never touches it.
CHALLENGE_BOARD = "COATS/XXXT*X/POSEX"
CHALLENGE_WORDS = Dictionary.from_words(["coat", "coats", "pose"])

BIG = Rules.preset("big")


def play(
    lists: Mapping[str, Sequence[str]],
    rules: Rules = BIG,
    *,
    board: str = BOARD,
    words: Dictionary = WORDS,
    teams: Mapping[str, Sequence[str]] | None = None,
    min_length: Mapping[str, int] | None = None,
) -> RoundResult:
    return score_round(board, lists, rules, words, teams=teams, min_length=min_length)


def verdicts(result: RoundResult, player: str) -> list[tuple[str, Verdict]]:
    return [(entry.word, entry.verdict) for entry in result.players[player].words]


def only(result: RoundResult, player: str) -> WordResult:
    (entry,) = result.players[player].words
    return entry


# -- verdicts, one by one ---------------------------------------------------------------------


@pytest.mark.parametrize("entry", ["d0g", "", "two words", "   ", "line!", "lïne-s"])
def test_not_letters_is_not_a_word(entry: str) -> None:
    result = play({"ann": [entry]})
    word = only(result, "ann")
    assert word.verdict is Verdict.NOT_A_WORD
    assert (word.score, word.bonus) == (0, 0)
    assert word.entry == entry


def test_accents_are_folded_before_checking() -> None:
    word = only(play({"ann": ["Líne"]}), "ann")
    assert (word.word, word.verdict, word.score) == ("line", Verdict.SCORED, 1)


def test_repeated_is_case_and_whitespace_insensitive() -> None:
    result = play({"ann": ["Lines", " lines ", "LINES"]})
    assert verdicts(result, "ann") == [
        ("lines", Verdict.SCORED),
        ("lines", Verdict.REPEATED),
        ("lines", Verdict.REPEATED),
    ]
    # The word counts once: "lines" is 5 letters, 2 points under the Big Boggle table.
    assert result.players["ann"].score == 2
    assert [entry.entry for entry in result.players["ann"].words] == ["Lines", " lines ", "LINES"]


def test_too_short_under_the_rules_minimum() -> None:
    # "ram" is on the board and in the dictionary, but Big Boggle needs 4 letters.
    word = only(play({"ann": ["ram"]}), "ann")
    assert word.verdict is Verdict.TOO_SHORT
    assert word.score == 0


def test_not_on_board() -> None:
    result = play({"ann": ["nile", "step", "dogs"]})
    assert [verdict for _, verdict in verdicts(result, "ann")] == [Verdict.NOT_ON_BOARD] * 3
    assert result.players["ann"].score == 0


def test_on_board_but_not_in_dictionary() -> None:
    # M(2,2)-E(2,1)-A(1,2)-R(1,3) spells "mear", which the dictionary lacks.
    word = only(play({"ann": ["mear"]}), "ann")
    assert word.verdict is Verdict.NOT_IN_DICTIONARY
    assert word.score == 0


def test_scored_word_points_follow_the_big_table() -> None:
    result = play({"ann": ["line", "lines", "mare", "mares", "roam"]})
    assert [(entry.word, entry.score) for entry in result.players["ann"].words] == [
        ("line", 1),
        ("lines", 2),
        ("mare", 1),
        ("mares", 2),
        ("roam", 1),
    ]
    assert result.players["ann"].score == 7


# -- verdict order ------------------------------------------------------------------------------


def test_repeated_comes_before_not_on_board() -> None:
    result = play({"ann": ["nile", "NILE"]})
    assert verdicts(result, "ann") == [
        ("nile", Verdict.NOT_ON_BOARD),
        ("nile", Verdict.REPEATED),
    ]


def test_not_a_word_comes_before_repeated() -> None:
    result = play({"ann": ["d0g", "d0g"]})
    assert [verdict for _, verdict in verdicts(result, "ann")] == [Verdict.NOT_A_WORD] * 2


def test_repeated_comes_before_too_short() -> None:
    result = play({"ann": ["ram", "Ram"]})
    assert verdicts(result, "ann") == [("ram", Verdict.TOO_SHORT), ("ram", Verdict.REPEATED)]


def test_too_short_comes_before_not_on_board() -> None:
    # "dog" is neither on the board nor long enough: too_short is checked first.
    word = only(play({"ann": ["dog"]}), "ann")
    assert word.verdict is Verdict.TOO_SHORT


def test_not_on_board_comes_before_not_in_dictionary() -> None:
    # "zzzz" is in neither; the board is checked first.
    word = only(play({"ann": ["zzzz"]}), "ann")
    assert word.verdict is Verdict.NOT_ON_BOARD


def test_not_in_dictionary_is_never_crossed_off() -> None:
    result = play({"ann": ["mear"], "bob": ["mear"]})
    assert only(result, "ann").verdict is Verdict.NOT_IN_DICTIONARY
    assert only(result, "bob").verdict is Verdict.NOT_IN_DICTIONARY


# -- crossing off ---------------------------------------------------------------------------


def test_valid_words_on_two_lists_are_crossed_off_for_both() -> None:
    result = play({"ann": ["lines", "mare"], "bob": [" LINES", "roam"]})
    assert verdicts(result, "ann") == [("lines", Verdict.CROSSED_OFF), ("mare", Verdict.SCORED)]
    assert verdicts(result, "bob") == [("lines", Verdict.CROSSED_OFF), ("roam", Verdict.SCORED)]
    assert result.players["ann"].words[0].score == 0
    assert result.scores == {"ann": 1, "bob": 1}


def test_a_word_on_three_lists_is_crossed_off_for_all() -> None:
    result = play({"ann": ["mares"], "bob": ["mares"], "cid": ["mares", "quit"]})
    for name in ("ann", "bob", "cid"):
        assert result.players[name].words[0].verdict is Verdict.CROSSED_OFF
    assert result.scores == {"ann": 0, "bob": 0, "cid": 1}


def test_handicap_three_letter_word_scores_one_and_is_not_crossed_off_by_an_adult() -> None:
    result = play({"kid": ["ram"], "ann": ["ram", "line"]}, min_length={"kid": 3})
    kid = only(result, "kid")
    assert (kid.verdict, kid.score) == (Verdict.SCORED, 1)
    assert verdicts(result, "ann") == [("ram", Verdict.TOO_SHORT), ("line", Verdict.SCORED)]
    assert result.players["kid"].min_length == 3
    assert result.players["ann"].min_length == 4
    assert result.scores == {"kid": 1, "ann": 1}


def test_a_player_with_a_higher_minimum_does_not_cross_off_a_shorter_word() -> None:
    # For "pro" (minimum 6), "lines" is too short; ann's "lines" stands.
    result = play({"ann": ["lines"], "pro": ["lines"]}, min_length={"pro": 6})
    assert only(result, "ann").verdict is Verdict.SCORED
    assert only(result, "pro").verdict is Verdict.TOO_SHORT


def test_two_handicapped_players_cross_off_each_other() -> None:
    result = play({"kid": ["ram"], "tot": ["ram"]}, min_length={"kid": 3, "tot": 3})
    assert only(result, "kid").verdict is Verdict.CROSSED_OFF
    assert only(result, "tot").verdict is Verdict.CROSSED_OFF


def test_duplicates_keep_crosses_nothing_off() -> None:
    rules = Rules.preset("big", duplicates="keep")
    result = play({"ann": ["lines", "mare"], "bob": ["lines"]}, rules)
    assert verdicts(result, "ann") == [("lines", Verdict.SCORED), ("mare", Verdict.SCORED)]
    assert verdicts(result, "bob") == [("lines", Verdict.SCORED)]
    assert result.scores == {"ann": 3, "bob": 2}


# -- Qu, advanced play ------------------------------------------------------------------------


def test_qu_counts_two_letters() -> None:
    # "quit" is 4 letters on 3 cells, "quilt" 5 letters on 4 cells, "qui" 3 letters on 2 cells.
    result = play({"ann": ["quit", "quilt", "qui"], "kid": ["qui"]}, min_length={"kid": 3})
    quit_, quilt, qui = result.players["ann"].words
    assert (quit_.verdict, quit_.score) == (Verdict.SCORED, 1)
    assert quit_.path == ((1, 1), (0, 1), (1, 0))
    assert (quilt.verdict, quilt.score) == (Verdict.SCORED, 2)
    assert quilt.path == ((1, 1), (0, 1), (0, 0), (1, 0))
    assert qui.verdict is Verdict.TOO_SHORT
    kid = only(result, "kid")
    assert (kid.verdict, kid.score) == (Verdict.SCORED, 1)


def test_a_bare_q_word_is_not_on_a_qu_board() -> None:
    words = Dictionary.from_words(["qilt", "quilt"])
    # The Qu face never spells a bare "q".
    word = only(play({"ann": ["qilt"]}, words=words), "ann")
    assert word.verdict is Verdict.NOT_ON_BOARD


def test_advanced_play_makes_four_letter_words_too_short() -> None:
    rules = Rules.preset("big", advanced=True)
    assert rules.min_length == 5
    result = play({"ann": ["line", "lines", "quit", "quilt"]}, rules)
    assert verdicts(result, "ann") == [
        ("line", Verdict.TOO_SHORT),
        ("lines", Verdict.SCORED),
        ("quit", Verdict.TOO_SHORT),
        ("quilt", Verdict.SCORED),
    ]
    assert result.players["ann"].score == 4


# -- the challenge cube -----------------------------------------------------------------------


def test_challenge_bonus_when_some_path_runs_through_the_cube() -> None:
    result = play({"ann": ["coat", "coats", "pose"]}, board=CHALLENGE_BOARD, words=CHALLENGE_WORDS)
    coat, coats, pose = result.players["ann"].words
    # coat: 4 letters = 1 point + 5; coats: 5 letters = 2 points + 5; pose: 1, no bonus.
    assert (coat.verdict, coat.score, coat.bonus) == (Verdict.SCORED, 6, 5)
    assert (coats.verdict, coats.score, coats.bonus) == (Verdict.SCORED, 7, 5)
    assert (pose.verdict, pose.score, pose.bonus) == (Verdict.SCORED, 1, 0)
    # The path shown is one that uses the cube's cell (1, 3).
    assert coat.path is not None and (1, 3) in coat.path
    assert coats.path is not None and (1, 3) in coats.path
    assert result.players["ann"].score == 14


def test_no_challenge_bonus_on_a_board_without_the_cube() -> None:
    result = play({"ann": ["coat"]}, board="COATS/XXXTX/POSEX", words=CHALLENGE_WORDS)
    word = only(result, "ann")
    assert (word.score, word.bonus) == (1, 0)


def test_challenge_bonus_is_the_rules_bonus() -> None:
    rules = Rules.preset("big", challenge_bonus=20)
    result = play({"ann": ["coat"]}, rules, board=CHALLENGE_BOARD, words=CHALLENGE_WORDS)
    word = only(result, "ann")
    assert (word.score, word.bonus) == (21, 20)


def test_crossed_off_challenge_word_gets_nothing() -> None:
    result = play(
        {"ann": ["coat", "pose"], "bob": ["coat"]}, board=CHALLENGE_BOARD, words=CHALLENGE_WORDS
    )
    for name in ("ann", "bob"):
        coat = result.players[name].words[0]
        assert (coat.verdict, coat.score, coat.bonus) == (Verdict.CROSSED_OFF, 0, 0)
    assert result.scores == {"ann": 1, "bob": 0}


def test_handicap_word_through_the_cube_gets_the_bonus() -> None:
    # "oat" (3 letters) for a player whose minimum is 3: 1 point + 5.
    words = Dictionary.from_words(["oat"])
    result = play({"kid": ["oat"]}, board=CHALLENGE_BOARD, words=words, min_length={"kid": 3})
    word = only(result, "kid")
    assert (word.verdict, word.score, word.bonus) == (Verdict.SCORED, 6, 5)


# -- team play ----------------------------------------------------------------------------------


def team_round() -> RoundResult:
    return play(
        {"ann": ["lines", "mare"], "bob": ["lines", "quilt"], "cid": ["mare", "roam"]},
        teams={"red": ["ann", "bob"], "blue": ["cid"]},
    )


def test_team_word_written_by_two_members_counts_once() -> None:
    result = team_round()
    assert result.teams is not None
    red = result.teams["red"]
    # lines (2) once + quilt (2); mare is crossed off by blue.
    assert red.words == {"lines": 2, "quilt": 2}
    assert red.score == 4
    assert red.members == ("ann", "bob")
    assert verdicts(result, "ann") == [("lines", Verdict.SCORED), ("mare", Verdict.CROSSED_OFF)]
    assert verdicts(result, "bob") == [("lines", Verdict.SCORED), ("quilt", Verdict.SCORED)]


def test_a_teams_sharing_explains_its_points_by_its_members() -> None:
    """One computation for every front end: the members' points, what they counted twice
    (the words several members scored, once for the team) and the first shared words."""
    from bigboggle.scoring import SHOWN_SHARED_WORDS, TeamSharing

    result = team_round()
    assert result.team_sharing("red") == TeamSharing(
        team="red",
        score=4,
        members=(("ann", 2), ("bob", 4)),
        counted_twice=2,
        first_shared=("lines",),
        shared_count=1,
    )
    assert result.team_sharing("blue") is None  # one member: nothing shared
    assert play({"ann": ["lines"]}).team_sharing("red") is None  # no teams
    both = ["line", "lines", "quit", "quilt", "mare", "mares", "ream", "roam"]
    many = play({"ann": both, "bob": both}, teams={"red": ["ann", "bob"]}).team_sharing("red")
    assert many is not None and many.shared_count == len(both) and many.more_shared
    assert many.first_shared == ("line", "lines", "mare", "mares", "quilt")
    assert len(many.first_shared) == SHOWN_SHARED_WORDS
    assert many.counted_twice == many.score  # each word twice: the members' sum is double


def test_word_found_by_both_teams_is_crossed_off_for_both() -> None:
    result = team_round()
    assert result.teams is not None
    assert verdicts(result, "cid") == [("mare", Verdict.CROSSED_OFF), ("roam", Verdict.SCORED)]
    assert result.teams["blue"].words == {"roam": 1}
    assert result.scores == {"red": 4, "blue": 1}
    assert result.ranking == ["red", "blue"]


def test_team_json_shape() -> None:
    data = team_round().to_json()
    assert data["teams"]["red"]["score"] == 4
    assert data["teams"]["red"]["members"] == ["ann", "bob"]
    assert data["teams"]["blue"]["score"] == 1
    assert data["ranking"] == ["red", "blue"]
    assert data["players"]["bob"]["score"] == 4


@pytest.mark.parametrize(
    ("teams", "key"),
    [
        ({"red": ["ann", "bob"], "blue": ["cid", "zed"]}, "teams.blue[1]"),
        ({"red": ["ann", "bob"], "blue": ["cid", "ann"]}, "teams.blue[1]"),
        ({"red": ["ann", "bob"]}, "players.cid"),
        ({"red": ["ann", "bob"], "blue": []}, "teams.blue"),
        ({"red": "ann", "blue": ["bob", "cid"]}, "teams.red"),
        ({}, "teams"),
    ],
)
def test_team_errors_name_the_key(teams: dict[str, Any], key: str) -> None:
    lists = {"ann": ["line"], "bob": ["mare"], "cid": ["roam"]}
    with pytest.raises(RoundInputError, match="^" + re.escape(key) + "[:. ]"):
        play(lists, teams=teams)


def test_unhashable_team_member_is_a_round_input_error() -> None:
    with pytest.raises(RoundInputError, match=re.escape("teams.red[0]")):
        play({"ann": ["line"]}, teams={"red": [["ann"]]})  # type: ignore[list-item]


def test_team_rules_without_teams_is_an_error() -> None:
    with pytest.raises(RoundInputError, match=r"^teams"):
        play({"ann": ["line"]}, Rules.preset("big", teams=True))


# -- ranking, missed words, JSON ---------------------------------------------------------------


def test_ranking_by_score() -> None:
    result = play({"amy": ["line"], "bob": ["lines", "mares"], "cid": ["quilt"]})
    assert result.scores == {"amy": 1, "bob": 4, "cid": 2}
    assert result.ranking == ["bob", "cid", "amy"]


def test_ranking_tie_goes_to_the_longer_words() -> None:
    # Both score 2: zoe with one 5-letter word, amy with two 4-letter words.
    result = play({"amy": ["line", "mare"], "zoe": ["lines"]})
    assert result.scores == {"amy": 2, "zoe": 2}
    assert result.ranking == ["zoe", "amy"]


def test_ranking_tie_on_points_and_lengths_goes_by_name() -> None:
    result = play({"zoe": ["line"], "amy": ["mare"]})
    assert result.ranking == ["amy", "zoe"]


def test_handicap_short_word_loses_a_tie_to_a_longer_one() -> None:
    # kid: ram (3 letters, 1) + line (1) = 2; ann: lines (5 letters) = 2.
    result = play({"kid": ["ram", "line"], "ann": ["lines"]}, min_length={"kid": 3})
    assert result.scores == {"kid": 2, "ann": 2}
    assert result.ranking == ["ann", "kid"]


def test_missed_words_are_the_board_words_nobody_validly_found() -> None:
    # The board holds (4+ letters, this dictionary): lines, mares, quilt (2 points);
    # line, mare, quit, ream, roam (1 point). "lines" is crossed off but was found.
    result = play({"ann": ["lines", "quit", "nile"], "bob": ["mare", "LINES", "ram"]})
    assert [found.word for found in result.missed] == ["mares", "quilt", "line", "ream", "roam"]
    assert [found.score for found in result.missed] == [2, 2, 1, 1, 1]


def test_missed_excludes_nothing_when_nobody_found_anything() -> None:
    result = play({"ann": []})
    expected = {"lines", "mares", "quilt", "line", "mare", "quit", "ream", "roam"}
    assert {found.word for found in result.missed} == expected


def test_to_json_shape() -> None:
    result = play(
        {"ann": ["Lines", "d0g", "mare", "ram"], "bob": ["lines", "quilt"]},
        min_length={"bob": 3},
    )
    data = result.to_json()
    json.dumps(data)  # plain JSON types only
    assert data["board"] == CANONICAL
    assert data["rules"] == "big"
    assert "teams" not in data
    assert data["ranking"] == ["bob", "ann"]
    assert set(data["players"]) == {"ann", "bob"}
    ann = data["players"]["ann"]
    assert ann["score"] == 1
    required = {"word", "verdict", "score", "bonus"}
    for entry in ann["words"]:
        assert required <= set(entry)
    assert [
        {key: entry[key] for key in ("word", "verdict", "score", "bonus")} for entry in ann["words"]
    ] == [
        {"word": "lines", "verdict": "crossed_off", "score": 0, "bonus": 0},
        {"word": "d0g", "verdict": "not_a_word", "score": 0, "bonus": 0},
        {"word": "mare", "verdict": "scored", "score": 1, "bonus": 0},
        {"word": "ram", "verdict": "too_short", "score": 0, "bonus": 0},
    ]
    assert data["players"]["bob"]["score"] == 2
    assert [entry["verdict"] for entry in data["players"]["bob"]["words"]] == [
        "crossed_off",
        "scored",
    ]


@pytest.mark.parametrize(
    "lists",
    [
        {"ann": ["lines", "quilt", "d0g", "line", "lines"], "bob": ["quilt", "mares", "roam"]},
        {"ann": ["ream", "mare", "mares"], "bob": [], "cid": ["ream", "zzzz", "quit"]},
    ],
)
def test_player_score_is_the_sum_of_word_scores(lists: dict[str, list[str]]) -> None:
    data = play(lists).to_json()
    for name, player in data["players"].items():
        assert player["score"] == sum(entry["score"] for entry in player["words"])
        assert len(player["words"]) == len(lists[name])


def test_word_scores_sum_with_challenge_bonuses() -> None:
    result = play(
        {"ann": ["coats", "pose", "coat"], "bob": ["pose"]},
        board=CHALLENGE_BOARD,
        words=CHALLENGE_WORDS,
    )
    ann = result.players["ann"]
    assert ann.score == sum(entry.score for entry in ann.words) == 13
    assert [entry.bonus for entry in ann.words] == [5, 0, 5]


def test_board_object_and_text_give_the_same_round() -> None:
    lists = {"ann": ["lines", "quit"], "bob": ["quit", "roam"]}
    by_text = play(lists).to_json()
    by_board = score_round(Board.parse(BOARD), lists, BIG, WORDS).to_json()
    assert by_text == by_board


def test_builtin_dictionary_round() -> None:
    words = Dictionary.builtin("standard")
    result = play({"ann": ["lines", "quilt", "xqzt"]}, words=words)
    assert verdicts(result, "ann") == [
        ("lines", Verdict.SCORED),
        ("quilt", Verdict.SCORED),
        ("xqzt", Verdict.NOT_ON_BOARD),
    ]
    assert result.players["ann"].score == 4


# -- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lists", "min_length", "key"),
    [
        ([("ann", ["line"])], None, "players"),
        ({}, None, "players"),
        ({"ann": "lines"}, None, "players.ann"),
        ({"ann": ["line", 3]}, None, "players.ann[1]"),
        ({"ann": ["line", None]}, None, "players.ann[1]"),
        ({"ann": ["line"], "": ["mare"]}, None, "players"),
        ({"ann": ["line"]}, {"zed": 3}, "min_length.zed"),
        ({"ann": ["line"]}, {"ann": 2}, "min_length.ann"),
        ({"ann": ["line"]}, {"ann": 26}, "min_length.ann"),
        ({"ann": ["line"]}, {"ann": "3"}, "min_length.ann"),
        ({"ann": ["line"]}, {"ann": 3.0}, "min_length.ann"),
        ({"ann": ["line"]}, {"ann": True}, "min_length.ann"),
    ],
)
def test_bad_input_names_the_key(lists: Any, min_length: Any, key: str) -> None:
    with pytest.raises(RoundInputError) as caught:
        score_round(BOARD, lists, BIG, WORDS, min_length=min_length)
    assert isinstance(caught.value, BoggleError)
    assert isinstance(caught.value, ValueError)
    message = str(caught.value)
    assert message.startswith(key)
    # The key is the whole path, not just its prefix: "players.ann[1]" is not "players.ann[10]".
    assert message[len(key)] in ":. "


def test_handicap_boundaries_are_accepted() -> None:
    result = play({"ann": ["ram"], "bob": ["ram"]}, min_length={"ann": 3, "bob": 25})
    assert only(result, "ann").verdict is Verdict.SCORED
    assert only(result, "bob").verdict is Verdict.TOO_SHORT


def test_min_length_not_a_mapping_is_a_round_input_error() -> None:
    with pytest.raises(RoundInputError, match=r"^min_length"):
        score_round(BOARD, {"ann": ["line"]}, BIG, WORDS, min_length=3)  # type: ignore[arg-type]


# -- tournaments --------------------------------------------------------------------------------


def challenge_round(ann: Sequence[str], bob: Sequence[str]) -> RoundResult:
    return play({"ann": ann, "bob": bob}, board=CHALLENGE_BOARD, words=CHALLENGE_WORDS)


def test_tournament_ends_when_the_target_is_reached() -> None:
    # ann: coats (7) + coat (6) = 13 a round; bob: pose (1).
    round_ = challenge_round(["coats", "coat"], ["pose"])
    assert round_.scores == {"ann": 13, "bob": 1}
    tournament = Tournament(target=50)
    for _ in range(3):
        tournament.add(round_)
    assert tournament.totals == {"ann": 39, "bob": 3}
    assert not tournament.is_over
    assert tournament.winner is None
    tournament.add(round_)
    assert tournament.totals == {"ann": 52, "bob": 4}
    assert tournament.is_over
    assert tournament.winner == "ann"
    assert tournament.standings == ["ann", "bob"]
    with pytest.raises(RoundInputError):
        tournament.add(round_)
    assert len(tournament.results) == 4


def test_tournament_target_reached_exactly() -> None:
    # bob reaches exactly 12 with two rounds of 6.
    round_ = challenge_round(["pose"], ["coat"])
    tournament = Tournament(target=12)
    tournament.add(round_)
    assert not tournament.is_over
    tournament.add(round_)
    assert tournament.totals == {"ann": 2, "bob": 12}
    assert tournament.is_over
    assert tournament.winner == "bob"


def test_tournament_ends_after_n_rounds() -> None:
    tournament = Tournament(rounds=2)
    tournament.add(challenge_round(["pose"], ["coat"]))
    assert not tournament.is_over
    tournament.add(challenge_round(["coats"], ["pose"]))
    assert tournament.is_over
    assert tournament.totals == {"ann": 8, "bob": 7}
    assert tournament.winner == "ann"
    with pytest.raises(RoundInputError):
        tournament.add(challenge_round(["pose"], ["coat"]))


def test_tournament_tie_goes_to_the_longer_words() -> None:
    tournament = Tournament(rounds=2)
    # Round 1: zoe quilt (5 letters, 2), amy line (1). Round 2: zoe mare (1), amy ream + roam (2).
    tournament.add(play({"zoe": ["quilt"], "amy": ["line"]}))
    tournament.add(play({"zoe": ["mare"], "amy": ["ream", "roam"]}))
    assert tournament.totals == {"zoe": 3, "amy": 3}
    assert tournament.standings == ["zoe", "amy"]
    assert tournament.winner == "zoe"

    # The places say the longer words decided, and the tie-break says how.
    assert tournament.places == {"zoe": 1, "amy": 2}
    (tie,) = tournament.tie_breaks
    assert tie.to_json() == {
        "ahead": "zoe",
        "behind": "amy",
        "points": 3,
        "same": 0,
        "ahead_length": 5,
        "behind_length": 4,
    }


def test_tournament_competitors_the_tie_break_cannot_part_share_a_place() -> None:
    tournament = Tournament(rounds=1)
    tournament.add(play({"ann": ["line"], "bob": ["mare"], "cy": []}))
    assert tournament.totals == {"ann": 1, "bob": 1, "cy": 0}
    assert tournament.places == {"ann": 1, "bob": 1, "cy": 3}
    assert tournament.tie_breaks == [] and tournament.leaders == ["ann", "bob"]
    assert tournament.winner is None


def test_a_round_gives_the_same_points_the_same_place() -> None:
    # bob's word is longer, so he is listed first, but a round's tie is not broken.
    result = play({"ann": ["line", "mare"], "bob": ["quilt"], "cy": ["ream"]})
    assert result.scores == {"ann": 2, "bob": 2, "cy": 1}
    assert result.ranking == ["bob", "ann", "cy"]  # the list keeps its shape (DESIGN 4)
    assert result.places == {"bob": 1, "ann": 1, "cy": 3}
    data = result.to_json()
    assert data["ranking"] == ["bob", "ann", "cy"] and data["places"] == result.places


def test_team_tournament_adds_team_scores() -> None:
    tournament = Tournament(rounds=2)
    tournament.add(team_round())
    tournament.add(team_round())
    assert tournament.totals == {"red": 8, "blue": 2}
    assert tournament.winner == "red"


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"target": 0}, {"rounds": 0}, {"target": True}, {"rounds": 2.5}, {"target": "50"}],
)
def test_tournament_needs_sensible_limits(kwargs: dict[str, Any]) -> None:
    with pytest.raises(RoundInputError):
        Tournament(**kwargs)


def test_adversarial_entries_are_judged_quickly() -> None:
    """An entry that would take an exponential search gets a verdict, not a hang."""
    board = Board("/".join(["EEEEE"] * 4 + ["EEEEX"]))
    words = Dictionary.from_words(["eeee", "exee"])
    result = score_round(board, {"ann": ["e" * 24 + "x", "e" * 12 + "q", "eeee"]}, BIG, words)
    verdicts = [entry.verdict for entry in result.players["ann"].words]
    assert verdicts[0] in (Verdict.NOT_ON_BOARD, Verdict.NOT_IN_DICTIONARY)
    assert verdicts[1] is Verdict.NOT_ON_BOARD
    assert verdicts[2] is Verdict.SCORED


def test_hostile_lists_draw_on_one_budget_and_cannot_make_scoring_hang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bigboggle import judge as judge_module

    per_entry = judge_module.PATH_SEARCH_BUDGET
    monkeypatch.setattr(judge_module, "ROUND_SEARCH_BUDGET", 3 * per_entry)
    # A's everywhere but two far corners: "b" + k a's + "b" cannot fit for k < 10, and finding
    # that out means trying every path of A's from each B.
    rows = [["A"] * 12 for _ in range(12)]
    rows[0][0] = rows[11][11] = "B"
    judge = judge_module.Judge(Board.from_faces(rows), BIG, WORDS)
    entries = ["b" + "a" * k + "b" for k in (9, 8, 7, 6)]
    results = [judge.judge(entry, 4, set()) for entry in entries]
    # The first three each use up a search's budget (undecided: certainly not a word); the
    # fourth finds the round's budget spent and is judged without a search.
    assert [result.verdict for result in results] == [Verdict.NOT_IN_DICTIONARY] * 4
    assert judge.search_steps_left == 0
    # A word whose letters the board lacks is still told apart at once, budget or not.
    assert judge.judge("bcab", 4, set()).verdict is Verdict.NOT_ON_BOARD
    # Each entry is searched once: judging it again takes nothing.
    assert judge.judge(entries[0], 4, set()).verdict is Verdict.NOT_IN_DICTIONARY


# -- names: one normal form and one clash key for every round -----------------------------------


@pytest.mark.once
def test_check_name_gives_the_normal_form_of_bigboggle_names() -> None:
    from bigboggle.names import clean_name
    from bigboggle.round_setup import check_name

    for name in ("ann", "  Ann   Lee ", "ａｎｎ", "Zoë"):
        assert check_name(name, "players") == clean_name(name, "players")
    assert check_name("ａｎｎ", "players") == "ann"
    for bad in ("ann\u200b", "a\x00", "", "x" * 41, 7):
        with pytest.raises(RoundInputError, match=r"^players: "):
            check_name(bad, "players")


@pytest.mark.once
@pytest.mark.parametrize(
    "lists",
    [
        {"ann": ["line"], "ANN": ["mare"]},
        {"ann": ["line"], "\u0430nn": ["mare"]},  # Cyrillic а
        {"ann": ["line"], "ａｎｎ": ["mare"]},  # full-width
        {"ann": ["line"], "Ann ": ["mare"]},
    ],
    ids=["case", "cyrillic", "width", "space"],
)
def test_players_whose_names_look_alike_cannot_share_a_round(lists: dict[str, list[str]]) -> None:
    with pytest.raises(RoundInputError) as caught:
        play(lists)
    message = str(caught.value)
    assert message.startswith("players: ")
    assert "same name" in message
    assert len(message) <= 300


@pytest.mark.once
def test_teams_whose_names_look_alike_are_refused() -> None:
    with pytest.raises(RoundInputError, match=r"^teams: 'red' and 'RED' are the same name"):
        play({"ann": ["line"], "bob": ["mare"]}, teams={"red": ["ann"], "RED": ["bob"]})


@pytest.mark.once
def test_a_game_refuses_players_whose_names_look_alike() -> None:
    from bigboggle import Round

    game = Round(Board.parse(BOARD), BIG, WORDS)
    game.add_player("ann")
    with pytest.raises(RoundInputError, match="invisible"):
        game.add_player("bob\u200d")
    game.add_player("ANN")  # the setup is checked when the round starts
    with pytest.raises(RoundInputError, match=r"^players: 'ann' and 'ANN' are the same name"):
        game.start(1_000.0)
    running = Round(Board.parse(BOARD), BIG, WORDS, ["ann"])
    running.start(1_000.0)
    with pytest.raises(RoundInputError, match="same name"):
        running.add_player("\u0430nn")  # joining mid-round: checked at once
