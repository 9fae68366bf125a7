"""Word lists: the built-in SCOWL dictionaries and users' own files.

A :class:`Dictionary` behaves like a read-only container of lowercase words (``in``, ``len``,
iteration in alphabetical order) with prefix queries and, for the built-ins, each word's SCOWL
level, our grade of how common it is (10 = everyday ... 80 = obscure). Entries that can never be
played (not letters, fewer than three letters) are left out and counted in :attr:`report`, never
dropped silently.

Proper nouns and abbreviations never count. A list that writes its ordinary words in lowercase
and a minority of entries with capitals (as ``/usr/share/dict/words`` does: ``cat``, ``Paris``,
``NASA``) *mixes cases* (:func:`mixes_cases`: more all-lowercase entries than entries with a
capital), and there a capitalised entry is a name or an abbreviation: it is skipped and counted
(:attr:`LoadReport.names`). Any other list is read whole, folded to lowercase: an all-lowercase
one, and one mostly in capitals (a stray lowercase line in a Collins-style list is a word).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from os import PathLike
from typing import Any

from . import cache, package_data
from .errors import WordListError, quoted
from .limits import MAX_DICTIONARY_SPEC
from .trie import Trie

#: The fewest letters of a word any Boggle edition accepts.
SHORTEST_WORD = 3
#: The most letters a word may have (the compiled core stores lengths in a byte; no real
#: word comes near: English's longest dictionary word has 45).
LONGEST_WORD = 255

#: Built-in dictionary name -> highest SCOWL level it includes.
BUILTIN_LEVELS: dict[str, int] = {"common": 50, "standard": 70, "huge": 80}
#: SCOWL levels up to this are "common" words; rarer ones are shown apart (missed-word lists).
COMMON_LEVEL = BUILTIN_LEVELS["common"]
DEFAULT_DICTIONARY = "standard"

_DATA_FILE = "scowl-words.txt.gz"
_MAX_FILE_BYTES = 64 * 1024 * 1024
#: Characters of a skipped entry kept as an example in a :class:`LoadReport`.
_EXAMPLE_LENGTH = 40


@dataclass(frozen=True)
class LoadReport:
    """What loading a word list kept and left out, by reason."""

    lines: int = 0
    words: int = 0
    duplicates: int = 0
    not_letters: int = 0
    too_short: int = 0
    too_long: int = 0
    q_without_u: int = 0
    #: Capitalised entries of a list that mixes cases: names and abbreviations, never words.
    names: int = 0
    examples: tuple[str, ...] = ()

    @property
    def skipped(self) -> int:
        """Entries left out: they can never be played, or they are names (see :attr:`names`)."""
        return self.not_letters + self.too_short + self.too_long + self.names

    def describe(self) -> str:
        """A one-line summary for people."""
        parts = [_count(self.words, "word")]
        if self.skipped:
            reasons = []
            if self.not_letters:
                reasons.append(f"{self.not_letters} not plain letters")
            if self.too_short:
                reasons.append(f"{self.too_short} shorter than {SHORTEST_WORD} letters")
            if self.too_long:
                reasons.append(f"{self.too_long} longer than {LONGEST_WORD} letters")
            if self.names:
                reasons.append(
                    f"{self.names} capitalised as names or abbreviations in a list that mixes cases"
                )
            skipped = _count(self.skipped, "entry", "entries")
            parts.append(f"{skipped} skipped ({', '.join(reasons)})")
        if self.duplicates:
            parts.append(_count(self.duplicates, "duplicate"))
        if self.q_without_u:
            with_q = _count(self.q_without_u, "word")
            parts.append(f"{with_q} with a q not followed by u (never playable)")
        return "; ".join(parts)


def _count(number: int, noun: str, plural: str | None = None) -> str:
    """``1 word``, ``2 words``; ``1 entry``, ``2 entries``."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def normalise(entry: str) -> str:
    """A word list entry as it is compared: trimmed, lowercase, accents folded (café -> cafe)."""
    text = entry.strip().lower()
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _playable(word: str) -> bool:
    return word.isascii() and word.isalpha() and word.islower()


