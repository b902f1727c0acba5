"""Deploy templates (/baremetal/v1/deploy_templates) with Ironic's status codes and messages,
and node validation of the deploy templates named by a node's instance traits.

The database is shared by every test of a backend, so each test names its templates uniquely
and looks only at its own templates in a list."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import ClientFactory

LATEST = {"X-OpenStack-Ironic-API-Version": "latest"}
URL = "/baremetal/v1/deploy_templates"
NODES = "/baremetal/v1/nodes"
HOST = "http://testserver"
NOT_ALLOWED = "The API version does not allow deploy templates"
INTERFACES = "deploy, bios, raid, management, power, firmware, vendor"
PATCHABLE = "description, extra, name, steps"


# ---------------------------------------------------------------- helpers


def fault(response: Any) -> str:
    return str(json.loads(response.json()["error_message"])["faultstring"])


def unique(tag: str = "T") -> str:
    """A fresh trait name, so tests never collide in the shared database."""
    return f"CUSTOM_{tag}_{uuid.uuid4().hex[:10].upper()}"


def step(
    interface: str, name: str, args: dict[str, Any] | None = None, priority: int = 10
) -> dict[str, Any]:
    return {"interface": interface, "step": name, "args": args or {}, "priority": priority}


RAID = step("raid", "apply_configuration", {"raid_config": {"logical_disks": []}}, 90)
BIOS = step(
    "bios", "apply_configuration", {"settings": [{"name": "LogicalProc", "value": "Enabled"}]}, 80
)
RESET = step("bios", "factory_reset", priority=5)


def create(client: TestClient, **fields: Any) -> Any:
    body = {"name": unique(), "steps": [RAID], **fields}
    return client.post(URL, json=body, headers=LATEST)


def make(client: TestClient, **fields: Any) -> dict[str, Any]:
    response = create(client, **fields)
    assert response.status_code == 201, response.text
    return dict(response.json())


def get(client: TestClient, ident: str) -> dict[str, Any]:
    response = client.get(f"{URL}/{ident}", headers=LATEST)
    assert response.status_code == 200, response.text
    return dict(response.json())


def patch(client: TestClient, ident: str, *ops: dict[str, Any]) -> Any:
    return client.patch(f"{URL}/{ident}", json=list(ops), headers=LATEST)


def op(kind: str, path: str, value: Any = None) -> dict[str, Any]:
    return (
        {"op": kind, "path": path}
        if kind == "remove"
        else {"op": kind, "path": path, "value": value}
    )


def links(template_uuid: str) -> list[dict[str, str]]:
    return [
        {"href": f"{HOST}/baremetal/v1/deploy_templates/{template_uuid}", "rel": "self"},
        {"href": f"{HOST}/baremetal/deploy_templates/{template_uuid}", "rel": "bookmark"},
    ]


def when(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    assert parsed.tzinfo is not None, value
    return parsed


def listed(client: TestClient, query: str = "") -> list[dict[str, Any]]:
    response = client.get(f"{URL}{query}", headers=LATEST)
    assert response.status_code == 200, response.text
    return list(response.json()["deploy_templates"])


def mine(items: list[dict[str, Any]], *templates: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries of a list that belong to ``templates``, in the list's order."""
    wanted = {t["uuid"] for t in templates}
    return [i for i in items if i["links"][0]["href"].rsplit("/", 1)[1] in wanted]


# ---------------------------------------------------------------- microversions


@pytest.mark.parametrize(
    "headers",
    [{"X-OpenStack-Ironic-API-Version": "1.54"}, {}],
    ids=["1.54", "no-header-means-1.1"],
)
def test_reads_need_microversion_1_55(client: TestClient, headers: dict[str, str]) -> None:
    template = make(client)
    for path in (URL, f"{URL}/{template['uuid']}"):
        response = client.get(path, headers=headers)
        assert (response.status_code, fault(response)) == (404, NOT_ALLOWED), path


def test_microversion_1_55_is_enough(client: TestClient) -> None:
    v155 = {"X-OpenStack-Ironic-API-Version": "1.55"}
    name = unique()
    created = client.post(URL, json={"name": name, "steps": [RAID]}, headers=v155)
    assert (created.status_code, created.json()["name"]) == (201, name)
    response = client.get(URL, headers=v155)
    assert response.status_code == 200
    assert {
        "uuid": created.json()["uuid"],
        "name": name,
        "links": links(created.json()["uuid"]),
    } in (response.json()["deploy_templates"])
    shown = client.get(f"{URL}/{name}", headers=v155)
    assert (shown.status_code, shown.json()["uuid"]) == (200, created.json()["uuid"])


@pytest.mark.parametrize("method", ["POST", "PATCH", "DELETE"])
def test_writes_below_1_55_are_method_not_allowed_as_in_ironic(
    client: TestClient, method: str
) -> None:
    """Ironic's DeployTemplatesController._route: 404 for GET, 405 for every other method."""
    template = make(client)
    old = {"X-OpenStack-Ironic-API-Version": "1.54"}
    path = URL if method == "POST" else f"{URL}/{template['uuid']}"
    body: Any = {
        "POST": {"name": unique(), "steps": [RAID]},
        "PATCH": [op("replace", "/description", "changed")],
        "DELETE": None,
    }[method]
    response = client.request(method, path, json=body, headers=old)
    assert (response.status_code, fault(response)) == (405, NOT_ALLOWED)
    assert get(client, template["uuid"]) == template


