"""The package's own data files (``bigboggle/data/``), read without importlib.resources' cost.

:mod:`importlib.resources` is the general way, for a package that is not plain files (in a zip
archive): it is asked only then, since its import and first lookup cost a process about 5 ms
(zipfile, tempfile and their imports), a third of a cached dictionary load, and every
``bigboggle`` command reads some data file.
"""

from __future__ import annotations

import os

__all__ = ["read_bytes", "read_text"]


def read_bytes(name: str) -> bytes:
    """The bytes of ``data/NAME``; ``FileNotFoundError`` if the package has no such file."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "data", name), "rb") as file:
            return file.read()
    except OSError:
        from importlib import resources

        return resources.files("bigboggle").joinpath("data", name).read_bytes()


def read_text(name: str) -> str:
    """The text of ``data/NAME`` (UTF-8)."""
    return read_bytes(name).decode("utf-8")