def _has_capital(entry: str) -> bool:
    """Whether ``entry`` has an uppercase letter (``Paris``, ``NASA``, ``McDonald``, ``Émile``)."""
    return entry != entry.lower()


def mixes_cases(entries: Iterable[str]) -> bool:
    """Whether a word list writes its words in lowercase and marks names with capitals.

    The rule: a list *mixes cases* when its all-lowercase entries outnumber its entries with a
    capital (entries without a cased letter, such as ``123``, count for neither). There
    (``cat``, ``Paris``, ``NASA``, as ``/usr/share/dict/words``, about 84,000 lowercase entries
    to 21,000 with capitals) the capitals mark names and abbreviations, a minority. Any other
    list is read whole, each entry folded to lowercase: an all-lowercase list, and a list
    mostly in capitals (Collins or SOWPODS style), whose few lowercase or capitalised entries
    are the words they spell, not names.
    """
    lowercase = capitals = 0
    for entry in entries:
        if entry.islower():
            lowercase += 1
        elif _has_capital(entry):
            capitals += 1
    return lowercase > capitals > 0


def _has_bare_q(word: str) -> bool:
    return any(ch == "q" and word[i + 1 : i + 2] != "u" for i, ch in enumerate(word))


class Dictionary:
    """A set of playable words with prefix queries and optional commonness levels.

    Build one with :meth:`builtin`, :meth:`from_file`, :meth:`from_words` or :meth:`load`.
    Words are kept as one sorted list (membership and levels by binary search), so a
    dictionary loaded from the cache needs no per-word dict. A dictionary read by the compiled
    core's scanner or from the cache holds its words as one ASCII blob (sorted, joined by
    newlines) and makes the list of strings only when something asks for words (173,000
    string objects are most of a load's cost, and scoring boards needs none of them).
    """

    def __init__(
        self,
        levels: Mapping[str, int | None],
        *,
        name: str,
        report: LoadReport | None = None,
    ) -> None:
        words = sorted(levels)
        level_bytes = None
        if any(level is not None for level in levels.values()):
            level_bytes = bytes(levels[word] or 0 for word in words)
        self._setup(words, level_bytes, name, report or LoadReport(words=len(words)), None, None)

    def _setup(
        self,
        words: list[str] | bytes,
        levels: bytes | None,
        name: str,
        report: LoadReport,
        cache_key: str | None,
        packed: Any,
        count: int | None = None,
        longest: int | None = None,
    ) -> None:
        """``words`` is the sorted list, or its blob with ``count`` words of ``longest`` letters."""
        if isinstance(words, bytes):
            self._word_list: list[str] | None = None
            self._word_blob: bytes | None = words
            self._count = count if count is not None else (words.count(b"\n") + 1 if words else 0)
            if longest is not None:
                self.__dict__["longest"] = longest  # the cached_property, known already
        else:
            self._word_list = words
            self._word_blob = None
            self._count = len(words)
        self._level_bytes = levels
        self.name = name
        self.report = report
        self._cache_key = cache_key
        self._packed = packed
        self._first_solve_done = False

    @classmethod
    def _prepared(
        cls,
        words: list[str] | bytes,
        levels: bytes | None,
        *,
        name: str,
        report: LoadReport,
        cache_key: str | None,
        packed: Any = None,
        count: int | None = None,
        longest: int | None = None,
    ) -> Dictionary:
        """A dictionary from an already sorted, de-duplicated word list or its blob (the
        cache's and the scanner's form: ASCII words joined by newlines)."""
        dictionary = cls.__new__(cls)
        dictionary._setup(words, levels, name, report, cache_key, packed, count, longest)
        return dictionary

    @property
    def _words(self) -> list[str]:
        """The sorted words as strings, made from the blob on first use."""
        words = self._word_list
        if words is None:
            blob = self._word_blob or b""
            words = self._word_list = blob.decode("ascii").split("\n") if blob else []
        return words

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def builtin(cls, name: str = DEFAULT_DICTIONARY) -> Dictionary:
        """A built-in SCOWL dictionary: ``common``, ``standard`` (the default) or ``huge``.

        Loaded once per process and shared.
        """
        if not isinstance(name, str) or name not in BUILTIN_LEVELS:
            known = ", ".join(BUILTIN_LEVELS)
            raise WordListError(
                f"unknown dictionary {quoted(name)}; built-in dictionaries: {known}"
            )
        return _load_builtin(name)

    @classmethod
    def from_words(cls, words: Iterable[str], *, name: str = "words") -> Dictionary:
        """A dictionary of ``words``, normalised; unplayable entries are counted in the report.

        As in a file, in a list that mixes cases (:func:`mixes_cases`) capitalised entries are
        names and abbreviations: skipped and counted.
        """
        if isinstance(words, str | bytes):
            raise WordListError(
                f"from_words() takes an iterable of words, not a single {type(words).__name__} "
                f"({words[:40]!r})"
            )
        entries: list[str] = []
        for number, entry in enumerate(words, start=1):
            if not isinstance(entry, str):
                raise WordListError(f"word {number} is not text: {quoted(entry)}")
            entries.append(entry)
        levels: dict[str, int | None] = {}
        counts = _Counter(skip_names=mixes_cases(entries))
        for entry in entries:
            counts.add(entry, levels)
        return cls(levels, name=name, report=counts.report(len(levels)))

    @classmethod
    def from_file(cls, path: str | PathLike[str]) -> Dictionary:
        """A dictionary read from a text file, one word per line (UTF-8; ``#`` starts a comment).

        In a file that mixes cases (:func:`mixes_cases`, as ``/usr/share/dict/words``),
        capitalised entries are names and abbreviations: skipped and counted in the report.

        :class:`WordListError` names the file (and the line) when it is missing, unreadable,
        binary, not UTF-8, or holds no playable word. With the compiled core, the prepared
        list is cached on disk (see :mod:`bigboggle.cache`), keyed by the file's content.
        """
        return cls._from_file_bytes(cls.read_file(path), str(path))

    @staticmethod
    def read_file(path: str | PathLike[str]) -> bytes:
        """A word list file's bytes, within the size limit: what :meth:`from_file` reads (read
        once, a list given by a pipe can also go to :meth:`from_file_bytes`, and to a
        cluster's workers). :class:`WordListError` names the file when it cannot be read."""
        if not isinstance(path, str | PathLike) or not str(path):
            raise WordListError(f"a word list is a file path, not {quoted(path)}")
        _check_spec_length(str(path))
        from pathlib import Path  # here: a built-in dictionary needs none of it (~3 ms)

        file = Path(path)
        label = repr(str(path))  # at most MAX_DICTIONARY_SPEC characters, like any path
        if "\x00" in str(path):
            raise WordListError(f"word list {label} cannot be a file: no file name holds a NUL")
        try:
            size = file.stat().st_size
            if file.is_dir():
                raise WordListError(f"word list {label} is a directory, not a file")
            if size > _MAX_FILE_BYTES:
                raise WordListError(
                    f"word list {label} is {size} bytes; the limit is {_MAX_FILE_BYTES}"
                )
            with file.open("rb") as stream:  # a pipe's size is 0 to stat: read within bounds
                data = stream.read(_MAX_FILE_BYTES + 1)
            if len(data) > _MAX_FILE_BYTES:
                raise WordListError(
                    f"word list {label} is over {_MAX_FILE_BYTES} bytes; the limit is "
                    f"{_MAX_FILE_BYTES}"
                )
        except FileNotFoundError:
            raise WordListError(f"word list {label} does not exist") from None
        except PermissionError:
            raise WordListError(f"word list {label} cannot be read (permission denied)") from None
        except OSError as exc:
            raise WordListError(f"word list {label} cannot be read: {exc.strerror}") from None
        return data

    @classmethod
    def from_file_bytes(cls, data: bytes, name: str) -> Dictionary:
        """A dictionary from a word list file's bytes, read as :meth:`from_file` reads the
        file named ``name`` (a worker given a list's bytes; a list read once from a pipe):
        the same words, the same errors (naming ``name``), the same on-disk cache."""
        if not isinstance(data, bytes):
            raise WordListError(f"a word list's bytes must be bytes, not {type(data).__name__}")
        if len(data) > _MAX_FILE_BYTES:
            raise WordListError(
                f"word list {name!r} is {len(data)} bytes; the limit is {_MAX_FILE_BYTES}"
            )
        return cls._from_file_bytes(data, name)

    @classmethod
    def _from_file_bytes(cls, data: bytes, path: str) -> Dictionary:
        label = repr(path)
        key = cache.key_for(data, "file")
        cached = _from_cache(key, name=str(path))
        if cached is not None:
            return cached
        if not data.strip():
            raise WordListError(f"word list {label} is empty")
        if b"\x00" in data:
            nul_line = data.count(b"\n", 0, data.index(b"\x00")) + 1
            raise WordListError(
                f"word list {label} looks binary (a NUL byte on line {nul_line}); "
                "a word list is UTF-8 text, one word per line"
            )
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        scanned = _scan(data)
        if scanned is not None:
            blob, count, longest, report = scanned
            if not count:
                raise _no_words(label, report)
            return cls._prepared(
                blob,
                None,
                name=str(path),
                report=report,
                cache_key=key,
                count=count,
                longest=longest,
            )
        levels, report = _read_lines(data, label)
        if not levels:
            raise _no_words(label, report)
        dictionary = cls(levels, name=str(path), report=report)
        dictionary._cache_key = key
        return dictionary

    @classmethod
    def load(cls, spec: str | PathLike[str] | None = None) -> Dictionary:
        """A built-in dictionary by name, or else a word list file by path."""
        if spec is None:
            return cls.builtin()
        if isinstance(spec, str) and spec in BUILTIN_LEVELS:
            return cls.builtin(spec)
        return cls.from_file(word_list_path(spec))

    # -- container behaviour -----------------------------------------------------------------

    def _index(self, word: str) -> int:
        """The word's position in the sorted list, or -1."""
        i = bisect.bisect_left(self._words, word)
        return i if i < len(self._words) and self._words[i] == word else -1

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._index(normalise(word)) >= 0

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return iter(self._words)

    def __repr__(self) -> str:
        return f"<Dictionary {self.name!r}: {len(self)} words>"

    def has_prefix(self, prefix: str) -> bool:
        """Whether some word starts with ``prefix`` (the empty prefix: whether any word exists)."""
        prefix = prefix.lower()
        i = bisect.bisect_left(self._words, prefix)
        return i < len(self._words) and self._words[i].startswith(prefix)

    def words_with_prefix(self, prefix: str) -> Iterator[str]:
        """The words that start with ``prefix``, alphabetically."""
        prefix = prefix.lower()
        for word in self._words[bisect.bisect_left(self._words, prefix) :]:
            if not word.startswith(prefix):
                break
            yield word

    def level(self, word: str) -> int | None:
        """The word's SCOWL level (lower is more common), or ``None`` if unknown or absent."""
        if self._level_bytes is None:
            return None
        i = self._index(normalise(word))
        return self._level_bytes[i] or None if i >= 0 else None

    @property
    def has_levels(self) -> bool:
        """Whether the words carry SCOWL levels (the built-ins do, user lists do not)."""
        return self._level_bytes is not None

    @property
    def word_list(self) -> list[str]:
        """The words, sorted (the list itself: do not change it)."""
        return self._words

    def _list_for_solving(self) -> list[str] | None:
        """The sorted words for a solve by the compiled core, or ``None`` for the first solve of
        a dictionary whose words are still one blob (see :func:`bigboggle.solver.solve`).

        Splitting the blob makes 173,000 strings, most of a cached load's cost (~7 ms), and a
        process that solves one board (``bigboggle solve``) needs a few hundred of them: that
        solve spells its words from their paths instead. A second solve makes the list, which
        every later one then reuses.
        """
        if self._word_list is None and not self._first_solve_done:
            self._first_solve_done = True
            return None
        return self._words

    @functools.cached_property
    def trie(self) -> Trie:
        """The prefix tree the pure-Python solver walks; built on first use and kept."""
        return Trie(self._words)

    @property
    def packed_trie(self) -> Any:
        """The packed trie the compiled core walks: from the cache, or built and then cached."""
        if self._packed is None:
            packed_type = _packed_trie_type()
            if packed_type is None:
                raise RuntimeError("the compiled solver core is not installed")
            blob = self._word_blob
            self._packed = packed_type.build(self._words if blob is None else blob)
            if self._cache_key is not None:
                cache.save(
                    self._cache_key,
                    "\n".join(self._words).encode("ascii") if blob is None else blob,
                    self._count,
                    self.longest,
                    self._level_bytes,
                    dataclasses.asdict(self.report),
                    self._packed,
                )
        return self._packed

    @functools.cached_property
    def longest(self) -> int:
        """Letters in the longest word (0 for an empty dictionary)."""
        return max(map(len, self._words), default=0)