# ---------------------------------------------------------------- create


def test_create_returns_the_whole_template_and_its_location(client: TestClient) -> None:
    name = unique()
    before = datetime.now(UTC)
    response = client.post(
        URL,
        json={
            "name": name,
            "description": "RAID 1 then BIOS settings",
            "steps": [RAID, BIOS],
            "extra": {"owner": "ops", "n": 3},
        },
        headers=LATEST,
    )
    assert response.status_code == 201, response.text
    body = response.json()
    template_uuid = body["uuid"]
    assert uuid.UUID(template_uuid).version == 4
    assert response.headers["location"] == f"{HOST}/baremetal/v1/deploy_templates/{template_uuid}"
    assert body == {
        "uuid": template_uuid,
        "name": name,
        "description": "RAID 1 then BIOS settings",
        "steps": [RAID, BIOS],
        "extra": {"owner": "ops", "n": 3},
        "created_at": body["created_at"],
        "updated_at": None,
        "links": links(template_uuid),
    }
    assert (
        before - timedelta(seconds=5)
        <= when(body["created_at"])
        <= datetime.now(UTC) + timedelta(seconds=5)
    )
    assert get(client, template_uuid) == body


def test_create_with_a_given_uuid_and_only_required_fields(client: TestClient) -> None:
    given = str(uuid.uuid4())
    name = unique()
    response = client.post(
        URL, json={"uuid": given, "name": name, "steps": [RESET]}, headers=LATEST
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["uuid"], body["name"], body["steps"]) == (given, name, [RESET])
    # No description: the key is left out, so the body is Ironic's.
    assert "description" not in body
    assert (body["extra"], body["updated_at"]) == ({}, None)
    assert response.headers["location"].endswith(f"/deploy_templates/{given}")
    assert get(client, name)["uuid"] == given


def test_create_accepts_a_standard_trait_as_name(client: TestClient) -> None:
    standard = "HW_CPU_X86_AVX2"  # no other test uses a standard trait as a name
    response = client.post(URL, json={"name": standard, "steps": [RESET]}, headers=LATEST)
    assert (response.status_code, response.json()["name"]) == (201, standard)
    assert client.delete(f"{URL}/{standard}", headers=LATEST).status_code == 204


def test_duplicate_name_is_a_conflict(client: TestClient) -> None:
    first = make(client, steps=[RAID])
    response = create(client, name=first["name"], steps=[BIOS])
    assert (response.status_code, fault(response)) == (
        409,
        f"A deploy template with name {first['name']} already exists.",
    )
    assert get(client, first["name"]) == first


# ---------------------------------------------------------------- validation on create

LONG_NAME = "CUSTOM_" + "A" * 249  # 256 characters


def bad_name(name: Any) -> str:
    return (
        f"Invalid deploy template name {name!r}: it must be a trait, a standard os-traits name "
        "or CUSTOM_ followed by A-Z, 0-9 and _ (at most 255 characters)"
    )


def without(key: str) -> dict[str, Any]:
    return {k: v for k, v in RAID.items() if k != key}


def changed(**values: Any) -> dict[str, Any]:
    return {**RAID, **values}


