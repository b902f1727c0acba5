"""``flavorsmith explain FLAVOR [NODE]``: why a boot of the flavor cannot land (on the node)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from flavorsmith.cli.ironic_source import fail, reading
from flavorsmith.cli.matching.inputs import load
from flavorsmith.cli.options import (
    NodeSource,
    RepoOption,
    ReportFormatOption,
    node_source,
    table_options,
)
from flavorsmith.cli.output import Format, ReportFormat, print_document, render_list
from flavorsmith.clients import placement
from flavorsmith.errors import NotFound
from flavorsmith.matching import reports
from flavorsmith.matching.diagnosis import DERIVED, Context

if TYPE_CHECKING:
    from flavorsmith.matching.diagnosis import Providers
    from flavorsmith.matching.snapshot import NodeInfo

REASON_COLUMNS = ["layer", "reason", "blocking", "detail"]
COUNT_COLUMNS = ["count", "reason"]


@table_options()
@node_source()
def explain(
    ctx: typer.Context,
    flavor: Annotated[
        str, typer.Argument(metavar="FLAVOR", help="The catalog flavor.", show_default=False)
    ],
    node: Annotated[
        str | None,
        typer.Argument(
            metavar="NODE", help="A node (name or UUID); without it, every node counted by reason."
        ),
    ] = None,
    project: Annotated[
        str | None,
        typer.Option(
            "--project",
            metavar="PROJECT",
            help="The project booting (checks a private flavor's access).",
        ),
    ] = None,
    repo: RepoOption = None,
    nodes: NodeSource = NodeSource(),
    output_format: ReportFormatOption = ReportFormat.TABLE,
) -> None:
    """Explain why the flavor cannot land on the node (catalog, Ironic, Placement, flavor
    access), or count the flavor's nodes by reason.

    With --cloud, nodes come from the cloud's Ironic and providers from its Placement (for
    one node, only that node's provider is read); otherwise Placement's view of each node is
    derived from the node as Nova's ironic driver reports it.

    \b
    Example:
      flavorsmith explain g1.8xh100 xe9680-g01-u96
    """
    fmt = Format(output_format.value)

    catalog, index = load(ctx, repo, nodes)
    try:
        rule = reports.find_flavor(reports.rules_of(catalog), flavor)
        target = reports.find_node(index, node) if node is not None else None
    except NotFound as exc:
        fail(exc.message)
    context = Context(
        project=project,
        access=reports.access_of(catalog, rule.name),
        real_placement=nodes.cloud is not None,
    )
    if nodes.cloud is None:
        providers = DERIVED
    elif target is not None:
        providers = _one_provider(nodes.cloud, target)
    else:
        providers = _placement(nodes.cloud)
    result = (
        reports.explain_node(index, rule, target, context, providers)
        if target is not None
        else reports.explain_flavor(index, rule, context, providers)
    )
    if print_document(result, fmt):
        return
    if target is not None:
        _node_text(result, fmt)
    else:
        _flavor_text(result, fmt)


def _placement(cloud: str) -> Providers:
    """The providers of the cloud's Placement, by node UUID (Nova keys a bare-metal node's
    provider by the node's UUID); an unreachable Placement is one line, exit 1."""
    listed = reading(lambda: placement.reader(cloud).providers())
    by_uuid = {provider.uuid: provider for provider in listed}
    return lambda node: by_uuid.get(node.uuid)


def _one_provider(cloud: str, target: NodeInfo) -> Providers:
    """The node's own provider, read alone from the cloud's Placement (a few calls, however
    big the cloud); the other nodes, only counted for Nova's cap on candidates, have theirs
    derived from Ironic as Nova's ironic driver reports them."""
    own = reading(lambda: placement.reader(cloud).provider(target.uuid))
    return lambda node: own if node.uuid == target.uuid else DERIVED(node)


def _reason_rows(reasons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "layer": r["layer"],
            "reason": r["kind"],
            "blocking": "yes" if r["blocking"] else "no",
            "detail": r["detail"],
        }
        for r in reasons
    ]


def _node_text(result: dict[str, Any], fmt: Format) -> None:
    node = result["node"]
    label = node["name"] or node["uuid"]
    blocking = sum(1 for r in result["reasons"] if r["blocking"])
    if fmt is Format.TABLE:
        verdict = (
            "can land there"
            if result["schedulable"]
            else f"cannot land there ({blocking} blocking reason{'s' if blocking != 1 else ''})"
        )
        typer.echo(f"{result['flavor']} on {label}: {verdict}")
        typer.echo(f"Placement: {_placement_words(result)}")
    if result["reasons"]:
        typer.echo(render_list(_reason_rows(result["reasons"]), REASON_COLUMNS, fmt), nl=False)


def _flavor_text(result: dict[str, Any], fmt: Format) -> None:
    if fmt is Format.TABLE:
        typer.echo(f"{result['flavor']}: {result['summary']}")
        typer.echo(f"Placement: {_placement_words(result)}")
    rows = [{"count": c["count"], "reason": c["text"].split(" ", 1)[1]} for c in result["counts"]]
    typer.echo(render_list(rows, COUNT_COLUMNS, fmt), nl=False)
    if result["reasons"]:
        typer.echo(render_list(_reason_rows(result["reasons"]), REASON_COLUMNS, fmt), nl=False)


def _placement_words(result: dict[str, Any]) -> str:
    if result["placement"] == "real":
        return "read from the cloud's Placement"
    return "derived from each node as Nova's ironic driver reports it"