def _packed_trie_type() -> Any:
    try:
        from ._solve_c import PackedTrie
    except ImportError:
        return None
    return PackedTrie


def _from_cache(key: str, *, name: str) -> Dictionary | None:
    packed_type = _packed_trie_type()
    if packed_type is None:
        return None
    entry = cache.load(key, packed_type)
    if entry is None:
        return None
    report = dict(entry.report)
    examples = report.pop("examples", [])
    if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in report.values()):
        return None
    try:
        load_report = LoadReport(**report, examples=tuple(examples))
    except TypeError:
        return None
    return Dictionary._prepared(
        entry.blob,
        entry.levels,
        name=name,
        report=load_report,
        cache_key=key,
        packed=entry.trie,
        count=entry.word_count,
        longest=entry.longest,
    )


def _scan(data: bytes) -> tuple[bytes, int, int, LoadReport] | None:
    """The compiled core's reading of an all-ASCII word list: (blob, words, longest, report).

    ``None`` when the core is not built or the data is not all ASCII: :func:`_read_lines` then
    reads it. Both give the same words and report (the C scanner follows :func:`_read_lines`
    entry for entry; tests/test_dictionary.py compares them on random lists).
    """
    packed_type = _packed_trie_type()
    if packed_type is None:
        return None
    scanned = packed_type.scan_words(data)
    if scanned is None:
        return None
    blob, words, longest, lines, duplicates, not_letters, too_short, too_long = scanned[:8]
    q_without_u, names, examples = scanned[8:]
    report = LoadReport(
        lines=lines,
        words=words,
        duplicates=duplicates,
        not_letters=not_letters,
        too_short=too_short,
        too_long=too_long,
        q_without_u=q_without_u,
        names=names,
        examples=examples,
    )
    return blob, words, longest, report


