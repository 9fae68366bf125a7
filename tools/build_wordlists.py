#!/usr/bin/env python3
"""Build bigboggle's built-in word list from SCOWL, via Debian's ``scowl`` package.

This is a maintainer script; it is not part of the installed package.  It reads
SCOWL's final word lists (``/usr/share/dict/scowl/`` inside the package) and
writes two files into ``src/bigboggle/data/``:

``scowl-words.txt.gz``
    Gzipped UTF-8 text.  The first line is a ``#`` comment naming the SCOWL
    and Debian package versions; every other line is ``word<TAB>level``,
    sorted by word, where ``level`` is the lowest SCOWL size (10, 20, 35, 40,
    50, 55, 60, 70 or 80) of any list the word appears in.  The output is
    byte-reproducible: the same input always gives identical bytes.

``SCOWL-LICENSE.txt``
    SCOWL's copyright and licence notices, copied from the package.

Which lists are used: only the ``words`` sub-category (never
``proper-names``, ``abbreviations``, ``contractions``, ``upper`` nor the
``special-*`` lists), for every plain spelling category present (english,
american, british, british_z, canadian, australian) plus every ``variant_1``
category (``variant_1`` and ``british_``/``canadian_``/``australian_variant_1``),
at sizes up to 80.  ``variant_2``/``variant_3`` lists and size 95 are left out.

Words are accent-folded (NFKD, combining marks dropped) and lowercased; a word
is kept only if it had no uppercase letter originally and the folded form
matches ``^[a-z]{3,}$`` (so anything with an apostrophe, hyphen, period, space
or a letter that does not fold to a-z is dropped).

Usage::

    python tools/build_wordlists.py                      # runs apt-get download scowl
    python tools/build_wordlists.py scowl_2020.12.07-2_all.deb
    python tools/build_wordlists.py DIR                  # a dpkg-deb -x output dir
"""

from __future__ import annotations

import argparse
import gzip
import io
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT_DIR = REPO_ROOT / "src" / "bigboggle" / "data"
WORDS_FILE_NAME = "scowl-words.txt.gz"
LICENSE_FILE_NAME = "SCOWL-LICENSE.txt"

SCOWL_LIST_DIR = Path("usr/share/dict/scowl")
SCOWL_DOC_DIR = Path("usr/share/doc/scowl")

#: SCOWL sizes that go into the built-in list (95, "insane", is left out).
LEVELS: tuple[int, ...] = (10, 20, 35, 40, 50, 55, 60, 70, 80)
MAX_LEVEL = 80

#: Spelling categories whose ``words`` lists are used.
BASE_CATEGORIES: tuple[str, ...] = (
    "english",
    "american",
    "british",
    "british_z",
    "canadian",
    "australian",
)
VARIANT_CATEGORIES: tuple[str, ...] = (
    "variant_1",
    "british_variant_1",
    "canadian_variant_1",
    "australian_variant_1",
)
INCLUDED_CATEGORIES: frozenset[str] = frozenset(BASE_CATEGORIES + VARIANT_CATEGORIES)

#: Sizes reported in the summary (common / standard / huge).
SUMMARY_LEVELS: tuple[int, ...] = (50, 70, 80)

LIST_NAME_RE = re.compile(r"^(?P<category>[a-z0-9_]+)-(?P<sub>[a-z-]+)\.(?P<level>\d+)$")
VALID_WORD_RE = re.compile(r"^[a-z]{3,}$")
SCOWL_VERSION_RE = re.compile(r"^\s*Version\s+(\S+)\s*$", re.MULTILINE)
DEB_CHANGELOG_RE = re.compile(r"^scowl \(([^)]+)\)")
README_COPYRIGHT_START = "COPYRIGHT, SOURCES, and CREDITS:"
README_COPYRIGHT_END = "FUTURE PLANS:"


class BuildError(Exception):
    """A problem that should be reported to the user without a traceback."""


