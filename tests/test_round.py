"""The game state machine: start, private verdicts while running, the deadline, the end.

The board is ``LINES/TQuARD/HEMOP/ABCKI/PSTEW`` (see tests/test_scoring.py for a map). With
the dictionary below, words on it (traced by hand): line, lines, mare, mares, roam, quit,
quilt; "mear" is on it but not in the dictionary; "nile" and "dogs" are not on it.
"""

from __future__ import annotations

import re

import pytest

from bigboggle import (
    Board,
    Dictionary,
    GameStateError,
    Phase,
    Round,
    RoundInputError,
    Rules,
    Verdict,
    shake,
)

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
WORDS = Dictionary.from_words(
    ["line", "lines", "mare", "mares", "roam", "quit", "quilt", "ram", "nile", "dogs"]
)
BIG = Rules.preset("big")


def new_game(*players: str, rules: Rules = BIG) -> Round:
    return Round(BOARD, rules, WORDS, players or ("ann", "bob"))


def phase_of(game: Round) -> Phase:
    """The phase, read through a call so type checkers do not narrow it across actions."""
    return game.phase


def test_a_new_game_is_ready() -> None:
    game = new_game()
    assert game.phase is Phase.READY
    assert game.players == ("ann", "bob")
    assert game.board == Board.parse(BOARD)
    assert game.deadline is None
    assert game.started_at is None
    assert game.time_left(0.0) == 0.0
    assert game.result is None


def test_start_sets_the_deadline_from_the_rules_timer() -> None:
    game = new_game()
    assert BIG.timer == 180
    assert game.start(100.0) == 280.0
    assert game.phase is Phase.RUNNING
    assert game.started_at == 100.0
    assert game.deadline == 280.0


def test_time_left() -> None:
    game = new_game()
    game.start(100.0)
    assert game.time_left(100.0) == 180.0
    assert game.time_left(130.0) == 150.0
    assert game.time_left(280.0) == 0.0
    assert game.time_left(999.0) == 0.0
    assert not game.is_over(279.9)
    assert game.is_over(280.0)


def test_custom_duration() -> None:
    game = new_game()
    assert game.start(0.0, duration=60) == 60.0
    assert game.time_left(15.0) == 45.0
    game.submit("ann", "line", 59.9)
    with pytest.raises(GameStateError):
        game.submit("ann", "lines", 60.0)


def test_custom_timer_in_the_rules() -> None:
    game = new_game(rules=Rules.preset("big", timer=90))
    assert game.start(10.0) == 100.0


@pytest.mark.parametrize("duration", [0, -5, True, "60"])
def test_bad_duration(duration: object) -> None:
    game = new_game()
    with pytest.raises(GameStateError):
        game.start(0.0, duration=duration)  # type: ignore[arg-type]
    assert game.phase is Phase.READY


def test_start_only_once() -> None:
    game = new_game()
    game.start(0.0)
    with pytest.raises(GameStateError):
        game.start(1.0)


def test_submit_before_start_is_refused() -> None:
    game = new_game()
    with pytest.raises(GameStateError):
        game.submit("ann", "lines", 0.0)
    assert game.words_of("ann") == ()


def test_submit_gives_an_immediate_private_verdict() -> None:
    game = new_game()
    game.start(0.0)
    lines = game.submit("ann", "lines", 1.0)
    assert (lines.word, lines.verdict, lines.score, lines.bonus) == ("lines", Verdict.SCORED, 2, 0)
    assert lines.path == ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4))
    quilt = game.submit("ann", "Quilt", 2.0)
    assert (quilt.word, quilt.verdict, quilt.score) == ("quilt", Verdict.SCORED, 2)
    assert game.submit("ann", "nile", 3.0).verdict is Verdict.NOT_ON_BOARD
    assert game.submit("ann", "mear", 4.0).verdict is Verdict.NOT_IN_DICTIONARY
    assert game.submit("ann", "ram", 5.0).verdict is Verdict.TOO_SHORT
    assert game.submit("ann", "d0g", 6.0).verdict is Verdict.NOT_A_WORD
    assert game.submit("ann", "NILE", 7.0).verdict is Verdict.REPEATED
    assert game.words_of("ann") == ("lines", "Quilt", "nile", "mear", "ram", "d0g")


