"""``flavorsmith extra-specs validate KEY=VALUE... [--mode]`` and ``--stdin -f json``."""

from __future__ import annotations

import json
import re
import sys
from json.encoder import encode_basestring_ascii as _quoted
from typing import TYPE_CHECKING, Annotated

import typer

from flavorsmith import jsonsafe
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.extra_specs.registry import load
from flavorsmith.cli.options import RepoOption
from flavorsmith.cli.report import AnswerFormat
from flavorsmith.errors import Invalid
from flavorsmith.extra_specs.registry import MODES, parse_mode

if TYPE_CHECKING:
    from flavorsmith.extra_specs.registry import Mode, Verdict

_BATCH = 1000  # lines written at once
_REMEMBERED = 100_000  # distinct lines whose answer is kept (the same line prints the same line)
# A line holding just a key and a value as json.dumps writes them, with no escape, control
# character, NUL or surrogate in either: read without the JSON parser (it reads the same).
_PLAIN = re.compile(
    r'\{"key": "([^"\\\x00-\x1f\ud800-\udfff]*)", "value": "([^"\\\x00-\x1f\ud800-\udfff]*)"\}'
    r"[ \t\r\n]*"
)


def validate(
    pairs: Annotated[
        list[str] | None,
        typer.Argument(metavar="KEY=VALUE", help="KEY=VALUE pairs.", show_default=False),
    ] = None,
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            metavar="MODE",
            help="nova (default), strict, permissive or off (or disabled).",
        ),
    ] = "nova",
    stdin: Annotated[
        bool, typer.Option("--stdin", help='Read JSON lines {"key","value"} from stdin.')
    ] = False,
    fmt: Annotated[
        AnswerFormat,
        typer.Option("-f", "--format", help="text or json (one JSON line per pair)."),
    ] = AnswerFormat.TEXT,
    repo: RepoOption = None,
) -> None:
    """Validate extra specs; exit 1 when the mode rejects any of them.

    \b
    Example:
      flavorsmith extra-specs validate hw:cpu_policy=dedicated --mode strict
    """
    parsed = parse_mode(mode)
    if parsed is None:
        raise typer.BadParameter(
            f"{mode!r}: choose {', '.join(MODES)} (disabled is off)", param_hint="'--mode'"
        )
    if stdin == bool(pairs):
        raise typer.BadParameter("give KEY=VALUE pairs or --stdin, not both or neither")
    registry = load(repo)
    as_json = fmt is AnswerFormat.JSON
    rejected = 0
    batch: list[str] = []
    if stdin:
        # The same line always prints the same line: a line seen before costs a lookup.
        answered: dict[str, tuple[str, bool]] = {}
        for number, line in enumerate(sys.stdin, start=1):
            known = answered.get(line)
            if known is None:
                if not line.strip():
                    continue
                item = _pair(line, number)
                if isinstance(item, str):
                    rejected += 1
                    batch.append(_error(item, as_json))
                    continue
                known = _answer(registry.verdict(*item), parsed, as_json)
                if len(answered) >= _REMEMBERED:
                    answered.clear()
                answered[line] = known
            batch.append(known[0])
            rejected += not known[1]
            if len(batch) >= _BATCH:
                typer.echo("\n".join(batch))
                batch.clear()
    else:
        for pair in pairs or []:
            if "=" not in pair:
                raise typer.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="PAIRS")
        for pair in pairs or []:
            key, value = pair.split("=", 1)
            line, allowed = _answer(registry.verdict(key, value), parsed, as_json)
            batch.append(line)
            rejected += not allowed
    if batch:
        typer.echo("\n".join(batch))
    if rejected:
        raise typer.Exit(ExitCode.FAILURE)


def _error(item: str, as_json: bool) -> str:
    return json.dumps({"error": item}) if as_json else f"error: {item}"


def _pair(line: str, number: int) -> tuple[str, str] | str:
    """A line's key and value, or the error that line is. A line that holds just a key and a
    value, both text, is a pair (read with the standard parser: the usual case, three times
    faster), even when the text is something no column holds, such as a NUL: the registry's
    verdict says that it cannot be stored. Any other line goes through the strict reader,
    which refuses what it refuses everywhere."""
    plain = _PLAIN.fullmatch(line)
    if plain is not None:
        return plain.group(1), plain.group(2)
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        data = None
    if type(data) is dict and len(data) == 2:
        key, value = data.get("key"), data.get("value")
        if type(key) is str and type(value) is str:
            return key, value
    try:
        data = jsonsafe.loads(line, what=f"line {number}")
    except jsonsafe.Malformed:
        pass
    except Invalid as exc:
        return str(exc)  # JSON, but a value the strict reader refuses (NaN, say)
    else:
        if type(data) is dict and "key" in data and "value" in data:
            return str(data["key"]), str(data["value"])
    return f"line {number}: expected a JSON object with key and value"


def _answer(verdict: Verdict, mode: Mode, as_json: bool) -> tuple[str, bool]:
    """The line printed for a verdict, and whether ``mode`` allows the pair."""
    allowed = verdict.allowed(mode)
    if as_json:  # as json.dumps(verdict.as_dict(mode)) writes it, a few times faster
        return (
            f'{{"key": {_quoted(verdict.key)}, "value": {_quoted(verdict.value)}, '
            f'"status": {_quoted(verdict.status)}, "valid": {"true" if allowed else "false"}, '
            f'"message": {_quoted(verdict.message)}}}'
        ), allowed
    word = "ok" if allowed else "rejected"
    pair = _printable(f"{verdict.key}={verdict.value}")
    return f"{pair}: {word} ({verdict.status}): {_printable(verdict.message)}", allowed


def _printable(text: str) -> str:
    """``text`` with each character a terminal would act on (a NUL, an escape) escaped."""
    return (
        text
        if text.isprintable()
        else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    )
