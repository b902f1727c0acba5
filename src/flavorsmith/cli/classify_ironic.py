"""``flavorsmith classify --cloud NAME|--ironic-endpoint URL --node N|--all [--apply]``: nodes
classified from the inspection inventory a real Ironic keeps for them, and the result applied
to that Ironic, through the sync registry's classification kind (plan, then apply; ownership
is the trait rules' prefixes). Every refusal before a write is one line, and nothing is
written then."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import typer

from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.ironic_source import fail, ironic_nodes
from flavorsmith.cli.output import Format, print_document, render_list, render_show, to_yaml
from flavorsmith.progress import progress

if TYPE_CHECKING:
    from flavorsmith.catalog.repo import RepoView
    from flavorsmith.clients.ironic import IronicNodes
    from flavorsmith.sync.report import Outcome, Report

COLUMNS = ["node", "state", "action", "resource class", "traits added", "traits removed", "why"]
SHOWN = ("update", "blocked", "conflict")  # a plan lists the nodes that change or cannot


def catalog(repo: str | None) -> RepoView:
    """The catalog, loaded; one line and exit 1 when it has errors."""
    from flavorsmith.cli.options import repository
    from flavorsmith.diagnostics import Severity

    view = repository(repo).load()
    errors = [d for d in view.diagnostics if d.severity is Severity.ERROR]
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        fail(
            f"the catalog has errors, so no node is classified: {errors[0].render()}{more}; "
            "flavorsmith validate lists them"
        )
    return view


def source(cloud: str | None, endpoint: str | None) -> IronicNodes:
    found = ironic_nodes(cloud, endpoint)
    assert found is not None  # the caller checked that one of them is given
    return found


def _kind_and_target(nodes: IronicNodes) -> tuple[Any, Any]:
    from flavorsmith.sync.engine import refuses_nothing
    from flavorsmith.sync.kinds import CLASSIFICATION, choose

    kind = choose(CLASSIFICATION)
    return kind, kind.sdk_target(nodes.connection, refuses_nothing)


def _reading_failed(kind: Any, error: str) -> str:
    """The engine's error without its preamble: the reason alone is the clearer line."""
    return error.removeprefix(f"cannot read the target's {kind.noun}: ")


def one(nodes: IronicNodes, view: RepoView, node: str, *, apply: bool, fmt: Format) -> None:
    """One node: its classification with the reasons, what would change (or changed)."""
    from flavorsmith.cli.classification_table import cells
    from flavorsmith.sync.engine import run

    kind, target = _kind_and_target(nodes)
    target.only = node
    result = run(kind, view, target, prune=False, execute=apply)
    if result.error is not None:
        fail(_reading_failed(kind, result.error))
    action: Any = result.actions[0]
    if action.kind in ("no-inventory", "conflict"):
        fail(f"node {node!r}: {action.reason}")
    body: dict[str, Any] = {
        "node": action.node,
        "uuid": action.uuid,
        "provision_state": action.state,
        **action.classification,
        "plan": action.as_dict(),
    }
    failed = False
    if result.report is not None:
        outcome = result.report.outcomes[0]
        failed = not outcome.ok and outcome.error is not None
        body["applied"] = (
            f"failed: {outcome.error}"
            if failed
            else action.reason
            if action.kind in ("update", "blocked")
            else "nothing to change"
        )
    if not print_document(body, fmt):
        shown = {
            "node": action.node,
            "provision_state": action.state,
            **cells(body),
            "plan": action.reason,
        }
        typer.echo(render_show(shown, fmt), nl=False)
    if failed or (apply and action.kind == "blocked") or body["resource_class"] is None:
        raise typer.Exit(ExitCode.FAILURE)


