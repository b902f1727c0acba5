"""Ironic's policy rule names for nodes, traits, deploy templates and runbooks, with two sets
of defaults.

``POLICIES`` (noauth and static tokens, which know no scopes): readers read, admins write.

``KEYSTONE_POLICIES``: Ironic 39's own defaults (ironic/common/policy.py), for Keystone tokens:
system readers, members and admins, plus a node's owner and lessee projects (``node.owner``
and ``node.lessee`` in the target); a project-scoped caller lists only the nodes its project
owns or leases and gets 404 for any other node; a project admin may create a node owned by
its own project and delete the nodes it owns. ``rule:service_role`` needs Ironic's
``rbac_service_role_elevated_access``, off by default, so it never matches here either.
"""

from __future__ import annotations

from flavorsmith.api.policy import RuleDefault

READ = "role:reader"
WRITE = "role:admin"

# Patch paths with their own rule, as Ironic checks them (any other path: node:update).
PATCH_RULES = (
    ("/instance_info", "baremetal:node:update_instance_info"),
    ("/extra", "baremetal:node:update_extra"),
    ("/driver_info", "baremetal:node:update:driver_info"),
    ("/properties", "baremetal:node:update:properties"),
    ("/chassis_uuid", "baremetal:node:update:chassis_uuid"),
    ("/instance_uuid", "baremetal:node:update:instance_uuid"),
    ("/lessee", "baremetal:node:update:lessee"),
    ("/owner", "baremetal:node:update:owner"),
    ("/driver", "baremetal:node:update:driver_interfaces"),
    ("/network_data", "baremetal:node:update:network_data"),
    ("/conductor_group", "baremetal:node:update:conductor_group"),
    ("/name", "baremetal:node:update:name"),
    ("/retired", "baremetal:node:update:retired"),
)
FIELD_RULES = tuple(dict.fromkeys(rule for _, rule in PATCH_RULES))

POLICIES = [
    RuleDefault("baremetal:node:list", READ, "List nodes."),
    RuleDefault("baremetal:node:list_all", READ, "List every node, whoever owns it."),
    RuleDefault("baremetal:node:get", READ, "Show a node."),
    RuleDefault("baremetal:node:create", WRITE, "Create a node."),
    RuleDefault(
        "baremetal:node:create:self_owned_node",
        "!",
        "Create a node owned by the caller's project (needs Keystone's project scope).",
    ),
    RuleDefault("baremetal:node:update", WRITE, "Update a node (JSON patch)."),
    *(RuleDefault(rule, WRITE, "Update this node field.") for rule in FIELD_RULES),
    RuleDefault("baremetal:node:delete", WRITE, "Delete a node."),
    RuleDefault(
        "baremetal:node:delete:self_owned_node",
        "!",
        "Delete a node the caller's project owns (needs Keystone's project scope).",
    ),
    RuleDefault("baremetal:node:validate", READ, "Validate a node's interfaces."),
    RuleDefault("baremetal:node:set_maintenance", WRITE, "Put a node in maintenance."),
    RuleDefault("baremetal:node:clear_maintenance", WRITE, "Take a node out of maintenance."),
    RuleDefault("baremetal:node:traits:list", READ, "List a node's traits."),
    RuleDefault("baremetal:node:traits:set", WRITE, "Set or add a node's traits."),
    RuleDefault("baremetal:node:traits:delete", WRITE, "Remove a node's traits."),
]

# Ironic 39's personas, as its policy.py spells them.
SYSTEM_ADMIN = "role:admin and system_scope:all"
SYSTEM_MEMBER = "(role:member and system_scope:all) or rule:service_role"
SYSTEM_READER = (
    "(role:reader and system_scope:all) or (role:service and system_scope:all) or rule:service_role"
)
SYSTEM_SERVICE = "role:service and system_scope:all"
OWNER_OR_LESSEE = "(project_id:%(node.owner)s or project_id:%(node.lessee)s)"
PROJECT_MEMBER = f"role:member and {OWNER_OR_LESSEE}"
PROJECT_READER = f"role:reader and {OWNER_OR_LESSEE}"
PROJECT_SERVICE = "role:service and project_id:%(node.owner)s"
OWNER_ADMIN = "role:admin and project_id:%(node.owner)s"
OWNER_MANAGER = "role:manager and project_id:%(node.owner)s"
OWNER_MEMBER = "role:member and project_id:%(node.owner)s"
LESSEE_ADMIN = "role:admin and project_id:%(node.lessee)s"
LESSEE_MANAGER = "role:manager and project_id:%(node.lessee)s"


def _any(*checks: str) -> str:
    return " or ".join(f"({check})" for check in checks)


SYSTEM_OR_PROJECT_MEMBER = _any(SYSTEM_MEMBER, PROJECT_MEMBER, SYSTEM_SERVICE)
SYSTEM_OR_PROJECT_READER = _any(SYSTEM_READER, PROJECT_READER, PROJECT_SERVICE)
SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN = _any(
    SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_MEMBER, LESSEE_ADMIN, LESSEE_MANAGER, PROJECT_SERVICE
)
SYSTEM_MEMBER_OR_OWNER_ADMIN = _any(
    SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_ADMIN, OWNER_MANAGER, PROJECT_SERVICE
)
SYSTEM_MEMBER_OR_OWNER_MEMBER = _any(SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_MEMBER, PROJECT_SERVICE)
SCOPES = ("system", "project")

