"""/load-balancer/v2/lbaas/flavors: readers list and show, admins write (Octavia's rules)."""

from __future__ import annotations

from typing import Any

from flavorsmith.api.loadbalancer.crud import Resource, router_for
from flavorsmith.api.loadbalancer.schemas import (
    FLAVOR_CREATE_BODY,
    FLAVOR_UPDATE_BODY,
    LB_FLAVOR,
)
from flavorsmith.providers import service
from flavorsmith.store import service_flavors as store

# What Octavia 19 takes (api/v2/types/flavors.py lines 43-58): no client-supplied id, and a
# flavor's profile is set once.
CREATE = frozenset({"name", "description", "enabled", "flavor_profile_id"})
UPDATE = frozenset({"name", "description", "enabled"})


def shown(row: dict[str, Any]) -> dict[str, Any]:
    """A flavor as Octavia 19 shows it: a null name or description is "" (stored NULL;
    api/common/types.py, from_db_obj)."""
    return {**row, "name": row["name"] or "", "description": row["description"] or ""}


FLAVORS = Resource(
    name="flavor",
    policy="os_load-balancer_api:flavor",
    kind="flavors",
    collection="flavors",
    member="flavor",
    links_key="flavors_links",
    fields=store.FLAVOR_FIELDS,
    schema=LB_FLAVOR,
    create_body=FLAVOR_CREATE_BODY,
    update_body=FLAVOR_UPDATE_BODY,
    create_fields=CREATE,
    update_fields=UPDATE,
    summaries=(
        "List flavors",
        "Show a flavor",
        "Create a flavor",
        "Update a flavor",
        "Delete a flavor",
    ),
    find=store.flavor,
    create=lambda c, shared, values: service.create_flavor(c, values),
    update=lambda c, shared, ident, values: service.update_flavor(c, ident, values),
    delete=service.delete_flavor,
    shown=shown,
)

router = router_for(FLAVORS)
