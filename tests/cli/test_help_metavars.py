"""Every command's --help names what an option takes (NAME, URL, SECONDS, ...), never a
generic type (TEXT, INTEGER, FLOAT, PATH, <str>, <int range>), and an argument shows its
name alone (``NODE``, not ``NODE <str>``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import typer

from flavorsmith.cli import build
from tests.conftest import Invoke

# Typer's own labels: <str>, <int range>, <file>, <list[Path]>, ... (a choice such as
# <table|json> names its values and stays).
GENERIC = re.compile(
    r"\bTEXT\b|\bINTEGER\b|\bFLOAT\b|\bPATH\b|<(str|int|float|Path|file|dir|path|directory)\b|<list\["
)


def commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    if hasattr(group, "commands"):  # a group
        for name, command in sorted(group.commands.items()):
            if not command.hidden:
                yield from commands(command, (*path, name))


def test_no_help_shows_a_generic_metavar(cli: Invoke) -> None:
    root = typer.main.get_command(build())
    found = []
    for path in commands(root):
        result = cli(*path, "--help", terminal_width=200)
        assert result.exit_code == 0, (path, result.stderr)
        generic = [
            f"flavorsmith {' '.join(path)}: {line.strip()}"
            for line in result.stdout.splitlines()
            if GENERIC.search(line)
        ]
        found += generic
    assert found == []


def test_an_argument_shows_its_name_alone(cli: Invoke) -> None:
    result = cli("node", "trait", "add", "-h", terminal_width=80)
    assert (result.exit_code, result.stdout) == (
        0,
        """\
Usage: flavorsmith node trait add [OPTIONS] {NODE} {TRAIT}...

  Add traits to a node (prints the resulting traits).

  Example:
    flavorsmith node trait add r7615-a01-u02 CUSTOM_NICX

Arguments:
  NODE   Node name or UUID.  [required]
  TRAIT  Full trait names, e.g. CUSTOM_NICX.  [required]

Options:
  --database URL  SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db.
                  Default: a per-user SQLite file.  [env var:
                  FLAVORSMITH_DATABASE_URL]
  -h, --help      Show this message and exit.
""",
    )
