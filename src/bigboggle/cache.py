"""The on-disk cache of prepared dictionaries: the sorted words, their levels and packed trie.

A dictionary is prepared once per word list (a user's file or a built-in) and stored in the
user cache directory (``$BIGBOGGLE_CACHE_DIR`` overrides it), keyed by a hash of the list's
content and the format version, so an edited list gets a new entry. Loading an entry is one
read plus a checksum; a truncated, altered, old-format or unreadable entry is ignored (and then
rewritten), never trusted: the checksum catches damage, the compiled core checks the trie's
structure so no walk can leave its arrays, and every header field is type-checked. (It guards
against damage, not against someone able to write the user's files, who could as well change
the installed code.) Writing is atomic (a temporary file renamed into place) and a cache
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

#: Bump when the layout changes, or the reading of a list: old entries are then ignored.
#: (4: a list that mixes cases skips its capitalised entries as names. 5: a list mixes cases
#: only when its all-lowercase entries outnumber those with capitals.)
FORMAT_VERSION = 5
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
    except OSError:
        return None
    try:
        return _parse(data, key, trie_type)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError, struct.error):
        return None


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _parse(data: bytes, key: str, trie_type: Any) -> Entry | None:
    if len(data) < _PREFIX.size:
        return None
    magic, version, header_length = _PREFIX.unpack_from(data)
    if magic != _MAGIC or version != FORMAT_VERSION:
        return None
    start = _PREFIX.size + header_length
    header = json.loads(data[_PREFIX.size : start].decode("utf-8"))
    if not isinstance(header, dict) or header.get("key") != key:
        return None
    counts = ("word_count", "node_count", "words_bytes", "payload_bytes", "crc32")
    report = header.get("report")
    if (
        not all(_whole(header.get(name)) for name in counts)
        or not isinstance(header.get("levels"), bool)
        or not isinstance(report, dict)
        or not all(isinstance(k, str) for k in report)
    ):
        return None
    payload = memoryview(data)[start:]
    if len(payload) != header["payload_bytes"] or zlib.crc32(payload) != header["crc32"]:
        return None
    words_end = header["words_bytes"]
    levels_end = words_end + (header["word_count"] if header["levels"] else 0)
    blob = bytes(payload[:words_end]).decode("ascii")
    words = blob.split("\n") if blob else []
    if len(words) != header["word_count"]:
        return None
    levels = bytes(payload[words_end:levels_end]) if header["levels"] else None
    trie = trie_type.from_bytes(payload[levels_end:], header["node_count"], len(words))
    return Entry(words=words, levels=levels, report=report, trie=trie)


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
