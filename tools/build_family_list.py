#!/usr/bin/env python3
"""Build the family filter's list of offensive words from two maintained lists, via npm.

This is a maintainer script; it is not part of the installed package. It reads

* the English list of LDNOOBW, the "List of Dirty, Naughty, Obscene and Otherwise Bad Words"
  (CC-BY-4.0), as its own project publishes it in the npm package ``naughty-words``
  (``en.json``), and
* ``cuss`` (MIT, by Titus Wormer), a map of English profanities, slurs and obscenities to a
  *sureness* rating: 2 = likely used as a profanity, 1 = maybe, 0 = likely clean text
  (``index.js``),

and writes two files into ``src/bigboggle/data/``:

``offensive.txt``
    UTF-8 text. The first lines are ``#`` comments naming the sources and their versions;
    every other line is one word, sorted. Byte-reproducible: the same input gives the same bytes.

``OFFENSIVE-LICENSE.txt``
    Where the list comes from, how it was made, and both sources' licences, copied from the
    packages.

How the list is made (no word is added or removed by hand):

1. Each LDNOOBW entry is folded as bigboggle's dictionaries fold words (trimmed, lowercase,
   accents folded) and kept only if it is one playable word, ``^[a-z]{3,}$`` (phrases such as
   ``date rape`` and two-letter entries can never be played, so they are left out).
2. Two lists judge better than one. An entry that ``cuss`` rates 0 (likely clean text: ``butt``,
   ``escort``, ``panties``) is dropped. An entry ``cuss`` rates 1 or 2 is kept: both lists
   flag it (``shit``, ``cunt``, ``whore``). An entry ``cuss`` does not know is kept only when it
   is built on such an agreed word: it contains one (``clusterfuck``, ``cumshots``,
   ``nipples``), or begins with one less its final ``e`` (``raping``, ``masturbation``). The
   rest (``shrimping``, ``pegging``, ``skeet``, ``domination``, ``hardcore``) are everyday
   words that only one list flags, which a word game should not hide.
3. Inflections come from a source or from bigboggle's dictionary, never invented: a ``cuss`` word rated 1 or 2 is added
   when it is a kept word plus ``s``, ``es``, ``ed``, ``ing``, ``ings``, ``er`` or ``ers``
   (``fucked``, ``sluts``, ``wanker``; not ``y``, which makes ``cocky`` of ``cock``); and a kept word's plural (``s``, or ``es`` after
   ``s``, ``x``, ``z``, ``ch``, ``sh``) is added when bigboggle's own ``huge`` dictionary
   (SCOWL) holds it (``cunts``, ``whores``, ``snatches``; so ``spic`` never yields ``spices``).
4. Everyday words keep their everyday sense. A word of bigboggle's ``common`` dictionary (SCOWL's
   everyday words) stays on the list only when ``cuss`` rates it 2 (likely a profanity): ``fuck``,
   ``cunt``, ``slut``, ``whore``, ``nigger`` stay; ``tit`` (a bird), ``cock`` (a rooster),
   ``rape`` (a plant), ``snatch``, ``scat``, ``sex``, ``intercourse``, ``nipple``, ``rectum``,
   ``penis``, ``vagina``, ``incest`` (rated 1: maybe) go. A word ``cuss`` does not rate has the
   rating of the word it is built on (``nipples`` that of ``nipple``, ``masturbation`` that of
   ``masturbate``). Rarer words (``wanker``, ``twat``, ``titty``) are not everyday words, so
   what both lists flag is kept. Two short lists in this script, each word with its reason,
   correct the ratings where they are wrong for a word game: ``NOT_OFFENSIVE`` (rated 2, but
   with a common innocent sense: ``ass`` the donkey, ``sucker``) and ``ALWAYS_OFFENSIVE``
   (rated 1, but with no sense a family filter should show: ``shit``, ``porn``).

Usage::

    python tools/build_family_list.py                       # runs npm pack for both packages
    python tools/build_family_list.py NAUGHTY.tgz CUSS.tgz  # tarballs that npm pack made
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT_DIR = REPO_ROOT / "src" / "bigboggle" / "data"
WORDS_FILE_NAME = "offensive.txt"
LICENSE_FILE_NAME = "OFFENSIVE-LICENSE.txt"

#: The npm packages read, at the versions the committed data was built from.
NAUGHTY_WORDS = "naughty-words@1.2.0"
CUSS = "cuss@2.2.0"

VALID_WORD_RE = re.compile(r"^[a-z]{3,}$")
#: One entry of cuss's object literal: ``  word: 2,`` or ``  'two words': 1,``.
CUSS_ENTRY_RE = re.compile(
    r"^\s*(?:'(?P<quoted>[^'\\]*)'|(?P<bare>[A-Za-z0-9_$]+)):\s*(?P<rating>[012]),?\s*$"
)
CUSS_START = "export const cuss = {"
#: Endings by which a cuss word counts as an inflection of a kept word.
#: (Not "y": it makes adjectives, and cocky, booby and spunky are everyday words.)
INFLECTIONS = ("s", "es", "ed", "ing", "ings", "er", "ers")
#: Endings after which a plural takes ``es`` rather than ``s``.
SIBILANTS = ("s", "x", "z", "ch", "sh")
#: The built-in dictionary of everyday words (step 4): its words stay only if cuss rates them 2.
EVERYDAY_DICTIONARY = "common"
#: cuss's rating of a word that is likely a profanity.
PROFANE = 2
#: Step 4's corrections, where cuss's rating is wrong for a word game (each with its reason).
#: Rated 2 by cuss, but an everyday word in an innocent sense: never on the list.
NOT_OFFENSIVE = {
    "ass": "a donkey (the Bible's and the fables' word)",
    "asses": "donkeys",
    "sucker": "a lollipop, a plant's shoot, an octopus's sucker, a dupe",
    "sexed": "of an animal whose sex was told, as chicks are sexed on a farm",
    "sexing": "telling an animal's sex (chick sexing)",
}
#: Rated 1 by cuss (maybe), but with no sense a family filter should show: kept on the list.
ALWAYS_OFFENSIVE = {
    "shit": "vulgar in every sense (cuss rates its inflections shits and shitty 2)",
    "porn": "pornography, in every sense",
    "porno": "pornography, in every sense",
    "pornography": "the thing a family filter is for",
    "clit": "vulgar slang (clitoris, the clinical word, is not on the list)",
    "bitch": "an insult in its everyday sense (its derived bitching and bitcher are listed)",
    "dick": "vulgar slang in its everyday sense (the old word for a detective is rare)",
    "pussy": "vulgar slang in its everyday sense (pussycat and pussy willow are not listed)",
}


class BuildError(Exception):
    """A problem reported to the user without a traceback."""


@dataclass(frozen=True)
class Package:
    """The files read from one npm package tarball."""

    name: str
    version: str
    files: dict[str, str]


def fold(entry: str) -> str:
    """An entry as bigboggle's dictionaries compare it (see ``bigboggle.dictionary.normalise``)."""
    text = unicodedata.normalize("NFKD", entry.strip().lower())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def read_package(tgz: Path, wanted: Iterable[str]) -> Package:
    """The ``wanted`` files (paths inside ``package/``) and the name and version of ``tgz``."""
    files: dict[str, str] = {}
    try:
        with tarfile.open(tgz, "r:gz") as archive:
            for name in ("package.json", *wanted):
                member = archive.extractfile(f"package/{name}")
                if member is None:
                    raise BuildError(f"{tgz}: package/{name} is not a file")
                files[name] = member.read().decode("utf-8")
    except (OSError, tarfile.TarError, KeyError) as exc:
        raise BuildError(f"{tgz}: cannot read it as an npm package tarball ({exc})") from None
    meta = json.loads(files["package.json"])
    return Package(str(meta["name"]), str(meta["version"]), files)


