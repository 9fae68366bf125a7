"""The trainer as a service: a member's deck in the database, a guest's deck in their browser,
one scheduling implementation (:mod:`bigboggle.trainer`) for both.

**A member's deck** is their :class:`~bigboggle.services.store.TrainerCardRow` rows, one per
card, so progress is kept per card. It is fed from their history each time they open it (an
idempotent sync: a word already a card is not counted again):

- the missed-words summaries (:mod:`~bigboggle.services.history`), per family: the words missed
  in two plays or more, with their counts;
- their latest :data:`~bigboggle.limits.TRAINER_FEED_GAMES` solo and daily games: the missed
  words each game's stored results list (the common ones, not hidden by the family filter, the
  highest-scoring :data:`~bigboggle.limits.TRAINER_WORDS_PER_GAME` of each), with the board and
  the path they lay on, so their drill is the real board's fragment.

**A guest's deck** lives in the browser (``localStorage``), which sends it with each request
with the ids and keys of the games it played (as ``static/claim.js`` reads them); the deck is
checked whole (:meth:`~bigboggle.trainer.Deck.from_json`, bounded in size before it is parsed)
and fed from those games whose key matches (a wrong key contributes nothing), then scheduled
here and handed back. The server keeps nothing of it.

**A guest becoming a member** (sign-up or log-in: ``POST /api/me/claim`` with its
``trainer_deck``) brings that deck along (:meth:`Training.adopt_guest_deck`), checked whole as
the guest routes check it, and merged into the member's deck card by card: a word in both keeps
the card reviewed later (its schedule is the newer witness of the same person's memory of the
word; on a tie the member's), with the larger miss count and the board and path of either; a word new to the member's deck joins it
as it was (its schedule kept), the guest's most drilled cards first, while the deck has room
(:data:`~bigboggle.limits.TRAINER_MAX_CARDS`: the rest are left out, never a card of the
member's). Merging the same deck twice changes nothing the second time.

The dictionary that judges "also a word here" answers is the shelf's default one.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..board import Board, Path
from ..dictionary import DEFAULT_DICTIONARY, Dictionary
from ..errors import BoardError, RoundInputError
from ..limits import (
    TRAINER_FED_GAMES_KEPT,
    TRAINER_FEED_GAMES,
    TRAINER_GUEST_GAMES,
    TRAINER_MAX_CARDS,
    TRAINER_WORDS_PER_GAME,
)
from ..solver import FoundWord
from ..trainer import Answered, Card, Deck, answer_card, card_from_json, drill_for, worth_training
from .claims import checked_games
from .keys import holds_key
from .shelf import DictionaryShelf
from .store import AccountRow, MissedWordsRow, PlayRow, SoloGameRow, Store, TrainerCardRow

#: Summary words a member's deck takes per family (the most missed first), and how often a
#: word must have been missed to be taken from a summary.
SUMMARY_WORDS = 100
SUMMARY_LEAST_MISSES = 2


@dataclass(frozen=True)
class TrainerState:
    """What the trainer page shows: the deck's counts, the drill now (``None``: nothing due),
    its hint, and for a guest the deck to keep."""

    counts: Mapping[str, Any]
    drill: Mapping[str, Any] | None
    hint: Mapping[str, Any] | None
    deck: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"counts": dict(self.counts), "drill": self.drill, "hint": self.hint}
        if self.deck is not None:
            data["deck"] = self.deck
        return data


@dataclass(frozen=True)
class AnswerView:
    """An answer judged, and the trainer's state after it."""

    answered: Answered
    state: TrainerState
    now: float

    def to_json(self) -> dict[str, Any]:
        return {"result": self.answered.to_json(self.now), **self.state.to_json()}


def state_of(deck: Deck, now: float, *, guest: bool = False) -> TrainerState:
    """The trainer's state for ``deck`` at ``now`` (the deck itself too, for a guest)."""
    card = deck.next_card(now)
    drill = drill_for(card) if card is not None else None
    return TrainerState(
        counts=deck.counts(now),
        drill=drill.to_json() if drill is not None else None,
        hint=drill.hint_json() if drill is not None else None,
        deck=deck.to_json() if guest else None,
    )


