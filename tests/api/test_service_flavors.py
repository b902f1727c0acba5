"""The provider flavor framework over HTTP (Octavia's /load-balancer API and /v1 resolve), on
SQLite and PostgreSQL: providers and their capabilities, flavor profiles, flavors, Octavia's
list queries, resolution at use time, driver faults, provider configuration and RBAC.

The database is shared by every test of a backend, so each test names its profiles and
flavors uniquely and looks only at its own rows in a list (filtering by name or profile)."""

from __future__ import annotations

import json
import logging
import shutil
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.config import DEFAULT_PROVIDERS
from flavorsmith.providers.driver import UnsupportedOption
from flavorsmith.providers.registry import Provider
from flavorsmith.store import service_flavors as store
from tests.api.conftest import ClientFactory, build_app
from tests.conftest import EXAMPLES

LB = "/load-balancer/v2/lbaas"
LB20 = "/load-balancer/v2.0/lbaas"
ROOTS = (LB, LB20)
PROFILES = f"{LB}/flavorprofiles"
FLAVORS = f"{LB}/flavors"
HOST = "http://testserver"
INVALID_ARGS = "One or more arguments are either duplicate or invalid"
DENIED = "Policy does not allow this request to be performed."
NOT_SUPPORTED = "Provider 'baremetal' does not support a requested option: "
NOOP_REFUSES = "Provider 'noop' does not support a requested option: "

VMX_ON = "CUSTOM_BM_CONFIG_BIOS_VMX_ON"
VMX_OFF = "CUSTOM_BM_CONFIG_BIOS_VMX_OFF"
MIRROR = "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"
STRIPE = "CUSTOM_BM_CONFIG_RAID_DISK_STRIPE"
TEMPLATES = ", ".join(sorted([VMX_ON, VMX_OFF, MIRROR, STRIPE]))
CLASSES = "c2.diskless, c2.large, g1.8xh100, m1.medium, m1.small"
NOOP_DESCRIPTION = "Any value; the no-op provider accepts every flavor."
SECRET = "SELECT password FROM users -- driver internals"


# ---------------------------------------------------------------- helpers


def fault(response: Any) -> str:
    """Octavia's error body, checked whole; its faultstring."""
    body = response.json()
    assert set(body) == {"faultcode", "faultstring", "debuginfo"}, body
    assert body["faultcode"] == ("Client" if response.status_code < 500 else "Server")
    assert body["debuginfo"] is None
    return str(body["faultstring"])


def problem(response: Any) -> str:
    """The native API's problem+json body, checked; its detail."""
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == response.status_code
    return str(body["detail"])


def unique(tag: str = "f") -> str:
    return f"{tag}-{uuid.uuid4().hex[:10]}"


def bm(resource_class: Any = "c2.large", *templates: Any, **extra: Any) -> str:
    data: dict[str, Any] = {"resource_class": resource_class, **extra}
    if templates:
        data["deploy_templates"] = list(templates)
    return json.dumps(data)


def post_profile(client: TestClient, root: str = LB, **fields: Any) -> Any:
    fields.setdefault("name", unique("p"))
    fields.setdefault("provider_name", "noop")
    fields.setdefault("flavor_data", json.dumps({"noop_option": "x"}))
    return client.post(f"{root}/flavorprofiles", json={"flavorprofile": fields})


def profile(client: TestClient, **fields: Any) -> dict[str, Any]:
    response = post_profile(client, **fields)
    assert response.status_code == 201, response.text
    return dict(response.json()["flavorprofile"])


def post_flavor(client: TestClient, root: str = LB, **fields: Any) -> Any:
    fields.setdefault("name", unique("f"))
    return client.post(f"{root}/flavors", json={"flavor": fields})


def flavor(client: TestClient, profile_id: str | None = None, **fields: Any) -> dict[str, Any]:
    if profile_id is None:
        profile_id = profile(client)["id"]
    response = post_flavor(client, flavor_profile_id=profile_id, **fields)
    assert response.status_code == 201, response.text
    return dict(response.json()["flavor"])


def put_profile(client: TestClient, ident: str, **fields: Any) -> Any:
    return client.put(f"{PROFILES}/{ident}", json={"flavorprofile": fields})


def put_flavor(client: TestClient, ident: str, **fields: Any) -> Any:
    return client.put(f"{FLAVORS}/{ident}", json={"flavor": fields})


def resolve(client: TestClient, ident: str, body: Any = None, **kwargs: Any) -> Any:
    url = f"/v1/service-flavors/{ident}/resolve"
    if body is None:
        return client.post(url, **kwargs)
    return client.post(url, json=body, **kwargs)


def follow(client: TestClient, href: str) -> Any:
    assert href.startswith(HOST)
    return client.get(href[len(HOST) :])


def query_of(href: str) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(href).query)


def links(body: dict[str, Any], key: str) -> dict[str, str]:
    return {link["rel"]: link["href"] for link in body[key]}


class CrashingDriver:
    """A driver whose chosen methods raise an exception carrying internals."""

    def __init__(self, *crash: str) -> None:
        self.crash = set(crash)

    def _maybe(self, method: str) -> None:
        if method in self.crash:
            raise RuntimeError(SECRET)

    def get_supported_flavor_metadata(self) -> dict[str, Any]:
        self._maybe("capabilities")
        return {"type": "object", "properties": {"size": {"description": "How big."}}}

    def validate_flavor(self, metadata: dict[str, Any]) -> None:
        self._maybe("validate")
        if metadata.get("size") == "huge":
            raise UnsupportedOption("size 'huge' is too big")

    def expand_flavor(self, metadata: dict[str, Any]) -> dict[str, Any]:
        self._maybe("expand")
        return {**metadata, "expanded": True}


def crashing_client(engine: Engine, *crash: str) -> TestClient:
    app = build_app(engine)
    app.state.services.providers.providers["x"] = Provider("x", "d", CrashingDriver(*crash))
    return TestClient(app)


# ---------------------------------------------------------------- providers


@pytest.mark.parametrize("root", ROOTS)
def test_providers_list_on_both_roots(client: TestClient, root: str) -> None:
    response = client.get(f"{root}/providers")
    assert response.status_code == 200
    noop, baremetal = (item.split(":", 1) for item in DEFAULT_PROVIDERS.split(","))
    assert response.json() == {
        "providers": [
            {"name": noop[0], "description": noop[1]},
            {"name": baremetal[0], "description": baremetal[1]},
        ]
    }
    assert response.json()["providers"][0] == {
        "name": "noop",
        "description": "The no-op driver (accepts any flavor data).",
    }


def test_providers_fields_and_unknown_parameter(client: TestClient) -> None:
    response = client.get(f"{LB}/providers?fields=name")
    assert response.status_code == 200
    assert response.json() == {"providers": [{"name": "noop"}, {"name": "baremetal"}]}
    response = client.get(f"{LB}/providers?fields=description&fields=name")
    assert [set(p) for p in response.json()["providers"]] == [{"description", "name"}] * 2
    response = client.get(f"{LB}/providers?bogus=1")
    assert response.status_code == 400 and fault(response) == INVALID_ARGS
    response = client.get(f"{LB}/providers?fields=nope")
    assert response.status_code == 400
    assert fault(response) == "Unknown field 'nope' in fields; known: name, description"


@pytest.mark.parametrize("root", ROOTS)
def test_noop_capabilities(client: TestClient, root: str) -> None:
    response = client.get(f"{root}/providers/noop/flavor_capabilities")
    assert response.status_code == 200
    assert response.json() == {
        "flavor_capabilities": [{"name": "noop_option", "description": NOOP_DESCRIPTION}]
    }


def test_baremetal_capabilities_come_from_the_catalog(client: TestClient) -> None:
    response = client.get(f"{LB}/providers/baremetal/flavor_capabilities")
    assert response.status_code == 200
    assert response.json() == {
        "flavor_capabilities": [
            {
                "name": "resource_class",
                "description": f"The node resource class to deploy on; one of: {CLASSES}",
            },
            {
                "name": "deploy_templates",
                "description": f"Deploy templates to apply at deploy time; from: {TEMPLATES}",
            },
        ]
    }


