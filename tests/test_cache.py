"""The on-disk cache of prepared dictionaries: used when sound, rebuilt when not."""

from __future__ import annotations

import json
import struct
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bigboggle import Dictionary, Rules, cache, implementation, solve

pytestmark = [
    pytest.mark.compares_cores,
    pytest.mark.skipif(
        not implementation.compiled_available(), reason="the compiled core is not built here"
    ),
]

WORDS = "lines\nline\nliner\nquart\nquarts\nstatuesque\nhemp\ncodename\n"
BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


@pytest.fixture
def word_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BIGBOGGLE_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "words.txt"
    path.write_text(WORDS, encoding="utf-8")
    return path


def entry_path(word_file: Path) -> Path:
    return cache.path_for(cache.key_for(word_file.read_bytes(), "file"))


def prepared(word_file: Path) -> Dictionary:
    """Load the list and use its packed trie (which writes the cache on first use)."""
    words = Dictionary.from_file(word_file)
    _ = words.packed_trie
    return words


def solved(words: Dictionary) -> list[tuple[str, int]]:
    return [(found.word, found.score) for found in solve(BOARD, words, Rules.preset("big"))]


def test_first_load_writes_the_cache_and_the_second_uses_it(word_file: Path) -> None:
    fresh = prepared(word_file)
    entry = entry_path(word_file)
    assert entry.is_file()
    again = Dictionary.from_file(word_file)
    assert again._packed is not None  # came with its trie: read from the cache, not rebuilt
    assert list(again) == list(fresh)
    assert again.report == fresh.report
    assert solved(again) == solved(fresh)
    assert ("lines", 2) in solved(again)


def test_an_edited_list_gets_a_new_entry(word_file: Path) -> None:
    prepared(word_file)
    word_file.write_text(WORDS + "dart\nhemps\n", encoding="utf-8")
    edited = Dictionary.from_file(word_file)
    assert "hemps" in edited
    assert edited._packed is None  # a new list: nothing cached yet


#: An entry's prefix: magic, format version, header length, crc32 of the header.
PREFIX = struct.Struct("<8sIII")


def _split(entry: Path) -> tuple[bytes, int, bytes, bytes]:
    """An entry's magic, version, header bytes and payload."""
    data = entry.read_bytes()
    magic, version, header_length, _ = PREFIX.unpack_from(data)
    start = PREFIX.size + header_length
    return magic, version, data[PREFIX.size : start], data[start:]


def _write(entry: Path, magic: bytes, version: int, header: bytes, payload: bytes) -> None:
    """Write an entry with a header checksum that matches, so the checks past it are reached."""
    entry.write_bytes(
        PREFIX.pack(magic, version, len(header), zlib.crc32(header)) + header + payload
    )


def _rewrite(entry: Path, change_payload: bool, version: int | None = None) -> None:
    magic, old_version, body, payload = _split(entry)
    if change_payload:
        # Point the root's first child far past the end, and make the checksums match, so only
        # the structural check can catch it.
        header = json.loads(body)
        trie_at = header["words_bytes"]
        data = bytearray(payload)
        struct.pack_into("<I", data, trie_at + 4, 10**9)  # the root record's first child
        header["crc32"] = zlib.crc32(bytes(data[:trie_at]))
        header["trie_digest"] = trie_digest(bytes(data[trie_at:]))
        body, payload = json.dumps(header).encode(), bytes(data)
    _write(entry, magic, old_version if version is None else version, body, payload)


_DIGEST_P = 0x9E3779B97F4A7C15
_MASK64 = 2**64 - 1


