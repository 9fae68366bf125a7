"""Type stubs of the compiled solver core (see _solve_c.c and the reference _solve_py.py)."""

from collections.abc import Callable, Sequence
from typing import Any

class PackedTrie:
    """A trie packed into arrays; word i of the list it was built from has id i."""

    @classmethod
    def build(cls, words: list[str] | bytes) -> PackedTrie: ...
    @classmethod
    def scan_words(
        cls, data: bytes
    ) -> tuple[bytes, int, int, int, int, int, int, int, int, int, tuple[str, ...]] | None: ...
    @classmethod
    def from_bytes(
        cls, data: bytes | memoryview, n_nodes: int, n_words: int, digest: int | None = None
    ) -> PackedTrie: ...
    def to_bytes(self) -> bytes: ...
    def digest(self) -> int: ...
    @property
    def node_count(self) -> int: ...
    @property
    def word_count(self) -> int: ...

def solve_cells(
    trie: PackedTrie,
    words: list[str],
    letters: Sequence[str],
    rows: int,
    cols: int,
    challenge: int,
    points: Sequence[int],
    bonus: int,
    make: Callable[[str, tuple[tuple[int, int], ...], int, int], Any],
) -> list[Any]: ...
def score_cells(
    trie: PackedTrie,
    letters: Sequence[str],
    rows: int,
    cols: int,
    challenge: int,
    points: Sequence[int],
    bonus: int,
) -> int: ...
def score_alternatives(
    trie: PackedTrie,
    letters: Sequence[str],
    rows: int,
    cols: int,
    cell: int,
    faces: Sequence[str],
    points: Sequence[int],
) -> list[int]: ...
def score_batch(
    trie: PackedTrie,
    boards: list[tuple[Sequence[str], int, int, int]],
    points: Sequence[int],
    bonus: int,
) -> list[int]: ...
def tally_batch(
    trie: PackedTrie,
    boards: list[tuple[Sequence[str], int, int, int]],
    points: Sequence[int],
    bonus: int,
) -> list[tuple[int, int]]: ...
def parse_text(text: object) -> tuple[tuple[str, ...], int, int, int] | None: ...
def score_texts(
    trie: PackedTrie,
    items: list[Any],
    points: Sequence[int],
    bonus: int,
    fallback: Callable[[Any], tuple[Sequence[str], int, int, int]],
) -> list[int]: ...
def tally_texts(
    trie: PackedTrie,
    items: list[Any],
    points: Sequence[int],
    bonus: int,
    fallback: Callable[[Any], tuple[Sequence[str], int, int, int]],
) -> list[tuple[int, int]]: ...
def score_lines(
    trie: PackedTrie,
    data: bytes | bytearray | memoryview,
    points: Sequence[int],
    bonus: int,
    fallback: Callable[[bytes, int], tuple[Sequence[str], int, int, int]],
) -> list[int]: ...
def tally_lines(
    trie: PackedTrie,
    data: bytes | bytearray | memoryview,
    points: Sequence[int],
    bonus: int,
    fallback: Callable[[bytes, int], tuple[Sequence[str], int, int, int]],
) -> list[tuple[int, int]]: ...
def walk_variant(name: str | None = None) -> str: ...
