"""Fuzzing the JSON API from its OpenAPI document (schemathesis): whatever arrives, good or bad,
the server answers without a 5xx, with the status codes and content types it documents.

The default run is short (40 examples per operation, through ASGI). The long run is a switch:

- ``BIGBOGGLE_FUZZ_REQUESTS=20000`` spreads at least that many requests over the operations
  (``BIGBOGGLE_FUZZ_EXAMPLES=N`` sets the examples per operation directly);
- ``BIGBOGGLE_FUZZ_SERVER=1`` sends them over real sockets to a ``bigboggle serve`` on
  loopback instead, so that a dropped connection fails the run too.

``BIGBOGGLE_FUZZ_REQUESTS=20000 BIGBOGGLE_FUZZ_SERVER=1 pytest tests/test_web_fuzz.py`` is the
issue's long run; the test at the end checks that the requests were really made.
"""

from __future__ import annotations

import atexit
import math
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from bigboggle.web import create_app
from live_server import LiveServer

pytestmark = pytest.mark.once

_folder = Path(tempfile.mkdtemp(prefix="bigboggle-fuzz-"))
atexit.register(shutil.rmtree, _folder, ignore_errors=True)
_db = f"sqlite:///{_folder / 'fuzz.sqlite3'}"
app = create_app(_db)
OPERATIONS = sum(
    1
    for operations in app.openapi()["paths"].values()
    for method in operations
    if method in ("get", "post", "put", "patch", "delete")
)
REQUESTS = int(os.environ.get("BIGBOGGLE_FUZZ_REQUESTS") or 0)
# A quarter more than an even share: operations with few possible inputs (no parameters at
# all, say) end before their share.
EXAMPLES = max(
    int(os.environ.get("BIGBOGGLE_FUZZ_EXAMPLES") or 40), math.ceil(1.25 * REQUESTS / OPERATIONS)
)
ON_A_SERVER = bool(os.environ.get("BIGBOGGLE_FUZZ_SERVER"))

if ON_A_SERVER:
    # The room limits per address are for strangers; one fuzzer from loopback would hit them
    # within seconds (its 429s are documented answers, but they would hide everything else).
    _server = LiveServer(
        _db,
        _folder / "server.log",
        env={
            "BIGBOGGLE_LIMIT_ROOMS_PER_ADDRESS_HOUR": "1000000",
            "BIGBOGGLE_LIMIT_JOINS_PER_ADDRESS_MINUTE": "1000000",
        },
    ).start()
    atexit.register(_server.stop)
    schema = schemathesis.openapi.from_url(_server.url + "/openapi.json")
else:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)

#: Requests made, for the check at the end of a long run.
made = {"requests": 0}


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_survives_any_input(case: schemathesis.Case) -> None:
    made["requests"] += 1
    # Every check but "a schema-valid request is accepted": a schema cannot say that a board's
    # rows are of equal length, so some schema-valid boards are rightly refused.
    excluded = [schemathesis.checks.positive_data_acceptance]
    response = case.call()
    if response.status_code == 413:
        # A body over the route's documented size limit, refused before it is parsed: a right
        # refusal of invalid data, which schemathesis's list of rejections leaves out.
        excluded.append(schemathesis.checks.negative_data_rejection)
    case.validate_response(response, excluded_checks=excluded)


def test_the_long_run_made_its_requests() -> None:
    if not REQUESTS:
        pytest.skip("a long run only (BIGBOGGLE_FUZZ_REQUESTS=20000)")
    assert made["requests"] >= REQUESTS, made
