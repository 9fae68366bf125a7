"""Where CPU work runs: a seam between the services and whoever hosts them.

Services that score rounds or solve boards take a :class:`Runner` and hand it the work as a
module-level function and its (picklable) arguments. The library's default, :func:`run_here`,
simply calls it. The web app passes its bounded worker pool instead, which runs the job in
another process within a time budget and raises :class:`~bigboggle.errors.BusyError` or
:class:`~bigboggle.errors.BudgetExceededError` when it cannot; so no service needs to know
about processes, and nothing a stranger sends runs on the server's event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Runner(Protocol):
    """Runs ``fn(*args)`` somewhere and returns its result (or raises what it raised)."""

    def __call__(self, fn: Callable[..., T], /, *args: Any) -> T: ...


def run_here(fn: Callable[..., T], /, *args: Any) -> T:
    """Run the job in this thread: the library's and the CLI's runner."""
    return fn(*args)
