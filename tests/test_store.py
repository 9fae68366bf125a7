"""The database: created with a schema version, reopened intact, newer schemas refused.

(Migrations in depth, on SQLite and PostgreSQL: tests/test_migrations.py.)"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import make_url, text
from sqlalchemy.exc import IntegrityError

from bigboggle.errors import StoreError
from bigboggle.services.paper_games import PaperTournaments
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import (
    SCHEMA_VERSION,
    Base,
    Setting,
    Store,
    _sqlite_pragmas,
    default_url,
)
from conftest import FakeClock, postgres_schema

pytestmark = pytest.mark.once


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """No file yet, unlike conftest's copy of a migrated database: these tests are about the
    store making its database, then reopening it."""
    return f"sqlite:///{tmp_path / 'bigboggle.sqlite3'}"


def test_a_new_database_gets_the_current_schema(db_url: str) -> None:
    store = Store(db_url)
    assert store.schema_version == SCHEMA_VERSION
    store.ping()
    store.close()


def test_what_is_stored_survives_closing_and_reopening(db_url: str, clock: FakeClock) -> None:
    store = Store(db_url)
    games = SoloGames(store, DictionaryShelf(), clock)
    started = games.start("big", seed=7)
    games.submit(started.game.id, "mode", started.key)
    store.close()

    again = SoloGames(Store(db_url), DictionaryShelf(), clock)
    view = again.get(started.game.id, started.key)
    assert view.game.board == started.game.board
    assert [word.word for word in view.words] == ["mode"]


def test_a_database_from_a_newer_bigboggle_is_refused(db_url: str, tmp_path: Path) -> None:
    Store(db_url).close()
    with sqlite3.connect(tmp_path / "bigboggle.sqlite3") as connection:
        connection.execute(
            "UPDATE alembic_version SET version_num = ?", (f"{SCHEMA_VERSION + 1:04d}",)
        )
    with pytest.raises(StoreError, match="newer than this bigboggle"):
        Store(db_url)


def test_the_schema_version_is_also_kept_where_bigboggles_before_alembic_read_it(
    db_url: str, tmp_path: Path
) -> None:
    # They read settings.schema_version, so they refuse this database instead of misusing it.
    Store(db_url).close()
    with sqlite3.connect(tmp_path / "bigboggle.sqlite3") as connection:
        (kept,) = connection.execute(
            "SELECT value FROM settings WHERE key = 'schema_version'"
        ).fetchone()
        (revision,) = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert int(kept) == int(revision) == SCHEMA_VERSION


def test_a_database_of_someone_elses_tables_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE games (id TEXT)")
    with pytest.raises(StoreError, match="no bigboggle schema version"):
        Store(f"sqlite:///{path}")


def test_bad_urls_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not valid"):
        Store("no-such-scheme://x")
    with pytest.raises(StoreError, match="not valid"):
        Store("postgresql+nosuchdriver://localhost/x")
    with pytest.raises(StoreError, match="cannot open"):
        Store("sqlite:////proc/no/such/folder/db.sqlite3")
    (tmp_path / "a-file").write_text("not a folder")
    with pytest.raises(StoreError, match="cannot open"):
        Store(f"sqlite:///{tmp_path / 'a-file' / 'db.sqlite3'}")


def test_the_sqlite_folder_is_created(tmp_path: Path) -> None:
    Store(f"sqlite:///{tmp_path / 'deep' / 'er' / 'db.sqlite3'}").close()
    assert (tmp_path / "deep" / "er" / "db.sqlite3").is_file()


def test_default_url_is_a_sqlite_file_in_the_data_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("BIGBOGGLE_DB", raising=False)
    url = default_url()
    assert url.startswith("sqlite:///") and url.endswith("bigboggle.sqlite3")
    monkeypatch.setenv("BIGBOGGLE_DB", "sqlite:///elsewhere.sqlite3")
    assert default_url() == "sqlite:///elsewhere.sqlite3"


def _race_to_open(path: Path, contenders: int) -> tuple[list[str], list[Exception]]:
    """``contenders`` threads open ``path`` at the same moment, each as the store's engine
    opens a connection; their journal modes and failures."""
    start = threading.Barrier(contenders)
    failures: list[Exception] = []
    modes: list[str] = []

    def open_connection() -> None:
        connection = sqlite3.connect(path, timeout=30, check_same_thread=False)
        try:
            start.wait(timeout=30)
            _sqlite_pragmas(connection, None)
            modes.append(connection.execute("PRAGMA journal_mode").fetchone()[0])
        except sqlite3.Error as exc:
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=open_connection) for _ in range(contenders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return modes, failures


def test_connections_opening_a_new_sqlite_file_at_once_all_switch_it_to_wal(
    tmp_path: Path,
) -> None:
    # The switch to WAL needs the file to itself, and SQLite refused it at once ("database is
    # locked", without waiting) to a connection racing another one: a worker among several
    # starting on a new database failed to start. Threads race far more tightly than processes,
    # so a few dozen new files show it nearly every time.
    for attempt in range(40):
        modes, failures = _race_to_open(tmp_path / f"new-{attempt}.sqlite3", contenders=4)
        assert failures == [], f"new file {attempt}"
        assert modes == ["wal"] * 4


def test_a_setting_is_made_once_and_kept(db_url: str) -> None:
    store = Store(db_url)
    first = store.setting("daily_secret", lambda: "one")
    assert store.setting("daily_secret", lambda: "two") == first == "one"


# -- a database that cannot answer ---------------------------------------------------------------


def _drop_table(db_url: str, table: str) -> None:
    """Drop ``table`` from the SQLite file at ``db_url`` behind the store's back."""
    with sqlite3.connect(db_url.removeprefix("sqlite:///")) as connection:
        connection.execute("PRAGMA foreign_keys=OFF")
        connection.execute(f"DROP TABLE {table}")


