"""Schemathesis against a live ``flavorsmith serve`` (noauth, the example catalog), on SQLite
and on PostgreSQL: no request may answer 500, and every answer must match the OpenAPI
document the service publishes.

The database is seeded through the API so that path parameters have real rows to hit: the
document's path parameters get those rows as examples, and every DELETE gets a row of its
own (a "victim"), so a delete never takes away what other operations read. A row that is
gone answers 404, which every such operation declares, so the order of the run cannot make
it fail."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.conftest import EXAMPLES
from tests.database import throwaway_postgres
from tests.support.serve import serve_process, stop

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "schemathesis.toml"
IRONIC = {"X-OpenStack-Ironic-API-Version": "latest"}
NOVA = {"OpenStack-API-Version": "compute latest"}
# Bounds of the run, measured on two shared cores: see docs/reference/openapi.md.
MAX_EXAMPLES = "15"
# One worker thread: with two, Hypothesis (describing a filter's lambda for Schemathesis) can
# run ast.parse in both threads at once, and CPython 3.11's AST constructor then fails with
# "AST constructor recursion depth mismatch" — a crash of the fuzzer, not an answer of ours.
WORKERS = "1"
RUN_TIMEOUT = 600  # per backend, both at once: a guard against a hang, not the budget


def call(
    base: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        return exc.code, json.loads(raw) if raw else None


def ok(base: str, method: str, path: str, body: Any = None, **headers: str) -> Any:
    status, answer = call(
        base, method, path, body, {k.replace("_", "-"): v for k, v in headers.items()}
    )
    assert status < 300, f"seeding {method} {path}: {status} {answer}"
    return answer


def seed(base: str) -> dict[str, str]:
    """Rows for every kind of path parameter; returns the names the examples use."""
    rows = YAML(typ="safe").load((EXAMPLES / "nodes.yaml").read_text())["nodes"][:10]
    node_ids = []
    for row in rows:
        fields = ("name", "driver", "resource_class", "driver_info", "properties")
        node = ok(
            base, "POST", "/baremetal/v1/nodes", {k: row[k] for k in fields if k in row}, **IRONIC
        )
        ok(
            base,
            "PUT",
            f"/baremetal/v1/nodes/{node['uuid']}/traits",
            {"traits": row.get("traits", [])},
            **IRONIC,
        )
        node_ids.append(node["uuid"])
    ok(base, "PUT", f"/baremetal/v1/nodes/{node_ids[0]}/traits/CUSTOM_FUZZ", **IRONIC)
    ok(base, "POST", "/v1/sync/apply")
    ok(base, "POST", "/v1/sync/apply?only=deploy-templates")
    templates = ok(base, "GET", "/baremetal/v1/deploy_templates", **IRONIC)["deploy_templates"]
    victim_template = ok(
        base,
        "POST",
        "/baremetal/v1/deploy_templates",
        {
            "name": "CUSTOM_FUZZ_VICTIM",
            "steps": [
                {
                    "interface": "bios",
                    "step": "apply_configuration",
                    "args": {"settings": []},
                    "priority": 150,
                }
            ],
        },
        **IRONIC,
    )
    for flavorid, public in (("fuzz-private", False), ("fuzz-victim", True)):
        flavor = {"name": flavorid, "id": flavorid, "ram": 1024, "vcpus": 1, "disk": 10}
        ok(
            base,
            "POST",
            "/compute/v2.1/flavors",
            {"flavor": {**flavor, "os-flavor-access:is_public": public}},
            **NOVA,
        )
        ok(
            base,
            "POST",
            f"/compute/v2.1/flavors/{flavorid}/os-extra_specs",
            {"extra_specs": {"fuzz:key": "1"}},
            **NOVA,
        )
    ok(
        base,
        "POST",
        "/compute/v2.1/flavors/fuzz-private/action",
        {"addTenantAccess": {"tenant": "fuzz-project"}},
        **NOVA,
    )
    lbaas = "/load-balancer/v2/lbaas"
    profiles = [
        ok(
            base,
            "POST",
            f"{lbaas}/flavorprofiles",
            {"flavorprofile": {"name": name, "provider_name": "noop", "flavor_data": "{}"}},
        )["flavorprofile"]["id"]
        for name in ("fuzz-keeper", "fuzz-victim")
    ]
    flavors = [
        ok(
            base,
            "POST",
            f"{lbaas}/flavors",
            {"flavor": {"name": name, "flavor_profile_id": profiles[0]}},
        )["flavor"]["id"]
        for name in ("fuzz-keeper", "fuzz-victim")
    ]
    return {
        "node": node_ids[0],
        "node-victim": node_ids[-1],
        "trait": "CUSTOM_FUZZ",
        "template": templates[0]["uuid"],
        "template-victim": victim_template["uuid"],
        "flavorid": "fuzz-private",
        "flavorid-victim": "fuzz-victim",
        "key": "fuzz:key",
        "profile": profiles[0],
        "profile-victim": profiles[1],
        "lb-flavor": flavors[0],
        "lb-flavor-victim": flavors[1],
        "provider": "noop",
        "catalog-flavor": "m1.small",
    }


def example(rows: dict[str, str], method: str, path: str, name: str) -> str | None:
    """The seeded value a path parameter should start from (DELETEs get victims)."""
    deleting = method == "delete" and path.endswith("{" + name + "}") and "traits" not in path
    suffix = "-victim" if deleting else ""
    if name == "ident":
        if "/deploy_templates/" in path:
            return rows["template" + suffix]
        if "/flavorprofiles/" in path:
            return rows["profile" + suffix]
        if "/lbaas/flavors/" in path or "/service-flavors/" in path:
            return rows["lb-flavor" + suffix]
        return rows["node" + suffix]
    if name == "flavorid":
        return rows["flavorid" + suffix]
    if name == "name":
        return rows["catalog-flavor"]
    return rows.get(name)


def with_examples(document: dict[str, Any], rows: dict[str, str]) -> dict[str, Any]:
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    value = example(rows, method, path, parameter["name"])
                    if value is not None:
                        parameter["example"] = value
    return document


BACKENDS = ("sqlite", "postgresql")


@dataclass
class Fuzzing:
    """One backend's run: its server, the schemathesis process and where both write."""

    base: str
    server_log: Path
    output: Path
    process: subprocess.Popen[bytes]
    started: float