NEEDS_STEPS = "A deploy template needs a non-empty list of steps"
DUPLICATE = (
    "Duplicate deploy steps. A template cannot have multiple deploy steps with the same "
    "interface and step. Duplicates: interface: raid, step: x."
)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param({"name": "custom_lower"}, bad_name("custom_lower"), id="name-lowercase"),
        pytest.param(
            {"name": "CUSTOM_lower"}, bad_name("CUSTOM_lower"), id="name-lowercase-suffix"
        ),
        pytest.param({"name": "RAID1"}, bad_name("RAID1"), id="name-without-CUSTOM_"),
        pytest.param({"name": "CUSTOM_"}, bad_name("CUSTOM_"), id="name-CUSTOM_-only"),
        pytest.param({"name": LONG_NAME}, bad_name(LONG_NAME), id="name-too-long"),
        pytest.param({"name": 7}, bad_name(7), id="name-not-a-string"),
        pytest.param({"name": None}, "'name' is a required property", id="name-missing"),
        pytest.param({"steps": None}, "'steps' is a required property", id="steps-missing"),
        pytest.param({"steps": []}, NEEDS_STEPS, id="steps-empty"),
        pytest.param({"steps": RAID}, NEEDS_STEPS, id="steps-an-object"),
        pytest.param({"steps": "raid"}, NEEDS_STEPS, id="steps-a-string"),
        pytest.param(
            {"steps": ["raid.apply_configuration"]},
            "steps[0] must be an object with interface, step, args and priority",
            id="step-not-an-object",
        ),
        pytest.param(
            {"steps": [without("interface")]},
            "steps[0]: 'interface' is a required property",
            id="step-no-interface",
        ),
        pytest.param(
            {"steps": [without("step")]},
            "steps[0]: 'step' is a required property",
            id="step-no-step",
        ),
        pytest.param(
            {"steps": [without("args")]},
            "steps[0]: 'args' is a required property",
            id="step-no-args",
        ),
        pytest.param(
            {"steps": [without("priority")]},
            "steps[0]: 'priority' is a required property",
            id="step-no-priority",
        ),
        pytest.param(
            {"steps": [RESET, changed(reboot=True)]},
            "steps[1]: additional properties are not allowed ('reboot' was unexpected)",
            id="step-extra-key",
        ),
        pytest.param(
            {"steps": [changed(interface="boot")]},
            f"steps[0].interface: 'boot' is not one of {INTERFACES}",
            id="step-bad-interface",
        ),
        pytest.param(
            {"steps": [changed(step="")]},
            "steps[0].step: must be a non-empty string",
            id="step-empty-name",
        ),
        pytest.param(
            {"steps": [changed(step=3)]},
            "steps[0].step: must be a non-empty string",
            id="step-name-not-str",
        ),
        pytest.param(
            {"steps": [changed(args=[])]}, "steps[0].args: must be an object", id="args-a-list"
        ),
        pytest.param(
            {"steps": [changed(args="x=1")]}, "steps[0].args: must be an object", id="args-a-string"
        ),
        pytest.param(
            {"steps": [changed(args=None)]}, "steps[0].args: must be an object", id="args-null"
        ),
        pytest.param(
            {"steps": [changed(priority=-1)]},
            "Schema error for template: -1 is less than the minimum of 0",
            id="priority-negative",
        ),
        pytest.param(
            {"steps": [changed(priority=True)]},
            "Schema error for template: True is not valid under any of the given schemas. Possible root cause: True is not of type 'integer'",
            id="priority-boolean",
        ),
        pytest.param(
            {"steps": [changed(priority="high")]},
            "Schema error for template: 'high' does not match '^[0-9]+$'",
            id="priority-str",
        ),
        pytest.param(
            {"steps": [changed(priority=1.5)]},
            "Schema error for template: 1.5 is not valid under any of the given schemas. Possible root cause: 1.5 is not of type 'integer'",
            id="priority-float",
        ),
        pytest.param(
            {"steps": [step("raid", "x", priority=0), RESET, step("raid", "x", {"a": 1}, 5)]},
            DUPLICATE,
            id="duplicate-steps",
        ),
        pytest.param(
            {"traits": ["CUSTOM_X"]},
            "Additional properties are not allowed ('traits' was unexpected)",
            id="unknown-field",
        ),
        pytest.param(
            {"description": "d" * 256},
            "'description' must be a string of at most 255 characters",
            id="description-too-long",
        ),
        pytest.param(
            {"description": 42},
            "'description' must be a string of at most 255 characters",
            id="description-not-a-string",
        ),
        pytest.param({"extra": ["a"]}, "'extra' must be an object", id="extra-a-list"),
        pytest.param({"uuid": "not-a-uuid"}, "Invalid UUID 'not-a-uuid'", id="uuid-invalid"),
    ],
)
def test_invalid_template_is_refused(
    client: TestClient, body: dict[str, Any], message: str
) -> None:
    name = unique()
    full = {"name": name, "steps": [RAID], **body}
    full = {k: v for k, v in full.items() if v is not None or k not in ("name", "steps")}
    response = client.post(URL, json=full, headers=LATEST)
    assert (response.status_code, fault(response)) == (400, message)
    assert client.get(f"{URL}/{name}", headers=LATEST).status_code == 404  # nothing was stored


def test_body_must_be_an_object(client: TestClient) -> None:
    response = client.post(URL, json=[{"name": unique(), "steps": [RAID]}], headers=LATEST)
    assert (response.status_code, fault(response)) == (
        400,
        "The request body must be a JSON object describing the deploy template",
    )


def test_description_of_255_characters_is_kept(client: TestClient) -> None:
    text = "é" * 255
    created = make(client, description=text)
    assert created["description"] == text
    assert get(client, created["uuid"])["description"] == text


@pytest.mark.parametrize("sent", ["10", "010", 10.0])
def test_digit_string_priority_is_accepted_as_in_ironic(client: TestClient, sent: Any) -> None:
    """Ironic's DEPLOY_STEP_SCHEMA: priority is an integer >= 0 or a string of digits; it is
    stored as an integer, and the create's answer echoes it as sent, as Ironic's does."""
    response = create(client, steps=[changed(priority=sent)])
    assert response.status_code == 201, response.text
    assert response.json()["steps"][0]["priority"] == sent
    shown = get(client, response.json()["uuid"])["steps"][0]["priority"]
    assert (type(shown), shown) == (int, 10)


def test_a_priority_beyond_64_bits_is_refused(client: TestClient) -> None:
    response = create(client, steps=[changed(priority="9" * 20)])
    assert (response.status_code, fault(response)) == (
        400,
        f"Schema error for template: {'9' * 20!r} is more than {2**63 - 1}, the largest",
    )


def test_the_list_marker_is_a_uuid(client: TestClient) -> None:
    """As Ironic: a name (or anything but a template's UUID) is a marker not found."""
    template = make(client)
    for marker in (template["name"], "not-a-uuid"):
        response = client.get(f"{URL}?marker={marker}", headers=LATEST)
        assert (response.status_code, fault(response)) == (
            404,
            f"Deploy template {marker} could not be found.",
        )


