"""Members' history: one row per finished play (:class:`~bigboggle.services.store.PlayRow`),
and a bounded summary of the words each member most often misses.

A play is written when it is scored: a member's solo game or daily board by
:mod:`~bigboggle.services.solo_games` (in the transaction that stores its results), each
member's seat of a room's round by :mod:`~bigboggle.services.rooms.scoring` (in the
transaction that stores the round's result), and a guest's games when they become a member's
(:mod:`~bigboggle.services.claims`). :func:`record_play` is idempotent: a play is known by its
member and its ``ref`` (the game's id, or ``CODE/NUMBER`` of a room's round, UNIQUE in the
table), so a second call for the same play changes nothing, whoever makes it. A profile reads
these rows alone: nothing is scored again on read.

**Play totals.** With each play written, :func:`add_to_totals` counts it in the member's
:class:`~bigboggle.services.store.PlayTotalRow` for its family, preset and mode (in the same
transaction, the row locked, and only when the play was new): the number of plays, the best
score and share of the board, the longest and the highest-scoring word (on a tie, the earlier
play's, whatever order the plays arrive in: a claim can bring older games). :func:`fold_totals`
is the same sum over many plays at once, for a bulk load.

**Missed words.** Per member and preset family, :class:`~bigboggle.services.store.MissedWordsRow`
keeps a Misra-Gries heavy-hitters summary with at most
:data:`~bigboggle.limits.MISSED_WORDS_COUNTERS` counters over the words the member missed,
only the ones worth learning: common words (the ones solo results do not mark ``rare``, by the
dictionary's SCOWL level) that the family filter does not hide. Each play adds each of its
missed words once; when more than the counters' number of words are counted, every count is
lowered by the next-largest count and the words at zero are dropped (the mergeable form of
Misra-Gries, one step per play instead of one per word). So the counts are **approximate**:
each is at most the true number of misses and short of it by at most ``misses /
(MISSED_WORDS_COUNTERS + 1)``, ``misses`` being every miss counted in that family; every word
missed more often than that is in the summary. The row reads
``{"counts": {word: misses}, "games": plays counted, "misses": misses counted}``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..board import Board
from ..dictionary import COMMON_LEVEL, Dictionary
from ..family import is_offensive
from ..limits import MISSED_WORDS_COUNTERS
from ..rating import family_of
from ..verdicts import Verdict
from .store import MissedWordsRow, PlayRow, PlayTotalRow

log = logging.getLogger(__name__)

#: The kinds of play a history keeps.
KINDS = frozenset({"solo", "daily", "room"})
#: The verdicts of a word found (scored, or crossed off by another player's).
_FOUND = frozenset(verdict.value for verdict in Verdict if verdict.is_valid)
#: The verdict of a word that scored.
_SCORED = Verdict.SCORED.value


@dataclass(frozen=True)
class PlayFacts:
    """What a history keeps of one player's game or round, read from its stored result."""

    score: int
    #: The board's points, where known.
    max_score: int | None
    #: Words found (scored, or crossed off by another player's).
    words: int
    longest_word: str | None
    best_word: str | None
    best_word_points: int | None
    #: The words worth learning that the player missed (see the module's doc), each once.
    missed: tuple[str, ...]


def is_rare(words: Dictionary, word: str) -> bool:
    """Whether ``word`` is rare in ``words`` (its SCOWL level past the common words'): what
    a solo game's results mark ``rare``, and what the missed-words summary leaves out."""
    level = words.level(word)
    return level is not None and level > COMMON_LEVEL


def worth_learning(words: Dictionary) -> Callable[[str], bool]:
    """The missed words of ``words`` a summary counts: the ones not rare."""
    return lambda word: not is_rare(words, word)


def family_of_board(board: str) -> str:
    """The rating family of a stored board's text (``"5x5"``)."""
    parsed = Board.parse(board)
    return family_of(parsed.rows, parsed.cols)


def facts_of_words(
    score: int, max_score: int | None, words: Iterable[Mapping[str, Any]], missed: Iterable[str]
) -> PlayFacts:
    """The facts of a list of verdicts (``WordResult.to_json()`` each): the found words, the
    longest (then the first alphabetically), the best-scoring (then the longer, then the
    first alphabetically) among the scored ones."""
    found = [w for w in words if w.get("verdict") in _FOUND]
    scored = [w for w in found if w.get("verdict") == _SCORED]
    longest = min(found, key=lambda w: (-len(w["word"]), w["word"]), default=None)
    best = min(scored, key=lambda w: (-int(w["score"]), -len(w["word"]), w["word"]), default=None)
    return PlayFacts(
        score=score,
        max_score=max_score,
        words=len({w["word"] for w in found}),
        longest_word=longest["word"] if longest is not None else None,
        best_word=best["word"] if best is not None else None,
        best_word_points=int(best["score"]) if best is not None else None,
        missed=tuple(dict.fromkeys(missed)),
    )


