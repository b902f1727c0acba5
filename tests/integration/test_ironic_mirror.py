"""``flavorsmith serve --ironic-endpoint`` mirrors a real Ironic 39 (the example inventory's
350 nodes written into its database, as its API would): the first load equals Ironic, a trait changed in Ironic
reaches ``/v1/flavors/{f}/nodes`` within one refresh, a refresh without change costs one GET
and writes nothing, node writes are refused with Ironic's error body, a refresh that would
delete more than a tenth of the mirror changes nothing, and an Ironic stopped mid-run leaves
the mirror intact while ``/readyz`` and ``/v1/nodes/source`` say why."""

from __future__ import annotations

import json
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from tests.support.ironic_api import running_ironic
from tests.support.ironic_fleet import IronicHttp, example_nodes, fill_nodes
from tests.support.serve import serve_process

FLAVOR = "m1.small.nicX"
NODE = "r7615-a01-u02"
IRONIC_165 = {"X-OpenStack-Ironic-API-Version": "1.65"}


def call(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_for(what: str, check: Callable[[], Any], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f}s")
        time.sleep(0.2)


@contextmanager
def serve(tmp: Path, ironic: str) -> Iterator[str]:
    database = f"sqlite:///{tmp / 'flavorsmith.db'}"
    mirror = ("--ironic-endpoint", ironic, "--ironic-refresh", "1")
    with serve_process(tmp, "--database", database, *mirror, home=tmp, ready="/healthz") as served:
        yield served.url


def source(url: str) -> dict[str, Any]:
    status, body = call(f"{url}/v1/nodes/source")
    assert status == 200, body
    return dict(body)


def after_next_refresh(url: str) -> dict[str, Any]:
    """The mirror's state once a refresh that started after this call has ended."""
    seen = source(url)["refreshes"]
    return dict(
        wait_for("two more refreshes", lambda: (s := source(url))["refreshes"] >= seen + 2 and s)
    )


def flavor_nodes(url: str) -> list[str]:
    status, body = call(f"{url}/v1/flavors/{FLAVOR}/nodes?limit=1000")
    assert status == 200, body
    return [node["name"] for node in body["nodes"]]


def ironic_names(ironic: str) -> dict[str, list[str]]:
    client = IronicHttp(ironic)
    try:
        listed = client.call("GET", "/nodes?fields=name,traits&limit=1000")["nodes"]
    finally:
        client.close()
    return {n["name"]: sorted(n["traits"]) for n in listed}


def mirrored_names(url: str) -> dict[str, list[str]]:
    status, body = call(
        f"{url}/baremetal/v1/nodes?fields=name,traits&limit=1000",
        headers=IRONIC_165,
    )
    assert status == 200, body
    return {n["name"]: sorted(n["traits"]) for n in body["nodes"]}


def test_serve_mirrors_a_real_ironic(tmp_path: Path) -> None:
    with ExitStack() as ironic_running:
        ironic_db = tmp_path / "ironic.sqlite"
        conf = f"[database]\nconnection = sqlite:///{ironic_db}\n"
        ironic = ironic_running.enter_context(running_ironic(conf=conf))
        fill_nodes(ironic_db, ironic, example_nodes())
        with serve(tmp_path, ironic) as url:
            wait_for("ready", lambda: call(f"{url}/readyz")[0] == 200)
            status, body = call(f"{url}/readyz")
            assert body["ironic"]["loaded"] and body["ironic"]["nodes"] == 350
            state = source(url)
            assert state["source"] == "ironic" and state["ironic"] == ironic
            assert state["nodes"] == 350 and state["error"] is None
            assert mirrored_names(url) == ironic_names(ironic)

            # A trait changed in Ironic reaches the matcher within one refresh.
            assert NODE not in flavor_nodes(url)
            client = IronicHttp(ironic)
            try:
                client.call("PUT", f"/nodes/{NODE}/traits/CUSTOM_NICX")
            finally:
                client.close()
            after_next_refresh(url)
            assert NODE in flavor_nodes(url)
            assert mirrored_names(url)[NODE] == ironic_names(ironic)[NODE]

            # A refresh without change: one GET (350 nodes fit one page), no write, the
            # node generation unchanged.
            first = after_next_refresh(url)
            second = after_next_refresh(url)
            assert second["last"]["requests"] == 1 and second["last"]["writes"] == 0
            assert second["last"]["unchanged"] == 350
            assert second["generation"] == first["generation"]

            # Node writes are refused, in Ironic's words, and change nothing.
            status, listed = call(f"{url}/baremetal/v1/nodes?limit=1", headers=IRONIC_165)
            node = listed["nodes"][0]["uuid"]
            status, body = call(
                f"{url}/baremetal/v1/nodes/{node}/traits/CUSTOM_LOCAL",
                method="PUT",
                headers=IRONIC_165,
            )
            assert status == 409
            fault = json.loads(body["error_message"])["faultstring"]
            assert fault == (
                f"Nodes are managed by the Ironic at {ironic}; change them there "
                "(this service mirrors it every 1 s)"
            )
            assert source(url)["generation"] == second["generation"]

            # 36 of the 350 nodes vanish from Ironic's answer at once (more than 10 %, as a
            # credential scoped to one project would see it; deleted in Ironic's database in one
            # transaction, so no refresh sees a part of it): nothing changes, and it is said.
            names, nodes = mirrored_names(url), flavor_nodes(url)
            with sqlite3.connect(ironic_db, timeout=30) as db:
                gone = [row[0] for row in db.execute("SELECT id FROM nodes LIMIT 36")]
                marks = ",".join("?" for _ in gone)
                db.execute(f"DELETE FROM node_traits WHERE node_id IN ({marks})", gone)
                db.execute(f"DELETE FROM nodes WHERE id IN ({marks})", gone)
            assert len(ironic_names(ironic)) == 314
            state = after_next_refresh(url)
            assert state["error"] == (
                "refused: this refresh would delete 36 of the 350 mirrored nodes, more than 10% "
                "(is the credential scoped to one project, or did Ironic lose nodes?); nothing "
                "was changed (--ironic-max-delete 100 lets such a refresh through)"
            )
            assert state["nodes"] == 350 and state["generation"] == second["generation"]
            assert state["last"]["writes"] == 0 and state["last"]["ok"] is False
            assert mirrored_names(url) == names and flavor_nodes(url) == nodes
            status, body = call(f"{url}/readyz")
            assert status == 200 and body["ironic"]["error"] == state["error"]

            # Ironic stops mid-run: the mirror stays as it was and the service says why.
            ironic_running.close()
            state = wait_for("a failed refresh", lambda: (s := source(url))["error"] and s)
            wait_for("an unreachable Ironic", lambda: "cannot reach" in source(url)["error"])
            state = source(url)
            assert "cannot reach Ironic" in state["error"], state
            assert state["loaded"] and state["nodes"] == 350 and state["last"]["ok"] is False
            status, body = call(f"{url}/readyz")
            assert status == 200 and body["status"] == "ready"
            assert "cannot reach Ironic" in body["ironic"]["error"]
            assert mirrored_names(url) == names and len(names) == 350
            assert flavor_nodes(url) == nodes