@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE"])
def test_an_invalid_identifier_is_400(client: TestClient, method: str) -> None:
    for ident in ("bad name", "A" * 256):
        response = client.request(
            method,
            f"{URL}/{ident.replace(' ', '%20')}",
            headers=LATEST,
            json=[] if method == "PATCH" else None,
        )
        assert (response.status_code, fault(response)) == (
            400,
            f"Expected UUID or name for template_ident: {ident}",
        )


def test_an_empty_patch_changes_nothing(client: TestClient) -> None:
    template = make(client)
    response = client.patch(f"{URL}/{template['uuid']}", json=[], headers=LATEST)
    assert (response.status_code, response.json()) == (200, template)
    assert get(client, template["uuid"]) == template


# ---------------------------------------------------------------- list


def test_list_shows_uuid_name_and_links_by_default(client: TestClient) -> None:
    template = make(client, description="d", extra={"k": "v"})
    items = listed(client)
    assert all(set(i) == {"uuid", "name", "links"} for i in items)
    assert mine(items, template) == [
        {"uuid": template["uuid"], "name": template["name"], "links": links(template["uuid"])}
    ]


def test_list_detail_shows_everything(client: TestClient) -> None:
    template = make(client, description="d", steps=[BIOS, RAID], extra={"k": "v"})
    assert mine(listed(client, "?detail=true"), template) == [template]
    assert mine(listed(client, "?detail=false"), template) == [
        {"uuid": template["uuid"], "name": template["name"], "links": links(template["uuid"])}
    ]


def test_list_chosen_fields(client: TestClient) -> None:
    template = make(client, steps=[BIOS, RAID])
    items = listed(client, "?fields=name,steps")
    assert all(set(i) == {"name", "steps", "links"} for i in items)
    assert mine(items, template) == [
        {"name": template["name"], "steps": [BIOS, RAID], "links": links(template["uuid"])}
    ]


def test_show_chosen_fields(client: TestClient) -> None:
    template = make(client, description="d")
    response = client.get(f"{URL}/{template['name']}?fields=description", headers=LATEST)
    assert (response.status_code, response.json()) == (
        200,
        {"description": "d", "links": links(template["uuid"])},
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "?fields=name,bogus",
            "Unknown deploy template field(s) 'bogus'; known: uuid, name, description, steps, extra, created_at, updated_at",
        ),
        (
            "?detail=true&fields=name",
            "Can not specify ?detail=True and fields in the same request.",
        ),
        ("?sort_dir=sideways", "Invalid sort direction 'sideways': choose asc or desc"),
        ("?limit=0", "Limit must be positive"),
    ],
)
def test_bad_list_query(client: TestClient, query: str, message: str) -> None:
    response = client.get(f"{URL}{query}", headers=LATEST)
    assert (response.status_code, fault(response)) == (400, message)


def test_unknown_field_on_show(client: TestClient) -> None:
    template = make(client)
    response = client.get(f"{URL}/{template['uuid']}?fields=traits", headers=LATEST)
    assert response.status_code == 400
    assert fault(response).startswith("Unknown deploy template field(s) 'traits'")


def test_paging_with_limit_marker_and_next(client: TestClient) -> None:
    first, second, third = (make(client) for _ in range(3))
    # Newest first: the three just made head the list whatever else the database holds.
    response = client.get(f"{URL}?limit=2&sort_dir=desc", headers=LATEST)
    assert response.status_code == 200
    page = response.json()
    assert [i["uuid"] for i in page["deploy_templates"]] == [third["uuid"], second["uuid"]]
    next_url = urlsplit(page["next"])
    assert f"{next_url.scheme}://{next_url.netloc}{next_url.path}" == f"{HOST}{URL}"
    assert parse_qs(next_url.query) == {
        "limit": ["2"],
        "sort_dir": ["desc"],
        "marker": [second["uuid"]],
    }
    following = client.get(f"{next_url.path}?{next_url.query}", headers=LATEST).json()
    assert following["deploy_templates"][0]["uuid"] == first["uuid"]


def test_no_next_link_when_the_page_is_not_full(client: TestClient) -> None:
    template = make(client)
    response = client.get(f"{URL}?marker={template['uuid']}&limit=5", headers=LATEST)
    assert (response.status_code, response.json()) == (200, {"deploy_templates": []})


def test_unknown_marker(client: TestClient) -> None:
    missing = str(uuid.uuid4())
    response = client.get(f"{URL}?marker={missing}", headers=LATEST)
    assert (response.status_code, fault(response)) == (
        404,
        f"Deploy template {missing} could not be found.",
    )


def test_sort_dir(client: TestClient) -> None:
    templates = [make(client) for _ in range(3)]
    names = [t["name"] for t in templates]
    assert [i["name"] for i in mine(listed(client), *templates)] == names
    assert [i["name"] for i in mine(listed(client, "?sort_dir=asc"), *templates)] == names
    assert [i["name"] for i in mine(listed(client, "?sort_dir=desc"), *templates)] == names[::-1]


def test_sort_key_name_as_in_ironic(client: TestClient) -> None:
    """Ironic's get_all takes sort_key (any field but extra and steps)."""
    tag = uuid.uuid4().hex[:8].upper()
    templates = [make(client, name=f"CUSTOM_S{tag}_{letter}") for letter in "CAB"]
    response = client.get(f"{URL}?sort_key=name&sort_dir=desc", headers=LATEST)
    assert response.status_code == 200, response.text
    names = [i["name"] for i in mine(response.json()["deploy_templates"], *templates)]
    assert names == [f"CUSTOM_S{tag}_{letter}" for letter in "CBA"]