def test_capability_filters_and_fields(client: TestClient) -> None:
    url = f"{LB}/providers/baremetal/flavor_capabilities"
    response = client.get(f"{url}?name=deploy_templates")
    assert [c["name"] for c in response.json()["flavor_capabilities"]] == ["deploy_templates"]
    response = client.get(f"{url}?name=nothing")
    assert response.status_code == 200 and response.json() == {"flavor_capabilities": []}
    response = client.get(f"{url}?fields=name")
    assert response.json() == {
        "flavor_capabilities": [{"name": "resource_class"}, {"name": "deploy_templates"}]
    }
    response = client.get(f"{url}?fields=name&fields=description&name=resource_class")
    (only,) = response.json()["flavor_capabilities"]
    assert set(only) == {"name", "description"} and only["name"] == "resource_class"
    noop = f"{LB}/providers/noop/flavor_capabilities"
    response = client.get(noop, params={"description": NOOP_DESCRIPTION})
    assert response.json() == {
        "flavor_capabilities": [{"name": "noop_option", "description": NOOP_DESCRIPTION}]
    }
    response = client.get(noop, params={"description": "something else"})
    assert response.json() == {"flavor_capabilities": []}
    response = client.get(f"{url}?limit=1")
    assert response.status_code == 400 and fault(response) == INVALID_ARGS


@pytest.mark.parametrize("root", ROOTS)
def test_unknown_provider_capabilities(client: TestClient, root: str) -> None:
    response = client.get(f"{root}/providers/nope/flavor_capabilities")
    assert response.status_code == 400
    assert fault(response) == "Provider 'nope' is not enabled."
    response = client.get(f"{root}/providers/nope/availability_zone_capabilities")
    assert response.status_code == 400
    assert fault(response) == "Provider 'nope' is not enabled."


def test_availability_zone_capabilities_are_empty(client: TestClient) -> None:
    response = client.get(f"{LB}/providers/baremetal/availability_zone_capabilities")
    assert response.status_code == 200
    assert response.json() == {"availability_zone_capabilities": []}


# ---------------------------------------------------------------- flavor profiles


@pytest.mark.parametrize("root", ROOTS)
def test_profile_create_show_and_list(client: TestClient, root: str) -> None:
    name = unique("p")
    data = json.dumps({"noop_option": "yes"})
    response = post_profile(client, root, name=name, flavor_data=data)
    assert response.status_code == 201
    created = response.json()["flavorprofile"]
    assert list(response.json()) == ["flavorprofile"]
    assert created == {
        "id": created["id"],
        "name": name,
        "provider_name": "noop",
        "flavor_data": data,
    }
    assert str(uuid.UUID(created["id"])) == created["id"]
    shown = client.get(f"{root}/flavorprofiles/{created['id']}")
    assert shown.status_code == 200 and shown.json() == {"flavorprofile": created}
    listed = client.get(f"{root}/flavorprofiles", params={"name": name})
    assert listed.status_code == 200
    assert listed.json() == {"flavorprofiles": [created], "flavorprofile_links": []}


PROFILE_ARG = "Unknown attribute for argument flavor_profile_.flavorprofile: "
FLAVOR_ARG = "Unknown attribute for argument flavor_.flavor: "


# A fixed UUID, not uuid4(): every test process collects the same tests.
@pytest.mark.parametrize("ident", ["0d9b6c1e-7f2a-4c3b-9e85-6a1f4b2d8c70", "not-a-uuid", None])
def test_profile_create_with_a_client_supplied_id(client: TestClient, ident: Any) -> None:
    """Octavia 19 generates every id: its POST type has no ``id`` (api/v2/types/
    flavor_profile.py line 42), so wsme refuses it, naming the controller's argument
    (controllers/flavor_profiles.py line 94). Answer checked against a running Octavia 19."""
    name = unique("p")
    response = post_profile(client, id=ident, name=name)
    assert response.status_code == 400
    assert response.json() == {
        "faultcode": "Client",
        "faultstring": PROFILE_ARG + "id",
        "debuginfo": None,
    }
    assert client.get(PROFILES, params={"name": name}).json()["flavorprofiles"] == []


def test_profile_unknown_provider(client: TestClient) -> None:
    response = post_profile(client, provider_name="nope")
    assert response.status_code == 400
    assert fault(response) == "Provider 'nope' is not enabled."
    response = post_profile(client, provider_name=5)
    assert response.status_code == 400 and fault(response) == "provider_name must be a string"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"a": 1}, "flavor_data must be a string holding JSON"),
        (7, "flavor_data must be a string holding JSON"),
        # Octavia 19, api/v2/controllers/flavor_profiles.py line 104 (checked live).
        ("{'a': 1}", "{'a': 1} is not a valid option for flavor_data"),
        ("", " is not a valid option for flavor_data"),
        # Octavia's no-op driver answers 500 here ('int' object is not iterable).
        ("42", NOOP_REFUSES + "42 is not a JSON object, a string or a list of plain values"),
        ("[[1]]", NOOP_REFUSES + "[[1]] is not a JSON object, a string or a list of plain values"),
    ],
)
def test_profile_flavor_data_shape(client: TestClient, data: Any, message: str) -> None:
    response = post_profile(client, flavor_data=data)
    assert response.status_code == 400
    assert response.json() == {"faultcode": "Client", "faultstring": message, "debuginfo": None}


@pytest.mark.parametrize("data", ["[1,2]", '"text"', "[]"])
def test_noop_profile_takes_json_that_is_not_an_object(client: TestClient, data: str) -> None:
    """As Octavia 19's no-op driver (api/drivers/noop_driver/driver.py line 253): a list of
    plain values or a string is accepted and stored as given (checked live: "[1,2]" is a 201)."""
    name = unique("p")
    created = profile(client, name=name, flavor_data=data)
    assert created == {
        "id": created["id"],
        "name": name,
        "provider_name": "noop",
        "flavor_data": data,
    }
    made = flavor(client, created["id"])
    response = resolve(client, made["id"])
    assert response.status_code == 200
    assert response.json()["flavor_data"] == json.loads(data)


@pytest.mark.parametrize(
    ("data", "shown"), [("[1,2]", "[1, 2]"), ('"x"', "'x'"), ("42", "42"), ("null", "None")]
)
def test_baremetal_profile_refuses_json_that_is_not_an_object(
    client: TestClient, data: str, shown: str
) -> None:
    """Octavia 19's amphora driver answers "[1, 2] is not of type 'object'" (jsonschema's
    words, api/drivers/amphora_driver/v2/driver.py line 481; checked live) with a 501; here
    with the 400 every refused flavor data gets."""
    response = post_profile(client, provider_name="baremetal", flavor_data=data)
    assert response.status_code == 400
    assert response.json() == {
        "faultcode": "Client",
        "faultstring": NOT_SUPPORTED + f"{shown} is not of type 'object'",
        "debuginfo": None,
    }


def test_profile_flavor_data_length_limit(client: TestClient) -> None:
    def padded(length: int) -> str:
        text = json.dumps({"noop_option": ""})
        return json.dumps({"noop_option": "x" * (length - len(text))})

    assert len(padded(4096)) == 4096 and len(padded(4097)) == 4097
    name = unique("p")
    created = profile(client, name=name, flavor_data=padded(4096))
    shown = client.get(f"{PROFILES}/{created['id']}").json()["flavorprofile"]
    assert shown["flavor_data"] == padded(4096)
    response = post_profile(client, flavor_data=padded(4097))
    assert response.status_code == 400
    assert fault(response) == "flavor_data is 4097 characters long; at most 4096 are allowed"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": None}, "name may not be null"),
        ({"name": 3}, "name must be a string, not int"),
        ({"name": "n" * 256}, "name is 256 characters long; at most 255 are allowed"),
        ({"provider_name": None}, "Mandatory field missing: provider_name"),
        ({"flavor_data": None}, "Mandatory field missing: flavor_data"),
        ({"bogus": 1}, PROFILE_ARG + "bogus"),
    ],
)
def test_profile_create_field_rules(
    client: TestClient, fields: dict[str, Any], message: str
) -> None:
    response = post_profile(client, **fields)
    assert response.status_code == 400 and fault(response) == message


