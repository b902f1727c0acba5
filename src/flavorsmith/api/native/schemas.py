"""Flavorsmith's own API (/v1) as JSON Schema: the shapes several handlers' contracts
(api/contract.py) share."""

from __future__ import annotations

from flavorsmith.api.schema import (
    ANY_OBJECT,
    BOOLEAN,
    INTEGER,
    array,
    nullable,
    obj,
    string,
)

DIAGNOSTIC = obj(
    {
        "path": nullable(string()),
        "line": nullable(INTEGER),
        "column": nullable(INTEGER),
        "field": nullable(string()),
        "severity": string(),
        "code": nullable(string()),
        "message": string(),
    },
    required=("severity", "message"),
)
CATALOG_SUMMARY = obj(
    {
        "repository": nullable(string()),
        "device_types": INTEGER,
        "flavors": INTEGER,
        "valid": BOOLEAN,
        "diagnostics": array(DIAGNOSTIC),
    },
    required=("repository", "device_types", "flavors", "valid", "diagnostics"),
)
SYNC_ROUND = obj(required=("diagnostics",))
RESOLVED = obj(
    {
        "flavor_id": string(),
        "flavor_name": string(),
        "flavor_profile_id": string(),
        "provider": string(),
        "flavor_data": ANY_OBJECT,
        "metadata": ANY_OBJECT,
    },
    required=("flavor_id", "flavor_name", "flavor_profile_id", "provider"),
)
# flavorsmith explain: one reason (matching.diagnosis.Finding), a node's, a flavor's.
EXPLAIN_LAYER = string(enum=["catalog", "ironic", "placement", "access", "scheduler"])
EXPLAIN_REASON = obj(
    {
        "layer": EXPLAIN_LAYER,
        "kind": string(),
        "subject": nullable(string()),
        "blocking": BOOLEAN,
        "detail": string(),
    },
    required=("layer", "kind", "subject", "blocking", "detail"),
    additional=False,
)
EXPLAIN_PLACEMENT = string(enum=["derived", "real"])
EXPLAIN_NODE_ANSWER = obj(
    {
        "flavor": string(),
        "node": obj(
            {
                "uuid": string(),
                "name": nullable(string()),
                "resource_class": nullable(string()),
                "provision_state": nullable(string()),
                "power_state": nullable(string()),
                "maintenance": BOOLEAN,
                "instance_uuid": nullable(string()),
                "owner": nullable(string()),
                "lessee": nullable(string()),
                "inventory": string(enum=["schedulable", "used", "reserved", "absent"]),
            },
            required=("uuid", "name", "inventory"),
        ),
        "project": nullable(string()),
        "placement": EXPLAIN_PLACEMENT,
        "schedulable": BOOLEAN,
        "reasons": array(EXPLAIN_REASON),
    },
    required=("flavor", "node", "project", "placement", "schedulable", "reasons"),
    additional=False,
)
EXPLAIN_FLAVOR_ANSWER = obj(
    {
        "flavor": string(),
        "project": nullable(string()),
        "placement": EXPLAIN_PLACEMENT,
        "nodes": INTEGER,
        "candidates": INTEGER,
        "summary": string(),
        "counts": array(
            obj(
                {
                    "reason": string(),
                    "subject": nullable(string()),
                    "count": INTEGER,
                    "text": string(),
                },
                required=("reason", "subject", "count", "text"),
                additional=False,
            )
        ),
        "reasons": array(EXPLAIN_REASON),
    },
    required=("flavor", "project", "placement", "nodes", "candidates", "summary", "counts"),
    additional=False,
)
