"""CPU work as plain functions of plain data, so that it can run in a worker process.

A job names its dictionary by the shelf's :attr:`~bigboggle.shelf.DictionaryShelf.spec` and a
name instead of carrying the word list itself: :func:`words` loads each dictionary once per
process (from the packed cache) and keeps it. Run through :func:`bigboggle.compute.run_here`
the jobs work in the calling process just the same.
"""

from __future__ import annotations

import threading

from .dictionary import Dictionary
from .shelf import DictionaryShelf

ShelfSpec = tuple[tuple[str, str], ...]

_shelves: dict[ShelfSpec, DictionaryShelf] = {}
_lock = threading.Lock()


def words(spec: ShelfSpec, name: str) -> Dictionary:
    """Dictionary ``name`` of the shelf that ``spec`` describes, loaded once per process."""
    with _lock:
        shelf = _shelves.get(spec)
        if shelf is None:
            if len(_shelves) >= 8:  # a process serves one shelf; tests make a few
                _shelves.clear()
            shelf = _shelves[spec] = DictionaryShelf.from_spec(spec)
    return shelf.get(name)