def test_repeated_submission_is_not_stored_twice() -> None:
    game = new_game()
    game.start(0.0)
    assert game.submit("ann", "Lines", 1.0).verdict is Verdict.SCORED
    repeated = game.submit("ann", " lines ", 2.0)
    assert repeated.verdict is Verdict.REPEATED
    assert repeated.score == 0
    assert game.words_of("ann") == ("Lines",)
    assert len(game.submissions) == 1
    # Another player's list is separate.
    assert game.submit("bob", "lines", 3.0).verdict is Verdict.SCORED


def test_submissions_record_player_time_and_verdict() -> None:
    game = new_game()
    game.start(0.0)
    game.submit("ann", "line", 1.5)
    game.submit("bob", "dogs", 2.5)
    [first, second] = game.submissions
    assert (first.player, first.at, first.result.verdict) == ("ann", 1.5, Verdict.SCORED)
    assert (second.player, second.at, second.result.verdict) == ("bob", 2.5, Verdict.NOT_ON_BOARD)


def test_check_stores_nothing() -> None:
    game = new_game()
    game.start(0.0)
    assert game.check("ann", "mare").verdict is Verdict.SCORED
    assert game.words_of("ann") == ()
    assert game.submit("ann", "mare", 1.0).verdict is Verdict.SCORED


def test_submit_at_or_after_the_deadline_is_refused() -> None:
    game = new_game()
    game.start(0.0)
    with pytest.raises(GameStateError):
        game.submit("ann", "lines", 180.0)
    with pytest.raises(GameStateError):
        game.submit("ann", "lines", 500.0)
    assert game.words_of("ann") == ()


def test_unknown_player() -> None:
    game = new_game()
    game.start(0.0)
    with pytest.raises(RoundInputError, match="zed"):
        game.submit("zed", "lines", 1.0)
    with pytest.raises(RoundInputError, match="zed"):
        game.words_of("zed")


def test_non_text_word_is_refused() -> None:
    game = new_game()
    game.start(0.0)
    with pytest.raises(RoundInputError):
        game.submit("ann", 42, 1.0)  # type: ignore[arg-type]


def test_add_player_rules() -> None:
    game = new_game()
    game.add_player("cid")
    assert game.players == ("ann", "bob", "cid")
    with pytest.raises(RoundInputError, match="ann"):
        game.add_player("ann")
    with pytest.raises(RoundInputError):
        game.add_player("  ")
    game.start(0.0)
    game.add_player("dee")  # joining a running round is allowed
    game.end(1.0, early=True)
    with pytest.raises(GameStateError):
        game.add_player("eve")


def test_end_before_the_deadline_needs_early() -> None:
    game = new_game()
    game.start(0.0)
    with pytest.raises(GameStateError):
        game.end(100.0)
    assert game.phase is Phase.RUNNING
    result = game.end(100.0, early=True)
    assert phase_of(game) is Phase.ENDED
    assert game.result is result


def test_end_before_start_is_refused() -> None:
    game = new_game()
    with pytest.raises(GameStateError):
        game.end(0.0, early=True)


def test_a_round_with_no_players_cannot_start() -> None:
    game = Round(BOARD, BIG, WORDS)
    with pytest.raises(GameStateError, match="no players"):
        game.start(0.0)
    assert game.phase is Phase.READY


def test_end_at_the_deadline_scores_with_crossing_off() -> None:
    game = new_game()
    game.start(0.0)
    # While running, both players' "mare" is good so far.
    assert game.submit("ann", "mare", 1.0).verdict is Verdict.SCORED
    assert game.submit("ann", "lines", 2.0).verdict is Verdict.SCORED
    assert game.submit("bob", "MARE", 3.0).verdict is Verdict.SCORED
    assert game.submit("bob", "roam", 4.0).verdict is Verdict.SCORED
    result = game.end(180.0)
    assert [(w.word, w.verdict) for w in result.players["ann"].words] == [
        ("mare", Verdict.CROSSED_OFF),
        ("lines", Verdict.SCORED),
    ]
    assert [(w.word, w.verdict) for w in result.players["bob"].words] == [
        ("mare", Verdict.CROSSED_OFF),
        ("roam", Verdict.SCORED),
    ]
    assert result.scores == {"ann": 2, "bob": 1}
    assert result.ranking == ["ann", "bob"]
    assert str(result.board) == "LINES/TQuARD/HEMOP/ABCKI/PSTEW"
    # Ending again gives the same result; the clock is then over.
    assert game.end(500.0) is result
    assert game.time_left(100.0) == 0.0
    assert game.is_over(100.0)
    with pytest.raises(GameStateError):
        game.submit("ann", "quit", 100.0)


