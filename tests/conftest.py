"""Shared fixtures: the ENABLE2K word list (for golden tests) and small dictionaries."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

# Keep the tests' prepared dictionaries out of the user's cache, and anything written to the
# user's data directory (the default database, the terminal's files) out of theirs: one
# directory each per test process, so that two xdist workers never share one either.

# This process's own scratch folders (each xdist worker and the controller make theirs),
# removed when the run ends: left behind, a few hundred piled up in /tmp a day.
os.environ["BIGBOGGLE_CACHE_DIR"] = tempfile.mkdtemp(prefix="bigboggle-test-cache-")
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="bigboggle-test-data-")

from bigboggle import Dictionary, implementation
from bigboggle.names import name_key
from bigboggle.services.store import AccountRow, Store

pytest_plugins = ["browser_support"]
SCRATCH_FOLDERS = (os.environ["BIGBOGGLE_CACHE_DIR"], os.environ["XDG_DATA_HOME"])

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORE = implementation.name()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test runs on each solver core this installation has (compiled and reference),
    except tests marked ``compares_cores`` (which call both themselves) or ``once`` (slow tests
    of logic above the solver, whose cores are cross-checked elsewhere): those run once."""
    if "solver_core" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker
        once = marker("compares_cores") is not None or marker("once") is not None
        cores = [DEFAULT_CORE] if once else sorted(implementation.CORES)
        # A test run once is named "once", not after the core it happens to run on, so its id
        # (and a snapshot named after it) is the same on a machine without the compiled core.
        ids = ["once"] if once else None
        metafunc.parametrize("solver_core", cores, indirect=True, ids=ids)


#: The runs whose workers this process (xdist's controller) started: see lock_folder.
_RUNS_STARTED: set[str] = set()


