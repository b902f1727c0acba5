"""The real ``flavorsmith serve`` process on loopback, found by openstacksdk's discovery."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openstack
import pytest

from flavorsmith.db import migrate
from tests.support.serve import serve_process


def get(url: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("home")  # the embedded default database, in a scratch home
    # Ready once its first warming of the caches ended (a few ms on the examples).
    with serve_process(tmp_path_factory.mktemp("serve"), home=home) as served:
        yield served.url
    log = served.log()
    assert f"database: sqlite:///{home}/flavorsmith/flavorsmith.db" in log
    assert f"serving on {served.url}/" in log
    assert '"event": "request"' in log and '"request_id": "req-' in log
    assert Path(home, "flavorsmith", "flavorsmith.db").is_file()


def test_probes(server: str) -> None:
    assert get(f"{server}/healthz") == (200, {"status": "ok"})
    status, ready = get(f"{server}/readyz")
    assert isinstance(ready, dict)
    background: Any = ready.pop("background")
    assert (status, ready) == (
        200,
        {"status": "ready", "database": "ok", "migrations": migrate.head()},
    )
    # One process: it leads, and its one loop is the capacity sampler (on by default).
    assert (background["loops"], background["leader"]) == (["samples"], True)
    assert background["holder"] == background["this_process"]
    status, root = get(f"{server}/")
    assert status == 200 and len(root["apis"]) == 4  # type: ignore[arg-type]


def test_openstacksdk_discovers_every_api(server: str) -> None:
    conn = openstack.connect(
        auth_type="none",
        baremetal_endpoint_override=f"{server}/baremetal",
        compute_endpoint_override=f"{server}/compute/v2.1",
        load_balancer_endpoint_override=f"{server}/load-balancer",
        load_yaml_config=False,
        load_envvars=False,
    )
    baremetal = conn.baremetal.get_endpoint_data()
    assert baremetal.url == f"{server}/baremetal/v1/"
    assert (baremetal.min_microversion, baremetal.max_microversion) == ((1, 1), (1, 115))
    compute = conn.compute.get_endpoint_data()
    assert compute.url == f"{server}/compute/v2.1/"
    assert (compute.min_microversion, compute.max_microversion) == ((2, 1), (2, 104))
    assert conn.load_balancer.get_endpoint() == f"{server}/load-balancer/v2"
    assert conn.load_balancer.get("/").status_code == 200
