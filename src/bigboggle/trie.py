"""The prefix tree that the pure-Python solver walks.

Nodes are plain dicts from a *token* to the child node; a token is one letter, except that ``qu``
is a single token, because a ``Qu`` face is one cell and a ``q`` is never played alone. The key
``""`` holds the word that ends at a node. Plain dicts keep the reference solver's inner loop to
one dict lookup per step, which is what makes it fast in CPython.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

#: A trie node: token -> child node, and ``""`` -> the word ending here.
TrieNode = dict[str, Any]

#: The key under which a node stores the word that ends at it.
WORD_KEY = ""


def tokens(letters: str) -> list[str]:
    """Split lowercase letters into trie tokens: ``"queen"`` -> ``["qu", "e", "e", "n"]``."""
    out: list[str] = []
    i = 0
    n = len(letters)
    while i < n:
        if letters[i] == "q" and i + 1 < n and letters[i + 1] == "u":
            out.append("qu")
            i += 2
        else:
            out.append(letters[i])
            i += 1
    return out


def build_trie(words: Iterable[str]) -> TrieNode:
    """A trie of ``words`` (lowercase ``a``-``z``)."""
    root: TrieNode = {}
    for word in words:
        node = root
        if "q" in word:
            for token in tokens(word):
                node = node.setdefault(token, {})
        else:
            for letter in word:
                node = node.setdefault(letter, {})
        node[WORD_KEY] = word
    return root


def walk(node: TrieNode | None, letters: str) -> TrieNode | None:
    """The node reached from ``node`` by ``letters`` (a face's or a prefix's), or ``None``."""
    return walk_tokens(node, tokens(letters))


class Trie:
    """A trie plus shortcut keys for the multi-letter faces that boards have asked for.

    A face such as ``Th`` is one cell, so the solver steps over it with one lookup: the first
    time a board with that face is solved, every node with a ``t`` -> ``h`` chain gains a ``th``
    key to the grandchild. Single letters and ``qu`` need no shortcut.
    """

    def __init__(self, words: Iterable[str]) -> None:
        words = list(words)
        self.root = build_trie(words)
        #: Letters in the longest word.
        self.longest = max(map(len, words), default=0)
        self._faces: set[str] = set()
        self._lock = threading.Lock()

    def for_faces(self, faces: Iterable[str]) -> TrieNode:
        """The root, with shortcuts in place for every multi-token face in ``faces``."""
        missing = {face for face in faces if len(face) > 1 and face != "qu"} - self._faces
        if missing:
            with self._lock:
                for face in sorted(missing - self._faces):
                    steps = tokens(face)
                    if len(steps) > 1:
                        _add_shortcut(self.root, face, steps)
                    self._faces.add(face)
        return self.root


def _add_shortcut(root: TrieNode, face: str, steps: list[str]) -> None:
    stack = [root]
    while stack:
        node = stack.pop()
        target = walk_tokens(node, steps)
        if target is not None:
            node[face] = target
        stack.extend(child for key, child in node.items() if len(key) == 1 or key == "qu")


def walk_tokens(node: TrieNode | None, steps: list[str]) -> TrieNode | None:
    """The node reached from ``node`` by a list of tokens, or ``None``."""
    for token in steps:
        if node is None:
            return None
        node = node.get(token)
    return node
