"""The house's rules that the import contracts cannot see: imports stand at the top of a module.

A function-level import hides a dependency (and, twice in this project's history, an import
cycle) from readers and from `lint-imports`. Only the CLI imports lazily, inside its command
functions, so that `flavorsmith --help` does not load the web framework or the database."""

from __future__ import annotations

import ast
from pathlib import Path

import flavorsmith

PACKAGE = Path(flavorsmith.__file__).parent
LAZY = PACKAGE / "cli"


def function_level_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{inner.lineno}")
    return sorted(set(found))


def test_function_level_imports_are_found() -> None:
    sample = PACKAGE.parent / "flavorsmith" / "cli" / "serve.py"
    assert function_level_imports(sample), "the CLI's lazy imports should be seen"


def test_no_function_level_imports_outside_the_cli() -> None:
    offenders = [
        where
        for path in sorted(PACKAGE.rglob("*.py"))
        if LAZY not in path.parents
        for where in function_level_imports(path)
    ]
    assert offenders == []
