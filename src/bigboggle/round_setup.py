"""Who plays a round and how: the one check of players, teams and handicaps.

Every front end and service checks a round's setup here, so the same mistake gets the same
message everywhere (the score JSON, a room's settings, the terminal game, :class:`Round`); the
caller passes ``where``, the key its input calls the thing (``teams``, ``settings.teams``), and
messages start with it, naming the entry at fault (``teams.red[1]``, ``min_length.kid``).

Three steps, each for when the caller knows enough:

1. **Shape** (:func:`clean_teams`, :func:`clean_handicaps`), before anyone is seated: names in
   their normal form (:func:`bigboggle.names.clean_name`), no two alike
   (:func:`bigboggle.names.name_key`), nobody on two teams, minimum word lengths
   :data:`~bigboggle.rules.MIN_WORD_LENGTH` to :data:`~bigboggle.rules.MAX_WORD_LENGTH`, and
   every count bounded (``limit``) before the entries are read.
2. **Seating** (:func:`seat_teams`, :func:`seat_handicaps`): each name matched, by its key, to
   a player of the round, and spelled as that player is (``ANN`` is ``Ann``, if Ann plays).
3. **Consistency** (:func:`check_setup`), when the players are known: every team member and
   every handicapped player is one of them, spelled as they are; in team play every player is
   on a team, and team rules need teams (:func:`require_teams`, :func:`team_of`: also for a
   stored round restored with its names as they were).

:func:`settle_setup` does all three, for a caller that has typed names and the players.

**One team is a valid setup.** A round with a single team is team play in which nothing can be
crossed off between teams (its members' common words count once, as always): a room keeps it
when the host removes every member of the other teams, and a table may play it together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .errors import RoundInputError, kind_of, quoted
from .limits import MAX_NAME_LENGTH, MAX_PLAYERS
from .names import clean_name, name_key
from .rules import MAX_WORD_LENGTH, MIN_WORD_LENGTH, Rules

__all__ = [
    "RoundSetup",
    "check_distinct",
    "check_name",
    "check_setup",
    "clean_handicaps",
    "clean_teams",
    "require_teams",
    "same_name_error",
    "seat_handicaps",
    "seat_teams",
    "settle_setup",
    "team_of",
]

#: How a member or handicap that names nobody is described by default.
ONE_OF_THE_PLAYERS = "one of the players"


@dataclass(frozen=True)
class RoundSetup:
    """Who plays a round and how: each player's minimum length and, in team play, their team."""

    minimums: dict[str, int]
    team_of: dict[str, str] | None


# -- names ------------------------------------------------------------------------------------


def check_name(name: object, where: str) -> str:
    """A player's or team's name in its normal form (:func:`bigboggle.names.clean_name`:
    NFKC, no invisible or control characters, at most MAX_NAME_LENGTH), so every name in the
    library is checked the same way; :class:`RoundInputError` says what is wrong and where."""
    return clean_name(name, where)


def check_distinct(names: Iterable[object], where: str) -> None:
    """Refuse two names that people could not tell apart: ``ann`` and ``ANN``, or ``ann`` with
    a Cyrillic ``а`` (compared by :func:`bigboggle.names.name_key`)."""
    seen: dict[str, object] = {}
    for name in names:
        key = name_key(clean_name(name, where))
        if key in seen:
            raise same_name_error(where, seen[key], name)
        seen[key] = name


def same_name_error(where: str, first: object, second: object) -> RoundInputError:
    """The error for two names that :func:`bigboggle.names.name_key` says are alike; a name
    with letters outside ASCII is also shown escaped, so the difference can be seen."""

    def shown(name: object) -> str:
        text = quoted(name)
        return text if text.isascii() else f"{text} (that is, {ascii(name)[: MAX_NAME_LENGTH * 3]})"

    return RoundInputError(
        f"{where}: {shown(first)} and {shown(second)} are the same name (names are compared "
        "ignoring case, width and look-alike letters); give each its own"
    )


# -- 1. shape ---------------------------------------------------------------------------------


