"""Dictionaries: built-in SCOWL lists and users' files."""

from __future__ import annotations

import gzip
import re
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bigboggle import Dictionary, WordListError


def test_builtin_sizes_and_levels(standard: Dictionary) -> None:
    common = Dictionary.builtin("common")
    huge = Dictionary.builtin("huge")
    assert 55_000 < len(common) < 75_000
    assert 100_000 < len(standard) < 130_000
    assert 230_000 < len(huge) < 270_000
    assert set(common) <= set(standard) <= set(huge)
    assert all(common.level(word) is not None and common.level(word) <= 50 for word in common)
    assert standard.level("the") == 10
    assert standard.level("queen") is not None
    assert standard.level("nosuchword") is None
    assert standard.has_levels


def test_builtin_is_loaded_once(standard: Dictionary) -> None:
    assert Dictionary.builtin("standard") is standard
    assert Dictionary.builtin() is standard


def test_builtin_words_are_plain_lowercase(standard: Dictionary) -> None:
    assert all(word.isascii() and word.isalpha() and word.islower() for word in standard)
    assert all(len(word) >= 3 for word in standard)
    assert "statuesque" in standard
    assert "cafe" in standard  # café, accents folded
    assert "lines" in standard
    assert "Lines" in standard  # lookups ignore case


def test_shipped_licence_and_data_header() -> None:
    data = resources.files("bigboggle").joinpath("data")
    licence = data.joinpath("SCOWL-LICENSE.txt").read_text(encoding="utf-8")
    assert "Kevin Atkinson" in licence
    first = gzip.decompress(data.joinpath("scowl-words.txt.gz").read_bytes()).split(b"\n", 1)[0]
    assert first.startswith(b"# bigboggle word list from SCOWL")


def test_unknown_builtin() -> None:
    with pytest.raises(WordListError, match="built-in dictionaries: common, standard, huge"):
        Dictionary.builtin("enormous")


def test_container_behaviour() -> None:
    words = Dictionary.from_words(["zebra", "apple", "  apply ", "ape", "apple"])
    assert len(words) == 4
    assert list(words) == ["ape", "apple", "apply", "zebra"]
    assert "APPLE" in words and "app" not in words and 3 not in words
    assert words.has_prefix("app") and words.has_prefix("") and not words.has_prefix("b")
    assert list(words.words_with_prefix("app")) == ["apple", "apply"]
    assert words.level("apple") is None
    assert words.report.duplicates == 1
    assert words.longest == 5


def test_unplayable_entries_are_counted_not_dropped_silently() -> None:
    words = Dictionary.from_words(["don't", "New York", "ok", "a", "qat", "café", "tree", "x-ray"])
    assert sorted(words) == ["cafe", "qat", "tree"]
    report = words.report
    assert report.not_letters == 3
    assert report.too_short == 2
    assert report.q_without_u == 1
    assert report.skipped == 5
    assert "5 entries skipped" in report.describe()


