"""The dictionaries a server offers by name: the built-ins, plus word lists its operator adds.

A web client names a dictionary; it never hands the server a path. Each list is loaded once
(from the packed cache when it can be) and shared by every request.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

from ..dictionary import BUILTIN_LEVELS, Dictionary
from ..errors import WordListError, quoted

_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


class DictionaryShelf:
    """Named dictionaries: ``common``, ``standard``, ``huge`` and ``extra`` (name -> file)."""

    def __init__(self, extra: Mapping[str, str | Path] | None = None) -> None:
        self._files: dict[str, Path] = {}
        for name, path in (extra or {}).items():
            if not name or not set(name) <= _NAME_CHARACTERS or len(name) > 40:
                raise WordListError(f"dictionary name {name!r}: use 1-40 of a-z, 0-9, '-' and '_'")
            if name in BUILTIN_LEVELS:
                raise WordListError(f"dictionary name {name!r} is taken by a built-in")
            if not Path(path).is_file():
                raise WordListError(f"dictionary {name!r}: no word list file at {str(path)!r}")
            self._files[name] = Path(path)
        self._loaded: dict[str, Dictionary] = {}
        self._lock = threading.Lock()

    @property
    def spec(self) -> tuple[tuple[str, str], ...]:
        """The operator's word lists as plain data (name, path): enough to build the same shelf
        in another process (see :func:`bigboggle.services.jobs.words`)."""
        return tuple((name, str(path)) for name, path in self._files.items())

    @classmethod
    def from_spec(cls, spec: tuple[tuple[str, str], ...]) -> DictionaryShelf:
        """The shelf that :attr:`spec` describes."""
        return cls(dict(spec))

    @property
    def names(self) -> list[str]:
        """Every name on offer, built-ins first."""
        return [*BUILTIN_LEVELS, *self._files]

    def check(self, name: object) -> str:
        """``name`` if the shelf offers a dictionary by that name (without loading it: a first
        load takes a while, and an async route may ask); :class:`WordListError` otherwise."""
        if not isinstance(name, str) or name not in self.names:
            raise WordListError(
                f"unknown dictionary {quoted(name)}; dictionaries here: {', '.join(self.names)}"
            )
        return name

    def get(self, name: str) -> Dictionary:
        """The dictionary called ``name``; :class:`WordListError` if there is none."""
        self.check(name)
        if name in BUILTIN_LEVELS:
            return Dictionary.builtin(name)
        with self._lock:
            if name not in self._loaded:
                words = Dictionary.from_file(self._files[name])
                words.name = name
                self._loaded[name] = words
            return self._loaded[name]
