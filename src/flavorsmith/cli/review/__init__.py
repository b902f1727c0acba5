"""``flavorsmith review``: what a catalog change does to what can be sold."""

from __future__ import annotations

import enum
import json
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Annotated

import typer

from flavorsmith.catalog.root import resolve_root
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.options import NodeSource, RepoOption, catalog_rules, node_source
from flavorsmith.cli.review import fleet, render
from flavorsmith.errors import FlavorsmithError, Invalid
from flavorsmith.matching import review as diff
from flavorsmith.matching.index import Index
from flavorsmith.sync.review import Revision, document, lb_replaced, net_replaced, revision


class ReviewFormat(enum.StrEnum):
    TABLE = "table"
    JSON = "json"
    MARKDOWN = "markdown"


@node_source()
def review(
    ctx: typer.Context,
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            metavar="REF",
            help="The revision the change starts from: a Git ref of the catalog repository "
            "(read with Git, the working tree untouched) or a folder holding a catalog. "
            "Default, with --retire or --add only: the working tree.",
            show_default=False,
        ),
    ] = None,
    head: Annotated[
        str | None,
        typer.Option(
            "--head",
            metavar="REF",
            help="The changed revision: a Git ref or a folder. Default: the working tree.",
            show_default=False,
        ),
    ] = None,
    repo: RepoOption = None,
    nodes: NodeSource = NodeSource(),
    nodes_file: Annotated[
        Path | None,
        typer.Option(
            "--nodes",
            metavar="FILE",
            help="Read the fleet from this node file (as node import takes it) instead of the "
            "service's database.",
            exists=True,
            dir_okay=False,
            show_default=False,
        ),
    ] = None,
    retire: Annotated[
        list[str] | None,
        typer.Option(
            "--retire",
            metavar="WHAT",
            help="What if these nodes were gone: a device type's model, a resource class, or "
            "node names (comma-separated). Repeatable.",
            show_default=False,
        ),
    ] = None,
    add: Annotated[
        list[str] | None,
        typer.Option(
            "--add",
            metavar="COUNT:LIKE_NODE",
            help="What if COUNT more nodes with the resource class and traits of LIKE_NODE "
            "were there, idle. Repeatable.",
            show_default=False,
        ),
    ] = None,
    fail_on: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-on",
            metavar="CONDITION",
            help="Exit 1 when this holds: unschedulable (a flavor becomes unschedulable), "
            "leak (a pool starts leaking), loss:N (a flavor loses more than N % of its "
            "available nodes), error (a new catalog error). Repeatable.",
            show_default=False,
        ),
    ] = None,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="A new catalog warning trips --fail-on error too."),
    ] = False,
    detailed_exitcode: Annotated[
        bool,
        typer.Option(
            "--detailed-exitcode",
            help="Exit 2 when the change has effects but trips no gate (0: none).",
        ),
    ] = False,
    fmt: Annotated[
        ReviewFormat,
        typer.Option("-f", "--format", help="Output format.", case_sensitive=False),
    ] = ReviewFormat.TABLE,
) -> None:
    """Review what a catalog change does to what can be sold, flavor by flavor.

    Per flavor, its nodes before and after; the flavors that become unschedulable, the nodes
    no flavor can use any more, the pools that start leaking, the deploy templates, the Nova
    changes, the runbooks, the load-balancer and network flavors and the new errors.

    The fleet is read once and both revisions are matched on it. With --retire or --add, the
    head revision is matched on the fleet so changed: a what-if, with or without --base.

    \b
    Example:
      flavorsmith review --base main --head HEAD --nodes nodes.yaml -f markdown
    """
    if base is None and not (retire or add):
        raise typer.BadParameter(
            "give the revision to compare with (or --retire / --add for a what-if)",
            param_hint="'--base'",
        )
    try:
        conditions = [diff.check_gate(c) for c in fail_on or []]
    except Invalid as exc:
        raise typer.BadParameter(exc.message, param_hint="'--fail-on'") from None
    root = resolve_root(repo)
    snapshot = fleet.snapshot(ctx, nodes, nodes_file)
    rules = catalog_rules()
    with (
        _side(revision(root, base, rules, folders=True), "--base") as old,
        _side(revision(root, head, rules, folders=True), "--head") as new,
    ):
        before = Index.build(snapshot)
        after = None
        changed = snapshot
        retired: list[str] = []
        added: list[str] = []
        try:
            for what in retire or []:
                changed, gone = diff.retire(changed, new.catalog, what)
                retired += gone
            for spec in add or []:
                changed, made = diff.add(changed, spec)
                added += made
        except Invalid as exc:
            hint = "'--retire'" if "--retire" in exc.message else "'--add'"
            raise typer.BadParameter(exc.message, param_hint=hint) from None
        if changed is not snapshot:
            after = Index.build(changed)
        result = diff.review(
            old.catalog,
            new.catalog,
            before,
            after,
            base_diagnostics=old.diagnostics,
            head_diagnostics=new.diagnostics,
            fleet=diff.Fleet(len(snapshot.nodes), len(changed.nodes), tuple(retired), tuple(added)),
            lb_replaced=lb_replaced(old.catalog, new.catalog),
            net_replaced=net_replaced(old.catalog, new.catalog),
        )
        result.nova.extend(fleet.nova_changes(old.catalog, new.catalog, nodes.cloud))
        gates = diff.tripped(result, conditions, strict=strict)
        labels = (old.label, new.label)
    if fmt is ReviewFormat.JSON:
        typer.echo(json.dumps(document(result, *labels, gates), indent=2))
    elif fmt is ReviewFormat.MARKDOWN:
        typer.echo(render.markdown(result, *labels, gates), nl=False)
    else:
        typer.echo(render.tables(result, gates), nl=False)
    for gate in gates:
        typer.echo(f"review: --fail-on {gate.condition}: {gate.detail}", err=True)
    if gates:
        raise typer.Exit(ExitCode.FAILURE)
    if detailed_exitcode and result.has_effects:
        raise typer.Exit(ExitCode.CHANGES)


@contextmanager
def _side(opened: AbstractContextManager[Revision], option: str) -> Iterator[Revision]:
    """A revision opened, its problem (an unknown ref, no Git) a usage error of ``option``."""
    with ExitStack() as stack:
        try:
            side = stack.enter_context(opened)
        except FlavorsmithError as exc:
            raise typer.BadParameter(exc.message, param_hint=f"'{option}'") from None
        yield side
