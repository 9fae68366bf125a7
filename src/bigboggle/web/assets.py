"""Static files as a fast page wants them: a URL the templates version with the file's content
hash (``/static/style.css?v=3f2a…``) is cached by browsers for a year, since a changed file gets
a new URL (only the file's current hash: any other ``v`` is answered as unversioned); any other (the modules' own relative imports, say) is revalidated on each use
(``no-cache`` with the ETag StaticFiles sends, so an unchanged file costs a 304)."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.responses import Response
from starlette.staticfiles import StaticFiles

#: A versioned URL's Cache-Control: a year, never revalidated (the URL changes with the file).
LONG_CACHE = "public, max-age=31536000, immutable"
#: Any other static file's: kept, but revalidated (ETag) before each use.
REVALIDATE = "no-cache"


class CachedStaticFiles(StaticFiles):
    """:class:`StaticFiles` with the Cache-Control header above on its answers."""

    async def get_response(self, path: str, scope: Any) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("v", [])
            # Only the file's own hash earns the year: a made-up or stale ?v= (a page from a
            # newer process during a rolling deploy, say) must not pin other content to that URL.
            current = version_of(Path(str(self.directory)), path) if asked else None
            versioned = current is not None and asked == [current]
            response.headers["Cache-Control"] = LONG_CACHE if versioned else REVALIDATE
        return response


def version_of(folder: Path, name: str) -> str | None:
    """A short hash of the content of ``folder / name`` (None if there is no such file), read
    again only when the file's size or modification time changes."""
    try:
        found = os.stat(folder / name)
    except OSError:
        return None
    return _hash_of(str(folder / name), found.st_mtime_ns, found.st_size)


@lru_cache(maxsize=256)
def _hash_of(path: str, _mtime_ns: int, _size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
