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

# Under Keystone, Nova 34's own defaults (nova/policies/base.py and flavor_*.py): every flavor
# rule is project-scoped (a system-scoped token is refused); admins write; extra specs are
# read by a reader of the caller's own project; flavor list and show have no rule at all (any
# token reads public flavors and the private ones shared with its project).
NOVA_ADMIN = "rule:context_is_admin"
NOVA_READER = "rule:project_reader_or_admin"
PROJECT = ("project",)

KEYSTONE_POLICIES = [
    RuleDefault("context_is_admin", "role:admin", "Who is an admin (Nova's base rule)."),
    RuleDefault(
        "project_reader_api",
        "role:reader and project_id:%(project_id)s",
        "A reader of the object's project (Nova's base rule).",
    ),
    RuleDefault(
        "project_reader_or_admin",
        "rule:project_reader_api or rule:context_is_admin",
        "A reader of the object's project, or an admin (Nova's base rule).",
    ),
    *(
        RuleDefault(
            rule.name,
            NOVA_READER if rule.check == READER else NOVA_ADMIN,
            rule.description,
            PROJECT,
        )
        for rule in POLICIES
    ),
]
