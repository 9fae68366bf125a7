"""How fast the profile and leaderboard pages answer on a big database: 10,000 members and
1,000,000 stored games by default (the target: p99 at most 50 ms).

It builds a seeded database first (SQLite in a temporary folder, or ``--db URL``; ``--keep``
leaves the SQLite file and ``--reuse`` measures one built before), with bulk inserts (Core
``insert`` with many rows per statement, never ORM objects one by one):

- members, each with a weight drawn from a Pareto law, so a few play thousands of games and
  most a few dozen (the heaviest profiles are the slow ones, which p99 sees);
- solo and daily games over the last year, spread over the presets (Big Boggle most), a
  fifth of them guests'; a daily game is one per name, day and preset, as the service
  keeps it; each member's game has its play (the history's row), summed into the member's
  play totals by the history's own fold, as recording each play would;
- ratings for every member in each family they played, rating events (a history of up to
  60 changes per member and family), and missed-word summaries of 200 words.

Then it asks the real app (in process, through Starlette's ASGI test client: the middleware,
the routes, the thread pool and the templates, all but the socket) for random players'
profile pages and the leaderboard pages of random presets and periods, after a warm-up, and
prints p50, p99 and the maximum per kind of page. The leaderboards are also asked with a
viewer (a random member, their own row counted by the database) straight from the service,
since a logged-in request needs the accounts' cookie. Run from the checkout::

    python benchmarks/bench_profiles.py                       # the full size (a few minutes)
    python benchmarks/bench_profiles.py --players 1000 --games 50000   # a quick run
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import string
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import func, insert, select

from bigboggle.names import name_key
from bigboggle.rating import family_of
from bigboggle.rules import PRESETS
from bigboggle.services.history import TOTAL_KEY, added_play, new_total
from bigboggle.services.leaderboards import PERIODS, Leaderboards
from bigboggle.services.store import (
    AccountRow,
    MissedWordsRow,
    PlayRow,
    PlayTotalRow,
    RatingEventRow,
    RatingRow,
    SoloGameRow,
    Store,
)

#: "Now" for the benchmark: the end of the seeded year (today's daily boards are full).
NOW = 1_790_000_000.0
DAY = 86_400.0
#: How often each preset is played (Big Boggle most, as on the site).
PRESET_WEIGHTS = {"big": 50, "classic": 20, "superbig": 15, "big-1979": 10, "classic-old": 5}
#: The share of games that are daily boards, and the share of games played by guests.
DAILY_SHARE = 0.4
GUEST_SHARE = 0.2
BATCH = 5_000


def batches(rows: Iterator[dict[str, Any]], size: int = BATCH) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class Seeder:
    """Writes the benchmark's rows into ``store``, from ``seed``."""

    def __init__(self, store: Store, players: int, games: int, seed: int) -> None:
        self.store = store
        self.players = players
        self.games = games
        self.random = random.Random(seed)
        self.weights = [min(200.0, self.random.paretovariate(1.2)) for _ in range(players)]
        self.boards = [
            "/".join(
                "".join(self.random.choice(string.ascii_uppercase) for _ in range(5))
                for _ in range(5)
            )
            for _ in range(100)
        ]
        self.words = ["".join(self.random.choices("aeilnorst", k=k)) for k in range(4, 12)] * 40
        #: (account id, family) -> games, for the ratings.
        self.played: dict[tuple[int, str], int] = {}
        #: The play totals rows, summed as the plays are made.
        self.totals: list[dict[str, Any]] = []

    def insert(self, table: Any, rows: Iterator[dict[str, Any]]) -> int:
        count = 0
        with self.store.engine.begin() as connection:
            for chunk in batches(rows):
                connection.execute(insert(table), chunk)
                count += len(chunk)
        return count

    def accounts(self) -> Iterator[dict[str, Any]]:
        for number in range(1, self.players + 1):
            name = f"player{number}"
            yield {
                "id": number,
                "username": name,
                "name_key": name_key(name),
                "password_hash": None,
                "created_at": NOW - 400 * DAY,
            }

    def _games_and_plays(self) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
        presets = list(PRESET_WEIGHTS)
        preset_weights = list(PRESET_WEIGHTS.values())
        ids = list(range(1, self.players + 1))
        per_day = self.games / 365
        daily_taken: set[tuple[str, str, int]] = set()
        made = 0
        day = 0
        while made < self.games:
            start = NOW - (364 - day % 365) * DAY
            date = dt.datetime.fromtimestamp(start, tz=dt.UTC).date().isoformat()
            midnight = dt.datetime.fromisoformat(date).replace(tzinfo=dt.UTC).timestamp()
            today_count = int(per_day) + (1 if self.random.random() < per_day % 1 else 0)
            members = self.random.choices(ids, weights=self.weights, k=today_count)
            rules_of = self.random.choices(presets, weights=preset_weights, k=today_count)
            for member, rules in zip(members, rules_of, strict=True):
                if made >= self.games:
                    break
                made += 1
                guest = self.random.random() < GUEST_SHARE
                daily = self.random.random() < DAILY_SHARE
                player = f"guest{made}" if guest else f"player{member}"
                if daily and not guest:
                    if (date, rules, member) in daily_taken:
                        daily = False  # one daily game per name, day and preset
                    else:
                        daily_taken.add((date, rules, member))
                started = midnight + self.random.uniform(0, DAY - 300)
                if day >= 364 and started > NOW:
                    started = NOW - self.random.uniform(300, 3600)
                ended = started + 180
                max_score = self.random.randint(150, 900)
                score = int(max_score * self.random.betavariate(2, 6))
                game_id = f"g{made:015d}"
                game = {
                    "id": game_id,
                    "rules": rules,
                    "options": {},
                    "dictionary": "standard",
                    "board": self.random.choice(self.boards),
                    "seed": None,
                    "player": player,
                    "owner_hash": None,
                    "daily_date": date if daily else None,
                    "account_id": None if guest else member,
                    "daily_key": f"{date}/{rules}/{player}" if daily else None,
                    "started_at": started,
                    "deadline": ended,
                    "ended_at": ended,
                    "score": score,
                    "max_score": max_score,
                    "word_count": score // 3,
                    "score_so_far": score,
                    "result": None,
                }
                play = None
                if not guest:
                    preset = PRESETS[rules]
                    family = family_of(preset.rows, preset.cols)
                    self.played[(member, family)] = self.played.get((member, family), 0) + 1
                    longest = self.random.choice(self.words)
                    play = {
                        "account_id": member,
                        "kind": "daily" if daily else "solo",
                        "rules": rules,
                        "family": family,
                        "ref": game_id,
                        "played_at": ended,
                        "daily_date": date if daily else None,
                        "score": score,
                        "max_score": max_score,
                        "words": score // 3,
                        "longest_word": longest,
                        "best_word": longest,
                        "best_word_points": max(1, len(longest) - 3),
                    }
                yield game, play
            day += 1

    def games_and_plays(self) -> tuple[int, int]:
        """Write the games and the plays, and sum the plays into :attr:`totals` as they go,
        with the history's own fold (what :func:`~bigboggle.services.history.record_play`
        keeps, as its tests check)."""
        games = plays = 0
        totals: dict[tuple[Any, ...], dict[str, Any]] = {}
        with self.store.engine.begin() as connection:
            game_rows: list[dict[str, Any]] = []
            play_rows: list[dict[str, Any]] = []
            for game, play in self._games_and_plays():
                game_rows.append(game)
                if play is not None:
                    play_rows.append(play)
                    key = tuple(play[name] for name in TOTAL_KEY)
                    totals[key] = added_play(totals.get(key) or new_total(play), play)
                if len(game_rows) >= BATCH:
                    connection.execute(insert(SoloGameRow), game_rows)
                    games += len(game_rows)
                    game_rows = []
                if len(play_rows) >= BATCH:
                    connection.execute(insert(PlayRow), play_rows)
                    plays += len(play_rows)
                    play_rows = []
            if game_rows:
                connection.execute(insert(SoloGameRow), game_rows)
                games += len(game_rows)
            if play_rows:
                connection.execute(insert(PlayRow), play_rows)
                plays += len(play_rows)
        self.totals = list(totals.values())
        return games, plays

    def ratings(self) -> Iterator[dict[str, Any]]:
        for (member, family), games in sorted(self.played.items()):
            mu = self.random.gauss(25, 4)
            sigma = max(1.0, 8.3 - games / 20)
            yield {
                "account_id": member,
                "family": family,
                "mu": mu,
                "sigma": sigma,
                "display": round(1000 + 40 * (mu - 3 * sigma), 1),
                "games": games,
                "updated_at": NOW - DAY,
            }

    def rating_events(self) -> Iterator[dict[str, Any]]:
        for (member, family), games in sorted(self.played.items()):
            for number in range(min(60, games)):
                mu = self.random.gauss(25, 4)
                sigma = max(1.0, 8.3 - number / 10)
                yield {
                    "account_id": member,
                    "family": family,
                    "contest": f"daily:{number}:{family}",
                    "at": NOW - (60 - number) * DAY,
                    "place": self.random.randint(1, 100),
                    "field": 100,
                    "mu": mu,
                    "sigma": sigma,
                    "display": 1000 + 40 * (mu - 3 * sigma),
                }

    def missed(self) -> Iterator[dict[str, Any]]:
        for (member, family), games in sorted(self.played.items()):
            counts = {
                f"{self.random.choice(self.words)}{n}": self.random.randint(1, games)
                for n in range(200)
            }
            yield {
                "account_id": member,
                "family": family,
                "summary": {"counts": counts, "games": games},
            }

    def build(self, say: Callable[[str], None]) -> None:
        started = time.perf_counter()
        say(f"accounts: {self.insert(AccountRow, self.accounts()):,}")
        games, plays = self.games_and_plays()
        say(f"games: {games:,}, plays: {plays:,} ({time.perf_counter() - started:.0f} s)")
        say(f"play totals: {self.insert(PlayTotalRow, iter(self.totals)):,}")
        say(f"ratings: {self.insert(RatingRow, self.ratings()):,}")
        say(f"rating events: {self.insert(RatingEventRow, self.rating_events()):,}")
        say(f"missed-word summaries: {self.insert(MissedWordsRow, self.missed()):,}")
        with self.store.engine.begin() as connection:
            if connection.dialect.name == "sqlite" or connection.dialect.name == "postgresql":
                connection.exec_driver_sql("ANALYZE")
        say(f"built in {time.perf_counter() - started:.0f} s")