def test_game_with_handicap() -> None:
    game = Round(BOARD, BIG, WORDS, ["kid", "ann"], min_length={"kid": 3})
    game.start(0.0)
    kid = game.submit("kid", "ram", 1.0)
    assert (kid.verdict, kid.score) == (Verdict.SCORED, 1)
    assert game.submit("ann", "ram", 2.0).verdict is Verdict.TOO_SHORT
    result = game.end(10.0, early=True)
    assert result.scores == {"kid": 1, "ann": 0}


def test_game_with_teams() -> None:
    game = Round(
        BOARD, BIG, WORDS, ["ann", "bob", "cid"], teams={"red": ["ann", "bob"], "blue": ["cid"]}
    )
    game.start(0.0)
    game.submit("ann", "lines", 1.0)
    game.submit("bob", "lines", 2.0)
    game.submit("bob", "quit", 3.0)
    game.submit("cid", "quit", 4.0)
    game.submit("cid", "mares", 5.0)
    result = game.end(180.0)
    assert result.teams is not None
    # lines counts once for red; quit is on both teams' lists, so crossed off.
    assert result.scores == {"red": 2, "blue": 2}
    assert result.teams["red"].words == {"lines": 2}
    assert result.teams["blue"].words == {"mares": 2}


def test_private_verdict_includes_the_challenge_bonus() -> None:
    # COATS/XXXT*X/POSEX: "coat" can run through the cube at (1, 3); "pose" cannot.
    words = Dictionary.from_words(["coat", "pose"])
    game = Round("COATS/XXXT*X/POSEX", BIG, words, ["ann"])
    game.start(0.0)
    coat = game.submit("ann", "coat", 1.0)
    assert (coat.score, coat.bonus) == (6, 5)
    assert coat.path is not None and (1, 3) in coat.path
    pose = game.submit("ann", "pose", 2.0)
    assert (pose.score, pose.bonus) == (1, 0)
    assert game.end(3.0, early=True).scores == {"ann": 7}


def test_shaken_game_uses_the_seeded_shake() -> None:
    game = Round.shaken(Rules.preset("big"), WORDS, ["ann"], seed=5)
    expected = shake("big", 5)
    assert game.board == expected.board
    assert game.dealt == expected
    assert game.board.size == (5, 5)
    assert game.board.challenge is None
    assert game.players == ("ann",)
    assert Round.shaken(Rules.preset("big"), WORDS, ["ann"], seed=5).board == game.board


def test_shaken_game_with_the_challenge_cube() -> None:
    game = Round.shaken(Rules.preset("big", challenge=True), WORDS, ["ann"], seed=5)
    assert game.board == shake("big", 5, challenge=True).board
    assert game.board.challenge is not None


def test_a_bad_handicap_is_refused_before_the_round_starts() -> None:
    game = Round(BOARD, BIG, WORDS, ["ann"], min_length={"zed": 3})
    with pytest.raises(RoundInputError, match=re.escape("min_length.zed")):
        game.start(0.0)
    assert game.phase is Phase.READY
    game.add_player("zed")  # now the handicap names a player, and the round can start
    game.start(0.0)
    assert game.submit("zed", "pst", 1.0).verdict is not Verdict.TOO_SHORT


def test_bad_settings_are_refused_up_front() -> None:
    with pytest.raises(RoundInputError, match="min_length"):
        Round(BOARD, BIG, WORDS, ["ann"], min_length=3)  # type: ignore[arg-type]
    with pytest.raises(RoundInputError, match="longer than"):
        Round(BOARD, BIG, WORDS, ["x" * 41])
    game = Round(BOARD, BIG, WORDS, ["ann"], min_length={"ann": 2})
    with pytest.raises(RoundInputError, match=re.escape("min_length.ann")):
        game.start(0.0)
    teams = Round(BOARD, BIG, WORDS, ["ann"], teams={"red": ["bob"]})
    with pytest.raises(RoundInputError, match=re.escape("teams.red[0]")):
        teams.start(0.0)