def test_profile_create_missing_name_and_bad_bodies(client: TestClient) -> None:
    body = {"provider_name": "noop", "flavor_data": "{}"}
    response = client.post(PROFILES, json={"flavorprofile": body})
    assert response.status_code == 400 and fault(response) == "Mandatory field missing: name"
    response = client.post(PROFILES, json=body)
    assert response.status_code == 400
    assert fault(response) == 'The request body must be {"flavorprofile": {...}}'
    response = client.post(PROFILES, json={"flavorprofile": {**body, "name": "x"}, "x": 1})
    assert response.status_code == 400 and fault(response) == "Unknown attribute 'x'"
    response = client.post(f"{PROFILES}?bogus=1", json={"flavorprofile": body})
    assert response.status_code == 400
    assert fault(response) == "Unknown query parameter 'bogus'; allowed: none"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            bm("c2.large", color="red"),
            "unknown flavor data key 'color': the baremetal provider takes resource_class and "
            "deploy_templates",
        ),
        (
            json.dumps({"deploy_templates": [VMX_ON]}),
            "'resource_class' is required by the baremetal provider",
        ),
        (
            bm("z9.huge"),
            f"resource_class 'z9.huge' is not defined by any device type; defined: {CLASSES}",
        ),
        (
            bm(7),
            f"resource_class 7 is not defined by any device type; defined: {CLASSES}",
        ),
        (
            bm("c2.large", "CUSTOM_NOPE"),
            "deploy_templates: 'CUSTOM_NOPE' is not a deploy template in the catalog; "
            f"defined: {TEMPLATES}",
        ),
        (bm("c2.large", VMX_ON, VMX_ON), "'deploy_templates' lists a template twice"),
        (
            bm("c2.large", VMX_ON, MIRROR, VMX_OFF),
            f"deploy_templates: {VMX_ON} and {VMX_OFF} both request bios.apply_configuration; "
            "Ironic refuses two templates with one step",
        ),
        (
            json.dumps({"resource_class": "c2.large", "deploy_templates": VMX_ON}),
            "'deploy_templates' must be a list of deploy template names",
        ),
    ],
)
def test_baremetal_profile_validation(client: TestClient, data: str, message: str) -> None:
    response = post_profile(client, provider_name="baremetal", flavor_data=data)
    assert response.status_code == 400
    assert fault(response) == NOT_SUPPORTED + message


def test_baremetal_profile_accepted(client: TestClient) -> None:
    data = bm("c2.large", VMX_ON, MIRROR)
    created = profile(client, provider_name="baremetal", flavor_data=data)
    assert created["provider_name"] == "baremetal" and created["flavor_data"] == data
    bare = profile(client, provider_name="baremetal", flavor_data=bm("m1.small"))
    assert json.loads(bare["flavor_data"]) == {"resource_class": "m1.small"}


def test_profile_show_errors_and_fields(client: TestClient) -> None:
    created = profile(client)
    response = client.get(f"{PROFILES}/{created['id']}?fields=id&fields=name")
    assert response.status_code == 200
    assert response.json() == {"flavorprofile": {"id": created["id"], "name": created["name"]}}
    response = client.get(f"{PROFILES}/{created['id']}?fields=provider_name")
    assert response.json() == {"flavorprofile": {"provider_name": "noop"}}
    response = client.get(f"{PROFILES}/{created['id']}?limit=1")
    assert response.status_code == 400
    assert fault(response) == "Unknown query parameter 'limit'; allowed: fields"
    missing = str(uuid.uuid4())
    response = client.get(f"{PROFILES}/{missing}")
    assert response.status_code == 404
    # Octavia 19 says "Flavor Profile" on show and update (api/v2/controllers/base.py,
    # _get_db_obj) and "Flavor profile" on delete (controllers/flavor_profiles.py:236).
    assert fault(response) == f"Flavor Profile {missing} not found."


def test_profile_list_filters_fields_and_paging(client: TestClient) -> None:
    name = unique("p")
    made = sorted((profile(client, name=name) for _ in range(3)), key=lambda p: p["id"])
    ids = [p["id"] for p in made]
    response = client.get(PROFILES, params={"name": name})
    assert [p["id"] for p in response.json()["flavorprofiles"]] == ids
    response = client.get(PROFILES, params={"name": name, "provider_name": "baremetal"})
    assert response.json() == {"flavorprofiles": [], "flavorprofile_links": []}
    response = client.get(PROFILES, params={"id": ids[1]})
    assert response.json()["flavorprofiles"] == [made[1]]
    response = client.get(PROFILES, params=[("name", name), ("fields", "id")])
    assert response.json()["flavorprofiles"] == [{"id": i} for i in ids]

    response = client.get(PROFILES, params={"name": name, "limit": "1"})
    body = response.json()
    assert body["flavorprofiles"] == [made[0]]
    assert body["flavorprofile_links"] == [
        {"href": f"{HOST}{PROFILES}?name={name}&limit=1&marker={ids[0]}", "rel": "next"}
    ]
    second = follow(client, links(body, "flavorprofile_links")["next"]).json()
    assert second["flavorprofiles"] == [made[1]]
    assert set(links(second, "flavorprofile_links")) == {"next", "previous"}
    third = follow(client, links(second, "flavorprofile_links")["next"]).json()
    assert third["flavorprofiles"] == [made[2]]
    assert set(links(third, "flavorprofile_links")) == {"previous"}
    back = follow(client, links(third, "flavorprofile_links")["previous"]).json()
    assert back["flavorprofiles"] == [made[1]]

    response = client.get(PROFILES, params={"name": name, "marker": str(uuid.uuid4())})
    assert response.status_code == 404
    assert fault(response).startswith("Marker ") and fault(response).endswith(" not found.")
    response = client.get(PROFILES, params={"name": name, "flavor_data_x": "1"})
    assert response.status_code == 400 and fault(response) == INVALID_ARGS


def test_profile_links_use_the_v2_0_root(client: TestClient) -> None:
    name = unique("p")
    profile(client, name=name)
    profile(client, name=name)
    response = client.get(f"{LB20}/flavorprofiles", params={"name": name, "limit": "1"})
    (link,) = response.json()["flavorprofile_links"]
    assert link["rel"] == "next"
    assert link["href"].startswith(f"{HOST}{LB20}/flavorprofiles?")


def test_profile_update_unused(client: TestClient) -> None:
    created = profile(client)
    new_name = unique("renamed")
    response = put_profile(client, created["id"], name=new_name)
    assert response.status_code == 200
    assert response.json() == {"flavorprofile": {**created, "name": new_name}}
    data = json.dumps({"noop_option": "other"})
    response = put_profile(client, created["id"], flavor_data=data)
    assert response.status_code == 200
    assert response.json()["flavorprofile"]["flavor_data"] == data
    response = put_profile(
        client, created["id"], provider_name="baremetal", flavor_data=bm("c2.large", STRIPE)
    )
    assert response.status_code == 200
    expected = {"id": created["id"], "name": new_name, "provider_name": "baremetal"}
    expected["flavor_data"] = bm("c2.large", STRIPE)
    assert response.json() == {"flavorprofile": expected}
    assert client.get(f"{PROFILES}/{created['id']}").json() == {"flavorprofile": expected}