@dataclass(frozen=True)
class WordList:
    """One SCOWL final word list file, e.g. ``british_z-words.50``."""

    path: Path
    category: str
    level: int


@dataclass
class BuildResult:
    """What a build produced, for the summary."""

    words: dict[str, int]
    lists: list[WordList]
    encodings: Counter[str] = field(default_factory=Counter)
    dropped_upper: int = 0
    dropped_shape: int = 0


def run_command(args: list[str], cwd: Path | None = None) -> str:
    """Run ``args`` and return its stdout; raise BuildError with its output on failure."""
    if shutil.which(args[0]) is None:
        raise BuildError(f"'{args[0]}' was not found on PATH (needed to run: {' '.join(args)})")
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        output = (proc.stderr or proc.stdout).strip()
        raise BuildError(f"'{' '.join(args)}' failed (exit {proc.returncode}):\n{output}")
    return proc.stdout


def download_deb(dest: Path) -> Path:
    """Run ``apt-get download scowl`` in ``dest`` and return the .deb's path."""
    print("No source given: running 'apt-get download scowl' ...", file=sys.stderr)
    run_command(["apt-get", "download", "scowl"], cwd=dest)
    debs = sorted(dest.glob("scowl_*.deb"))
    if not debs:
        raise BuildError("'apt-get download scowl' did not produce a scowl_*.deb file")
    return debs[-1]


def unpack_deb(deb: Path, dest: Path) -> Path:
    """Unpack ``deb`` into ``dest`` with ``dpkg-deb -x`` and return ``dest``."""
    run_command(["dpkg-deb", "-x", str(deb), str(dest)])
    return dest


def deb_version_from_deb(deb: Path) -> str:
    """Return the Version field of a .deb file's control data."""
    return run_command(["dpkg-deb", "-f", str(deb), "Version"]).strip()


def read_gz_or_plain(path: Path) -> str | None:
    """Read a doc file that may be gzipped (``path`` or ``path.gz``); None if absent."""
    gz_path = path.with_name(path.name + ".gz")
    if gz_path.is_file():
        return gzip.decompress(gz_path.read_bytes()).decode("utf-8", errors="replace")
    if path.is_file():
        return path.read_text(encoding="utf-8", errors="replace")
    return None


def scowl_version(root: Path) -> str:
    """Return the upstream SCOWL version, from the README's ``Version`` line."""
    readme = read_gz_or_plain(root / SCOWL_DOC_DIR / "README")
    if readme is None:
        raise BuildError(f"SCOWL README not found under {root / SCOWL_DOC_DIR}")
    match = SCOWL_VERSION_RE.search(readme)
    if match is None:
        raise BuildError("could not find a 'Version ...' line in the SCOWL README")
    return match.group(1)


def debian_version(root: Path, deb: Path | None) -> str:
    """Return the Debian package version, from the .deb or from changelog.Debian."""
    if deb is not None:
        return deb_version_from_deb(deb)
    changelog = read_gz_or_plain(root / SCOWL_DOC_DIR / "changelog.Debian")
    if changelog is None:
        raise BuildError(f"changelog.Debian not found under {root / SCOWL_DOC_DIR}")
    match = DEB_CHANGELOG_RE.match(changelog)
    if match is None:
        raise BuildError("could not read the version from the first line of changelog.Debian")
    return match.group(1)