def percentiles(times: list[float], cpu: list[float]) -> str:
    """p50, p99 and the maximum of the wall-clock times, then p50 and p99 of the CPU time the
    process spent (all its threads: one request at a time, so it is that request's work; on a
    shared, loaded machine the wall clock also counts waiting for a core)."""

    def p99(values: list[float]) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]

    return (
        f"p50 {1000 * statistics.median(times):6.1f} ms  p99 {1000 * p99(times):6.1f} ms  "
        f"max {1000 * max(times):6.1f} ms | CPU p50 {1000 * statistics.median(cpu):5.1f} ms  "
        f"p99 {1000 * p99(cpu):5.1f} ms  ({len(times)} requests)"
    )


def measure_pages(store: Store, players: int, requests: int, seed: int) -> None:
    from fastapi.testclient import TestClient

    from bigboggle.web.app import create_app

    chooser = random.Random(seed)
    app = create_app(store, clock=lambda: NOW)
    with TestClient(app) as client:
        heaviest = store_heaviest(store)

        def profile_path() -> str:
            return f"/players/{quote(f'player{chooser.randint(1, players)}')}"

        def leaderboard_path(period: str) -> Callable[[], str]:
            return lambda: (
                f"/leaderboard?rules={chooser.choice(list(PRESET_WEIGHTS))}&period={period}"
            )

        kinds: dict[str, Callable[[], str]] = {
            "profile page (random member)": profile_path,
            "profile JSON (random member)": lambda: (
                f"/api/players/player{chooser.randint(1, players)}"
            ),
            f"profile page (the heaviest, {heaviest[1]:,} plays)": lambda: (
                f"/players/{heaviest[0]}"
            ),
            **{f"leaderboard page, {period}": leaderboard_path(period) for period in PERIODS},
        }
        for name, path_of in kinds.items():
            for _ in range(10):  # warm-up: connections, templates, caches
                assert client.get(path_of()).status_code == 200
            times, cpu = [], []
            for _ in range(requests):
                path = path_of()
                started, spent = time.perf_counter(), time.process_time()
                response = client.get(path)
                times.append(time.perf_counter() - started)
                cpu.append(time.process_time() - spent)
                assert response.status_code == 200, (path, response.status_code)
            print(f"{name:46} {percentiles(times, cpu)}")