def test_profile_switched_to_baremetal_is_validated_again(client: TestClient) -> None:
    """Octavia skips this: an unused noop profile moved to baremetal keeps data the
    baremetal driver refuses. Here it is a 400 and nothing changes."""
    data = json.dumps({"noop_option": "x"})
    created = profile(client, flavor_data=data)
    response = put_profile(client, created["id"], provider_name="baremetal")
    assert response.status_code == 400
    assert fault(response) == (
        NOT_SUPPORTED + "unknown flavor data key 'noop_option': the baremetal provider takes "
        "resource_class and deploy_templates"
    )
    response = put_profile(client, created["id"], provider_name="nope")
    assert response.status_code == 400 and fault(response) == "Provider 'nope' is not enabled."
    assert client.get(f"{PROFILES}/{created['id']}").json() == {"flavorprofile": created}
    bare = profile(client, provider_name="baremetal", flavor_data=bm("c2.large"))
    response = put_profile(client, bare["id"], flavor_data=bm("c2.large", VMX_ON, VMX_OFF))
    assert response.status_code == 400
    assert "both request bios.apply_configuration" in fault(response)
    response = put_profile(client, bare["id"], flavor_data="[]")
    assert response.status_code == 400
    assert fault(response) == NOT_SUPPORTED + "[] is not of type 'object'"
    assert client.get(f"{PROFILES}/{bare['id']}").json() == {"flavorprofile": bare}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        # Octavia 19, api/v2/controllers/flavor_profiles.py lines 133-140 (checked live).
        ({"name": None}, "None is not a valid option for name"),
        ({"provider_name": None}, "None is not a valid option for provider_name"),
        ({"flavor_data": None}, "None is not a valid option for flavor_data"),
        ({"name": None, "flavor_data": None}, "None is not a valid option for name"),
        ({"id": str(uuid.uuid4())}, PROFILE_ARG + "id"),
    ],
)
def test_profile_update_field_rules(
    client: TestClient, fields: dict[str, Any], message: str
) -> None:
    created = profile(client)
    response = put_profile(client, created["id"], **fields)
    assert response.status_code == 400 and fault(response) == message


def test_profile_update_and_delete_unknown(client: TestClient) -> None:
    missing = str(uuid.uuid4())
    response = put_profile(client, missing, name="x")
    assert response.status_code == 404
    assert fault(response) == f"Flavor Profile {missing} not found."
    response = client.delete(f"{PROFILES}/{missing}")
    assert response.status_code == 404
    assert fault(response) == f"Flavor profile {missing} not found."


def test_profile_in_use(client: TestClient) -> None:
    data = bm("c2.large", VMX_ON)
    created = profile(client, provider_name="baremetal", flavor_data=data)
    made = flavor(client, created["id"])
    in_use = f"Flavor profile {created['id']} is in use and cannot be modified."

    new_name = unique("renamed")
    response = put_profile(client, created["id"], name=new_name)
    assert response.status_code == 200
    assert response.json()["flavorprofile"]["name"] == new_name
    response = put_profile(client, created["id"], flavor_data=bm("c2.large", VMX_OFF))
    assert response.status_code == 409 and fault(response) == in_use
    response = put_profile(client, created["id"], provider_name="noop")
    assert response.status_code == 409 and fault(response) == in_use
    response = put_profile(client, created["id"], name=unique("x"), flavor_data="{}")
    assert response.status_code == 409 and fault(response) == in_use
    # Sending the stored values again changes nothing, so it is allowed.
    response = put_profile(client, created["id"], provider_name="baremetal", flavor_data=data)
    assert response.status_code == 200
    assert response.json()["flavorprofile"] == {**created, "name": new_name}

    response = client.delete(f"{PROFILES}/{created['id']}")
    assert response.status_code == 409 and fault(response) == in_use
    assert client.get(f"{PROFILES}/{created['id']}").status_code == 200

    assert client.delete(f"{FLAVORS}/{made['id']}").status_code == 204
    response = client.delete(f"{PROFILES}/{created['id']}")
    assert response.status_code == 204 and response.content == b""
    response = client.get(f"{PROFILES}/{created['id']}")
    assert response.status_code == 404
    assert fault(response) == f"Flavor Profile {created['id']} not found."


# ---------------------------------------------------------------- flavors


@pytest.mark.parametrize("root", ROOTS)
def test_flavor_create_defaults_and_show(client: TestClient, root: str) -> None:
    prof = profile(client)
    name = unique("f")
    response = post_flavor(client, root, name=name, flavor_profile_id=prof["id"])
    assert response.status_code == 201
    created = response.json()["flavor"]
    assert created == {
        "id": created["id"],
        "name": name,
        "description": "",
        "enabled": True,
        "flavor_profile_id": prof["id"],
    }
    assert str(uuid.UUID(created["id"])) == created["id"]
    shown = client.get(f"{root}/flavors/{created['id']}")
    assert shown.status_code == 200 and shown.json() == {"flavor": created}


def test_flavor_create_with_all_fields(client: TestClient) -> None:
    prof = profile(client)
    made = flavor(client, prof["id"], description="Small and quiet", enabled=False)
    assert made["description"] == "Small and quiet" and made["enabled"] is False
    assert client.get(f"{FLAVORS}/{made['id']}").json() == {"flavor": made}


def test_flavor_to_a_missing_profile(client: TestClient) -> None:
    """Octavia answers 500 (a raw foreign-key error); here it is a 400 naming the profile."""
    missing = str(uuid.uuid4())
    response = post_flavor(client, flavor_profile_id=missing)
    assert response.status_code == 400
    assert fault(response) == f"Flavor profile {missing} not found."
    response = post_flavor(client, flavor_profile_id="nope")
    assert response.status_code == 400
    assert fault(response) == (  # wsme/types.py:278, as Octavia 19 answers
        "Invalid input for field/attribute flavor_profile_id. Value: 'nope'. "
        "Value should be UUID format"
    )
    response = post_flavor(client)
    assert response.status_code == 400
    assert fault(response) == "Mandatory field missing: flavor_profile_id"


def test_flavor_duplicate_name_on_create_and_rename(client: TestClient) -> None:
    """Octavia answers 500 for a rename onto a taken name; here both are 409."""
    prof = profile(client)
    first = flavor(client, prof["id"])
    second = flavor(client, prof["id"])
    response = post_flavor(client, name=first["name"], flavor_profile_id=prof["id"])
    assert response.status_code == 409
    assert fault(response) == f"A flavor of {first['name']} already exists."
    response = put_flavor(client, second["id"], name=first["name"])
    assert response.status_code == 409
    assert fault(response) == f"A flavor of {first['name']} already exists."
    assert client.get(f"{FLAVORS}/{second['id']}").json() == {"flavor": second}
    response = put_flavor(client, first["id"], name=first["name"])
    assert response.status_code == 200 and response.json() == {"flavor": first}


def test_flavor_create_with_a_client_supplied_id(client: TestClient) -> None:
    """As Octavia 19 (api/v2/types/flavors.py line 43 has no ``id``; the argument is
    ``flavor_``, controllers/flavors.py line 86): a given id, even a taken one, is refused."""
    made = flavor(client)
    for ident in (made["id"], str(uuid.uuid4()), "x1"):
        response = post_flavor(client, id=ident, flavor_profile_id=made["flavor_profile_id"])
        assert response.status_code == 400
        assert response.json() == {
            "faultcode": "Client",
            "faultstring": FLAVOR_ARG + "id",
            "debuginfo": None,
        }
    assert client.get(f"{FLAVORS}/{made['id']}").json() == {"flavor": made}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": ["a"]}, "name must be a string, not list"),
        ({"description": "d" * 256}, "description is 256 characters long; at most 255 are allowed"),
        ({"enabled": "yes"}, "enabled must be true or false, not 'yes'"),
        ({"enabled": None}, "enabled must be true or false, not None"),
        ({"provider": "noop"}, FLAVOR_ARG + "provider"),
    ],
)
def test_flavor_create_field_rules(
    client: TestClient, fields: dict[str, Any], message: str
) -> None:
    prof = profile(client)
    response = post_flavor(client, flavor_profile_id=prof["id"], **fields)
    assert response.status_code == 400 and fault(response) == message


def test_flavor_create_without_name_and_bad_body(client: TestClient) -> None:
    prof = profile(client)
    response = client.post(FLAVORS, json={"flavor": {"flavor_profile_id": prof["id"]}})
    assert response.status_code == 400 and fault(response) == "Mandatory field missing: name"
    response = client.post(FLAVORS, json={"name": "x", "flavor_profile_id": prof["id"]})
    assert response.status_code == 400
    assert fault(response) == 'The request body must be {"flavor": {...}}'