def npm_pack(spec: str, dest: Path) -> Path:
    """Run ``npm pack spec`` in ``dest`` (the registry's tarball) and return its path."""
    if shutil.which("npm") is None:
        raise BuildError("'npm' was not found on PATH (needed to fetch " + spec + ")")
    proc = subprocess.run(
        ["npm", "pack", "--silent", spec], cwd=dest, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise BuildError(f"'npm pack {spec}' failed:\n{(proc.stderr or proc.stdout).strip()}")
    return dest / proc.stdout.strip().splitlines()[-1]


def ldnoobw_words(package: Package) -> list[str]:
    """LDNOOBW's English entries, as a list of strings."""
    entries = json.loads(package.files["en.json"])
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise BuildError("naughty-words en.json: expected a list of strings")
    return entries


def cuss_ratings(package: Package) -> dict[str, int]:
    """cuss's words and their sureness ratings, read from its ``index.js`` object literal."""
    lines = package.files["index.js"].splitlines()
    try:
        start = lines.index(CUSS_START)
    except ValueError:
        raise BuildError(f"cuss index.js: no line {CUSS_START!r}") from None
    ratings: dict[str, int] = {}
    for number, line in enumerate(lines[start + 1 :], start + 2):
        if line.strip() == "}":
            return ratings
        match = CUSS_ENTRY_RE.match(line)
        if match is None:
            raise BuildError(f"cuss index.js line {number}: unexpected {line[:60]!r}")
        ratings[match["quoted"] or match["bare"]] = int(match["rating"])
    raise BuildError("cuss index.js: the object literal does not end")


def agreed(entries: Iterable[str], ratings: dict[str, int]) -> tuple[set[str], set[str]]:
    """Steps 1 and 2: the playable entries both lists flag, and those built on them."""
    playable = {word for word in map(fold, entries) if VALID_WORD_RE.match(word)}
    both = {word for word in playable if ratings.get(word, 0) >= 1}
    stems = {word[:-1] for word in both if word.endswith("e")}
    built = {
        word
        for word in playable
        if word not in ratings
        and (any(base in word for base in both) or any(map(word.startswith, stems)))
    }
    return both, built


def inflections(kept: set[str], ratings: dict[str, int], plurals_from: set[str]) -> set[str]:
    """Step 3: cuss's inflections of kept words, and their plurals the dictionary holds."""
    from_cuss = {
        word
        for word, rating in ratings.items()
        if rating >= 1
        and VALID_WORD_RE.match(word)
        and any(word.endswith(end) and word[: -len(end)] in kept for end in INFLECTIONS)
    }
    plurals = {word + ("es" if word.endswith(SIBILANTS) else "s") for word in kept}
    return (from_cuss | (plurals & plurals_from)) - kept


def sureness(word: str, ratings: dict[str, int], listed: set[str]) -> int:
    """Step 4: how sure cuss is that ``word`` is a profanity (0-2), corrected by this script's two
    lists; a word cuss does not rate has the rating of the longest ``listed`` word it is built
    on (contains, or begins with less a final ``e``): ``clitorises`` that of ``clitoris``, not
    of ``clit``."""
    if word in NOT_OFFENSIVE:
        return 0
    if word in ALWAYS_OFFENSIVE:
        return PROFANE
    if word in ratings:
        return ratings[word]
    bases = [
        base
        for base in listed
        if base != word and (base in word or (base.endswith("e") and word.startswith(base[:-1])))
    ]
    if not bases:
        return 0
    longest = max(map(len, bases))
    return max(sureness(base, ratings, set()) for base in bases if len(base) == longest)


def everyday_kept(words: set[str], ratings: dict[str, int], everyday: set[str]) -> set[str]:
    """Step 4: ``words`` less the everyday words that cuss does not rate as likely profanities,
    and never a word of ``NOT_OFFENSIVE``."""
    return {
        word
        for word in words
        if word not in NOT_OFFENSIVE
        and (word not in everyday or sureness(word, ratings, words) >= PROFANE)
    }


def dictionary_words(name: str = "huge") -> set[str]:
    """Every word of one of bigboggle's built-in dictionaries (the repository's own SCOWL data)."""
    sys.path.insert(0, str(REPO_ROOT / "src"))
    from bigboggle.dictionary import Dictionary

    return set(Dictionary.builtin(name))


def header(naughty: Package, cuss: Package, count: int) -> str:
    return (
        f"# Offensive words for bigboggle's family filter: {count} words, built by\n"
        f"# tools/build_family_list.py from LDNOOBW's English list (npm {naughty.name} "
        f"{naughty.version}, CC-BY-4.0)\n"
        f"# and the ratings of {cuss.name} {cuss.version} (MIT); see OFFENSIVE-LICENSE.txt.\n"
    )


def corrections() -> str:
    """Step 4's two lists, each word with its reason, for the notice."""
    lines = ["Step 4's corrections of cuss's ratings:", "", "Never on the list (NOT_OFFENSIVE):"]
    lines += [f"* {word}: {reason}" for word, reason in sorted(NOT_OFFENSIVE.items())]
    lines += ["", "Always on the list (ALWAYS_OFFENSIVE):"]
    lines += [f"* {word}: {reason}" for word, reason in sorted(ALWAYS_OFFENSIVE.items())]
    return "\n".join(lines) + "\n"


def notice(naughty: Package, cuss: Package) -> str:
    rule = "=" * 72
    intro = (__doc__ or "").split("How the list is made", 1)[1].split("Usage::", 1)[0]
    return (
        "Licence and provenance of offensive.txt (bigboggle's family filter)\n\n"
        "offensive.txt is derived, by tools/build_family_list.py, from:\n\n"
        f"* the English list of the List of Dirty, Naughty, Obscene and Otherwise Bad Words\n"
        f"  (LDNOOBW, https://github.com/LDNOOBW/List-of-Dirty-Naughty-Obscene-and-Otherwise-Bad-Words),\n"
        f"  as published in the npm package {naughty.name} {naughty.version}, licensed under\n"
        f"  the Creative Commons Attribution 4.0 International licence (CC-BY-4.0). The words\n"
        f"  were selected and inflected as described below (changes were made).\n"
        f"* the sureness ratings and inflections of the npm package {cuss.name} {cuss.version}\n"
        f"  (https://github.com/words/cuss), MIT licence, Copyright (c) 2016 Titus Wormer.\n\n"
        f"How the list is made{intro.rstrip()}\n\n"
        f"{corrections()}\n"
        f"{rule}\nLDNOOBW's licence (LICENSE of npm package {naughty.name} {naughty.version}):\n"
        f"{rule}\n\n{naughty.files['LICENSE'].strip()}\n\n"
        f"{rule}\ncuss's licence (license of npm package {cuss.name} {cuss.version}):\n"
        f"{rule}\n\n{cuss.files['license'].strip()}\n"
    )


def build(
    naughty_tgz: Path,
    cuss_tgz: Path,
    out_dir: Path,
    dictionary: set[str] | None = None,
    everyday: set[str] | None = None,
) -> int:
    """Write both files into ``out_dir``; return how many words the list has. Plurals are
    checked against ``dictionary`` (default: bigboggle's ``huge`` built-in dictionary), everyday
    words are those of ``everyday`` (default: its ``common`` one)."""
    naughty = read_package(naughty_tgz, ["en.json", "LICENSE"])
    cuss = read_package(cuss_tgz, ["index.js", "license"])
    ratings = cuss_ratings(cuss)
    both, built = agreed(ldnoobw_words(naughty), ratings)
    kept = both | built
    plurals_from = dictionary_words() if dictionary is None else dictionary
    flagged = kept | inflections(kept, ratings, plurals_from)
    everyday_words = dictionary_words(EVERYDAY_DICTIONARY) if everyday is None else everyday
    words = sorted(everyday_kept(flagged, ratings, everyday_words))
    out_dir.mkdir(parents=True, exist_ok=True)
    body = header(naughty, cuss, len(words)) + "".join(f"{word}\n" for word in words)
    (out_dir / WORDS_FILE_NAME).write_text(body, encoding="utf-8", newline="\n")
    (out_dir / LICENSE_FILE_NAME).write_text(notice(naughty, cuss), encoding="utf-8", newline="\n")
    print(
        f"{len(words)} words ({len(both)} both lists flag, {len(built)} built on them, "
        f"{len(flagged) - len(kept)} inflections; {len(flagged) - len(words)} everyday words "
        f"left out) -> {out_dir / WORDS_FILE_NAME}",
        file=sys.stderr,
    )
    return len(words)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("naughty_words", nargs="?", type=Path, help="naughty-words .tgz")
    parser.add_argument("cuss", nargs="?", type=Path, help="cuss .tgz")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Entry point: returns the process exit status."""
    args = parse_args(argv)
    try:
        with tempfile.TemporaryDirectory(prefix="bigboggle-family-") as tmp_name:
            tmp = Path(tmp_name)
            naughty = args.naughty_words or npm_pack(NAUGHTY_WORDS, tmp)
            cuss = args.cuss or npm_pack(CUSS, tmp)
            build(naughty, cuss, args.out_dir)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