def store_heaviest(store: Store) -> tuple[str, int]:
    with store.session() as session:
        row = session.execute(
            select(PlayRow.account_id, func.count().label("n"))
            .group_by(PlayRow.account_id)
            .order_by(func.count().desc())
            .limit(1)
        ).one()
    return f"player{row.account_id}", row.n


def measure_viewer_ranks(store: Store, players: int, requests: int, seed: int) -> None:
    chooser = random.Random(seed + 1)
    boards = Leaderboards(store, lambda: NOW)
    for period in PERIODS:
        times, cpu = [], []
        for _ in range(requests):
            rules = chooser.choice(list(PRESET_WEIGHTS))
            viewer = chooser.randint(1, players)
            started, spent = time.perf_counter(), time.process_time()
            boards.board(rules, period, viewer_id=viewer)
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - spent)
        label = f"leaderboard service, {period}, with viewer"
        print(f"{label:46} {percentiles(times, cpu)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=300, help="per kind of page")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--db", help="a database URL (default: SQLite in a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary SQLite file")
    parser.add_argument("--reuse", action="store_true", help="measure --db as it is (no build)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-profiles-"))
    url = args.db or f"sqlite:///{folder / 'profiles.sqlite3'}"
    opening = time.perf_counter()
    store = Store(url)  # a database of an older schema is upgraded here
    print(f"database: {store.shown_url} (opened in {time.perf_counter() - opening:.1f} s)")
    if not args.reuse:
        Seeder(store, args.players, args.games, args.seed).build(print)
    measure_pages(store, args.players, args.requests, args.seed)
    measure_viewer_ranks(store, args.players, args.requests, args.seed)
    store.close()
    if not args.keep and not args.db:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    elif not args.db:
        print(f"kept: {url}")


if __name__ == "__main__":
    main()