def missed_of_result(result: object, most: int | None = TRAINER_WORDS_PER_GAME) -> list[FoundWord]:
    """The missed words worth a card in a solo game's stored results (see the module's doc),
    with their paths: the ``most`` highest-scoring (``None``: all)."""
    missed = result.get("missed") if isinstance(result, Mapping) else None
    if not isinstance(missed, list):
        return []
    found = []
    for entry in missed:
        if not isinstance(entry, Mapping) or entry.get("rare") or entry.get("offensive"):
            continue
        word, path, score = entry.get("word"), entry.get("path"), entry.get("score", 0)
        if isinstance(word, str) and isinstance(path, list) and isinstance(score, int):
            try:
                steps = tuple((int(r), int(c)) for r, c in path)
            except (TypeError, ValueError):
                continue
            found.append(FoundWord(word, steps, score))
    chosen = worth_training(found, most=most)
    return [item for item in chosen if isinstance(item, FoundWord)]


@dataclass(frozen=True)
class FedGame:
    """What a finished game gives a deck: its board (parsed once, ``None`` if it is not a
    board: its words then come without a fragment) and its missed words worth a card."""

    board: Board | None
    words: tuple[FoundWord, ...]

    @classmethod
    def of(cls, board: str, result: object) -> FedGame:
        try:
            parsed: Board | None = Board.parse(board)
        except BoardError:
            parsed = None
        return cls(parsed, tuple(missed_of_result(result)))


class FedGames:
    """The :class:`FedGame` of finished games by id, the latest used
    :data:`~bigboggle.limits.TRAINER_FED_GAMES_KEPT` kept (a finished game's results never
    change, so each is read and sifted once, not on every request); safe across threads."""

    def __init__(self, most: int = TRAINER_FED_GAMES_KEPT) -> None:
        self.most = most
        self._kept: OrderedDict[str, FedGame] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> FedGame | None:
        with self._lock:
            found = self._kept.get(game_id)
            if found is not None:
                self._kept.move_to_end(game_id)
            return found

    def put(self, game_id: str, fed: FedGame) -> None:
        with self._lock:
            self._kept[game_id] = fed
            self._kept.move_to_end(game_id)
            while len(self._kept) > self.most:
                self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)


def feed_from_game(
    deck: Deck, board: str | Board | None, result: object, now: float, keep: Collection[str] = ()
) -> None:
    """Note one game's missed words in ``deck`` (idempotent), each with its path on ``board``
    (without it where the board is too large for a fragment). A full deck gives up a card for
    a new word, never one of ``keep`` (the whole feed's words: :func:`fed_words`)."""
    feed_words(deck, board, missed_of_result(result), now, keep)


def feed_words(
    deck: Deck,
    board: str | Board | None,
    words: Iterable[FoundWord],
    now: float,
    keep: Collection[str] = (),
) -> None:
    """Note a game's missed ``words`` in ``deck`` (see :func:`feed_from_game`)."""
    for word in words:
        _note_placed(deck, word.word, now, (board, word.path) if board else None, 1, keep)


def fed_words(results: Iterable[object]) -> set[str]:
    """Every word a feed of these games' ``results`` notes: what a full deck keeps."""
    return {word.word for result in results for word in missed_of_result(result)}


def _note_placed(
    deck: Deck,
    word: str,
    now: float,
    place: tuple[str | Board, Path] | None,
    misses: int,
    keep: Collection[str] = (),
) -> None:
    held = deck.cards.get(word)
    if held is not None and held.board is not None:  # placed already: only the count may grow
        place = None
    if place is not None:
        try:
            deck.note(word, now, board=place[0], path=place[1], misses=misses, keep=keep)
            return
        except (BoardError, RoundInputError):  # a board too large for a fragment
            pass
    deck.note(word, now, misses=misses, keep=keep)


