"""Owner keys: the private key that proves a solo game, a tournament or a room's seat is yours.

Whoever creates a game or a tournament (or takes a seat in a room) gets a fresh key once, in the
answer that creates it; only its hash is stored, so a copy of the database lets nobody play or
change what is not theirs.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def key_hash(key: str) -> str:
    """What is stored of an owner's key or a seat's token (never the key itself): its SHA-256,
    in hex."""
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> tuple[str, str]:
    """A fresh private owner key and its hash: the key goes to the owner, the hash is stored."""
    key = secrets.token_urlsafe(18)
    return key, key_hash(key)


def holds_key(owner_hash: str, key: str | None) -> bool:
    """Whether ``key`` is the key whose hash is ``owner_hash`` (compared in constant time)."""
    return isinstance(key, str) and hmac.compare_digest(key_hash(key), owner_hash)
