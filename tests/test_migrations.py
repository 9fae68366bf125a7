"""Migrations: the head revision is the models, databases written by older bigboggles upgrade in
place with every row kept, refused databases stay untouched, and workers starting at once on a
fresh database migrate it exactly once. Each test runs on SQLite and on PostgreSQL.

PostgreSQL needs ``BIGBOGGLE_TEST_POSTGRES`` (a SQLAlchemy URL of a database the tests may use);
each test gets a fresh schema in it (through ``search_path``), dropped afterwards. Without the
variable the PostgreSQL runs skip, unless ``BIGBOGGLE_REQUIRE_SERVICES`` is set.
"""

from __future__ import annotations

import importlib.util
import logging
import multiprocessing
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from bigboggle.errors import StoreError
from bigboggle.services import migrations
from bigboggle.services.store import SCHEMA_VERSION, Base, Store
from conftest import postgres_schema

pytestmark = pytest.mark.once

POSTGRES = os.environ.get("BIGBOGGLE_TEST_POSTGRES")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'bigboggle.sqlite3'}"
        return
    with postgres_schema("test_migrations") as url:
        yield url


def _engine(url: str) -> sa.Engine:
    return sa.create_engine(url, poolclass=sa.NullPool)


def _differences(url: str) -> list[Any]:
    """What Alembic's autogenerate sees between the database and the models (nothing, we hope)."""
    engine = _engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = _engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


# -- The schema as bigboggle wrote it before Alembic -------------------------------------------
# Frozen copies of the models of schema version 1 (commit d52a01c) and 2 (commit 97dcb89): the
# CREATE TABLE statements they emit are what those versions' create_all wrote. The test at the
# end checks these copies against the old code itself, where the git history is at hand.


