"""Charts drawn by the server as inline SVG: a line over time (a profile's weekly averages, a
rating's history), the daily board's calendar as a grid of days, and a histogram of exact
counts (the atlas's points per shaken board) with marked values (percentiles, a board).

No script and no chart library: the page is readable as it arrives, and every chart is an
``<svg role="img">`` with a ``<title>`` and a ``<desc>`` (its numbers are also in a table beside
it, for readers that skip images). Colours come from the theme through classes
(``profile.css`` gives ``.chart-line`` its ``stroke: var(--accent)``), never from attributes,
so the dark theme applies, and the page's CSP needs no inline style. Every string that reaches
the SVG (a member's name, a word, a label) is escaped here: a name like ``<script>`` is text.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from markupsafe import Markup

#: The drawing's own units (the SVG scales to its box; ``profile.css`` sets the width).
WIDTH = 640
HEIGHT = 220
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 14, 30
#: The calendar's cell and the gap between cells.
CELL = 14
GAP = 3
_WEEKDAYS = ("Mon", "", "Wed", "", "Fri", "", "")


@dataclass(frozen=True)
class Point:
    """One point of a line chart: its label on the x axis and its value (``None``: no value
    there, which breaks the line)."""

    label: str
    value: float | None


def _text(value: object) -> str:
    return escape(str(value))


def _number(value: float) -> str:
    """A coordinate, short: ``12.5``, ``40``."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _nice_range(
    values: Sequence[float], *, least: float = 1.0, ceiling: float | None = None
) -> tuple[float, float]:
    """A y range that holds ``values`` with a little room, never empty: a tenth of their
    spread either side (of a single value's size, at least ``least``), never below 0 for
    values that are not, nor above ``ceiling`` for values that are not (a share's 100%)."""
    low, high = min(values), max(values)
    spread = high - low if high > low else max(abs(low), abs(high))
    room = max(spread * 0.1, least) if high == low else spread * 0.1
    bottom, top = low - room, high + room
    if low >= 0:
        bottom = max(0.0, bottom)
    if ceiling is not None and high <= ceiling:
        top = min(ceiling, top)
    return bottom, top


def _open(kind: str, ident: str, title: str, desc: str, width: int, height: int) -> list[str]:
    return [
        f'<svg class="chart {kind}" role="img" viewBox="0 0 {width} {height}" '
        f'aria-labelledby="{ident}-title {ident}-desc" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{ident}-title">{_text(title)}</title>',
        f'<desc id="{ident}-desc">{_text(desc)}</desc>',
    ]


