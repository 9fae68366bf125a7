"""Ratings: OpenSkill (Plackett-Luce) updates of a contest's entrants, as a pure function.

A contest is a rated room game (ranked by its final totals: a free-for-all, or teams) or a day's
daily board of one preset (ranked by score). Ratings are kept per preset family, by board size
(:func:`family_of`): a 4×4 game says little about a 6×6 one. Only members are rated: the
service gives the entrants (members, with their ratings) and stores what comes back; this
module opens no database and reads no clock.

**The model.** OpenSkill's Plackett-Luce model with its defaults (a newcomer is mu 25, sigma
25/3; beta 25/6, tau 25/300): it rates a whole ranking at once, any number of sides, teams
included, which is what a room game and a daily board are. (Bradley-Terry and
Thurstone-Mosteller reduce a ranking to pairs: "full" compares every pair, the quadratic cost
without Plackett-Luce's single model of a ranking; "part" compares neighbours only. Elo and
Glicko are for two sides.) Ratings are OpenSkill's own mu and sigma, stored and answered as
they are; :func:`display` turns them into the number a player sees.

**Large fields.** OpenSkill evaluates Plackett-Luce by looping over every pair of sides, so
its cost grows with the square of the field (``benchmarks/bench_ratings.py`` on this 2-core
machine: 0.1-0.4 s for 1,000 sides, 4 s for 3,000, so some 40 s for a daily board of 10,000).
But the sums in the update are prefix sums in rank order: for side *i*,
``omega_i = 1/a_i - x_i * sum(1/S_g)`` and ``delta_i = sum(x_i/S_g * (1 - x_i/S_g))`` over the
rank levels *g* from the first to its own, where ``x = exp(mu/c)`` and ``S_g`` is the sum of
``x`` over the sides placed at level *g* or below. :func:`rate` therefore hands a field of up
to :data:`~bigboggle.limits.RATING_FULL_FIELD` sides to OpenSkill itself and evaluates the
same update by those sums beyond it (:func:`_rate_by_prefix_sums`): one pass after sorting,
so linear in the field (0.05-0.15 s for 10,000 sides), and the same numbers:
``tests/test_rating.py`` checks it against OpenSkill on fields of up to 300 sides with ties and
teams (agreement to 1e-9) and counts its work. Rating the field in windows of neighbours
instead (the usual bounded scheme) would not be close: the model's scale ``c`` grows with the
square root of the field, so a window of 64 would move the winner of a field of 10,000 about
``sqrt(10,000 / 64)``, 12 times, as far as the full update does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .limits import RATING_FULL_FIELD

#: The model every rating is kept in (OpenSkill's defaults).
MODEL = PlackettLuce()
#: A newcomer's rating: the model's own default.
DEFAULT_MU: float = MODEL.mu
DEFAULT_SIGMA: float = MODEL.sigma
#: The shown number: ``DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 sigma)``, OpenSkill's ordinal (a
#: skill the player is 99.7 % sure to have) scaled so a newcomer shows 1000 and one point of
#: mu is 40 of it: a range (roughly 600 to 2500) that reads like the ratings of other games.
DISPLAY_BASE = 1000.0
DISPLAY_SCALE = 40.0


def family_of(rows: int, cols: int) -> str:
    """The rating family of a board of ``rows`` × ``cols`` cubes: ``"4x4"``, ``"5x5"``,
    ``"6x6"`` (any other size: its own family, written the same way)."""
    return f"{rows}x{cols}"


@dataclass(frozen=True)
class Entrant:
    """One side of a contest: a member, or a team of members (their account ids), and the
    points it finished with (higher is better; equal points tie)."""

    account_ids: tuple[int, ...]
    score: int


def display(mu: float, sigma: float) -> int:
    """The rating a player sees: OpenSkill's ordinal ``mu - 3 sigma`` as
    ``1000 + 40 * ordinal``, rounded (a newcomer: 1000). It rises as a player wins and as the
    model grows surer of them, so a lucky first game does not top a leaderboard."""
    # OpenSkill's PlackettLuceRating(mu, sigma).ordinal(alpha=40, target=1000), written out:
    # making a rating object draws a random id, which a field of 10,000 would feel.
    return round(DISPLAY_SCALE * (mu - 3.0 * sigma) + DISPLAY_BASE)


def ranks_of(entrants: Sequence[Entrant]) -> list[int]:
    """Each entrant's place by score (1 is best; equal scores share the better place, as in
    "1, 1, 3")."""
    scores = sorted((e.score for e in entrants), reverse=True)
    first: dict[
        int, int
    ] = {}  # score -> its better place (one pass over the sorted scores: linear after it)
    for place, score in enumerate(scores, start=1):
        first.setdefault(score, place)
    return [first[e.score] for e in entrants]


def rate(
    entrants: Sequence[Entrant], current: Mapping[int, tuple[float, float]]
) -> dict[int, tuple[float, float]]:
    """The new ``(mu, sigma)`` of every member among ``entrants`` after the contest, ranked by
    score (ties share a rank), from ``current`` (account id -> ``(mu, sigma)``; a member missing
    from it starts at the model's default). An entrant with several members is a team. A
    contest with fewer than two entrants changes nothing (an empty answer). A member may be
    on one side only (:class:`ValueError` otherwise); an entrant without members is ignored."""
    sides = [e for e in entrants if e.account_ids]
    if len(sides) < 2:
        return {}
    seen: set[int] = set()
    for side in sides:
        for account in side.account_ids:
            if account in seen:
                raise ValueError(f"member {account} is on more than one side of the contest")
            seen.add(account)
    teams = [
        [current.get(account, (DEFAULT_MU, DEFAULT_SIGMA)) for account in side.account_ids]
        for side in sides
    ]
    ranks = ranks_of(sides)
    if len(sides) <= RATING_FULL_FIELD:
        updated = _rate_with_openskill(teams, ranks)
    else:
        updated = _rate_by_prefix_sums(teams, ranks)
    return {
        account: rating
        for side, new in zip(sides, updated, strict=True)
        for account, rating in zip(side.account_ids, new, strict=True)
    }


Team = list[tuple[float, float]]


def _rate_with_openskill(teams: list[Team], ranks: list[int]) -> list[Team]:
    """OpenSkill's own Plackett-Luce update (quadratic in the number of sides)."""
    rated = MODEL.rate(
        [[MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in teams],
        ranks=[float(rank) for rank in ranks],
    )
    return [[(player.mu, player.sigma) for player in team] for team in rated]


def _rate_by_prefix_sums(teams: list[Team], ranks: list[int]) -> list[Team]:
    """The same update as :func:`_rate_with_openskill` (OpenSkill 6's ``PlackettLuce.rate`` with
    the default gamma, no weights, margin or balance), evaluated in one pass over the sides
    sorted by rank: linear in the field after the sort (see the module's docstring)."""
    tau_squared = MODEL.tau**2
    # Each player's sigma widened by tau first, as OpenSkill does before the update.
    widened = [[(mu, math.sqrt(sigma * sigma + tau_squared)) for mu, sigma in t] for t in teams]
    team_mu = [sum(mu for mu, _ in team) for team in widened]
    team_var = [sum(sigma * sigma for _, sigma in team) for team in widened]
    c = math.sqrt(sum(var + MODEL.beta**2 for var in team_var))
    top = max(team_mu)  # exp((mu - top) / c): the same ratios as exp(mu / c), without overflow
    x = [math.exp((mu - top) / c) for mu in team_mu]

    levels = sorted(set(ranks))
    level_of = {rank: index for index, rank in enumerate(levels)}
    in_level = [0.0] * len(levels)
    size = [0] * len(levels)
    for side, rank in enumerate(ranks):
        in_level[level_of[rank]] += x[side]
        size[level_of[rank]] += 1
    # S_g: the sides at level g or below; then the sums of 1/S and 1/S² up to each level.
    at_or_below = [0.0] * len(levels)
    running = 0.0
    for level in reversed(range(len(levels))):
        running += in_level[level]
        at_or_below[level] = running
    inverse_sum: list[float] = []
    inverse_square_sum: list[float] = []
    one, two = 0.0, 0.0
    for total in at_or_below:
        one += 1.0 / total
        two += 1.0 / (total * total)
        inverse_sum.append(one)
        inverse_square_sum.append(two)

    updated: list[Team] = []
    for side, team in enumerate(widened):
        level = level_of[ranks[side]]
        xi, var = x[side], team_var[side]
        omega = (1.0 / size[level] - xi * inverse_sum[level]) * var / c
        delta = (xi * inverse_sum[level] - xi * xi * inverse_square_sum[level]) * var / c**2
        delta *= math.sqrt(var) / c  # OpenSkill's default gamma
        updated.append(
            [
                (
                    mu + sigma * sigma / var * omega,
                    sigma * math.sqrt(max(1.0 - sigma * sigma / var * delta, MODEL.kappa)),
                )
                for mu, sigma in team
            ]
        )
    return updated
