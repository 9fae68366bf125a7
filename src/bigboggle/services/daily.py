"""The daily board's calendar: its date, its seed and the slot each name gets on it.

The daily board is the same for everyone on a date (UTC) and preset: its seed comes from the
date, the preset and a secret the server keeps, so tomorrow's board cannot be worked out today.
Each name is counted once per day and preset, decided on its clash key
(:func:`~bigboggle.names.name_key`): ``Alice``, ``alice``, ``Аlice`` (Cyrillic А), ``AIice``
(capital I) and ``al ice`` are one name. The key is stored with each game (``daily_key``): a
row keeps the key it was written with, so after an upgrade of :func:`name_key` only the day of
the upgrade can see one name under two keys (its slot read with the new key).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac

from ..errors import RoundInputError
from ..names import name_key


def daily_seed(secret: str, rules: str, date: str) -> int:
    """The seed of the daily board of ``rules`` on ``date``, given the server's ``secret``:
    48 bits, so it is exact in JavaScript too."""
    digest = hmac.new(secret.encode(), f"{date}/{rules}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:6], "big")


def daily_key(date: str, rules: str, player: str) -> str:
    """What one counted daily game per name is decided on: the date, the preset and the name's
    clash key (:func:`~bigboggle.names.name_key`: case, accents, separators and look-alikes
    folded), so ``Alice``, ``ALICE``, ``Аlice`` (Cyrillic А) and ``A1ice`` share one slot."""
    clash = name_key(player)
    if len(clash) > 100:  # (the column holds 160; a key can grow a little past the name)
        clash = "#" + hashlib.sha256(clash.encode()).hexdigest()
    return f"{date}/{rules}/{clash}"


def utc_date(now: float) -> str:
    """The UTC calendar date of ``now`` (seconds since the epoch), as ``YYYY-MM-DD``."""
    return dt.datetime.fromtimestamp(now, tz=dt.UTC).date().isoformat()


def check_date(text: str) -> str:
    """``text`` if it is a real date written ``YYYY-MM-DD``; :class:`RoundInputError` if not."""
    try:
        if not isinstance(text, str) or len(text) != 10:
            raise ValueError
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise RoundInputError(f"date {text!r} is not a date written YYYY-MM-DD") from None
