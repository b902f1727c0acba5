"""The table: every operation of the app, keyed by (method, path without a trailing slash),
with its success answers, query parameters, request body and error statuses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from flavorsmith.api.baremetal import conductor as bm_conductor
from flavorsmith.api.baremetal import nodes as bm_nodes
from flavorsmith.api.compute import flavors as nova_flavors
from flavorsmith.api.openapi.schemas import (
    ANY_OBJECT,
    BOOLEAN,
    JSON_PATCH_BODY,
    LINKS,
    QUERY_BOOL,
    QUERY_LIMIT,
    UUID,
    Schema,
    array,
    nullable,
    obj,
    string,
)
from flavorsmith.api.openapi.shapes import (
    ACCESS_ACTION,
    ACCESS_LIST,
    CAPABILITY,
    CATALOG_SUMMARY,
    EXPLAIN_FLAVOR,
    EXPLAIN_NODE,
    EXTRA_SPECS,
    EXTRA_SPECS_BODY,
    FIELDS_LIST,
    IRONIC_VERSION,
    LB_FLAVOR,
    LB_FLAVOR_WRITE_TYPES,
    LOGIN,
    LOGIN_BODY,
    NODE,
    NODE_CREATE,
    NODE_DETAIL_PARAMS,
    NODE_LIST,
    NODE_QUERY_TYPES,
    NOVA_BRIEF,
    NOVA_FLAVOR,
    NOVA_FLAVOR_CREATE,
    NOVA_FLAVOR_UPDATE,
    NOVA_LIST_QUERY,
    NOVA_VERSION,
    OCTAVIA_FIELDS,
    PROFILE,
    PROFILE_WRITE_TYPES,
    RESOLVED,
    ROOT_DOC,
    SPEC_VALUE,
    SYNC_ROUND,
    TEMPLATE,
    TEMPLATE_CREATE,
    TEMPLATE_QUERY,
    TRAIT,
    VALIDATION,
    octavia_list,
    octavia_list_query,
    wrapped,
)
from flavorsmith.extra_specs.registry import MODE_ALIASES, MODES
from flavorsmith.providers import service as provider_service
from flavorsmith.store import service_flavors as provider_store


@dataclass(frozen=True)
class Operation:
    """One operation: its success responses, query parameters, body and error statuses."""

    summary: str
    ok: Mapping[int, Schema | None]  # status -> JSON body schema (None: no body)
    query: Mapping[str, Schema] = field(default_factory=dict)
    body: Schema | None = None
    body_required: bool = True
    patch: bool = False  # the body is a JSON patch: application/json-patch+json too
    errors: tuple[int, ...] = ()
    query_array: tuple[str, ...] = ()  # query parameters that may repeat (Octavia's fields)


def _params(names: tuple[str, ...] | set[str] | list[str], types: Mapping[str, Schema]) -> Schema:
    return {name: types.get(name, string()) for name in sorted(names)}


# --- the table

READ = (400, 401, 403)
WRITE = (400, 401, 403, 413, 415)
IRONIC_READ = (*READ, 406)
IRONIC_WRITE = (*WRITE, 406)
NOVA_READ = (*READ, 406)
NOVA_WRITE = (*WRITE, 406)


SYNC_QUERY: dict[str, Schema] = {
    "prune": QUERY_BOOL,
    "allow_empty": QUERY_BOOL,  # let a prune delete every managed object of the kind
    "only": string(enum=["flavors", "deploy-templates"]),
}


def _operations() -> dict[tuple[str, str], Operation]:
    node_list_query = _params(bm_nodes.LIST_PARAMS, NODE_QUERY_TYPES)
    node_detail_query = _params(NODE_DETAIL_PARAMS, NODE_QUERY_TYPES)
    fields = {"fields": FIELDS_LIST}
    ops: dict[tuple[str, str], Operation] = {
        ("GET", "/"): Operation(
            "The APIs this service serves, and where to find this document",
            {200: ROOT_DOC},
        ),
        ("GET", "/healthz"): Operation(
            "Liveness", {200: obj({"status": string()}, required=("status",))}
        ),
        ("GET", "/readyz"): Operation(
            "Readiness: the database answers, its migrations are current, the catalog is "
            "usable, a mirrored Ironic has been loaded once and the first warming of the "
            "caches (the match index, the matrix's groups, the drift report) has finished",
            {200: obj({"status": string()}, required=("status",))},
        ),
        ("GET", "/v1"): Operation("The Flavorsmith API's version document", {200: ANY_OBJECT}),
        # Ironic
        ("GET", "/baremetal"): Operation(
            "Ironic's API versions",
            {200: obj({"default_version": IRONIC_VERSION, "versions": array(IRONIC_VERSION)})},
            errors=(406,),
        ),
        ("GET", "/baremetal/v1"): Operation(
            "Ironic's v1 document",
            {200: obj({"id": string(), "links": LINKS}, required=("id", "links"))},
            errors=(406,),
        ),
        ("GET", "/baremetal/v1/nodes"): Operation(
            "List nodes", {200: NODE_LIST}, query=node_list_query, errors=IRONIC_READ
        ),
        ("GET", "/baremetal/v1/nodes/detail"): Operation(
            "List nodes with every field",
            {200: NODE_LIST},
            query=node_detail_query,
            errors=IRONIC_READ,
        ),
        ("POST", "/baremetal/v1/nodes"): Operation(
            "Enroll a node", {201: NODE}, body=NODE_CREATE, errors=(*IRONIC_WRITE, 409)
        ),
        ("GET", "/baremetal/v1/nodes/{ident}"): Operation(
            "Show a node (by UUID, or by name from 1.5)",
            {200: NODE},
            query=fields,
            errors=(*IRONIC_READ, 404),
        ),
        ("PATCH", "/baremetal/v1/nodes/{ident}"): Operation(
            "Update a node with a JSON patch",
            {200: NODE},
            body=JSON_PATCH_BODY,
            patch=True,
            errors=(*IRONIC_WRITE, 404, 409),
        ),
        ("DELETE", "/baremetal/v1/nodes/{ident}"): Operation(
            "Delete a node", {204: None}, errors=(*IRONIC_READ, 404, 409)
        ),
        ("GET", "/baremetal/v1/nodes/{ident}/validate"): Operation(
            "Validate a node's interfaces", {200: VALIDATION}, errors=(*IRONIC_READ, 404)
        ),
        ("PUT", "/baremetal/v1/nodes/{ident}/maintenance"): Operation(
            "Put a node in maintenance, with an optional reason (202, no body)",
            {202: None},
            query={"reason": string()},
            body=obj({"reason": nullable(string())}, additional=False),
            body_required=False,
            errors=(*IRONIC_WRITE, 404, 409),
        ),
        ("DELETE", "/baremetal/v1/nodes/{ident}/maintenance"): Operation(
            "Take a node out of maintenance (202, no body)",
            {202: None},
            errors=(*IRONIC_READ, 404, 409),
        ),
        ("GET", "/baremetal/v1/nodes/{ident}/traits"): Operation(
            "List a node's traits (from 1.37)",
            {200: obj({"traits": array(string())}, required=("traits",), additional=False)},
            errors=(*IRONIC_READ, 404),
        ),
        ("PUT", "/baremetal/v1/nodes/{ident}/traits"): Operation(
            "Replace a node's traits",
            {204: None},
            body=obj({"traits": array(TRAIT, maxItems=50)}, required=("traits",), additional=False),
            errors=(*IRONIC_WRITE, 404, 409),
        ),
        ("DELETE", "/baremetal/v1/nodes/{ident}/traits"): Operation(
            "Remove all of a node's traits", {204: None}, errors=(*IRONIC_READ, 404, 409)
        ),
        ("PUT", "/baremetal/v1/nodes/{ident}/traits/{trait}"): Operation(
            "Add one trait", {204: None}, errors=(*IRONIC_READ, 404, 409)
        ),
        ("DELETE", "/baremetal/v1/nodes/{ident}/traits/{trait}"): Operation(
            "Remove one trait", {204: None}, errors=(*IRONIC_READ, 404, 409)
        ),
        ("GET", "/baremetal/v1/deploy_templates"): Operation(
            "List deploy templates (from 1.55)",
            {
                200: obj(
                    {"deploy_templates": array(TEMPLATE), "next": string()},
                    required=("deploy_templates",),
                    additional=False,
                )
            },
            query=TEMPLATE_QUERY,
            errors=(*IRONIC_READ, 404),
        ),
        ("POST", "/baremetal/v1/deploy_templates"): Operation(
            "Create a deploy template",
            {201: TEMPLATE},
            body=TEMPLATE_CREATE,
            errors=(*IRONIC_WRITE, 405, 409),
        ),
        ("GET", "/baremetal/v1/deploy_templates/{ident}"): Operation(
            "Show a deploy template (by UUID or name)",
            {200: TEMPLATE},
            query=fields,
            errors=(*IRONIC_READ, 404),
        ),
        ("PATCH", "/baremetal/v1/deploy_templates/{ident}"): Operation(
            "Update a deploy template with a JSON patch",
            {200: TEMPLATE},
            body=JSON_PATCH_BODY,
            patch=True,
            errors=(*IRONIC_WRITE, 404, 405, 409),
        ),
        ("DELETE", "/baremetal/v1/deploy_templates/{ident}"): Operation(
            "Delete a deploy template", {204: None}, errors=(*IRONIC_READ, 404, 405)
        ),
        # Nova
        ("GET", "/compute"): Operation(
            "Nova's API versions", {200: obj({"versions": array(NOVA_VERSION)})}
        ),
        ("GET", "/compute/v2.1"): Operation(
            "Nova's v2.1 document",
            {200: obj({"version": NOVA_VERSION}, required=("version",))},
            errors=(400, 406),
        ),
        ("GET", "/compute/v2.1/flavors"): Operation(
            "List flavors",
            {
                200: obj(
                    {"flavors": array(NOVA_BRIEF), "flavors_links": LINKS},
                    required=("flavors",),
                    additional=False,
                )
            },
            query=_params(nova_flavors.LIST_PARAMS, NOVA_LIST_QUERY),
            errors=NOVA_READ,
        ),
        ("GET", "/compute/v2.1/flavors/detail"): Operation(
            "List flavors with every field",
            {
                200: obj(
                    {"flavors": array(NOVA_FLAVOR), "flavors_links": LINKS},
                    required=("flavors",),
                    additional=False,
                )
            },
            query=_params(nova_flavors.LIST_PARAMS, NOVA_LIST_QUERY),
            errors=NOVA_READ,
        ),
        ("POST", "/compute/v2.1/flavors"): Operation(
            "Create a flavor",
            {200: obj({"flavor": NOVA_FLAVOR}, required=("flavor",), additional=False)},
            body=NOVA_FLAVOR_CREATE,
            errors=(*NOVA_WRITE, 409),
        ),
        ("GET", "/compute/v2.1/flavors/{flavorid}"): Operation(
            "Show a flavor",
            {200: obj({"flavor": NOVA_FLAVOR}, required=("flavor",), additional=False)},
            errors=(*NOVA_READ, 404),
        ),
        ("PUT", "/compute/v2.1/flavors/{flavorid}"): Operation(
            "Update a flavor's description (from 2.55)",
            {200: obj({"flavor": NOVA_FLAVOR}, required=("flavor",), additional=False)},
            body=NOVA_FLAVOR_UPDATE,
            errors=(*NOVA_WRITE, 404),
        ),
        ("DELETE", "/compute/v2.1/flavors/{flavorid}"): Operation(
            "Delete a flavor", {202: None}, errors=(*NOVA_READ, 404, 409)
        ),
        ("GET", "/compute/v2.1/flavors/{flavorid}/os-extra_specs"): Operation(
            "List a flavor's extra specs",
            {200: obj({"extra_specs": EXTRA_SPECS}, required=("extra_specs",), additional=False)},
            errors=(*NOVA_READ, 404),
        ),
        ("POST", "/compute/v2.1/flavors/{flavorid}/os-extra_specs"): Operation(
            "Set extra specs (merged with the flavor's)",
            {200: obj({"extra_specs": EXTRA_SPECS}, required=("extra_specs",), additional=False)},
            query={"validation": string(enum=[*MODES, *MODE_ALIASES])},
            body=EXTRA_SPECS_BODY,
            errors=(*NOVA_WRITE, 404, 409),
        ),
        ("GET", "/compute/v2.1/flavors/{flavorid}/os-extra_specs/{key}"): Operation(
            "Show one extra spec", {200: EXTRA_SPECS}, errors=(*NOVA_READ, 404)
        ),
        ("PUT", "/compute/v2.1/flavors/{flavorid}/os-extra_specs/{key}"): Operation(
            "Set one extra spec: the body holds exactly the key in the path",
            {200: EXTRA_SPECS},
            query={"validation": string(enum=[*MODES, *MODE_ALIASES])},
            body=obj(additional=SPEC_VALUE) | {"minProperties": 1, "maxProperties": 1},
            errors=(*NOVA_WRITE, 404, 409),
        ),
        ("DELETE", "/compute/v2.1/flavors/{flavorid}/os-extra_specs/{key}"): Operation(
            "Remove one extra spec", {200: None}, errors=(*NOVA_READ, 404, 409)
        ),
        ("GET", "/compute/v2.1/flavors/{flavorid}/os-flavor-access"): Operation(
            "List the projects of a private flavor", {200: ACCESS_LIST}, errors=(*NOVA_READ, 404)
        ),
        ("POST", "/compute/v2.1/flavors/{flavorid}/action"): Operation(
            "addTenantAccess or removeTenantAccess",
            {200: ACCESS_LIST},
            body=ACCESS_ACTION,
            errors=(*NOVA_WRITE, 404, 409),
        ),
        # Octavia
        ("GET", "/load-balancer"): Operation(
            "Octavia's API versions", {200: obj({"versions": array(ANY_OBJECT)})}
        ),
    }
    for root in ("/load-balancer/v2", "/load-balancer/v2.0"):
        lbaas = f"{root}/lbaas"
        profile_create = wrapped(
            "flavorprofile",
            PROFILE_WRITE_TYPES,
            provider_service.PROFILE_CREATE,
            ("name", "provider_name", "flavor_data"),
        )
        profile_update = wrapped(
            "flavorprofile", PROFILE_WRITE_TYPES, provider_service.PROFILE_UPDATE, ()
        )
        flavor_create = wrapped(
            "flavor",
            LB_FLAVOR_WRITE_TYPES,
            provider_service.FLAVOR_CREATE,
            ("name", "flavor_profile_id"),
        )
        flavor_update = wrapped("flavor", LB_FLAVOR_WRITE_TYPES, provider_service.FLAVOR_UPDATE, ())
        ops |= {
            ("GET", root): Operation('Octavia\'s v2 document (the string "v2")', {200: string()}),
            ("GET", f"{lbaas}/providers"): Operation(
                "List enabled providers",
                {200: obj({"providers": array(CAPABILITY)}, required=("providers",))},
                query=OCTAVIA_FIELDS,
                errors=READ,
                query_array=("fields",),
            ),
            ("GET", f"{lbaas}/providers/{{provider}}/flavor_capabilities"): Operation(
                "List a provider's flavor capabilities",
                {
                    200: obj(
                        {"flavor_capabilities": array(CAPABILITY)},
                        required=("flavor_capabilities",),
                    )
                },
                query={**OCTAVIA_FIELDS, "name": string(), "description": string()},
                errors=READ,
                query_array=("fields",),
            ),
            ("GET", f"{lbaas}/providers/{{provider}}/availability_zone_capabilities"): Operation(
                "List a provider's availability zone capabilities (none)",
                {
                    200: obj(
                        {"availability_zone_capabilities": array(CAPABILITY)},
                        required=("availability_zone_capabilities",),
                    )
                },
                query={**OCTAVIA_FIELDS, "name": string(), "description": string()},
                errors=READ,
                query_array=("fields",),
            ),
            ("GET", f"{lbaas}/flavorprofiles"): Operation(
                "List flavor profiles",
                {200: octavia_list("flavorprofiles", PROFILE)},
                query=octavia_list_query(provider_store.PROFILE_FIELDS),
                errors=(*READ, 404),
                query_array=("fields",),
            ),
            ("POST", f"{lbaas}/flavorprofiles"): Operation(
                "Create a flavor profile",
                {201: obj({"flavorprofile": PROFILE}, required=("flavorprofile",))},
                body=profile_create,
                errors=(*WRITE, 409, 502),
            ),
            ("GET", f"{lbaas}/flavorprofiles/{{ident}}"): Operation(
                "Show a flavor profile",
                {200: obj({"flavorprofile": PROFILE}, required=("flavorprofile",))},
                query={"fields": array(string(enum=list(provider_store.PROFILE_FIELDS)))},
                errors=(*READ, 404),
                query_array=("fields",),
            ),
            ("PUT", f"{lbaas}/flavorprofiles/{{ident}}"): Operation(
                "Update a flavor profile",
                {200: obj({"flavorprofile": PROFILE}, required=("flavorprofile",))},
                body=profile_update,
                errors=(*WRITE, 404, 409, 502),
            ),
            ("DELETE", f"{lbaas}/flavorprofiles/{{ident}}"): Operation(
                "Delete an unused flavor profile", {204: None}, errors=(*READ, 404, 409)
            ),
            ("GET", f"{lbaas}/flavors"): Operation(
                "List flavors",
                {200: octavia_list("flavors", LB_FLAVOR)},
                query=octavia_list_query(provider_store.FLAVOR_FIELDS),
                errors=(*READ, 404),
                query_array=("fields",),
            ),
            ("POST", f"{lbaas}/flavors"): Operation(
                "Create a flavor",
                {201: obj({"flavor": LB_FLAVOR}, required=("flavor",))},
                body=flavor_create,
                errors=(*WRITE, 409),
            ),
            ("GET", f"{lbaas}/flavors/{{ident}}"): Operation(
                "Show a flavor",
                {200: obj({"flavor": LB_FLAVOR}, required=("flavor",))},
                query={"fields": array(string(enum=list(provider_store.FLAVOR_FIELDS)))},
                errors=(*READ, 404),
                query_array=("fields",),
            ),
            ("PUT", f"{lbaas}/flavors/{{ident}}"): Operation(
                "Update a flavor",
                {200: obj({"flavor": LB_FLAVOR}, required=("flavor",))},
                body=flavor_update,
                errors=(*WRITE, 404, 409),
            ),
            ("DELETE", f"{lbaas}/flavors/{{ident}}"): Operation(
                "Delete a flavor", {204: None}, errors=(*READ, 404)
            ),
        }
    # Flavorsmith
    ops |= {
        ("POST", "/v1/service-flavors/{ident}/resolve"): Operation(
            "Resolve a service flavor for use: the provider and expanded metadata",
            {200: RESOLVED},
            body=obj({"provider": nullable(string())}, additional=False),
            body_required=False,
            errors=(*WRITE, 404, 502),
        ),
        ("GET", "/v1/catalog"): Operation(
            "The loaded catalog and its diagnostics", {200: CATALOG_SUMMARY}, errors=READ
        ),
        ("POST", "/v1/catalog/reload"): Operation(
            "Reload the catalog from disk", {200: CATALOG_SUMMARY}, errors=READ
        ),
        ("GET", "/v1/catalog/nova-flavors"): Operation(
            "The Nova flavors the catalog derives",
            {
                200: obj(
                    {"nova_flavors": array(ANY_OBJECT), "unresolved": array(string())},
                    required=("nova_flavors", "unresolved"),
                )
            },
            errors=READ,
        ),
        ("GET", "/v1/catalog/flavors/{name}"): Operation(
            "One catalog flavor", {200: obj(required=("name", "traits"))}, errors=(*READ, 404)
        ),
        ("GET", "/v1/flavors/{name}/nodes"): Operation(
            "The nodes a flavor can land on",
            {200: obj(required=("flavor", "count", "generation", "nodes"))},
            query={"limit": QUERY_LIMIT, "marker": UUID, "available": QUERY_BOOL},
            errors=(*READ, 404, 503),
        ),
        ("GET", "/v1/nodes/{ident}/flavors"): Operation(
            "The flavors a node can serve",
            {200: obj(required=("node", "flavors"))},
            errors=(*READ, 404, 503),
        ),
        ("GET", "/v1/nodes/{ident}/matches"): Operation(
            "A node, and for every flavor whether it can land there and why not",
            {200: obj(required=("generation", "node", "trait_owners", "flavors"))},
            errors=(*READ, 404, 503),
        ),
        ("GET", "/v1/flavors/{name}/nodes/{ident}"): Operation(
            "Whether a flavor can land on a node, and why not",
            {200: ANY_OBJECT},
            errors=(*READ, 404, 503),
        ),
        ("GET", "/v1/flavors/{name}/explain"): Operation(
            "A flavor's nodes counted by the first reason it cannot land there",
            {200: EXPLAIN_FLAVOR},
            query={"project": string()},
            errors=(*READ, 404, 503),
        ),
        ("GET", "/v1/flavors/{name}/nodes/{ident}/explain"): Operation(
            "Every reason a flavor cannot land on a node: catalog, Ironic, Placement, access",
            {200: EXPLAIN_NODE},
            query={"project": string()},
            errors=(*READ, 404, 503),
        ),
        ("GET", "/v1/flavors/{name}/nodes/{ident}/deploy-plan"): Operation(
            "The deploy steps provisioning the node with the flavor would run, in order, and "
            "why each deploy template was or was not applied (flavorsmith deploy plan)",
            {
                200: obj(
                    {
                        "flavor": string(),
                        "templates_from": string(enum=["service", "catalog"]),
                        "node": string(),
                        "driver": string(),
                        "instance_traits": array(string()),
                        "steps": array(ANY_OBJECT),
                        "templates": array(ANY_OBJECT),
                        "errors": array(string()),
                    },
                    required=("flavor", "node", "driver", "steps", "templates", "errors"),
                )
            },
            query={"templates": string(enum=["service", "catalog"])},
            errors=(*READ, 404, 503),
        ),
        ("GET", "/v1/capacity"): Operation(
            "Capacity per flavor", {200: ANY_OBJECT}, errors=(*READ, 503)
        ),
        ("GET", "/v1/matrix"): Operation(
            "Flavors by node groups (same resource class and traits): the nodes of each group "
            "each flavor can land on, filtered by the nodes' resource class, traits and "
            "provision state, the groups paged",
            {
                200: obj(
                    {
                        "generation": {"type": "integer"},
                        "nodes": {"type": "integer"},
                        "group_count": {"type": "integer"},
                        "groups": array(ANY_OBJECT),
                        "flavors": array(ANY_OBJECT),
                        "next": string(),
                    },
                    required=("generation", "nodes", "group_count", "groups", "flavors"),
                )
            },
            query={
                "resource_class": string(),
                "trait": string(),
                "provision_state": string(),
                "limit": QUERY_LIMIT,
                "marker": string(),
            },
            errors=(*READ, 503),
        ),
        ("GET", "/v1/verify"): Operation(
            "Drift between the catalog, the nodes, Placement (derived from the nodes) and the "
            "Nova flavors; each finding with the command that fixes it",
            {200: obj(required=("aligned", "findings"))},
            errors=(*READ, 503),
        ),
        ("GET", "/v1/nodes/{ident}/inspection"): Operation(
            "A node's last classification: the device type, each candidate's per-field checks, "
            "the traits and the rule behind each (null when nothing was classified)",
            {
                200: obj(
                    {
                        "node": string(),
                        "classified_at": nullable(string()),
                        "classification": nullable(ANY_OBJECT),
                    },
                    required=("node", "classified_at", "classification"),
                )
            },
            errors=(*READ, 404),
        ),
        ("POST", "/v1/nodes/{ident}/inspection"): Operation(
            "Store inspection data for a node and apply its classification",
            {200: obj(required=("node", "applied"))},
            body=ANY_OBJECT,
            errors=(*WRITE, 404, 409, 503),
        ),
        ("GET", "/v1/auth"): Operation(
            "Which auth the service runs, and whether it offers a login (under Keystone)",
            {
                200: obj(
                    {
                        "auth": string(enum=["noauth", "static token", "keystone"]),
                        "login": BOOLEAN,
                    },
                    required=("auth", "login"),
                )
            },
            errors=(400,),
        ),
        ("POST", "/v1/login"): Operation(
            "Log in with a Keystone password: a project-scoped token in the body, to send as "
            "X-Auth-Token (404 when the service does not run Keystone auth)",
            {200: LOGIN},
            body=LOGIN_BODY,
            errors=(400, 401, 403, 404, 413, 415, 503),
        ),
        ("GET", "/v1/nodes/source"): Operation(
            "Where the nodes come from: the database, or a real Ironic mirrored (its state)",
            {200: obj({"source": string(enum=["database", "ironic"])}, required=("source",))},
            errors=READ,
        ),
        ("GET", "/v1/sync/plan"): Operation(
            "What a sync of the catalog would change",
            {200: SYNC_ROUND},
            query=SYNC_QUERY,
            errors=(*READ, 503),
        ),
        ("GET", "/v1/sync/allowed"): Operation(
            "What the caller may do: plan a sync, apply it (by policy)",
            {
                200: obj(
                    {"plan": {"type": "boolean"}, "apply": {"type": "boolean"}},
                    required=("plan", "apply"),
                )
            },
            errors=READ,
        ),
        ("POST", "/v1/sync/apply"): Operation(
            "Apply the catalog (409 with the same body when something failed)",
            {200: SYNC_ROUND, 409: SYNC_ROUND},
            query=SYNC_QUERY,
            errors=(*READ, 409, 503),
        ),
    }
    for methods, path, action in bm_conductor.ACTIONS:
        for method in methods:
            ops[(method, f"/baremetal{path}")] = Operation(
                f"Not served: {action} is Ironic's conductor's work (400 saying so)",
                {},
                body=ANY_OBJECT if method in ("POST", "PUT", "PATCH") else None,
                body_required=False,
                errors=(*IRONIC_WRITE, 404) if method != "GET" else (*IRONIC_READ, 404),
            )
    return ops


OPERATIONS = _operations()
