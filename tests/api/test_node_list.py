"""Listing nodes: fields, filters (the API-WG tag semantics on traits), sort, pages."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

LATEST = {"X-OpenStack-Ironic-API-Version": "latest"}
URL = "/baremetal/v1/nodes"
POOL = ["CUSTOM_A", "CUSTOM_B", "CUSTOM_C", "CUSTOM_D", "HW_CPU_X86_AVX2"]


def fault(response: Any) -> str:
    return str(json.loads(response.json()["error_message"])["faultstring"])


@pytest.fixture
def population(client: TestClient) -> tuple[str, dict[str, set[str]]]:
    """40 nodes in a resource class of their own, with random traits (seeded)."""
    rc = f"rc-{uuid.uuid4().hex[:8]}"
    rng = random.Random(7)
    nodes: dict[str, set[str]] = {}
    for index in range(40):
        name = f"{rc}-{index:02d}" if index % 5 else None
        body: dict[str, Any] = {"driver": "fake-hardware", "resource_class": rc}
        if name:
            body["name"] = name
        created = client.post(URL, json=body, headers=LATEST).json()
        chosen = {t for t in POOL if rng.random() < 0.4}
        client.put(
            f"{URL}/{created['uuid']}/traits", json={"traits": sorted(chosen)}, headers=LATEST
        )
        if index % 7 == 0:
            client.patch(
                f"{URL}/{created['uuid']}",
                json=[{"op": "replace", "path": "/maintenance", "value": True}],
                headers=LATEST,
            )
        nodes[created["uuid"]] = chosen
    return rc, nodes


def listed(client: TestClient, query: str) -> list[dict[str, Any]]:
    response = client.get(f"{URL}?{query}", headers=LATEST)
    assert response.status_code == 200, response.text
    return list(response.json()["nodes"])


def reference(nodes: dict[str, set[str]], name: str, wanted: set[str]) -> set[str]:
    tests = {
        "traits": lambda have: wanted <= have,
        "traits-any": lambda have: bool(wanted & have),
        "not-traits": lambda have: not wanted <= have,
        "not-traits-any": lambda have: not (wanted & have),
    }
    return {u for u, have in nodes.items() if tests[name](have)}


@pytest.mark.parametrize("name", ["traits", "traits-any", "not-traits", "not-traits-any"])
def test_trait_filters_match_the_tags_guideline(
    client: TestClient, population: tuple[str, dict[str, set[str]]], name: str
) -> None:
    rc, nodes = population
    rng = random.Random(name)
    for _ in range(8):
        wanted = set(rng.sample(POOL, rng.randint(1, 3)))
        got = listed(client, f"resource_class={rc}&{name}={','.join(sorted(wanted))}&fields=uuid")
        assert {n["uuid"] for n in got} == reference(nodes, name, wanted), wanted


def test_trait_filters_combine_with_each_other_and_with_pages(
    client: TestClient, population: tuple[str, dict[str, set[str]]]
) -> None:
    rc, nodes = population
    expected = reference(nodes, "traits", {"CUSTOM_A"}) & reference(
        nodes, "not-traits-any", {"CUSTOM_B", "CUSTOM_C"}
    )
    seen: list[str] = []
    url = f"{URL}?resource_class={rc}&traits=CUSTOM_A&not-traits-any=CUSTOM_B,CUSTOM_C&limit=2&fields=uuid,traits"
    while url:
        body = client.get(url, headers=LATEST).json()
        for node in body["nodes"]:
            assert "CUSTOM_A" in node["traits"] and not {"CUSTOM_B", "CUSTOM_C"} & set(
                node["traits"]
            )
        seen += [n["uuid"] for n in body["nodes"]]
        url = body.get("next", "").replace("http://testserver", "")
    assert sorted(seen) == sorted(expected) and len(seen) == len(set(seen))


@pytest.mark.parametrize(
    ("key", "direction"), [("id", "asc"), ("name", "asc"), ("name", "desc"), ("updated_at", "desc")]
)
def test_pages_visit_every_node_once_in_order(
    client: TestClient, population: tuple[str, dict[str, set[str]]], key: str, direction: str
) -> None:
    rc, nodes = population
    everything = listed(
        client,
        f"resource_class={rc}&sort_key={key}&sort_dir={direction}&fields=uuid,name,updated_at",
    )
    seen: list[str] = []
    url = f"{URL}?resource_class={rc}&sort_key={key}&sort_dir={direction}&limit=3&fields=uuid,name,updated_at"
    while url:
        body = client.get(url, headers=LATEST).json()
        seen += [n["uuid"] for n in body["nodes"]]
        url = body.get("next", "").replace("http://testserver", "")
    assert seen == [n["uuid"] for n in everything]
    assert sorted(seen) == sorted(nodes)


def test_filters_on_fields(client: TestClient, population: tuple[str, dict[str, set[str]]]) -> None:
    rc, _ = population
    in_maintenance = listed(client, f"resource_class={rc}&maintenance=true")
    assert len(in_maintenance) == 6 and all(n["maintenance"] for n in in_maintenance)
    assert len(listed(client, f"resource_class={rc}&maintenance=no")) == 34
    assert len(listed(client, f"resource_class={rc}&provision_state=enroll")) == 40
    assert listed(client, f"resource_class={rc}&provision_state=active") == []


def test_short_and_detailed_lists(
    client: TestClient, population: tuple[str, dict[str, set[str]]]
) -> None:
    rc, _ = population
    short = listed(client, f"resource_class={rc}&limit=1")[0]
    assert set(short) == {
        "uuid",
        "instance_uuid",
        "maintenance",
        "power_state",
        "provision_state",
        "name",
        "links",
    }
    detail = client.get(f"{URL}/detail?resource_class={rc}&limit=1", headers=LATEST).json()[
        "nodes"
    ][0]
    assert {"traits", "resource_class", "properties", "driver", "created_at"} <= set(detail)
    assert set(listed(client, f"resource_class={rc}&limit=1&detail=true")[0]) == set(detail)


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ("limit=0", 400, "Limit must be positive"),
        ("limit=abc", 400, "Expected an integer for limit: 'abc'"),
        ("marker=nope", 400, "Expected UUID for marker: nope"),
        (
            "sort_key=traits",
            400,
            "The sort_key value 'traits' is an invalid field for sorting; choose from id, uuid, name, driver, resource_class, provision_state, power_state, maintenance, instance_uuid, created_at, updated_at, conductor_group, owner, lessee, retired, protected, shard, instance_name",
        ),
        ("sort_dir=up", 400, "Invalid sort direction 'up': choose asc or desc"),
        (
            "maintenance=maybe",
            400,
            "Invalid maintenance: unrecognized value 'maybe', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'",
        ),
        (
            "traits=nicx",
            400,
            "Invalid trait 'nicx': a trait is a standard os-traits name, or CUSTOM_ followed by A-Z, 0-9 and _, at most 255 characters (did you mean 'CUSTOM_NICX'?)",
        ),
        (
            "bogus=1",
            400,
            "Unknown query parameter 'bogus'; allowed: associated, conductor_group, description_contains, detail, driver, fault, fields, include_children, instance_name, instance_uuid, lessee, limit, maintenance, marker, not-traits, not-traits-any, owner, parent_node, project, provision_state, resource_class, retired, shard, sharded, sort_dir, sort_key, traits, traits-any",
        ),
        # A UUID no node has. Fixed, not uuid4(): every test process collects the same tests.
        ("marker=5c2b1f0e-9d3a-4e7b-8f61-2a4c7d9e0b13", 404, None),
    ],
)
def test_bad_list_queries(client: TestClient, query: str, status: int, message: str | None) -> None:
    response = client.get(f"{URL}?{query}", headers=LATEST)
    assert response.status_code == status
    if message is not None:
        assert fault(response) == message


def test_detail_refuses_fields(client: TestClient) -> None:
    response = client.get(f"{URL}/detail?fields=uuid", headers=LATEST)
    assert response.status_code == 400
    assert fault(response).startswith("Unknown query parameter 'fields'")


@pytest.mark.parametrize(
    "query", ["detail=true&fields=uuid", "fields=&detail=1", "detail=yes&fields=name"]
)
def test_detail_true_with_fields_is_refused(client: TestClient, query: str) -> None:
    response = client.get(f"{URL}?{query}", headers=LATEST)
    assert (response.status_code, fault(response)) == (
        400,
        "Can not specify ?detail=True and fields in the same request.",
    )


def test_detail_false_with_fields_lists_the_fields(client: TestClient) -> None:
    response = client.get(f"{URL}?detail=false&fields=uuid&limit=1", headers=LATEST)
    assert response.status_code == 200
    assert all(set(n) == {"uuid", "links"} for n in response.json()["nodes"])


def test_a_page_of_uuids_and_traits_is_the_whole_body_ironic_gives(client: TestClient) -> None:
    rc = f"rc-{uuid.uuid4().hex[:8]}"
    made = []
    for index, traits in enumerate((["CUSTOM_B", "CUSTOM_A"], [], ["HW_CPU_X86_AVX2"])):
        node = {"driver": "fake-hardware", "resource_class": rc, "name": f"{rc}-{index}"}
        created = client.post(URL, json=node, headers=LATEST).json()
        client.put(f"{URL}/{created['uuid']}/traits", json={"traits": traits}, headers=LATEST)
        made.append(created["uuid"])
    first, second, third = made
    root = "http://testserver/baremetal"

    def shown(node: str, traits: str) -> str:
        return (
            f'{{"uuid":"{node}","traits":[{traits}],"links":['
            f'{{"href":"{root}/v1/nodes/{node}","rel":"self"}},'
            f'{{"href":"{root}/nodes/{node}","rel":"bookmark"}}]}}'
        )

    page = client.get(f"{URL}?resource_class={rc}&fields=uuid,traits&limit=2", headers=LATEST)
    two = '"CUSTOM_A","CUSTOM_B"'
    assert page.text == (
        f'{{"nodes":[{shown(first, two)},{shown(second, "")}],'
        f'"next":"{root}/v1/nodes?resource_class={rc}&fields=uuid%2Ctraits&limit=2'
        f'&marker={second}"}}'
    )
    last = client.get(page.json()["next"], headers=LATEST)
    one = '"HW_CPU_X86_AVX2"'
    assert last.text == f'{{"nodes":[{shown(third, one)}]}}'


@pytest.mark.parametrize(
    "fields",
    [
        "uuid,traits",
        "traits,name",
        "traits",
        "name,created_at,traits,updated_at,clean_step,conductor,properties,extra",
        "reservation,uuid,provision_updated_at,driver_internal_info",
    ],
)
def test_a_listed_node_is_what_showing_it_with_the_same_fields_gives(
    client: TestClient, population: tuple[str, dict[str, set[str]]], fields: str
) -> None:
    rc, _ = population
    url = f"{URL}?resource_class={rc}&fields={fields}&sort_key=name&limit=15"
    listed_nodes = client.get(url, headers=LATEST).json()["nodes"]
    names = listed(client, f"resource_class={rc}&fields=uuid&sort_key=name&limit=15")
    assert len(listed_nodes) == len(names) == 15
    for node, named in zip(listed_nodes, names, strict=True):
        one = client.get(f"{URL}/{named['uuid']}?fields={fields}", headers=LATEST)
        assert json.dumps(node) == json.dumps(one.json())