def clean_teams(
    teams: object, where: str = "teams", *, limit: int = MAX_PLAYERS
) -> dict[str, list[str]]:
    """``teams`` (team name -> list of members' names) with every name in its normal form;
    :class:`RoundInputError`, starting with ``where``, if it is not an object of at least one
    and at most ``limit`` teams, with more than ``limit`` members in all, two teams whose names
    are alike, a team without members, a name that is not one, or somebody on two teams (or
    twice on one). Members are not matched to players here (see :func:`seat_teams`)."""
    if not isinstance(teams, Mapping) or not teams:
        raise RoundInputError(
            f"{where}: expected an object of team name -> list of players' names (at least "
            f"one team), not {kind_of(teams)}"
        )
    if len(teams) > limit:
        raise RoundInputError(f"{where}: {len(teams)} entries; the limit is {limit}")
    members = sum(len(listed) for listed in teams.values() if isinstance(listed, list | tuple))
    if members > limit:  # each player plays for one team
        raise RoundInputError(
            f"{where}: {members} members in all; the limit is {limit}, as for players"
        )
    cleaned: dict[str, list[str]] = {}
    team_keys: dict[str, object] = {}
    placed: dict[str, str] = {}  # member's key -> their team
    for raw_team, listed in teams.items():
        team = clean_name(raw_team, where)
        if name_key(team) in team_keys:
            raise same_name_error(where, team_keys[name_key(team)], raw_team)
        team_keys[name_key(team)] = raw_team
        key = f"{where}.{team}"
        if isinstance(listed, str) or not isinstance(listed, Sequence) or not listed:
            raise RoundInputError(
                f"{key}: expected a non-empty list of players' names, not {kind_of(listed)}"
            )
        cleaned[team] = []
        for i, raw_member in enumerate(listed):
            member = clean_name(raw_member, f"{key}[{i}]")
            other = placed.get(name_key(member))
            if other is not None:
                raise RoundInputError(
                    f"{key}[{i}]: {quoted(raw_member)} is already on team {quoted(other)}; "
                    "nobody plays in two teams, or twice in one"
                )
            placed[name_key(member)] = team
            cleaned[team].append(member)
    return cleaned


def clean_handicaps(
    handicaps: object, where: str = "min_length", *, limit: int = MAX_PLAYERS
) -> dict[str, int]:
    """``handicaps`` (player's name -> their shortest word) with every name in its normal form;
    :class:`RoundInputError`, starting with ``where``, if it is not an object of at most
    ``limit`` entries, a name is not one or is alike another's, or a length is not a whole
    number from MIN_WORD_LENGTH to MAX_WORD_LENGTH. Names are not matched to players here
    (see :func:`seat_handicaps`)."""
    if not isinstance(handicaps, Mapping):
        raise RoundInputError(
            f"{where}: expected an object of player -> shortest word length, not {kind_of(handicaps)}"
        )
    if len(handicaps) > limit:
        raise RoundInputError(f"{where}: {len(handicaps)} entries; the limit is {limit}")
    cleaned: dict[str, int] = {}
    seen: dict[str, str] = {}
    for raw_name, shortest in handicaps.items():
        name = clean_name(raw_name, where)
        key = f"{where}.{name}"
        if isinstance(shortest, bool) or not isinstance(shortest, int):
            raise RoundInputError(f"{key}: expected a whole number, not {kind_of(shortest)}")
        if not MIN_WORD_LENGTH <= shortest <= MAX_WORD_LENGTH:
            raise RoundInputError(
                f"{key}: {quoted(shortest, 12)} must be a word length between "
                f"{MIN_WORD_LENGTH} and {MAX_WORD_LENGTH}"
            )
        first = seen.get(name_key(name))
        if first is not None:
            raise RoundInputError(f"{key}: {quoted(first)} has a handicap already")
        seen[name_key(name)] = name
        cleaned[name] = shortest
    return cleaned


# -- 2. seating -------------------------------------------------------------------------------


def seat_teams(
    teams: Mapping[str, Sequence[str]],
    players: Iterable[str],
    where: str = "teams",
    *,
    among: str = ONE_OF_THE_PLAYERS,
) -> dict[str, list[str]]:
    """Clean ``teams`` (from :func:`clean_teams`) with each member spelled as the player of
    ``players`` it names (matched by :func:`bigboggle.names.name_key`); a member who names
    nobody is a :class:`RoundInputError`: ``<where>.<team>[i]: 'zed' is not <among>``."""
    seated = _by_key(players)
    return {
        team: [
            _seated(member, seated, f"{where}.{team}[{i}]", among)
            for i, member in enumerate(members)
        ]
        for team, members in teams.items()
    }


def seat_handicaps(
    handicaps: Mapping[str, int],
    players: Iterable[str],
    where: str = "min_length",
    *,
    among: str = ONE_OF_THE_PLAYERS,
) -> dict[str, int]:
    """Clean ``handicaps`` (from :func:`clean_handicaps`) with each name spelled as the player
    of ``players`` it names; one that names nobody is a :class:`RoundInputError`."""
    seated = _by_key(players)
    return {
        _seated(name, seated, f"{where}.{name}", among): shortest
        for name, shortest in handicaps.items()
    }


