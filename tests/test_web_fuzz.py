"""Fuzzing the JSON API from its OpenAPI document (schemathesis): whatever arrives, good or bad,
the server answers without a 5xx, with the status codes and content types it documents."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from bigboggle.web import create_app

pytestmark = pytest.mark.once

_db = Path(tempfile.mkdtemp(prefix="bigboggle-fuzz-")) / "fuzz.sqlite3"
app = create_app(f"sqlite:///{_db}")
schema = schemathesis.openapi.from_asgi("/openapi.json", app)
#: Examples per operation; raise it for a long run (BIGBOGGLE_FUZZ_EXAMPLES=2000 pytest …).
EXAMPLES = int(os.environ.get("BIGBOGGLE_FUZZ_EXAMPLES", "40"))


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_survives_any_input(case: schemathesis.Case) -> None:
    # Every check but "a schema-valid request is accepted": a schema cannot say that a board's
    # rows are of equal length, so some schema-valid boards are rightly refused.
    case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance])
