"""What the tests that compare the two solver cores share: running a block on one of them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bigboggle import implementation


@contextmanager
def core(name: str) -> Iterator[None]:
    """Run the block on solver core ``name`` ("c" or "py"), then put back the one before."""
    before = implementation.name()
    implementation.use(name)
    try:
        yield
    finally:
        implementation.use(before)