@pytest.mark.parametrize("now", [float("nan"), float("inf"), "0"])
def test_the_clock_must_be_a_finite_number(now: object) -> None:
    game = new_game()
    with pytest.raises(GameStateError, match="finite"):
        game.start(now)  # type: ignore[arg-type]
    game.start(0.0)
    with pytest.raises(GameStateError, match="finite"):
        game.submit("ann", "lines", now)  # type: ignore[arg-type]


def test_durations_must_be_finite_and_words_not_before_the_start() -> None:
    with pytest.raises(GameStateError, match="duration"):
        new_game().start(0.0, float("inf"))
    game = new_game()
    game.start(100.0)
    with pytest.raises(GameStateError, match="before the round started"):
        game.submit("ann", "lines", 99.0)


# -- a round restored from stored state ----------------------------------------------------------


def resumed(
    *players: str, started_at: float = 100.0, deadline: float = 280.0, **kw: object
) -> Round:
    return Round.resume(
        BOARD,
        BIG,
        WORDS,
        players or ("ann", "bob"),
        started_at=started_at,
        deadline=deadline,
        **kw,  # type: ignore[arg-type]
    )


def test_a_resumed_round_is_running_with_its_clock() -> None:
    game = resumed()
    assert game.phase is Phase.RUNNING
    assert (game.started_at, game.deadline) == (100.0, 280.0)
    assert game.players == ("ann", "bob") and game.words_of("ann") == ()
    assert game.time_left(200.0) == 80.0


@pytest.mark.parametrize(
    ("player", "now", "error", "message"),
    [
        ("ann", 99.0, GameStateError, "not started yet"),
        ("ann", 280.0, GameStateError, "time is up"),
        ("ann", 900.0, GameStateError, "time is up"),
        ("zed", 150.0, RoundInputError, "'zed' is not in this game"),
    ],
    ids=["before-start", "at-deadline", "after-deadline", "unknown-player"],
)
def test_a_resumed_round_refuses_what_a_round_refuses(
    player: str, now: float, error: type[Exception], message: str
) -> None:
    live = new_game()
    live.start(100.0, 180.0)
    for game in (live, resumed()):
        with pytest.raises(error, match=message):
            game.submit(player, "lines", now)
        with pytest.raises(error, match=message):
            game.judge_next(player, "lines", now, earlier=set(), count=0)


def test_a_resumed_round_refuses_a_full_list_as_a_round_does() -> None:
    from bigboggle.limits import MAX_LIST_LENGTH

    game = resumed()
    full = {"line"}
    with pytest.raises(RoundInputError, match=f"{MAX_LIST_LENGTH} words; no more fit"):
        game.judge_next("ann", "lines", 150.0, earlier=full, count=MAX_LIST_LENGTH)
    # A repeat is answered (not stored: nothing to refuse).
    again = game.judge_next("ann", "line", 150.0, earlier=full, count=MAX_LIST_LENGTH)
    assert again.verdict is Verdict.REPEATED


def test_a_resumed_round_judges_and_scores_as_a_live_one() -> None:
    lists = {"ann": ["lines", "quit", "mear", "lines"], "kid": ["ram", "quit", "nile"]}
    handicaps = {"kid": 3}
    live = Round(BOARD, BIG, WORDS, list(lists), min_length=handicaps)
    live.start(100.0, 180.0)
    back = resumed(*lists, min_length=handicaps)
    for player, words in lists.items():
        for at, word in enumerate(words):
            now = 101.0 + at
            assert back.submit(player, word, now) == live.submit(player, word, now)
    assert back.end(300.0) == live.end(300.0)
    assert back.result is not None and back.result.players["kid"].min_length == 3


