"""The scrape-time collectors of a running service (flavorsmith.metrics serves them next to
the recorded counters): the inventory gauges on the catalog the service serves."""

from __future__ import annotations

from prometheus_client.registry import Collector

from flavorsmith.api.services import Services
from flavorsmith.catalog.model import Catalog
from flavorsmith.diagnostics import has_errors
from flavorsmith.nodes.gauges import InventoryGauges


def collectors(services: Services) -> list[Collector]:
    def catalog() -> Catalog | None:
        view = services.catalog.view()
        return None if has_errors(view.diagnostics) else view.catalog

    return [InventoryGauges(services.index_cache, catalog)]