def test_flavor_update(client: TestClient) -> None:
    made = flavor(client)
    new_name = unique("renamed")
    response = put_flavor(client, made["id"], name=new_name, description="now described")
    assert response.status_code == 200
    expected = {**made, "name": new_name, "description": "now described"}
    assert response.json() == {"flavor": expected}
    response = put_flavor(client, made["id"], enabled=False, description=None)
    assert response.status_code == 200
    expected = {**expected, "enabled": False, "description": ""}
    assert response.json() == {"flavor": expected}
    assert client.get(f"{FLAVORS}/{made['id']}").json() == {"flavor": expected}
    response = put_flavor(client, made["id"])
    assert response.status_code == 200 and response.json() == {"flavor": expected}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": 7}, "name must be a string, not int"),
        ({"enabled": "false"}, "enabled must be true or false, not 'false'"),
        ({"id": str(uuid.uuid4())}, FLAVOR_ARG + "id"),
    ],
)
def test_flavor_update_field_rules(
    client: TestClient, fields: dict[str, Any], message: str
) -> None:
    made = flavor(client)
    response = put_flavor(client, made["id"], **fields)
    assert response.status_code == 400 and fault(response) == message
    assert client.get(f"{FLAVORS}/{made['id']}").json() == {"flavor": made}


def test_flavor_profile_id_is_immutable(client: TestClient) -> None:
    made = flavor(client)
    other = profile(client)
    # Octavia 19: FlavorPUT has no flavor_profile_id (api/v2/types/flavors.py line 55).
    message = FLAVOR_ARG + "flavor_profile_id"
    for target in (other["id"], made["flavor_profile_id"]):
        response = put_flavor(client, made["id"], flavor_profile_id=target)
        assert response.status_code == 400 and fault(response) == message
    assert client.get(f"{FLAVORS}/{made['id']}").json() == {"flavor": made}


def test_flavor_delete(client: TestClient) -> None:
    made = flavor(client)
    response = client.delete(f"{FLAVORS}/{made['id']}")
    assert response.status_code == 204 and response.content == b""
    response = client.get(f"{FLAVORS}/{made['id']}")
    assert response.status_code == 404
    assert fault(response) == f"Flavor {made['id']} not found."
    response = client.delete(f"{FLAVORS}/{made['id']}")
    assert response.status_code == 404
    assert fault(response) == f"Flavor {made['id']} not found."
    response = put_flavor(client, made["id"], name="x")
    assert response.status_code == 404
    assert fault(response) == f"Flavor {made['id']} not found."


def test_null_name_and_description_are_shown_empty(client: TestClient) -> None:
    """Octavia 19 stores them NULL and shows "" (api/common/types.py, from_db_obj): a null
    name is 201 on create and 200 on update, and NULL names never clash."""
    prof = profile(client)
    response = post_flavor(client, name=None, flavor_profile_id=prof["id"], description=None)
    assert response.status_code == 201, response.text
    first = response.json()["flavor"]
    assert first == {
        "id": first["id"],
        "name": "",
        "description": "",
        "enabled": True,
        "flavor_profile_id": prof["id"],
    }
    second = flavor(client, prof["id"], name=None)
    assert second == {**first, "id": second["id"]}
    named = flavor(client, prof["id"], description="has a name")
    response = put_flavor(client, named["id"], name=None)
    assert response.status_code == 200
    assert response.json() == {"flavor": {**named, "name": ""}}
    listed = client.get(FLAVORS, params={"flavor_profile_id": prof["id"], "sort": "id"})
    expected = sorted([first, second, {**named, "name": ""}], key=lambda f: f["id"])
    assert listed.json() == {"flavors": expected, "flavors_links": []}
    # "" matches a missing name, as Octavia's filter does.
    by_name = client.get(FLAVORS, params={"flavor_profile_id": prof["id"], "name": ""})
    assert by_name.json()["flavors"] == expected
    assert client.get(f"{FLAVORS}/{first['id']}").json() == {"flavor": first}
    # A flavor without a name is named again, and that name is unique as ever.
    response = put_flavor(client, first["id"], name=named["name"])
    assert response.status_code == 200
    response = put_flavor(client, second["id"], name=named["name"])
    assert response.status_code == 409
    assert fault(response) == f"A flavor of {named['name']} already exists."
    # Resolving one without a name shows its name as stored.
    response = resolve(client, second["id"])
    assert response.status_code == 200 and response.json()["flavor_name"] is None


NIL = "00000000-0000-0000-0000-000000000000"


def test_nil_placeholder_profile(client: TestClient) -> None:
    """Octavia 19's placeholder profile: flavors may be created on it, it is hidden from
    the list, and show, update and delete answer 404 in Octavia's words."""
    missing = f"Flavor profile {NIL} not found."
    response = client.get(f"{PROFILES}/{NIL}")
    assert response.status_code == 404 and fault(response) == missing
    response = put_profile(client, NIL, name="mine")
    assert response.status_code == 404 and fault(response) == missing
    response = client.delete(f"{PROFILES}/{NIL}")
    assert response.status_code == 404 and fault(response) == missing
    listed = client.get(PROFILES, params={"limit": 1000}).json()["flavorprofiles"]
    assert NIL not in [p["id"] for p in listed]
    response = client.get(PROFILES, params={"name": "DELETED-PLACEHOLDER"})
    assert response.json() == {"flavorprofiles": [], "flavorprofile_links": []}
    response = client.get(PROFILES, params={"marker": NIL})
    assert response.status_code == 404 and fault(response) == f"Marker {NIL} not found."

    name = unique("on-nil")
    response = post_flavor(client, name=name, flavor_profile_id=NIL)
    assert response.status_code == 201, response.text
    made = response.json()["flavor"]
    assert made == {
        "id": made["id"],
        "name": name,
        "description": "",
        "enabled": True,
        "flavor_profile_id": NIL,
    }
    response = client.get(FLAVORS, params={"flavor_profile_id": NIL, "name": name})
    assert response.json() == {"flavors": [made], "flavors_links": []}
    # In use or not, the placeholder stays out of reach.
    response = client.delete(f"{PROFILES}/{NIL}")
    assert response.status_code == 404 and fault(response) == missing

    # Resolving is a clear refusal (Octavia: "Provider 'DELETED' is not enabled.").
    response = resolve(client, made["id"])
    assert response.status_code == 400
    assert problem(response) == (
        f"Flavor '{made['id']}' cannot be used: its profile {NIL} is Octavia's placeholder, "
        "with no provider (provider 'DELETED' is not enabled)"
    )
    assert client.delete(f"{FLAVORS}/{made['id']}").status_code == 204

    # No flavor has the nil id (Octavia hides its placeholder flavor the same way).
    for response in (
        client.get(f"{FLAVORS}/{NIL}"),
        put_flavor(client, NIL, name="x"),
        client.delete(f"{FLAVORS}/{NIL}"),
    ):
        assert response.status_code == 404 and fault(response) == f"Flavor {NIL} not found."


# ---------------------------------------------------------------- flavor list queries


@pytest.fixture
def trio(client: TestClient) -> tuple[str, list[dict[str, Any]]]:
    """One profile with three flavors named a-, b-, c- (b disabled); in name order."""
    prof = profile(client)
    tag = uuid.uuid4().hex[:8]
    made = [
        flavor(client, prof["id"], name=f"a-{tag}", description="first"),
        flavor(client, prof["id"], name=f"b-{tag}", enabled=False),
        flavor(client, prof["id"], name=f"c-{tag}", description="third"),
    ]
    return prof["id"], made


def names(response: Any) -> list[str]:
    assert response.status_code == 200, response.text
    return [f["name"][0] for f in response.json()["flavors"]]


def test_flavor_list_filters(client: TestClient, trio: tuple[str, list[dict[str, Any]]]) -> None:
    profile_id, made = trio
    by_profile = {"flavor_profile_id": profile_id}
    response = client.get(FLAVORS, params=by_profile)
    assert response.json() == {"flavors": sorted(made, key=lambda f: f["id"]), "flavors_links": []}
    response = client.get(FLAVORS, params={"name": made[1]["name"]})
    assert response.json() == {"flavors": [made[1]], "flavors_links": []}
    response = client.get(FLAVORS, params={**by_profile, "enabled": "false"})
    assert response.json()["flavors"] == [made[1]]
    response = client.get(FLAVORS, params={**by_profile, "enabled": "True"})
    assert sorted(names(response)) == ["a", "c"]
    response = client.get(FLAVORS, params={**by_profile, "description": "third"})
    assert names(response) == ["c"]
    response = client.get(FLAVORS, params={**by_profile, "enabled": "maybe"})
    assert response.status_code == 400
    assert fault(response) == "Invalid value for enabled: 'maybe'; use true or false"
    response = client.get(FLAVORS, params={"flavor_profile_id": str(uuid.uuid4())})
    assert response.json() == {"flavors": [], "flavors_links": []}


