"""bigboggle: Big Boggle, classic Boggle and Super Big Boggle as a Python library.

Dice and seeded shakes, boards with a round-tripping notation, rule presets and scoring tables,
SCOWL dictionaries, a solver that finds every word with its path and score, and round scoring
for players and teams::

    from bigboggle import Board, Dictionary, Rules, solve
    board = Board("LINES/TQARD/HEMOP/ABCKI/PSTEW")
    solution = solve(board, Dictionary.builtin(), Rules.preset("big"))
"""

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
from .opponents import Opponent, opponent_name
from .round import Phase, Round
from .round_input import RoundRequest, parse_round_request
from .rules import PRESETS, SCORING_TABLES, Rules, ScoringTable, scoring_table
from .scoring import PlayerResult, RoundResult, TeamResult, Tournament, score_round
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
from .verdicts import Verdict, WordResult

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
