"""Asynchronous challenges: the same board(s), rules and timer for anyone with the link, played
whenever each player likes, scored together with crossing off among everyone who has played.

**A challenge** is a rules preset with its solo options (the timer among them), a dictionary,
``cancel`` or ``keep`` for words two players found (the house rule), 1 to
:data:`~bigboggle.limits.CHALLENGE_MAX_ROUNDS` rounds, each with its board, and a closing time
(:data:`~bigboggle.limits.CHALLENGE_DEFAULT_HOURS` after it is made unless told otherwise, at
most :data:`~bigboggle.limits.CHALLENGE_MAX_HOURS`). Its code is :data:`CODE_LENGTH` characters
of :data:`CODE_LETTERS` (about 38 bits: short to read out, too many to find by guessing); it is
read without regard to case, spaces or dashes. Each round's board is a fresh seeded shake of the
preset's dice, except that a challenge made **from a finished solo game** takes that game's
board, rules, options and dictionary for round 1 and seats the game's player with that very
game as their round 1 (their score is the one to beat). Only the game's player may do that:
with its key, or as the member whose game it is; a game played with hints may not, and neither
may today's daily board while its day is open.

**Playing** (:meth:`Challenges.play`) starts an ordinary solo game
(:meth:`SoloGames.start <bigboggle.services.solo_games.SoloGames.start>`, on the server's
clock, with the challenge's board, options and timer; its words go through the solo API as any
game's) on the player's next round. One seat per name (by :func:`~bigboggle.names.name_key`,
so ``Ann`` and ``ANN`` are one seat; a member's name is theirs alone, as everywhere: the start
checks it). **Who is the same player** next time: a member is known by their session (their
seat is their account's, whatever name they type); a guest proves a seat by the key of any of
that seat's games in this challenge (``X-Game-Key`` over HTTP: the key each ``play`` answer
holds once, kept by the browser or the terminal). A name that has a seat cannot be played by
anyone without that proof. A round is started once per seat (a reservation row first, then the
game, so two plays at once cannot start two games of one round); the next round waits until the
last one's game is over. Playing is refused once the challenge has closed, when every round has
been played, and past :data:`~bigboggle.limits.CHALLENGE_MAX_PLAYERS` seats.

**Standings** are stored, never made on read. When a challenge game's results are stored the
solo games tell :meth:`Challenges.on_game_scored` (their ``on_scored`` listeners); it scores the
round again among every player who has finished it (:func:`score_challenge_round`: the one
scoring function, :func:`bigboggle.scoring.score_round`, crossing off included; CPU work, so
through the runner) and stores it with the set of games it counts. Two finishes at once are
safe: a store happens only under the round's row lock and only when its set of games contains
the stored one, else the round is read and scored again, so the stored standings only ever
gain games, and each finish ends with its own game counted (by its own store or a later one).
A finish whose listener was missed (a crash between the result and the standings), and a game
abandoned without words (which no solo timer scores), are caught up by :meth:`Challenges.sweep`
(a server runs it at start-up and every few minutes).

**Privacy.** Nobody sees another player's words of a round before finishing their own game of
that round: a round's board, words, verdicts and missed words are shown only to a viewer who
has finished that round (proven by a game key or a member's session, as above), and to
everyone once the challenge has closed and none of that round's games is still running. Anyone
else sees who has played, the scores and the ranking. (A challenge made from a finished game
uses a board whose results page was already public: ``/games/ID``.)

**Teams.** A challenge may have 2 to :data:`~bigboggle.limits.CHALLENGE_MAX_TEAMS` teams (their
names, checked as any names: none alike another). Each player then plays for one, chosen at
their first play and fixed from then on (the maker of a challenge from a game chooses theirs
when making it). Each round is scored in team play (``score_round(..., teams=)``: a word found
by team-mates is not crossed off against them, only against another team's) among the teams
of the players who have finished it; a team nobody has finished the round for is left out of
that round. The standings keep each player's ranking and add the teams': a round's team score
(each word counted once for the team) and place, and each team's total over the rounds.

The standings are **final** once the challenge has closed, no started game is still running
or unscored, and every round's stored standings count all its finished games.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..dice import new_seed, shake
from ..errors import GameStateError, NotFoundError, NotOwnerError, RulesError, quoted
from ..limits import (
    CHALLENGE_DEFAULT_HOURS,
    CHALLENGE_MAX_HOURS,
    CHALLENGE_MAX_PLAYERS,
    CHALLENGE_MAX_ROUNDS,
    CHALLENGE_MAX_TEAMS,
    CHALLENGE_SWEEP_ROUNDS,
    PROFILE_CHALLENGES,
)
from ..names import clean_name, name_key
from ..round_setup import same_name_error
from ..rules import Rules
from ..scoring import PlayerResult, competition_places, score_round, standings_order
from . import history, jobs
from .challenge_views import (
    ChallengeView,
    MemberChallenge,
    RoundStanding,
    Seat,
    Standing,
    TeamStanding,
    You,
    shown_code,
)
from .compute import Runner, run_here
from .daily import utc_date
from .keys import holds_key, key_hash
from .members import check_name_free, marked_member, username_of
from .shelf import DictionaryShelf
from .solo_games import SOLO_OPTIONS, SoloGames, solo_rules
from .solo_views import SoloView
from .store import (
    AccountRow,
    ChallengeGameRow,
    ChallengePlayerRow,
    ChallengeRoundRow,
    ChallengeRow,
    SoloGameRow,
    SoloWordRow,
    Store,
)

log = logging.getLogger(__name__)

#: Characters of challenge codes: digits and consonants with nothing that looks alike (no 0/O,
#: 1/I/L, no vowels, so no words), easy to read out.
CODE_LETTERS = "23456789BCDFGHJKMNPQRSTVWXZ"
#: Characters in a new challenge's code: 27**8 codes, about 38 bits.
CODE_LENGTH = 8
#: The longest code read: the characters with the spaces or dashes people type (``BCDF-2345``).
MAX_CODE_TYPED = 20
#: Seconds after which a round reserved for a seat whose game never started (its process died
#: between the reservation and the start) is given up, so the seat may play it.
RESERVATION_SECONDS = 120.0
#: Times one finish scores its round again when another finish stored a different set meanwhile.
RECOMPUTE_ATTEMPTS = 5
#: Seconds after closing that the sweep still looks at a challenge (games started just before
#: the close end within a timer; a day covers a server that was down for a while).
SWEEP_AFTER_CLOSE = 86_400.0
#: The options a challenge may set: a solo game's, and the house rule for duplicates.
CHALLENGE_OPTIONS = frozenset({"advanced", "min_length", "challenge", "family"})


# -- codes ------------------------------------------------------------------------------------------


def normal_code(code: object) -> str:
    """A challenge code as stored: upper case, without spaces and dashes;
    :class:`NotFoundError` for anything that cannot be one."""
    if not isinstance(code, str) or len(code) > MAX_CODE_TYPED:
        raise NotFoundError(f"no challenge {quoted(code, 30)}")
    cleaned = code.replace("-", "").replace(" ", "").upper()
    if len(cleaned) != CODE_LENGTH or any(char not in CODE_LETTERS for char in cleaned):
        raise NotFoundError(f"no challenge {quoted(code, 30)}")
    return cleaned


def new_code() -> str:
    """A fresh random challenge code."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


