"""The family filter: which words are offensive (slurs, obscenities, sexual and excretory words).

The one place every part asks: the solver's, the missed words' and the judged entries' JSON mark
an offensive word with ``"offensive": true`` (pages hide such words unless the player asks),
and the rules option ``family`` makes a game refuse them (verdict ``refused``). Hints and
anything else that shows a player words they did not type should ask :func:`is_offensive` too.

The list is ``data/offensive.txt``, built by ``tools/build_family_list.py`` from two maintained
lists, LDNOOBW's English list (CC-BY-4.0) and ``cuss`` (MIT); ``data/OFFENSIVE-LICENSE.txt``
says how and carries both licences. An everyday word (SCOWL's ``common`` list) is on it only
when ``cuss`` rates it a likely profanity, so ``tit`` (a bird), ``cock`` (a rooster), ``ass``
(a donkey), ``rape`` (a plant) and clinical words such as ``penis`` stay playable and shown.
Matching is by whole word, never by substring, so ``class``, ``scunthorpe`` and ``assess`` are
not offensive.
"""

from __future__ import annotations

from . import package_data

__all__ = ["OFFENSIVE", "is_offensive"]

_DATA_FILE = "offensive.txt"


def _load() -> frozenset[str]:
    """The packaged list: one word a line, ``#`` comment lines skipped."""
    text = package_data.read_text(_DATA_FILE)
    return frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


#: Every offensive word, lowercase ``a``-``z`` as the dictionaries write words.
OFFENSIVE: frozenset[str] = _load()


def is_offensive(word: str) -> bool:
    """Whether ``word`` (in a dictionary's form: lowercase, accents folded) is offensive.

    A whole-word lookup: ``assassin`` and ``cocktail`` are not offensive though they hold an
    offensive word."""
    return word in OFFENSIVE