def test_from_file_normalises(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_bytes("\ufeffAPPLE\r\n  BANANA \n# a comment\n\nCHERRY\nNAÏVE\nBAD WORD\n".encode())
    words = Dictionary.from_file(path)
    assert list(words) == ["apple", "banana", "cherry", "naive"]  # all capitals: read whole
    assert words.report.not_letters == 1
    assert words.report.names == 0
    assert words.name == str(path)


#: A list written as /usr/share/dict/words is: words in lowercase, names and abbreviations not
#: (a minority: here 8 lowercase entries to 7 with capitals).
MIXED = (
    "cat\nParis\nNASA\nMcDonald\npolish\nPolish\nÉmile\ncafé\nAaron's\nOK\ndog\nox\nrun\nsea\nzoo\n"
)


def test_a_list_that_mixes_cases_skips_its_names_and_counts_them(tmp_path: Path) -> None:
    path = tmp_path / "words"
    path.write_text(MIXED, encoding="utf-8")
    words = Dictionary.from_file(path)
    assert list(words) == ["cafe", "cat", "dog", "polish", "run", "sea", "zoo"]
    report = words.report
    assert report.names == 5  # Paris, NASA, McDonald, Polish, Émile
    assert report.not_letters == 1 and report.too_short == 2  # Aaron's; OK and ox are short
    assert report.skipped == 8
    assert "Paris" not in words and "nasa" not in words and "polish" in words
    assert "5 capitalised as names or abbreviations in a list that mixes cases" in (
        report.describe()
    )
    assert {"Paris", "NASA"} <= set(report.examples)
    assert list(Dictionary.from_words(MIXED.split())) == list(words)  # one rule for both


@pytest.mark.parametrize(
    "entries",
    [["cat", "dog", "paris"], ["CAT", "DOG", "PARIS"], ["Cat", "Dog", "Paris"]],
    ids=["lowercase", "capitals", "title-case"],
)
def test_a_list_in_one_case_is_read_whole(tmp_path: Path, entries: list[str]) -> None:
    path = tmp_path / "words.txt"
    path.write_text("\n".join(entries) + "\n", encoding="utf-8")
    for words in (Dictionary.from_file(path), Dictionary.from_words(entries)):
        assert list(words) == ["cat", "dog", "paris"]
        assert words.report.names == 0


def test_only_entries_with_letters_decide_whether_a_list_mixes_cases() -> None:
    from bigboggle.dictionary import mixes_cases

    assert mixes_cases(["cat", "dog", "NASA"])
    assert mixes_cases(["  cat ", "x", "Émile"])
    assert mixes_cases(["cat", "dog", "123", "456", "Paris"])
    assert not mixes_cases(["CAT", "123", "NASA"])
    assert not mixes_cases(["cat", "don't", "123"])
    assert not mixes_cases([])


def test_a_list_mixes_cases_only_when_its_lowercase_entries_are_the_majority() -> None:
    """Names are a minority where capitals mark them; a stray lowercase line in a list in
    capitals (Collins, SOWPODS style) is a word, and so is every capitalised entry there."""
    from bigboggle.dictionary import mixes_cases

    capitals = Dictionary.from_words(["APPLE", "BANANA", "CHERRY", "DATES", "zzz"])
    assert list(capitals) == ["apple", "banana", "cherry", "dates", "zzz"]
    assert capitals.report.names == 0
    title = Dictionary.from_words(["APPLE", "BANANA", "Cherry", "dates", "eggs"])
    assert list(title) == ["apple", "banana", "cherry", "dates", "eggs"]  # 2 lowercase to 3
    assert not mixes_cases(["cat", "NASA"])  # as many of each: no majority of words
    assert mixes_cases(["cat", "dog", "NASA"])


def test_the_systems_word_list_mixes_cases() -> None:
    """/usr/share/dict/words (where installed): its names are skipped, its words kept."""
    path = Path("/usr/share/dict/words")
    if not path.is_file():
        pytest.skip("no /usr/share/dict/words here")
    words = Dictionary.from_file(path)
    assert words.report.names > 1000
    assert "cat" in words and "zebra" in words and "paris" not in words


def test_a_cached_list_that_mixes_cases_keeps_its_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bigboggle import cache, implementation

    if not implementation.compiled_available():
        pytest.skip("the cache holds the compiled core's packed trie")
    monkeypatch.setenv("BIGBOGGLE_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "words"
    path.write_text(MIXED, encoding="utf-8")
    fresh = Dictionary.from_file(path)
    _ = fresh.packed_trie  # writes the cache entry
    assert cache.path_for(cache.key_for(path.read_bytes(), "file")).is_file()
    again = Dictionary.from_file(path)
    assert again._packed is not None  # read from the cache
    assert list(again) == list(fresh) and "paris" not in again
    assert again.report == fresh.report and again.report.names == 5


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"", "is empty"),
        (b"\n\n  \n", "is empty"),
        (b"abc\x00def\n", "looks binary (a NUL byte on line 1)"),
        (b"apple\nbanana\ncaf\xe9\n", "line 3"),
        (b"a\nb\nok\n", "no playable words"),
    ],
)
def test_bad_files(tmp_path: Path, content: bytes, fragment: str) -> None:
    path = tmp_path / "list.txt"
    path.write_bytes(content)
    with pytest.raises(WordListError) as caught:
        Dictionary.from_file(path)
    assert fragment in str(caught.value)
    assert str(path) in str(caught.value)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(WordListError, match="does not exist"):
        Dictionary.from_file(tmp_path / "nope.txt")
    with pytest.raises(WordListError, match="is a directory"):
        Dictionary.from_file(tmp_path)


