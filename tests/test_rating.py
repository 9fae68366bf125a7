"""The rating update (core, no database): OpenSkill's own Plackett-Luce results for small
contests, ties, teams and newcomers; the linear evaluation used for large fields against
OpenSkill's quadratic one; the shown number; what a contest of fewer than two sides does."""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest
from openskill.models import PlackettLuce, PlackettLuceRating

from bigboggle import rating
from bigboggle.limits import RATING_FULL_FIELD
from bigboggle.rating import DEFAULT_MU, DEFAULT_SIGMA, Entrant, display, ranks_of, rate

pytestmark = pytest.mark.once

NEW = (DEFAULT_MU, DEFAULT_SIGMA)


def openskill(teams: list[list[tuple[float, float]]], ranks: list[int]) -> list[list[tuple]]:
    """OpenSkill's own answer, straight from the library (a fresh model with its defaults)."""
    model = PlackettLuce()
    rated = model.rate([[model.rating(mu=m, sigma=s) for m, s in t] for t in teams], ranks=ranks)
    return [[(p.mu, p.sigma) for p in team] for team in rated]


def test_the_model_is_openskills_plackett_luce_with_its_defaults() -> None:
    assert isinstance(rating.MODEL, PlackettLuce)
    assert NEW == (25.0, 25.0 / 3.0)
    assert (rating.MODEL.beta, rating.MODEL.tau) == (25.0 / 6.0, 25.0 / 300.0)


def test_two_newcomers_hand_checked() -> None:
    new = rate([Entrant((1,), 30), Entrant((2,), 10)], {})
    # By hand (Weng & Lin's Plackett-Luce for two sides of equal mu): sigma widened by tau,
    # c² = 2 (sigma² + beta²), each side's win probability 1/2, the winner's mu moves by
    # sigma²/c · 1/2 and both sigmas shrink by sqrt(1 - sigma²/c² · sigma/c · 1/4).
    var = DEFAULT_SIGMA**2 + rating.MODEL.tau**2
    c = math.sqrt(2 * (var + rating.MODEL.beta**2))
    step = var / c / 2
    sigma = math.sqrt(var) * math.sqrt(1 - var / c**2 * math.sqrt(var) / c / 4)
    assert new[1] == pytest.approx((DEFAULT_MU + step, sigma), abs=1e-12)
    assert new[2] == pytest.approx((DEFAULT_MU - step, sigma), abs=1e-12)
    assert new[1] == pytest.approx((27.635, 8.066), abs=1e-3)
    assert [new[1], new[2]] == [team[0] for team in openskill([[NEW], [NEW]], [1, 2])]


def test_three_players_with_a_tie_share_a_rank() -> None:
    current = {1: (30.0, 5.0), 2: (25.0, 7.0), 3: (20.0, 8.0)}
    entrants = [Entrant((1,), 12), Entrant((2,), 40), Entrant((3,), 12)]
    assert ranks_of(entrants) == [2, 1, 2]
    new = rate(entrants, current)
    expected = openskill([[current[1]], [current[2]], [current[3]]], [2, 1, 2])
    assert [new[1], new[2], new[3]] == [team[0] for team in expected]
    # With scores= OpenSkill ranks them itself: the same update.
    model = PlackettLuce()
    by_scores = model.rate([[model.rating(*current[a])] for a in (1, 2, 3)], scores=[12, 40, 12])
    assert [new[a] for a in (1, 2, 3)] == [(t[0].mu, t[0].sigma) for t in by_scores]
    assert new[2][0] > current[2][0]  # the winner gains


def test_two_teams_of_two() -> None:
    current = {1: (28.0, 6.0), 2: (22.0, 8.0), 3: (25.0, 4.0)}  # 4 is a newcomer
    new = rate([Entrant((3, 4), 50), Entrant((1, 2), 60)], current)
    expected = openskill([[current[3], NEW], [current[1], current[2]]], [2, 1])
    assert [new[3], new[4]] == expected[0]
    assert [new[1], new[2]] == expected[1]
    # Within a team, the less certain member moves further.
    assert new[2][0] - current[2][0] > new[1][0] - current[1][0] > 0


def test_a_member_against_a_default_newcomer() -> None:
    current = {1: (32.0, 3.0)}
    new = rate([Entrant((1,), 5), Entrant((2,), 9)], current)  # the newcomer wins
    expected = openskill([[current[1]], [NEW]], [2, 1])
    assert [new[1], new[2]] == [expected[0][0], expected[1][0]]
    assert new[2][0] - DEFAULT_MU > 32.0 - new[1][0] > 0  # the unsure one moves more
    assert new[1][0] < 32.0


@pytest.mark.parametrize("field", [2, 3, 5, 12, 40])
def test_invariants_winner_up_loser_down_sigma_shrinks(field: int) -> None:
    rng = random.Random(field)
    current = {a: (rng.uniform(15, 35), rng.uniform(1, 8)) for a in range(field)}
    entrants = [Entrant((a,), field - a) for a in range(field)]  # 0 wins, the last loses
    new = rate(entrants, current)
    assert new[0][0] > current[0][0]
    assert new[field - 1][0] < current[field - 1][0]
    for account, (_, sigma) in new.items():
        # Never past the model's widening by tau (which keeps a settled rating able to move).
        assert sigma < math.hypot(current[account][1], rating.MODEL.tau)
    newcomers = rate(entrants, {})
    if field <= 12:  # (in a big field the first's sigma gains a hair on balance from tau)
        assert all(sigma < DEFAULT_SIGMA for _, sigma in newcomers.values())
    assert all(
        sigma < math.hypot(DEFAULT_SIGMA, rating.MODEL.tau) for _, sigma in newcomers.values()
    )


