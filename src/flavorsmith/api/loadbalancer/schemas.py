"""Octavia's flavor profiles, flavors and provider capabilities as JSON Schema: what the
handlers' contracts (api/contract.py) declare they take and answer."""

from __future__ import annotations

from collections.abc import Mapping

from flavorsmith.api.loadbalancer.common import PAGING
from flavorsmith.api.schema import (
    BOOLEAN,
    LINKS,
    QUERY_LIMIT,
    SORT_DIR,
    UUID,
    Schema,
    array,
    nullable,
    obj,
    string,
)
from flavorsmith.providers import service as provider_service

PROFILE = obj(
    {
        "id": UUID,
        "name": string(),
        "provider_name": string(),
        "flavor_data": string(),
    },
    additional=False,
)
LB_FLAVOR = obj(
    {
        "id": UUID,
        "name": string(),
        "description": nullable(string()),
        "enabled": BOOLEAN,
        "flavor_profile_id": UUID,
    },
    additional=False,
)
TEXT_255 = string(maxLength=255)
PROFILE_WRITE_TYPES: dict[str, Schema] = {
    "id": UUID,
    "name": TEXT_255,
    "provider_name": string(),
    "flavor_data": string(maxLength=4096),
}
LB_FLAVOR_WRITE_TYPES: dict[str, Schema] = {
    "id": UUID,
    "name": TEXT_255,
    "description": nullable(TEXT_255),
    "enabled": BOOLEAN,
    "flavor_profile_id": UUID,
}


def wrapped(
    key: str, types: Mapping[str, Schema], names: set[str], required: tuple[str, ...]
) -> Schema:
    inner = obj({n: types[n] for n in sorted(names)}, required=required, additional=False)
    return obj({key: inner}, required=(key,), additional=False)


def octavia_list_query(filterable: tuple[str, ...]) -> dict[str, Schema]:
    types: dict[str, Schema] = {
        "fields": array(string(enum=list(filterable))),
        "sort": string(),
        "sort_key": string(enum=list(filterable)),
        "sort_dir": SORT_DIR,
        "limit": QUERY_LIMIT,
        "marker": UUID,
        "page_reverse": string(enum=["true", "false", "True", "False"]),
        "enabled": string(enum=["true", "false", "True", "False"]),
    }
    return {name: types.get(name, string()) for name in (*PAGING, *filterable)}


def octavia_list(collection: str, item: Schema) -> Schema:
    links = "flavorprofile_links" if collection == "flavorprofiles" else f"{collection}_links"
    return obj(
        {collection: array(item), links: LINKS}, required=(collection, links), additional=False
    )


CAPABILITY = obj({"name": string(), "description": string()}, additional=False)
OCTAVIA_FIELDS = {"fields": array(string(enum=["name", "description"]))}

# The write bodies: the fields the provider flavor service takes (providers/service.py).
PROFILE_CREATE_BODY = wrapped(
    "flavorprofile",
    PROFILE_WRITE_TYPES,
    provider_service.PROFILE_CREATE,
    ("name", "provider_name", "flavor_data"),
)
PROFILE_UPDATE_BODY = wrapped(
    "flavorprofile", PROFILE_WRITE_TYPES, provider_service.PROFILE_UPDATE, ()
)
FLAVOR_CREATE_BODY = wrapped(
    "flavor",
    LB_FLAVOR_WRITE_TYPES,
    provider_service.FLAVOR_CREATE,
    ("name", "flavor_profile_id"),
)
FLAVOR_UPDATE_BODY = wrapped("flavor", LB_FLAVOR_WRITE_TYPES, provider_service.FLAVOR_UPDATE, ())