def test_flavor_list_fields(client: TestClient, trio: tuple[str, list[dict[str, Any]]]) -> None:
    profile_id, made = trio
    ordered = sorted(made, key=lambda f: f["id"])
    response = client.get(
        FLAVORS, params=[("flavor_profile_id", profile_id), ("fields", "id"), ("fields", "name")]
    )
    assert response.status_code == 200
    assert response.json()["flavors"] == [{"id": f["id"], "name": f["name"]} for f in ordered]
    response = client.get(
        FLAVORS, params={"flavor_profile_id": profile_id, "fields": "enabled,name"}
    )
    assert response.json()["flavors"] == [
        {"enabled": f["enabled"], "name": f["name"]} for f in ordered
    ]
    response = client.get(FLAVORS, params={"flavor_profile_id": profile_id, "fields": "size"})
    assert response.status_code == 400
    assert fault(response) == (
        "Unknown field 'size' in fields; known: id, name, description, enabled, flavor_profile_id"
    )
    shown = client.get(f"{FLAVORS}/{made[0]['id']}?fields=name&fields=enabled")
    assert shown.json() == {"flavor": {"name": made[0]["name"], "enabled": True}}


def test_flavor_list_sorting(client: TestClient, trio: tuple[str, list[dict[str, Any]]]) -> None:
    profile_id, _ = trio
    by_profile = {"flavor_profile_id": profile_id}
    assert names(client.get(FLAVORS, params={**by_profile, "sort": "name:desc"})) == [
        "c",
        "b",
        "a",
    ]
    assert names(client.get(FLAVORS, params={**by_profile, "sort": "name"})) == ["a", "b", "c"]
    sort = {**by_profile, "sort_key": "name", "sort_dir": "desc"}
    assert names(client.get(FLAVORS, params=sort)) == ["c", "b", "a"]
    assert names(client.get(FLAVORS, params={**by_profile, "sort_key": "name"})) == [
        "a",
        "b",
        "c",
    ]
    # Disabled first (false < true), then by name descending.
    multi = {**by_profile, "sort": "enabled:asc,name:desc"}
    assert names(client.get(FLAVORS, params=multi)) == ["b", "c", "a"]

    for params, message in (
        (
            {"sort": "size:asc"},
            "Invalid sort key 'size'; sort by one of id, name, description, enabled, flavor_profile_id",
        ),
        ({"sort": "name:sideways"}, "Invalid sort direction 'sideways': use asc or desc"),
        ({"sort_dir": "up"}, "Invalid sort direction 'up': use asc or desc"),
        ({"sort": "name", "sort_key": "name"}, "Use either sort or sort_key/sort_dir, not both"),
    ):
        response = client.get(FLAVORS, params={**by_profile, **params})
        assert response.status_code == 400 and fault(response) == message


def test_flavor_list_paging(client: TestClient, trio: tuple[str, list[dict[str, Any]]]) -> None:
    profile_id, made = trio
    params = {"flavor_profile_id": profile_id, "sort": "name:asc", "limit": "1"}
    first = client.get(FLAVORS, params=params).json()
    assert first["flavors"] == [made[0]]
    assert first["flavors_links"] == [
        {
            "href": f"{HOST}{FLAVORS}?flavor_profile_id={profile_id}&sort=name%3Aasc&limit=1"
            f"&marker={made[0]['id']}",
            "rel": "next",
        }
    ]
    second = follow(client, first["flavors_links"][0]["href"]).json()
    assert second["flavors"] == [made[1]]
    second_links = links(second, "flavors_links")
    assert set(second_links) == {"next", "previous"}
    assert dict(query_of(second_links["previous"])) == {
        "flavor_profile_id": profile_id,
        "sort": "name:asc",
        "limit": "1",
        "marker": made[1]["id"],
        "page_reverse": "True",
    }
    third = follow(client, second_links["next"]).json()
    assert third["flavors"] == [made[2]]
    assert set(links(third, "flavors_links")) == {"previous"}
    back = follow(client, links(third, "flavors_links")["previous"]).json()
    assert back["flavors"] == [made[1]]
    back = follow(client, second_links["previous"]).json()
    assert back["flavors"] == [made[0]]

    whole = client.get(FLAVORS, params={**params, "limit": "5"}).json()
    assert whole["flavors"] == made and whole["flavors_links"] == []
    rest = client.get(FLAVORS, params={**params, "limit": "2", "marker": made[0]["id"]}).json()
    assert rest["flavors"] == made[1:]
    assert set(links(rest, "flavors_links")) == {"previous"}


def test_flavor_next_link_keeps_repeated_fields(
    client: TestClient, trio: tuple[str, list[dict[str, Any]]]
) -> None:
    """Following a next link gives the next page of the same query: every fields= value."""
    profile_id, made = trio
    params = {
        "flavor_profile_id": profile_id,
        "sort": "name",
        "limit": "1",
        "fields": ["id", "name"],
    }
    first = client.get(FLAVORS, params=params).json()
    assert first["flavors"] == [{"id": made[0]["id"], "name": made[0]["name"]}]
    href = links(first, "flavors_links")["next"]
    assert [v for k, v in query_of(href) if k == "fields"] == ["id", "name"]
    second = follow(client, href).json()
    assert second["flavors"] == [{"id": made[1]["id"], "name": made[1]["name"]}]


def test_flavor_reverse_page_without_marker_honours_limit(
    client: TestClient, trio: tuple[str, list[dict[str, Any]]]
) -> None:
    """page_reverse without a marker is the last page, of at most limit flavors."""
    profile_id, made = trio
    params = {"flavor_profile_id": profile_id, "sort": "name", "limit": "1"}
    response = client.get(FLAVORS, params={**params, "page_reverse": "True"})
    assert response.status_code == 200
    assert response.json()["flavors"] == [made[2]]


def test_flavor_list_links_use_the_v2_0_root(
    client: TestClient, trio: tuple[str, list[dict[str, Any]]]
) -> None:
    profile_id, _ = trio
    response = client.get(f"{LB20}/flavors", params={"flavor_profile_id": profile_id, "limit": 2})
    (link,) = response.json()["flavors_links"]
    assert link["href"].startswith(f"{HOST}{LB20}/flavors?")


@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({"limit": "0"}, 400, "Invalid limit 0: use a positive integer"),
        ({"limit": "-2"}, 400, "Invalid limit -2: use a positive integer"),
        ({"limit": "ten"}, 400, "Invalid limit 'ten': use a positive integer"),
        ({"bogus": "1"}, 400, INVALID_ARGS),
        ({"provider_name": "noop"}, 400, INVALID_ARGS),
        (
            {"page_reverse": "perhaps"},
            400,
            "Invalid value for page_reverse: 'perhaps'; use true or false",
        ),
    ],
)
def test_flavor_list_bad_queries(
    client: TestClient, params: dict[str, str], status: int, message: str
) -> None:
    response = client.get(FLAVORS, params=params)
    assert response.status_code == status and fault(response) == message


def test_flavor_list_duplicate_parameter_and_bad_marker(client: TestClient) -> None:
    response = client.get(FLAVORS, params=[("name", "a"), ("name", "b")])
    assert response.status_code == 400 and fault(response) == INVALID_ARGS
    response = client.get(FLAVORS, params=[("limit", "1"), ("limit", "2")])
    assert response.status_code == 400 and fault(response) == INVALID_ARGS
    missing = str(uuid.uuid4())
    response = client.get(FLAVORS, params={"marker": missing})
    assert response.status_code == 404 and fault(response) == f"Marker {missing} not found."


# ---------------------------------------------------------------- resolve


