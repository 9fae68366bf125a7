"""No challenge mark on a blank in stored boards: '.*' becomes '.'.

``Board.parse`` now refuses a challenge mark on a blank cell (its bonus could never be earned),
so a board stored with one (a given board of a solo game, a tournament round's, a room round's)
would no longer load: the game's page would answer 400 and its scoring fail on every try. The
mark meant nothing on a blank, so it is dropped wherever a board's text is kept: the ``board``
columns of ``games`` and ``room_rounds``, and the ``"board"`` of the JSON that
``tournament_rounds`` (``request``, ``result``) and ``room_rounds`` (``result``, its
``"round"``) store. In
canonical text ``*`` only ever follows a cell, so ``.*`` is exactly a marked blank.

The downgrade changes nothing back: which blanks were marked is not kept, and an older
bigboggle reads an unmarked blank as well as a marked one.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

MARKED_BLANK = ".*"
BLANK = "."

#: Tables whose ``board`` column holds a board's text.
BOARD_COLUMNS = ("games", "room_rounds")
#: Tables (and their key, and their JSON columns) whose JSON may hold a board's text under
#: ``"board"``.
JSON_COLUMNS = (
    ("tournament_rounds", "id", ("request", "result")),
    ("room_rounds", "id", ("result",)),
)


def upgrade() -> None:
    connection = op.get_bind()
    for name in BOARD_COLUMNS:
        table = sa.table(name, sa.column("board", sa.Text()))
        connection.execute(
            table.update()
            .where(table.c.board.like(f"%{MARKED_BLANK}%"))
            .values(board=sa.func.replace(table.c.board, MARKED_BLANK, BLANK))
        )
    for name, key, columns in JSON_COLUMNS:
        _unmark_json(connection, name, key, columns)


def _unmark_json(connection: sa.Connection, name: str, key: str, columns: tuple[str, ...]) -> None:
    """Drop the mark from the ``"board"`` of each JSON column of table ``name`` (only rows whose
    JSON text holds a marked blank somewhere are read)."""
    table = sa.table(name, sa.column(key), *(sa.column(column, sa.JSON()) for column in columns))
    holds_mark = sa.or_(
        *(sa.cast(table.c[column], sa.Text()).like(f"%{MARKED_BLANK}%") for column in columns)
    )
    rows = connection.execute(
        sa.select(table.c[key], *(table.c[column] for column in columns)).where(holds_mark)
    ).all()
    for row in rows:
        changed = {
            column: fixed
            for column in columns
            if (fixed := _unmarked(getattr(row, column))) is not None
        }
        if changed:
            connection.execute(
                table.update().where(table.c[key] == getattr(row, key)).values(**changed)
            )


def _unmarked(data: Any) -> Any | None:
    """``data`` with the mark dropped from every ``"board"`` in it (at the top, or in a nested
    object such as a room result's ``"round"``), or ``None`` if there was nothing to change."""
    if not isinstance(data, dict):
        return None
    changed: dict[str, Any] = {}
    for name, value in data.items():
        if name == "board" and isinstance(value, str) and MARKED_BLANK in value:
            changed[name] = value.replace(MARKED_BLANK, BLANK)
        elif isinstance(value, dict) and (inner := _unmarked(value)) is not None:
            changed[name] = inner
    return {**data, **changed} if changed else None


def downgrade() -> None:
    pass  # (nothing to undo: see the module's docstring)