def test_load_by_name_or_path(tmp_path: Path, standard: Dictionary) -> None:
    assert Dictionary.load("standard") is standard
    assert Dictionary.load(None) is standard
    path = tmp_path / "mine.txt"
    path.write_text("alpha\nbeta\n", encoding="utf-8")
    assert list(Dictionary.load(str(path))) == ["alpha", "beta"]
    with pytest.raises(WordListError, match="not a built-in"):
        Dictionary.load("gigantic")
    with pytest.raises(WordListError, match="does not exist"):
        Dictionary.load("missing.txt")


def test_enable2k_loads(enable2k: Dictionary) -> None:
    assert len(enable2k) == 173_528 - enable2k.report.too_short
    assert "aardvark" in enable2k
    assert enable2k.report.not_letters == 0


def test_the_load_summary_counts_one_as_one() -> None:
    words = Dictionary.from_words(["cat", "cat", "a", "qat"])
    assert words.report.describe() == (
        "2 words; 1 entry skipped (1 shorter than 3 letters); 1 duplicate; "
        "1 word with a q not followed by u (never playable)"
    )


def test_words_too_long_for_any_board_are_counted(tmp_path: Path) -> None:
    words = Dictionary.from_words(["cat", "a" * 300, "b" * 255])
    assert sorted(words) == ["b" * 255, "cat"]
    assert words.report.too_long == 1
    assert "longer than 255 letters" in words.report.describe()


# -- bounds -------------------------------------------------------------------------------------

LONGEST_MESSAGE = 300


@pytest.mark.once
@pytest.mark.parametrize(
    "spec",
    ["x" * 1_000_000, "y" * 5000, "a/" * 3000, "bad\x00name", "lists/bad\x00name.txt"],
    ids=["megabyte", "long-name", "long-path", "nul", "nul-path"],
)
def test_an_oversized_or_impossible_dictionary_spec_is_refused_clearly(spec: str) -> None:
    from bigboggle.limits import MAX_DICTIONARY_SPEC

    with pytest.raises(WordListError) as caught:
        Dictionary.load(spec)
    message = str(caught.value)
    assert len(message) <= LONGEST_MESSAGE, message
    if len(spec) > MAX_DICTIONARY_SPEC:
        assert f"{len(spec)} characters" in message
        assert f"at most {MAX_DICTIONARY_SPEC}" in message
        with pytest.raises(WordListError, match="at most"):
            Dictionary.from_file(spec)


@pytest.mark.once
def test_unknown_builtin_names_are_quoted_in_a_bounded_excerpt() -> None:
    with pytest.raises(WordListError) as caught:
        Dictionary.builtin("z" * 100_000)
    assert len(str(caught.value)) <= LONGEST_MESSAGE
    assert "'zzzz" in str(caught.value)