def test_fewer_than_two_sides_change_nothing() -> None:
    assert rate([], {}) == {}
    assert rate([Entrant((1,), 10)], {}) == {}
    assert rate([Entrant((1, 2), 10), Entrant((), 50)], {}) == {}  # a side with no members
    with pytest.raises(ValueError, match="member 1 is on more than one side"):
        rate([Entrant((1,), 10), Entrant((1, 2), 5)], {})


def test_display_is_the_scaled_ordinal() -> None:
    assert display(*NEW) == 1000  # a newcomer: mu - 3 sigma = 0
    for mu, sigma in ((31.3, 2.2), (12.0, 7.9), (25.0, 1.0)):  # OpenSkill's own ordinal, scaled
        ordinal = PlackettLuceRating(mu, sigma).ordinal(alpha=40, target=1000)
        assert display(mu, sigma) == round(ordinal)
    assert display(30.0, 2.0) == 1000 + 40 * 24
    assert display(20.0, 8.0) == 1000 + 40 * (20 - 24)
    # A win shows a higher number, a loss a lower one.
    new = rate([Entrant((1,), 2), Entrant((2,), 1)], {})
    assert display(*new[1]) > 1000 > display(*new[2])


def random_contest(rng: random.Random, field: int) -> tuple[list[list[tuple]], list[int]]:
    teams = [
        [(rng.uniform(5, 45), rng.uniform(0.5, 8.4)) for _ in range(rng.choice([1, 1, 2, 3]))]
        for _ in range(field)
    ]
    ranks = [rng.randint(1, max(1, field // 3)) for _ in range(field)]  # many ties
    return teams, ranks


@pytest.mark.parametrize("field", [2, 3, 7, 64, 65, 150, 300])
def test_the_linear_update_is_openskills_update(field: int) -> None:
    """How far the large-field evaluation is from the full update: nowhere, to rounding."""
    rng = random.Random(field)
    for _ in range(3):
        teams, ranks = random_contest(rng, field)
        fast = rating._rate_by_prefix_sums(teams, ranks)
        full = openskill(teams, ranks)
        for fast_team, full_team in zip(fast, full, strict=True):
            for (mu, sigma), (full_mu, full_sigma) in zip(fast_team, full_team, strict=True):
                assert mu == pytest.approx(full_mu, abs=1e-9)
                assert sigma == pytest.approx(full_sigma, abs=1e-9)


def test_rate_switches_to_the_linear_update_past_the_full_field() -> None:
    rng = random.Random(5)
    for field in (RATING_FULL_FIELD, RATING_FULL_FIELD + 1):
        entrants = [Entrant((a,), rng.randint(0, 30)) for a in range(field)]
        current = {a: (rng.uniform(15, 35), rng.uniform(2, 8)) for a in range(field)}
        with counted() as calls:
            new = rate(entrants, current)
        assert calls["openskill"] == (1 if field <= RATING_FULL_FIELD else 0)
        expected = openskill([[current[a]] for a in range(field)], ranks_of(entrants))
        for a in range(field):
            assert new[a] == pytest.approx(expected[a][0], abs=1e-9)


@contextmanager
def counted() -> Iterator[dict[str, int]]:
    """Counts, while the block runs, the calls of OpenSkill's ``PlackettLuce.rate`` and of
    ``math.exp`` (one per side in the model's update), as the profiler sees them: the work
    done, measured without a clock. OpenSkill's wheel may be compiled (mypyc: its ``rate``
    is a C call) or plain Python (a Python frame): both are counted."""
    calls = {"openskill": 0, "exp": 0}

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":  # a Python function: OpenSkill installed from its sources
            if frame.f_code.co_qualname.split(".")[-2:] == ["PlackettLuce", "rate"]:
                calls["openskill"] += 1
        elif event == "c_call":
            name = getattr(arg, "__qualname__", "")
            if name == "PlackettLuce.rate":
                calls["openskill"] += 1
            elif getattr(arg, "__name__", "") == "exp":
                calls["exp"] += 1

    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(None)


def test_the_large_field_work_is_linear() -> None:
    """The work grows with the field, not its square: one exp per side, no OpenSkill call."""
    rng = random.Random(9)
    work = {}
    for field in (1_000, 4_000):
        entrants = [Entrant((a,), rng.randint(0, 400)) for a in range(field)]
        with counted() as calls:
            new = rate(entrants, {})
        assert len(new) == field
        assert calls["openskill"] == 0
        work[field] = calls["exp"]
    assert work == {1_000: 1_000, 4_000: 4_000}


def test_the_count_sees_openskill_as_python_too() -> None:
    """OpenSkill installed from its sources (no compiled wheel for the platform) runs
    ``PlackettLuce.rate`` as a Python function: the count sees it all the same."""

    class PlackettLuce:  # the shape of OpenSkill's class, plain Python
        def rate(self) -> float:
            return math.exp(0.0)

    with counted() as calls:
        PlackettLuce().rate()
    assert calls == {"openskill": 1, "exp": 1}
