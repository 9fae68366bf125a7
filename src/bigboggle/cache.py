"""The on-disk cache of prepared dictionaries: the sorted words, their levels and packed trie.

A dictionary is prepared once per word list (a user's file or a built-in) and stored in the
user cache directory (``$BIGBOGGLE_CACHE_DIR`` overrides it), keyed by a hash of the list's
content and the format version, so an edited list gets a new entry. Loading an entry is one
read plus a checksum; a truncated, altered, old-format or unreadable entry is ignored (and then
rewritten), never trusted. Writing is atomic (a temporary file renamed into place) and a cache
that cannot be written is silently skipped: caching is an optimisation, never a requirement.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Bump when the layout changes: old entries are then ignored.
FORMAT_VERSION = 2
_MAGIC = b"BBTRIE\x00\x00"
_PREFIX = struct.Struct("<8sII")  # magic, format version, header length


@dataclass(frozen=True)
class Entry:
    """A cached dictionary, ready to use."""

    words: list[str]
    levels: bytes | None
    report: dict[str, Any]
    trie: Any


def cache_dir() -> Path:
    """Where entries live: ``$BIGBOGGLE_CACHE_DIR``, else the platform's user cache directory."""
    override = os.environ.get("BIGBOGGLE_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("bigboggle", appauthor=False))


def key_for(content: bytes, variant: str) -> str:
    """The cache key of a word list's bytes (``variant`` tells apart lists cut from one file)."""
    digest = hashlib.sha256()
    digest.update(f"{variant}\0{FORMAT_VERSION}\0{sys.byteorder}\0".encode())
    digest.update(content)
    return digest.hexdigest()


def path_for(key: str) -> Path:
    """The file of a cache key."""
    return cache_dir() / f"{key[:40]}.v{FORMAT_VERSION}.trie"


def load(key: str, trie_type: Any) -> Entry | None:
    """The entry for ``key``, or ``None`` if it is missing or not sound.

    ``trie_type`` is the compiled core's ``PackedTrie``, which checks the trie's structure.
    """
    try:
        data = path_for(key).read_bytes()
        if len(data) < _PREFIX.size:
            return None
        magic, version, header_length = _PREFIX.unpack_from(data)
        if magic != _MAGIC or version != FORMAT_VERSION:
            return None
        start = _PREFIX.size + header_length
        header = json.loads(data[_PREFIX.size : start].decode("utf-8"))
        payload = memoryview(data)[start:]
        if header.get("key") != key or len(payload) != header["payload_bytes"]:
            return None
        if zlib.crc32(payload) != header["crc32"]:
            return None
        words_end = header["words_bytes"]
        levels_end = words_end + (header["word_count"] if header["levels"] else 0)
        blob = bytes(payload[:words_end]).decode("ascii")
        words = blob.split("\n") if blob else []
        if len(words) != header["word_count"]:
            return None
        levels = bytes(payload[words_end:levels_end]) if header["levels"] else None
        trie = trie_type.from_bytes(payload[levels_end:], header["node_count"], len(words))
        return Entry(words=words, levels=levels, report=dict(header["report"]), trie=trie)
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError, struct.error):
        return None


def save(
    key: str, words: list[str], levels: bytes | None, report: dict[str, Any], trie: Any
) -> None:
    """Store an entry for ``key``; a failure to write is ignored (the cache is optional)."""
    blob = "\n".join(words).encode("ascii")
    trie_bytes = trie.to_bytes()
    payload = b"".join([blob, levels or b"", trie_bytes])
    header = json.dumps(
        {
            "key": key,
            "word_count": len(words),
            "node_count": trie.node_count,
            "words_bytes": len(blob),
            "levels": levels is not None,
            "payload_bytes": len(payload),
            "crc32": zlib.crc32(payload),
            "report": report,
        }
    ).encode("utf-8")
    target = path_for(key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".trie")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(_PREFIX.pack(_MAGIC, FORMAT_VERSION, len(header)))
                file.write(header)
                file.write(payload)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return