def test_a_resumed_round_takes_a_judge_made_for_it() -> None:
    from bigboggle.judge import Judge

    judge = Judge(Board.parse(BOARD), BIG, WORDS)
    game = resumed(judge=judge)
    assert game.judge_next("ann", "lines", 150.0, earlier=set(), count=0).verdict is Verdict.SCORED
    other = Judge(Board.parse("ABCD/EFGH/IJKL/MNOP"), BIG, WORDS)
    with pytest.raises(RoundInputError, match="judge: it was made for another board"):
        resumed(judge=other)
    with pytest.raises(RoundInputError, match="judge"):
        resumed(judge=Judge(Board.parse(BOARD), Rules.preset("big", timer=60), WORDS))


@pytest.mark.parametrize(
    ("started_at", "deadline", "message"),
    [(float("nan"), 10.0, "finite"), (0.0, float("inf"), "finite"), (10.0, 5.0, "before")],
)
def test_a_resumed_round_needs_a_clock_that_makes_sense(
    started_at: float, deadline: float, message: str
) -> None:
    with pytest.raises(GameStateError, match=message):
        resumed(started_at=started_at, deadline=deadline)


def test_a_resumed_round_takes_its_setup_as_stored_and_checks_it_at_the_end() -> None:
    # Restoring does not re-decide the setup (it was checked when the round started); ending
    # scores it through the same check as any round.
    game = resumed("ann", "bob", teams={"red": ["ann"]})
    game.submit("ann", "lines", 150.0)
    with pytest.raises(RoundInputError, match="'bob' is on no team"):
        game.end(300.0)


# -- the clock check and the word check a service calls first ------------------------------------


def test_a_restored_round_counting_down_says_only_that_it_has_not_started() -> None:
    """What a room's player reads during the 3-second countdown, word for word (room.js shows
    it): no timestamps."""
    with pytest.raises(GameStateError) as refused:
        resumed().check_clock(99.0)
    assert str(refused.value) == "the round has not started yet"


def test_a_clock_gone_backwards_past_a_live_start_says_when() -> None:
    game = new_game()
    game.start(100.0)
    with pytest.raises(GameStateError, match=r"now=99\.0 is before the round started \(100\.0\)"):
        game.check_clock(99.0)


@pytest.mark.parametrize(
    ("now", "message"),
    [(280.0, "time is up: the round's deadline has passed"), (float("nan"), "finite")],
    ids=["at-deadline", "not-a-time"],
)
def test_check_clock_refuses_what_submit_refuses_for_the_time(now: float, message: str) -> None:
    with pytest.raises(GameStateError, match=message):
        resumed().check_clock(now)


def test_check_clock_before_the_start_and_while_open() -> None:
    with pytest.raises(GameStateError, match=r"^the round has not started yet$"):
        new_game().check_clock(0.0)
    resumed().check_clock(100.0)  # open from the start on: nothing raised
    resumed().check_clock(279.9)


def test_check_clock_knows_nothing_of_players() -> None:
    """A stranger's word out of time is refused for the time: the clock is checked first."""
    with pytest.raises(GameStateError, match="time is up"):
        resumed().judge_next("zed", "lines", 300.0, earlier=set(), count=0)


def test_check_entry_strips_a_word() -> None:
    from bigboggle.round import check_entry

    assert check_entry("  lines \n") == "lines"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("", "word: expected a word, not ''"),
        ("   ", "word: expected a word, not '   '"),
        (None, "word: expected a word, not None"),
        (7, "word: expected a word, not 7"),
    ],
    ids=["empty", "blank", "none", "number"],
)
def test_check_entry_refuses_what_is_not_a_word(entry: object, message: str) -> None:
    from bigboggle.round import check_entry

    with pytest.raises(RoundInputError, match=f"^{re.escape(message)}$"):
        check_entry(entry)


def test_check_entry_takes_words_up_to_the_limit_and_no_longer() -> None:
    from bigboggle.limits import MAX_ENTRY_LENGTH
    from bigboggle.round import check_entry

    assert check_entry("a" * MAX_ENTRY_LENGTH) == "a" * MAX_ENTRY_LENGTH
    with pytest.raises(RoundInputError) as refused:
        check_entry("a" * (MAX_ENTRY_LENGTH + 1))
    message = str(refused.value)
    assert message.startswith("word: 'aaaa")
    assert message.endswith(
        f"is {MAX_ENTRY_LENGTH + 1} characters; the limit is {MAX_ENTRY_LENGTH}"
    )
    assert len(message) < 100  # a bounded excerpt, not the whole entry
