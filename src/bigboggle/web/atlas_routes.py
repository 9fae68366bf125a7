"""The atlas page, ``/atlas``: for each preset and dictionary of the atlas (the package's
shipped one, or the operator's ``BIGBOGGLE_ATLAS``), the histogram of points per shaken board
drawn as inline SVG with its percentiles, the numbers in tables, and the best boards found by
objective with the command that finds each again.

``/atlas?board=TEXT&rules=NAME&dictionary=NAME`` also says where a board stands: it is tallied
in the worker pool (never on the event loop), then marked on its preset's chart with the share
of shakes it beats by points and by words. Bad input (a board that does not parse, is not the
preset's size, or an entry the atlas lacks) shows the page with the message and a 400.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from ..analysis import PERCENTILES, Standing
from ..atlas import OBJECTIVES, Atlas, AtlasEntry, shipped_atlas
from ..board import Board
from ..dictionary import BUILTIN_LEVELS
from ..errors import BoggleError, BudgetExceededError, BusyError, RulesError
from ..limits import MAX_BOARD_TEXT
from ..rules import PRESETS
from ..services import jobs
from . import charts
from .account_pages import viewer_here
from .plumbing import services

router = APIRouter(include_in_schema=False)

#: The percentiles each chart marks (the tables list all of :data:`PERCENTILES`).
MARKED = (10, 50, 90)
#: The command the page offers when no atlas is shipped or configured.
MAKE_COMMAND = "bigboggle atlas"


@dataclass(frozen=True)
class Placed:
    """A board the visitor asked about: its canonical text, totals, and where it stands."""

    board: str
    rules: str
    dictionary: str
    points: int
    words: int
    standing: Standing


@dataclass(frozen=True)
class EntryView:
    """What the page shows of one atlas entry: the entry, its charts (points and words per
    board) and their bars, and the visitor's board if it is placed on this entry."""

    entry: AtlasEntry
    ident: str
    chart: Markup
    bins: list[charts.Bin]
    words_chart: Markup
    words_bins: list[charts.Bin]
    placed: Placed | None


def current_atlas(request: Request) -> Atlas | None:
    """The operator's atlas (``BIGBOGGLE_ATLAS``, read when the app started), else the
    package's shipped one, else ``None``."""
    found = services(request)
    return found.atlas if found.atlas is not None else shipped_atlas()


@router.get("/atlas", response_class=HTMLResponse)
async def atlas_page(
    request: Request,
    board: Annotated[str | None, Query(max_length=MAX_BOARD_TEXT)] = None,
    rules: Annotated[str | None, Query(max_length=40)] = None,
    dictionary: Annotated[str | None, Query(max_length=40)] = None,
) -> Response:
    """The atlas, and where ``board`` stands among the shakes of ``rules`` under
    ``dictionary`` (default: big, and the preset's own dictionary) if one is given."""
    atlas = await run_in_threadpool(current_atlas, request)  # the first read parses the file
    if atlas is not None and not atlas.entries:
        atlas = None  # nothing to show: said as for no atlas at all
    covered = atlas.presets() if atlas is not None else []
    rules_name = rules or ("big" if "big" in covered or not covered else covered[0])
    dictionary_name = dictionary or ""
    placed: Placed | None = None
    error: str | None = None
    if atlas is not None and board:
        try:
            entry = _entry_for(atlas, rules_name, dictionary_name)
            placed = await _place(request, entry, board)
        except (BusyError, BudgetExceededError):
            raise  # the app answers 503 (with Retry-After when busy)
        except BoggleError as exc:
            error = str(exc)
    # One game's section at a time (links to the others): all five in one page are 10,000
    # elements, which a phone takes over a second to lay out.
    shown = rules_name if rules_name in covered else (covered[0] if covered else "")
    if placed is not None:
        shown = placed.rules
    views = await run_in_threadpool(_views, atlas, placed) if atlas is not None else []
    views = [view for view in views if view.entry.rules == shown]
    return await run_in_threadpool(
        _render,
        request,
        400 if error else 200,
        atlas=atlas,
        views=views,
        board_text=board or "",
        rules_name=rules_name,
        shown=shown,
        dictionary_name=dictionary_name,
        atlas_presets={name: PRESETS[name] for name in atlas.presets()} if atlas else {},
        atlas_dictionaries=_dictionaries(atlas) if atlas else [],
        placed=placed,
        error=error,
        percentiles=PERCENTILES,
        objectives=OBJECTIVES,
        make_command=MAKE_COMMAND,
        hours=_duration,
    )


def _render(request: Request, status: int, **context: Any) -> Response:
    """The page, for the viewer (the header shows who is logged in: read from the database,
    so this runs in a worker thread)."""
    found = services(request)
    context = {"viewer": viewer_here(request), **context}
    return found.templates.TemplateResponse(request, "atlas.html", context, status_code=status)


def _dictionaries(atlas: Atlas) -> list[str]:
    """The built-in dictionaries the atlas has entries for, in their own order."""
    present = {entry.dictionary for entry in atlas.entries}
    return [name for name in BUILTIN_LEVELS if name in present]


