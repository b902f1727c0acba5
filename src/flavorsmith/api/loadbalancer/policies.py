"""Octavia's policy rule names for providers, flavor profiles and flavors, with its defaults:
readers and members list and show flavors and providers; capabilities, profiles and flavor
writes are admin only. Resolution is open to readers and to a consuming service (Keystone's
``service`` role, as Octavia's ``service`` rule), but the profile behind a flavor (its flavor
data and what the driver expands it to, such as node names) only to admins and that service."""

from __future__ import annotations

from flavorsmith.api.policy import RuleDefault

ADMIN = "role:admin"
READ = "role:admin or role:reader or role:member or role:observer"
SERVICE = "role:service"
RESOLVE_PROFILE = "flavorsmith:service-flavor:resolve:profile"
P = "os_load-balancer_api"

POLICIES = [
    RuleDefault(f"{P}:provider:get_all", READ, "List enabled providers."),
    RuleDefault(f"{P}:provider-flavor:get_all", ADMIN, "List a provider's flavor capabilities."),
    RuleDefault(
        f"{P}:provider-availability-zone:get_all",
        ADMIN,
        "List a provider's availability zone capabilities (none here).",
    ),
    RuleDefault(f"{P}:flavor-profile:get_all", ADMIN, "List flavor profiles."),
    RuleDefault(f"{P}:flavor-profile:get_one", ADMIN, "Show a flavor profile."),
    RuleDefault(f"{P}:flavor-profile:post", ADMIN, "Create a flavor profile."),
    RuleDefault(f"{P}:flavor-profile:put", ADMIN, "Update a flavor profile."),
    RuleDefault(f"{P}:flavor-profile:delete", ADMIN, "Delete a flavor profile."),
    RuleDefault(f"{P}:flavor:get_all", READ, "List flavors."),
    RuleDefault(f"{P}:flavor:get_one", READ, "Show a flavor."),
    RuleDefault(f"{P}:flavor:post", ADMIN, "Create a flavor."),
    RuleDefault(f"{P}:flavor:put", ADMIN, "Update a flavor."),
    RuleDefault(f"{P}:flavor:delete", ADMIN, "Delete a flavor."),
    RuleDefault(
        "flavorsmith:service-flavor:resolve", f"{READ} or {SERVICE}", "Resolve a flavor for use."
    ),
    RuleDefault(
        RESOLVE_PROFILE,
        f"{ADMIN} or {SERVICE}",
        "See the profile in a resolution: its flavor data and expanded metadata.",
    ),
]

# Under Keystone, Octavia's defaults with Keystone's default roles (octavia/policies/
# keystone_default_roles.py and base.py, the 19 series): every rule is project-scoped;
# readers and members of the caller's project read flavors and providers, admins write;
# profiles and provider capabilities are admin only; ``service`` is Keystone's service role.
OCTAVIA_READ = "rule:load-balancer:read"
OCTAVIA_ADMIN = "rule:load-balancer:admin"
PROJECT = ("project",)


_OCTAVIA = {
    READ: OCTAVIA_READ,
    ADMIN: OCTAVIA_ADMIN,
    f"{READ} or {SERVICE}": f"{OCTAVIA_READ} or rule:service",
    f"{ADMIN} or {SERVICE}": f"{OCTAVIA_ADMIN} or rule:service",
}


KEYSTONE_POLICIES = [
    RuleDefault("project-member", "role:member and project_id:%(project_id)s", "", PROJECT),
    RuleDefault("project-reader", "role:reader and project_id:%(project_id)s", "", PROJECT),
    RuleDefault("load-balancer:owner", "project_id:%(project_id)s", "", PROJECT),
    RuleDefault("load-balancer:admin", "is_admin:True or role:admin", "", PROJECT),
    RuleDefault("service", "role:service", "Keystone's service role.", PROJECT),
    RuleDefault("load-balancer:global_observer", "role:admin", "", PROJECT),
    RuleDefault("load-balancer:member_and_owner", "rule:project-member", "", PROJECT),
    RuleDefault("load-balancer:observer_and_owner", "rule:project-reader", "", PROJECT),
    RuleDefault(
        "load-balancer:read",
        "rule:load-balancer:observer_and_owner or rule:load-balancer:global_observer or "
        "rule:load-balancer:member_and_owner or rule:load-balancer:admin",
        "Octavia's read access.",
        PROJECT,
    ),
    *(RuleDefault(r.name, _OCTAVIA[r.check], r.description, PROJECT) for r in POLICIES),
]
