"""Hostile JSON in every kind of stored field is a 400 naming the field, on SQLite and
PostgreSQL; the write leaves nothing behind and every read keeps answering 200.

The database is shared by every test of a backend, so the objects the writes aim at are made
once per backend, with unique names, and the tests compare whole tables before and after."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from flavorsmith.db.models import Base
from tests.api.test_errors import message

IRONIC = {"X-OpenStack-Ironic-API-Version": "latest"}
NODES = "/baremetal/v1/nodes"
TEMPLATES = "/baremetal/v1/deploy_templates"
PROFILES = "/load-balancer/v2/lbaas/flavorprofiles"
SERVICE_FLAVORS = "/load-balancer/v2/lbaas/flavors"
FLAVORS = "/compute/v2.1/flavors"
JSON = {"content-type": "application/json"}
DEEP = "nested more than 32 levels deep"
NUMBERS = "numbers must be finite: NaN, Infinity and numbers beyond 1.8e308 are refused"

# The hostile value as JSON text, and what the answer says about it.
HOSTILE = {
    "surrogate": ('"\\ud800"', "a lone UTF-16 surrogate (\\ud800) is not allowed"),
    "low-surrogate": ('"ok\\udfff"', "a lone UTF-16 surrogate (\\udfff) is not allowed"),
    "nul": ('"a\\u0000b"', "a NUL character (\\u0000) is not allowed in text"),
    "deep": ("[" * 300 + "]" * 300, DEEP),
    "brackets": ("[" * 200_000, DEEP),
    "huge-int": ("1" * 5000, "an integer of 5000 digits is out of range"),
    "int64": ("9223372036854775808", "9223372036854775808 is out of range"),
    "nan": ("NaN", f"NaN is not allowed: {NUMBERS}"),
    "infinity": ("-Infinity", f"-Infinity is not allowed: {NUMBERS}"),
    "overflow": ("1e999", f"Infinity is not allowed: {NUMBERS}"),
}


def unique(tag: str) -> str:
    return f"{tag}-{uuid.uuid4().hex[:10]}"


@dataclass
class World:
    """What the hostile writes aim at, and the reads that must keep working."""

    node: str
    template: str
    profile: str
    service_flavor: str
    flavor: str


_WORLDS: dict[str, World] = {}


def _created(response: Any) -> dict[str, Any]:
    assert response.status_code in (200, 201), response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.fixture
def world(client: TestClient, migrated_engine: Engine) -> World:
    key = str(migrated_engine.url)
    if key not in _WORLDS:
        node = _created(
            client.post(
                NODES,
                json={"driver": "fake-hardware", "name": unique("hostile"), "extra": {"k": 1}},
                headers=IRONIC,
            )
        )
        template = _created(
            client.post(
                TEMPLATES,
                json={
                    "name": f"CUSTOM_HOSTILE_{uuid.uuid4().hex[:8].upper()}",
                    "steps": [{"interface": "deploy", "step": "s", "args": {}, "priority": 1}],
                },
                headers=IRONIC,
            )
        )
        profile = _created(
            client.post(
                PROFILES,
                json={
                    "flavorprofile": {
                        "name": unique("p"),
                        "provider_name": "noop",
                        "flavor_data": json.dumps({"noop_option": "x"}),
                    }
                },
            )
        )["flavorprofile"]
        service_flavor = _created(
            client.post(
                SERVICE_FLAVORS,
                json={"flavor": {"name": unique("f"), "flavor_profile_id": profile["id"]}},
            )
        )["flavor"]
        flavor = _created(
            client.post(
                FLAVORS,
                json={
                    "flavor": {
                        "name": unique("n"),
                        "ram": 1024,
                        "vcpus": 1,
                        "disk": 10,
                        "os-flavor-access:is_public": False,
                    }
                },
            )
        )["flavor"]
        _WORLDS[key] = World(
            node["uuid"], template["uuid"], profile["id"], service_flavor["id"], flavor["id"]
        )
    return _WORLDS[key]


def snapshot(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table."""
    with engine.connect() as connection:
        return {
            table.name: sorted((tuple(row) for row in connection.execute(select(table))), key=repr)
            for table in Base.metadata.sorted_tables
        }


def reads_work(client: TestClient, world: World) -> None:
    """The reads a poisoned row used to break, for every caller."""
    for path, headers in (
        (f"{NODES}/detail", IRONIC),
        (f"{NODES}/{world.node}", IRONIC),
        (f"{TEMPLATES}?detail=true", IRONIC),
        (PROFILES, {}),
        (SERVICE_FLAVORS, {}),
        (f"{FLAVORS}/detail?is_public=none", {}),
        (f"{FLAVORS}/{world.flavor}/os-extra_specs", {}),
        (f"{FLAVORS}/{world.flavor}/os-flavor-access", {}),
    ):
        response = client.get(path, headers=headers)
        assert response.status_code == 200, (path, response.text)
    response = client.post(f"/v1/service-flavors/{world.service_flavor}/resolve")
    assert response.status_code == 200, response.text


Write = Callable[[TestClient, World, str], Any]


def _send(client: TestClient, method: str, url: str, text: str, **headers: str) -> Any:
    return client.request(method, url, content=text.encode(), headers={**JSON, **headers})


def _node_create(field: str) -> Write:
    def write(client: TestClient, world: World, value: str) -> Any:
        body = (
            f'{{"driver": "fake-hardware", "name": "{unique("h")}", "{field}": {{"k": {value}}}}}'
        )
        return _send(client, "POST", NODES, body, **IRONIC)

    return write