# ---------------------------------------------------------------- show


def test_show_by_uuid_and_by_name(client: TestClient) -> None:
    template = make(client, description="shown", steps=[BIOS, RESET], extra={"a": [1, 2]})
    assert get(client, template["uuid"]) == template
    assert get(client, template["name"]) == template


@pytest.mark.parametrize("ident", ["CUSTOM_NEVER_MADE", "5f0e4b9e-3f61-4c33-9a57-1c0b37a1f0d2"])
def test_show_unknown(client: TestClient, ident: str) -> None:
    response = client.get(f"{URL}/{ident}", headers=LATEST)
    assert (response.status_code, fault(response)) == (
        404,
        f"Deploy template {ident} could not be found.",
    )


# ---------------------------------------------------------------- update (JSON patch)


def test_patch_renames(client: TestClient) -> None:
    template = make(client)
    new = unique("RENAMED")
    response = patch(client, template["uuid"], op("replace", "/name", new))
    assert response.status_code == 200, response.text
    assert response.json()["name"] == new
    assert get(client, new)["uuid"] == template["uuid"]
    old = client.get(f"{URL}/{template['name']}", headers=LATEST)
    assert (old.status_code, fault(old)) == (
        404,
        f"Deploy template {template['name']} could not be found.",
    )


def test_patch_replaces_steps_keeping_their_order(client: TestClient) -> None:
    template = make(client, steps=[RAID])
    # Deliberately not in priority order, nor alphabetical: the order given is the order kept.
    steps = [
        step("raid", "delete_configuration", priority=10),
        step("bios", "factory_reset", priority=95),
        step("deploy", "write_image", priority=0),
        step("bios", "apply_configuration", {"settings": []}, 50),
    ]
    response = patch(client, template["name"], op("replace", "/steps", steps))
    assert (response.status_code, response.json()["steps"]) == (200, steps)
    assert get(client, template["uuid"])["steps"] == steps


def test_patch_edits_single_steps(client: TestClient) -> None:
    template = make(client, steps=[RAID, BIOS])
    ident = template["uuid"]
    response = patch(client, ident, op("add", "/steps/-", RESET))
    assert (response.status_code, response.json()["steps"]) == (200, [RAID, BIOS, RESET])
    first = step("deploy", "write_image", priority=0)
    response = patch(client, ident, op("add", "/steps/0", first))
    assert response.json()["steps"] == [first, RAID, BIOS, RESET]
    response = patch(client, ident, op("remove", "/steps/2"))
    assert response.json()["steps"] == [first, RAID, RESET]
    response = patch(client, ident, op("replace", "/steps/1/priority", 7))
    assert (response.status_code, response.json()["steps"]) == (
        200,
        [first, {**RAID, "priority": 7}, RESET],
    )
    assert get(client, ident)["steps"] == [first, {**RAID, "priority": 7}, RESET]


def test_patch_extra_keys(client: TestClient) -> None:
    template = make(client, extra={"keep": 1, "drop": 2})
    ident = template["uuid"]
    assert patch(client, ident, op("add", "/extra/new", {"x": True})).json()["extra"] == {
        "keep": 1,
        "drop": 2,
        "new": {"x": True},
    }
    assert patch(client, ident, op("replace", "/extra/keep", "one")).json()["extra"] == {
        "keep": "one",
        "drop": 2,
        "new": {"x": True},
    }
    response = patch(client, ident, op("remove", "/extra/drop"))
    assert (response.status_code, response.json()["extra"]) == (
        200,
        {"keep": "one", "new": {"x": True}},
    )
    assert get(client, ident)["extra"] == {"keep": "one", "new": {"x": True}}
    assert patch(client, ident, op("replace", "/extra", {"only": "this"})).json()["extra"] == {
        "only": "this"
    }
    assert get(client, ident)["extra"] == {"only": "this"}


def test_patch_description(client: TestClient) -> None:
    template = make(client)
    ident = template["uuid"]
    assert "description" not in template  # unset: left out, as Ironic has none
    asked = client.get(f"{URL}/{ident}?fields=uuid,description", headers=LATEST).json()
    assert asked["description"] is None  # asked for by name: shown, null
    response = patch(client, ident, op("add", "/description", "first words"))
    assert (response.status_code, response.json()["description"]) == (200, "first words")
    assert get(client, ident)["description"] == "first words"
    response = patch(client, ident, op("replace", "/description", "x" * 255))
    assert response.json()["description"] == "x" * 255
    assert get(client, ident)["description"] == "x" * 255
    response = patch(client, ident, op("remove", "/description"))
    assert response.status_code == 200 and "description" not in response.json()
    assert "description" not in get(client, ident)


def test_several_operations_apply_together(client: TestClient) -> None:
    template = make(client, steps=[RAID])
    new = unique("MULTI")
    response = patch(
        client,
        template["uuid"],
        op("replace", "/name", new),
        op("replace", "/steps", [RESET, BIOS]),
        op("add", "/extra/rack", "r1"),
        op("add", "/description", "all at once"),
    )
    assert response.status_code == 200, response.text
    expected = {
        **template,
        "name": new,
        "steps": [RESET, BIOS],
        "extra": {"rack": "r1"},
        "description": "all at once",
        "updated_at": response.json()["updated_at"],
    }
    assert response.json() == expected
    assert get(client, template["uuid"]) == expected


