"""flavorsmith classify, and POST /v1/nodes/{node}/inspection, on both databases."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.db.engine import writer
from flavorsmith.store import nodes as store
from tests.api.conftest import build_app
from tests.conftest import EXAMPLES, Invoke

INSPECTION = EXAMPLES / "inspection"


def test_classify_prints_reasons(cli: Invoke) -> None:
    result = cli("classify", str(INSPECTION / "r7615-m1-small.json"), "--repo", str(EXAMPLES))
    assert result.exit_code == 0
    out = result.stdout
    assert "| result     " in out or "| result " in out
    assert "device type dell-poweredge-r7615, resource class m1.small" in out
    assert (
        "cpu.cores: 16 cores from the model string: 1 x 16-Core, 2 thread(s) per core (32 logical "
        "CPUs; SMT assumed on: no cpu.socket_count rules out 2 x 16-Core at 1 thread per core)"
        in out
    )
    assert "CUSTOM_NVME: disk /dev/nvme0n1 (480 GB, NVMe) (storage: NVMe disk)" in out


def test_classify_no_match_exits_1_with_candidates(cli: Invoke) -> None:
    result = cli(
        "classify",
        str(INSPECTION / "near-miss-r7615-failed-dimm.json"),
        "--repo",
        str(EXAMPLES),
        "-f",
        "json",
    )
    assert result.exit_code == 1
    body = json.loads(result.stdout)
    assert body["outcome"] == "no-match" and body["resource_class"] is None
    small = next(c for c in body["candidates"] if c["resource_class"] == "m1.small")
    assert [c["field"] for c in small["checks"] if not c["ok"]] == ["memory.size"]


def test_classify_bad_input(cli: Invoke, tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    result = cli("classify", str(bad), "--repo", str(EXAMPLES))
    assert result.exit_code == 1 and result.stderr.startswith(f"error: {bad}: not JSON:")
    bad.write_text("[]")
    result = cli("classify", str(bad), "--repo", str(EXAMPLES))
    assert (result.exit_code, result.stderr) == (
        1,
        "error: Inspection data must be a JSON object (an inventory, or {inventory: ...})\n",
    )
    assert cli("classify", str(bad), "--apply", "--repo", str(EXAMPLES)).exit_code == 2


def test_classify_usage_errors(cli: Invoke) -> None:
    """The file is optional only when an Ironic gives the inventory; contradictions are
    usage errors (exit 2) before anything is read."""
    small = str(EXAMPLES / "inspection" / "r7615-m1-small.json")
    ironic = ("--ironic-endpoint", "http://127.0.0.1:9")
    cases = {
        (): "give INSPECTION.json, or --cloud/--ironic-endpoint with --node or --all",
        ("--all",): "--all classifies the nodes of a real Ironic",
        (small, "--all"): "--all classifies the nodes of a real Ironic",
        ironic: "give --node NODE or --all (one of them)",
        (*ironic, "--node", "n", "--all"): "give --node NODE or --all (one of them)",
        (small, *ironic, "--node", "n"): "two sources of inspection data",
        (*ironic, "--cloud", "c", "--node", "n"): "name two Ironics: give one of them",
        ("--ironic-endpoint", "ironic:6385", "--node", "n"): "is not an http:// or https:// URL",
    }
    for args, message in cases.items():
        result = cli("classify", *args, "--repo", str(EXAMPLES))
        assert result.exit_code == 2, (args, result.stdout, result.stderr)
        assert message in " ".join(result.stderr.replace("│", " ").split()), (args, result.stderr)


def test_classify_apply_updates_the_node(cli: Invoke, tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'c.db'}"
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text("- {name: new-node, traits: [CUSTOM_RACK_A01, CUSTOM_GPU]}\n")
    cli("node", "import", str(inventory), "--database", database)
    args = ["--repo", str(EXAMPLES), "--database", database, "-f", "json"]
    result = cli(
        "classify",
        str(INSPECTION / "xe9680-g1-8xh100.json"),
        "--node",
        "new-node",
        "--apply",
        *args,
    )
    assert result.exit_code == 0, result.output
    applied = json.loads(result.stdout)["applied"]
    assert applied["resource_class"] == "g1.8xh100"
    assert "CUSTOM_RACK_A01" in applied["traits"] and "CUSTOM_GPU_NVIDIA_H100" in applied["traits"]
    listed = cli("node", "list", "--database", database, "-f", "json")
    (node,) = json.loads(listed.stdout)
    assert node["resource_class"] == "g1.8xh100"
    again = cli(
        "classify",
        str(INSPECTION / "xe9680-g1-8xh100.json"),
        "--node",
        "new-node",
        "--apply",
        *args,
    )
    assert json.loads(again.stdout)["applied"] == "nothing to change"


@pytest.fixture
def client(migrated_engine: Engine) -> Iterator[TestClient]:
    with TestClient(build_app(migrated_engine)) as test_client:
        yield test_client


def test_inspection_api_applies_and_stores(client: TestClient, migrated_engine: Engine) -> None:
    with writer(migrated_engine).begin() as connection:
        node = store.create(connection, {"driver": "fake-hardware"})
        store.add_trait(connection, node, "CUSTOM_OPERATOR_SET")
    data = json.loads((INSPECTION / "dl360-c2-diskless.json").read_text())
    response = client.post(f"/v1/nodes/{node['uuid']}/inspection", json=data)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["resource_class"] == "c2.diskless"
    assert body["applied"]["resource_class"] == "c2.diskless"
    with migrated_engine.connect() as connection:
        stored = store.find(connection, node["uuid"], by_name=False)
        traits = store.traits_of(connection, [stored["id"]])[stored["id"]]
    assert stored["resource_class"] == "c2.diskless"
    assert "CUSTOM_OPERATOR_SET" in traits and "CUSTOM_NIC_INTEL_E810" in traits


def test_the_last_classification_is_read_back(client: TestClient, migrated_engine: Engine) -> None:
    with writer(migrated_engine).begin() as connection:
        node = store.create(connection, {"driver": "fake-hardware", "name": "n1"})
    before = client.get("/v1/nodes/n1/inspection").json()
    assert before == {"node": node["uuid"], "classified_at": None, "classification": None}
    data = json.loads((INSPECTION / "dl360-c2-diskless.json").read_text())
    posted = client.post(f"/v1/nodes/{node['uuid']}/inspection", json=data).json()
    body = client.get("/v1/nodes/n1/inspection").json()
    assert body["node"] == node["uuid"] and body["classified_at"].endswith("+00:00")
    decided = {k: v for k, v in posted.items() if k not in ("node", "applied")}
    assert body["classification"] == decided
    assert client.get("/v1/nodes/nope/inspection").status_code == 404


def test_inspection_api_no_match_keeps_the_resource_class(
    client: TestClient, migrated_engine: Engine
) -> None:
    with writer(migrated_engine).begin() as connection:
        node = store.create(connection, {"driver": "fake-hardware", "resource_class": "m1.small"})
    data = json.loads((INSPECTION / "near-miss-supermicro.json").read_text())
    body = client.post(f"/v1/nodes/{node['uuid']}/inspection", json=data).json()
    assert body["outcome"] == "no-match" and "resource_class" not in body["applied"]
    with migrated_engine.connect() as connection:
        assert store.find(connection, node["uuid"], by_name=False)["resource_class"] == "m1.small"


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/v1/nodes/nope/inspection", {"inventory": {}}, 404),
        ("/v1/nodes/{uuid}/inspection", [], 400),
        ("/v1/nodes/{uuid}/inspection", {"inventory": {"cpu": {"count": "x"}}}, 400),
    ],
)
def test_inspection_api_errors(
    client: TestClient, migrated_engine: Engine, path: str, body: object, status: int
) -> None:
    with writer(migrated_engine).begin() as connection:
        node = store.create(connection, {"driver": "fake-hardware"})
    response = client.post(path.replace("{uuid}", node["uuid"]), json=body)
    assert response.status_code == status