def fleet(nodes: IronicNodes, view: RepoView, *, apply: bool, yes: bool, fmt: Format) -> None:
    """Every node: the plan first; with ``apply`` (and ``yes`` or a terminal's answer) each
    changing node on its own, a progress bar on a terminal, and a summary."""
    from flavorsmith.sync.engine import carry_out, run

    kind, target = _kind_and_target(nodes)
    preview = run(kind, view, target, prune=False, execute=False)
    if preview.error is not None:
        fail(_reading_failed(kind, preview.error))
    actions = list(preview.actions)
    changes = sum(1 for a in actions if a.writes)
    if not apply or changes == 0:
        _print(actions, None, fmt)
        return
    if not yes:
        if not sys.stdin.isatty():
            typer.echo(
                f"error: {changes} nodes to change; pass --yes to apply without a terminal",
                err=True,
            )
            raise typer.Exit(ExitCode.USAGE)
        _print(actions, None, Format.TABLE)
        if not typer.confirm(f"Apply to {changes} nodes?"):
            raise typer.Exit(ExitCode.FAILURE)
    with progress("classifying", changes) as bar:
        report = carry_out(
            actions,
            lambda a: kind.steps(a, target),
            lambda: target.calls,
            progress=lambda outcome: bar.advance() if outcome.action.writes else None,
        )
    _print(actions, report, fmt)
    if report.failed:
        raise typer.Exit(ExitCode.FAILURE)


def _summary(actions: list[Any], report: Report | None) -> dict[str, int]:
    count = {k: sum(1 for a in actions if a.kind == k) for k in (*SHOWN, "noop", "no-inventory")}
    if report is None:
        return {
            "change": count["update"],
            "blocked": count["blocked"],
            "unchanged": count["noop"],
            "without_inventory": count["no-inventory"],
            "cannot_classify": count["conflict"],
        }
    return {
        "changed": report.writes,
        "unchanged": count["noop"],
        "blocked": count["blocked"],
        "without_inventory": count["no-inventory"],
        "failed": len(report.failed),
        "api_calls": report.calls,
    }


def _print(actions: list[Any], report: Report | None, fmt: Format) -> None:
    outcomes = {id(o.action): o for o in report.outcomes} if report else {}
    summary = _summary(actions, report)
    if fmt in (Format.JSON, Format.YAML):
        listed = []
        for action in actions:
            item = action.as_dict()
            if id(action) in outcomes:
                item.update(outcomes[id(action)].as_dict())
            listed.append(item)
        body = {"nodes": listed, "summary": summary}
        typer.echo(json.dumps(body, indent=2) if fmt is Format.JSON else to_yaml(body), nl=False)
        if fmt is Format.JSON:
            typer.echo("")
        return
    rows = [_row(a, outcomes.get(id(a))) for a in actions if a.kind in SHOWN]
    columns = COLUMNS + (["outcome"] if report else [])
    if rows:
        typer.echo(render_list(rows, columns, fmt), nl=False)
    if report is None:
        typer.echo(
            f"{summary['change']} nodes would change (resource class, traits added, traits "
            f"removed), {summary['blocked']} blocked, {summary['unchanged']} up to date, "
            f"{summary['without_inventory']} without an inventory, "
            f"{summary['cannot_classify']} cannot be classified"
        )
    else:
        typer.echo(
            f"{summary['changed']} changed, {summary['unchanged']} unchanged, "
            f"{summary['blocked']} blocked, {summary['without_inventory']} without an "
            f"inventory, {summary['failed']} failed ({summary['api_calls']} API calls)"
        )


def _row(action: Any, outcome: Outcome | None) -> dict[str, Any]:
    new = action.new_resource_class
    current = action.resource_class or "(none)"
    why = action.reason
    if action.kind == "update":
        matched = action.classification.get("outcome") == "matched"
        why = "" if matched else f"resource class left alone: {action.classification['summary']}"
    row: dict[str, Any] = {
        "node": action.node,
        "state": action.state,
        "action": action.kind,
        "resource class": f"{current} → {new}" if new else current,
        "traits added": list(action.added),
        "traits removed": list(action.removed),
        "why": why,
    }
    if outcome is not None:
        row["outcome"] = (
            "done" if outcome.ok else f"failed: {outcome.error}" if outcome.error else "skipped"
        )
    return row