def test_resolve_noop_flavor(client: TestClient) -> None:
    data = json.dumps({"noop_option": "fast", "other": [1, 2]})
    prof = profile(client, flavor_data=data)
    made = flavor(client, prof["id"])
    response = resolve(client, made["id"])
    assert response.status_code == 200
    assert response.json() == {
        "flavor_id": made["id"],
        "flavor_name": made["name"],
        "flavor_profile_id": prof["id"],
        "provider": "noop",
        "flavor_data": {"noop_option": "fast", "other": [1, 2]},
        "metadata": {"noop_option": "fast", "other": [1, 2]},
    }
    response = resolve(client, made["id"], {"provider": "noop"})
    assert response.status_code == 200 and response.json()["provider"] == "noop"


def test_resolve_baremetal_flavor(client: TestClient) -> None:
    headers = {"X-OpenStack-Ironic-API-Version": "latest"}
    nodes = "/baremetal/v1/nodes"
    able, unable = unique("n-vmx"), unique("n-plain")
    for name in (able, unable):
        body = {"driver": "fake-hardware", "name": name, "resource_class": "c2.large"}
        response = client.post(nodes, json=body, headers=headers)
        assert response.status_code == 201, response.text
    response = client.put(
        f"{nodes}/{able}/traits", json={"traits": [VMX_ON, MIRROR]}, headers=headers
    )
    assert response.status_code == 204, response.text

    data = bm("c2.large", VMX_ON, MIRROR)
    prof = profile(client, provider_name="baremetal", flavor_data=data)
    made = flavor(client, prof["id"], description="VT-x and a mirror")
    response = resolve(client, made["id"], {"provider": "baremetal"})
    assert response.status_code == 200
    body = response.json()
    metadata = body.pop("metadata")
    assert body == {
        "flavor_id": made["id"],
        "flavor_name": made["name"],
        "flavor_profile_id": prof["id"],
        "provider": "baremetal",
        "flavor_data": {"resource_class": "c2.large", "deploy_templates": [VMX_ON, MIRROR]},
    }
    found = metadata.pop("nodes")
    assert metadata == {
        "resource_class": "c2.large",
        "placement_resource_class": "CUSTOM_C2_LARGE",
        "deploy_templates": [VMX_ON, MIRROR],
        "instance_info": {"traits": [VMX_ON, MIRROR]},
    }
    assert able in found and unable not in found

    plain = flavor(
        client, profile(client, provider_name="baremetal", flavor_data=bm("c2.large"))["id"]
    )
    metadata = resolve(client, plain["id"]).json()["metadata"]
    assert metadata["deploy_templates"] == [] and metadata["instance_info"] == {"traits": []}
    assert able in metadata["nodes"] and unable in metadata["nodes"]


def test_resolve_disabled_flavor(client: TestClient) -> None:
    made = flavor(client, enabled=False)
    response = resolve(client, made["id"])
    assert response.status_code == 400
    assert problem(response) == (
        f"The selected flavor is not allowed in this deployment: {made['name']}"
    )
    assert put_flavor(client, made["id"], enabled=True).status_code == 200
    assert resolve(client, made["id"]).status_code == 200


def test_resolve_provider_mismatch(client: TestClient) -> None:
    prof = profile(client, provider_name="baremetal", flavor_data=bm("m1.small"))
    made = flavor(client, prof["id"])
    response = resolve(client, made["id"], {"provider": "noop"})
    assert response.status_code == 400
    assert problem(response) == (
        f"Flavor '{made['id']}' is not compatible with provider 'noop': its profile uses "
        "provider 'baremetal'"
    )


def test_resolve_unknown_flavor_and_bad_bodies(client: TestClient) -> None:
    missing = str(uuid.uuid4())
    response = resolve(client, missing)
    assert response.status_code == 404 and problem(response) == f"Flavor {missing} not found."
    made = flavor(client)
    # The body is checked against the schema the contract declares (and documents).
    for body, expected in (
        (
            {"provider": 3},
            "The resolve request's 'provider' must be a string or null, not a number",
        ),
        (
            {"provider": "noop", "x": 1},
            "Unknown field 'x' in the resolve request; allowed: provider",
        ),
        (["noop"], "The resolve request must be a JSON object"),
    ):
        response = resolve(client, made["id"], body)
        assert response.status_code == 400 and problem(response) == expected
    response = client.post(f"/v1/service-flavors/{made['id']}/resolve?x=1")
    assert response.status_code == 400
    assert problem(response) == "Unknown query parameter 'x'; allowed: none"


def test_resolve_profile_that_no_longer_validates(
    client: TestClient, migrated_engine: Engine
) -> None:
    """A row the API would refuse (written before a driver change): resolve validates again."""
    ident = str(uuid.uuid4())
    row = {
        "id": ident,
        "name": unique("p"),
        "provider_name": "baremetal",
        "flavor_data": bm("c2.large", "CUSTOM_GONE"),
    }
    with migrated_engine.begin() as connection:
        store.insert_profile(connection, row)
    made = flavor(client, ident)
    response = resolve(client, made["id"])
    assert response.status_code == 400
    assert problem(response) == (
        NOT_SUPPORTED + "deploy_templates: 'CUSTOM_GONE' is not a deploy template in the "
        f"catalog; defined: {TEMPLATES}"
    )

    broken = {**row, "id": str(uuid.uuid4()), "flavor_data": "not json"}
    with migrated_engine.begin() as connection:
        store.insert_profile(connection, broken)
    made = flavor(client, broken["id"])
    response = resolve(client, made["id"])
    assert response.status_code == 400
    assert problem(response) == "not json is not a valid option for flavor_data"


def test_resolve_after_the_catalog_lost_a_template(migrated_engine: Engine, tmp_path: Path) -> None:
    repo = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    with TestClient(build_app(migrated_engine, repo=repo)) as client:
        prof = profile(client, provider_name="baremetal", flavor_data=bm("c2.large", VMX_ON))
        made = flavor(client, prof["id"])
        assert resolve(client, made["id"]).status_code == 200

        (repo / "hardware" / "deploy-templates" / f"{VMX_ON}.yaml").unlink()
        kustomization = repo / "hardware" / "base" / "kustomization.yaml"
        kept = [ln for ln in kustomization.read_text().splitlines() if VMX_ON not in ln]
        kustomization.write_text("\n".join(kept) + "\n")
        assert client.post("/v1/catalog/reload").status_code == 200

        response = resolve(client, made["id"])
        assert response.status_code == 400
        remaining = ", ".join(sorted([VMX_OFF, MIRROR, STRIPE]))
        assert problem(response) == (
            NOT_SUPPORTED + f"deploy_templates: {VMX_ON!r} is not a deploy template in the "
            f"catalog; defined: {remaining}"
        )
        capabilities = client.get(f"{LB}/providers/baremetal/flavor_capabilities").json()
        assert VMX_ON not in capabilities["flavor_capabilities"][1]["description"]


def test_resolve_when_the_provider_is_no_longer_enabled(
    client: TestClient, make_client: ClientFactory
) -> None:
    prof = profile(client, provider_name="baremetal", flavor_data=bm("c2.large"))
    made = flavor(client, prof["id"])
    only_noop = make_client(providers="noop:Only noop.")
    response = resolve(only_noop, made["id"])
    assert response.status_code == 400
    assert problem(response) == "Provider 'baremetal' is not enabled."


# ---------------------------------------------------------------- driver faults


def test_driver_crash_listing_capabilities_is_a_sanitised_502(
    migrated_engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        crashing_client(migrated_engine, "capabilities") as client,
        caplog.at_level(logging.ERROR, logger="flavorsmith.providers"),
    ):
        response = client.get(f"{LB}/providers/x/flavor_capabilities")
        assert response.status_code == 502
        text = fault(response)
        assert text == (
            "Provider 'x' failed to list its capabilities; the error is in the service log"
        )
        assert SECRET not in response.text
        assert SECRET in caplog.text
        assert client.get(f"{LB}/providers").json()["providers"][-1] == {
            "name": "x",
            "description": "d",
        }