def _read_lines(data: bytes, label: str) -> tuple[dict[str, int | None], LoadReport]:
    """A word list's bytes read entry by entry: the words (-> ``None``, no levels) and report.

    :class:`WordListError` names the first line that is not UTF-8.
    """
    entries: list[str] = []
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise WordListError(
                f"word list {label}, line {number}: {raw[:40]!r} is not valid UTF-8 "
                f"(byte {exc.start + 1} of the line)"
            ) from None
        if line.lstrip().startswith("#") or not line.strip():
            continue
        entries.append(line)
    levels: dict[str, int | None] = {}
    counts = _Counter(skip_names=mixes_cases(entries))
    for entry in entries:
        counts.add(entry, levels)
    return levels, counts.report(len(levels))


def _no_words(label: str, report: LoadReport) -> WordListError:
    """The error for a list that holds no playable word, with what it held instead."""
    return WordListError(
        f"word list {label} has no playable words ({report.describe()}); words are "
        f"at least {SHORTEST_WORD} letters a-z, one per line"
    )


class _Counter:
    """Tallies why entries were kept or left out while a list loads. With ``skip_names`` (a
    list that mixes cases), a capitalised entry that would be a word is a name: left out."""

    def __init__(self, *, skip_names: bool = False) -> None:
        self.lines = self.duplicates = self.not_letters = self.too_short = self.too_long = 0
        self.q_without_u = self.names = 0
        self.skip_names = skip_names
        self.examples: list[str] = []

    def add(self, entry: str, levels: dict[str, int | None], level: int | None = None) -> None:
        self.lines += 1
        word = normalise(entry)
        if not _playable(word):
            self.not_letters += 1
            self._example(entry)
        elif len(word) < SHORTEST_WORD:
            self.too_short += 1
            self._example(entry)
        elif len(word) > LONGEST_WORD:
            self.too_long += 1
            self._example(entry)
        elif self.skip_names and _has_capital(entry):
            self.names += 1
            self._example(entry)
        elif word in levels:
            self.duplicates += 1
        else:
            if "q" in word and _has_bare_q(word):
                self.q_without_u += 1
            levels[word] = level

    def _example(self, entry: str) -> None:
        if len(self.examples) < 5:
            self.examples.append(entry.strip()[:_EXAMPLE_LENGTH])

    def report(self, words: int) -> LoadReport:
        return LoadReport(
            lines=self.lines,
            words=words,
            duplicates=self.duplicates,
            not_letters=self.not_letters,
            too_short=self.too_short,
            too_long=self.too_long,
            q_without_u=self.q_without_u,
            names=self.names,
            examples=tuple(self.examples),
        )


