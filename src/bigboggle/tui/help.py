"""The help screen: the keys, and the rules of the game being played."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from .board_view import Plain
from .settings import PlaySettings

KEYS = """Keys
  Enter    submit the typed word (solo)
  ctrl+s   done with this list (table mode)
  ctrl+e   end the round now
  arrows   choose a word in a list: its path lights up (the first cube in italics)
  r / o    rarer / offensive missed words, shown or not (on the results)
  n        next board or round; once a tournament is over, a new game
  q        quit (on the results; ctrl+q anywhere)
  ? or F1  this help; Escape closes it
"""


def rules_text(settings: PlaySettings) -> str:
    """The rules in force, in words."""
    rules = settings.rules
    seconds = round(settings.seconds)
    timer = "no timer (practice)" if settings.practice else f"{seconds // 60}:{seconds % 60:02d}"
    lines = [
        f"Rules: {rules.title}",
        f"  Find words of {rules.min_length}+ letters through adjoining cubes (sides or corners),",
        "  never using a cube twice in one word. Qu is one cube and two letters.",
        f"  Timer: {timer}.  Scoring (letters: points): {rules.table.describe()}.",
        f"  Dictionary: {settings.words.name}.",
    ]
    if rules.advanced:
        lines.append("  Advanced play: words of 5 or more letters.")
    if rules.challenge:
        lines.append(f"  Challenge cube (*): a word through it scores +{rules.challenge_bonus}.")
    if rules.family:
        lines.append("  Family filter: offensive words are refused (no points).")
    if settings.min_length:
        handicaps = ", ".join(f"{name} {n}+" for name, n in settings.min_length.items())
        lines.append(f"  Handicaps: {handicaps} (a 3-letter word scores 1).")
    if settings.table_mode:
        lines.append(
            "  Words found by two players are crossed off for both"
            if rules.duplicates == "cancel"
            else "  House rule: words found by several players are kept"
        )
    if settings.teams:
        lines.append(
            "  Teams (our reading of the rules): a word written by several members of one team "
            "counts once for the team; a word found by two teams is crossed off for both."
        )
    if settings.target or settings.rounds:
        goal = (
            f"first to {settings.target} points"
            if settings.target
            else f"{settings.rounds} round{'' if settings.rounds == 1 else 's'}"
        )
        lines.append(f"  Tournament: {goal}; ties go to the longer words.")
    if settings.practice and not settings.table_mode:
        lines.append(
            "  Free hints (practice): F2 words left by length, F3 a word's length and first "
            "letters, F4 its starting cube, F5 its whole path."
        )
    if settings.seats:
        names = ", ".join(seat.name for seat in settings.seats)
        pace = (
            "a round of the rules' timer (practice has none); their whole lists count"
            if settings.practice
            else "the round's timer"
        )
        lines.append(
            f"  Opponents: {names}. They write their lists over {pace}, by these rules, and "
            "words two found are crossed off"
            + (" (ending early ends it for you, not for them)." if not settings.table_mode else ".")
        )
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    """Keys and rules over the game; any of Escape, ? or F1 closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    #help { width: 78; height: auto; max-height: 22; border: round $accent; background: $panel; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("question_mark", "dismiss", "Close", show=False),
        Binding("f1", "dismiss", "Close", show=False),
    ]

    def __init__(self, settings: PlaySettings) -> None:
        super().__init__()
        self.settings = settings

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Plain(KEYS + "\n" + rules_text(self.settings))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
