"""The database: created with a schema version, reopened intact, newer schemas refused.

(Migrations in depth, on SQLite and PostgreSQL: tests/test_migrations.py.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bigboggle.errors import StoreError
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import SCHEMA_VERSION, Store, default_url
from conftest import FakeClock

pytestmark = pytest.mark.once


def test_a_new_database_gets_the_current_schema(db_url: str) -> None:
    store = Store(db_url)
    assert store.schema_version == SCHEMA_VERSION
    store.ping()
    store.close()


def test_what_is_stored_survives_closing_and_reopening(db_url: str, clock: FakeClock) -> None:
    store = Store(db_url)
    games = SoloGames(store, DictionaryShelf(), clock)
    started = games.start("big", seed=7)
    games.submit(started.row.id, "mode", started.key)
    store.close()

    again = SoloGames(Store(db_url), DictionaryShelf(), clock)
    view = again.get(started.row.id, started.key)
    assert view.row.board == started.row.board
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


def test_a_setting_is_made_once_and_kept(db_url: str) -> None:
    store = Store(db_url)
    first = store.setting("daily_secret", lambda: "one")
    assert store.setting("daily_secret", lambda: "two") == first == "one"