def test_updated_at_moves_on_every_change(client: TestClient) -> None:
    template = make(client)
    ident = template["uuid"]
    assert template["updated_at"] is None
    stamps = []
    for change in (
        op("add", "/description", "one"),
        op("replace", "/steps", [BIOS]),
        op("add", "/extra/k", "v"),
        op("replace", "/name", unique("STAMP")),
    ):
        response = patch(client, ident, change)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["created_at"] == template["created_at"]
        assert body["updated_at"] is not None
        assert get(client, ident)["updated_at"] == body["updated_at"]
        stamps.append(when(body["updated_at"]))
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    assert stamps[0] >= when(template["created_at"])


# ---------------------------------------------------------------- update errors change nothing


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(
            op("replace", "/description", "x"),
            "A deploy template update is a JSON patch: a list of operations",
            id="not-a-list",
        ),
        pytest.param(
            [{"op": "move", "from": "/description", "path": "/extra/d"}],
            "Unsupported patch operation 'move': use add, replace or remove",
            id="bad-op",
        ),
        pytest.param(
            [{"op": "test", "path": "/name", "value": "x"}],
            "Unsupported patch operation 'test': use add, replace or remove",
            id="test-op",
        ),
        pytest.param(
            [op("replace", "/uuid", "5f0e4b9e-3f61-4c33-9a57-1c0b37a1f0d2")],
            f"Cannot patch /uuid. Only the following can be updated: {PATCHABLE}",
            id="uuid",
        ),
        pytest.param(
            [op("replace", "/created_at", "2020-01-01T00:00:00")],
            f"Cannot patch /created_at. Only the following can be updated: {PATCHABLE}",
            id="created_at",
        ),
        pytest.param(
            [op("add", "/traits", ["CUSTOM_X"])],
            f"Cannot patch /traits. Only the following can be updated: {PATCHABLE}",
            id="unknown-path",
        ),
        pytest.param(
            [op("remove", "/name")],
            "Cannot remove /name: a deploy template always has one",
            id="remove-name",
        ),
        pytest.param(
            [op("remove", "/steps")],
            "Cannot remove /steps: a deploy template always has one",
            id="remove-steps",
        ),
        pytest.param([op("replace", "/name", "lowercase")], bad_name("lowercase"), id="bad-name"),
        pytest.param([op("replace", "/steps", [])], NEEDS_STEPS, id="no-steps"),
        pytest.param(
            [op("remove", "/steps/1"), op("remove", "/steps/0")],
            NEEDS_STEPS,
            id="remove-every-step",
        ),
        pytest.param(
            [op("add", "/steps/-", {**RAID, "priority": 1})],
            "Duplicate deploy steps. A template cannot have multiple deploy steps with the same "
            "interface and step. Duplicates: interface: raid, step: apply_configuration.",
            id="duplicate-step",
        ),
        pytest.param(
            [op("replace", "/steps/0/interface", "boot")],
            f"steps[0].interface: 'boot' is not one of {INTERFACES}",
            id="bad-interface",
        ),
        pytest.param(
            [op("add", "/steps/0/reboot", True)],
            "steps[0]: additional properties are not allowed ('reboot' was unexpected)",
            id="step-extra-key",
        ),
        pytest.param(
            [op("replace", "/steps/0/priority", -5)],
            "Schema error for template: -5 is less than the minimum of 0",
            id="negative-priority",
        ),
        pytest.param(
            [op("replace", "/description", "d" * 256)],
            "'description' must be a string of at most 255 characters",
            id="description-too-long",
        ),
        pytest.param(
            [op("replace", "/extra", "x")], "'extra' must be an object", id="extra-not-object"
        ),
        pytest.param(
            [op("remove", "/extra/missing")],
            "Couldn't apply patch: can't remove a non-existent object 'missing'",
            id="remove-missing-key",
        ),
        pytest.param(
            [op("replace", "/description", "changed"), op("remove", "/name")],
            "Cannot remove /name: a deploy template always has one",
            id="valid-then-invalid",
        ),
        pytest.param(
            [op("replace", "/description", "changed"), op("replace", "/steps/0/args", [])],
            "steps[0].args: must be an object",
            id="valid-then-invalid-result",
        ),
    ],
)
def test_bad_patch_changes_nothing(client: TestClient, body: Any, message: str) -> None:
    template = make(client, description="before", extra={"k": "v"}, steps=[RAID, BIOS])
    response = client.patch(f"{URL}/{template['uuid']}", json=body, headers=LATEST)
    assert (response.status_code, fault(response)) == (400, message)
    assert get(client, template["uuid"]) == template


def test_rename_to_an_existing_name_is_a_conflict(client: TestClient) -> None:
    taken = make(client)
    template = make(client, description="mine")
    response = patch(
        client, template["uuid"], op("replace", "/name", taken["name"]), op("add", "/extra/k", 1)
    )
    assert (response.status_code, fault(response)) == (
        409,
        f"A deploy template with name {taken['name']} already exists.",
    )
    assert get(client, template["uuid"]) == template
    assert get(client, taken["uuid"]) == taken


