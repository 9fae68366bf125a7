"""The library never imports a front end (DESIGN section 1)."""

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
