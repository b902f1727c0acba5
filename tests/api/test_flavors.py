"""The Nova flavors API over HTTP on SQLite and PostgreSQL: fields by microversion, every
status code, visibility, flavor access and extra specs in every validation mode."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import ClientFactory

URL = "/compute/v2.1/flavors"
LATEST = {"OpenStack-API-Version": "compute latest"}


def v(version: str) -> dict[str, str]:
    return {"OpenStack-API-Version": f"compute {version}"}


def fault(response: Any) -> tuple[str, str]:
    ((name, body),) = response.json().items()
    assert body["code"] == response.status_code
    return name, body["message"]


def create(
    client: TestClient, headers: dict[str, str] | None = None, **flavor: Any
) -> dict[str, Any]:
    flavor.setdefault("name", f"f-{uuid.uuid4().hex[:8]}")
    flavor.setdefault("ram", 1024)
    flavor.setdefault("vcpus", 2)
    flavor.setdefault("disk", 10)
    response = client.post(URL, json={"flavor": flavor}, headers=headers or LATEST)
    assert response.status_code == 200, response.text
    return dict(response.json()["flavor"])


def test_create_and_show_fields_by_microversion(client: TestClient) -> None:
    flavor = create(client, headers=v("2.1"), id=f"id-{uuid.uuid4().hex[:6]}")
    assert list(flavor) == [
        "id",
        "name",
        "ram",
        "disk",
        "swap",
        "OS-FLV-EXT-DATA:ephemeral",
        "OS-FLV-DISABLED:disabled",
        "vcpus",
        "os-flavor-access:is_public",
        "rxtx_factor",
        "links",
    ]
    assert flavor["swap"] == "" and flavor["links"][0] == {
        "rel": "self",
        "href": f"http://testserver/compute/v2.1/flavors/{flavor['id']}",
    }
    shown = client.get(f"{URL}/{flavor['id']}", headers=v("2.61")).json()["flavor"]
    assert shown["description"] is None and shown["extra_specs"] == {} and "rxtx_factor" in shown
    latest = client.get(f"{URL}/{flavor['id']}", headers=LATEST).json()["flavor"]
    assert (
        "rxtx_factor" not in latest
        and "OS-FLV-DISABLED:disabled" not in latest
        and latest["swap"] == 0
    )


def test_generated_and_numeric_ids(client: TestClient) -> None:
    generated = create(client)
    assert uuid.UUID(generated["id"])
    number = 10_000 + uuid.uuid4().int % 1_000_000
    assert create(client, id=number)["id"] == str(number)


@pytest.mark.parametrize(
    ("flavor", "message"),
    [
        (
            {"name": "x", "ram": 1, "vcpus": 1},
            "Invalid input for field/attribute flavor. 'disk' is a required property",
        ),
        (
            {"name": "x", "ram": "x", "vcpus": 1, "disk": 1},
            "Invalid input for field/attribute ram. Value: x. Expected an integer",
        ),
        (
            {"name": "x", "ram": 1, "vcpus": 0, "disk": 1},
            "Invalid input for field/attribute vcpus. Value: 0. 0 is less than the minimum of 1",
        ),
        (
            {"name": " x", "ram": 1, "vcpus": 1, "disk": 1},
            "An invalid 'name' value was provided. The name must be: printable characters. Can not start or end with whitespace.",
        ),
        (
            {"name": "x", "ram": 1, "vcpus": 1, "disk": 1, "id": " bad"},
            "Invalid input for field/attribute id. Value:  bad. Allowed: letters a-z and A-Z, digits, '.', '_', '-' and inner spaces, at most 255 characters",
        ),
        (
            {"name": "x", "ram": 1, "vcpus": 1, "disk": 1, "bogus": 1},
            "Invalid input for field/attribute flavor. Additional properties are not allowed ('bogus' was unexpected); allowed at this microversion: OS-FLV-EXT-DATA:ephemeral, description, disk, id, name, os-flavor-access:is_public, ram, swap, vcpus",
        ),
    ],
)
def test_create_rejects_bad_bodies(
    client: TestClient, flavor: dict[str, Any], message: str
) -> None:
    response = client.post(URL, json={"flavor": flavor}, headers=LATEST)
    assert (response.status_code, fault(response)) == (400, ("badRequest", message))


def test_description_needs_2_55(client: TestClient) -> None:
    response = client.post(
        URL,
        json={"flavor": {"name": "d", "ram": 1, "vcpus": 1, "disk": 1, "description": "x"}},
        headers=v("2.54"),
    )
    assert response.status_code == 400 and "'description' was unexpected" in fault(response)[1]


def test_create_conflicts(client: TestClient) -> None:
    flavor = create(client)
    again = client.post(
        URL,
        json={"flavor": {"name": flavor["name"], "ram": 1, "vcpus": 1, "disk": 1}},
        headers=LATEST,
    )
    assert (again.status_code, fault(again)) == (
        409,
        ("conflictingRequest", f"Flavor with name {flavor['name']} already exists."),
    )
    same_id = client.post(
        URL,
        json={
            "flavor": {
                "name": "other-" + flavor["name"],
                "ram": 1,
                "vcpus": 1,
                "disk": 1,
                "id": flavor["id"],
            }
        },
        headers=LATEST,
    )
    assert (same_id.status_code, fault(same_id)) == (
        409,
        ("conflictingRequest", f"Flavor with ID {flavor['id']} already exists."),
    )


def test_update_description_and_delete(client: TestClient) -> None:
    flavor = create(client, description="old")
    url = f"{URL}/{flavor['id']}"
    updated = client.put(url, json={"flavor": {"description": "new"}}, headers=v("2.55"))
    assert updated.status_code == 200 and updated.json()["flavor"]["description"] == "new"
    assert (
        client.put(url, json={"flavor": {"description": "x"}}, headers=v("2.54")).status_code == 404
    )
    rename = client.put(url, json={"flavor": {"description": "x", "name": "y"}}, headers=LATEST)
    assert rename.status_code == 400
    deleted = client.delete(url, headers=LATEST)
    assert (deleted.status_code, deleted.content) == (202, b"")
    assert deleted.headers["content-type"] == "application/json"
    gone = client.get(url, headers=LATEST)
    assert (gone.status_code, fault(gone)) == (
        404,
        ("itemNotFound", f"Flavor {flavor['id']} could not be found."),
    )
    assert client.delete(url, headers=LATEST).status_code == 404


def test_list_filters_sort_and_pages(client: TestClient) -> None:
    tag = uuid.uuid4().hex[:6]
    made = [create(client, name=f"pg-{tag}-{i}", ram=1000 + i, disk=i) for i in range(5)]
    by_name = client.get(
        f"{URL}/detail?name=^pg-{tag}-&sort_key=name&sort_dir=desc", headers=LATEST
    ).json()["flavors"]
    assert [f["name"] for f in by_name] == [f"pg-{tag}-{i}" for i in reversed(range(5))]
    big = client.get(f"{URL}/detail?name=^pg-{tag}-&minRam=1003&minDisk=4", headers=LATEST).json()[
        "flavors"
    ]
    assert [f["name"] for f in big] == [f"pg-{tag}-4"]
    seen: list[str] = []
    url: str | None = f"{URL}?name=^pg-{tag}-&sort_key=name&limit=2"
    while url:
        body = client.get(url, headers=LATEST).json()
        seen += [f["name"] for f in body["flavors"]]
        links = body.get("flavors_links")
        url = links[0]["href"].replace("http://testserver", "") if links else None
    assert seen == sorted(f["name"] for f in made)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("minRam=abc", "Invalid minRam filter [abc]"),
        (  # from 2.102 rxtx_factor is no sort key, as in Nova 34
            "sort_key=bogus",
            "Invalid input for query parameters sort_key. Value: bogus. 'bogus' is not one of ['created_at', 'description', 'disabled', 'ephemeral_gb', 'flavorid', 'id', 'is_public', 'memory_mb', 'name', 'root_gb', 'swap', 'updated_at', 'vcpu_weight', 'vcpus']",
        ),
        (
            "sort_key=rxtx_factor",
            "Invalid input for query parameters sort_key. Value: rxtx_factor. 'rxtx_factor' is not one of ['created_at', 'description', 'disabled', 'ephemeral_gb', 'flavorid', 'id', 'is_public', 'memory_mb', 'name', 'root_gb', 'swap', 'updated_at', 'vcpu_weight', 'vcpus']",
        ),
        ("marker=nope", "marker [nope] not found"),
        (
            "limit=-1",
            "Invalid input for query parameters limit. Value: -1. '-1' does not match '^[0-9]*$'",
        ),
        (
            "name=((",
            "The name filter '((' is not RE2 syntax (RE2 says \"missing ): ((\"); RE2 syntax is required (patterns run in linear time: no backreferences, no lookaround)",
        ),
        (
            "name=(%3F%3Da)b",
            "The name filter '(?=a)b' is not RE2 syntax (RE2 says \"invalid perl operator: (?=\"); RE2 syntax is required (patterns run in linear time: no backreferences, no lookaround)",
        ),
        (
            "bogus=1",
            "Unknown query parameter 'bogus'; allowed: is_public, limit, marker, minDisk, minRam, name, sort_dir, sort_key",
        ),
    ],
)
def test_bad_list_queries(client: TestClient, query: str, message: str) -> None:
    response = client.get(f"{URL}?{query}", headers=LATEST)
    assert (response.status_code, fault(response)) == (400, ("badRequest", message))


def test_name_filter_runs_in_linear_time(client: TestClient) -> None:
    """^(a*)*x$ backtracks exponentially in Python's re on a long name of a's; RE2 answers."""
    create(client, name="a" * 200, ram=512, disk=1)
    response = client.get(f"{URL}?name=^(a*)*x$", headers=LATEST)
    assert (response.status_code, response.json()) == (200, {"flavors": []})


def test_unknown_query_parameters_ignored_before_2_75(client: TestClient) -> None:
    assert client.get(f"{URL}?bogus=1", headers=v("2.74")).status_code == 200


@pytest.fixture
def auth_client(make_client: ClientFactory, token_file: Path) -> TestClient:
    return make_client(auth="token-file", token_file=token_file)


def test_private_flavors_and_access(auth_client: TestClient) -> None:
    admin = {**LATEST, "X-Auth-Token": "admin-token"}
    member = {**LATEST, "X-Auth-Token": "member-token"}  # project p1
    private = create(auth_client, headers=admin, **{"os-flavor-access:is_public": False})
    url = f"{URL}/{private['id']}"
    assert auth_client.get(url, headers=member).status_code == 404
    assert private["id"] not in [
        f["id"] for f in auth_client.get(URL, headers=member).json()["flavors"]
    ]
    added = auth_client.post(
        f"{url}/action", json={"addTenantAccess": {"tenant": "p1"}}, headers=admin
    )
    assert added.json() == {"flavor_access": [{"flavor_id": private["id"], "tenant_id": "p1"}]}
    assert auth_client.get(url, headers=member).status_code == 200
    assert private["id"] in [
        f["id"] for f in auth_client.get(URL, headers=member).json()["flavors"]
    ]
    assert private["id"] in [
        f["id"] for f in auth_client.get(f"{URL}?is_public=none", headers=admin).json()["flavors"]
    ]
    assert private["id"] not in [
        f["id"] for f in auth_client.get(URL, headers=admin).json()["flavors"]
    ]
    assert private["id"] in [
        f["id"] for f in auth_client.get(f"{URL}?is_public=false", headers=admin).json()["flavors"]
    ]
    duplicate = auth_client.post(
        f"{url}/action", json={"addTenantAccess": {"tenant": "p1"}}, headers=admin
    )
    assert (duplicate.status_code, fault(duplicate)) == (
        409,
        (
            "conflictingRequest",
            f"Flavor access already exists for flavor {private['id']} and project p1 combination.",
        ),
    )
    missing = auth_client.post(
        f"{url}/action", json={"removeTenantAccess": {"tenant": "nope"}}, headers=admin
    )
    assert (missing.status_code, fault(missing)) == (
        404,
        ("itemNotFound", f"Flavor access not found for {private['id']} / nope combination."),
    )
    denied = auth_client.post(
        f"{url}/action", json={"addTenantAccess": {"tenant": "p2"}}, headers=member
    )
    assert (denied.status_code, fault(denied)) == (
        403,
        (
            "forbidden",
            "Policy doesn't allow os_compute_api:os-flavor-access:add_tenant_access to be performed.",
        ),
    )
    assert auth_client.get(f"{url}/os-flavor-access", headers=admin).json() == {
        "flavor_access": [{"flavor_id": private["id"], "tenant_id": "p1"}]
    }
    removed = auth_client.post(
        f"{url}/action", json={"removeTenantAccess": {"tenant": "p1"}}, headers=admin
    )
    assert removed.json() == {"flavor_access": []}
    assert auth_client.get(url, headers=member).status_code == 404


def test_access_rules_on_public_flavors(auth_client: TestClient) -> None:
    admin = {**LATEST, "X-Auth-Token": "admin-token"}
    public = create(auth_client, headers=admin)
    url = f"{URL}/{public['id']}"
    listed = auth_client.get(f"{url}/os-flavor-access", headers=admin)
    assert (listed.status_code, fault(listed)) == (
        404,
        ("itemNotFound", "Access list not available for public flavors."),
    )
    added = auth_client.post(
        f"{url}/action", json={"addTenantAccess": {"tenant": "p1"}}, headers=admin
    )
    assert (added.status_code, fault(added)) == (
        409,
        ("conflictingRequest", "Can not add access to a public flavor."),
    )
    bad = auth_client.post(f"{url}/action", json={"bogus": {}}, headers=admin)
    assert (bad.status_code, fault(bad)) == (400, ("badRequest", "There is no such action: bogus"))


def test_writes_need_admin(auth_client: TestClient) -> None:
    member = {**LATEST, "X-Auth-Token": "member-token"}
    response = auth_client.post(
        URL, json={"flavor": {"name": "m", "ram": 1, "vcpus": 1, "disk": 1}}, headers=member
    )
    assert (response.status_code, fault(response)) == (
        403,
        (
            "forbidden",
            "Policy doesn't allow os_compute_api:os-flavor-manage:create to be performed.",
        ),
    )
    assert auth_client.get(URL, headers={"X-Auth-Token": "reader-token"}).status_code == 200
    assert auth_client.get(URL).status_code == 401


def test_extra_specs_lifecycle(client: TestClient) -> None:
    flavor = create(client)
    url = f"{URL}/{flavor['id']}/os-extra_specs"
    created = client.post(
        url, json={"extra_specs": {"hw:cpu_policy": "dedicated", "site:x": 1}}, headers=LATEST
    )
    # A number is echoed as sent and stored as text, as Nova does.
    assert created.json() == {"extra_specs": {"hw:cpu_policy": "dedicated", "site:x": 1}}
    assert client.get(url, headers=LATEST).json() == {
        "extra_specs": {"hw:cpu_policy": "dedicated", "site:x": "1"}
    }
    assert client.get(f"{url}/hw:cpu_policy", headers=LATEST).json() == {
        "hw:cpu_policy": "dedicated"
    }
    assert client.put(
        f"{url}/hw:cpu_policy", json={"hw:cpu_policy": "shared"}, headers=LATEST
    ).json() == {"hw:cpu_policy": "shared"}
    mismatch = client.put(f"{url}/hw:cpu_policy", json={"hw:numa_nodes": "1"}, headers=LATEST)
    assert (mismatch.status_code, fault(mismatch)) == (
        400,
        ("badRequest", "Request body and URI mismatch"),
    )
    two = client.put(
        f"{url}/hw:cpu_policy", json={"hw:cpu_policy": "shared", "a": "b"}, headers=LATEST
    )
    assert two.status_code == 400
    assert client.delete(f"{url}/site:x", headers=LATEST).status_code == 200
    missing = client.delete(f"{url}/site:x", headers=LATEST)
    assert (missing.status_code, fault(missing)) == (
        404,
        ("itemNotFound", f"Flavor {flavor['id']} has no extra specs with key site:x."),
    )
    shown = client.get(f"{URL}/{flavor['id']}", headers=LATEST).json()["flavor"]
    assert shown["extra_specs"] == {"hw:cpu_policy": "shared"}


@pytest.mark.parametrize(
    ("mode", "accepted"),
    [
        ("nova", {"good", "unregistered"}),
        ("strict", {"good"}),
        ("permissive", {"good", "unregistered", "unknown"}),
        ("off", {"good", "unregistered", "unknown", "bad"}),
    ],
)
def test_validation_modes(client: TestClient, mode: str, accepted: set[str]) -> None:
    flavor = create(client)
    url = f"{URL}/{flavor['id']}/os-extra_specs?validation={mode}"
    cases = {
        "good": {"hw:numa_nodes": "2"},
        "unregistered": {"site:thing": "x"},
        "unknown": {"hw:cpu_polcy": "dedicated"},
        "bad": {"hw:numa_nodes": "0"},
    }
    got = {
        name
        for name, specs in cases.items()
        if client.post(url, json={"extra_specs": specs}, headers=LATEST).status_code == 200
    }
    assert got == accepted


def test_one_bad_pair_rejects_everything(client: TestClient) -> None:
    flavor = create(client)
    url = f"{URL}/{flavor['id']}/os-extra_specs"
    response = client.post(
        url,
        json={"extra_specs": {"hw:numa_nodes": "2", "hw:cpu_polcy": "dedicated"}},
        headers=LATEST,
    )
    assert (response.status_code, fault(response)) == (
        400,
        (
            "badRequest",
            "Validation failed; hw:cpu_polcy is not a known key of namespace hw (did you mean 'hw:cpu_policy'?)",
        ),
    )
    assert client.get(url, headers=LATEST).json() == {"extra_specs": {}}


def test_validation_follows_microversion_and_parameter(client: TestClient) -> None:
    flavor = create(client)
    url = f"{URL}/{flavor['id']}/os-extra_specs"
    assert (
        client.post(
            url, json={"extra_specs": {"hw:numa_nodes": "0"}}, headers=v("2.85")
        ).status_code
        == 200
    )
    assert (
        client.post(
            url, json={"extra_specs": {"hw:numa_nodes": "0"}}, headers=v("2.86")
        ).status_code
        == 400
    )
    assert (
        client.post(
            f"{url}?validation=strict", json={"extra_specs": {"x": "1"}}, headers=v("2.1")
        ).status_code
        == 400
    )
    bad_mode = client.post(
        f"{url}?validation=lenient", json={"extra_specs": {"x": "1"}}, headers=LATEST
    )
    assert (bad_mode.status_code, fault(bad_mode)) == (
        400,
        (
            "badRequest",
            "Invalid validation mode 'lenient': choose one of nova, strict, permissive, off "
            "(disabled is off)",
        ),
    )
    # "disabled" is the same as "off": nothing is checked, at any microversion.
    for mode in ("off", "disabled"):
        lenient = client.post(
            f"{url}?validation={mode}",
            json={"extra_specs": {"hw:numa_nodes": "0"}},
            headers=LATEST,
        )
        assert lenient.json() == {"extra_specs": {"hw:numa_nodes": "0"}}
    bad_key = client.post(url, json={"extra_specs": {"a/b": "1"}}, headers=LATEST)
    assert bad_key.status_code == 400 and "Invalid extra spec key 'a/b'" in fault(bad_key)[1]


def test_ironic_capabilities_follow_nova_in_nova_mode(client: TestClient) -> None:
    flavor = create(client)
    url = f"{URL}/{flavor['id']}/os-extra_specs"
    refused = client.post(
        url, json={"extra_specs": {"capabilities:boot_mode": "uefi"}}, headers=LATEST
    )
    assert refused.status_code == 400 and "Nova >= 2.86 refuses it" in fault(refused)[1]
    assert (
        client.post(
            f"{url}?validation=strict",
            json={"extra_specs": {"capabilities:boot_mode": "uefi"}},
            headers=LATEST,
        ).status_code
        == 200
    )
    assert (
        client.post(
            f"{url}?validation=strict",
            json={"extra_specs": {"capabilities:boot_mode": "efi"}},
            headers=LATEST,
        ).status_code
        == 400
    )
    assert (
        client.post(
            url, json={"extra_specs": {"capabilities:boot_mode": "uefi"}}, headers=v("2.85")
        ).status_code
        == 200
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [(True, "True. True"), (False, "False. False"), (None, "None. None"), ([1], "[1]. [1]")],
)
@pytest.mark.parametrize("version", ["2.1", "2.86"])
def test_extra_spec_value_neither_string_nor_number(
    client: TestClient, value: Any, shown: str, version: str
) -> None:
    """Nova 34's schema (tests/integration/test_compute_matches_real_nova.py compares)."""
    url = f"{URL}/{create(client)['id']}/os-extra_specs"
    message = f"Invalid input for field/attribute hw:numa_nodes. Value: {shown} is not of type 'string', 'number'"
    for response in (
        client.post(url, json={"extra_specs": {"hw:numa_nodes": value}}, headers=v(version)),
        client.put(f"{url}/hw:numa_nodes", json={"hw:numa_nodes": value}, headers=v(version)),
    ):
        assert (response.status_code, fault(response)) == (400, ("badRequest", message))
        assert response.headers["content-type"] == "application/json; charset=UTF-8"
    assert client.get(url).json() == {"extra_specs": {}}


def test_extra_spec_numbers_echoed_stored_as_text(client: TestClient) -> None:
    url = f"{URL}/{create(client)['id']}/os-extra_specs"
    specs = {"hw:numa_nodes": 2, "site:a": 1e3, "site:b": 1.50, "site:c": -0.0}
    created = client.post(url, json={"extra_specs": specs}, headers=LATEST)
    assert created.json() == {"extra_specs": specs}
    assert client.put(f"{url}/site:a", json={"site:a": 3}).json() == {"site:a": 3}
    assert client.get(url).json() == {
        "extra_specs": {"hw:numa_nodes": "2", "site:a": "3", "site:b": "1.5", "site:c": "-0.0"}
    }