def test_patch_unknown_template(client: TestClient) -> None:
    response = patch(client, "CUSTOM_NEVER_MADE", op("add", "/description", "x"))
    assert (response.status_code, fault(response)) == (
        404,
        "Deploy template CUSTOM_NEVER_MADE could not be found.",
    )


# ---------------------------------------------------------------- delete


@pytest.mark.parametrize("by", ["uuid", "name"])
def test_delete(client: TestClient, by: str) -> None:
    template = make(client)
    response = client.delete(f"{URL}/{template[by]}", headers=LATEST)
    assert (response.status_code, response.content) == (204, b"")
    for ident in (template["uuid"], template["name"]):
        gone = client.get(f"{URL}/{ident}", headers=LATEST)
        assert (gone.status_code, fault(gone)) == (
            404,
            f"Deploy template {ident} could not be found.",
        )
    assert mine(listed(client), template) == []
    again = client.delete(f"{URL}/{template[by]}", headers=LATEST)
    assert (again.status_code, fault(again)) == (
        404,
        f"Deploy template {template[by]} could not be found.",
    )


def test_name_is_free_again_after_delete(client: TestClient) -> None:
    template = make(client)
    assert client.delete(f"{URL}/{template['uuid']}", headers=LATEST).status_code == 204
    again = make(client, name=template["name"])
    assert again["uuid"] != template["uuid"]


# ---------------------------------------------------------------- policy


def auth(token: str) -> dict[str, str]:
    return {**LATEST, "X-Auth-Token": token}


@pytest.mark.parametrize("role", ["reader", "observer", "member", "admin"])
def test_everyone_with_a_role_may_read(
    make_client: ClientFactory, token_file: Path, role: str
) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    template = client.post(
        URL, json={"name": unique(), "steps": [RAID]}, headers=auth("admin-token")
    ).json()
    headers = auth(f"{role}-token")
    response = client.get(URL, headers=headers)
    assert response.status_code == 200
    assert mine(response.json()["deploy_templates"], template) == [
        {"uuid": template["uuid"], "name": template["name"], "links": links(template["uuid"])}
    ]
    shown = client.get(f"{URL}/{template['name']}", headers=headers)
    assert (shown.status_code, shown.json()) == (200, template)


@pytest.mark.parametrize("role", ["reader", "observer", "member"])
def test_only_admin_may_write(make_client: ClientFactory, token_file: Path, role: str) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    template = client.post(
        URL, json={"name": unique(), "steps": [RAID]}, headers=auth("admin-token")
    ).json()
    headers = auth(f"{role}-token")
    name = unique()
    denied = client.post(URL, json={"name": name, "steps": [RAID]}, headers=headers)
    assert (denied.status_code, fault(denied)) == (
        403,
        "baremetal:deploy_template:create is disallowed by policy",
    )
    assert client.get(f"{URL}/{name}", headers=auth("admin-token")).status_code == 404
    denied = client.patch(
        f"{URL}/{template['uuid']}", json=[op("add", "/description", "x")], headers=headers
    )
    assert (denied.status_code, fault(denied)) == (
        403,
        "baremetal:deploy_template:update is disallowed by policy",
    )
    denied = client.delete(f"{URL}/{template['uuid']}", headers=headers)
    assert (denied.status_code, fault(denied)) == (
        403,
        "baremetal:deploy_template:delete is disallowed by policy",
    )
    assert client.get(f"{URL}/{template['uuid']}", headers=auth("admin-token")).json() == template


def test_admin_may_write_and_anonymous_may_not_read(
    make_client: ClientFactory, token_file: Path
) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    admin = auth("admin-token")
    created = client.post(URL, json={"name": unique(), "steps": [RAID]}, headers=admin)
    assert created.status_code == 201
    ident = created.json()["uuid"]
    updated = client.patch(f"{URL}/{ident}", json=[op("add", "/description", "x")], headers=admin)
    assert (updated.status_code, updated.json()["description"]) == (200, "x")
    assert client.get(URL, headers=LATEST).status_code == 401
    assert client.get(f"{URL}/{ident}", headers=auth("bogus-token")).status_code == 401
    assert client.delete(f"{URL}/{ident}", headers=admin).status_code == 204
    assert client.get(f"{URL}/{ident}", headers=admin).status_code == 404


# ---------------------------------------------------------------- node validation
#
# RAID and BIOS deploy steps are exercised on redfish (agent deploy plus redfish BIOS and
# RAID interfaces) and ipmi (agent RAID, no BIOS interface); fake-hardware's interfaces offer
# only the core deploy step, so it serves the checks that do not depend on a step catalogue.
# Reasons about a template are checked for every part that identifies the problem (template,
# step, argument, driver), so a wording prefix such as Ironic's "Validation of deploy steps
# from deploy templates matching this node's instance traits failed. ..." may surround them.

DRIVER_INFO = {
    "ipmi": {"ipmi_address": "192.0.2.10"},
    "redfish": {"redfish_address": "https://192.0.2.11"},
}


