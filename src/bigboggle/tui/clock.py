"""The terminal game's clock: where "now" comes from, and how the time left is shown.

The screens never read the time themselves: they ask the app's :data:`Clock` (``time.monotonic``
in play, a clock the test holds in the tests), and the round engine takes that "now" from them.
"""

from __future__ import annotations

from collections.abc import Callable

#: "Now" in seconds, on any steady scale (the app's default is ``time.monotonic``).
Clock = Callable[[], float]


def clock_text(seconds: float) -> str:
    """``m:ss`` of the seconds left (rounded up, so a round ends as the clock shows 0:00)."""
    whole = max(0, int(seconds + 0.999))
    return f"{whole // 60}:{whole % 60:02d}"