def _v1_tables(metadata: sa.MetaData, board: sa.types.TypeEngine[str]) -> None:
    sa.Table(
        "settings",
        metadata,
        sa.Column("key", sa.String(40), primary_key=True),
        sa.Column("value", sa.String(200), nullable=False),
    )
    sa.Table(
        "games",
        metadata,
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("rules", sa.String(40), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("dictionary", sa.String(80), nullable=False),
        sa.Column("board", board, nullable=False),
        sa.Column("seed", sa.BigInteger),
        sa.Column("player", sa.String(80), nullable=False),
        sa.Column("daily_date", sa.String(10)),
        sa.Column("daily_key", sa.String(160), unique=True),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("deadline", sa.Float, nullable=False),
        sa.Column("ended_at", sa.Float),
        sa.Column("score", sa.Integer),
        sa.Column("max_score", sa.Integer),
        sa.Index("ix_games_daily", "daily_date", "rules", "score"),
    )
    sa.Table(
        "game_words",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("entry", sa.String(200), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.UniqueConstraint("game_id", "seq"),
    )
    sa.Table(
        "tournaments",
        metadata,
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("rules", sa.String(40), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("dictionary", sa.String(80), nullable=False),
        sa.Column("target", sa.Integer),
        sa.Column("rounds", sa.Integer),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    sa.Table(
        "tournament_rounds",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "tournament_id",
            sa.String(16),
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("request", sa.JSON, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("tournament_id", "number"),
    )


def _v2_room_tables(metadata: sa.MetaData) -> list[sa.Table]:
    room = sa.ForeignKey("rooms.code", ondelete="CASCADE")
    return [
        sa.Table(
            "rooms",
            metadata,
            sa.Column("code", sa.String(12), primary_key=True),
            sa.Column("settings", sa.JSON, nullable=False),
            sa.Column("host", sa.String(80), nullable=False),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("seq", sa.Integer, nullable=False),
            sa.Column("over", sa.Boolean, nullable=False),
        ),
        sa.Table(
            "room_players",
            metadata,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("room", sa.String(12), room, nullable=False, index=True),
            sa.Column("name", sa.String(80), nullable=False),
            sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
            sa.Column("joined_at", sa.Float, nullable=False),
            sa.UniqueConstraint("room", "name"),
        ),
        sa.Table(
            "room_rounds",
            metadata,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column(
                "room",
                sa.String(12),
                sa.ForeignKey("rooms.code", ondelete="CASCADE"),
                nullable=False,
                index=True,
            ),
            sa.Column("number", sa.Integer, nullable=False),
            sa.Column("board", sa.Text, nullable=False),
            sa.Column("seed", sa.BigInteger),
            sa.Column("settings", sa.JSON, nullable=False),
            sa.Column("starts_at", sa.Float, nullable=False),
            sa.Column("deadline", sa.Float, nullable=False),
            sa.Column("ended_at", sa.Float),
            sa.UniqueConstraint("room", "number"),
        ),
        sa.Table(
            "room_words",
            metadata,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column(
                "round_id",
                sa.Integer,
                sa.ForeignKey("room_rounds.id", ondelete="CASCADE"),
                nullable=False,
                index=True,
            ),
            sa.Column("player", sa.String(80), nullable=False),
            sa.Column("entry", sa.String(200), nullable=False),
            sa.Column("at", sa.Float, nullable=False),
        ),
    ]


def legacy_schema(history: str) -> sa.MetaData:
    """The tables a database had before Alembic: ``"1"`` (version 1), ``"2"`` (version 2 made
    fresh) or ``"1+2"`` (version 1 brought to 2 by the hand-written step, which added the room
    tables and ``games.owner_hash`` but left ``games.board`` at VARCHAR(600))."""
    metadata = sa.MetaData()
    _v1_tables(metadata, sa.Text() if history == "2" else sa.String(600))
    if history != "1":
        _v2_room_tables(metadata)
        metadata.tables["games"].append_column(sa.Column("owner_hash", sa.String(64)))
    return metadata


def write_legacy_database(url: str, history: str) -> dict[str, list[dict[str, Any]]]:
    """Make the database at ``url`` what an old bigboggle left, with rows in every table, and
    answer the rows by table."""
    metadata = legacy_schema(history)
    engine = _engine(url)
    try:
        if history == "1+2":
            # What version 1's create_all wrote, then what the step to version 2 did.
            v1 = legacy_schema("1")
            v1.create_all(engine)
            rooms = [metadata.tables[name] for name in metadata.tables if name.startswith("room")]
            metadata.create_all(engine, tables=rooms)
            with engine.begin() as connection:
                connection.exec_driver_sql("ALTER TABLE games ADD COLUMN owner_hash VARCHAR(64)")
        else:
            metadata.create_all(engine)
        rows = legacy_rows(history)
        with engine.begin() as connection:
            for table in metadata.sorted_tables:
                connection.execute(table.insert(), rows[table.name])
    finally:
        engine.dispose()
    return rows


def legacy_rows(history: str) -> dict[str, list[dict[str, Any]]]:
    """Rows for every table of a legacy schema, with every column filled where it may be."""
    version = "1" if history == "1" else "2"
    board = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
    game: dict[str, Any] = {
        "rules": "big",
        "options": {"timer": 180, "challenge": False},
        "dictionary": "standard",
        "board": board,
        "player": "ann",
        "started_at": 1_790_000_000.25,
        "deadline": 1_790_000_180.25,
    }
    games = [
        {
            **game,
            "id": "g-finished",
            "seed": 2**40 + 7,
            "daily_date": None,
            "daily_key": None,
            "ended_at": 1_790_000_100.5,
            "score": 13,
            "max_score": 402,
        },
        {
            **game,
            "id": "g-daily",
            "seed": None,
            "daily_date": "2026-09-21",
            "daily_key": "2026-09-21/big/ann",
            "ended_at": None,
            "score": None,
            "max_score": None,
        },
    ]
    if version == "2":
        games[0]["owner_hash"] = "a" * 64
        games[1]["owner_hash"] = None
    rows: dict[str, list[dict[str, Any]]] = {
        "settings": [
            {"key": "schema_version", "value": version},
            {"key": "daily_secret", "value": "s3cret-of-the-day"},
        ],
        "games": games,
        "game_words": [
            {"id": 1, "game_id": "g-finished", "seq": 0, "entry": "lines", "at": 1_790_000_001.0},
            {
                "id": 2,
                "game_id": "g-finished",
                "seq": 1,
                "entry": "arsenite",
                "at": 1_790_000_002.0,
            },
            {"id": 3, "game_id": "g-daily", "seq": 0, "entry": "Qwerty!", "at": 1_790_000_003.0},
        ],
        "tournaments": [
            {
                "id": "t-1",
                "name": "Sunday",
                "rules": "big",
                "options": {},
                "dictionary": "standard",
                "target": 50,
                "rounds": None,
                "created_at": 1_790_000_000.0,
            }
        ],
        "tournament_rounds": [
            {
                "id": 1,
                "tournament_id": "t-1",
                "number": 1,
                "request": {"board": board, "players": {"ann": ["lines"], "bob": ["arsenite"]}},
                "created_at": 1_790_000_010.0,
            }
        ],
    }
    if version == "2":
        rows["rooms"] = [
            {
                "code": "ROOMA",
                "settings": {"rules": "big", "timer": 180},
                "host": "ann",
                "created_at": 1_790_000_000.0,
                "seq": 7,
                "over": False,
            },
            {
                "code": "ROOMB",
                "settings": {},
                "host": "cy",
                "created_at": 1_790_000_000.0,
                "seq": 0,
                "over": True,
            },
        ]
        rows["room_players"] = [
            {"id": 1, "room": "ROOMA", "name": "ann", "token_hash": "1" * 64, "joined_at": 1.5},
            {"id": 2, "room": "ROOMA", "name": "bob", "token_hash": "2" * 64, "joined_at": 2.5},
        ]
        rows["room_rounds"] = [
            {
                "id": 1,
                "room": "ROOMA",
                "number": 1,
                "board": board,
                "seed": 99,
                "settings": {"rules": "big", "timer": 180},
                "starts_at": 1_790_000_003.0,
                "deadline": 1_790_000_183.0,
                "ended_at": 1_790_000_183.5,
            },
            {
                "id": 2,
                "room": "ROOMA",
                "number": 2,
                "board": board,
                "seed": None,
                "settings": {"rules": "big", "timer": 60},
                "starts_at": 1_790_000_200.0,
                "deadline": 1_790_000_260.0,
                "ended_at": None,
            },
        ]
        rows["room_words"] = [
            {"id": 1, "round_id": 1, "player": "ann", "entry": "lines", "at": 1_790_000_010.0},
            {"id": 2, "round_id": 1, "player": "bob", "entry": "lines", "at": 1_790_000_011.0},
            {"id": 3, "round_id": 2, "player": "bob", "entry": "tqard", "at": 1_790_000_201.0},
        ]
    return rows


def read_rows(url: str, history: str) -> dict[str, list[dict[str, Any]]]:
    """The legacy tables' columns as they are now, by table, in primary-key order."""
    engine = _engine(url)
    try:
        with engine.connect() as connection:
            return {
                table.name: [
                    dict(row._mapping)
                    for row in connection.execute(
                        table.select().order_by(*table.primary_key.columns)
                    )
                ]
                for table in legacy_schema(history).sorted_tables
            }
    finally:
        engine.dispose()


def _by_key(rows: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """The rows in primary-key order, as :func:`read_rows` answers them."""
    keys = {"settings": "key", "rooms": "code"}
    return {
        name: sorted(table, key=lambda row, name=name: row[keys.get(name, "id")])
        for name, table in rows.items()
    }


# -- The schema --------------------------------------------------------------------------------


def test_revisions_are_numbered_in_one_line() -> None:
    revisions = list(reversed(list(migrations.scripts().walk_revisions())))
    assert [script.revision for script in revisions] == [
        f"{n:04d}" for n in range(1, len(revisions) + 1)
    ]
    assert [script.down_revision for script in revisions] == [
        None,
        *(script.revision for script in revisions[:-1]),
    ]
    assert migrations.head() == f"{SCHEMA_VERSION:04d}"
    for version, revision in migrations.LEGACY_REVISIONS.items():
        assert int(revision) == version


def test_a_new_database_is_made_by_the_migrations_and_matches_the_models(database: str) -> None:
    store = Store(database)
    assert store.schema_version == SCHEMA_VERSION
    store.close()
    assert _tables(database) == {*Base.metadata.tables, "alembic_version"}
    # If this fails, a model changed without a revision: see "How to add a revision" in
    # bigboggle.services.migrations.
    assert _differences(database) == []
    engine = _engine(database)
    with engine.connect() as connection:
        assert connection.scalar(sa.text("SELECT count(*) FROM alembic_version")) == 1
        legacy = "SELECT value FROM settings WHERE key = 'schema_version'"
        assert connection.scalar(sa.text(legacy)) == str(SCHEMA_VERSION)
    engine.dispose()


def test_reopening_an_up_to_date_database_keeps_what_it_holds(database: str) -> None:
    Store(database).close()
    engine = _engine(database)
    with engine.begin() as connection:
        connection.exec_driver_sql("INSERT INTO settings (key, value) VALUES ('kept', 'yes')")
    engine.dispose()
    again = Store(database)
    assert again.schema_version == SCHEMA_VERSION
    assert again.setting("kept", lambda: "no") == "yes"
    again.close()


def test_every_revision_goes_down_and_up_again(database: str) -> None:
    Store(database).close()
    engine = _engine(database)
    with engine.begin() as connection:
        command.downgrade(migrations.config(connection), "base")
    assert _tables(database) == {"alembic_version"}
    with engine.begin() as connection:
        assert migrations.current(connection) is None
        for script in reversed(list(migrations.scripts().walk_revisions())):
            command.upgrade(migrations.config(connection), script.revision)
            assert migrations.current(connection) == script.revision
        for script in migrations.scripts().walk_revisions():
            command.downgrade(migrations.config(connection), script.down_revision or "base")
        command.upgrade(migrations.config(connection), "head")
    engine.dispose()
    assert _differences(database) == []


# -- Databases from before Alembic -------------------------------------------------------------


@pytest.mark.parametrize("history", ["1", "2", "1+2"])
def test_a_database_from_before_alembic_upgrades_with_every_row_kept(
    database: str, history: str
) -> None:
    written = write_legacy_database(database, history)
    store = Store(database)
    assert store.schema_version == SCHEMA_VERSION
    assert store.setting("daily_secret", lambda: "a new secret") == "s3cret-of-the-day"
    store.close()
    expected = _by_key(written)
    expected["settings"] = [
        {"key": "daily_secret", "value": "s3cret-of-the-day"},
        {"key": "schema_version", "value": str(SCHEMA_VERSION)},
    ]
    assert read_rows(database, history) == expected
    assert _differences(database) == []  # the same schema as a new database's
    assert _tables(database) == {*Base.metadata.tables, "alembic_version"}


def test_an_upgraded_database_takes_long_boards_and_new_rows(database: str) -> None:
    write_legacy_database(database, "1+2")  # games.board was VARCHAR(600) here
    Store(database).close()
    engine = _engine(database)
    with engine.begin() as connection:
        games = sa.table("games", *(sa.column(name) for name in ("id", "board")))
        connection.execute(games.update().values(board="A" * 2000))
        assert connection.scalar(sa.select(sa.func.max(sa.func.length(games.c.board)))) == 2000
    engine.dispose()


def test_the_upgrade_of_an_old_database_keeps_its_game_playable(database: str) -> None:
    from bigboggle.services.shelf import DictionaryShelf
    from bigboggle.services.solo_games import SoloGames

    write_legacy_database(database, "1")
    store = Store(database)
    view = SoloGames(store, DictionaryShelf(), lambda: 1_790_000_050.0).get("g-finished")
    assert view.game.board == "LINES/TQARD/HEMOP/ABCKI/PSTEW"
    assert not view.game.has_owner  # a game from before keys
    store.close()


def test_boards_stored_with_a_challenge_mark_on_a_blank_load_after_the_upgrade(
    database: str,
) -> None:
    """Revision 0007: a board stored with a marked blank ('.*', refused by Board.parse since)
    in a solo game, a tournament round (request and result) or a room round (board and
    result) is stored unmarked, so the game plays and scores and the tournament reads."""
    from bigboggle.services.paper_games import PaperTournaments
    from bigboggle.services.shelf import DictionaryShelf
    from bigboggle.services.solo_games import SoloGames
    from bigboggle.services.store import RoomRoundRow, RoomRow

    board, marked = "LI.ES/TQARD/HEMOP/ABCKI/PSTEW", "LI.*ES/TQARD/HEMOP/ABCKI/PSTEW"
    now = 1_790_000_000.0
    store = Store(database)
    game = SoloGames(store, DictionaryShelf(), lambda: now).start("big", board=board)
    tournaments = PaperTournaments(store, DictionaryShelf(), lambda: now)
    cup = tournaments.create("Cup", rounds=3)
    tournaments.add_round(cup.tournament.id, {"board": board, "players": {"ann": ["tqa"]}}, cup.key)
    with store.session() as session:
        session.add(RoomRow(code="ROOM1", settings={}, host="ann", created_at=now))
        session.flush()
        session.add(
            RoomRoundRow(
                room="ROOM1",
                number=1,
                board=board,
                settings={},
                starts_at=now,
                deadline=now + 180,
                result={"round": {"board": board, "players": {}}, "tally": {}},
            )
        )
    store.close()
    engine = _engine(database)
    with engine.begin() as connection:  # as a bigboggle before the refusal stored them
        command.downgrade(migrations.config(connection), "0006")
        connection.execute(sa.text("UPDATE games SET board = :b"), {"b": marked})
        connection.execute(sa.text("UPDATE room_rounds SET board = :b"), {"b": marked})
        rounds = sa.table(
            "tournament_rounds", sa.column("request", sa.JSON()), sa.column("result", sa.JSON())
        )
        request, result = connection.execute(sa.select(rounds.c.request, rounds.c.result)).one()
        connection.execute(
            rounds.update().values(
                request={**request, "board": marked}, result={**result, "board": marked}
            )
        )
        room_rounds = sa.table("room_rounds", sa.column("result", sa.JSON()))
        connection.execute(
            room_rounds.update().values(result={"round": {"board": marked, "players": {}}})
        )
    engine.dispose()
    store = Store(database)  # the upgrade
    games = SoloGames(store, DictionaryShelf(), lambda: now + 1)
    assert games.get(game.game.id, game.key).game.board == board
    assert games.submit(game.game.id, "lines", game.key).result.verdict.value == "not_on_board"
    assert games.finish(game.game.id, game.key).over
    # a service of the new store: the first store's engine is disposed, and asking it again
    # would open a connection in a fresh pool that nothing closes
    tournaments = PaperTournaments(store, DictionaryShelf(), lambda: now + 1)
    assert tournaments.get(cup.tournament.id).played[0]["board"] == board
    with store.session() as session:
        request, result = session.execute(sa.select(rounds.c.request, rounds.c.result)).one()
        assert request["board"] == result["board"] == board
        room = session.scalars(sa.select(RoomRoundRow)).one()
        assert room.board == room.result["round"]["board"] == board  # type: ignore[index]
    store.close()


def test_a_database_of_the_schema_before_accounts_upgrades_with_its_games_as_guests(
    database: str,
) -> None:
    """Revision 0009 (accounts): a database written by the bigboggle before it, with a solo
    game, a daily game and a room with two seats, keeps every row; its games and seats are
    guests' (no member), and the new tables start empty and take rows."""
    from bigboggle.services.rooms import Rooms
    from bigboggle.services.shelf import DictionaryShelf
    from bigboggle.services.solo_games import SoloGames
    from bigboggle.services.store import AccountRow, PlayRow, RoomPlayerRow, SoloGameRow

    now = 1_790_000_000.0
    store = Store(database)
    shelf = DictionaryShelf()
    games = SoloGames(store, shelf, lambda: now)
    solo = games.start("big", board="LINES/TQARD/HEMOP/ABCKI/PSTEW", player="ann")
    daily = games.start("big", daily=True, player="bob")
    code, _token = Rooms(store, shelf, lambda: now).create("cat")
    Rooms(store, shelf, lambda: now).join(code, "dan")
    store.close()
    engine = _engine(database)
    with engine.begin() as connection:
        command.downgrade(migrations.config(connection), "0008")
        assert "accounts" not in sa.inspect(connection).get_table_names()
        before = {
            table: [
                dict(row._mapping)
                for row in connection.execute(sa.text(f"SELECT * FROM {table} ORDER BY 1"))
            ]
            for table in ("games", "room_players", "rooms")
        }
    engine.dispose()
    store = Store(database)  # the upgrade
    assert store.schema_version == SCHEMA_VERSION
    with store.session() as session:
        stored_games = session.scalars(sa.select(SoloGameRow).order_by(SoloGameRow.id)).all()
        assert {game.id for game in stored_games} == {solo.game.id, daily.game.id}
        assert [game.account_id for game in stored_games] == [None, None]
        seats = session.scalars(sa.select(RoomPlayerRow).order_by(RoomPlayerRow.id)).all()
        assert [(seat.name, seat.account_id) for seat in seats] == [("cat", None), ("dan", None)]
        session.add(AccountRow(username="ann", name_key="ann", created_at=now))
        session.flush()
        account = session.scalars(sa.select(AccountRow)).one()
        stored_games[0].account_id = account.id
        session.add(
            PlayRow(
                account_id=account.id,
                kind="solo",
                rules="big",
                family="5x5",
                ref=solo.game.id,
                played_at=now,
                score=3,
                words=2,
            )
        )
    store.close()
    engine = _engine(database)
    with engine.connect() as connection:
        for table, rows in before.items():
            # Only the columns the rows had before: later revisions add columns of their own.
            old_columns = set(rows[0]) if rows else set()
            after = [
                {key: value for key, value in dict(row._mapping).items() if key in old_columns}
                for row in connection.execute(sa.text(f"SELECT * FROM {table} ORDER BY 1"))
            ]
            assert after == rows, table
    engine.dispose()
    assert _differences(database) == []


def test_plays_stored_before_the_totals_are_summed_by_the_upgrade(database: str) -> None:
    """Revision 0010 (play totals): a database at 0009 with members' plays (out of time order,
    ties of length and points, boards without points) upgrades, and its totals are what the
    history's own fold of the same plays makes."""
    from bigboggle.services.history import fold_totals

    store = Store(database)
    store.close()
    engine = _engine(database)
    with engine.begin() as connection:
        command.downgrade(migrations.config(connection), "0009")
        assert "play_totals" not in sa.inspect(connection).get_table_names()
        for account in (1, 2):
            connection.execute(
                sa.text(
                    "INSERT INTO accounts (id, username, name_key, created_at)"
                    " VALUES (:id, :name, :name, 0)"
                ),
                {"id": account, "name": f"member{account}"},
            )
        plays = []
        words = [
            ("lines", "quartz", 11),
            ("tears", "zebra", 11),
            (None, None, None),
            ("pets", "pets", 2),
        ]
        for number in range(24):
            longest, best, points = words[number % len(words)]
            plays.append(
                {
                    "id": number + 1,
                    "account_id": 1 + number % 2,
                    "kind": ("solo", "daily", "room")[number % 3],
                    "rules": ("big", "big-1979", "classic")[number % 5 % 3],
                    "family": "4x4" if number % 5 % 3 == 2 else "5x5",
                    "ref": f"ref{number}",
                    "played_at": 1_000.0 - 10 * (number % 7),  # not in id order; some equal
                    "daily_date": None,
                    "score": (number * 7) % 30,
                    "max_score": (None, 0, 40, 20)[number % 4],
                    "words": 3,
                    "longest_word": longest,
                    "best_word": best,
                    "best_word_points": points,
                }
            )
        columns = ", ".join(plays[0])
        values = ", ".join(f":{name}" for name in plays[0])
        connection.execute(sa.text(f"INSERT INTO plays ({columns}) VALUES ({values})"), plays)
    engine.dispose()
    store = Store(database)  # the upgrade
    assert store.schema_version == SCHEMA_VERSION
    store.close()
    key = ("account_id", "family", "rules", "kind")
    engine = _engine(database)
    with engine.connect() as connection:
        stored = [
            dict(row._mapping) for row in connection.execute(sa.text("SELECT * FROM play_totals"))
        ]
    engine.dispose()
    expected = fold_totals(plays)
    assert len(expected) > 6 and any(total["games"] > 1 for total in expected)
    by_key = sorted(stored, key=lambda row: tuple(row[name] for name in key))
    assert by_key == sorted(expected, key=lambda row: tuple(row[name] for name in key))
    assert _differences(database) == []


# -- Refusals ----------------------------------------------------------------------------------


def _execute(url: str, *statements: str) -> None:
    engine = _engine(url)
    with engine.begin() as connection:
        for statement in statements:
            connection.exec_driver_sql(statement)
    engine.dispose()


def test_a_revision_from_a_newer_bigboggle_is_refused_and_left_alone(database: str) -> None:
    Store(database).close()
    _execute(database, "UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(StoreError, match=r"'9999', newer than this bigboggle's"):
        Store(database)
    assert _tables(database) == {*Base.metadata.tables, "alembic_version"}


def test_a_legacy_version_from_a_newer_bigboggle_is_refused(database: str) -> None:
    write_legacy_database(database, "2")
    _execute(database, "UPDATE settings SET value = '7' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 7 but no schema revision"):
        Store(database)
    assert "alembic_version" not in _tables(database)


@pytest.mark.parametrize(
    "statements",
    [
        ["CREATE TABLE games (id VARCHAR(10))"],
        ["CREATE TABLE settings (key VARCHAR(40), value VARCHAR(200))"],
        ["CREATE TABLE alembic_version (version_num VARCHAR(32))", "CREATE TABLE games (x INT)"],
    ],
    ids=["tables", "settings-without-version", "empty-alembic-version"],
)
def test_tables_without_a_schema_version_are_refused(database: str, statements: list[str]) -> None:
    _execute(database, *statements)
    before = _tables(database)
    with pytest.raises(StoreError, match="holds tables but no bigboggle schema version"):
        Store(database)
    assert _tables(database) == before


def test_a_legacy_version_that_is_not_a_number_is_refused(database: str) -> None:
    write_legacy_database(database, "1")
    _execute(database, "UPDATE settings SET value = 'two' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version that is not a number: 'two'"):
        Store(database)


def test_a_database_emptied_by_hand_is_refused(database: str) -> None:
    Store(database).close()
    _execute(database, "DROP TABLE room_words")
    with pytest.raises(StoreError, match=r"lacks the tables \['room_words'\]"):
        Store(database)


def test_other_applications_tables_are_left_beside_ours(database: str) -> None:
    _execute(database, "CREATE TABLE their_things (id INTEGER PRIMARY KEY)")
    _execute(database, "INSERT INTO their_things (id) VALUES (42)")
    Store(database).close()
    assert _tables(database) == {*Base.metadata.tables, "alembic_version", "their_things"}
    engine = _engine(database)
    with engine.connect() as connection:
        assert connection.scalar(sa.text("SELECT id FROM their_things")) == 42
    engine.dispose()


def test_sqlite_foreign_keys_are_on_again_after_the_migrations(tmp_path: Path) -> None:
    # They are off while the migrations run (a rebuilt table must not cascade its deletion; with
    # them on, the rebuild of games by revision 0003 would delete every word of every game).
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    write_legacy_database(url, "1+2")
    store = Store(url)
    with store.engine.connect() as connection:  # the pooled connection the migrations used
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    with store.session() as session:
        session.execute(sa.text("DELETE FROM games WHERE id = 'g-finished'"))
    with store.session() as session:
        assert session.scalar(sa.text("SELECT count(*) FROM game_words")) == 1  # cascaded
    store.close()


def test_a_sqlite_upgrade_that_would_break_a_foreign_key_is_rolled_back(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    write_legacy_database(url, "1+2")
    # A word whose game is gone (possible in a file written with foreign keys off).
    _execute(
        url,
        "INSERT INTO game_words (id, game_id, seq, entry, at) VALUES (9, 'gone', 0, 'x', 0)",
    )
    with pytest.raises(StoreError, match=r"a row of table 'game_words' pointing at nothing"):
        Store(url)
    assert read_rows(url, "1+2")["settings"][1] == {"key": "schema_version", "value": "2"}
    assert "alembic_version" not in _tables(url)


# -- Several workers at once -------------------------------------------------------------------


def _open_store(url: str, start: Any, answers: Any) -> None:
    """A worker: wait for the others, open the store, report what its migrations did."""
    ran: list[str] = []

    class Recorder(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("Running upgrade"):
                ran.append(record.getMessage())

    log = logging.getLogger("alembic.runtime.migration")
    log.setLevel(logging.INFO)
    log.addHandler(Recorder())
    try:
        start.wait(timeout=60)
        store = Store(url)
        answers.put((store.schema_version, len(ran), None))
        store.close()
    except Exception as exc:
        answers.put((None, len(ran), repr(exc)))


WORKERS = 4


def _workers_context() -> Any:
    """Fresh processes for the workers, forked from a server process that has imported this
    module (and with it the store, SQLAlchemy and Alembic) once: each worker starts with no
    connection, engine or lock of the test's own, as a spawned one would, but without paying
    the imports again (about 1.7 s of CPU a worker, eight workers a run). The server is
    started once per test process, for both databases."""
    forkserver = multiprocessing.get_context("forkserver")
    forkserver.set_forkserver_preload([_open_store.__module__])
    return forkserver


def test_workers_starting_at_once_migrate_exactly_once(database: str) -> None:
    context = _workers_context()
    start = context.Barrier(WORKERS)
    answers = context.Queue()
    workers = [
        context.Process(target=_open_store, args=(database, start, answers)) for _ in range(WORKERS)
    ]
    for worker in workers:
        worker.start()
    try:
        results = [answers.get(timeout=120) for _ in workers]
    finally:
        for worker in workers:
            worker.join(timeout=60)
    assert [error for _, _, error in results] == [None] * WORKERS
    assert [version for version, _, _ in results] == [SCHEMA_VERSION] * WORKERS
    # One worker ran every revision; the others waited for it and found nothing to do.
    assert sorted(ran for _, ran, _ in results) == [0] * (WORKERS - 1) + [SCHEMA_VERSION]
    engine = _engine(database)
    with engine.connect() as connection:
        assert connection.scalar(sa.text("SELECT count(*) FROM alembic_version")) == 1
    engine.dispose()
    assert _differences(database) == []


# -- Writing a new revision ---------------------------------------------------------------------


def test_a_new_revision_is_numbered_after_the_head(tmp_path: Path) -> None:
    scripts = tmp_path / "migrations"
    shutil.copytree(migrations.SCRIPTS, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    written = migrations.new_revision("nothing changed", scripts)
    assert written.name == f"{SCHEMA_VERSION + 1:04d}_nothing_changed.py"
    text = written.read_text(encoding="utf-8")
    assert f"down_revision = '{SCHEMA_VERSION:04d}'" in text
    assert "op." not in text  # the models are the head: nothing to do
    assert migrations.head(scripts) == f"{SCHEMA_VERSION + 1:04d}"


def test_the_revision_command_says_how_to_use_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert migrations.main([]) == 2
    assert migrations.main(["new", "  "]) == 2
    assert "usage: python -m bigboggle.services.migrations new" in capsys.readouterr().err


# -- The frozen legacy schema is what the old code wrote ---------------------------------------


def _old_store_module(commit: str, tmp_path: Path) -> Any:
    """``bigboggle/store.py`` as it was at ``commit``, importable on its own."""
    shown = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:src/bigboggle/store.py"],
        capture_output=True,
        text=True,
        check=False,
    )
    if shown.returncode != 0:
        pytest.skip(f"the git history (commit {commit}) is not at hand: {shown.stderr[:200]!r}")
    source = shown.stdout.replace("from .errors import", "from bigboggle.errors import")
    path = tmp_path / f"old_store_{commit}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # the declarative models resolve their names through it
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[path.stem]
    return module


@pytest.mark.parametrize("history", ["1", "2", "1+2"])
def test_the_frozen_legacy_schema_is_what_the_old_code_wrote(
    database: str, history: str, tmp_path: Path
) -> None:
    v1 = _old_store_module("d52a01c", tmp_path)
    v2 = _old_store_module("97dcb89", tmp_path)
    assert (v1.SCHEMA_VERSION, v2.SCHEMA_VERSION) == (1, 2)
    for old in [v1] if history == "1" else [v2] if history == "2" else [v1, v2]:
        old.Store(database).close()
    engine = _engine(database)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, legacy_schema(history)) == []
    engine.dispose()
    # And the new code brings what the old code wrote up to date.
    Store(database).close()
    assert _differences(database) == []