def _by_key(players: Iterable[str]) -> dict[str, str]:
    return {name_key(name): name for name in players}


def _seated(name: str, seated: Mapping[str, str], where: str, among: str) -> str:
    player = seated.get(name_key(name))
    if player is None:
        raise RoundInputError(f"{where}: {quoted(name)} is not {among}")
    return player


# -- 3. consistency ---------------------------------------------------------------------------


def check_setup(
    players: Sequence[str] | Mapping[str, object],
    rules: Rules,
    teams: Mapping[str, Sequence[str]] | None = None,
    min_length: Mapping[str, int] | None = None,
    *,
    where_teams: str = "teams",
    where_min_length: str = "min_length",
) -> RoundSetup:
    """Check that the players, teams and handicaps fit together; :class:`RoundInputError` says
    what does not: a player's name that is not one or is alike another's, teams or handicaps
    of the wrong shape (as :func:`clean_teams` and :func:`clean_handicaps` say), a member or a
    handicapped player who is not one of ``players`` spelled as they are, a player on no team
    in team play, team rules without teams. One team is a valid setup (see the module)."""
    names = list(players)
    for name in names:
        check_name(name, "players")
    check_distinct(names, "players")
    require_teams(rules, teams, where_teams)
    minimums = dict.fromkeys(names, rules.min_length)
    if min_length is not None:
        clean_handicaps(min_length, where_min_length)
        for name, shortest in min_length.items():
            if name not in minimums:
                raise RoundInputError(
                    f"{where_min_length}.{name}: {quoted(name)} is not {ONE_OF_THE_PLAYERS}"
                )
            minimums[name] = shortest
    placed = None if teams is None else _team_of(names, teams, where_teams)
    return RoundSetup(minimums, placed)


def require_teams(rules: Rules, teams: object, where: str = "teams") -> None:
    """Refuse team rules without teams: the one place that says so (a stored round restored
    as it was, without :func:`check_setup`'s other checks, is held to it too)."""
    if rules.teams and teams is None:
        raise RoundInputError(f"{where}: these rules are for team play, but no teams were given")


def _team_of(
    players: Sequence[str], teams: Mapping[str, Sequence[str]], where: str
) -> dict[str, str]:
    """Player -> team, for teams of the right shape whose members are ``players`` as spelled."""
    clean_teams(teams, where)
    return team_of(players, teams, where)


def team_of(
    players: Sequence[str], teams: Mapping[str, Sequence[str]], where: str = "teams"
) -> dict[str, str]:
    """Player -> team, names compared as spelled (not cleaned: for a round restored with its
    names as stored): :class:`RoundInputError` for a member who is not one of ``players``, on
    two teams (or twice on one), or a player on no team (in team play everyone is on one)."""
    playing = set(players)
    placed: dict[str, str] = {}
    for team, members in teams.items():
        for i, member in enumerate(members):
            if member not in playing:
                raise RoundInputError(
                    f"{where}.{team}[{i}]: {quoted(member)} is not {ONE_OF_THE_PLAYERS}"
                )
            if member in placed:
                raise RoundInputError(
                    f"{where}.{team}[{i}]: {quoted(member)} is already on team "
                    f"{quoted(placed[member])}; nobody plays in two teams, or twice in one"
                )
            placed[member] = team
    for name in players:
        if name not in placed:
            raise RoundInputError(
                f"players.{name}: {name!r} is on no team; in team play everyone is on a "
                "team: put them on one, or turn team play off"
            )
    return placed


def settle_setup(
    players: Sequence[str],
    rules: Rules,
    teams: object = None,
    min_length: object = None,
    *,
    where_teams: str = "teams",
    where_min_length: str = "min_length",
) -> tuple[dict[str, list[str]] | None, dict[str, int]]:
    """Teams and handicaps as typed (names in any case or width), checked and seated for
    ``players`` under ``rules``: all three steps, for a caller that knows the players now
    (the terminal game). Returns ``(teams or None, handicaps)`` spelled as the players are."""
    seated_teams = None
    if teams is not None:
        seated_teams = seat_teams(clean_teams(teams, where_teams), players, where_teams)
    handicaps: dict[str, int] = {}
    if min_length is not None:
        handicaps = seat_handicaps(
            clean_handicaps(min_length, where_min_length), players, where_min_length
        )
    check_setup(
        players,
        rules,
        seated_teams,
        handicaps,
        where_teams=where_teams,
        where_min_length=where_min_length,
    )
    return seated_teams, handicaps