def line_chart(
    ident: str,
    points: Sequence[Point],
    *,
    title: str,
    desc: str,
    unit: str = "",
    percent: bool = False,
) -> Markup:
    """A line through ``points`` (left to right in order), with the y axis's top and bottom
    values and the first, middle and last x labels. ``ident`` names the chart's ids (unique on
    the page: letters, digits and ``-`` only); ``percent`` shows values in 0..1 as percentages."""
    if not ident.replace("-", "").isalnum():
        raise ValueError(f"chart id {ident!r} must be letters, digits and '-'")
    parts = _open("line-chart", ident, title, desc, WIDTH, HEIGHT)
    values = [point.value for point in points if point.value is not None]
    if not values:
        parts.append(
            f'<text class="chart-label" x="{WIDTH // 2}" y="{HEIGHT // 2}" '
            'text-anchor="middle">No games yet</text>'
        )
        parts.append("</svg>")
        return Markup("\n".join(parts))
    # A share runs from 0% to 100%: its axis never beyond them, and a single share gets a
    # few points of room (not the one unit a score gets).
    low, high = _nice_range(values, least=0.05, ceiling=1.0) if percent else _nice_range(values)
    inner_w = WIDTH - _LEFT - _RIGHT
    inner_h = HEIGHT - _TOP - _BOTTOM
    step = inner_w / max(1, len(points) - 1)

    def x_of(index: int) -> float:
        return _LEFT + (index * step if len(points) > 1 else inner_w / 2)

    def y_of(value: float) -> float:
        return _TOP + inner_h * (1 - (value - low) / (high - low))

    def shown(value: float) -> str:
        return f"{value * 100:.0f}%" if percent else f"{value:,.0f}{unit}"

    for value in (low, (low + high) / 2, high):
        y = _number(y_of(value))
        parts.append(
            f'<line class="chart-grid" x1="{_LEFT}" x2="{WIDTH - _RIGHT}" y1="{y}" y2="{y}"/>'
        )
        parts.append(
            f'<text class="chart-label" x="{_LEFT - 6}" y="{y}" text-anchor="end" '
            f'dominant-baseline="middle">{_text(shown(value))}</text>'
        )
    for index in sorted({0, (len(points) - 1) // 2, len(points) - 1}):
        anchor = "start" if index == 0 else "end" if index == len(points) - 1 else "middle"
        parts.append(
            f'<text class="chart-label" x="{_number(x_of(index))}" y="{HEIGHT - 8}" '
            f'text-anchor="{anchor}">{_text(points[index].label)}</text>'
        )
    indexed = list(enumerate(points))
    for has_value, run in itertools.groupby(indexed, key=lambda item: item[1].value is not None):
        segment = list(run)
        if not has_value:
            continue
        if len(segment) > 1:
            path = " ".join(
                f"{_number(x_of(i))},{_number(y_of(p.value))}"
                for i, p in segment
                if p.value is not None
            )
            parts.append(f'<polyline class="chart-line" points="{path}"/>')
    for index, point in indexed:
        if point.value is None:
            continue
        parts.append(
            f'<circle class="chart-dot" cx="{_number(x_of(index))}" '
            f'cy="{_number(y_of(point.value))}" r="3.5">'
            f"<title>{_text(point.label)}: {_text(shown(point.value))}</title></circle>"
        )
    parts.append("</svg>")
    return Markup("\n".join(parts))


@dataclass(frozen=True)
class Day:
    """One day of the calendar: its date (``YYYY-MM-DD``) and its best score (``None``: not
    played)."""

    date: str
    best: int | None


def calendar(ident: str, days: Sequence[Day], *, title: str, desc: str) -> Markup:
    """``days`` (consecutive, the first a Monday) as a grid: a column per week, Monday at the
    top; a played day is filled, darker for a better score among these days."""
    if not ident.replace("-", "").isalnum():
        raise ValueError(f"chart id {ident!r} must be letters, digits and '-'")
    weeks = max(1, (len(days) + 6) // 7)
    left, top = 34, 18
    width = left + weeks * (CELL + GAP)
    height = top + 7 * (CELL + GAP)
    parts = _open("calendar-chart", ident, title, desc, width, height)
    for row, label in enumerate(_WEEKDAYS):
        if label:
            y = top + row * (CELL + GAP) + CELL / 2
            parts.append(
                f'<text class="chart-label" x="{left - 6}" y="{_number(y)}" text-anchor="end" '
                f'dominant-baseline="middle">{label}</text>'
            )
    best = max((day.best for day in days if day.best is not None), default=0)
    month = None
    for index, day in enumerate(days):
        column, row = divmod(index, 7)
        x, y = left + column * (CELL + GAP), top + row * (CELL + GAP)
        date = dt.date.fromisoformat(day.date)
        if row == 0 and date.month != month:
            month = date.month
            parts.append(
                f'<text class="chart-label" x="{x}" y="{top - 6}">{date.strftime("%b")}</text>'
            )
        if day.best is None:
            level, said = "cal-none", "not played"
        else:
            level = f"cal-{1 + min(2, (3 * day.best) // (best + 1))}" if best else "cal-1"
            said = f"best {day.best:,}"
        parts.append(
            f'<rect class="cal-day {level}" x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
            f'rx="3"><title>{_text(day.date)}: {_text(said)}</title></rect>'
        )
    parts.append("</svg>")
    return Markup("\n".join(parts))


@dataclass(frozen=True)
class Bin:
    """One bar of a histogram: the whole values ``low`` … ``high`` and how many there were."""

    low: int
    high: int
    count: int


@dataclass(frozen=True)
class Mark:
    """A value marked on a histogram by a vertical line: ``label`` is drawn at its top and
    ``kind`` names its class (``hist-mark-percentile``, ``hist-mark-board``), so the theme
    colours it."""

    value: float
    label: str
    kind: str = "percentile"


def _nice_width(span: int, bins: int) -> int:
    """A bar width of 1, 2 or 5 times a power of ten that splits ``span`` values into at most
    about ``bins`` bars."""
    rough = max(1.0, span / bins)
    power = 10 ** math.floor(math.log10(rough))
    for step in (1, 2, 5, 10):
        if step * power >= rough:
            return int(step * power)
    return int(10 * power)  # pragma: no cover - the loop always returns


def histogram_bins(counts: Mapping[int, int], bins: int = 40) -> list[Bin]:
    """Exact counts (``{value: how many}``, whole values) grouped into bars of one nice width
    from the lowest value to the highest, empty bars included (a gap is part of the shape)."""
    present = [value for value, count in counts.items() if count]
    if not present:
        return []
    low, high = min(present), max(present)
    width = _nice_width(high - low + 1, bins)
    start = (low // width) * width
    grouped = [0] * ((high - start) // width + 1)
    for value, count in counts.items():
        if count:
            grouped[(value - start) // width] += count
    return [
        Bin(start + index * width, start + (index + 1) * width - 1, count)
        for index, count in enumerate(grouped)
    ]


def histogram(
    ident: str,
    counts: Mapping[int, int],
    *,
    title: str,
    desc: str,
    marks: Sequence[Mark] = (),
    unit: str = "points",
    bins: int = 40,
) -> Markup:
    """The bars of :func:`histogram_bins` (each with a ``<title>``: its values and count),
    the x axis's first, middle and last values, the tallest bar's count, and a vertical line
    for each of ``marks`` with its label above. A mark past either end of the bars is drawn at
    that end, its label saying which way it lies (``→ 2,400``)."""
    if not ident.replace("-", "").isalnum():
        raise ValueError(f"chart id {ident!r} must be letters, digits and '-'")
    height = HEIGHT + 20
    parts = _open("histogram-chart", ident, title, desc, WIDTH, height)
    grouped = histogram_bins(counts, bins)
    if not grouped:
        parts.append(
            f'<text class="chart-label" x="{WIDTH // 2}" y="{height // 2}" '
            'text-anchor="middle">No boards counted</text></svg>'
        )
        return Markup("\n".join(parts))
    top = 58  # room for three rows of marks' labels
    left, right, bottom = 56, 16, _BOTTOM
    inner_w = WIDTH - left - right
    inner_h = height - top - bottom
    first, last = grouped[0].low, grouped[-1].high + 1
    tallest = max(b.count for b in grouped)

    def x_of(value: float) -> float:
        return left + inner_w * (value - first) / (last - first)

    def y_of(count: float) -> float:
        return top + inner_h * (1 - count / tallest)

    base = _number(y_of(0))
    parts.append(
        f'<line class="chart-grid" x1="{left}" x2="{WIDTH - right}" y1="{base}" y2="{base}"/>'
    )
    for count, level in ((tallest, top), (0, top + inner_h)):
        parts.append(
            f'<text class="chart-label" x="{left - 6}" y="{_number(level)}" text-anchor="end" '
            f'dominant-baseline="middle">{count:,}</text>'
        )
    middle = grouped[len(grouped) // 2].low
    for value, anchor in ((first, "start"), (middle, "middle"), (last, "end")):
        parts.append(
            f'<text class="chart-label" x="{_number(x_of(value))}" y="{height - 8}" '
            f'text-anchor="{anchor}">{value:,}</text>'
        )
    bar = inner_w / len(grouped)
    for index, group in enumerate(grouped):
        if not group.count:
            continue
        y = y_of(group.count)
        span = f"{group.low:,}" if group.low == group.high else f"{group.low:,}–{group.high:,}"
        parts.append(
            f'<rect class="hist-bar" x="{_number(left + index * bar + 0.5)}" y="{_number(y)}" '
            f'width="{_number(max(bar - 1, 0.5))}" height="{_number(top + inner_h - y)}">'
            f"<title>{_text(span)} {_text(unit)}: {group.count:,} boards</title></rect>"
        )
    percentiles = 0
    for mark in marks:
        kind = mark.kind if mark.kind.replace("-", "").isalnum() else "percentile"
        label = mark.label
        if mark.value < first:
            x, label, anchor = float(left), f"← {label}", "start"
        elif mark.value > last:
            x, label, anchor = float(WIDTH - right), f"{label} →", "end"
        else:
            x = x_of(mark.value)
            anchor = "start" if x < left + 40 else "end" if x > WIDTH - right - 40 else "middle"
        # A board's label on the top row; percentiles' on the two below, in turn, so that
        # neighbouring ones do not overlap.
        if kind == "percentile":
            line = 34 + 18 * (percentiles % 2)
            percentiles += 1
        else:
            line = 16
        parts.append(
            f'<line class="hist-mark hist-mark-{kind}" x1="{_number(x)}" x2="{_number(x)}" '
            f'y1="{line + 4}" y2="{base}"/>'
        )
        parts.append(
            f'<text class="chart-label hist-mark-label hist-mark-{kind}-label" '
            f'x="{_number(x)}" y="{line}" text-anchor="{anchor}">{_text(label)}</text>'
        )
    parts.append("</svg>")
    return Markup("\n".join(parts))
