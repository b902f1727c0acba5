"""A sync plan as a diff an operator reviews in a pull request (pure: text in, text out).

Each action that writes is a header (``+ create``, ``~ update``, ``~ repair``, ``~ access``,
``-/+ replace``, ``- delete``) and one line per attribute it sets or changes (``old → new``); a
replace names the fields that force it; a delete or a replace says how many servers use the
object (and, on a line of its own, why that count is partial or unknown); conflicts and kept
objects say why;
unmanaged objects are listed by name; a last line counts them. Colour (green +, red -,
yellow ~) only when asked for."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click

from flavorsmith.sync.report import Change, Planned, changes_of, servers_of

SIGNS = {
    "create": "+",
    "update": "~",
    "repair": "~",
    "access": "~",
    "replace": "-/+",
    "delete": "-",
    "conflict": "!",
}
COLOURS = {"+": "green", "-": "red", "~": "yellow", "-/+": "yellow", "!": "red"}
OP_SIGNS = {"add": "+", "remove": "-", "change": "~"}
QUIET = ("noop",)  # counted, not listed
WORDS = {
    "create": "to create",
    "update": "to update",
    "repair": "to repair",
    "access": "to change access",
    "replace": "to replace",
    "delete": "to delete",
}
OTHERS = {"noop": "up to date", "conflict": "in conflict"}


def value(v: Any) -> str:
    """A value as JSON writes it (strings quoted, so a trailing space shows)."""
    return json.dumps(v, ensure_ascii=False, default=str)


def _paint(text: str, sign: str, colour: bool) -> str:
    return click.style(text, fg=COLOURS[sign]) if colour and sign in COLOURS else text


def change_line(change: Change, colour: bool) -> str:
    sign = OP_SIGNS[change.op]
    if change.op == "add":
        body = f"{change.field}: {value(change.new)}"
    elif change.op == "remove":
        body = f"{change.field}: {value(change.old)}"
    else:
        body = f"{change.field}: {value(change.old)} → {value(change.new)}"
    if change.forces:
        body += " (forces replacement)"
    return "    " + _paint(f"{sign} {body}", sign, colour)


def _name(action: Planned) -> str:
    name = getattr(action, "name", None)
    if isinstance(name, str) and name != action.subject:
        return f"{name} (id {action.subject})"
    return action.subject


def render(actions: Sequence[Planned], noun: str, *, colour: bool = False) -> str:
    """The plan of ``actions`` (of a kind whose objects are ``noun``, e.g. "flavor")."""
    lines: list[str] = []
    unmanaged: list[str] = []
    for action in actions:
        if action.kind == "unmanaged":
            unmanaged.append(_name(action))
            continue
        if action.kind in QUIET:
            continue
        changes = changes_of(action)
        sign = SIGNS.get(action.kind, " ")
        header = f"{sign} {action.kind} {noun} {_name(action)}"
        notes = []
        if action.kind == "replace":
            forced = [c.field for c in changes if c.forces]
            if forced:
                notes.append(
                    f"{', '.join(forced)} {'forces' if len(forced) == 1 else 'force'} replacement"
                )
        servers = servers_of(action)
        if servers is not None:
            notes.append(servers.phrase())
        if notes:
            header += f" ({'; '.join(notes)})"
        if not changes or action.kind in ("conflict", "keep", "delete"):
            header += f": {action.reason}"
        lines.append(_paint(header, sign, colour))
        if servers is not None and servers.note:
            lines.append(f"    # {servers.note}")
        lines += [change_line(c, colour) for c in changes]
    if unmanaged:
        lines.append(f"  unmanaged (left alone): {', '.join(unmanaged)}")
    lines.append(summary(actions))
    return "\n".join(lines) + "\n"


def summary(actions: Sequence[Planned]) -> str:
    counts: dict[str, int] = {}
    for action in actions:
        counts[action.kind] = counts.get(action.kind, 0) + 1
    writes = sum(1 for a in actions if a.writes)
    if not writes:
        head = "No changes."
    else:
        head = f"Plan: {writes} {'change' if writes == 1 else 'changes'}"
        head += " (" + ", ".join(f"{counts[k]} {w}" for k, w in WORDS.items() if counts.get(k))
        head += ")."
    rest = [f"{n} {OTHERS.get(k, k)}" for k, n in counts.items() if k not in WORDS]
    return head + (f" {', '.join(rest)}." if rest else "")


def use_colour(isatty: bool, environ: dict[str, str]) -> bool:
    """Colour on a terminal, never when piped or with NO_COLOR set (https://no-color.org)."""
    return isatty and not environ.get("NO_COLOR")
