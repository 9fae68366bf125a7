"""The letter cubes of every Boggle edition, and the seeded shake.

A die is a tuple of six faces; a face is a canonical face string (``"A"``, ``"Qu"``, ``"Th"``) or
``""`` for a blank face. A shake puts the dice into the cells in a random order (Fisher–Yates),
turns up a random face of each and records each die's rotation for tabletop display. Every draw
comes from :meth:`random.Random.random` of one generator seeded by the caller: that method's
sequence for a given seed is the one part of :mod:`random` that Python promises never to change
(``shuffle`` and ``randrange`` are not covered), so a seed gives the same board on every machine
and every Python version.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .board import Board, canonical_face, spelled_face
from .errors import DiceError, quoted

if TYPE_CHECKING:
    import random

Die = tuple[str, ...]

#: Faces printed underlined on real dice so that they are not misread when rotated.
UNDERLINED_FACES = frozenset({"M", "W", "Z"})

_FACE_TOKEN = re.compile(r"Qu|[A-Z]")
#: The longest die text: six two-letter faces.
_MAX_DIE_TEXT = 12


def parse_die(text: str) -> Die:
    """Read a die written as its faces run together, e.g. ``"HIMNQuU"`` (``Qu`` is one face)."""
    if not isinstance(text, str) or len(text) > _MAX_DIE_TEXT:
        raise DiceError(f"die {quoted(text)} must be six faces written as A-Z or Qu")
    faces = _FACE_TOKEN.findall(text)
    if "".join(faces) != text or len(faces) != 6:
        raise DiceError(f"die {quoted(text)} must be six faces written as A-Z or Qu")
    return tuple(faces)


def _dice(spec: str) -> tuple[Die, ...]:
    return tuple(parse_die(word) for word in spec.split())


@dataclass(frozen=True)
class DiceSet:
    """A named set of dice for one board size, with where its faces come from.

    ``challenge_replaces`` is the die that the challenge cube replaces when a shake asks for it;
    ``None`` means the rules of that edition do not say, and the shake replaces a die that the
    seeded random generator picks.
    """

    name: str
    title: str
    rows: int
    cols: int
    dice: tuple[Die, ...]
    source: str
    challenge_replaces: Die | None = None
    notes: str = ""

    def __post_init__(self) -> None:
        if len(self.dice) != self.rows * self.cols:
            raise DiceError(
                f"dice set {self.name!r} has {len(self.dice)} dice for a "
                f"{self.rows}x{self.cols} board"
            )

    @property
    def faces(self) -> tuple[str, ...]:
        """Every face of every die, in order (blank faces as ``""``)."""
        return tuple(face for die in self.dice for face in die)


#: The challenge cube of Big Boggle: a word through it scores a bonus.
CHALLENGE_CUBE: Die = ("I", "K", "L", "M", "Qu", "U")

# Sources: the dice lists were transcribed from the physical games by the Boggle-solver community
# (e.g. the dice tables kept with Dan Vanderkam's boggle solver and the "Boggle dice" listings on
# BoardGameGeek); each set's ``source`` says where its list comes from.
_SETS = [
    DiceSet(
        name="classic",
        title="Boggle 4x4, the 'new' dice (Hasbro, 1987 onwards)",
        rows=4,
        cols=4,
        dice=_dice(
            "AAEEGN ABBJOO ACHOPS AFFKPS AOOTTW CIMOTU DEILRX DELRVY "
            "DISTTY EEGHNW EEINSU EHRTVW EIOSST ELRTTY HIMNQuU HLNNRZ"
        ),
        source="Boggle (Parker Brothers/Hasbro) dice as transcribed by Boggle-solver authors",
    ),
    DiceSet(
        name="classic-old",
        title="Boggle 4x4, the 'old' dice (Parker Brothers, 1970s)",
        rows=4,
        cols=4,
        dice=_dice(
            "AACIOT ABILTY ABJMOQu ACDEMP ACELRS ADENVZ AHMORS BFIORX "
            "DENOSW DKNOTU EEFHIY EGINTV EGKLUY EHINPS ELPSTU GILRUW"
        ),
        source="original Parker Brothers Boggle dice as transcribed by Boggle-solver authors",
    ),
    DiceSet(
        name="big",
        title="Big Boggle 5x5, the Deluxe dice (the set most software uses)",
        rows=5,
        cols=5,
        dice=_dice(
            "AAAFRS AAEEEE AAFIRS ADENNN AEEEEM AEEGMU AEGMNN AFIRSY BJKQuXZ "
            "CCNSTW CEIILT CEILPT CEIPST DDLNOR DHHLOR DHHNOT DHLNOR EIIITT "
            "EMOTTT ENSSSU FIPRSY GORRVW HIPRRY NOOTUW OOOTTU"
        ),
        source="Big Boggle Deluxe dice as used by most Boggle software",
        challenge_replaces=parse_die("DHHLOR"),
    ),
    DiceSet(
        name="big-1979",
        title="Big Boggle 5x5, the original 1979 dice",
        rows=5,
        cols=5,
        dice=_dice(
            "AAAFRS AAEEEE AAFIRS ADENNN AEEEEM AEEGMU AEGMNN AFIRSY BJKQuXZ "
            "CCENST CEIILT CEILPT CEIPST DDHNOT DHHLOR DHHLOR DHLNOR EIIITT "
            "EMOTTT ENSSSU FIPRSY GORRVW IPRRRY NOOTUW OOOTTU"
        ),
        source="Big Boggle (Parker Brothers, 1979) as transcribed by Boggle-solver authors",
        challenge_replaces=parse_die("DHHLOR"),
        notes=(
            "One transcription; another has DHLNOR twice and DHHLOR once. "
            "The challenge cube replaces one DHHLOR, as the 1979 rules say."
        ),
    ),
    DiceSet(
        name="superbig",
        title="Super Big Boggle 6x6 (Winning Moves, 2011)",
        rows=6,
        cols=6,
        dice=(
            *_dice(
                "AAAFRS AAEEEE AAEEOO AAFIRS ABDEIO ADENNN AEEEEM AEEGMU AEGMNN AEILMN AEINOU AFIRSY"
            ),
            ("An", "Er", "He", "In", "Qu", "Th"),
            *_dice(
                "BBJKXZ CCENST CDDLNN CEIITT CEIPST CFGNUY DDHNOT DHHLOR DHHNOW DHLNOR "
                "EHILRS EIILST EILPST"
            ),
            ("E", "I", "O", "", "", ""),
            *_dice("EMTTTO ENSSSU GORRVW HIRSTV HOPRST IPRSYY JKQuWXZ NOOTUW OOOTTU"),
        ),
        source="Super Big Boggle (Winning Moves, 2011) as transcribed by Boggle-solver authors",
        challenge_replaces=parse_die("DHHLOR"),
        notes="Has a die of two-letter faces (An Er He In Qu Th) and a die with three blank faces.",
    ),
]

#: Every dice set, by name.
DICE_SETS: dict[str, DiceSet] = {dice_set.name: dice_set for dice_set in _SETS}


def dice_set(name: str) -> DiceSet:
    """The dice set called ``name``; :class:`DiceError` lists the known names otherwise."""
    try:
        if not isinstance(name, str):
            raise KeyError(name)
        return DICE_SETS[name]
    except KeyError:
        known = ", ".join(DICE_SETS)
        raise DiceError(f"unknown dice set {quoted(name)}; known sets: {known}") from None


@dataclass(frozen=True)
class Shake:
    """The outcome of shaking a dice set: the board plus what a tabletop display needs.

    ``dice[i]`` is the die that landed in cell ``i`` (row-major) and ``rotations[i]`` its turn in
    degrees (0, 90, 180 or 270).
    """

    board: Board
    dice_set: str
    seed: int | None
    challenge: bool
    dice: tuple[Die, ...] = field(repr=False)
    rotations: tuple[int, ...] = field(repr=False)

    def to_json(self, rules: str, seed: int) -> dict[str, Any]:
        """The JSON of ``bigboggle shake --json`` (and ``GET /api/shake``) for this shake,
        made under the preset ``rules`` from ``seed``."""
        return {
            "board": str(self.board),
            "rules": rules,
            "seed": seed,
            "challenge": self.challenge,
            "rotations": list(self.rotations),
            "dice": [list(die) for die in self.dice],
        }


#: The largest seed a shake accepts (command line, API, URLs): any 63-bit number.
MAX_SEED = 2**63 - 1
#: Fresh seeds (:func:`new_seed`) are drawn below this: small enough to survive a JavaScript
#: number and a URL unchanged, large enough that two players never share one by chance.
FRESH_SEED_BOUND = 2**32


def new_seed() -> int:
    """A fresh, unpredictable seed for a shake, in ``range(FRESH_SEED_BOUND)``."""
    import secrets  # here: it loads hmac and base64, which solving a given board never needs

    return secrets.randbelow(FRESH_SEED_BOUND)


def shake(dice: DiceSet | str, seed: int | None = None, *, challenge: bool = False) -> Shake:
    """Shake ``dice`` into a board, reproducibly from ``seed`` (``None``: fresh randomness).

    With ``challenge`` the challenge cube takes the place of one ordinary die and its cell is
    marked on the board.
    """
    chosen = dice_set(dice) if isinstance(dice, str) else dice
    import random  # here: a process that solves a given board shakes none

    rng = random.Random(seed)
    cubes = list(chosen.dice)
    challenge_die: int | None = None
    if challenge:
        replaced = (
            cubes.index(chosen.challenge_replaces)
            if chosen.challenge_replaces is not None
            else _below(rng, len(cubes))
        )
        cubes[replaced] = CHALLENGE_CUBE
        challenge_die = replaced
    order = list(range(len(cubes)))
    for i in range(len(order) - 1, 0, -1):  # Fisher-Yates
        j = _below(rng, i + 1)
        order[i], order[j] = order[j], order[i]
    faces: list[str] = []
    rotations: list[int] = []
    for die_index in order:
        faces.append(cubes[die_index][_below(rng, 6)])
        rotations.append(90 * _below(rng, 4))
    challenge_cell = order.index(challenge_die) if challenge_die is not None else None
    board = Board.from_faces(
        _rows(faces, chosen.cols),
        challenge=None if challenge_cell is None else divmod(challenge_cell, chosen.cols),
    )
    return Shake(
        board=board,
        dice_set=chosen.name,
        seed=seed,
        challenge=challenge,
        dice=tuple(cubes[i] for i in order),
        rotations=tuple(rotations),
    )


def shake_text(dice: DiceSet | str, seed: int, *, challenge: bool = False) -> str:
    """``str(shake(dice, seed, challenge=challenge).board)``, made from the same random draws
    without building the board: five times cheaper, for statistics over millions of shakes
    (the solver reads board texts straight into its cells)."""
    chosen = dice_set(dice) if isinstance(dice, str) else dice
    import random

    rng = random.Random(seed)
    cubes = list(_spelled(chosen))
    challenge_die: int | None = None
    if challenge:
        replaced = (
            chosen.dice.index(chosen.challenge_replaces)
            if chosen.challenge_replaces is not None
            else _below(rng, len(cubes))
        )
        cubes[replaced] = _spelled_challenge()
        challenge_die = replaced
    draw = rng.random
    order = list(range(len(cubes)))
    for i in range(len(order) - 1, 0, -1):  # _below(rng, i + 1), inline
        j = min(int(draw() * (i + 1)), i)
        order[i], order[j] = order[j], order[i]
    cells: list[str] = []
    for die_index in order:
        cells.append(cubes[die_index][min(int(draw() * 6), 5)])
        draw()  # the die's turn, which the text does not show
    if challenge_die is not None:
        cells[order.index(challenge_die)] += "*"
    cols = chosen.cols
    return "/".join("".join(cells[i : i + cols]) for i in range(0, len(cells), cols))


@functools.cache
def _spelled(chosen: DiceSet) -> tuple[tuple[str, ...], ...]:
    """Each die's faces as a board text spells them (``A``, ``Qu``, ``[Th]``, ``.``)."""
    return tuple(tuple(_spelling(face) for face in die) for die in chosen.dice)


@functools.cache
def _spelled_challenge() -> tuple[str, ...]:
    return tuple(_spelling(face) for face in CHALLENGE_CUBE)


def _spelling(face: str) -> str:
    return spelled_face(canonical_face(face))


def _below(rng: random.Random, n: int) -> int:
    """A whole number in ``[0, n)`` from ``rng.random()`` alone (see the module's notes)."""
    return min(int(rng.random() * n), n - 1)


def _rows(faces: Sequence[str], cols: int) -> list[list[str]]:
    return [list(faces[i : i + cols]) for i in range(0, len(faces), cols)]
