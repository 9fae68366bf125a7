"""Shared fixtures: the ENABLE2K word list (for golden tests) and small dictionaries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bigboggle import Dictionary

ROOT = Path(__file__).resolve().parents[1]


def enable2k_path() -> Path:
    """Where ENABLE2K lies: $BIGBOGGLE_ENABLE2K, else ../shared/wordlists/ beside the checkout."""
    override = os.environ.get("BIGBOGGLE_ENABLE2K")
    if override:
        return Path(override)
    return ROOT.parent / "shared" / "wordlists" / "enable2k.txt"


@pytest.fixture(scope="session")
def enable2k() -> Dictionary:
    """ENABLE2K, loaded once per test session (skips if the file is not beside the checkout)."""
    path = enable2k_path()
    if not path.is_file():
        pytest.skip(f"ENABLE2K word list not found at {path} (set BIGBOGGLE_ENABLE2K)")
    return Dictionary.from_file(path)


@pytest.fixture(scope="session")
def standard() -> Dictionary:
    """The default built-in dictionary."""
    return Dictionary.builtin("standard")
