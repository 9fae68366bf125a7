"""The layers of ARCHITECTURE.md, enforced: the core, the services, the front ends.

- The **core** (the flat modules of ``bigboggle``) imports neither the services nor SQLAlchemy
  (nor Alembic, nor a front end or its libraries): a library user who never opens a database
  loads none of it.
- The **services** (``bigboggle.services``) import the core and their database libraries, never
  a front end (``cli``, ``tui``, ``web``) or a front end's libraries.
- The **front ends** translate: the web and the terminal game never import each other; only the
  command line (the entry point that starts them) reaches into both.
- bigboggle's modules import each other without cycles (a lazy import counts: it hides a cycle,
  it does not remove it), and no web module but the app imports the app (route modules reach
  the services through :mod:`bigboggle.web.plumbing`).
- ARCHITECTURE.md's module map lists every module of the package once, in the layer its place in
  the tree puts it in, so the document cannot drift from the code.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bigboggle

pytestmark = pytest.mark.once

PACKAGE = Path(bigboggle.__file__).parent
ARCHITECTURE = PACKAGE.parents[1] / "ARCHITECTURE.md"
FRONT_ENDS = ("cli", "tui", "web", "__main__")
DATABASE_LIBRARIES = {"sqlalchemy", "alembic", "psycopg", "redis"}
FRONT_END_LIBRARIES = {
    "click",
    "textual",
    "rich",
    "starlette",
    "fastapi",
    "fastapi_offline",
    "uvicorn",
    "h11",
    "jinja2",
    "pydantic",
    "prometheus_client",
}
#: The one front-end module that speaks to a database library: the web's hub tells the other
#: server processes (through Redis) that something happened in a room.
FRONT_END_DATABASE_USERS = {"bigboggle.web.hub": {"redis"}}


def _name(path: Path) -> str:
    """``bigboggle.services.rooms.service`` for a path in the package."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    """The layer a module's place in the tree puts it in."""
    parts = module.split(".")
    if len(parts) == 1:
        return "core"
    if parts[1] == "services":
        return "services"
    if parts[1] in FRONT_ENDS:
        return "front end"
    return "core"


def _modules() -> dict[str, Path]:
    """Every Python module of the package (schema revisions included), by dotted name."""
    return {_name(path): path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts}