def facts_of_solo(result: Mapping[str, Any]) -> PlayFacts:
    """The facts of a solo or daily game from its stored result (``score_solo_game``'s):
    missed words worth learning are those not marked ``rare`` nor ``offensive``."""
    missed = (
        entry["word"]
        for entry in result.get("missed", ())
        if not entry.get("rare") and not entry.get("offensive")
    )
    max_score = result.get("max_score")
    return facts_of_words(
        int(result.get("score", 0)),
        int(max_score) if max_score is not None else None,
        result.get("words", ()),
        missed,
    )


def facts_of_room_round(
    result: Mapping[str, Any], player: str, common: Callable[[str], bool]
) -> PlayFacts | None:
    """The facts of ``player``'s part of a room's round from its stored result
    (``{"round": RoundResult.to_json(), "tally": …}``): their own points and words (in team
    play too: the member's own, not the team's). Their missed words are the board's words they
    did not find (the ones nobody found, and the ones the others found) that ``common`` says
    are worth learning and the family filter does not hide. ``None`` for a round that could
    not be scored, or that ``player`` did not play."""
    scored = result.get("round")
    if not isinstance(scored, Mapping):
        return None
    players = scored.get("players", {})
    mine = players.get(player)
    if not isinstance(mine, Mapping):
        return None
    own = {w["word"] for w in mine.get("words", ()) if w.get("verdict") in _FOUND}
    board_words = [entry["word"] for entry in scored.get("missed", ())]
    for name, other in players.items():
        if name != player:
            board_words += [w["word"] for w in other["words"] if w.get("verdict") in _FOUND]
    missed = sorted({w for w in board_words if w not in own and common(w) and not is_offensive(w)})
    max_score = scored.get("max_score")
    return facts_of_words(
        int(mine.get("score", 0)),
        int(max_score) if max_score is not None else None,
        mine.get("words", ()),
        missed,
    )


def record_play(
    session: Session,
    *,
    account_id: int,
    kind: str,
    rules: str,
    family: str,
    ref: str,
    played_at: float,
    daily_date: str | None,
    score: int,
    max_score: int | None,
    words: int,
    longest_word: str | None,
    best_word: str | None,
    best_word_points: int | None,
    missed: Iterable[str] = (),
) -> bool:
    """Write one play of member ``account_id`` in ``session`` (the caller's transaction) and
    count its ``missed`` words in the member's summary for ``family``. Idempotent: if the
    member already has a play with this ``ref``, nothing changes and ``False`` is returned."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {sorted(KINDS)}")
    values = {
        "account_id": account_id,
        "kind": kind,
        "rules": rules,
        "family": family,
        "ref": ref,
        "played_at": played_at,
        "daily_date": daily_date,
        "score": score,
        "max_score": max_score,
        "words": words,
        "longest_word": longest_word,
        "best_word": best_word,
        "best_word_points": best_word_points,
    }
    if not _insert_once(session, values):
        return False
    count_missed(session, account_id, family, missed)
    add_to_totals(session, values)
    return True


def record_facts(
    session: Session,
    *,
    account_id: int,
    kind: str,
    rules: str,
    family: str,
    ref: str,
    played_at: float,
    daily_date: str | None,
    facts: PlayFacts,
) -> bool:
    """:func:`record_play` with the fields of ``facts``."""
    return record_play(
        session,
        account_id=account_id,
        kind=kind,
        rules=rules,
        family=family,
        ref=ref,
        played_at=played_at,
        daily_date=daily_date,
        score=facts.score,
        max_score=facts.max_score,
        words=facts.words,
        longest_word=facts.longest_word,
        best_word=facts.best_word,
        best_word_points=facts.best_word_points,
        missed=facts.missed,
    )


def guarded(session: Session, record: Callable[[], object], what: str) -> None:
    """Run ``record`` (history writes) in a savepoint of ``session``: if it fails (a bug, an
    account deleted meanwhile), only the savepoint is rolled back and the failure logged, so
    the result the caller's transaction stores (a game's, a round's) is never lost to it."""
    try:
        with session.begin_nested():
            record()
    except Exception:
        log.exception("could not record the history of %s", what)


def _insert_once(session: Session, values: dict[str, Any]) -> bool:
    """Insert a play unless the member already has its ``ref``: one statement that cannot
    fail on the unique key (``ON CONFLICT DO NOTHING``), so a play recorded twice at once (a
    claim racing the scoring) leaves the caller's transaction intact."""
    dialect = session.get_bind().dialect.name
    if dialect in ("sqlite", "postgresql"):
        insert = sqlite.insert if dialect == "sqlite" else postgresql.insert
        statement = (
            insert(PlayRow)
            .values(**values)
            .on_conflict_do_nothing(index_elements=["account_id", "ref"])
            .returning(PlayRow.id)
        )
        return session.scalar(statement) is not None
    if session.scalar(
        select(PlayRow.id).where(
            PlayRow.account_id == values["account_id"], PlayRow.ref == values["ref"]
        )
    ):
        return False
    try:
        with session.begin_nested():
            session.add(PlayRow(**values))
    except IntegrityError:
        return False
    return True


