"""The ``flavorsmith`` inspection hook of Ironic (entry point group ``ironic.inspection.hooks``):
runs inside Ironic's conductor after its own hooks, classifies the inventory the agent (or a
Redfish BMC) reported with the catalog, and updates the node: its resource class when exactly
one device type matches, and the traits the trait rule files own (every other trait stays).
The only module of Flavorsmith that imports Ironic; Ironic loads it, nothing else does.

Configuration, in Ironic's own files: ``[flavorsmith]catalog`` (the catalog repository, the
folder holding hardware/), else the ``FLAVORSMITH_CATALOG`` environment variable of Ironic's
process. The catalog is loaded once and again whenever one of its files changes. A missing
or broken catalog, or inventory it cannot read, never fails inspection: the hook logs why and
leaves the node as it is. Writes Ironic refuses fail inspection, as any hook's would.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from ironic import objects
from ironic.drivers.modules.inspector.hooks import base
from oslo_config import cfg

from flavorsmith.catalog.repo import Repository
from flavorsmith.catalog_rules import catalog_rules
from flavorsmith.classify.classification import classify
from flavorsmith.classify.inspection import parse
from flavorsmith.classify.update import node_update
from flavorsmith.errors import FlavorsmithError
from flavorsmith.extra_specs.factory import base_registry
from flavorsmith.inspection_hook.live_catalog import LiveCatalog

ENV = "FLAVORSMITH_CATALOG"
GROUP = "flavorsmith"
OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "catalog",
        help="The Flavorsmith catalog repository (the folder holding hardware/) the "
        f"flavorsmith inspection hook classifies nodes with. Default: ${ENV}.",
    ),
]
CONF = cfg.CONF
CONF.register_opts(OPTS, group=GROUP)
LOG = logging.getLogger("flavorsmith.inspection")


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """The options, for oslo-config-generator (``--namespace flavorsmith``)."""
    return [(GROUP, OPTS)]


def catalog_root() -> Path | None:
    """Where the catalog is: ``[flavorsmith]catalog``, else $FLAVORSMITH_CATALOG."""
    value = CONF[GROUP].catalog or os.environ.get(ENV)
    return Path(value) if value else None


class FlavorsmithHook(base.InspectionHook):
    """Resource class and owned traits from the catalog, with the reason for each."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._catalogs: dict[Path, LiveCatalog] = {}

    def _live(self, root: Path) -> LiveCatalog:
        with self._lock:
            if root not in self._catalogs:
                repository = Repository(root, catalog_rules(base_registry()))
                self._catalogs[root] = LiveCatalog(repository, LOG)
            return self._catalogs[root]

    def __call__(self, task: Any, inventory: dict[str, Any], plugin_data: dict[str, Any]) -> None:
        node = task.node
        root = catalog_root()
        if root is None:
            LOG.warning(
                "node %s: no catalog configured ([%s]catalog or $%s); left as it is",
                node.uuid,
                GROUP,
                ENV,
            )
            return
        live = self._live(root)
        catalog = live.current()
        if catalog is None:
            LOG.error("node %s: left as it is: %s", node.uuid, live.problem)
            return
        try:
            inspection = parse({"inventory": inventory, "plugin_data": plugin_data})
        except FlavorsmithError as exc:
            LOG.error("node %s: left as it is: %s", node.uuid, exc.message)
            return
        current = objects.TraitList.get_by_node_id(task.context, node.id).get_trait_names()
        result = classify(inspection, catalog, frozenset(current))
        update = node_update(
            result, node.resource_class, node=node.uuid, provision_state=node.provision_state
        )
        if update.refused is not None:
            LOG.error("node %s: left as it is: %s", node.uuid, update.refused)
            return
        for trait in update.remove:
            objects.Trait.destroy(task.context, node_id=node.id, trait=trait)
        for trait in update.add:
            objects.Trait(task.context, node_id=node.id, trait=trait).create()
        if update.resource_class is not None:
            node.resource_class = update.resource_class
            node.save()
        summary = []
        if update.resource_class is not None:
            summary.append(f"resource class {update.resource_class}")
        if update.add:
            summary.append(f"traits added {', '.join(update.add)}")
        if update.remove:
            summary.append(f"traits removed {', '.join(update.remove)}")
        LOG.info(
            "node %s classified (catalog %s): %s\n%s",
            node.uuid,
            root,
            "; ".join(summary) or "nothing to change",
            "\n".join(f"  {line}" for line in update.reasons),
        )