def lock_folder(run: str) -> Path:
    """The folder of the locks the workers of xdist run ``run`` share (machine_share)."""
    return Path(tempfile.gettempdir()) / f"bigboggle-test-locks-{run}"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """(xdist's controller, as it starts a worker.) Note the run, whose lock folder the
    controller removes once every worker is done with it."""
    _RUNS_STARTED.add(node.workerinput["testrunuid"])


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove this process's scratch folders, and (in xdist's controller) the run's locks."""
    for folder in SCRATCH_FOLDERS:
        shutil.rmtree(folder, ignore_errors=True)
    for run in _RUNS_STARTED:
        shutil.rmtree(lock_folder(run), ignore_errors=True)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup`` (pyproject's addopts), keep together on one worker the tests
    of a module that share a module- or class-scoped fixture (a live server, a browser: started
    once per module), as ``xdist_group`` named after the module, and hand the other tests out
    one by one, so both workers stay busy to the end. The groups go first: they are the long
    units, and one left for last would keep a worker busy while the other sits idle."""
    if not getattr(config.option, "loadgroup", False):  # set on xdist's workers only
        return
    grouped: list[pytest.Item] = []
    single: list[pytest.Item] = []
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        definitions = info.name2fixturedefs.values() if info is not None else ()
        if any(d.scope in ("module", "class", "package") for defs in definitions for d in defs):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
            grouped.append(item)
        else:
            single.append(item)
    items[:] = grouped + single


@pytest.fixture(autouse=True)
def machine_share(request: pytest.FixtureRequest) -> Iterator[None]:
    """Under xdist, a test marked ``alone`` (a measurement whose result moves with the load,
    such as Lighthouse's performance score) runs while the other worker runs no test: every
    test holds a shared lock while it runs, and an ``alone`` test an exclusive one. A gate
    lock, taken briefly before the shared one, keeps the other worker from starting test
    after test while the ``alone`` one waits. Outside xdist it does nothing."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:
        yield
        return
    folder = lock_folder(run)
    folder.mkdir(exist_ok=True)
    alone = request.node.get_closest_marker("alone") is not None
    with open(folder / "gate", "a") as gate, open(folder / "machine", "a") as machine:
        fcntl.flock(gate, fcntl.LOCK_EX)
        if alone:
            fcntl.flock(machine, fcntl.LOCK_EX)  # waits for the other worker's test to end
            try:
                yield
            finally:
                fcntl.flock(machine, fcntl.LOCK_UN)
                fcntl.flock(gate, fcntl.LOCK_UN)
            return
        fcntl.flock(machine, fcntl.LOCK_SH)
        fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(machine, fcntl.LOCK_UN)


@pytest.fixture(autouse=True)
def solver_core(request: pytest.FixtureRequest) -> Iterator[str]:
    """The solver core this test runs on."""
    implementation.use(request.param)
    yield request.param
    implementation.use(DEFAULT_CORE)


def enable2k_path() -> Path:
    """Where ENABLE2K lies: $BIGBOGGLE_ENABLE2K, else ../shared/wordlists/ beside the checkout."""
    override = os.environ.get("BIGBOGGLE_ENABLE2K")
    if override:
        return Path(override)
    return ROOT.parent / "shared" / "wordlists" / "enable2k.txt"


@pytest.fixture(scope="session")
def enable2k() -> Dictionary:
    """ENABLE2K, loaded once per test session (skips if the file is not beside the checkout)."""
    path = enable2k_path()
    if not path.is_file():
        pytest.skip(f"ENABLE2K word list not found at {path} (set BIGBOGGLE_ENABLE2K)")
    return Dictionary.from_file(path)


@pytest.fixture(scope="session")
def standard() -> Dictionary:
    """The default built-in dictionary."""
    return Dictionary.builtin("standard")


class FakeClock:
    """A clock the test moves by hand (seconds since the epoch, like ``time.time``)."""

    def __init__(self, now: float = 1_790_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    """A clock at 2026-09-21 21:33:20 UTC that only moves when told."""
    return FakeClock()


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database made by the store's migrations, once per test process: ``db_url``
    hands each test a copy of it. Running the migrations takes about a third of a second of
    CPU (a dozen revisions through Alembic); copying the file, a millisecond, and the copy is
    the very database the migrations made, byte for byte. The migrations themselves (from
    nothing, from each old schema, by workers at once) are tested by test_migrations and
    test_store on empty files of their own."""
    path = tmp_path_factory.mktemp("migrated") / "bigboggle.sqlite3"
    Store(f"sqlite:///{path}").close()
    # The last connection closed checkpointed the write-ahead log into the file.
    assert not path.with_name(path.name + "-wal").exists(), "the template's log was left open"
    return path


@pytest.fixture
def db_url(tmp_path: Path, migrated_sqlite: Path) -> str:
    """A fresh SQLite database file for one test, its schema already up to date (a copy of
    :func:`migrated_sqlite`): a store or server opened on it finds nothing to migrate."""
    path = tmp_path / "bigboggle.sqlite3"
    shutil.copyfile(migrated_sqlite, path)
    return f"sqlite:///{path}"


#: The statements (with their parameters) that the store's migrations sent to an empty
#: PostgreSQL schema, recorded once per test process by :func:`_migration_statements`.
_MIGRATION_STATEMENTS: list[tuple[str, Any]] = []


def _migration_statements(url: str) -> list[tuple[str, Any]]:
    """Every statement the store's migrations send to the empty schema at ``url``, in order,
    recorded the first time (the later calls answer the same list). Replayed on another empty
    schema in one transaction, they make the same tables, indexes, constraints and rows: the
    same SQL on the same server, without Alembic's work in Python between statements (its
    introspection's answers and the data migrations' reads are the same on any empty schema).
    Only the statements of the store opened on ``url`` are kept, by its engine's URL."""
    import sqlalchemy as sa

    if _MIGRATION_STATEMENTS:
        return _MIGRATION_STATEMENTS
    target = sa.make_url(url)
    recorded: list[tuple[str, Any]] = []

    def record(
        connection: Any, _cursor: Any, statement: str, parameters: Any, context: Any, many: bool
    ) -> None:
        if connection.engine.url == target:
            assert not many, "a migration sent many rows at once; record them one by one"
            # None: the driver was given the statement alone (no parameters to bind).
            recorded.append((statement, None if context.no_parameters else parameters))

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", record)
    try:
        Store(url).close()
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", record)
    _MIGRATION_STATEMENTS[:] = recorded
    return _MIGRATION_STATEMENTS


@contextmanager
def postgres_schema(prefix: str, *, migrated: bool = False) -> Iterator[str]:
    """The URL of a fresh, empty PostgreSQL schema on ``BIGBOGGLE_TEST_POSTGRES``, dropped
    afterwards; skips (or, with ``BIGBOGGLE_REQUIRE_SERVICES``, fails) without PostgreSQL.
    With ``migrated``, the schema is up to date: the migrations' statements are replayed on it
    (:func:`_migration_statements`), so a store opened on it finds nothing to do."""
    import sqlalchemy as sa

    postgres = os.environ.get("BIGBOGGLE_TEST_POSTGRES")
    if not postgres:
        if os.environ.get("BIGBOGGLE_REQUIRE_SERVICES"):
            pytest.fail("BIGBOGGLE_TEST_POSTGRES must be set")
        pytest.skip("no PostgreSQL (set BIGBOGGLE_TEST_POSTGRES)")
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(postgres)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = sa.make_url(postgres).update_query_dict({"options": f"-csearch_path={schema}"})
    shown = url.render_as_string(hide_password=False)
    try:
        if migrated and not _MIGRATION_STATEMENTS:
            _migration_statements(shown)  # this first schema is migrated by the store itself
        elif migrated:
            replay = sa.create_engine(url)
            try:
                with replay.begin() as connection:
                    cursor = connection.connection.cursor()  # the driver's, as the store's
                    for statement, parameters in _MIGRATION_STATEMENTS:
                        if parameters is None:
                            cursor.execute(statement)
                        else:
                            cursor.execute(statement, parameters)
            finally:
                replay.dispose()
        yield shown
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, db_url: str) -> Iterator[Store]:
    """A fresh database for a service's tests, on SQLite and on PostgreSQL (a schema of its
    own, named after the test module; skipped without PostgreSQL). A module may define its
    own ``store`` instead."""
    if request.param == "sqlite":
        opened = Store(db_url)
        yield opened
        opened.close()
        return
    with postgres_schema(request.module.__name__.rsplit(".", 1)[-1], migrated=True) as url:
        opened = Store(url)
        yield opened
        opened.close()


def make_member(store: Store, name: str) -> int:
    """A member named ``name`` stored directly (no password: the tests that use it never log
    in by one), by id."""
    with store.session() as session:
        row = AccountRow(username=name, name_key=name_key(name), created_at=0.0)
        session.add(row)
        session.flush()
        return row.id
