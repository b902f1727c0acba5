"""``flavorsmith extra-specs validate KEY=VALUE... [--mode]`` and ``--stdin -f json``."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from flavorsmith import jsonsafe
from flavorsmith.cli.options import RepoOption
from flavorsmith.cli.report import DiagnosticFormat
from flavorsmith.errors import Invalid

if TYPE_CHECKING:
    from flavorsmith.extra_specs.registry import Mode, Verdict

_BATCH = 1000  # lines written at once
_REMEMBERED = 100_000  # distinct pairs whose line is kept (the same pair prints the same line)


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
        DiagnosticFormat,
        typer.Option("-f", "--format", help="text or json (one JSON line per pair)."),
    ] = DiagnosticFormat.TEXT,
    repo: RepoOption = None,
) -> None:
    """Validate extra specs; exit 1 when the mode rejects any of them."""
    from flavorsmith.cli.extra_specs.registry import load
    from flavorsmith.extra_specs.registry import MODES, parse_mode

    parsed = parse_mode(mode)
    if parsed is None:
        raise typer.BadParameter(
            f"{mode!r}: choose {', '.join(MODES)} (disabled is off)", param_hint="'--mode'"
        )
    if stdin == bool(pairs):
        raise typer.BadParameter("give KEY=VALUE pairs or --stdin, not both or neither")
    registry = load(repo)
    items: list[tuple[str, str] | str] = []
    if stdin:
        for number, line in enumerate(sys.stdin, start=1):
            if line.strip():
                items.append(_pair(line, number))
    else:
        for pair in pairs or []:
            if "=" not in pair:
                raise typer.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="PAIRS")
            key, value = pair.split("=", 1)
            items.append((key, value))
    as_json = fmt is DiagnosticFormat.JSON
    answered: dict[tuple[str, str], tuple[str, bool]] = {}  # a pair seen before: its line
    rejected = 0
    batch: list[str] = []
    for item in items:
        if isinstance(item, str):
            rejected += 1
            batch.append(json.dumps({"error": item}) if as_json else f"error: {item}")
        else:
            known = answered.get(item)
            if known is None:
                known = answered[item] = _answer(registry.verdict(*item), parsed, as_json)
                if len(answered) > _REMEMBERED:
                    answered.clear()
            batch.append(known[0])
            rejected += not known[1]
        if len(batch) >= _BATCH:
            typer.echo("\n".join(batch))
            batch.clear()
    if batch:
        typer.echo("\n".join(batch))
    if rejected:
        raise typer.Exit(1)


def _pair(line: str, number: int) -> tuple[str, str] | str:
    """A line's key and value, or the error that line is. A line that holds just a key and a
    value, both text, is read with the standard parser (the usual case, three times faster);
    any other goes through the strict reader, which refuses what it refuses everywhere."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        data = None
    if type(data) is dict and len(data) == 2:
        key, value = data.get("key"), data.get("value")
        if type(key) is str and type(value) is str:
            try:
                jsonsafe.check_text("key", key)
                jsonsafe.check_text("value", value)
            except Invalid:
                pass
            else:
                return key, value
    try:
        data = jsonsafe.loads(line, what=f"line {number}")
        return (str(data["key"]), str(data["value"]))
    except (Invalid, KeyError, TypeError):
        return f"line {number}: expected a JSON object with key and value"


def _answer(verdict: Verdict, mode: Mode, as_json: bool) -> tuple[str, bool]:
    """The line printed for a verdict, and whether ``mode`` allows the pair."""
    allowed = verdict.allowed(mode)
    if as_json:
        return json.dumps(verdict.as_dict(mode)), allowed
    word = "ok" if allowed else "rejected"
    return f"{verdict.key}={verdict.value}: {word} ({verdict.status}): {verdict.message}", allowed
