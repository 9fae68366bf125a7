"""bigboggle: Big Boggle, classic Boggle and Super Big Boggle as a Python library.

Dice and seeded shakes, boards with a round-tripping notation, rule presets and scoring tables,
SCOWL dictionaries, a solver that finds every word with its path and score, and round scoring
for players and teams::

    from bigboggle import Board, Dictionary, Rules, solve
    board = Board("LINES/TQARD/HEMOP/ABCKI/PSTEW")
    solution = solve(board, Dictionary.builtin(), Rules.preset("big"))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import implementation
from ._version import __version__
from .board import Board, Path, Position
from .dice import CHALLENGE_CUBE, DICE_SETS, DiceSet, Shake, dice_set, shake
from .dictionary import Dictionary, LoadReport
from .errors import (
    BoardError,
    BoggleError,
    DiceError,
    GameStateError,
    RoundInputError,
    RulesError,
    WordListError,
)
from .rules import PRESETS, SCORING_TABLES, Rules, ScoringTable, scoring_table
from .solver import (
    FoundWord,
    Solution,
    score,
    score_lines,
    score_many,
    score_stream,
    solve,
    tally_lines,
    tally_many,
    tally_stream,
    word_score,
)

if TYPE_CHECKING:
    from .opponents import Opponent, opponent_name
    from .round import Phase, Round
    from .round_input import RoundRequest, parse_round_request
    from .scoring import PlayerResult, RoundResult, TeamResult, Tournament, score_round
    from .verdicts import Verdict, WordResult

# Names whose modules load on first use: a program that only solves (``bigboggle solve``, a
# script calling solve()) then never pays for rounds, opponents and their tables.
_LAZY = {
    "Opponent": "opponents",
    "opponent_name": "opponents",
    "Phase": "round",
    "Round": "round",
    "RoundRequest": "round_input",
    "parse_round_request": "round_input",
    "PlayerResult": "scoring",
    "RoundResult": "scoring",
    "TeamResult": "scoring",
    "Tournament": "scoring",
    "score_round": "scoring",
    "Verdict": "verdicts",
    "WordResult": "verdicts",
}


def __getattr__(name: str) -> Any:
    """A name of :data:`_LAZY`, imported from its module now and kept (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazy ones of :data:`_LAZY` included before their first use, so
    ``dir()``, ``help()`` and completion list everything ``__all__`` promises."""
    return sorted({*globals(), *_LAZY})


__all__ = [
    "CHALLENGE_CUBE",
    "DICE_SETS",
    "PRESETS",
    "SCORING_TABLES",
    "Board",
    "BoardError",
    "BoggleError",
    "DiceError",
    "DiceSet",
    "Dictionary",
    "FoundWord",
    "GameStateError",
    "LoadReport",
    "Opponent",
    "Path",
    "Phase",
    "PlayerResult",
    "Position",
    "Round",
    "RoundInputError",
    "RoundRequest",
    "RoundResult",
    "Rules",
    "RulesError",
    "ScoringTable",
    "Shake",
    "Solution",
    "TeamResult",
    "Tournament",
    "Verdict",
    "WordListError",
    "WordResult",
    "__version__",
    "dice_set",
    "implementation",
    "opponent_name",
    "parse_round_request",
    "score",
    "score_lines",
    "score_many",
    "score_round",
    "score_stream",
    "scoring_table",
    "shake",
    "solve",
    "tally_lines",
    "tally_many",
    "tally_stream",
    "word_score",
]
