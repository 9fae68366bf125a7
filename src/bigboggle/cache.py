"""The on-disk cache of prepared dictionaries: the sorted words, their levels and packed trie.

A dictionary is prepared once per word list (a user's file or a built-in) and stored in the
user cache directory (``$BIGBOGGLE_CACHE_DIR`` overrides it), keyed by a hash of the list's
content and the format version, so an edited list gets a new entry. Loading an entry is one
mapped read plus checksums (a crc32 of the header; a crc32 of the words and levels; the trie's
64-bit digest, checked by the compiled core as it copies the nodes), so every byte of an entry
is covered by one, with no Python object per word (the words stay
one blob until asked for, see :class:`bigboggle.dictionary.Dictionary`); a truncated, altered, old-format or unreadable entry is ignored (and then
rewritten), never trusted: the checksum catches damage, the compiled core checks the trie's
structure so no walk can leave its arrays, and every header field is type-checked. (It guards
against damage, not against someone able to write the user's files, who could as well change
the installed code.) Writing is atomic (a temporary file renamed into place) and a cache
that cannot be written is silently skipped: caching is an optimisation, never a requirement.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import struct
import sys
import zlib
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pathlib import Path

try:  # the standard library's own BLAKE2, the module hashlib takes it from
    from _blake2 import blake2b
except ImportError:  # a Python built without it: hashlib's (OpenSSL's)
    from hashlib import blake2b

#: Bump when the layout changes, or the reading of a list: old entries are then ignored.
#: (4: a list that mixes cases skips its capitalised entries as names. 5: a list mixes cases
#: only when its all-lowercase entries outnumber those with capitals. 6: the header gives the
#: longest word's letters, so a load never splits the words to find it, and the crc32 covers
#: the words and levels while the trie's own digest, checked as it is copied, covers the trie.
#: 7: the prefix gives a crc32 of the header: a header field damaged into another valid value,
#: e.g. ``longest`` 28 -> 2, was trusted, and then every board scored 0.)
FORMAT_VERSION = 7
_MAGIC = b"BBTRIE\x00\x00"
_PREFIX = struct.Struct("<8sIII")  # magic, format version, header length, crc32 of the header


class Entry(NamedTuple):
    """A cached dictionary, ready to use: its words are ``blob``, ASCII joined by newlines.

    A named tuple, not a frozen dataclass: every process that loads a dictionary imports this
    module, and making a dataclass costs it about 0.7 ms (its methods compiled from source)
    against 0.1 ms for a named tuple; the one reader, the dictionary, only reads its fields.
    """

    blob: bytes
    word_count: int
    longest: int
    levels: bytes | None
    report: dict[str, Any]
    trie: Any


def cache_dir() -> Path:
    """Where entries live: ``$BIGBOGGLE_CACHE_DIR``, else the platform's user cache directory."""
    from pathlib import Path  # here: a load (see _directory) needs no pathlib, a ~3 ms import

    return Path(_directory())


def _directory() -> str:
    """:func:`cache_dir` as text."""
    override = os.environ.get("BIGBOGGLE_CACHE_DIR")
    if override:
        return override
    return _user_cache_dir()


def _user_cache_dir() -> str:
    """``platformdirs.user_cache_dir("bigboggle", appauthor=False)``.

    Every process that loads a dictionary asks, and importing platformdirs (its modules and
    their regular expressions) costs about 2 ms, a sixth of a cached load. So the one common
    case is answered here: on Linux (not Android), ``$XDG_CACHE_HOME`` if it is an absolute
    path, else, when it is unset or empty, ``.cache`` in an absolute ``$HOME``, as every
    platformdirs release since 4.0 gives it. Anything else (another platform, a relative or
    blank variable, no usable ``$HOME``) is platformdirs' own answer. tests/test_startup.py
    compares the two in each of these environments.
    """
    environ = os.environ
    if sys.platform == "linux" and not hasattr(sys, "getandroidapilevel"):
        if "ANDROID_DATA" not in environ:
            xdg = environ.get("XDG_CACHE_HOME", "")
            if xdg.startswith("/"):
                return os.path.join(xdg, "bigboggle")
            home = environ.get("HOME", "")
            if not xdg and home.startswith("/"):
                return os.path.join(home.rstrip("/") + "/.cache", "bigboggle")
    import platformdirs

    return platformdirs.user_cache_dir("bigboggle", appauthor=False)


def key_for(content: bytes, variant: str) -> str:
    """The cache key of a word list's bytes (``variant`` tells apart lists cut from one file).

    A BLAKE2b digest (256 bits), taken from ``_blake2`` rather than through :mod:`hashlib`,
    whose import loads OpenSSL (about 2.5 ms, more than this hash of a list takes): every
    process that loads a dictionary computes one key. (Keys were SHA-256 digests before:
    entries made under those keys are never found again, and a list's first load rebuilds it.)
    """
    digest = blake2b(digest_size=32)
    digest.update(f"{variant}\0{FORMAT_VERSION}\0{sys.byteorder}\0".encode())
    digest.update(content)
    return digest.hexdigest()


