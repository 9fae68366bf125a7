"""Room codes and seat tokens: how a room is named and how a seat proves who it is.

Room codes are :data:`CODE_LENGTH` letters from :data:`CODE_LETTERS`, 20 consonants (no vowels,
so no words, and no letters that look like digits): 20**10, about 43 bits, so a stranger cannot
find rooms by guessing; with the per-address join limit of the web front end, not even close.
Codes are read without regard to case, spaces or dashes (``bcdfg-hjklm``).

A seat's resume token is random and private to its player; the database keeps only its SHA-256
(:func:`~bigboggle.services.keys.key_hash`, as for owner keys), so a copy of the database cannot speak for anybody.
"""

from __future__ import annotations

import secrets

from ...errors import NotFoundError, quoted

#: Letters of room codes: consonants only (no words, no O/0 or I/1), easy to read aloud.
CODE_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"
#: Letters in a new room's code: 20**10 codes, about 43.2 bits.
CODE_LENGTH = 10
#: The longest room code read: the letters with the spaces or dashes people type between them
#: (``BC DF GH JK LM``, ``bcdfg-hjklm``); the same limit everywhere a code comes in.
MAX_CODE_TYPED = 24
#: Random bytes in a seat's resume token (24 URL-safe characters).
TOKEN_BYTES = 18


def normal_code(code: object) -> str:
    """A room code as stored: upper case, without the spaces and dashes people type;
    :class:`NotFoundError` for anything that cannot be a code."""
    if not isinstance(code, str) or len(code) > MAX_CODE_TYPED:
        raise NotFoundError(f"no room {quoted(code, 30)}")
    cleaned = code.replace("-", "").replace(" ", "").upper()
    if not 1 <= len(cleaned) <= 12 or not cleaned.isascii() or not cleaned.isalpha():
        raise NotFoundError(f"no room {quoted(code, 30)}")
    return cleaned


def new_code() -> str:
    """A fresh random room code (:data:`CODE_LENGTH` letters of :data:`CODE_LETTERS`)."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def new_token() -> str:
    """A fresh resume token for a seat (given to its player once, never stored)."""
    return secrets.token_urlsafe(TOKEN_BYTES)
