"""/load-balancer/v2/lbaas/flavorprofiles: admin only, as in Octavia."""

from __future__ import annotations

from flavorsmith.api.loadbalancer.crud import Resource, router_for
from flavorsmith.api.loadbalancer.schemas import (
    PROFILE,
    PROFILE_CREATE_BODY,
    PROFILE_UPDATE_BODY,
)
from flavorsmith.providers import service
from flavorsmith.store import service_flavors as store

# What Octavia 19 takes (api/v2/types/flavor_profile.py lines 42-60): no client-supplied id.
CREATE = frozenset({"name", "provider_name", "flavor_data"})
UPDATE = CREATE

PROFILES = Resource(
    name="profile",
    policy="os_load-balancer_api:flavor-profile",
    kind="profiles",
    collection="flavorprofiles",
    member="flavorprofile",
    links_key="flavorprofile_links",
    fields=store.PROFILE_FIELDS,
    schema=PROFILE,
    create_body=PROFILE_CREATE_BODY,
    update_body=PROFILE_UPDATE_BODY,
    create_fields=CREATE,
    update_fields=UPDATE,
    summaries=(
        "List flavor profiles",
        "Show a flavor profile",
        "Create a flavor profile",
        "Update a flavor profile",
        "Delete an unused flavor profile",
    ),
    find=store.profile,
    # A profile's writes ask its provider's driver to validate it (502 when it fails).
    create=lambda c, shared, values: service.create_profile(c, shared.providers, values),
    update=lambda c, shared, ident, values: service.update_profile(
        c, shared.providers, ident, values
    ),
    delete=service.delete_profile,
    write_errors=(502,),
    delete_errors=(409,),  # a profile a flavor uses
)

router = router_for(PROFILES)