class Training:
    """The trainer over ``store``; answers are judged with ``shelf``'s ``dictionary``."""

    def __init__(
        self,
        store: Store,
        shelf: DictionaryShelf,
        clock: Callable[[], float] = time.time,
        dictionary: str = DEFAULT_DICTIONARY,
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.clock = clock
        self.dictionary = dictionary
        self.fed = FedGames()

    def words(self) -> Dictionary:
        return self.shelf.get(self.dictionary)

    # -- members ---------------------------------------------------------------------------

    def member_state(self, account_id: int) -> TrainerState:
        """Member ``account_id``'s deck fed from their history, and the drill now."""
        now = self.clock()
        with self.store.write_session() as session:
            _lock_member(session, account_id)
            deck = self._load(session, account_id)
            before = {card.word: card for card in deck}
            self._feed(session, account_id, deck, now)
            self._store(session, account_id, deck, before)
        return state_of(deck, now)

    def member_answer(
        self,
        account_id: int,
        card: str,
        answer: str,
        *,
        seconds: float = 0.0,
        hinted: bool = False,
        gave_up: bool = False,
    ) -> AnswerView:
        """Judge member ``account_id``'s ``answer`` to the drill of their card ``card`` (its
        id), keep the card's new schedule, and give the next drill."""
        words = self.words()
        now = self.clock()
        with self.store.write_session() as session:
            _lock_member(session, account_id)
            deck = self._load(session, account_id, lock=True)
            before = {held.word: held for held in deck}
            answered = answer_card(
                deck, card, answer, words, now, seconds=seconds, hinted=hinted, gave_up=gave_up
            )
            self._store(session, account_id, deck, before)
        return AnswerView(answered, state_of(deck, now), now)

    def adopt_guest_deck(self, account_id: int, deck: object) -> int:
        """Merge a guest's deck (its JSON form, as the guest routes take it) into member
        ``account_id``'s deck (see the module's doc); how many of its cards are now in the
        member's deck. :class:`~bigboggle.errors.DeckError` names what is wrong in a deck that
        is not one (``trainer_deck.cards[3].due``), before anything changes."""
        return self.merge_guest_deck(account_id, deck).carried

    def merge_guest_deck(self, account_id: int, deck: object) -> DeckMerge:
        """:meth:`adopt_guest_deck`, saying also how many of the guest's cards did not fit
        (the member's deck full): the browser must keep its copy of those, or they are lost."""
        guest = Deck.from_json(deck, "trainer_deck")
        if not guest.cards:
            return DeckMerge(0, 0)
        with self.store.write_session() as session:
            _lock_member(session, account_id)
            held = self._load(session, account_id, lock=True)
            before = {card.word: card for card in held}
            carried = merge_decks(held, guest)
            self._store(session, account_id, held, before)
        return DeckMerge(carried, len(guest.cards) - carried)

    def _load(self, session: Session, account_id: int, *, lock: bool = False) -> Deck:
        query = (
            select(TrainerCardRow)
            .where(TrainerCardRow.account_id == account_id)
            .order_by(TrainerCardRow.word)
        )
        deck = Deck()
        for row in session.scalars(query.with_for_update() if lock else query):
            deck.cards[row.word] = card_from_json({**row.card, "word": row.word}, row.word)
        return deck

    def _feed(self, session: Session, account_id: int, deck: Deck, now: float) -> None:
        games = session.execute(
            select(SoloGameRow.board, SoloGameRow.result)
            .join(PlayRow, (PlayRow.ref == SoloGameRow.id) & (PlayRow.account_id == account_id))
            .where(PlayRow.kind.in_(("solo", "daily")), SoloGameRow.result.is_not(None))
            .order_by(PlayRow.played_at.desc())
            .limit(TRAINER_FEED_GAMES)
        ).all()
        summaries = session.scalars(
            select(MissedWordsRow.summary).where(MissedWordsRow.account_id == account_id)
        ).all()
        often = [pair for summary in summaries for pair in _often_missed(summary)]
        keep = fed_words(result for _, result in games) | {word for word, _ in often}
        places: dict[str, tuple[str, Path]] = {}  # a word's latest board and path
        for board, result in reversed(games):
            places.update(
                {word.word: (board, word.path) for word in missed_of_result(result, None)}
            )
            feed_from_game(deck, board, result, now, keep)
        for word, misses in often:
            _note_placed(deck, word, now, places.get(word), misses, keep)

    @staticmethod
    def _store(session: Session, account_id: int, deck: Deck, before: Mapping[str, Card]) -> None:
        """Write the cards of ``deck`` that differ from ``before``, and delete those it gave
        up to make room."""
        for word in before.keys() - deck.cards.keys():
            row = session.get(TrainerCardRow, (account_id, word))
            if row is not None:
                session.delete(row)
        for card in deck:
            if before.get(card.word) == card:
                continue
            data = card.to_json()
            del data["word"]
            if card.word in before:
                row = session.get(TrainerCardRow, (account_id, card.word))
                if row is not None:
                    row.card, row.due = data, card.due
                    continue
            session.add(
                TrainerCardRow(account_id=account_id, word=card.word, card=data, due=card.due)
            )

    # -- guests ----------------------------------------------------------------------------

    def guest_state(self, deck: object, games: Sequence[tuple[str, str]]) -> TrainerState:
        """A guest's deck (its JSON form, ``None`` for a new one) fed from ``games`` (their
        ``(id, key)`` pairs: those whose key matches), and the drill now."""
        now = self.clock()
        held = Deck.from_json(deck) if deck is not None else Deck()
        played = self._guest_games(games)
        keep = {word.word for game in played for word in game.words}
        for game in played:
            feed_words(held, game.board, game.words, now, keep)
        return state_of(held, now, guest=True)

    def guest_answer(
        self,
        deck: object,
        card: str,
        answer: str,
        *,
        seconds: float = 0.0,
        hinted: bool = False,
        gave_up: bool = False,
    ) -> AnswerView:
        """Judge a guest's ``answer`` to the drill of their deck's card ``card``, scheduled
        in the deck handed back."""
        held = Deck.from_json(deck)
        words = self.words()
        now = self.clock()
        answered = answer_card(
            held, card, answer, words, now, seconds=seconds, hinted=hinted, gave_up=gave_up
        )
        return AnswerView(answered, state_of(held, now, guest=True), now)

    def _guest_games(self, games: Sequence[tuple[str, str]]) -> list[FedGame]:
        """What the finished ``games`` whose keys match give a deck (the latest
        :data:`TRAINER_GUEST_GAMES`, the latest first). The results of those not met before
        are read (and kept, :class:`FedGames`); the others' are not read again."""
        keys = dict(checked_games(games, at_most="at once"))
        if not keys:
            return []
        with self.store.session() as session:
            rows = session.execute(
                select(SoloGameRow.id, SoloGameRow.owner_hash)
                .where(SoloGameRow.id.in_(list(keys)), SoloGameRow.result.is_not(None))
                .order_by(SoloGameRow.ended_at.desc(), SoloGameRow.id)
            ).all()
            matching = [
                row.id
                for row in rows
                if row.owner_hash is not None and holds_key(row.owner_hash, keys[row.id])
            ][:TRAINER_GUEST_GAMES]
            found = {game_id: self.fed.get(game_id) for game_id in matching}
            unread = [game_id for game_id, fed in found.items() if fed is None]
            if unread:
                for row in session.execute(
                    select(SoloGameRow.id, SoloGameRow.board, SoloGameRow.result).where(
                        SoloGameRow.id.in_(unread)
                    )
                ):
                    fed = FedGame.of(row.board, row.result)
                    self.fed.put(row.id, fed)
                    found[row.id] = fed
        return [fed for fed in found.values() if fed is not None]


class DeckMerge(NamedTuple):
    """What a guest deck's merge did: its cards now in the member's deck (``carried``), and
    those left out because the member's deck was full (``left_out``)."""

    carried: int
    left_out: int


def merge_decks(into: Deck, guest: Deck, most: int = TRAINER_MAX_CARDS) -> int:
    """Merge ``guest``'s cards into ``into`` (see the module's doc), ``into`` holding at most
    ``most`` cards; how many of ``guest``'s cards are in it now."""
    carried = 0
    for card in sorted(guest, key=lambda card: (-card.reps, -card.misses, card.added, card.word)):
        held = into.cards.get(card.word)
        if held is not None:
            into.cards[card.word] = merged_card(held, card)
        elif len(into.cards) < most:
            into.cards[card.word] = card
        else:
            continue
        carried += 1
    return carried


def merged_card(held: Card, guest: Card) -> Card:
    """One word's card from a member's (``held``) and a guest's: the one reviewed later (a
    card never reviewed is the earliest; the member's on a tie), whose schedule is the newer
    witness of the word, however many reviews the other has, with the larger miss count, the
    earlier time added, and the other's board and path if it has none."""

    def reviewed(card: Card) -> float:
        return card.last_review if card.last_review is not None else -1.0

    ahead, other = (guest, held) if reviewed(guest) > reviewed(held) else (held, guest)
    if ahead.board is None and other.board is not None:
        ahead = replace(ahead, board=other.board, path=other.path)
    return replace(ahead, misses=max(held.misses, guest.misses), added=min(held.added, guest.added))


def _lock_member(session: Session, account_id: int) -> None:
    """Hold the member's account row for this transaction: two feeds of one deck at once (two
    tabs) would otherwise both insert its new cards, and the second fail on the unique key.
    (SQLite's write transactions are one at a time already.)"""
    session.execute(select(AccountRow.id).where(AccountRow.id == account_id).with_for_update())


def _often_missed(summary: object) -> Iterable[tuple[str, int]]:
    """The words of a stored missed-words summary missed at least
    :data:`SUMMARY_LEAST_MISSES` times, the most missed first, at most :data:`SUMMARY_WORDS`
    (a summary not of the expected shape gives none)."""
    counts = summary.get("counts") if isinstance(summary, Mapping) else None
    if not isinstance(counts, Mapping):
        return []
    found = [
        (word, count)
        for word, count in counts.items()
        if isinstance(word, str)
        and isinstance(count, int)
        and not isinstance(count, bool)
        and count >= SUMMARY_LEAST_MISSES
    ]
    found.sort(key=lambda item: (-item[1], item[0]))
    return found[:SUMMARY_WORDS]