def find_word_lists(root: Path) -> list[WordList]:
    """Return the SCOWL ``words`` lists to use, sorted by category then level."""
    list_dir = root / SCOWL_LIST_DIR
    if not list_dir.is_dir():
        raise BuildError(f"SCOWL word list directory not found: {list_dir}")
    lists: list[WordList] = []
    for path in sorted(list_dir.iterdir()):
        match = LIST_NAME_RE.match(path.name)
        if match is None or match["sub"] != "words" or match["category"] not in INCLUDED_CATEGORIES:
            continue
        level = int(match["level"])
        if level > MAX_LEVEL:
            continue
        if level not in LEVELS:
            raise BuildError(f"unexpected SCOWL size {level} in {path.name}")
        lists.append(WordList(path=path, category=match["category"], level=level))
    if not lists:
        raise BuildError(f"no SCOWL '*-words.*' lists found in {list_dir}")
    lists.sort(key=lambda wl: (wl.category, wl.level))
    missing = [c for c in BASE_CATEGORIES if not any(wl.category == c for wl in lists)]
    if "english" in missing:
        raise BuildError(f"SCOWL 'english-words.*' lists are missing from {list_dir}")
    for category in missing:
        print(f"warning: no '{category}-words.*' lists in the package", file=sys.stderr)
    return lists


def decode_list(data: bytes) -> tuple[str, str]:
    """Decode a word list: UTF-8 (Debian's) if valid, else ISO-8859-1 (upstream's).

    Returns the text and the encoding found ("ascii" if the data is plain ASCII).
    """
    if data.isascii():
        return data.decode("ascii"), "ascii"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("iso-8859-1"), "iso-8859-1"


def fold(word: str) -> str:
    """Lowercase ``word`` and strip accents (NFKD, combining marks dropped)."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def iter_entries(text: str) -> Iterator[str]:
    """Yield the non-empty lines of a word list, stripped."""
    for line in text.splitlines():
        entry = line.strip()
        if entry:
            yield entry


def build_words(lists: list[WordList]) -> BuildResult:
    """Read ``lists`` and map each accepted word to its lowest SCOWL level."""
    result = BuildResult(words={}, lists=lists)
    words = result.words
    for word_list in lists:
        text, encoding = decode_list(word_list.path.read_bytes())
        result.encodings[encoding] += 1
        for entry in iter_entries(text):
            if any(ch.isupper() for ch in entry):
                result.dropped_upper += 1
                continue
            folded = fold(entry)
            if not VALID_WORD_RE.match(folded):
                result.dropped_shape += 1
                continue
            if word_list.level < words.get(folded, MAX_LEVEL + 1):
                words[folded] = word_list.level
    return result


def render_words(words: dict[str, int], scowl_ver: str, deb_ver: str) -> bytes:
    """Return the gzipped, byte-reproducible word file contents."""
    lines = [
        f"# bigboggle word list from SCOWL {scowl_ver} (Debian package scowl {deb_ver}); "
        "format: word<TAB>level"
    ]
    lines.extend(f"{word}\t{words[word]}" for word in sorted(words))
    raw = ("\n".join(lines) + "\n").encode("utf-8")
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as gz:
        gz.write(raw)
    return buffer.getvalue()


def readme_copyright_section(root: Path) -> str | None:
    """Return the README's "COPYRIGHT, SOURCES, and CREDITS" section, if present."""
    readme = read_gz_or_plain(root / SCOWL_DOC_DIR / "README")
    if readme is None or README_COPYRIGHT_START not in readme:
        return None
    section = readme[readme.index(README_COPYRIGHT_START) :]
    if README_COPYRIGHT_END in section:
        section = section[: section.index(README_COPYRIGHT_END)]
    return section.strip() + "\n"


def render_license(root: Path, scowl_ver: str, deb_ver: str) -> str:
    """Return the text of SCOWL-LICENSE.txt."""
    copyright_path = root / SCOWL_DOC_DIR / "copyright"
    if not copyright_path.is_file():
        raise BuildError(f"SCOWL copyright file not found: {copyright_path}")
    copyright_text = copyright_path.read_text(encoding="utf-8", errors="replace").strip() + "\n"
    rule = "=" * 72
    parts = [
        "SCOWL (Spell Checker Oriented Word Lists) licence and copyright notices\n",
        f"bigboggle's built-in word list ({WORDS_FILE_NAME}) is derived from SCOWL\n"
        f"{scowl_ver} by Kevin Atkinson, as packaged by Debian (package scowl\n"
        f"{deb_ver}), by tools/build_wordlists.py. The notices below are copied\n"
        "verbatim from that package.\n",
        f"{rule}\nFrom /usr/share/doc/scowl/copyright (Debian package scowl {deb_ver}):\n{rule}\n",
        copyright_text,
    ]
    section = readme_copyright_section(root)
    if section is not None:
        parts += [
            f"\n{rule}\nFrom /usr/share/doc/scowl/README (SCOWL {scowl_ver}), "
            f'section "{README_COPYRIGHT_START.rstrip(":")}":\n{rule}\n',
            section,
        ]
    return "\n".join(parts)


