"""Which solver core runs: the compiled one when it was built, else the pure-Python reference.

``BIGBOGGLE_PURE_PYTHON=1`` in the environment forces the reference. Both cores keep the same
contract (see :mod:`bigboggle._solve_py`); they differ in the trie they walk, which
:func:`trie_for` picks from a :class:`~bigboggle.dictionary.Dictionary`.

The reference is imported only when it is asked for (chosen, or looked up in :data:`CORES`):
a process that solves with the compiled core never loads it.
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .dictionary import Dictionary

_compiled: ModuleType | None
try:
    from . import _solve_c as _compiled
except ImportError:  # no compiler at install time: the reference does the work
    _compiled = None


class _Cores(Mapping[str, ModuleType]):
    """The cores this installation has, by name (``"python"`` first): a read-only mapping
    whose reference core is imported at its first lookup."""

    def __init__(self, compiled: ModuleType | None) -> None:
        self._names = ("python", "c") if compiled is not None else ("python",)
        self._compiled = compiled
        self._reference: ModuleType | None = None

    def __getitem__(self, name: str) -> ModuleType:
        if name == "python":
            if self._reference is None:
                self._reference = importlib.import_module("._solve_py", __package__)
            return self._reference
        if name == "c" and self._compiled is not None:
            return self._compiled
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __repr__(self) -> str:
        return f"<solver cores: {', '.join(self._names)}>"


#: The cores this installation has, by name.
CORES: Mapping[str, ModuleType] = _Cores(_compiled)


def _choose() -> str:
    if os.environ.get("BIGBOGGLE_PURE_PYTHON", "") not in ("", "0"):
        return "python"
    if "c" not in CORES:
        warnings.warn(
            "bigboggle's compiled solver core is not installed (no C compiler when it was "
            "installed?), so the pure-Python core runs, about ten times slower. Reinstall with "
            "a C compiler to fix this, or set BIGBOGGLE_PURE_PYTHON=1 to choose it.",
            RuntimeWarning,
            stacklevel=2,
        )
        return "python"
    return "c"


_active = _choose()


def name() -> str:
    """``"c"`` or ``"python"``: the core in use."""
    return _active


def compiled_available() -> bool:
    """Whether the compiled core was built and imports."""
    return "c" in CORES


def use(core: str) -> None:
    """Switch the core for this process (tests run the whole suite on each)."""
    global _active
    if core not in CORES:
        raise ValueError(f"solver core {core!r} is not available; available: {', '.join(CORES)}")
    _active = core


def core() -> ModuleType:
    """The module of the core in use."""
    return CORES[_active]


def trie_for(words: Dictionary) -> Any:
    """The trie the core in use walks: packed arrays for the compiled core, dicts for Python."""
    return words.packed_trie if _active == "c" else words.trie
