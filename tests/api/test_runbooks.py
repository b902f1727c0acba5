"""Runbooks (/baremetal/v1/runbooks, from 1.92) and their traits (from 1.112) with Ironic 39's
status codes and messages, on SQLite and PostgreSQL.

The database is shared by every test of a backend, so each test names its runbooks uniquely
and looks only at its own runbooks in a list."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flavorsmith.api.app import policy_defaults
from flavorsmith.api.auth import Identity
from flavorsmith.api.policy import Enforcer
from tests.api.conftest import ClientFactory

LATEST = {"X-OpenStack-Ironic-API-Version": "latest"}
V92 = {"X-OpenStack-Ironic-API-Version": "1.92"}
V111 = {"X-OpenStack-Ironic-API-Version": "1.111"}
URL = "/baremetal/v1/runbooks"
HOST = "http://testserver"
RESET = {"interface": "bios", "step": "factory_reset", "args": {}, "order": 1}
RAID = {"interface": "raid", "step": "delete_configuration", "args": {}, "order": 2}


def fault(response: Any) -> str:
    return str(json.loads(response.json()["error_message"])["faultstring"])


def unique(tag: str = "rb") -> str:
    return f"{tag}-{uuid.uuid4().hex[:10]}"


def make(client: TestClient, **fields: Any) -> dict[str, Any]:
    body = {"name": unique(), "steps": [RESET], **fields}
    response = client.post(URL, json=body, headers=LATEST)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


@pytest.fixture
def client(make_client: ClientFactory) -> TestClient:
    return make_client()


def test_create_show_and_its_fields_in_ironics_order(client: TestClient) -> None:
    name = unique()
    sent = {
        "name": name,
        "description": "firmware window",
        "steps": [
            {
                "interface": "bios",
                "step": "apply_configuration",
                "args": {"settings": []},
                "order": "3",
            },
            {"interface": "raid", "step": "delete_configuration", "order": 1},
        ],
        "extra": {"k": "v"},
        "disable_ramdisk": True,
    }
    response = client.post(URL, json=sent, headers=LATEST)
    assert response.status_code == 201, response.text
    body = response.json()
    assert response.headers["Location"] == f"{HOST}/baremetal/v1/runbooks/{body['uuid']}"
    assert list(body) == [
        "uuid", "created_at", "updated_at", "name", "extra", "public", "owner",
        "disable_ramdisk", "description", "links", "steps", "traits",
    ]  # fmt: skip
    assert body["steps"] == [
        {"interface": "bios", "step": "apply_configuration", "args": {"settings": []}, "order": 3},
        {"interface": "raid", "step": "delete_configuration", "args": {}, "order": 1},
    ]
    assert (body["public"], body["owner"], body["traits"], body["updated_at"]) == (
        False, None, [], None,
    )  # fmt: skip
    assert body["links"] == [
        {"href": f"{HOST}/baremetal/v1/runbooks/{body['uuid']}", "rel": "self"},
        {"href": f"{HOST}/baremetal/runbooks/{body['uuid']}", "rel": "bookmark"},
    ]
    for ident in (name, body["uuid"]):
        assert client.get(f"{URL}/{ident}", headers=LATEST).json() == body
    # Before 1.112 a runbook has no description and no traits, and the name must be a trait.
    old = client.get(f"{URL}/{name}", headers=V92).json()
    assert "description" not in old and "traits" not in old
    only = client.get(f"{URL}/{name}?fields=name,steps", headers=LATEST).json()
    assert list(only) == ["name", "links", "steps"]
    refused = client.get(f"{URL}/{name}?fields=traits", headers=V111)
    assert refused.status_code == 400 and fault(refused) == 'Field(s) "traits" are not valid'


def test_before_1_92_reads_are_404_and_writes_405(client: TestClient) -> None:
    old = {"X-OpenStack-Ironic-API-Version": "1.91"}
    for method, status in (("GET", 404), ("POST", 405), ("PATCH", 405), ("DELETE", 405)):
        path = URL if method in ("GET", "POST") else f"{URL}/x"
        response = client.request(method, path, headers=old, json={} if method != "GET" else None)
        assert response.status_code == status
        assert json.loads(response.json()["error_message"]) == {
            "code": status,
            "title": "Not Found" if status == 404 else "Method Not Allowed",
            "description": "The API version does not allow runbooks",
        }
        # Ironic's router answers before its version handling: no version headers.
        assert not any(h.lower().startswith("x-openstack-ironic-api") for h in response.headers)
        assert response.headers["x-openstack-request-id"]
    made = make(client)
    response = client.get(f"{URL}/{made['name']}/traits", headers=V111)
    assert response.status_code == 404
    assert "The API version does not allow runbook traits" in response.text


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"steps": [RESET]}, "Schema error for runbook: 'name' is a required property"),
        ({"name": "x", "steps": []}, "Schema error for runbook: [] should be non-empty"),
        (
            {"name": "a b", "steps": [RESET]},
            "Schema error for runbook: 'a b' does not match '^[A-Za-z0-9\\\\-._~]+$'",
        ),
        (
            {"name": "x", "steps": [RESET], "traits": ["CUSTOM_A"]},
            "Schema error for runbook: Additional properties are not allowed ('traits' was "
            "unexpected)",
        ),
        (
            {"name": "x", "steps": [{**RESET, "interface": "deployx"}]},
            "Schema error for runbook: 'deployx' is not one of ['vendor', 'power', "
            "'management', 'firmware', 'deploy', 'bios', 'raid']",
        ),
        (
            {"name": "x", "steps": [{**RESET, "order": -1}]},
            "Schema error for runbook: -1 is less than the minimum of 0",
        ),
        (
            {"name": "x", "steps": [{**RESET, "order": "x"}]},
            "Schema error for runbook: 'x' does not match '^[0-9]+$'",
        ),
        (
            {"name": "x", "steps": [{"interface": "bios", "step": "a"}]},
            "Schema error for runbook: 'order' is a required property",
        ),
        (
            {"name": "x", "steps": [{**RESET, "priority": 1}]},
            "Schema error for runbook: Additional properties are not allowed ('priority' was "
            "unexpected)",
        ),
        ({"name": "x", "uuid": "nope", "steps": [RESET]}, "Expected UUID for uuid: nope"),
        (
            {"name": "x", "steps": [RESET, {**RESET, "order": 2}]},
            "Deploy template invalid: Duplicate deploy steps. A template cannot have multiple "
            "deploy steps with the same interface and step. Duplicates: interface: bios, step: "
            "factory_reset.",
        ),
        (
            {"name": "x", "steps": [RESET], "owner": "p2"},
            "Cannot create a runbook as a project scoped admin with an owner other than your "
            "own project.",
        ),
        ([], "Schema error for runbook: [] is not of type 'object'"),
    ],
)
def test_a_bad_create_is_refused_in_ironics_words(
    client: TestClient, body: Any, message: str
) -> None:
    response = client.post(URL, json=body, headers=LATEST)
    assert response.status_code == 400, response.text
    assert fault(response) == message


def test_secret_arguments_are_masked_as_ironic_shows_them(client: TestClient) -> None:
    args = {"settings": [{"name": "a"}], "bmc": {"Password": "p", "user": "u"}, "auth_token": 1}
    made = make(client, steps=[{**RESET, "args": args}])
    shown = {"settings": [{"name": "a"}], "bmc": {"Password": "******", "user": "u"},
             "auth_token": "******"}  # fmt: skip
    assert made["steps"][0]["args"] == shown
    assert client.get(f"{URL}/{made['uuid']}", headers=LATEST).json()["steps"][0]["args"] == shown


def test_names_before_1_112_are_traits(client: TestClient) -> None:
    response = client.post(URL, json={"name": "rb3", "steps": [RESET]}, headers=V92)
    assert response.status_code == 400
    assert "'rb3' does not match '^CUSTOM_[A-Z0-9_]+$'" in fault(response)
    name = f"CUSTOM_RB_{uuid.uuid4().hex[:8].upper()}"
    response = client.post(URL, json={"name": name, "steps": [RESET]}, headers=V92)
    assert response.status_code == 201
    described = client.post(
        URL, json={"name": unique(), "steps": [RESET], "description": "d"}, headers=V111
    )
    assert described.status_code == 400 and "'description' was unexpected" in fault(described)


def test_duplicates_conflict(client: TestClient) -> None:
    made = make(client)
    again = client.post(URL, json={"name": made["name"], "steps": [RESET]}, headers=LATEST)
    assert again.status_code == 409
    assert fault(again) == f"A runbook with name {made['name']} already exists."
    same = client.post(
        URL, json={"name": unique(), "uuid": made["uuid"], "steps": [RESET]}, headers=LATEST
    )
    assert same.status_code == 409
    assert fault(same) == f"A runbook with UUID {made['uuid']} already exists."


def test_patch_as_ironic(client: TestClient) -> None:
    made = make(client, description="d")
    path = f"{URL}/{made['name']}"

    def patch(ops: list[dict[str, Any]], headers: dict[str, str] = LATEST) -> Any:
        return client.patch(path, json=ops, headers=headers)

    # A step added without args gets {} (Ironic 39 answers a 500), in the place the patch
    # puts it.
    response = patch([{"op": "add", "path": "/steps/0", "value": {**RAID, "args": None}}])
    assert response.status_code == 400  # args must be an object when sent
    added = patch(
        [{"op": "add", "path": "/steps/0", "value": {k: v for k, v in RAID.items() if k != "args"}}]
    )
    assert added.status_code == 200, added.text
    assert added.json()["steps"] == [RAID, RESET]
    assert added.json()["updated_at"] is not None
    for ops, message in (
        (
            [{"op": "add", "path": "/traits", "value": ["CUSTOM_X"]}],
            "Cannot patch /traits. Only the following can be updated: disable_ramdisk, extra, "
            "name, owner, public, steps, description",
        ),
        (
            [{"op": "add", "path": "/uuid", "value": "x"}],
            "Cannot patch /uuid. Only the following can be updated: disable_ramdisk, extra, "
            "name, owner, public, steps, description",
        ),
        (
            [{"op": "remove", "path": "/steps"}],
            "Schema error for patch: 'steps' is a required property",
        ),
        (
            [{"op": "replace", "path": "/steps/0/order", "value": "x"}],
            "Schema error for patch: 'x' does not match '^[0-9]+$'",
        ),
    ):
        response = patch(ops)
        assert response.status_code == 400, ops
        assert fault(response) == message
    old = patch([{"op": "add", "path": "/description", "value": "x"}], V111)
    assert fault(old) == (
        "Cannot patch /description. Only the following can be updated: disable_ramdisk, extra, "
        "name, owner, public, steps"
    )
    # An owner, then public (which clears the owner), then an owner on a public runbook.
    owned = patch([{"op": "add", "path": "/owner", "value": "p1"}])
    assert owned.json()["owner"] == "p1"
    public = patch([{"op": "add", "path": "/public", "value": True}])
    assert (public.json()["public"], public.json()["owner"]) == (True, None)
    refused = patch([{"op": "add", "path": "/owner", "value": "p1"}])
    assert refused.status_code == 400
    assert fault(refused) == (
        "Couldn't apply patch '[{'op': 'add', 'path': '/owner', 'value': 'p1'}]'. Reason: "
        "There cannot be an owner for a public runbook"
    )
    # Even an owner set to null, as the real Ironic 39 refuses it (its check is on the
    # operation, not the value); removing the owner passes.
    nulled = patch([{"op": "replace", "path": "/owner", "value": None}])
    assert nulled.status_code == 400
    assert fault(nulled).endswith("Reason: There cannot be an owner for a public runbook")
    assert patch([{"op": "remove", "path": "/owner"}]).status_code == 200
    both = patch(
        [
            {"op": "add", "path": "/owner", "value": "p1"},
            {"op": "add", "path": "/public", "value": False},
        ]
    )
    assert (both.json()["public"], both.json()["owner"]) == (False, "p1")
    same = patch([])
    assert same.status_code == 200 and same.json() == both.json()
    renamed = patch([{"op": "replace", "path": "/name", "value": made["name"] + "-2"}])
    assert renamed.status_code == 200
    assert client.get(f"{URL}/{made['name']}", headers=LATEST).status_code == 404


def test_traits_sub_resource(client: TestClient) -> None:
    made = make(client)
    traits = f"{URL}/{made['name']}/traits"
    assert client.get(traits, headers=LATEST).json() == {"traits": []}
    put = client.put(traits, json={"traits": ["CUSTOM_Z", "CUSTOM_A", "CUSTOM_A"]}, headers=LATEST)
    assert put.status_code == 204 and put.content == b""
    assert client.get(traits, headers=LATEST).json() == {"traits": ["CUSTOM_A", "CUSTOM_Z"]}
    one = client.put(f"{traits}/CUSTOM_B", headers=LATEST)
    assert one.status_code == 204
    assert one.headers["Location"] == f"{HOST}/baremetal/v1/runbooks/{made['name']}/traits/CUSTOM_B"
    shown = client.get(f"{URL}/{made['uuid']}", headers=LATEST).json()
    assert shown["traits"] == ["CUSTOM_A", "CUSTOM_B", "CUSTOM_Z"]
    assert shown["updated_at"] is None  # as Ironic: traits are not the runbook's row
    assert client.delete(f"{traits}/CUSTOM_Z", headers=LATEST).status_code == 204
    assert client.delete(f"{traits}/CUSTOM_NEVER", headers=LATEST).status_code == 204
    assert client.get(traits, headers=LATEST).json() == {"traits": ["CUSTOM_A", "CUSTOM_B"]}
    assert client.delete(traits, headers=LATEST).status_code == 204
    assert client.get(traits, headers=LATEST).json() == {"traits": []}
    for response, message in (
        (client.put(traits, headers=LATEST), rules_put_message()),
        (
            client.put(f"{traits}/CUSTOM_C", json={"traits": ["CUSTOM_D"]}, headers=LATEST),
            rules_put_message(),
        ),
        (
            client.put(f"{traits}/CUSTOM_C", json={"a": 1}, headers=LATEST),
            "No body should be provided when adding a trait",
        ),
        (
            client.put(traits, json={"traits": ["lower"]}, headers=LATEST),
            "Schema error for body: 'lower' is not valid under any of the given schemas. "
            "Possible root cause: 'lower' does not match '^CUSTOM_[A-Z0-9_]+$'",
        ),
        (
            client.put(f"{traits}/lower", headers=LATEST),
            "Schema error for trait: 'lower' is not valid under any of the given schemas. "
            "Possible root cause: 'lower' does not match '^CUSTOM_[A-Z0-9_]+$'",
        ),
    ):
        assert response.status_code == 400
        assert fault(response) == message
    missing = client.get(f"{URL}/{unique()}/traits", headers=LATEST)
    assert missing.status_code == 404


def rules_put_message() -> str:
    return (
        "A single runbook trait may be added via PUT /v1/runbooks/<runbook identifier>/traits/"
        "<trait> with no body, or all runbook traits may be replaced via PUT /v1/runbooks/"
        "<runbook identifier>/traits with the list of traits specified in the request body."
    )


def test_list_pages_fields_detail_and_sort(client: TestClient) -> None:
    tag = uuid.uuid4().hex[:8]
    made = [make(client, name=f"{tag}-{i}", public=i == 1) for i in range(3)]
    ours = {r["uuid"] for r in made}
    names = {r["name"] for r in made}

    def listed(query: str) -> list[dict[str, Any]]:
        response = client.get(f"{URL}?{query}", headers=LATEST)
        assert response.status_code == 200, response.text
        return [r for r in response.json()["runbooks"] if r["name"] in names]

    short = listed("")
    assert [list(r) for r in short] == [["uuid", "name", "links"]] * 3
    detail = listed("detail=true")
    assert detail[0] == client.get(f"{URL}/{made[0]['uuid']}", headers=LATEST).json()
    assert [list(r) for r in listed("fields=name,traits")] == [["name", "links", "traits"]] * 3
    assert [r["name"] for r in listed("sort_key=name&sort_dir=desc")] == [
        f"{tag}-2", f"{tag}-1", f"{tag}-0",
    ]  # fmt: skip
    # noauth has no project: ?project=true lists the public runbooks (as Ironic does).
    assert [r["name"] for r in listed("project=true")] == [f"{tag}-1"]
    seen: list[str] = []
    url = f"{URL}?limit=1&sort_key=created_at"
    while url:
        page = client.get(url, headers=LATEST).json()
        seen.extend(r["uuid"] for r in page["runbooks"])
        url = page.get("next", "").replace(HOST, "")
    assert [u for u in seen if u in ours] == [r["uuid"] for r in made]
    for query, status, message in (
        (
            "detail=true&fields=name",
            400,
            "Can not specify ?detail=True and fields in the same request.",
        ),
        ("fields=name,foo", 400, 'Field(s) "foo" are not valid'),
        ("sort_key=steps", 400, "The sort_key value steps is an invalid field for sorting"),
        ("sort_key=foo", 400, 'The sort_key value "foo" is an invalid field for sorting'),
        ("marker=nope", 404, "Runbook nope could not be found."),
    ):
        response = client.get(f"{URL}?{query}", headers=LATEST)
        assert response.status_code == status, query
        assert fault(response) == message
    bad = client.get(f"{URL}?project=p1", headers=LATEST)
    assert (
        bad.status_code == 400 and "invalid project: unrecognized value 'p1'" in fault(bad).lower()
    )


def test_delete_and_identifiers(client: TestClient) -> None:
    made = make(client)
    bad = client.get(f"{URL}/r%20b", headers=LATEST)
    assert bad.status_code == 400 and fault(bad) == "Expected UUID or name for runbook_ident: r b"
    assert client.delete(f"{URL}/{made['uuid']}", headers=LATEST).status_code == 204
    gone = client.delete(f"{URL}/{made['uuid']}", headers=LATEST)
    assert gone.status_code == 404
    assert fault(gone) == f"Runbook {made['uuid']} could not be found."


def test_readers_read_and_admins_write(make_client: ClientFactory, token_file: Path) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    admin = {**LATEST, "X-Auth-Token": "admin-token"}
    reader = {**LATEST, "X-Auth-Token": "reader-token"}
    made = client.post(URL, json={"name": unique(), "steps": [RESET]}, headers=admin)
    assert made.status_code == 201, made.text
    name = made.json()["name"]
    assert client.get(f"{URL}/{name}", headers=reader).status_code == 200
    assert client.get(f"{URL}/{name}/traits", headers=reader).status_code == 200
    for method, path, body in (
        ("POST", URL, {"name": unique(), "steps": [RESET]}),
        ("PATCH", f"{URL}/{name}", [{"op": "add", "path": "/extra/a", "value": 1}]),
        ("PUT", f"{URL}/{name}/traits/CUSTOM_A", None),
        ("DELETE", f"{URL}/{name}", None),
    ):
        response = client.request(method, path, json=body, headers=reader)
        assert response.status_code == 403, (method, path)
    assert client.get(f"{URL}/{name}", headers=reader).status_code == 200


def test_keystone_rules_see_owners_and_public_runbooks() -> None:
    """Ironic 39's defaults under Keystone: a project manager manages its project's
    runbooks, a project reader reads them and the public ones, another project's are
    refused, and only system members may make a runbook public or change its owner."""
    enforcer = Enforcer(policy_defaults(keystone=True))
    manager = Identity("u", "p1", frozenset({"manager", "member", "reader"}), scope="project")
    reader = Identity("u", "p1", frozenset({"reader"}), scope="project")
    system = Identity("u", None, frozenset({"member", "reader"}), "system", "all")
    own, other = {"runbook.owner": "p1"}, {"runbook.owner": "p2"}
    assert enforcer.permits("baremetal:runbook:update", manager, own)
    assert not enforcer.permits("baremetal:runbook:update", manager, other)
    assert not enforcer.permits("baremetal:runbook:update", reader, own)
    assert enforcer.permits("baremetal:runbook:get", reader, own)
    assert not enforcer.permits("baremetal:runbook:get", reader, other)
    assert enforcer.permits("baremetal:runbook:create", manager)
    assert not enforcer.permits("baremetal:runbook:update:public", manager, own)
    assert enforcer.permits("baremetal:runbook:update:public", system, other)
    assert enforcer.permits("baremetal:runbook:list", reader)
    assert not enforcer.permits("baremetal:runbook:list_all", reader)
    assert enforcer.permits("baremetal:runbook:list_all", system)
