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