def print_summary(result: BuildResult, words_path: Path, license_path: Path) -> None:
    """Print counts per level and the files written."""
    words = result.words
    categories = sorted({wl.category for wl in result.lists})
    encodings = ", ".join(f"{n} {enc}" for enc, n in sorted(result.encodings.items()))
    print(f"Read {len(result.lists)} lists ({encodings}) in categories: {', '.join(categories)}")
    print(
        f"Dropped entries: {result.dropped_upper} with uppercase letters, "
        f"{result.dropped_shape} not matching ^[a-z]{{3,}}$ after folding"
    )
    per_level = Counter(words.values())
    print(
        "Words first appearing at each level: "
        + ", ".join(f"{lv}: {per_level[lv]}" for lv in LEVELS)
    )
    for limit in SUMMARY_LEVELS:
        count = sum(n for lv, n in per_level.items() if lv <= limit)
        print(f"  level <= {limit}: {count} words")
    print(f"Wrote {words_path} ({words_path.stat().st_size} bytes)")
    print(f"Wrote {license_path} ({license_path.stat().st_size} bytes)")


def build(root: Path, deb: Path | None, out_dir: Path) -> None:
    """Build both data files from an unpacked scowl package at ``root``."""
    if not (root / SCOWL_LIST_DIR).is_dir():
        raise BuildError(
            f"{root} does not look like an unpacked scowl package "
            f"(no {SCOWL_LIST_DIR}/ in it; unpack the .deb with 'dpkg-deb -x DEB DIR')"
        )
    scowl_ver = scowl_version(root)
    deb_ver = debian_version(root, deb)
    print(f"SCOWL {scowl_ver}, Debian package scowl {deb_ver}")
    result = build_words(find_word_lists(root))
    words_data = render_words(result.words, scowl_ver, deb_ver)
    license_text = render_license(root, scowl_ver, deb_ver)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        words_path = out_dir / WORDS_FILE_NAME
        license_path = out_dir / LICENSE_FILE_NAME
        words_path.write_bytes(words_data)
        license_path.write_text(license_text, encoding="utf-8")
    except OSError as exc:
        raise BuildError(f"cannot write output files in {out_dir}: {exc}") from exc
    print_summary(result, words_path, license_path)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        description="Build bigboggle's word list data from Debian's scowl package.",
    )
    parser.add_argument(
        "source",
        nargs="?",
        type=Path,
        help="a scowl_*.deb file or a directory it was unpacked into with 'dpkg-deb -x' "
        "(default: run 'apt-get download scowl' into a temporary directory)",
    )
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=DEFAULT_OUT_DIR,
        help=f"where to write the data files (default: {DEFAULT_OUT_DIR})",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Entry point: returns the process exit status."""
    args = parse_args(argv)
    try:
        with tempfile.TemporaryDirectory(prefix="bigboggle-scowl-") as tmp_name:
            tmp = Path(tmp_name)
            source: Path | None = args.source
            if source is None:
                source = download_deb(tmp)
            if source.is_dir():
                build(source, None, args.out_dir)
            elif source.is_file():
                if source.suffix != ".deb":
                    raise BuildError(f"{source} is neither a .deb file nor a directory")
                build(unpack_deb(source, tmp / "unpacked"), source, args.out_dir)
            else:
                raise BuildError(f"{source} does not exist")
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
