"""The limits in one place: read from the environment with clear errors, and all documented."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bigboggle import limits
from bigboggle.limits import ServerLimits

pytestmark = [pytest.mark.once]

README = Path(__file__).resolve().parents[1] / "README.md"


def _section() -> str:
    text = README.read_text()
    start = text.index("## Limits and protections")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_defaults_apply_without_variables() -> None:
    assert ServerLimits.from_environment({}) == ServerLimits()


def test_variables_change_limits_of_their_own_type() -> None:
    found = ServerLimits.from_environment(
        {"BIGBOGGLE_LIMIT_MAX_BODY_BYTES": "2000", "BIGBOGGLE_LIMIT_BODY_TIMEOUT": "2.5"}
    )
    assert found.max_body_bytes == 2000
    assert isinstance(found.max_body_bytes, int)
    assert found.body_timeout == 2.5
    assert found.max_headers == ServerLimits().max_headers


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("lots", "is not a int"),
        ("-3", "must be above 0"),
        ("0", "must be above 0"),
        ("1.5", "int"),
    ],
)
def test_a_bad_variable_is_named(value: str, message: str) -> None:
    with pytest.raises(ValueError, match="BIGBOGGLE_LIMIT_MAX_HEADERS") as caught:
        ServerLimits.from_environment({"BIGBOGGLE_LIMIT_MAX_HEADERS": value})
    assert message in str(caught.value)


def test_zero_pool_workers_means_one_per_core() -> None:
    assert ServerLimits.from_environment({"BIGBOGGLE_LIMIT_POOL_WORKERS": "0"}).pool_workers == 0


def test_a_huge_bad_value_is_quoted_short() -> None:
    with pytest.raises(ValueError) as caught:
        ServerLimits.from_environment({"BIGBOGGLE_LIMIT_MAX_HEADERS": "x" * 100_000})
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(ServerLimits)])
def test_every_operator_limit_is_in_the_readme(field: str) -> None:
    section = _section()
    assert f"BIGBOGGLE_LIMIT_{field.upper()}" in section
    default = getattr(ServerLimits(), field)
    shown = f"{default:,}" if isinstance(default, int) else f"{default:g}"
    assert shown in section, f"{field}'s default {shown} is not in the README"


FIXED = [
    name
    for name in dir(limits)
    if name.isupper() and isinstance(getattr(limits, name), int) and not name.startswith("_")
]


@pytest.mark.parametrize("name", FIXED)
def test_every_fixed_limit_is_in_the_readme(name: str) -> None:
    section = _section()
    assert f"`{name}`" in section
    assert f"{getattr(limits, name):,}" in section


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_a_timeout_must_be_finite(value: str) -> None:
    with pytest.raises(ValueError, match="finite"):
        ServerLimits.from_environment({"BIGBOGGLE_LIMIT_BODY_TIMEOUT": value})
