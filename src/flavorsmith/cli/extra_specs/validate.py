"""``flavorsmith extra-specs validate KEY=VALUE... [--mode]`` and ``--stdin -f json``."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from flavorsmith.cli.options import RepoOption
from flavorsmith.cli.report import DiagnosticFormat


def validate(
    pairs: Annotated[
        list[str] | None, typer.Argument(help="KEY=VALUE pairs.", show_default=False)
    ] = None,
    mode: Annotated[
        str, typer.Option("--mode", help="nova (default), strict, permissive or off (or disabled).")
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
    from flavorsmith import jsonsafe
    from flavorsmith.cli.extra_specs.registry import load
    from flavorsmith.errors import Invalid
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
            if not line.strip():
                continue
            try:
                data = jsonsafe.loads(line, what=f"line {number}")
                items.append((str(data["key"]), str(data["value"])))
            except (Invalid, KeyError, TypeError):
                items.append(f"line {number}: expected a JSON object with key and value")
    else:
        for pair in pairs or []:
            if "=" not in pair:
                raise typer.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="PAIRS")
            key, value = pair.split("=", 1)
            items.append((key, value))
    rejected = 0
    for item in items:
        if isinstance(item, str):
            rejected += 1
            typer.echo(
                json.dumps({"error": item}) if fmt is DiagnosticFormat.JSON else f"error: {item}"
            )
            continue
        verdict = registry.verdict(*item)
        allowed = verdict.allowed(parsed)
        rejected += not allowed
        if fmt is DiagnosticFormat.JSON:
            typer.echo(json.dumps(verdict.as_dict(parsed)))
        else:
            word = "ok" if allowed else "rejected"
            typer.echo(
                f"{verdict.key}={verdict.value}: {word} ({verdict.status}): {verdict.message}"
            )
    if rejected:
        raise typer.Exit(1)