def _entry_for(atlas: Atlas, rules: str, dictionary: str) -> AtlasEntry:
    """The entry a standing is asked of; :class:`RulesError` names what the atlas lacks."""
    if rules not in PRESETS:
        raise RulesError(f"rules: unknown preset {rules[:40]!r}; presets: {', '.join(PRESETS)}")
    have = [e.dictionary for e in atlas.entries_of(rules)]
    if not have:
        raise RulesError(
            f"rules: the atlas has no {rules} shakes; its games: {', '.join(atlas.presets())}"
        )
    wanted = dictionary or PRESETS[rules].dictionary
    entry = atlas.entry(rules, wanted)
    if entry is None:
        raise RulesError(
            f"dictionary: the atlas has no {rules} shakes with the {wanted[:40]!r} "
            f"dictionary; its {rules} dictionaries: {', '.join(have)}"
        )
    return entry


async def _place(request: Request, entry: AtlasEntry, board: str) -> Placed:
    """Check ``board`` (a bounded text: parsing it is cheap) against ``entry``'s preset, then
    tally it in the worker pool and place it among the entry's shakes."""
    parsed = Board.parse(board)
    preset = PRESETS[entry.rules]
    if parsed.size != (preset.rows, preset.cols):
        raise RulesError(
            f"board: a {entry.rules} board is {preset.rows}x{preset.cols}, this one is "
            f"{parsed.rows}x{parsed.cols}; choose the rules of its size"
        )
    if parsed.challenge is not None:
        raise RulesError("board: the atlas's shakes have no challenge cube; give it without '*'")
    found = services(request)
    text, points, words = await found.pool.run(
        jobs.board_tally,
        found.shelf.spec,
        str(parsed),
        entry.rules,
        entry.dictionary,
        entry.min_length,
    )
    # The entry's distributions are made on first use (a sort of its counts): not on the loop.
    place = await run_in_threadpool(entry.rank, points, words)
    return Placed(text, entry.rules, entry.dictionary, points, words, place)


#: The charts of an atlas with no board placed, by the atlas's identity (an app keeps one
#: atlas for its life): drawing all of them is ~30 ms, which no request should pay again.
_PLAIN_VIEWS: dict[int, tuple[Atlas, list[EntryView]]] = {}


def _views(atlas: Atlas, placed: Placed | None) -> list[EntryView]:
    """Every entry's charts and bars, with the visitor's board marked on its own entry's
    (only that entry's charts are drawn afresh)."""
    held = _PLAIN_VIEWS.get(id(atlas))
    if held is None or held[0] is not atlas:
        plain = [
            _view(entry, None) for rules in atlas.presets() for entry in atlas.entries_of(rules)
        ]
        _PLAIN_VIEWS.clear()  # one atlas at a time (tests make many apps, each its own)
        _PLAIN_VIEWS[id(atlas)] = (atlas, plain)
    else:
        plain = held[1]
    if placed is None:
        return plain
    return [
        _view(view.entry, placed)
        if (view.entry.rules, view.entry.dictionary) == (placed.rules, placed.dictionary)
        else view
        for view in plain
    ]


def _view(entry: AtlasEntry, mine: Placed | None) -> EntryView:
    ident = f"chart-{entry.rules}-{entry.dictionary}"
    return EntryView(
        entry,
        ident,
        _chart(entry, ident, "points", mine),
        charts.histogram_bins(entry.shakes.points),
        _chart(entry, f"{ident}-words", "words", mine),
        charts.histogram_bins(entry.shakes.words),
        mine,
    )


def _chart(entry: AtlasEntry, ident: str, unit: str, mine: Placed | None) -> Markup:
    """The histogram of ``unit`` (points or words) per shaken board of ``entry``, its
    percentiles marked, and the visitor's board if it is ``mine``."""
    dist = entry.points if unit == "points" else entry.words
    counts = entry.shakes.points if unit == "points" else entry.shakes.words
    marks = [charts.Mark(dist.percentile(p), f"p{p} {dist.percentile(p):,.0f}") for p in MARKED]
    preset = PRESETS[entry.rules]
    desc = (
        f"{entry.shakes.boards:,} shakes of the {preset.dice} dice, {entry.dictionary} "
        f"dictionary: from {dist.quantiles[0]:,.0f} to {dist.quantiles[-1]:,.0f} {unit}, "
        f"median {dist.percentile(50):,.0f}, mean {dist.mean:,.1f}"
    )
    if mine is not None:
        value = mine.points if unit == "points" else mine.words
        rank = mine.standing.points_rank if unit == "points" else mine.standing.words_rank
        marks.append(charts.Mark(value, f"your board {value:,}", "board"))
        desc += f"; your board has {value:,} {unit}, more than {100 * rank:.0f}% of shakes"
    return charts.histogram(
        ident,
        counts,
        title=f"{unit.capitalize()} per board: {preset.title}, {entry.dictionary} dictionary",
        desc=desc,
        marks=marks,
        unit=unit,
    )


def _duration(seconds: float) -> str:
    """Seconds as people say them: ``45 s``, ``12 min``, ``3.4 hours``."""
    if seconds < 120:
        return f"{seconds:,.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:,.0f} min"
    return f"{seconds / 3600:,.1f} hours"