@pytest.mark.once
def test_a_word_list_with_a_huge_line_is_read_and_its_example_bounded(tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text("cat\n" + "x!" * 500_000 + "\ndog\n", encoding="utf-8")
    words = Dictionary.from_file(path)
    assert sorted(words) == ["cat", "dog"]
    assert words.report.not_letters == 1
    assert [len(example) for example in words.report.examples] == [40]


@pytest.mark.once
def test_from_words_quotes_a_bad_entry_briefly() -> None:
    with pytest.raises(WordListError) as caught:
        Dictionary.from_words(["cat", ["x"] * 100_000])  # type: ignore[list-item]
    message = str(caught.value)
    assert message.startswith("word 2 is not text")
    assert len(message) <= LONGEST_MESSAGE


# -- the compiled scanner: the same reading as the Python one ------------------------------

#: Characters that each exercise a rule of the reading: letters of both cases (q and u for
#: Qu), every ASCII whitespace str.strip() strips (\x0b, \x0c and \x1c-\x1f too, though
#: bytes.splitlines() splits at none of them), line breaks, comments and non-letters.
_SCAN_ALPHABET = "abqu" + "ABQU" + " \t\x0b\x0c\x1c\x1f" + "\n\r" + "#1-'"


def _compiled_scan() -> None:
    from bigboggle import implementation

    if not implementation.compiled_available():
        pytest.skip("the scanner is part of the compiled core")


def _python_reading(data: bytes) -> tuple[list[str], object]:
    from bigboggle.dictionary import _read_lines

    levels, report = _read_lines(data, "'test'")
    return sorted(levels), report


def _scanned_reading(data: bytes) -> tuple[list[str], object]:
    from bigboggle.dictionary import _scan

    scanned = _scan(data)
    assert scanned is not None
    blob, count, longest, report = scanned
    words = blob.decode("ascii").split("\n") if blob else []
    assert count == len(words) and longest == max(map(len, words), default=0)
    return words, report


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet=_SCAN_ALPHABET, max_size=12),
            st.sampled_from(["cat", "Cat", "CAT", " dog ", "#x", "qat", "quit", "NASA"]),
            st.builds(lambda n: "ab" * n, st.integers(120, 140)),  # around 255 letters
        ),
        max_size=40,
    )
)
def test_the_compiled_scanner_reads_a_list_as_python_does(lines: list[str]) -> None:
    _compiled_scan()
    data = "\n".join(lines).encode("ascii")
    assert _scanned_reading(data) == _python_reading(data)


def test_the_scanner_leaves_non_ascii_lists_to_python(tmp_path: Path) -> None:
    _compiled_scan()
    from bigboggle.dictionary import _scan

    assert _scan("café\nzebra\n".encode()) is None
    path = tmp_path / "words.txt"
    path.write_text("café\nzebra\nnaïve\n", encoding="utf-8")
    assert list(Dictionary.from_file(path)) == ["cafe", "naive", "zebra"]


def test_an_unsorted_list_with_duplicates_is_sorted_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_bytes(b"zebra\r\napple\rZEBRA\nmango\n\napple\nqat\n")
    words = Dictionary.from_file(path)
    assert len(words) == 4  # known without making the word strings
    assert list(words) == ["apple", "mango", "qat", "zebra"]
    report = words.report
    assert (report.duplicates, report.names, report.q_without_u) == (1, 1, 1)  # ZEBRA: a name
    assert words.longest == 5 and "mango" in words and words.has_prefix("ma")


def test_the_packed_trie_builds_alike_from_words_or_their_bytes() -> None:
    _compiled_scan()
    from bigboggle._solve_c import PackedTrie

    words = ["qat", "quit", "quite", "qursh", "tranq", "zebra"]
    from_list = PackedTrie.build(words)
    assert PackedTrie.build("\n".join(words).encode()).to_bytes() == from_list.to_bytes()
    assert PackedTrie.build(b"").node_count == 1
    for bad, fragment in [
        (b"cat\ncat", "appears twice"),
        (b"cat\n", "word 1 (b'') is not"),
        (b"cat\nDog", "word 1 (b'Dog')"),
        (b"x" * 300, "is not 1-255 letters"),
    ]:
        with pytest.raises(ValueError, match=re.escape(fragment)):
            PackedTrie.build(bad)