def test_driver_crash_validating_is_a_sanitised_502(migrated_engine: Engine) -> None:
    with crashing_client(migrated_engine, "validate") as client:
        name = unique("p")
        response = post_profile(client, name=name, provider_name="x", flavor_data="{}")
        assert response.status_code == 502
        assert fault(response) == (
            "Provider 'x' failed while validating the flavor data; the error is in the service log"
        )
        assert SECRET not in response.text
        listed = client.get(PROFILES, params={"name": name}).json()
        assert listed["flavorprofiles"] == []


def test_driver_refusal_and_crash_at_resolve(migrated_engine: Engine) -> None:
    with crashing_client(migrated_engine) as client:
        prof = profile(client, provider_name="x", flavor_data='{"size": "small"}')
        made = flavor(client, prof["id"])
        response = resolve(client, made["id"])
        assert response.status_code == 200
        assert response.json()["metadata"] == {"size": "small", "expanded": True}
        response = post_profile(client, provider_name="x", flavor_data='{"size": "huge"}')
        assert response.status_code == 400
        assert fault(response) == (
            "Provider 'x' does not support a requested option: size 'huge' is too big"
        )
        capabilities = client.get(f"{LB}/providers/x/flavor_capabilities").json()
        assert capabilities == {
            "flavor_capabilities": [{"name": "size", "description": "How big."}]
        }

        client.app.state.services.providers.providers["x"] = Provider(  # type: ignore[attr-defined]
            "x", "d", CrashingDriver("expand")
        )
        response = resolve(client, made["id"])
        assert response.status_code == 502
        assert problem(response) == (
            "Provider 'x' failed while expanding the flavor data; the error is in the service log"
        )
        assert SECRET not in response.text
        client.app.state.services.providers.providers["x"] = Provider(  # type: ignore[attr-defined]
            "x", "d", CrashingDriver("validate")
        )
        response = resolve(client, made["id"])
        assert response.status_code == 502
        assert problem(response) == (
            "Provider 'x' failed while validating the flavor data; the error is in the service log"
        )
        assert SECRET not in response.text


# ---------------------------------------------------------------- provider configuration


def test_provider_disabled_through_settings(make_client: ClientFactory) -> None:
    client = make_client(providers="noop:Only the no-op driver.")
    response = client.get(f"{LB}/providers")
    assert response.json() == {
        "providers": [{"name": "noop", "description": "Only the no-op driver."}]
    }
    response = post_profile(client, provider_name="baremetal", flavor_data=bm("c2.large"))
    assert response.status_code == 400
    assert fault(response) == "Provider 'baremetal' is not enabled."
    response = client.get(f"{LB}/providers/baremetal/flavor_capabilities")
    assert response.status_code == 400
    assert fault(response) == "Provider 'baremetal' is not enabled."
    assert post_profile(client).status_code == 201


def test_provider_without_a_driver_is_reported_and_the_app_serves(
    make_client: ClientFactory,
) -> None:
    client = make_client(providers="noop:No-op.,ghost:A provider nobody installed.")
    registry = client.app.state.services.providers  # type: ignore[attr-defined]
    assert registry.failures == {
        "ghost": "no driver named 'ghost' is installed (entry point group "
        "flavorsmith.provider_drivers)"
    }
    assert list(registry.providers) == ["noop"]
    response = client.get(f"{LB}/providers")
    assert response.status_code == 200
    assert response.json() == {"providers": [{"name": "noop", "description": "No-op."}]}
    response = post_profile(client, provider_name="ghost", flavor_data="{}")
    assert response.status_code == 400
    assert fault(response) == "Provider 'ghost' is not enabled."
    assert flavor(client)["enabled"] is True


# ---------------------------------------------------------------- RBAC


def test_reader_and_member_rights(make_client: ClientFactory, token_file: Path) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    admin = {"X-Auth-Token": "admin-token"}
    prof = profile_as(client, admin)
    made = flavor_as(client, admin, prof["id"])
    for token in ("reader-token", "member-token", "observer-token"):
        headers = {"X-Auth-Token": token}
        assert client.get(f"{LB}/providers", headers=headers).status_code == 200
        assert client.get(f"{LB20}/providers", headers=headers).status_code == 200
        listed = client.get(FLAVORS, params={"name": made["name"]}, headers=headers)
        assert listed.status_code == 200 and listed.json()["flavors"] == [made]
        shown = client.get(f"{FLAVORS}/{made['id']}", headers=headers)
        assert shown.status_code == 200 and shown.json() == {"flavor": made}
        resolved = resolve(client, made["id"], headers=headers)
        assert resolved.status_code == 200 and resolved.json()["flavor_id"] == made["id"]

        denied = [
            client.get(f"{LB}/providers/noop/flavor_capabilities", headers=headers),
            client.get(f"{LB}/providers/noop/availability_zone_capabilities", headers=headers),
            client.get(PROFILES, headers=headers),
            client.get(f"{PROFILES}/{prof['id']}", headers=headers),
            client.post(
                PROFILES,
                json={"flavorprofile": {"name": "x", "provider_name": "noop", "flavor_data": "{}"}},
                headers=headers,
            ),
            client.put(
                f"{PROFILES}/{prof['id']}", json={"flavorprofile": {"name": "x"}}, headers=headers
            ),
            client.delete(f"{PROFILES}/{prof['id']}", headers=headers),
            client.post(
                FLAVORS,
                json={"flavor": {"name": unique(), "flavor_profile_id": prof["id"]}},
                headers=headers,
            ),
            client.put(f"{FLAVORS}/{made['id']}", json={"flavor": {"name": "x"}}, headers=headers),
            client.delete(f"{FLAVORS}/{made['id']}", headers=headers),
        ]
        for response in denied:
            assert response.status_code == 403, (token, response.request.url)
            assert fault(response) == DENIED
    assert client.get(f"{FLAVORS}/{made['id']}", headers=admin).json() == {"flavor": made}
    assert client.get(f"{PROFILES}/{prof['id']}", headers=admin).json() == {"flavorprofile": prof}


def test_admin_does_everything(make_client: ClientFactory, token_file: Path) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    admin = {"X-Auth-Token": "admin-token"}
    url = f"{LB}/providers/baremetal/flavor_capabilities"
    assert client.get(url, headers=admin).status_code == 200
    assert (
        client.get(f"{LB}/providers/noop/availability_zone_capabilities", headers=admin).status_code
        == 200
    )
    prof = profile_as(client, admin)
    assert client.get(PROFILES, params={"id": prof["id"]}, headers=admin).json()[
        "flavorprofiles"
    ] == [prof]
    renamed = client.put(
        f"{PROFILES}/{prof['id']}", json={"flavorprofile": {"name": "renamed"}}, headers=admin
    )
    assert renamed.status_code == 200
    made = flavor_as(client, admin, prof["id"])
    response = client.put(
        f"{FLAVORS}/{made['id']}", json={"flavor": {"enabled": False}}, headers=admin
    )
    assert response.status_code == 200 and response.json()["flavor"]["enabled"] is False
    assert resolve(client, made["id"], headers=admin).status_code == 400
    assert client.delete(f"{FLAVORS}/{made['id']}", headers=admin).status_code == 204
    assert client.delete(f"{PROFILES}/{prof['id']}", headers=admin).status_code == 204


def test_no_token_is_401(make_client: ClientFactory, token_file: Path) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    for response in (
        client.get(f"{LB}/providers"),
        client.get(FLAVORS),
        client.get(PROFILES),
        resolve(client, str(uuid.uuid4())),
    ):
        assert response.status_code == 401


def profile_as(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    body = {"name": unique("p"), "provider_name": "noop", "flavor_data": "{}"}
    response = client.post(PROFILES, json={"flavorprofile": body}, headers=headers)
    assert response.status_code == 201, response.text
    return dict(response.json()["flavorprofile"])


def flavor_as(client: TestClient, headers: dict[str, str], profile_id: str) -> dict[str, Any]:
    body = {"name": unique("f"), "flavor_profile_id": profile_id}
    response = client.post(FLAVORS, json={"flavor": body}, headers=headers)
    assert response.status_code == 201, response.text
    return dict(response.json()["flavor"])