def count_missed(session: Session, account_id: int, family: str, missed: Iterable[str]) -> None:
    """Count one play's ``missed`` words (each once) in the member's summary for ``family``
    (see the module's doc), the row locked for the update."""
    words = list(dict.fromkeys(missed))
    row = session.scalar(
        select(MissedWordsRow)
        .where(MissedWordsRow.account_id == account_id, MissedWordsRow.family == family)
        .with_for_update()
    )
    if row is None:
        row = MissedWordsRow(account_id=account_id, family=family, summary={})
        try:
            with session.begin_nested():
                session.add(row)
        except IntegrityError:  # made meanwhile by another play's transaction: update that
            row = session.scalars(
                select(MissedWordsRow)
                .where(MissedWordsRow.account_id == account_id, MissedWordsRow.family == family)
                .with_for_update()
                .execution_options(populate_existing=True)
            ).one()
    row.summary = summarise(row.summary, words)


def summarise(
    summary: Mapping[str, Any], words: Iterable[str], counters: int = MISSED_WORDS_COUNTERS
) -> dict[str, Any]:
    """``summary`` with one more play's missed ``words`` counted (each once): a new value,
    with at most ``counters`` words (Misra-Gries, as the module's doc says)."""
    counts: dict[str, int] = {str(w): int(n) for w, n in dict(summary.get("counts", {})).items()}
    added = 0
    for word in dict.fromkeys(words):
        counts[word] = counts.get(word, 0) + 1
        added += 1
    if len(counts) > counters:
        cut = sorted(counts.values(), reverse=True)[counters]
        counts = {word: n - cut for word, n in counts.items() if n > cut}
    return {
        "counts": dict(sorted(counts.items(), key=lambda item: (-item[1], item[0]))),
        "games": int(summary.get("games", 0)) + 1,
        "misses": int(summary.get("misses", 0)) + added,
    }


# -- the play totals ---------------------------------------------------------------------------

#: The key of a member's totals row: one per member, family, preset and mode.
TOTAL_KEY = ("account_id", "family", "rules", "kind")


def new_total(play: Mapping[str, Any]) -> dict[str, Any]:
    """An empty totals row (:class:`~.store.PlayTotalRow`'s columns) for ``play``'s key."""
    return {
        **{name: play[name] for name in TOTAL_KEY},
        "games": 0,
        "best_score": 0,
        "best_share": None,
        "longest_word": None,
        "longest_at": None,
        "best_word": None,
        "best_word_points": None,
        "best_word_at": None,
    }


def added_play(total: Mapping[str, Any], play: Mapping[str, Any]) -> dict[str, Any]:
    """``total`` (a totals row's columns) with ``play`` (a :class:`~.store.PlayRow`'s
    columns) counted: one more game, the better score and share, and the longer word or the
    word worth more points (on a tie, the one played earlier stays), as a new value."""
    new = dict(total)
    new["games"] = total["games"] + 1
    new["best_score"] = max(total["best_score"], play["score"])
    max_score = play["max_score"]
    if max_score is not None and max_score > 0:
        share = min(1.0, play["score"] / max_score)
        if total["best_share"] is None or share > total["best_share"]:
            new["best_share"] = share
    at = play["played_at"]
    word, held = play["longest_word"], total["longest_word"]
    if word is not None and (held is None or (len(word), -at) > (len(held), -total["longest_at"])):
        new["longest_word"], new["longest_at"] = word, at
    best, points = play["best_word"], play["best_word_points"]
    if best is not None and points is not None:
        mine = total["best_word_points"]
        if mine is None or (points, -at) > (mine, -total["best_word_at"]):
            new["best_word"], new["best_word_points"], new["best_word_at"] = best, points, at
    return new


def fold_totals(plays: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The totals rows of ``plays`` (each a :class:`~.store.PlayRow`'s columns, in the order
    they were recorded): what :func:`record_play` leaves in the table, for a bulk load."""
    totals: dict[tuple[Any, ...], dict[str, Any]] = {}
    for play in plays:
        key = tuple(play[name] for name in TOTAL_KEY)
        totals[key] = added_play(totals.get(key) or new_total(play), play)
    return list(totals.values())


def add_to_totals(session: Session, play: Mapping[str, Any]) -> None:
    """Count ``play`` (the columns just inserted) in its member's totals row, the row locked
    for the update (made if it is the first such play)."""
    where = [getattr(PlayTotalRow, name) == play[name] for name in TOTAL_KEY]
    row = session.scalar(select(PlayTotalRow).where(*where).with_for_update())
    if row is None:
        try:
            with session.begin_nested():
                session.add(PlayTotalRow(**added_play(new_total(play), play)))
            return
        except IntegrityError:  # made meanwhile by another play's transaction: update that
            row = session.scalars(
                select(PlayTotalRow)
                .where(*where)
                .with_for_update()
                .execution_options(populate_existing=True)
            ).one()
    current = {column: getattr(row, column) for column in new_total(play)}
    for column, value in added_play(current, play).items():
        setattr(row, column, value)
