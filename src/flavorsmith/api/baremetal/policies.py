"""Ironic's policy rule names for nodes and traits, with this service's defaults."""

from __future__ import annotations

from flavorsmith.api.policy import RuleDefault

READ = "role:reader"
WRITE = "role:admin"

POLICIES = [
    RuleDefault("baremetal:node:list", READ, "List nodes."),
    RuleDefault("baremetal:node:get", READ, "Show a node."),
    RuleDefault("baremetal:node:create", WRITE, "Create a node."),
    RuleDefault("baremetal:node:update", WRITE, "Update a node (JSON patch)."),
    RuleDefault("baremetal:node:delete", WRITE, "Delete a node."),
    RuleDefault("baremetal:node:validate", READ, "Validate a node's interfaces."),
    RuleDefault("baremetal:node:set_maintenance", WRITE, "Put a node in maintenance."),
    RuleDefault("baremetal:node:clear_maintenance", WRITE, "Take a node out of maintenance."),
    RuleDefault("baremetal:node:traits:list", READ, "List a node's traits."),
    RuleDefault("baremetal:node:traits:set", WRITE, "Set or add a node's traits."),
    RuleDefault("baremetal:node:traits:delete", WRITE, "Remove a node's traits."),
]