def _looks_like_path(spec: str) -> bool:
    if any(sep in spec for sep in ("/", "\\", ".")) or spec == "-":
        return True
    from pathlib import Path

    try:
        return Path(spec).exists()
    except (OSError, ValueError):  # a name too long for the file system, a NUL character
        return False


def _check_spec_length(spec: str) -> None:
    """Refuse a dictionary name or path longer than any the file system takes, at once."""
    if len(spec) > MAX_DICTIONARY_SPEC:
        raise WordListError(
            f"dictionary {quoted(spec)} is {len(spec)} characters; a dictionary name or "
            f"word-list path is at most {MAX_DICTIONARY_SPEC}"
        )


@functools.cache
def _load_builtin(name: str) -> Dictionary:
    limit = BUILTIN_LEVELS[name]
    data = package_data.read_bytes(_DATA_FILE)
    key = cache.key_for(data, f"builtin:{name}")
    cached = _from_cache(key, name=name)
    if cached is not None:
        return cached
    import gzip  # here: only a build (no cache entry yet) decompresses the list

    levels: dict[str, int | None] = {}
    for line in gzip.decompress(data).decode("utf-8").splitlines():
        if line.startswith("#"):
            continue
        word, _, level_text = line.partition("\t")
        level = int(level_text)
        if level <= limit:
            levels[word] = level
    dictionary = Dictionary(levels, name=name)
    dictionary._cache_key = key
    return dictionary


def word_list_path(spec: str | PathLike[str]) -> str | PathLike[str]:
    """``spec`` as the path of a word list file, as :meth:`Dictionary.load` takes a spec that
    is not a built-in's name: :class:`WordListError` for one too long, or a bare word that is
    neither a built-in nor a file (a mistyped name)."""
    if isinstance(spec, str):
        _check_spec_length(spec)
        if not _looks_like_path(spec):
            known = ", ".join(BUILTIN_LEVELS)
            raise WordListError(
                f"unknown dictionary {quoted(spec)}: not a built-in ({known}) and no such file"
            )
    return spec