def trie_digest(data: bytes) -> int:
    """The compiled core's digest of trie bytes, restated (see digest_copy in _solve_c.c)."""
    lanes = [1, 2, 3, 4]
    padded = data + bytes(-len(data) % 8)
    for k in range(0, len(padded) // 8):
        word = int.from_bytes(padded[8 * k : 8 * k + 8], sys.byteorder)
        lanes[k % 4] = ((lanes[k % 4] ^ word) * _DIGEST_P) & _MASK64
    h = len(data)
    for lane in lanes:
        h = ((h ^ lane) * _DIGEST_P) & _MASK64
    return h ^ (h >> 29)


def _header(entry: Path) -> dict[str, Any]:
    header: dict[str, Any] = json.loads(_split(entry)[2])
    return header


def test_the_trie_digest_is_the_documented_one(word_file: Path) -> None:
    words = prepared(word_file)
    trie = words.packed_trie
    assert (
        trie.digest()
        == trie_digest(trie.to_bytes())
        == _header(entry_path(word_file))["trie_digest"]
    )
    assert trie_digest(b"abc") != trie_digest(b"abd") != trie_digest(b"abd\x00")


def _rewrite_words(entry: Path, change: Callable[[bytes], bytes]) -> None:
    """Change the entry's word blob (same length) and make the checksums match again."""
    magic, version, body, payload = _split(entry)
    header = json.loads(body)
    words = payload[: header["words_bytes"]]
    payload = change(words) + payload[len(words) :]
    header["crc32"] = zlib.crc32(payload[: len(words)])
    _write(entry, magic, version, json.dumps(header).encode(), payload)


def _replace_header(entry: Path, header: bytes) -> None:
    magic, version, _, payload = _split(entry)
    _write(entry, magic, version, header, payload)


def _edit_header(entry: Path, **changes: object) -> None:
    header = json.loads(_split(entry)[2])
    header.update(changes)
    _replace_header(entry, json.dumps(header).encode())


@pytest.mark.parametrize(
    "damage",
    [
        "truncated",
        "flipped byte",
        "bad structure",
        "old format",
        "empty",
        "garbage",
        "header a list",
        "header null",
        "header nested deep",
        "report of text",
        "count of text",
        "words not ascii",
        "a word too few",
        "longest too long",
        "trie digest",
        "trie digest of text",
    ],
)
def test_a_damaged_entry_is_rebuilt_not_used(word_file: Path, damage: str) -> None:
    expected = solved(prepared(word_file))
    entry = entry_path(word_file)
    data = entry.read_bytes()
    if damage == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "flipped byte":
        entry.write_bytes(data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:])
    elif damage == "bad structure":
        _rewrite(entry, change_payload=True)
    elif damage == "old format":
        _rewrite(entry, change_payload=False, version=cache.FORMAT_VERSION - 1 or 99)
    elif damage == "empty":
        entry.write_bytes(b"")
    elif damage == "header a list":
        _replace_header(entry, b"[]")
    elif damage == "header null":
        _replace_header(entry, b"null")
    elif damage == "header nested deep":
        _replace_header(entry, b"[" * 100_000 + b"]" * 100_000)
    elif damage == "report of text":
        _edit_header(entry, report={"words": "many", "not_letters": "x"})
    elif damage == "count of text":
        _edit_header(entry, word_count="8")
    elif damage == "words not ascii":  # checksum made to match: only the words' check is left
        _rewrite_words(entry, lambda words: b"\xc3" + words[1:])
    elif damage == "a word too few":
        _rewrite_words(entry, lambda words: words.replace(b"\n", b"x", 1))
    elif damage == "longest too long":
        _edit_header(entry, longest=300)
    elif damage == "trie digest":  # as if a node changed and its structure stayed sound
        _edit_header(entry, trie_digest=_header(entry)["trie_digest"] ^ 1)
    elif damage == "trie digest of text":
        _edit_header(entry, trie_digest="0")
    else:
        entry.write_bytes(b"not a cache file at all" * 100)
    reloaded = Dictionary.from_file(word_file)
    assert reloaded._packed is None  # the damaged entry was not trusted
    assert solved(reloaded) == expected  # rebuilt from the list, and right
    assert Dictionary.from_file(word_file)._packed is not None  # and the entry is sound again


def _changed(value: object) -> object:
    """Another value of a header field's type, as one damaged digit or letter would give."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value // 10 if value >= 10 else value + 1
    if isinstance(value, str):
        return value[:-1] + ("0" if value[-1:] != "0" else "1")
    assert isinstance(value, dict)
    name = next(k for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool))
    return {**value, name: value[name] + 1}


#: Every field of an entry's header.
HEADER_FIELDS = [
    *("crc32", "key", "levels", "longest", "node_count", "payload_bytes", "report"),
    *("trie_digest", "word_count", "words_bytes"),
]


@pytest.mark.parametrize(
    "field", [*HEADER_FIELDS, "(header length)", "(header crc32)", "(one digit of the header)"]
)
def test_a_damaged_header_is_refused_whatever_field_it_hits(word_file: Path, field: str) -> None:
    """The header is covered by its own checksum: a field changed into another valid value of
    its type (a damaged ``longest`` of 28 read as 2 once made every board score 0, a damaged
    report showed wrong counts) is refused like any other damage, and the entry rebuilt."""
    expected = prepared(word_file)
    entry = entry_path(word_file)
    data = entry.read_bytes()
    magic, version, body, payload = _split(entry)
    header_length, header_crc = PREFIX.unpack_from(data)[2:]
    if field == "(header length)":
        data = PREFIX.pack(magic, version, header_length - 1, header_crc) + data[PREFIX.size :]
    elif field == "(header crc32)":
        data = PREFIX.pack(magic, version, header_length, header_crc ^ 1) + data[PREFIX.size :]
    elif field == "(one digit of the header)":  # the reviewer's case: same length, valid JSON
        at = PREFIX.size + body.index(b'"longest": ') + len(b'"longest": ')
        digit = b"2" if data[at : at + 1] == b"1" else b"1"
        data = data[:at] + digit + data[at + 1 :]
    else:
        header = json.loads(body)
        header[field] = _changed(header[field])
        changed = json.dumps(header).encode()
        data = PREFIX.pack(magic, version, len(changed), header_crc) + changed + payload
    entry.write_bytes(data)
    reloaded = Dictionary.from_file(word_file)
    assert reloaded._packed is None  # the damaged entry was not trusted
    assert reloaded.longest == expected.longest
    assert reloaded.report == expected.report
    assert solved(reloaded) == solved(expected)
    assert Dictionary.from_file(word_file)._packed is not None  # rewritten sound


def test_every_header_field_has_a_damage_test(word_file: Path) -> None:
    prepared(word_file)
    assert sorted(_header(entry_path(word_file))) == sorted(HEADER_FIELDS)


def test_an_unwritable_cache_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would be", encoding="utf-8")
    monkeypatch.setenv("BIGBOGGLE_CACHE_DIR", str(blocker / "cache"))
    path = tmp_path / "words.txt"
    path.write_text(WORDS, encoding="utf-8")
    assert ("lines", 2) in solved(prepared(path))


def test_builtin_dictionaries_are_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bigboggle.dictionary import _load_builtin

    monkeypatch.setenv("BIGBOGGLE_CACHE_DIR", str(tmp_path))
    first = _load_builtin.__wrapped__("common")
    _ = first.packed_trie
    second = _load_builtin.__wrapped__("common")
    assert second._packed is not None
    assert len(second) == len(first)
    assert second.level("the") == first.level("the") == 10
