"""One daily game per name, preset and day, on SQLite and PostgreSQL: a name that has played
today's board is refused whatever its game's state (running, finished, past its deadline and
never ended, scored by the timer, claimed by a member) and under any spelling that shares its
clash key (case, spaces, look-alikes); two starts of one name at once give one game."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from sqlalchemy import func, select

from bigboggle.errors import GameStateError
from bigboggle.services.claims import ClaimCounts, Claims
from bigboggle.services.compute import run_here
from bigboggle.services.daily import daily_key, utc_date
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import SoloGameRow, Store
from conftest import FakeClock, make_member

pytestmark = pytest.mark.once
T = TypeVar("T")

#: Spellings a reader takes for "daisy": case, surrounding and inner spaces, separators,
#: full-width letters, Cyrillic а (U+0430), dotless ı, and capital I for l's look-alike.
SAME_NAME = [
    "Daisy",
    "DAISY",
    "daisy ",
    "  daisy",
    "dai sy",
    "dai_sy",
    "daisy.",
    "ｄａｉｓｙ",
    "d\u0430isy",
    "da\u0131sy",
    "DAISY\u0301",
]


def slot_rows(store: Store, key: str) -> int:
    """How many stored games hold daily slot ``key``."""
    with store.session() as session:
        counted = session.scalar(
            select(func.count()).select_from(SoloGameRow).where(SoloGameRow.daily_key == key)
        )
        return counted or 0


def daisys_game(games: SoloGames, store: Store, clock: FakeClock, state: str) -> None:
    """Start "daisy"'s daily game and leave it in ``state``."""
    started = games.start("big", daily=True, player="daisy")
    game_id, key = started.game.id, started.key
    games.submit(game_id, "qqqq", key)
    if state == "finished":
        games.finish(game_id, key)
    elif state == "past its deadline":  # nobody ended it: no timer, no read with the key
        clock.advance(500)
    elif state == "scored by the timer":
        clock.advance(500)
        games.settle(game_id)
    elif state == "claimed":
        games.finish(game_id, key)
        claims = Claims(store, DictionaryShelf(), clock)
        counts = claims.adopt(make_member(store, "mara"), games=[(game_id, key or "")])
        assert counts == ClaimCounts(games=1, seats=0, refused=0)
    phase = games.get(game_id).to_json()["phase"]
    assert phase == {"running": "running", "past its deadline": "scoring"}.get(state, "ended")


@pytest.mark.parametrize(
    "state", ["running", "finished", "past its deadline", "scored by the timer", "claimed"]
)
def test_a_name_that_played_today_is_refused_under_every_spelling(
    store: Store, clock: FakeClock, state: str
) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    daisys_game(games, store, clock, state)
    slot = daily_key(utc_date(clock.now), "big", "daisy")
    for spelling in SAME_NAME:
        assert daily_key(utc_date(clock.now), "big", spelling) == slot, spelling
        with pytest.raises(GameStateError, match="already played"):
            games.start("big", daily=True, player=spelling)
    assert slot_rows(store, slot) == 1
    # Not a blanket refusal: another name, another preset, and tomorrow's board are free.
    games.start("big", daily=True, player="daisie")
    games.start("superbig", daily=True, player="Daisy")
    clock.advance(86_400)
    assert games.start("big", daily=True, player="DAISY").game.player == "DAISY"


class Meeting:
    """A runner that holds each start at its first job (the board's points, which comes after
    the slot's lookup and before the insert) until both starts are there: so both have passed
    the lookup, and only the insert can decide between them."""

    def __init__(self) -> None:
        self.barrier = threading.Barrier(2, timeout=60)

    def __call__(self, fn: Callable[..., T], /, *args: Any) -> T:
        self.barrier.wait()
        return run_here(fn, *args)


@pytest.mark.parametrize("processes", [1, 2], ids=["one server", "two servers"])
def test_two_starts_of_one_name_at_once_give_one_game(
    store: Store, clock: FakeClock, processes: int
) -> None:
    """Two requests at once, in one server (one store, two threads) or in two (a store
    each, as two processes on one database): one game, and the other start is told the name
    has played, not a server error."""
    meeting = Meeting()
    stores = [store] if processes == 1 else [store, Store(store.url)]
    services = [
        SoloGames(stores[index % len(stores)], DictionaryShelf(), clock, runner=meeting)
        for index in range(2)
    ]
    try:

        def start(index: int) -> object:
            try:
                return services[index].start("big", daily=True, player=["daisy", "Daisy"][index])
            except GameStateError as refused:
                return refused

        with ThreadPoolExecutor(2) as pool:
            outcomes = list(pool.map(start, range(2)))
    finally:
        if processes == 2:
            stores[1].close()
    refused = [each for each in outcomes if isinstance(each, GameStateError)]
    assert len(refused) == 1 and "already played" in str(refused[0])
    assert slot_rows(store, daily_key(utc_date(clock.now), "big", "daisy")) == 1