def test_a_session_on_a_missing_table_raises_store_error(db_url: str) -> None:
    store = Store(db_url)
    _drop_table(db_url, "settings")
    with pytest.raises(StoreError, match=r"cannot answer: no such table: settings") as caught:
        store.setting("daily_secret", lambda: "one")
    assert repr(store.shown_url) in str(caught.value) and "SELECT" not in str(caught.value)
    store.close()


def test_a_write_session_on_a_missing_table_raises_store_error(db_url: str) -> None:
    store = Store(db_url)
    _drop_table(db_url, "settings")
    with pytest.raises(StoreError, match=r"no such table: settings"), store.write_session() as s:
        s.execute(text("SELECT value FROM settings"))
    store.close()


def test_a_taken_unique_key_is_still_an_integrity_error_in_a_session(db_url: str) -> None:
    # The services catch IntegrityError around their own flushes (a daily game, a seat's name).
    store = Store(db_url)
    for key, sessions in (("a", store.session), ("b", store.write_session)):
        with sessions() as session:
            session.add(Setting(key=key, value="one"))
        with pytest.raises(IntegrityError), sessions() as session:
            session.add(Setting(key=key, value="two"))
            session.flush()
    store.close()


def test_a_lost_postgres_connection_is_a_store_error_without_the_password() -> None:
    with postgres_schema("store_lost") as url:
        password = make_url(url).password
        store = Store(url)
        with pytest.raises(StoreError) as caught, store.session() as session:
            session.execute(text("SELECT pg_terminate_backend(pg_backend_pid())"))
        assert str(caught.value).startswith(f"the database {store.shown_url!r} cannot answer")
        assert f":{password}@" not in str(caught.value) and ":***@" in str(caught.value)
        store.close()


# -- no row leaves a service -------------------------------------------------------------------