def _node_patch(field: str) -> Write:
    def write(client: TestClient, world: World, value: str) -> Any:
        body = f'[{{"op": "add", "path": "/{field}/k", "value": {value}}}]'
        return _send(client, "PATCH", f"{NODES}/{world.node}", body, **IRONIC)

    return write


def _template_create(client: TestClient, world: World, value: str) -> Any:
    name = f"CUSTOM_H_{uuid.uuid4().hex[:8].upper()}"
    body = (
        f'{{"name": "{name}", "steps": [{{"interface": "deploy", "step": {value}, '
        '"args": {}, "priority": 1}]}'
    )
    return _send(client, "POST", TEMPLATES, body, **IRONIC)


def _template_patch(client: TestClient, world: World, value: str) -> Any:
    body = f'[{{"op": "replace", "path": "/steps/0/step", "value": {value}}}]'
    return _send(client, "PATCH", f"{TEMPLATES}/{world.template}", body, **IRONIC)


def _profile_create(client: TestClient, world: World, value: str) -> Any:
    body = (
        f'{{"flavorprofile": {{"name": {value}, "provider_name": "noop", "flavor_data": "{{}}"}}}}'
    )
    return _send(client, "POST", PROFILES, body)


def _profile_rename(client: TestClient, world: World, value: str) -> Any:
    body = f'{{"flavorprofile": {{"name": {value}}}}}'
    return _send(client, "PUT", f"{PROFILES}/{world.profile}", body)


def _profile_data(client: TestClient, world: World, value: str) -> Any:
    """The hostile value inside flavor_data, a JSON document held in a JSON string."""
    inner = json.dumps('{"noop_option": ' + value + "}")
    body = f'{{"flavorprofile": {{"name": "{unique("p")}", "provider_name": "noop", "flavor_data": {inner}}}}}'
    return _send(client, "POST", PROFILES, body)


def _extra_spec(client: TestClient, world: World, value: str) -> Any:
    body = f'{{"extra_specs": {{"hw:cpu_policy": {value}}}}}'
    url = f"{FLAVORS}/{world.flavor}/os-extra_specs?validation=off"
    return _send(client, "POST", url, body)


def _tenant(client: TestClient, world: World, value: str) -> Any:
    body = f'{{"addTenantAccess": {{"tenant": {value}}}}}'
    return _send(client, "POST", f"{FLAVORS}/{world.flavor}/action", body)


def _inspection(client: TestClient, world: World, value: str) -> Any:
    body = f'{{"inventory": {{"memory": {{"physical_mb": {value}}}}}}}'
    return _send(client, "POST", f"/v1/nodes/{world.node}/inspection", body)


# The write, its API family, and the path the message names.
WRITES: dict[str, tuple[Write, str, str]] = {
    "node-create-extra": (_node_create("extra"), "baremetal", "the request body: extra.k"),
    "node-create-properties": (
        _node_create("properties"),
        "baremetal",
        "the request body: properties.k",
    ),
    "node-create-instance_info": (
        _node_create("instance_info"),
        "baremetal",
        "the request body: instance_info.k",
    ),
    "node-patch-extra": (_node_patch("extra"), "baremetal", "the request body: [0].value"),
    "node-patch-properties": (
        _node_patch("properties"),
        "baremetal",
        "the request body: [0].value",
    ),
    "node-patch-instance_info": (
        _node_patch("instance_info"),
        "baremetal",
        "the request body: [0].value",
    ),
    "template-step-name": (_template_create, "baremetal", "the request body: steps[0].step"),
    "template-patch-step": (_template_patch, "baremetal", "the request body: [0].value"),
    "profile-name": (_profile_create, "load-balancer", "the request body: flavorprofile.name"),
    "profile-rename": (_profile_rename, "load-balancer", "the request body: flavorprofile.name"),
    "profile-flavor_data": (_profile_data, "load-balancer", "flavor_data: noop_option"),
    "extra-spec-validation-off": (
        _extra_spec,
        "compute",
        "the request body: extra_specs['hw:cpu_policy']",
    ),
    "add-tenant-access": (_tenant, "compute", "the request body: addTenantAccess.tenant"),
    "inspection": (_inspection, "native", "the request body: inventory.memory.physical_mb"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("write", sorted(WRITES))
def test_hostile_value_is_refused_and_nothing_is_stored(
    client: TestClient, migrated_engine: Engine, world: World, write: str, kind: str
) -> None:
    send, family, where = WRITES[write]
    value, says = HOSTILE[kind]
    before = snapshot(migrated_engine)
    response = send(client, world, value)
    assert response.status_code == 400, response.text
    text = message(family, response)
    if write == "profile-flavor_data" and len(value) > 4096:
        # flavor_data's own size limit answers first: still a 400 that stores nothing.
        assert text.startswith("flavor_data is "), text
        assert text.endswith(" characters long; at most 4096 are allowed"), text
    elif says not in text:
        raise AssertionError(f"{says!r} not in {text!r}")
    elif says == DEEP:
        # Found before parsing, by position: the message names the line and column.
        assert text.startswith(f"Invalid JSON in {where.split(':')[0]}: line 1 column ")
    else:
        assert text.startswith(f"Invalid JSON in {where}: "), text
    assert response.headers["x-openstack-request-id"].startswith("req-")
    assert snapshot(migrated_engine) == before
    reads_work(client, world)