def deploy_node(
    client: TestClient, driver: str, node_traits: list[str], instance_traits: list[str]
) -> str:
    """A node with ``node_traits`` whose instance_info.traits are ``instance_traits``."""
    body = {"driver": driver, "driver_info": DRIVER_INFO.get(driver, {})}
    node = client.post(NODES, json=body, headers=LATEST)
    assert node.status_code == 201, node.text
    node_uuid = str(node.json()["uuid"])
    response = client.put(
        f"{NODES}/{node_uuid}/traits", json={"traits": node_traits}, headers=LATEST
    )
    assert response.status_code == 204, response.text
    response = client.patch(
        f"{NODES}/{node_uuid}",
        json=[op("add", "/instance_info/traits", instance_traits)],
        headers=LATEST,
    )
    assert (response.status_code, response.json()["instance_info"]) == (
        200,
        {"traits": instance_traits},
    )
    return node_uuid


def validate(client: TestClient, node_uuid: str) -> dict[str, Any]:
    response = client.get(f"{NODES}/{node_uuid}/validate", headers=LATEST)
    assert response.status_code == 200, response.text
    body = dict(response.json())
    # Deploy templates only ever concern the deploy interface.
    assert all(v == {"result": True} for k, v in body.items() if k != "deploy"), body
    return dict(body["deploy"])


def assert_invalid(deploy: dict[str, Any], *parts: str) -> None:
    assert deploy["result"] is False, deploy
    assert set(deploy) == {"result", "reason"}, deploy
    missing = [p for p in parts if p not in deploy["reason"]]
    assert not missing, f"{missing} not in {deploy['reason']!r}"


def test_node_with_a_valid_matching_template(client: TestClient) -> None:
    name = make(client, steps=[RAID, BIOS])["name"]
    node = deploy_node(client, "redfish", [name, "CUSTOM_OTHER"], [name])
    assert validate(client, node) == {"result": True}


def test_node_with_a_template_that_disables_the_core_step(client: TestClient) -> None:
    name = make(client, steps=[step("deploy", "deploy", priority=0)])["name"]
    node = deploy_node(client, "fake-hardware", [name], [name])
    assert validate(client, node) == {"result": True}


def test_node_missing_an_instance_trait(client: TestClient) -> None:
    name = make(client)["name"]
    missing = unique("MISSING")
    node = deploy_node(client, "fake-hardware", [name], [name, missing])
    assert validate(client, node) == {
        "result": False,
        "reason": "Cannot specify instance traits that are not also set on the node. "
        f"Node {node} is missing traits {missing}",
    }


def test_template_with_an_unexpected_argument(client: TestClient) -> None:
    raid = step("raid", "apply_configuration", {"raid_config": {}, "speed": "fast"}, 60)
    name = make(client, steps=[raid])["name"]
    node = deploy_node(client, "redfish", [name], [name])
    assert_invalid(
        validate(client, node),
        f"deploy step raid.apply_configuration of deploy template {name} has these "
        "unexpected arguments: speed",
    )


def test_template_lacking_a_required_argument(client: TestClient) -> None:
    name = make(client, steps=[step("bios", "apply_configuration", {}, 60)])["name"]
    node = deploy_node(client, "redfish", [name], [name])
    assert_invalid(
        validate(client, node),
        f"deploy step bios.apply_configuration of deploy template {name} is missing "
        "these required arguments: settings",
    )


def test_template_step_the_driver_lacks(client: TestClient) -> None:
    name = make(client, steps=[BIOS])["name"]
    ipmi = deploy_node(client, "ipmi", [name], [name])
    assert_invalid(
        validate(client, ipmi),
        f"deploy step bios.apply_configuration requested by deploy template {name} is "
        "not a deploy step of driver ipmi",
    )
    redfish = deploy_node(client, "redfish", [name], [name])  # has a BIOS interface
    assert validate(client, redfish) == {"result": True}


def test_two_matching_templates_requesting_the_same_step(client: TestClient) -> None:
    tag = uuid.uuid4().hex[:8].upper()
    first = make(client, name=f"CUSTOM_D{tag}_A", steps=[RAID])["name"]
    second = make(client, name=f"CUSTOM_D{tag}_B", steps=[RESET, {**RAID, "priority": 40}])["name"]
    node = deploy_node(client, "redfish", [first, second], [second, first])
    deploy = validate(client, node)
    assert_invalid(deploy, "Duplicate deploy steps", f"({first} and {second})")
    assert "raid" in deploy["reason"] and "apply_configuration" in deploy["reason"]
    alone = deploy_node(client, "redfish", [first, second], [first])
    assert validate(client, alone) == {"result": True}


def test_templates_not_named_by_instance_traits_are_ignored(client: TestClient) -> None:
    broken = make(client, steps=[step("raid", "apply_configuration", {"bogus": 1}, 60)])["name"]
    good = make(client)["name"]
    node = deploy_node(client, "redfish", [broken, good], [good])
    assert validate(client, node) == {"result": True}


def test_validation_follows_template_changes(client: TestClient) -> None:
    name = make(client, steps=[RAID])["name"]
    node = deploy_node(client, "redfish", [name], [name])
    assert validate(client, node) == {"result": True}
    bad = step("raid", "apply_configuration", {"raid_config": {}, "speed": 1}, 60)
    assert patch(client, name, op("replace", "/steps", [bad])).status_code == 200
    assert_invalid(validate(client, node), name, "unexpected arguments: speed")
    assert client.delete(f"{URL}/{name}", headers=LATEST).status_code == 204
    assert validate(client, node) == {"result": True}  # the trait now only steers scheduling
