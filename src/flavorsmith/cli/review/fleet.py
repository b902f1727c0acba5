"""The fleet ``review`` matches both revisions against, read once: the service's database, a
real Ironic (``--cloud`` / ``--ironic-endpoint``), or a nodes file; and the Nova changes the
sync plan would make, with the servers a real Nova counts on the flavors it would replace or
delete."""

from __future__ import annotations

import uuid as uuidlib
from pathlib import Path
from typing import Any

import typer

from flavorsmith import jsonsafe
from flavorsmith.catalog.document import parse
from flavorsmith.catalog.load import display_path
from flavorsmith.catalog.model import Catalog
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.options import NodeSource
from flavorsmith.cli.report import emit
from flavorsmith.errors import FlavorsmithError
from flavorsmith.ironic.nodes import SCHEDULING_FIELDS
from flavorsmith.matching.snapshot import Snapshot, from_records
from flavorsmith.nodes import importer
from flavorsmith.sync.review import nova_changes as changes


def snapshot(ctx: typer.Context, nodes: NodeSource, nodes_file: Path | None) -> Snapshot:
    """The nodes of the one source given (default: the service's database)."""
    given = [nodes.database, nodes.cloud or nodes.ironic_endpoint, nodes_file]
    if sum(x is not None for x in given) > 1:
        raise typer.BadParameter(
            "give one node source: --database, --cloud / --ironic-endpoint, or --nodes",
            param_hint="'--nodes'",
        )
    if nodes_file is not None:
        return read_nodes(nodes_file)
    # Loaded only for a real Ironic: openstacksdk is a good part of a second to import.
    from flavorsmith.cli.ironic_source import ironic_nodes, reading

    source = ironic_nodes(nodes.cloud, nodes.ironic_endpoint)
    if source is not None:
        return from_records(reading(lambda: source.nodes(SCHEDULING_FIELDS)))
    from flavorsmith.cli.node.database import open_database
    from flavorsmith.db.engine import consistent
    from flavorsmith.store import nodes as node_store

    engine = open_database(nodes.database, ctx)
    with consistent(engine).begin() as connection:
        return node_store.snapshot(connection)


def read_nodes(path: Path) -> Snapshot:
    """A node file as ``node import`` reads it (an inventory, or what Ironic prints), as the
    nodes that import would create: a node without a UUID gets one made from its name."""
    shown = display_path(path)
    raw = path.read_bytes()
    parsed = None
    if path.suffix.lower() == ".json":  # JSON parses fastest; the positions only on a problem
        try:
            parsed = importer.parse(jsonsafe.loads(raw, what=shown))
        except FlavorsmithError:
            parsed = None
    if parsed is None or parsed.problems:
        doc, diagnostics = parse(raw, shown, max_bytes=None)
        parsed = importer.parse(doc.data) if doc is not None else None
        if doc is None or parsed is None or parsed.problems:
            if doc is not None and parsed is not None:
                diagnostics = importer.diagnostics(doc, parsed.problems)
            emit(diagnostics, err=True)
            typer.echo(f"error: {shown} cannot be read as nodes", err=True)
            raise typer.Exit(ExitCode.FAILURE)
    records: list[dict[str, Any]] = []
    for spec in parsed.specs:
        values = spec.values
        made = str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"flavorsmith-node:{spec.label}"))
        records.append(
            {
                "uuid": spec.uuid or made,
                "name": spec.name,
                "resource_class": values.get("resource_class"),
                "traits": list(spec.traits or ()),
                "provision_state": values.get("provision_state", "available"),
                "power_state": values.get("power_state"),
                "maintenance": values.get("maintenance", False),
                "instance_uuid": values.get("instance_uuid"),
                "owner": values.get("owner"),
                "lessee": values.get("lessee"),
            }
        )
    return from_records(records)


def nova_changes(base: Catalog, head: Catalog, cloud: str | None) -> list[dict[str, Any]]:
    """What ``sync plan --prune`` would write into a Nova that holds base's flavors to make
    it hold head's; with ``cloud``, the servers that use each flavor it replaces or deletes."""
    found = changes(base, head)
    if cloud is None or not any(e["action"] in ("delete", "replace") for e in found):
        return found
    from flavorsmith.cli.ironic_source import reading
    from flavorsmith.clients import cloud as clouds
    from flavorsmith.clients.nova import NovaTarget

    counter = NovaTarget(reading(lambda: clouds.connect(cloud, "compute")))
    return changes(base, head, counter.servers_using)
