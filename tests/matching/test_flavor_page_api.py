"""What the dashboard's flavor page reads beyond the matcher: GET /v1/catalog/flavors/{name}
with its file, each extra spec's validator verdict and its deploy templates, and
GET /v1/flavors/{name}/nodes/{ident}/deploy-plan, the same report as
``flavorsmith deploy plan NODE --flavor FLAVOR``."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.db.engine import make_engine
from tests.api.conftest import build_app
from tests.matching.conftest import load_examples
from tests.support.browser import EXAMPLES, flavorsmith

FLAVOR = "c2.large.vmx-mirror"
NODE = "dl360-c01-u01"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    database = f"sqlite:///{tmp_path_factory.mktemp('f') / 'examples.db'}"
    engine: Engine = make_engine(database)
    load_examples(engine)
    with TestClient(build_app(engine, repo=EXAMPLES)) as test_client:
        yield test_client, database
    engine.dispose()


def test_a_flavor_s_extra_specs_are_judged_and_its_templates_listed(
    served: tuple[TestClient, str],
) -> None:
    client, _ = served
    body = client.get(f"/v1/catalog/flavors/{FLAVOR}").json()
    nova = next(
        f
        for f in client.get("/v1/catalog/nova-flavors").json()["nova_flavors"]
        if f["name"] == FLAVOR
    )
    assert {v["key"]: v["value"] for v in body["extra_specs"]} == nova["extra_specs"]
    assert body["extra_specs"][4] == {
        "key": "trait:CUSTOM_BM_CONFIG_BIOS_VMX_ON",
        "value": "required",
        "status": "valid",
        "valid": True,
        "message": "valid",
        "validator": "trait{group}:CUSTOM_{trait}",
        "deprecated": None,
    }
    assert [t["name"] for t in body["deploy_templates"]] == [
        "CUSTOM_BM_CONFIG_BIOS_VMX_ON",
        "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR",
    ]
    assert Path(body["file"]).name == f"{FLAVOR}.yaml"
    plain = client.get("/v1/catalog/flavors/m1.small").json()
    assert plain["deploy_templates"] == []


@pytest.mark.parametrize("source", ["service", "catalog"])
def test_the_deploy_plan_is_the_cli_s(served: tuple[TestClient, str], source: str) -> None:
    client, database = served
    body = client.get(f"/v1/flavors/{FLAVOR}/nodes/{NODE}/deploy-plan?templates={source}").json()
    args = ["--catalog"] if source == "catalog" else []
    env = {**os.environ, "FLAVORSMITH_REPO": str(EXAMPLES)}
    printed = json.loads(
        flavorsmith(
            "deploy",
            "plan",
            NODE,
            "--flavor",
            FLAVOR,
            *args,
            "--database",
            database,
            "-f",
            "json",
            env=env,
        )
    )
    assert body == {"flavor": FLAVOR, "templates_from": source, **printed}
    applied = [t["template"] for t in body["templates"] if t["applied"]]
    assert applied == (
        []
        if source == "service"
        else ["CUSTOM_BM_CONFIG_BIOS_VMX_ON", "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"]
    )


def test_deploy_plan_refusals(served: tuple[TestClient, str]) -> None:
    client, _ = served
    other = client.get(f"/v1/flavors/m1.small/nodes/{NODE}/deploy-plan").json()
    assert other["errors"][0] == (
        f"node {NODE} has resource class c2.large; flavor m1.small needs m1.small: "
        "Nova would never place it there"
    )
    assert client.get(f"/v1/flavors/nope/nodes/{NODE}/deploy-plan").status_code == 404
    assert client.get(f"/v1/flavors/{FLAVOR}/nodes/nope/deploy-plan").status_code == 404
    assert (
        client.get(f"/v1/flavors/{FLAVOR}/nodes/{NODE}/deploy-plan?templates=x").status_code == 400
    )