# Ironic 39's runbook personas: a runbook's owner project (``runbook.owner`` in the target).
RUNBOOK_OWNER_MANAGER = "role:manager and project_id:%(runbook.owner)s"
RUNBOOK_OWNER_READER = "role:reader and project_id:%(runbook.owner)s"
RUNBOOK_ADMIN = f"({SYSTEM_MEMBER}) or ({RUNBOOK_OWNER_MANAGER}) or role:service"
RUNBOOK_READER = f"({SYSTEM_READER}) or ({RUNBOOK_OWNER_READER}) or role:service"
RUNBOOK_CREATOR = f"({SYSTEM_MEMBER}) or role:manager or role:service"
API_READER = "(role:reader) or (role:service)"

_IRONIC = {
    "baremetal:node:list": "(role:reader) or (role:service)",
    "baremetal:node:list_all": SYSTEM_READER,
    "baremetal:node:get": SYSTEM_OR_PROJECT_READER,
    "baremetal:node:create": _any(SYSTEM_ADMIN, SYSTEM_SERVICE),
    "baremetal:node:create:self_owned_node": "(role:admin) or (role:service)",
    "baremetal:node:update": SYSTEM_OR_PROJECT_MEMBER,
    "baremetal:node:update_extra": SYSTEM_OR_PROJECT_MEMBER,
    "baremetal:node:update_instance_info": SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
    "baremetal:node:update:driver_info": SYSTEM_MEMBER_OR_OWNER_MEMBER,
    "baremetal:node:update:properties": SYSTEM_MEMBER_OR_OWNER_MEMBER,
    "baremetal:node:update:chassis_uuid": SYSTEM_ADMIN,
    "baremetal:node:update:instance_uuid": SYSTEM_MEMBER_OR_OWNER_MEMBER,
    "baremetal:node:update:lessee": SYSTEM_MEMBER_OR_OWNER_MEMBER,
    "baremetal:node:update:owner": SYSTEM_MEMBER,
    "baremetal:node:update:driver_interfaces": SYSTEM_MEMBER_OR_OWNER_ADMIN,
    "baremetal:node:update:network_data": SYSTEM_MEMBER_OR_OWNER_MEMBER,
    "baremetal:node:update:conductor_group": SYSTEM_MEMBER,
    "baremetal:node:update:name": SYSTEM_MEMBER_OR_OWNER_MEMBER,
    "baremetal:node:update:retired": SYSTEM_MEMBER_OR_OWNER_MEMBER,
    "baremetal:node:delete": SYSTEM_ADMIN,
    "baremetal:node:delete:self_owned_node": "role:admin and project_id:%(node.owner)s",
    "baremetal:node:validate": SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
    "baremetal:node:set_maintenance": SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
    "baremetal:node:clear_maintenance": SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
    "baremetal:node:traits:list": SYSTEM_OR_PROJECT_READER,
    "baremetal:node:traits:set": SYSTEM_MEMBER_OR_OWNER_ADMIN,
    "baremetal:node:traits:delete": SYSTEM_MEMBER_OR_OWNER_ADMIN,
    "baremetal:deploy_template:get": SYSTEM_READER,
    "baremetal:deploy_template:create": SYSTEM_ADMIN,
    "baremetal:deploy_template:update": SYSTEM_ADMIN,
    "baremetal:deploy_template:delete": SYSTEM_ADMIN,
    "baremetal:runbook:get": RUNBOOK_READER,
    "baremetal:runbook:list": API_READER,
    "baremetal:runbook:list_all": SYSTEM_READER,
    "baremetal:runbook:create": RUNBOOK_CREATOR,
    "baremetal:runbook:update": RUNBOOK_ADMIN,
    "baremetal:runbook:update:public": SYSTEM_MEMBER,
    "baremetal:runbook:update:owner": SYSTEM_MEMBER,
    "baremetal:runbook:delete": RUNBOOK_ADMIN,
}


def keystone_policies(simple: list[RuleDefault]) -> list[RuleDefault]:
    """Ironic's defaults for the rules in ``simple`` (this module's, the deploy templates' and
    the runbooks'), with ``service_role`` they refer to."""
    service_role = RuleDefault(
        "service_role",
        "role:service and project_name:%(config.service_project_name)s",
        "Ironic's elevated service role (off unless config.service_project_name is set).",
    )
    return [
        service_role,
        *(RuleDefault(r.name, _IRONIC[r.name], r.description, SCOPES) for r in simple),
    ]


def node_target(row: dict[str, object]) -> dict[str, object]:
    """What Ironic's node rules read: the node's owner and lessee."""
    return {"node.owner": row.get("owner"), "node.lessee": row.get("lessee")}


def patch_rules(patch: object) -> list[str]:
    """The rules a JSON patch needs, as Ironic picks them: each path's own rule, and
    node:update for any path without one (or an empty patch)."""
    rules: list[str] = []
    generic = False
    operations = patch if isinstance(patch, list) else []
    for operation in operations:
        path = operation.get("path") if isinstance(operation, dict) else None
        found = next(
            (
                rule
                for prefix, rule in PATCH_RULES
                if isinstance(path, str) and path.startswith(prefix)
            ),
            None,
        )
        if found is None:
            generic = True
        elif found not in rules:
            rules.append(found)
    if generic or not rules:
        rules.append("baremetal:node:update")
    return rules