def path_for(key: str) -> Path:
    """The file of a cache key."""
    return cache_dir() / _file_name(key)


def _file_name(key: str) -> str:
    return f"{key[:40]}.v{FORMAT_VERSION}.trie"


def load(key: str, trie_type: Any) -> Entry | None:
    """The entry for ``key``, or ``None`` if it is missing or not sound.

    ``trie_type`` is the compiled core's ``PackedTrie``, which checks the trie's structure.
    The file is mapped, not read: an 8 MB read into fresh memory costs more than everything
    else a load does (a page fault each 4 KB): the cached ENABLE2K load takes about 20 ms read
    (one ``os.read``, or ``readinto`` a populated anonymous map) against 14.5 ms mapped. The
    mapping lives only while the entry is checked and copied out, and our writer replaces files
    whole (a rename), so nothing of ours ever shrinks a mapped file.

    The price of that trade: if ANOTHER process truncates the file in place during those few
    milliseconds (``: > file``, a cleaner, a sync tool, a cache on NFS rewritten by another
    host), reading a page past the new end raises SIGBUS, which no ``except`` catches: the
    process is killed. Damage at rest is always caught and the entry rebuilt; only a shrink
    racing a load is not. Point ``$BIGBOGGLE_CACHE_DIR`` at a directory nothing else rewrites.
    """
    try:
        with open(os.path.join(_directory(), _file_name(key)), "rb") as file:  # path_for's
            if os.fstat(file.fileno()).st_size < _PREFIX.size:
                return None
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    try:
        return _parse(memoryview(mapped), key, trie_type)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError, struct.error):
        return None
    finally:
        with contextlib.suppress(BufferError):  # a view still held: unmapped when collected
            mapped.close()


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _parse(data: memoryview, key: str, trie_type: Any) -> Entry | None:
    if len(data) < _PREFIX.size:
        return None
    magic, version, header_length, header_crc = _PREFIX.unpack_from(data)
    if magic != _MAGIC or version != FORMAT_VERSION:
        return None
    start = _PREFIX.size + header_length
    header_bytes = bytes(data[_PREFIX.size : start])
    # The payload's checksums are IN the header, so the header needs its own: checked before
    # a field of it is believed (a damaged length gives another range, which fails it too).
    if len(header_bytes) != header_length or zlib.crc32(header_bytes) != header_crc:
        return None
    header = json.loads(header_bytes.decode("utf-8"))
    if not isinstance(header, dict) or header.get("key") != key:
        return None
    counts = (
        *("word_count", "node_count", "words_bytes", "payload_bytes"),
        *("crc32", "longest", "trie_digest"),
    )
    report = header.get("report")
    if (
        not all(_whole(header.get(name)) for name in counts)
        or not isinstance(header.get("levels"), bool)
        or not isinstance(report, dict)
        or not all(isinstance(k, str) for k in report)
    ):
        return None
    payload = data[start:]
    words_end = header["words_bytes"]
    levels_end = words_end + (header["word_count"] if header["levels"] else 0)
    if len(payload) != header["payload_bytes"] or levels_end > len(payload):
        return None
    if zlib.crc32(payload[:levels_end]) != header["crc32"]:
        return None
    blob = bytes(payload[:words_end])
    word_count = header["word_count"]
    if not blob.isascii() or (blob.count(b"\n") + 1 if blob else 0) != word_count:
        return None
    if header["longest"] > 255:
        return None
    levels = bytes(payload[words_end:levels_end]) if header["levels"] else None
    trie = trie_type.from_bytes(
        payload[levels_end:], header["node_count"], word_count, header["trie_digest"]
    )
    return Entry(
        blob=blob,
        word_count=word_count,
        longest=header["longest"],
        levels=levels,
        report=report,
        trie=trie,
    )


def save(
    key: str,
    blob: bytes,
    word_count: int,
    longest: int,
    levels: bytes | None,
    report: dict[str, Any],
    trie: Any,
) -> None:
    """Store an entry for ``key``; a failure to write is ignored (the cache is optional).

    ``blob`` is the sorted words, ASCII joined by newlines, ``longest`` the longest's letters.
    """
    pieces = [blob, levels or b"", trie.to_bytes()]
    crc = zlib.crc32(levels or b"", zlib.crc32(blob))  # the trie has its own digest
    header = json.dumps(
        {
            "key": key,
            "word_count": word_count,
            "node_count": trie.node_count,
            "words_bytes": len(blob),
            "levels": levels is not None,
            "payload_bytes": sum(map(len, pieces)),
            "crc32": crc,
            "trie_digest": trie.digest(),
            "longest": longest,
            "report": report,
        }
    ).encode("utf-8")
    target = path_for(key)
    import tempfile  # here: loading an entry, what most processes do, needs none of it

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".trie")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(_PREFIX.pack(_MAGIC, FORMAT_VERSION, len(header), zlib.crc32(header)))
                file.write(header)
                for piece in pieces:
                    file.write(piece)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
    except OSError:
        return