# -- the scoring job ------------------------------------------------------------------------------


#: Seconds after the last game's deadline that its scoring may take, within a challenge's
#: privacy: its words stay private until then too.
SCORING_GRACE = 60.0


def private_until(challenge: ChallengeRow) -> float:
    """Until when a challenge's round games keep their words private: past the closing time by
    a whole round (a game started just before the close ends a timer later) and its scoring."""
    timer = solo_rules(challenge.rules, dict(challenge.options or {})).timer
    return challenge.closes_at + timer + SCORING_GRACE


def challenge_rules(
    rules: str, options: Mapping[str, Any] | None, duplicates: str = "cancel"
) -> Rules:
    """The rules a challenge's rounds are scored by: the solo game's, with ``duplicates``."""
    solo_rules(rules, options)  # the solo options' own check (names the bad one)
    return Rules.preset(rules, **dict(options or {}), duplicates=duplicates)


def score_challenge_round(
    spec: jobs.ShelfSpec,
    dictionary: str,
    rules: str,
    options: Mapping[str, Any] | None,
    duplicates: str,
    board: str,
    lists: Mapping[str, Sequence[str]],
    teams: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Score one round of a challenge among every list given (player -> entries as they were
    stored, in order): the job a :class:`~bigboggle.services.compute.Runner` runs. The JSON of
    :meth:`bigboggle.scoring.RoundResult.to_json` (verdicts after crossing off, scores, the
    ranking, places shared by equal scores, what nobody found), each missed word marked
    ``rare`` as solo results mark it, and each player's count of words found. With ``teams``
    (team -> members among the lists' players) the round is scored in team play, ``ranking``
    and ``places`` stay the players', and ``team_standings`` lists each team's score (its
    distinct words), place and members, first to last."""
    words = jobs.words(spec, dictionary)
    ruleset = challenge_rules(rules, options, duplicates)
    result = score_round(board, lists, ruleset, words, teams=teams)
    data = result.to_json()
    if result.teams is not None:
        data.pop("teams", None)  # the teams' words: the players' lists say them already
        team_places = result.places
        data["team_standings"] = [
            {
                "team": team,
                "score": result.teams[team].score,
                "place": team_places[team],
                "members": list(result.teams[team].members),
            }
            for team in result.ranking
        ]
        data["ranking"] = _player_ranking(result.players)
        data["places"] = competition_places(
            data["ranking"], lambda name: result.players[name].score
        )
    data["missed"] = [
        {**missed, "rare": history.is_rare(words, missed["word"])} for missed in data["missed"]
    ]
    for name, player in result.players.items():
        data["players"][name]["found"] = sum(1 for word in player.words if word.verdict.is_valid)
    data["total_words"] = result.solution.count
    return data


def _player_ranking(players: Mapping[str, PlayerResult]) -> list[str]:
    """Players first to last as a round without teams ranks them: points, then the longer
    words (longest first), then name."""

    def order(name: str) -> tuple[int, tuple[int, ...], str]:
        player = players[name]
        lengths = sorted((len(word.word) for word in player.scored), reverse=True)
        return (-player.score, tuple(-length for length in lengths), name)

    return sorted(players, key=order)


@dataclass
class _Facts:
    """What one read of a challenge found (rows turned into plain values)."""

    challenge: ChallengeRow
    rounds: list[ChallengeRoundRow]
    #: seat id -> (name, account id, username)
    seats: dict[int, tuple[str, int | None, str | None]]
    #: seat id -> the seat's team (team challenges only)
    teams: dict[int, str] = field(default_factory=dict)
    #: (seat id, round number) -> (game id or None, scored, running)
    games: dict[tuple[int, int], tuple[str | None, bool, bool]] = field(default_factory=dict)


# -- the service ------------------------------------------------------------------------------------


class Challenges:
    """Asynchronous challenges on ``store``, their games played through ``solo`` (whose
    ``on_scored`` listeners this adds itself to), CPU work through ``runner``."""

    def __init__(
        self,
        store: Store,
        shelf: DictionaryShelf,
        solo: SoloGames,
        clock: Callable[[], float] | None = None,
        runner: Runner = run_here,
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.solo = solo
        self.clock = clock or solo.clock
        self.runner = runner
        solo.on_scored.append(self.on_game_scored)

    # -- making one --------------------------------------------------------------------------

    def create(
        self,
        rules: str | None = None,
        *,
        rounds: int = 1,
        timer: int | None = None,
        options: Mapping[str, Any] | None = None,
        duplicates: str = "cancel",
        dictionary: str | None = None,
        hours: int | None = None,
        from_game: str | None = None,
        key: str | None = None,
        account_id: int | None = None,
        teams: Sequence[str] | None = None,
        team: str | None = None,
    ) -> ChallengeView:
        """Make a challenge of ``rounds`` rounds by ``rules`` (``"big"`` if none) with solo
        ``options`` and ``timer`` (seconds; the preset's if none), open for ``hours``
        (:data:`~bigboggle.limits.CHALLENGE_DEFAULT_HOURS` if none). With ``from_game`` (a
        finished solo game, with its ``key`` or by its member ``account_id``), round 1 is that
        game's board by its rules, options and dictionary, and its player is seated with it.
        ``teams`` (2 to :data:`~bigboggle.limits.CHALLENGE_MAX_TEAMS` names) makes it a team
        challenge; the seated player of ``from_game`` then plays for ``team`` (one of them).
        :class:`RulesError` (or :class:`RoundInputError`) names a bad setting."""
        now = self.clock()
        team_names = clean_teams(teams)
        if team is not None and from_game is None:
            raise RulesError(
                "team: only with from_game (the game's player is seated on that team); "
                "everyone else chooses a team when they play"
            )
        first_team = None
        if team_names is not None and from_game is not None:
            first_team = pick_team(team_names, team)
        elif team is not None:
            raise RulesError("team: this challenge has no teams (give teams to make some)")
        rounds = _bounded("rounds", rounds, 1, CHALLENGE_MAX_ROUNDS)
        hours = _bounded(
            "hours", CHALLENGE_DEFAULT_HOURS if hours is None else hours, 1, CHALLENGE_MAX_HOURS
        )
        if duplicates not in ("cancel", "keep"):
            raise RulesError(f"duplicates={quoted(duplicates)} must be 'cancel' or 'keep'")
        solo_options = _challenge_options(options)
        first: SoloGameRow | None = None
        if from_game is not None:
            first = self._first_game(from_game, key, account_id, now)
            rules, solo_options, dictionary = self._settings_of(
                first, rules, timer, options, dictionary
            )
        else:
            if timer is not None:
                solo_options["timer"] = _bounded("timer", timer, 5, 3600)
        ruleset = challenge_rules(rules or "big", solo_options, duplicates)
        words = self.shelf.get(dictionary or ruleset.dictionary)
        boards: list[tuple[str, int | None]] = []
        if first is not None:
            boards.append((first.board, first.seed))
        while len(boards) < rounds:
            seed = new_seed()
            boards.append((str(shake(ruleset.dice, seed, challenge=ruleset.challenge).board), seed))
        maker = self._player_of(first) if first is not None else None
        if maker is None and account_id is not None:
            with self.store.session() as session:
                maker = username_of(session, account_id)
        code = self._store_new(
            ruleset,
            solo_options,
            words.name,
            boards,
            now,
            now + hours * 3600.0,
            account_id,
            maker,
            team_names,
        )
        if first is not None:
            self._seat_first(code, first, now, first_team)
            self._recompute(code, 1, first.id)
        return self.get(code, key=key, account_id=account_id)

    def _first_game(
        self, game_id: str, key: str | None, account_id: int | None, now: float
    ) -> SoloGameRow:
        """The finished solo game a challenge is made from, if the asker is its player."""
        if not isinstance(game_id, str) or not 1 <= len(game_id) <= 16:
            raise NotFoundError(f"no game {quoted(game_id, 20)}")
        with self.store.session() as session:
            row = session.get(SoloGameRow, game_id)
        if row is None:
            raise NotFoundError(f"no game {quoted(game_id, 20)}")
        mine = (row.owner_hash is not None and holds_key(row.owner_hash, key)) or (
            account_id is not None and row.account_id == account_id
        )
        if not mine:
            raise NotOwnerError(
                f"game {row.id!r} is another player's: only its player (with its key, "
                "X-Game-Key, or logged in) may make a challenge of it"
            )
        if row.result is None:
            raise GameStateError(f"game {row.id!r} is not finished: finish it first")
        if row.private_until is not None:
            raise GameStateError(
                f"game {row.id!r} is a round of another challenge: its words are private "
                "until that one closes, so it cannot start a challenge of its own"
            )
        if _hints_used(row.result):
            raise GameStateError(
                f"game {row.id!r} was played with hints: a challenge's first round must not be"
            )
        if row.daily_date is not None and row.daily_date >= utc_date(now):
            raise GameStateError(
                f"the daily board of {row.daily_date} is still being played today: "
                "make a challenge of it tomorrow"
            )
        return row

    @staticmethod
    def _settings_of(
        game: SoloGameRow,
        rules: str | None,
        timer: int | None,
        options: Mapping[str, Any] | None,
        dictionary: str | None,
    ) -> tuple[str, dict[str, Any], str]:
        """A game's rules, options and dictionary for a challenge made from it; any of them
        also given must agree (:class:`RulesError` names the one that does not)."""
        solo_options = {
            name: value
            for name, value in dict(game.options or {}).items()
            if name in SOLO_OPTIONS and value is not None
        }
        played = solo_rules(game.rules, solo_options)
        if rules is not None and rules != game.rules:
            raise RulesError(
                f"rules={quoted(rules)}: game {game.id!r} was played by {game.rules!r}"
            )
        if timer is not None and timer != played.timer:
            raise RulesError(f"timer={timer!r}: game {game.id!r} had {played.timer} seconds")
        if options:
            given = _challenge_options(options)
            for name, value in given.items():
                if solo_options.get(name) != value:
                    raise RulesError(
                        f"options.{name}={quoted(value)}: game {game.id!r} was played "
                        f"with {quoted(solo_options.get(name))}"
                    )
        if dictionary is not None and dictionary != game.dictionary:
            raise RulesError(
                f"dictionary={quoted(dictionary)}: game {game.id!r} used {game.dictionary!r}"
            )
        return game.rules, solo_options, game.dictionary

    def _store_new(
        self,
        rules: Rules,
        options: Mapping[str, Any],
        dictionary: str,
        boards: Sequence[tuple[str, int | None]],
        now: float,
        closes_at: float,
        account_id: int | None,
        maker: str | None,
        teams: list[str] | None = None,
    ) -> str:
        """Store a new challenge and its rounds under a fresh code (another on a clash)."""
        for _ in range(5):
            code = new_code()
            try:
                with self.store.write_session() as session:
                    session.add(
                        ChallengeRow(
                            code=code,
                            rules=rules.name,
                            options=dict(options),
                            duplicates=rules.duplicates,
                            dictionary=dictionary,
                            rounds=len(boards),
                            created_at=now,
                            closes_at=closes_at,
                            account_id=account_id,
                            maker=maker,
                            teams=teams,
                        )
                    )
                    session.flush()
                    for number, (board, seed) in enumerate(boards, start=1):
                        session.add(
                            ChallengeRoundRow(
                                code=code,
                                number=number,
                                board=board,
                                seed=seed,
                                counted_games=[],
                                counted=0,
                            )
                        )
                return code
            except IntegrityError:  # the code was taken: draw another
                continue
        raise GameStateError("could not find a free challenge code; try again")

    def _player_of(self, game: SoloGameRow) -> str:
        """The name a game's player is seated under: a member's user name (whatever name the
        game was played under: one name per member here), else the game's."""
        if game.account_id is not None:
            with self.store.session() as session:
                username = username_of(session, game.account_id)
            if username is not None:
                return username
        return game.player

    def _seat_first(self, code: str, game: SoloGameRow, now: float, team: str | None) -> None:
        """Seat the player of the game a challenge was made from, with it as their round 1
        (on ``team`` in a team challenge). The game becomes private until the challenge
        closes, as every round played in it is."""
        name = self._player_of(game)
        closes = private_until(self._challenge(code))
        with self.store.write_session() as session:
            held = session.get(SoloGameRow, game.id)
            if held is not None:
                held.private_until = closes
            seat = ChallengePlayerRow(
                code=code,
                name=name,
                name_key=name_key(name),
                account_id=game.account_id,
                joined_at=now,
                team=team,
            )
            session.add(seat)
            session.flush()
            session.add(
                ChallengeGameRow(
                    code=code, number=1, player_id=seat.id, game_id=game.id, reserved_at=now
                )
            )

    # -- playing -----------------------------------------------------------------------------

    def play(
        self,
        code: str,
        player: str | None,
        *,
        key: str | None = None,
        account_id: int | None = None,
        team: str | None = None,
    ) -> tuple[SoloView, int]:
        """Start ``player``'s next round of the challenge now: the solo game (its key in the
        answer, once) and the round's number. A name already seated needs proof that it is
        that seat (a member's session, or ``key``: the key of one of its games here). In a
        team challenge a new seat needs ``team`` (one of its teams); a seat's team is fixed,
        so a later play may leave it out or give the same one. :class:`RulesError` names a
        team missing, unknown, changed, or given where there are no teams.
        :class:`GameStateError` once closed, when every round is played or the last round's
        game is still running, or when the challenge is full; :class:`NotOwnerError` for a
        seated name without proof; :class:`NameTakenError` for a member's name."""
        code = normal_code(code)
        now = self.clock()
        challenge = self._challenge(code)
        if now >= challenge.closes_at:
            raise GameStateError(f"challenge {shown_code(code)} has closed: no more rounds")
        if challenge.teams is None and team is not None:
            raise RulesError(
                f"team: challenge {shown_code(code)} has no teams; leave team out to play it"
            )
        seat_id, new_seat = self._seat_for_play(challenge, player, key, account_id, now, team)
        try:
            number = self._reserve(challenge, seat_id, now)
        except BaseException:
            if new_seat:
                self._drop_seat(seat_id)
            raise
        try:
            view = self._start(challenge, seat_id, number, account_id)
        except BaseException:
            self._drop_reservation(seat_id, number, new_seat)
            raise
        with self.store.write_session() as session:
            row = session.scalar(
                select(ChallengeGameRow)
                .where(ChallengeGameRow.player_id == seat_id, ChallengeGameRow.number == number)
                .with_for_update()
            )
            if row is not None:
                row.game_id = view.game.id
        return view, number

    def _seat_for_play(
        self,
        challenge: ChallengeRow,
        player: str | None,
        key: str | None,
        account_id: int | None,
        now: float,
        team: str | None = None,
    ) -> tuple[int, bool]:
        """The seat that plays: the one the asker proves (a member's, by account; a guest's
        by a key), the one of ``player``'s name if proven, or a new one (on ``team`` in a
        team challenge); and whether it is new."""
        with self.store.session() as session:
            proven = _proven_seat(session, challenge.code, key, account_id)
            if proven is not None and (
                account_id is not None or player is None or _same_name(proven.name, player)
            ):
                if challenge.teams is not None:
                    self._keep_team(challenge.teams, proven, team)
                return proven.id, False
            if player is None:
                if account_id is None:
                    raise RulesError("player: give your name to play a challenge")
                player = username_of(session, account_id)
                if player is None:
                    raise NotFoundError("that member's account no longer exists")
            name = clean_name(player, "player")
            named = session.scalar(
                select(ChallengePlayerRow).where(
                    ChallengePlayerRow.code == challenge.code,
                    ChallengePlayerRow.name_key == name_key(name),
                )
            )
            if named is not None:
                raise NotOwnerError(
                    f"{quoted(named.name, 40)} has played this challenge: to play their next "
                    "round, send the key of one of their games here (X-Game-Key) or log in "
                    "as that member; or choose another name"
                )
            chosen = pick_team(challenge.teams, team) if challenge.teams is not None else None
        try:
            with self.store.write_session() as session:
                seats = session.scalar(
                    select(func.count())
                    .select_from(ChallengePlayerRow)
                    .where(ChallengePlayerRow.code == challenge.code)
                )
                if (seats or 0) >= CHALLENGE_MAX_PLAYERS:
                    raise GameStateError(
                        f"challenge {shown_code(challenge.code)} is full: "
                        f"{CHALLENGE_MAX_PLAYERS} players have played it"
                    )
                check_name_free(session, name, account_id)
                seat = ChallengePlayerRow(
                    code=challenge.code,
                    name=name,
                    name_key=name_key(name),
                    account_id=account_id,
                    joined_at=now,
                    team=chosen,
                )
                session.add(seat)
                session.flush()
                return seat.id, True
        except IntegrityError:  # the same name seated meanwhile, by a play that raced this one
            raise NotOwnerError(
                f"{quoted(name, 40)} has just started playing this challenge: choose another name"
            ) from None

    @staticmethod
    def _keep_team(teams: Sequence[str], seat: ChallengePlayerRow, team: str | None) -> None:
        """A seated player's team stays theirs: ``team`` may be left out or name it again;
        :class:`RulesError` for another."""
        if team is not None and pick_team(teams, team) != seat.team:
            raise RulesError(
                f"team={quoted(team, 40)}: {quoted(seat.name, 40)} plays for "
                f"{quoted(seat.team, 40)} in this challenge; a player's team is fixed after "
                "their first round (leave team out, or give the same one)"
            )

    def _reserve(self, challenge: ChallengeRow, seat_id: int, now: float) -> int:
        """Reserve the seat's next round (its number): the round after the last one it has a
        game of, once that game is over. A reservation whose game never started is given up
        after :data:`RESERVATION_SECONDS`. Two plays of one seat at once (two tabs, a retry):
        one reserves the round, the other is told it is being started (the unique key on seat
        and round decides, on databases that do not serialise writers)."""
        try:
            return self._reserve_next(challenge, seat_id, now)
        except IntegrityError:
            raise GameStateError(
                "your next round is being started already (another request of yours): open it"
            ) from None

    def _reserve_next(self, challenge: ChallengeRow, seat_id: int, now: float) -> int:
        with self.store.write_session() as session:
            rows = session.execute(
                select(ChallengeGameRow, SoloGameRow)
                .outerjoin(SoloGameRow, SoloGameRow.id == ChallengeGameRow.game_id)
                .where(ChallengeGameRow.player_id == seat_id)
                .order_by(ChallengeGameRow.number)
            ).all()
            played: set[int] = set()
            for entry, game in rows:
                if game is None:
                    if now - entry.reserved_at < RESERVATION_SECONDS:
                        raise GameStateError(
                            f"your round {entry.number} is being started already: open it"
                        )
                    session.delete(entry)
                    continue
                played.add(entry.number)
                if game.result is None and game.ended_at is None and now < game.deadline:
                    raise GameStateError(
                        f"your round {entry.number} game ({game.id}) is still running: "
                        "finish it first"
                    )
            left = [n for n in range(1, challenge.rounds + 1) if n not in played]
            if not left:
                raise GameStateError(
                    f"you have played every round of challenge {shown_code(challenge.code)}"
                )
            session.add(
                ChallengeGameRow(
                    code=challenge.code,
                    number=left[0],
                    player_id=seat_id,
                    game_id=None,
                    reserved_at=now,
                )
            )
            return left[0]

    def _start(
        self, challenge: ChallengeRow, seat_id: int, number: int, account_id: int | None
    ) -> SoloView:
        """Start the seat's game of round ``number`` (the round's board, the challenge's rules)."""
        with self.store.session() as session:
            seat = session.get(ChallengePlayerRow, seat_id)
            round_row = session.get(ChallengeRoundRow, (challenge.code, number))
        if seat is None or round_row is None:  # pragma: no cover - deleted meanwhile
            raise NotFoundError(f"no challenge {challenge.code!r}")
        board = round_row.board if round_row.seed is None else None
        return self.solo.start(
            challenge.rules,
            options=dict(challenge.options) or None,
            dictionary=challenge.dictionary,
            seed=round_row.seed,
            board=board,
            player=seat.name,
            account_id=account_id,
            # Its words are its player's alone until the challenge closes (its page, the
            # member's public history): nobody sees them before playing the round. A game
            # started just before the close runs a timer past it: the last ones end then.
            private_until=private_until(challenge),
        )

    def _drop_reservation(self, seat_id: int, number: int, new_seat: bool) -> None:
        with self.store.write_session() as session:
            session.execute(
                delete(ChallengeGameRow).where(
                    ChallengeGameRow.player_id == seat_id,
                    ChallengeGameRow.number == number,
                    ChallengeGameRow.game_id.is_(None),
                )
            )
        if new_seat:
            self._drop_seat(seat_id)

    def _drop_seat(self, seat_id: int) -> None:
        """Remove a seat that has no game (its first start was refused)."""
        with self.store.write_session() as session:
            games = session.scalar(
                select(func.count())
                .select_from(ChallengeGameRow)
                .where(ChallengeGameRow.player_id == seat_id)
            )
            if not games:
                session.execute(delete(ChallengePlayerRow).where(ChallengePlayerRow.id == seat_id))

    # -- standings ---------------------------------------------------------------------------

    def on_game_scored(self, game_id: str) -> None:
        """A solo game's results are stored: if it is a challenge's, store its round's
        standings again among all who finished it (the solo games' ``on_scored`` listener)."""
        with self.store.session() as session:
            rounds = session.execute(
                select(ChallengeGameRow.code, ChallengeGameRow.number).where(
                    ChallengeGameRow.game_id == game_id
                )
            ).all()
        for code, number in rounds:
            self._recompute(code, number, game_id)

    def _recompute(self, code: str, number: int, game_id: str | None = None) -> bool:
        """Score round ``number`` of ``code`` among every finished game and store it, unless
        the stored standings already count ``game_id`` (or every finished game). Stored only
        when the games scored contain the stored ones (under the round's lock); otherwise read
        and score again. Whether this call stored standings."""
        for _ in range(RECOMPUTE_ATTEMPTS):
            with self.store.session() as session:
                challenge = session.get(ChallengeRow, code)
                round_row = session.get(ChallengeRoundRow, (code, number))
                if challenge is None or round_row is None:
                    return False
                stored = set(round_row.counted_games or [])
                if game_id is not None and game_id in stored:
                    return False
                finished = _finished_games(session, code, number)
                if set(finished) == stored and round_row.standings is not None:
                    return False
                lists = _lists(session, finished)
                teams = _round_teams(session, challenge, lists)
            result = self.runner(
                score_challenge_round,
                self.shelf.spec,
                challenge.dictionary,
                challenge.rules,
                challenge.options,
                challenge.duplicates,
                round_row.board,
                lists,
                teams,
            )
            result["games"] = {name: game for game, name in finished.items()}
            with self.store.write_session() as session:
                locked = session.scalar(
                    select(ChallengeRoundRow)
                    .where(ChallengeRoundRow.code == code, ChallengeRoundRow.number == number)
                    .with_for_update()
                )
                if locked is None:
                    return False
                now_stored = set(locked.counted_games or [])
                if not set(finished) >= now_stored:
                    continue  # another finish stored games this read missed: read again
                if set(finished) == now_stored and locked.standings is not None:
                    return False
                locked.standings = result
                locked.counted_games = sorted(finished)
                locked.counted = len(finished)
                locked.updated_at = self.clock()
                return True
        log.warning("challenge %s round %s: standings not stored after retries", code, number)
        return False

    def sweep(self, limit: int = CHALLENGE_SWEEP_ROUNDS) -> int:
        """Catch up what a missed listener call left behind, for challenges open or closed
        within :data:`SWEEP_AFTER_CLOSE`: challenge games past their deadline without results
        are scored (a game abandoned without words: no solo timer scores it), and rounds whose
        stored standings count fewer games than have finished are stored again. At most
        ``limit`` of each; answers how many rounds were stored again. Reservations whose game
        never started (older than :data:`RESERVATION_SECONDS`) are given up, so they hold no
        round open for ever."""
        now = self.clock()
        recent = ChallengeRow.closes_at > now - SWEEP_AFTER_CLOSE
        with self.store.write_session() as session:
            session.execute(
                delete(ChallengeGameRow).where(
                    ChallengeGameRow.game_id.is_(None),
                    ChallengeGameRow.reserved_at < now - RESERVATION_SECONDS,
                )
            )
        with self.store.session() as session:
            overdue = session.scalars(
                select(SoloGameRow.id)
                .join(ChallengeGameRow, ChallengeGameRow.game_id == SoloGameRow.id)
                .join(ChallengeRow, ChallengeRow.code == ChallengeGameRow.code)
                .where(recent, SoloGameRow.result.is_(None), SoloGameRow.deadline <= now)
                .limit(limit)
            ).all()
        for game in overdue:
            try:
                self.solo.settle(game)  # its scoring tells on_game_scored
            except Exception:  # the next sweep tries again
                log.exception("could not score challenge game %s", game)
        finished = (
            select(
                ChallengeGameRow.code.label("code"),
                ChallengeGameRow.number.label("number"),
                func.count().label("done"),
            )
            .join(SoloGameRow, SoloGameRow.id == ChallengeGameRow.game_id)
            .join(ChallengeRow, ChallengeRow.code == ChallengeGameRow.code)
            .where(recent, SoloGameRow.result.is_not(None))
            .group_by(ChallengeGameRow.code, ChallengeGameRow.number)
            .subquery()
        )
        with self.store.session() as session:
            behind = session.execute(
                select(finished.c.code, finished.c.number)
                .join(
                    ChallengeRoundRow,
                    and_(
                        ChallengeRoundRow.code == finished.c.code,
                        ChallengeRoundRow.number == finished.c.number,
                    ),
                )
                .where(ChallengeRoundRow.counted < finished.c.done)
                .limit(limit)
            ).all()
        stored = 0
        for code, number in behind:
            try:
                stored += self._recompute(code, number)
            except Exception:  # the next sweep tries again
                log.exception("could not store challenge %s round %s", code, number)
        return stored

    # -- reading -----------------------------------------------------------------------------

    def get(
        self, code: str, *, key: str | None = None, account_id: int | None = None
    ) -> ChallengeView:
        """The challenge as this viewer sees it (``key``: one of their games' keys here;
        ``account_id``: the member asking): stored standings only, nothing scored."""
        code = normal_code(code)
        now = self.clock()
        with self.store.session() as session:
            facts = _facts(session, code, now)
            proven = _proven_seat(session, code, key, account_id)
        return _view(facts, proven.id if proven is not None else None, now)

    def of_member(self, account_id: int, limit: int = PROFILE_CHALLENGES) -> list[MemberChallenge]:
        """The challenges member ``account_id`` has played or made (:func:`member_challenges`)."""
        return member_challenges(self.store, account_id, self.clock(), limit)

    def challenge_games(self, game_ids: Iterable[str]) -> set[str]:
        """Which of ``game_ids`` are games of a challenge (a list of recent games leaves them
        out: their words are private to those who played the round)."""
        ids = [game for game in game_ids if isinstance(game, str)]
        if not ids:
            return set()
        with self.store.session() as session:
            return set(
                session.scalars(
                    select(ChallengeGameRow.game_id).where(ChallengeGameRow.game_id.in_(ids))
                )
            )

    def _challenge(self, code: str) -> ChallengeRow:
        with self.store.session() as session:
            row = session.get(ChallengeRow, code)
        if row is None:
            raise NotFoundError(f"no challenge {shown_code(code)!r}")
        return row


def member_challenges(
    store: Store, account_id: int, now: float, limit: int = PROFILE_CHALLENGES
) -> list[MemberChallenge]:
    """The challenges member ``account_id`` has played or made, as of ``now``: the open ones
    first (soonest to close first), then the last closed; at most ``limit``. (Read by the
    member's own profile: stored standings only.)"""
    with store.session() as session:
        played = select(ChallengePlayerRow.code).where(ChallengePlayerRow.account_id == account_id)
        codes = session.scalars(
            select(ChallengeRow.code)
            .where((ChallengeRow.account_id == account_id) | ChallengeRow.code.in_(played))
            .order_by((ChallengeRow.closes_at <= now), ChallengeRow.closes_at.desc())
            .limit(limit)
        ).all()
        listed = []
        for code in codes:
            facts = _facts(session, code, now)
            seat = session.scalar(
                select(ChallengePlayerRow.id).where(
                    ChallengePlayerRow.code == code,
                    ChallengePlayerRow.account_id == account_id,
                )
            )
            view = _view(facts, seat, now)
            mine = next((s for s in view.standings if view.you and s.name == view.you.name), None)
            listed.append(
                MemberChallenge(
                    code=code,
                    title=view.rules.title,
                    rounds=view.rounds,
                    closes_at=view.closes_at,
                    closed=view.closed,
                    final=view.final,
                    finished=len(view.you.finished) if view.you else 0,
                    place=mine.place if mine is not None else None,
                    players=len(view.seats),
                )
            )
    open_first = sorted(
        listed, key=lambda c: (c.closed, c.closes_at if not c.closed else -c.closes_at)
    )
    return open_first


# -- reading helpers -------------------------------------------------------------------------------


def _bounded(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RulesError(f"{name}={quoted(value)} must be a whole number from {low} to {high}")
    return value


def clean_teams(teams: object) -> list[str] | None:
    """A challenge's team names in their normal form (``None``: no teams): a list of 2 to
    :data:`~bigboggle.limits.CHALLENGE_MAX_TEAMS` names, none alike another. The error names
    the entry at fault (``teams[1]``)."""
    if teams is None:
        return None
    if isinstance(teams, str) or not isinstance(teams, Sequence):
        raise RulesError(f"teams: expected a list of team names, not {quoted(teams, 40)}")
    if not 2 <= len(teams) <= CHALLENGE_MAX_TEAMS:
        raise RulesError(
            f"teams: {len(teams)} given; a challenge with teams has 2 to "
            f"{CHALLENGE_MAX_TEAMS} (or leave teams out)"
        )
    names: list[str] = []
    seen: dict[str, object] = {}
    for index, raw in enumerate(teams):
        where = f"teams[{index}]"
        name = clean_name(raw, where)
        if name_key(name) in seen:
            raise same_name_error(where, seen[name_key(name)], raw)
        seen[name_key(name)] = raw
        names.append(name)
    return names


def pick_team(teams: Sequence[str], team: object) -> str:
    """The one of ``teams`` that ``team`` names (compared as names are: ``red`` is ``Red``);
    :class:`RulesError` naming the choices when it is missing or none of them."""
    choices = ", ".join(repr(name) for name in teams)
    if team is None:
        raise RulesError(f"team: this challenge is played in teams; choose one of {choices}")
    wanted = name_key(clean_name(team, "team"))
    for name in teams:
        if name_key(name) == wanted:
            return name
    raise RulesError(f"team={quoted(team, 40)} is not a team here; choose one of {choices}")


def _challenge_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """A challenge's solo options (no ``timer``: it is its own setting), checked."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise RulesError("options: expected an object of rules options")
    unknown = sorted(set(options) - CHALLENGE_OPTIONS)
    if unknown:
        raise RulesError(
            f"options.{quoted(unknown[0], 20)} is not an option of a challenge (choose from "
            f"{', '.join(sorted(CHALLENGE_OPTIONS))})"
        )
    chosen = {name: value for name, value in options.items() if value is not None}
    solo_rules("big", chosen)  # the options' own checks
    return chosen


def _hints_used(result: Mapping[str, Any]) -> bool:
    """Whether a solo game's stored results show hints used (``{"hints": {"used": [...]}}``)."""
    hints = result.get("hints")
    if isinstance(hints, Mapping):
        return bool(hints.get("used"))
    return bool(hints)


def _same_name(one: str, other: str) -> bool:
    try:
        return name_key(one) == name_key(clean_name(other, "player"))
    except Exception:
        return False


def _proven_seat(
    session: Session, code: str, key: str | None, account_id: int | None
) -> ChallengePlayerRow | None:
    """The seat the asker proves: a member's by their account, else the seat of the game
    whose key is ``key`` (any of the seat's games in this challenge)."""
    if account_id is not None:
        seat = session.scalar(
            select(ChallengePlayerRow).where(
                ChallengePlayerRow.code == code, ChallengePlayerRow.account_id == account_id
            )
        )
        if seat is not None:
            return seat
    if isinstance(key, str) and 0 < len(key) <= 100:
        return session.scalar(
            select(ChallengePlayerRow)
            .join(ChallengeGameRow, ChallengeGameRow.player_id == ChallengePlayerRow.id)
            .join(SoloGameRow, SoloGameRow.id == ChallengeGameRow.game_id)
            .where(ChallengeGameRow.code == code, SoloGameRow.owner_hash == key_hash(key))
            .limit(1)
        )
    return None


def _finished_games(session: Session, code: str, number: int) -> dict[str, str]:
    """Game id -> seat name of round ``number``'s games whose results are stored."""
    return {
        game: name
        for game, name in session.execute(
            select(ChallengeGameRow.game_id, ChallengePlayerRow.name)
            .join(ChallengePlayerRow, ChallengePlayerRow.id == ChallengeGameRow.player_id)
            .join(SoloGameRow, SoloGameRow.id == ChallengeGameRow.game_id)
            .where(
                ChallengeGameRow.code == code,
                ChallengeGameRow.number == number,
                SoloGameRow.result.is_not(None),
            )
        )
        if game is not None
    }


def _round_teams(
    session: Session, challenge: ChallengeRow, lists: Mapping[str, Sequence[str]]
) -> dict[str, list[str]] | None:
    """Team -> the players of ``lists`` (a round's finished players) who play for it, in the
    challenge's order of teams; a team none of them plays for is left out. ``None`` without
    teams (or before anyone has finished)."""
    if challenge.teams is None or not lists:
        return None
    team_of = dict(
        session.execute(
            select(ChallengePlayerRow.name, ChallengePlayerRow.team).where(
                ChallengePlayerRow.code == challenge.code,
                ChallengePlayerRow.name.in_(list(lists)),
            )
        ).all()
    )
    teams: dict[str, list[str]] = {}
    for team in challenge.teams:
        members = [name for name in lists if team_of.get(name) == team]
        if members:
            teams[team] = members
    return teams


def _lists(session: Session, games: Mapping[str, str]) -> dict[str, list[str]]:
    """Seat name -> the entries of its game, in order, for the finished ``games``."""
    lists: dict[str, list[str]] = {name: [] for name in games.values()}
    for game, entry in session.execute(
        select(SoloWordRow.game_id, SoloWordRow.entry)
        .where(SoloWordRow.game_id.in_(list(games)))
        .order_by(SoloWordRow.game_id, SoloWordRow.seq)
    ):
        lists[games[game]].append(entry)
    return lists


def _facts(session: Session, code: str, now: float) -> _Facts:
    """One read of a challenge: its row, rounds, seats and each seat's games' states."""
    challenge = session.get(ChallengeRow, code)
    if challenge is None:
        raise NotFoundError(f"no challenge {shown_code(code)!r}")
    rounds = list(
        session.scalars(
            select(ChallengeRoundRow)
            .where(ChallengeRoundRow.code == code)
            .order_by(ChallengeRoundRow.number)
        )
    )
    seats: dict[int, tuple[str, int | None, str | None]] = {}
    teams: dict[int, str] = {}
    for seat_id, name, account, username, team in session.execute(
        select(
            ChallengePlayerRow.id,
            ChallengePlayerRow.name,
            ChallengePlayerRow.account_id,
            AccountRow.username,
            ChallengePlayerRow.team,
        )
        .outerjoin(AccountRow, AccountRow.id == ChallengePlayerRow.account_id)
        .where(ChallengePlayerRow.code == code)
        .order_by(ChallengePlayerRow.joined_at, ChallengePlayerRow.id)
    ):
        seats[seat_id] = (name, account, username)
        if team is not None:
            teams[seat_id] = team
    facts = _Facts(challenge, rounds, seats, teams)
    for seat_id, number, game_id, scored, ended_at, deadline in session.execute(
        select(
            ChallengeGameRow.player_id,
            ChallengeGameRow.number,
            ChallengeGameRow.game_id,
            SoloGameRow.result.is_not(None),
            SoloGameRow.ended_at,
            SoloGameRow.deadline,
        )
        .outerjoin(SoloGameRow, SoloGameRow.id == ChallengeGameRow.game_id)
        .where(ChallengeGameRow.code == code)
    ):
        running = game_id is None or (not scored and ended_at is None and now < deadline)
        facts.games[(seat_id, number)] = (game_id, bool(scored), running)
    return facts


def _view(facts: _Facts, viewer_seat: int | None, now: float) -> ChallengeView:
    """The challenge as the viewer of ``viewer_seat`` (``None``: a stranger) sees it."""
    challenge = facts.challenge
    closed = now >= challenge.closes_at
    members = {
        name: marked_member(name, username) for name, _account, username in facts.seats.values()
    }
    unfinished_rounds = {
        number for (_, number), (_, scored, _) in facts.games.items() if not scored
    }
    running_rounds = {number for (_, number), (_, _, running) in facts.games.items() if running}
    mine_finished = {
        number
        for (seat, number), (_, scored, _) in facts.games.items()
        if seat == viewer_seat and scored
    }
    round_views = []
    totals: dict[str, dict[int, int]] = {}
    team_totals: dict[str, dict[int, int]] = {}
    lengths: dict[str, list[int]] = {}  # each player's scored words' lengths: the tie-break
    team_lengths: dict[str, list[int]] = {}
    behind = False
    for round_row in facts.rounds:
        stored = round_row.standings
        finished_here = sum(
            1
            for (_, number), (_, scored, _) in facts.games.items()
            if number == round_row.number and scored
        )
        if round_row.counted < finished_here:
            behind = True
        visible = round_row.number in mine_finished or (
            closed and round_row.number not in running_rounds
        )
        round_views.append(
            RoundStanding(round_row.number, visible, round_row.board, stored, members)
        )
        for name, player in (stored or {}).get("players", {}).items():
            totals.setdefault(name, {})[round_row.number] = int(player["score"])
            lengths.setdefault(name, []).extend(
                len(word["word"]) for word in player.get("words", ()) if word["verdict"] == "scored"
            )
        players = (stored or {}).get("players", {})
        for team in (stored or {}).get("team_standings", []):
            team_totals.setdefault(team["team"], {})[round_row.number] = int(team["score"])
            # A team's words count once however many of its members wrote them.
            team_words = {
                word["word"]
                for member in team.get("members", ())
                for word in players.get(member, {}).get("words", ())
                if word["verdict"] == "scored"
            }
            team_lengths.setdefault(team["team"], []).extend(map(len, team_words))
    team_of = {facts.seats[seat][0]: team for seat, team in facts.teams.items()}
    # Rounds add up; equal totals are ordered by the longer words, as a tournament and each
    # round's own ranking order them, and share their place, as a round's tie does.
    overall = {name: sum(points.values()) for name, points in totals.items()}
    order = standings_order(overall, lengths)[0]
    places = competition_places(order, overall.__getitem__)
    standings = tuple(
        Standing(
            name,
            members.get(name),
            places[name],
            sum(totals[name].values()),
            totals[name],
            team_of.get(name),
        )
        for name in order
    )
    seats = []
    you = None
    for seat_id, (name, _account, _username) in facts.seats.items():
        finished = tuple(
            sorted(n for (s, n), (_, scored, _) in facts.games.items() if s == seat_id and scored)
        )
        playing = next(
            (n for (s, n), (_, _, running) in facts.games.items() if s == seat_id and running),
            None,
        )
        seats.append(
            Seat(
                name,
                members.get(name),
                finished,
                playing,
                sum(totals.get(name, {}).values()),
                team_of.get(name),
            )
        )
        if seat_id == viewer_seat:
            taken = {n for (s, n) in facts.games if s == seat_id}
            left = [n for n in range(1, challenge.rounds + 1) if n not in taken]
            you = You(name, finished, playing, left[0] if left else None, team_of.get(name))
    can_play, why_not = _can_play(challenge, you, len(facts.seats), closed)
    final = closed and not unfinished_rounds and not behind
    return ChallengeView(
        code=challenge.code,
        rules=challenge_rules(challenge.rules, challenge.options, challenge.duplicates),
        options=dict(challenge.options),
        dictionary=challenge.dictionary,
        rounds=challenge.rounds,
        created_at=challenge.created_at,
        closes_at=challenge.closes_at,
        now=now,
        maker=challenge.maker,
        final=final,
        seats=tuple(seats),
        round_standings=tuple(round_views),
        standings=standings,
        you=you,
        can_play=can_play,
        why_not=why_not,
        teams=_team_lists(challenge.teams, seats),
        team_standings=_team_standings(team_totals, team_lengths),
    )


def _team_lists(
    teams: Sequence[str] | None, seats: Sequence[Seat]
) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
    """Each team and the names of the players who play for it (in the order they joined)."""
    if teams is None:
        return None
    return tuple((team, tuple(seat.name for seat in seats if seat.team == team)) for team in teams)


def _team_standings(
    totals: Mapping[str, Mapping[int, int]], lengths: Mapping[str, Sequence[int]]
) -> tuple[TeamStanding, ...]:
    """The teams' places over all rounds from each one's round scores, equal totals ordered by
    the longer words (``lengths``: the letter counts of each team's scored words) and sharing
    their place; a team that nobody has finished a round for is not among them."""
    overall = {team: sum(points.values()) for team, points in totals.items()}
    order = standings_order(overall, lengths)[0]
    places = competition_places(order, overall.__getitem__)
    return tuple(
        TeamStanding(team, places[team], sum(totals[team].values()), dict(totals[team]))
        for team in order
    )


def _can_play(
    challenge: ChallengeRow, you: You | None, seats: int, closed: bool
) -> tuple[bool, str | None]:
    """Whether the viewer may start a round now, and why not."""
    if closed:
        return False, "The challenge has closed."
    if you is None:
        if seats >= CHALLENGE_MAX_PLAYERS:
            return False, f"The challenge is full ({CHALLENGE_MAX_PLAYERS} players)."
        return True, None
    if you.playing is not None:
        return False, f"Your round {you.playing} is still running."
    if you.next_round is None:
        return False, "You have played every round."
    return True, None


__all__ = [
    "CODE_LENGTH",
    "CODE_LETTERS",
    "ChallengeView",
    "Challenges",
    "MemberChallenge",
    "clean_teams",
    "member_challenges",
    "normal_code",
    "pick_team",
    "score_challenge_round",
    "shown_code",
]