def _database(backend: str, folder: Path, stack: ExitStack) -> str:
    if backend == "sqlite":
        return f"sqlite:///{folder / 'fuzz.db'}"
    url = stack.enter_context(throwaway_postgres())
    upgrade = subprocess.run(
        [sys.executable, "-m", "flavorsmith", "db", "upgrade", "--database", url],
        capture_output=True,
        text=True,
    )
    assert upgrade.returncode == 0, upgrade.stderr
    return url


def _serve(database: str, folder: Path, stack: ExitStack) -> tuple[str, Path]:
    """``flavorsmith serve`` in a subprocess: noauth, the default body limit, the examples."""
    options = ("--database", database, "--auth", "noauth")
    served = stack.enter_context(serve_process(folder, *options, ready="/healthz", timeout=30))
    return served.url, served.log_path


def _fuzz(base: str, log: Path, folder: Path, stack: ExitStack) -> Fuzzing:
    status, document = call(base, "GET", "/v1/openapi.json")
    assert status == 200
    rows = seed(base)
    schema = folder / "openapi.json"
    schema.write_text(json.dumps(with_examples(document, rows)))
    st = shutil.which("st", path=str(Path(sys.executable).parent)) or "st"
    output = folder / "schemathesis.txt"
    with output.open("w") as sink:
        process = subprocess.Popen(
            [
                *(st, "--config-file", str(CONFIG), "run", str(schema), "--url", base),
                *("--checks", "not_a_server_error,response_schema_conformance"),
                *("--max-examples", MAX_EXAMPLES, "--workers", WORKERS),
                *("--no-color", "--generation-database", "none"),
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            cwd=folder,
        )
    stack.callback(stop, process, 30)
    return Fuzzing(base, log, output, process, time.monotonic())


@pytest.fixture(scope="module")
def fuzzing(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Fuzzing]]:
    """Both backends' runs, started together: each schemathesis process is bound to one
    core, so running them side by side halves the suite's wall time on two cores."""
    selected = {
        item.callspec.params["backend"]
        for item in request.session.items
        if item.module is request.module and hasattr(item, "callspec")
    }
    with ExitStack() as stack:
        runs = {}
        for backend in [b for b in BACKENDS if b in selected]:
            folder = tmp_path_factory.mktemp(f"fuzz-{backend}")
            base, log = _serve(_database(backend, folder, stack), folder, stack)
            runs[backend] = _fuzz(base, log, folder, stack)
        yield runs


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_server_error_and_every_answer_as_documented(
    fuzzing: dict[str, Fuzzing], backend: str
) -> None:
    run = fuzzing[backend]
    try:
        code = run.process.wait(timeout=max(1.0, run.started + RUN_TIMEOUT - time.monotonic()))
    except subprocess.TimeoutExpired:
        stop(run.process, 30)
        code = -1
    elapsed = time.monotonic() - run.started
    assert code == 0, (
        f"schemathesis on {backend} failed (exit {code}) after {elapsed:.0f}s:\n"
        f"{run.output.read_text()}\nserver log without access lines:\n{_errors(run.server_log)}"
    )
    print(f"schemathesis on {backend}: passed after {elapsed:.0f}s")


def _errors(log: Path) -> str:
    """The server log without the access lines: the errors and their tracebacks."""
    lines = log.read_text().splitlines()
    kept = [line for line in lines if '"event": "request"' not in line]
    return "\n".join(kept[:400])
