"""Every command's help starts with one sentence (what it does) and every command's ends with
an example of itself on the example catalog, which parses as the command reads it: a renamed
option, a missing argument or a file gone from examples/ fails here. Every --repo option says
that it takes a catalog repository.

The examples are parsed (click's make_context, strictly), never run; as a user would, they run
in the catalog repository (examples/), and the shell expands their globs."""

from __future__ import annotations

import glob
import shlex
from collections.abc import Iterator
from typing import Any

import pytest
import typer

from flavorsmith.cli import build, output
from tests.conftest import EXAMPLES

WIDTH = 100  # the commands reference page's width (docs/hooks/reference.py)
INDENT = 4  # click indents the help's text by 2, and the example's lines by 2 more
# typer carries its own copy of click: its usage error is the class above BadParameter.
USAGE_ERROR: type[Any] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def tree(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command and group below ``command`` (itself included) with its words."""
    yield path, command
    for name, below in sorted(getattr(command, "commands", {}).items()):
        if not below.hidden:
            yield from tree(below, (*path, name))


def everything() -> list[tuple[tuple[str, ...], Any]]:
    return list(tree(typer.main.get_command(build()), ("flavorsmith",)))


def leaves() -> list[tuple[tuple[str, ...], Any]]:
    return [(path, command) for path, command in everything() if not hasattr(command, "commands")]


def example(help_text: str) -> list[str]:
    """The example's physical lines: the help's last paragraph is click's verbatim block
    (``\\b``), headed ``Example:``."""
    lines = help_text.rsplit("\n\n", 1)[-1].split("\n")
    assert lines[:2] == ["\b", "Example:"], help_text
    return lines[2:]


def words(lines: list[str]) -> list[str]:
    """The example's command line as the shell splits it, its continuation lines joined."""
    assert all(line.endswith(" \\") for line in lines[:-1]), lines
    return shlex.split(" ".join(line.removesuffix("\\") for line in lines))


def expanded(args: list[str]) -> list[str]:
    """``args`` with each glob replaced by the files it matches (none is an error)."""
    out = []
    for arg in args:
        if any(c in arg for c in "*?["):
            found = sorted(glob.glob(arg))
            assert found, f"{arg} matches no file"
            out += found
        else:
            out.append(arg)
    return out


@pytest.fixture
def in_examples(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(EXAMPLES)
    yield
    output.reset()  # the table options' callbacks remember their values


def parse(command: Any, path: tuple[str, ...], args: list[str]) -> None:
    """Parse ``args`` as ``command`` does before it runs (conversions and callbacks too); the
    parser consumes the list it is given, so it gets a copy."""
    with command.make_context(" ".join(path), list(args), resilient_parsing=False):
        pass


def test_every_help_starts_with_one_sentence() -> None:
    wrong = []
    for path, command in everything():
        text = command.help or ""
        # the root's listing and the groups' command tables show this sentence
        sentence = command.get_short_help_str(limit=len(text) + 1)
        first = " ".join(text.split("\n\n")[0].split())
        if not (sentence[:1].isupper() and sentence.endswith(".") and first.startswith(sentence)):
            wrong.append((" ".join(path), sentence))
    assert wrong == []


def test_every_command_ends_with_an_example_of_itself() -> None:
    found = leaves()
    assert len(found) > 60
    wrong: list[tuple[str, str]] = []
    for path, command in found:
        lines = example(command.help or "")
        if words(lines)[: len(path)] != list(path):
            wrong.append((" ".join(path), " ".join(lines)))
        wrong += [(" ".join(path), line) for line in lines if len(line) + INDENT > WIDTH]
    assert wrong == []


def test_every_example_parses(in_examples: None) -> None:
    failed = []
    for path, command in leaves():
        args = expanded(words(example(command.help or ""))[len(path) :])
        try:
            parse(command, path, args)
        except USAGE_ERROR as exc:
            failed.append((" ".join(path), args, exc.format_message()))
    assert failed == []


def test_an_example_with_a_renamed_option_does_not_parse(in_examples: None) -> None:
    path, command = next((p, c) for p, c in leaves() if p[1:] == ("flavor", "show"))
    args = words(example(command.help or ""))[len(path) :]
    parse(command, path, args)
    with pytest.raises(USAGE_ERROR, match="No such option"):
        parse(command, path, [*args, "--colour", "name"])
    with pytest.raises(USAGE_ERROR, match="Missing"):
        parse(command, path, [])


def test_every_repo_option_says_catalog_repository() -> None:
    repos = [
        (" ".join(path), param.help or "")
        for path, command in everything()
        for param in command.params
        if "--repo" in getattr(param, "opts", [])
    ]
    assert len(repos) > 30
    assert [(path, text) for path, text in repos if "catalog repository" not in text.lower()] == []