def _rows_in(value: object, where: str) -> list[str]:
    """Where in ``value`` (a service's answer) an ORM row sits, walking dataclasses, mappings
    and sequences; a view that is a dataclass must be frozen."""
    if isinstance(value, Base):
        return [f"{where}: a {type(value).__name__}"]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        frozen = type(value).__dataclass_params__.frozen  # type: ignore[attr-defined]
        assert frozen, f"{where}: {type(value).__name__} is not frozen"
        return [
            found
            for field in dataclasses.fields(value)
            for found in _rows_in(getattr(value, field.name), f"{where}.{field.name}")
        ]
    if isinstance(value, Mapping):
        return [
            found
            for key, item in value.items()
            for found in [*_rows_in(key, where), *_rows_in(item, f"{where}[{key!r}]")]
        ]
    if isinstance(value, list | tuple | set | frozenset):
        return [found for i, item in enumerate(value) for found in _rows_in(item, f"{where}[{i}]")]
    return []


class _Watched:
    """A service whose every public call's answer is checked for rows (and, for views, that
    their JSON is JSON); remembers which methods were called."""

    def __init__(self, service: object) -> None:
        self._service = service
        self.called: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._service, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            answer = method(*args, **kwargs)
            self.called.add(name)
            assert _rows_in(answer, f"{name}()") == []
            for view in answer if isinstance(answer, list | tuple) else [answer]:
                if hasattr(view, "to_json"):
                    json.dumps(view.to_json())
            return answer

        return call


def _public_methods(cls: type) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls, inspect.isfunction) if name[0] != "_"}


def test_no_row_leaves_the_solo_games_service(db_url: str, clock: FakeClock) -> None:
    """Every public method of SoloGames answers plain values (frozen views with to_json), never
    a row a page could lazy-load from or change; a new public method must join this test."""
    games = _Watched(SoloGames(Store(db_url), DictionaryShelf(), clock))
    games.rules_for("big", {"min_length": 4})
    started = games.start("big", board="LINES/TQARD/HEMOP/ABCKI/PSTEW")
    game_id, key = started.game.id, started.key
    games.submit(game_id, "lines", key)
    games.get(game_id, key)
    games.get(game_id)
    today = games.start("big", daily=True, player="ann")
    games.daily_seed("big", today.game.daily_date)
    clock.advance(200)  # past both deadlines
    assert {found for found, _ in games.overdue()} == {game_id, today.game.id}
    games.settle(today.game.id)
    games.finish(game_id, key)
    later = games.start("big", seed=3)
    assert [found for found, _ in games.running()] == []  # wordless: no timer needed
    games.submit(later.game.id, "lines", later.key)
    assert [found for found, _ in games.running()] == [later.game.id]
    hinted = games.start("big", seed=4, practice=True)
    games.use_hint(hinted.game.id, "words_left", hinted.key)
    assert [entry.player for entry in games.leaderboard("big", today.game.daily_date)] == ["ann"]
    assert {game.id for game in games.recent()} == {game_id, today.game.id}
    assert games.called == _public_methods(SoloGames)


def test_no_row_leaves_the_paper_games_service(db_url: str, clock: FakeClock) -> None:
    """Every public method of PaperTournaments answers plain values, never a row."""
    tournaments = _Watched(PaperTournaments(Store(db_url), DictionaryShelf(), clock))
    created = tournaments.create("Friday", rounds=2)
    tid, key = created.tournament.id, created.key
    round_data = {"board": "LINES/TQARD/HEMOP/ABCKI/PSTEW", "players": {"ann": ["lines"]}}
    scored, after = tournaments.add_round(tid, round_data, key)
    assert scored.to_json()["number"] == 1 and after.standings["totals"] == {"ann": 2}
    tournaments.rename(tid, "Saturday", key)
    assert tournaments.get(tid).tournament.name == "Saturday"
    assert [found.id for found in tournaments.recent()] == [tid]
    assert tournaments.unscored() == []
    tournaments.catch_up(tid)
    tournaments.delete(tid, key)
    assert tournaments.called == _public_methods(PaperTournaments)
