"""The README as a document: each of its sections once (an edit that pasted a copy of a long
stretch of it, as one did, leaves two of every heading in that stretch)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pytestmark = [pytest.mark.once]

README = Path(__file__).resolve().parents[1] / "README.md"


def test_each_heading_of_the_readme_is_there_once() -> None:
    lines = README.read_text().splitlines()
    fenced = False
    headings: list[str] = []
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            headings.append(line)
    twice = [heading for heading, count in Counter(headings).items() if count > 1]
    assert len(headings) >= 5 and twice == []
