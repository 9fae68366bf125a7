"""The library never imports a front end (DESIGN section 1); bigboggle's modules import each
other without cycles (a lazy import counts: it hides a cycle, it does not remove it); and no
web module but the app imports the app (route modules reach the services through
bigboggle.web.plumbing)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import bigboggle

PACKAGE = Path(bigboggle.__file__).parent
FRONT_ENDS = {"cli", "tui", "web", "__main__"}
FRONT_END_LIBRARIES = {"click", "textual", "starlette", "fastapi", "uvicorn"}


def _library_modules() -> list[Path]:
    return [
        path
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0].removesuffix(".py") not in FRONT_ENDS
    ]


def _imported(path: Path) -> set[str]:
    """Absolute names of what a module imports (relative imports resolved within bigboggle)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = f"bigboggle.{module}" if module else "bigboggle"
                names.update(f"{base}.{alias.name}" for alias in node.names)
            else:
                names.add(module)
    return names


def test_library_modules_import_no_front_end() -> None:
    modules = _library_modules()
    assert any(path.name == "solver.py" for path in modules)
    for path in modules:
        for name in _imported(path):
            parts = name.split(".")
            assert parts[0] not in FRONT_END_LIBRARIES, f"{path.name} imports {name}"
            if parts[0] == "bigboggle" and len(parts) > 1:
                assert parts[1] not in FRONT_ENDS, f"{path.name} imports {name}"


def test_importing_the_library_loads_no_front_end() -> None:
    code = (
        "import sys, bigboggle; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{sorted(FRONT_END_LIBRARIES)!r} or m.startswith(('bigboggle.cli', 'bigboggle.web', "
        "'bigboggle.tui'))); print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


# -- the import graph: no cycles, and no route module imports the web app --------------------


def _module_name(path: Path) -> str:
    """``bigboggle.web.app`` for ``…/bigboggle/web/app.py`` (a package: its ``__init__``)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: bigboggle's modules: the Python ones by file, and compiled ones (``_solve_c``) by their stub.
MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
COMPILED = {_module_name(path) for path in PACKAGE.rglob("*.pyi")} - set(MODULES)


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
