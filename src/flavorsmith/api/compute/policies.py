"""Nova's policy rule names for flavors, with Nova's defaults (admin writes)."""

from __future__ import annotations

from flavorsmith.api.policy import RuleDefault

ADMIN = "role:admin"
READER = "role:reader"

POLICIES = [
    RuleDefault("os_compute_api:os-flavor-manage:create", ADMIN, "Create a flavor."),
    RuleDefault("os_compute_api:os-flavor-manage:update", ADMIN, "Update a flavor's description."),
    RuleDefault("os_compute_api:os-flavor-manage:delete", ADMIN, "Delete a flavor."),
    RuleDefault(
        "os_compute_api:os-flavor-extra-specs:index", READER, "List a flavor's extra specs."
    ),
    RuleDefault("os_compute_api:os-flavor-extra-specs:show", READER, "Show one extra spec."),
    RuleDefault("os_compute_api:os-flavor-extra-specs:create", ADMIN, "Set extra specs."),
    RuleDefault("os_compute_api:os-flavor-extra-specs:update", ADMIN, "Change one extra spec."),
    RuleDefault("os_compute_api:os-flavor-extra-specs:delete", ADMIN, "Remove one extra spec."),
    RuleDefault("os_compute_api:os-flavor-access", ADMIN, "List the projects of a private flavor."),
    RuleDefault(
        "os_compute_api:os-flavor-access:add_tenant_access",
        ADMIN,
        "Give a project a private flavor.",
    ),
    RuleDefault(
        "os_compute_api:os-flavor-access:remove_tenant_access", ADMIN, "Take a private flavor back."
    ),
]
