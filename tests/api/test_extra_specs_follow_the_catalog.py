"""The compute API validates extra specs against the registry of the catalog as last loaded:
a key a definition file declares is valid for the catalog and for
/compute/v2.1/flavors/{id}/os-extra_specs alike, after a reload as at start."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from fastapi.testclient import TestClient

from tests.api.conftest import ClientFactory
from tests.conftest import EXAMPLES

URL = "/compute/v2.1/flavors"
LATEST = {"OpenStack-API-Version": "compute latest"}
LAB = """\
namespace: lab
description: Keys of the lab's own scheduler filter.
validators:
  - name: lab:fast_lane
    description: Whether the flavor may use the fast lane.
    value: {type: bool}
"""


def flavor(client: TestClient) -> str:
    body = {"flavor": {"name": f"f-{uuid.uuid4().hex[:8]}", "ram": 1024, "vcpus": 2, "disk": 10}}
    response = client.post(URL, json=body, headers=LATEST)
    assert response.status_code == 200, response.text
    return str(response.json()["flavor"]["id"])


def set_specs(client: TestClient, flavor_id: str, specs: dict[str, str]) -> tuple[int, str]:
    response = client.post(
        f"{URL}/{flavor_id}/os-extra_specs?validation=strict",
        json={"extra_specs": specs},
        headers=LATEST,
    )
    return response.status_code, response.text


def reload(client: TestClient) -> None:
    response = client.post("/v1/catalog/reload")
    assert response.status_code == 200 and response.json()["valid"], response.text


def test_a_key_declared_after_a_reload_is_accepted(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    repo = tmp_path / "deploy"
    shutil.copytree(EXAMPLES, repo)
    client = make_client(repo=repo)
    flavor_id = flavor(client)
    status, text = set_specs(client, flavor_id, {"lab:fast_lane": "yes"})
    assert status == 400 and "namespace 'lab' is not registered" in text

    (repo / "hardware" / "extra-specs" / "lab.yaml").write_text(LAB)
    reload(client)
    assert set_specs(client, flavor_id, {"lab:fast_lane": "yes"})[0] == 200
    status, text = set_specs(client, flavor_id, {"lab:fast_lane": "sometimes"})
    assert status == 400 and "is not a boolean" in text
    # The catalog's own keys keep working: each load completes the same base registry.
    assert set_specs(client, flavor_id, {"scheduling:tier": "gold"})[0] == 200

    (repo / "hardware" / "extra-specs" / "lab.yaml").unlink()
    reload(client)
    status, text = set_specs(client, flavor_id, {"lab:fast_lane": "yes"})
    assert status == 400 and "namespace 'lab' is not registered" in text


def test_the_catalog_and_the_api_agree_on_a_declared_key(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    repo = tmp_path / "deploy"
    shutil.copytree(EXAMPLES, repo)
    client = make_client(repo=repo)
    (repo / "hardware" / "extra-specs" / "lab.yaml").write_text(LAB)
    flavor_file = next(
        p
        for p in (repo / "hardware" / "flavors").glob("*.yaml")
        if "extra_specs" not in p.read_text()
    )
    flavor_file.write_text(flavor_file.read_text() + "extra_specs:\n  lab:fast_lane: 'maybe'\n")
    response = client.post("/v1/catalog/reload")
    codes = [d["code"] for d in response.json()["diagnostics"] if d["severity"] == "error"]
    assert codes == ["extra-spec-invalid-value"]
    status, _ = set_specs(client, flavor(client), {"lab:fast_lane": "maybe"})
    assert status == 400
