"""The house's rules that the import contracts cannot see: imports stand at the top of a module.

A function-level import hides a dependency (and, twice in this project's history, an import
cycle) from readers and from `lint-imports`. The CLI is lazy once: its root loads only the module
of the command line's first word (and no command module for its own help), and a command module
imports at its top. Only the modules every command shares (the root, options, output, the shell
completion) import what one option needs when it is used, so that `extra-specs validate` loads
neither the database nor the OpenStack SDK."""

from __future__ import annotations

import ast
from pathlib import Path

import flavorsmith

PACKAGE = Path(flavorsmith.__file__).parent
CLI = PACKAGE / "cli"
SHARED = {CLI / name for name in ("__init__.py", "options.py", "output.py", "completion.py")}
# Command modules not moved to top-level imports yet (the node and classify commands, serve).
NOT_YET = {CLI / "classify.py", CLI / "classify_ironic.py", CLI / "serve.py"}
# A command whose optional part loads what its plain use must not wait for: validate reads
# nodes (the database layer, the OpenStack SDK) only with --database, --cloud or
# --ironic-endpoint (0.3 s against 1 s for what CI runs on every catalog change).
# So does review: a fleet read from a nodes file loads neither (a review runs on every push).
OPTIONAL_PARTS = {CLI / "validate.py", CLI / "review" / "fleet.py"}


def lazy_allowed(path: Path) -> bool:
    return (
        path in SHARED or path in NOT_YET or path in OPTIONAL_PARTS or CLI / "node" in path.parents
    )


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
    sample = CLI / "__init__.py"
    assert function_level_imports(sample), "the CLI root's lazy imports should be seen"


def test_no_function_level_imports_outside_the_shared_cli_modules() -> None:
    offenders = [
        where
        for path in sorted(PACKAGE.rglob("*.py"))
        if not lazy_allowed(path)
        for where in function_level_imports(path)
    ]
    assert offenders == []