def _imports(module: str, path: Path) -> set[str]:
    """Absolute names a module imports anywhere in it (relative imports resolved)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


def _layer_of_import(name: str) -> str | None:
    """The layer (or outside library kind) an imported name belongs to."""
    top = name.split(".")[0]
    if top in DATABASE_LIBRARIES:
        return "database library"
    if top in FRONT_END_LIBRARIES:
        return "front-end library"
    if top != "bigboggle" or name == "bigboggle":
        return None
    return layer_of(name)


MODULES = _modules()


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer_of(m) == "core"))
def test_the_core_imports_no_service_database_or_front_end(module: str) -> None:
    for name in _imports(module, MODULES[module]):
        kind = _layer_of_import(name)
        assert kind in (None, "core"), f"{module} (core) imports {name} ({kind})"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer_of(m) == "services"))
def test_services_import_no_front_end(module: str) -> None:
    for name in _imports(module, MODULES[module]):
        kind = _layer_of_import(name)
        assert kind not in ("front end", "front-end library"), f"{module} imports {name}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer_of(m) == "front end"))
def test_front_ends_leave_the_database_to_the_services(module: str) -> None:
    """Front ends reach data through the services (a database error reaches them as a
    StoreError), so none imports SQLAlchemy or Alembic; only the hub speaks to Redis."""
    allowed = FRONT_END_DATABASE_USERS.get(module, set())
    for name in _imports(module, MODULES[module]):
        if _layer_of_import(name) == "database library":
            assert name.split(".")[0] in allowed, f"{module} (a front end) imports {name}"


@pytest.mark.parametrize(
    ("front_end", "other"), [("web", "tui"), ("tui", "web"), ("web", "cli"), ("tui", "cli")]
)
def test_front_ends_do_not_import_each_other(front_end: str, other: str) -> None:
    for module, path in MODULES.items():
        if module.split(".")[1:2] != [front_end]:
            continue
        for name in _imports(module, path):
            assert not name.startswith(f"bigboggle.{other}"), f"{module} imports {name}"


def test_importing_the_library_loads_no_service_database_or_front_end() -> None:
    code = (
        "import sys, bigboggle, bigboggle.round, bigboggle.analysis, bigboggle.search; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{sorted(DATABASE_LIBRARIES | FRONT_END_LIBRARIES)!r} or m.startswith(("
        "'bigboggle.services', 'bigboggle.cli', 'bigboggle.tui', 'bigboggle.web'))); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


# -- the import graph: no cycles, and no route module imports the web app --------------------


#: Compiled modules (``_solve_c``), known by their stubs.
COMPILED = {_name(path) for path in PACKAGE.rglob("*.pyi")} - set(MODULES)


def _type_checking_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import in a module, at any depth (an import inside a function still runs, later:
    it hides a cycle, it does not remove it), but not those under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if _type_checking_only(node):
            stack.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _imports_of(name: str) -> set[str]:
    """The bigboggle modules that module ``name`` imports (``from pkg import mod`` names the
    module ``pkg.mod``; ``from pkg import thing`` names ``pkg``)."""
    path = MODULES[name]
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    known = set(MODULES) | COMPILED
    found: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
            continue
        base = package[: len(package) - node.level + 1] if node.level else []
        source = ".".join(base + ([node.module] if node.module else []))
        for alias in node.names:
            full = f"{source}.{alias.name}"
            found.add(full if full in known else source)
    return (found & set(MODULES)) - {name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_import_graph_is_read_whole() -> None:
    """The graph the tests below read knows a relative import, a lazy one and a compiled core."""
    assert "bigboggle.services.store" in _imports_of("bigboggle.services.solo_games")
    assert "bigboggle._solve_c" in COMPILED
    assert "bigboggle" not in _imports_of("bigboggle.implementation")  # _solve_c, not the package


def test_bigboggles_modules_import_each_other_without_cycles() -> None:
    graph = {name: _imports_of(name) for name in MODULES}
    cycles = _cycles(graph)
    shown = [
        " -> ".join(
            f"{member} ({', '.join(sorted(graph[member] & set(cycle)))})" for member in cycle
        )
        for cycle in cycles
    ]
    assert not cycles, "import cycles (each module, and what it imports in the cycle):\n" + (
        "\n".join(shown)
    )


def test_no_web_module_but_the_app_imports_the_app() -> None:
    """Route modules (and the rest of the web front end) reach the services through
    :mod:`bigboggle.web.plumbing`; only the app builds them, and includes the routes."""
    web = [name for name in MODULES if name.startswith("bigboggle.web.")]
    assert "bigboggle.web.api" in web
    for name in web:
        if name != "bigboggle.web.app":
            assert "bigboggle.web.app" not in _imports_of(name), f"{name} imports the app"


# -- ARCHITECTURE.md -----------------------------------------------------------------------------

#: A row of the module map: | `services/rooms/service.py` | services | what it is |
ROW = re.compile(r"^\|\s*`([\w/.]+)`\s*\|\s*([\w ]+?)\s*\|\s*(.+?)\s*\|\s*$")


def _documented() -> dict[str, str]:
    """Module (dotted) -> layer, from ARCHITECTURE.md's module map."""
    rows: dict[str, str] = {}
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match is None:
            continue
        shown, layer, what = match.groups()
        assert what.strip(), f"ARCHITECTURE.md: {shown} says nothing about what it is"
        module = f".{shown.removesuffix('.py').replace('/', '.')}".removesuffix(".__init__")
        dotted = f"bigboggle{module}"
        assert dotted not in rows, f"ARCHITECTURE.md lists {shown} twice"
        rows[dotted] = layer
    return rows


def test_architecture_md_lists_every_module_in_its_layer() -> None:
    documented = _documented()
    actual = {m: layer_of(m) for m in MODULES if ".versions" not in m}
    missing = sorted(set(actual) - set(documented))
    gone = sorted(set(documented) - set(actual))
    assert not missing, f"ARCHITECTURE.md's module map lacks {missing}"
    assert not gone, f"ARCHITECTURE.md's module map lists modules that don't exist: {gone}"
    wrong = {m: (documented[m], actual[m]) for m in actual if documented[m] != actual[m]}
    assert not wrong, f"ARCHITECTURE.md puts these in the wrong layer (said, is): {wrong}"


def test_no_comment_points_outside_the_repository() -> None:
    """Docstrings and comments name files in the repository, never notes beside it."""
    outside = re.compile(r"\.\./shared|DESIGN\.md|DESIGN §|DESIGN section|\bissue \d+\b")
    roots = [PACKAGE, PACKAGE.parents[1] / "tests", PACKAGE.parents[1] / "benchmarks"]
    found = []
    for root in roots:
        for path in root.rglob("*.py"):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if "wordlists" in line or path.name == "test_layering.py":
                    continue  # where ENABLE2K lies on a developer's machine: data, not a note
                if outside.search(line):
                    found.append(f"{path.name}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
