"""A review as ``review`` prints it: the JSON document, Markdown for a pull-request comment (a
headline, then collapsible detail), or tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from flavorsmith.cli.output import Format, render_list, render_show
from flavorsmith.matching.review import (
    FlavorDiff,
    LbChanges,
    NetFlavorDiff,
    Review,
    RunbookDiff,
    Tripped,
    headline,
    runbook_steps,
    signed,
)
from flavorsmith.servers_in_use import Servers

SHOWN_NODES = 20  # node names a Markdown or table section lists before "and N more"
COLUMNS = ["flavor", "matching", "available", "change", "note"]


def _span(before: int | None, after: int | None) -> str:
    if before is None:
        return f"new: {after}"
    if after is None:
        return f"{before} → gone"
    return f"{before} → {after}" if before != after else str(after)


def _note(diff: FlavorDiff) -> str:
    notes = []
    if diff.status != "kept":
        notes.append(diff.status)
    if diff.unschedulable:
        notes.append("unschedulable")
    if diff.templates_selected:
        notes.append(f"selects {', '.join(diff.templates_selected)}")
    if diff.templates_dropped:
        notes.append(f"drops {', '.join(diff.templates_dropped)}")
    return "; ".join(notes)


def _row(diff: FlavorDiff) -> dict[str, Any]:
    return {
        "flavor": diff.flavor,
        "matching": _span(diff.matching_before, diff.matching_after),
        "available": _span(diff.available_before, diff.available_after),
        "change": signed(diff.available_change),
        "note": _note(diff),
    }


def _short(names: Sequence[str]) -> list[str]:
    if len(names) <= SHOWN_NODES:
        return list(names)
    return [*names[:SHOWN_NODES], f"... and {len(names) - SHOWN_NODES} more"]


def _nova_line(entry: dict[str, Any]) -> str:
    line = f"{entry['action']} {entry['flavor']}: {entry['reason']}"
    if "servers" not in entry:
        return line
    counted = entry["servers"]
    if counted is None:
        return line + " (servers using it: not counted; give --cloud)"
    servers = Servers(counted["count"], counted["scope"], counted.get("note"))
    return line + f" ({'; '.join(filter(None, (servers.phrase(), servers.note)))})"


def _steps(steps: list[dict[str, Any]] | None) -> str:
    """``10 raid.delete_configuration; 20 raid.create_configuration {"create_root_volume":
    true}``: each step by order, with its arguments."""
    if not steps:
        return "none"
    return "; ".join(
        f"{s['order']} {s['interface']}.{s['step']}"
        + (f" {json.dumps(s['args'], sort_keys=True)}" if s["args"] else "")
        for s in steps
    )


def _runbook_lines(diff: RunbookDiff) -> list[str]:
    """What changed of one runbook: its status and fields, its steps and traits old → new,
    the nodes that may run it and the ones that gain or lose the right."""
    name = diff.runbook
    before, after = diff.before, diff.after
    status = f"{name}: {diff.status}" + (f" ({', '.join(diff.fields)})" if diff.fields else "")
    lines = [status]
    old_steps, new_steps = runbook_steps(before), runbook_steps(after)
    if old_steps != new_steps:
        lines.append(f"{name} steps: {_steps(old_steps)} → {_steps(new_steps)}")
    if before is not None and after is not None and "traits" in diff.fields:
        lines.append(
            f"{name} traits: {', '.join(sorted(before.traits)) or 'none'} → "
            f"{', '.join(sorted(after.traits)) or 'none'}"
        )
    count = diff.may_run_after - diff.may_run_before
    lines.append(
        f"{name} nodes that may run it: {_span(diff.may_run_before, diff.may_run_after)}"
        + (f" ({signed(count)})" if count else "")
    )
    for verb, names in (("gain", diff.gaining), ("lose", diff.losing)):
        if names:
            lines.append(f"{name}: {len(names)} nodes {verb} the right: {', '.join(_short(names))}")
    return lines


def _value(value: Any) -> str:
    return "absent" if value is None else json.dumps(value, sort_keys=True)


def _lb_lines(changes: LbChanges) -> list[str]:
    """Each load-balancer profile, then each flavor: its status, whether Octavia would make it
    again, then each field old → new."""
    lines = []
    for p in changes.profiles:
        lines.append(
            f"profile {p.profile}: {p.status}"
            + (f" ({', '.join(c.field for c in p.changes)})" if p.changes else "")
            + (
                "; replaced: Octavia changes no profile a flavor uses, so a new one is made "
                "and its flavors again on it"
                if p.replaced
                else ""
            )
        )
        lines += [
            f"profile {p.profile} {c.field}: {_value(c.before)} → {_value(c.after)}"
            for c in p.changes
        ]
    for f in changes.flavors:
        where = f.profile_after if f.profile_after is not None else f.profile_before
        lines.append(
            f"flavor {f.flavor} (profile {where}): {f.status}"
            + (f" ({', '.join(c.field for c in f.changes)})" if f.changes else "")
            + (
                "; replaced: deleted and made again (refused while load balancers use it)"
                if f.replaced
                else ""
            )
        )
        lines += [
            f"flavor {f.flavor} {c.field}: {_value(c.before)} → {_value(c.after)}"
            for c in f.changes
        ]
    return lines


def _net_lines(flavors: Sequence[NetFlavorDiff]) -> list[str]:
    """Each network flavor: its status, whether Neutron would make it again, then each field
    old → new and the service profiles an update makes and removes."""
    lines = []
    for f in flavors:
        lines.append(
            f"flavor {f.flavor}: {f.status}"
            + (f" ({', '.join(c.field for c in f.changes)})" if f.changes else "")
            + (
                "; replaced: Neutron never changes a service_type, so it is deleted and made "
                "again with its profiles (refused while routers use it)"
                if f.replaced
                else ""
            )
        )
        lines += [
            f"flavor {f.flavor} {c.field}: {_value(c.before)} → {_value(c.after)}"
            for c in f.changes
        ]
        lines += [f"flavor {f.flavor} profile made and associated: {_value(p)}" for p in f.made]
        lines += [
            f"flavor {f.flavor} profile disassociated and deleted: {_value(p)}" for p in f.removed
        ]
    return lines


def _diagnostic(d: dict[str, Any]) -> str:
    return f"{d['path']}:{d['line']}: {d['field']}: {d['message']}"


def sections(result: Review) -> list[tuple[str, list[str]]]:
    """The detail below the flavors, each as a title and its lines (empty ones left out)."""
    data = result.as_dict()
    fleet = result.fleet
    found = [
        (f"Retired nodes ({len(fleet.retired)})", _short(fleet.retired)),
        (f"Added nodes ({len(fleet.added)})", _short(fleet.added)),
        (
            f"Nodes no flavor can use any more ({len(result.nodes_unusable)})",
            _short(result.nodes_unusable),
        ),
        (
            f"Nodes that become usable ({len(result.nodes_usable)})",
            _short(result.nodes_usable),
        ),
        (
            f"Pools that start leaking ({len(result.leaks_started)})",
            [leak.summary() for leak in result.leaks_started],
        ),
        (
            f"Pools that stop leaking ({len(result.leaks_stopped)})",
            [leak.summary() for leak in result.leaks_stopped],
        ),
        (f"Nova changes ({len(result.nova)})", [_nova_line(e) for e in result.nova]),
        (
            f"Runbooks ({len(result.runbooks)} changed)",
            [line for r in result.runbooks for line in _runbook_lines(r)],
        ),
        (
            f"Load-balancer flavors ({len(result.load_balancers)} changed)",
            _lb_lines(result.load_balancers),
        ),
        (
            f"Network flavors ({len(result.network_flavors)} changed)",
            _net_lines(result.network_flavors),
        ),
        (
            f"New catalog errors ({len(result.errors)})",
            [_diagnostic(d) for d in data["diagnostics"]["errors"]],
        ),
        (
            f"New catalog warnings ({len(result.warnings)})",
            [_diagnostic(d) for d in data["diagnostics"]["warnings"]],
        ),
    ]
    return [(title, lines) for title, lines in found if lines]


def markdown(result: Review, base: str, head: str, gates: Sequence[Tripped]) -> str:
    """A pull-request comment: the headline, the gates that hold, then each part folded."""
    out = [f"### Flavorsmith review: `{base}` → `{head}`", "", f"**{headline(result)}**", ""]
    if gates:
        out += ["Failed gates:", ""]
        out += [f"- `{g.condition}`: {_escaped(g.detail)}" for g in gates]
        out.append("")
    changed = result.changed_flavors
    if changed:
        out += [
            f"<details><summary>Flavors ({len(changed)} changed)</summary>",
            "",
            "| Flavor | Matching | Available | Change | Note |",
            "|---|---|---|---|---|",
        ]
        for diff in changed:
            row = _row(diff)
            out.append("| " + " | ".join(_escaped(str(row[c])) for c in COLUMNS) + " |")
        out += ["", "</details>", ""]
    for title, lines in sections(result):
        out += [f"<details><summary>{title}</summary>", ""]
        out += [f"- {_escaped(line)}" for line in lines]
        out += ["", "</details>", ""]
    return "\n".join(out)


def _escaped(text: str) -> str:
    """Text safe in a Markdown table cell or list item (no pipe, no HTML)."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def tables(result: Review, gates: Sequence[Tripped]) -> str:
    """The flavors' table, then one of the rest (as ``capacity`` prints its findings)."""
    rows = [_row(d) for d in result.changed_flavors]
    text = render_list(rows, COLUMNS, Format.TABLE) if rows else ""
    record: dict[str, Any] = {"headline": headline(result)}
    record.update(dict(sections(result)))
    if gates:
        record["failed gates"] = [f"{g.condition}: {g.detail}" for g in gates]
    return text + render_show(record, Format.TABLE)
