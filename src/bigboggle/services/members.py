"""Names reserved for members: a member's user name is theirs alone in play.

A member's name (its key, :func:`bigboggle.names.name_key`: case, width and look-alike
letters folded, so ``Bob``, ``ＢＯＢ`` and a Cyrillic ``Вов`` all meet ``bob``) may be used
by that member only: nobody else may start a solo game or the daily board under it, create a
room or take a seat with it. The checks run inside the transaction that stores the game or the
seat (:func:`check_name_free`), so a name is never half-taken. Names already in play when a
member signed up keep their place (a room's seat, a finished game). A name is marked as a
member's (``"member": true`` in views, the pages' "member" badge) only where its seat or game
belongs to the member *and* it is the member's own user name (:func:`marked_member`): a guest
game claimed later, or a seat a member took under another name, stays unmarked, so a badge
never vouches for a name the member does not hold.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import NameTakenError, quoted
from ..names import name_key
from .store import AccountRow


def holder_of(session: Session, name: str) -> int | None:
    """The id of the member whose user name has the same key as ``name``, if any."""
    return session.scalar(select(AccountRow.id).where(AccountRow.name_key == name_key(name)))


def username_of(session: Session, account_id: int) -> str | None:
    """Member ``account_id``'s user name (``None`` if the account is gone)."""
    return session.scalar(select(AccountRow.username).where(AccountRow.id == account_id))


def marked_member(name: str, username: str | None) -> str | None:
    """``username`` if a seat or game played as ``name`` by member ``username`` (``None``:
    a guest's) is to be marked as the member's: only when ``name`` is their user name (by
    :func:`~bigboggle.names.name_key`); else ``None``."""
    if username is None or name_key(name) != name_key(username):
        return None
    return username


def check_name_free(session: Session, name: str, account_id: int | None) -> None:
    """:class:`NameTakenError` if ``name`` is another member's (anyone but ``account_id``:
    a guest passes ``None``)."""
    holder = holder_of(session, name)
    if holder is not None and holder != account_id:
        shown = quoted(name, 40)
        raise NameTakenError(
            f"the name {shown} belongs to a member: log in as {name}, or choose another"
        )
