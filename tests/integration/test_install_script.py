"""The container's install step, deploy/install.sh, run as the image build runs it (no image can
be pulled here): into a fresh virtual environment, from the built wheel and a cached wheelhouse
of the pinned dependencies (tests/support/wheels.py); then the installed command serves a
catalog mounted as the kubelet mounts ConfigMaps, and answers its probes."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT
from tests.live import free_port
from tests.support.configmap_volume import mount_catalog
from tests.support.wheels import build_wheel, clean_env, wheelhouse

pytestmark = pytest.mark.slow
SCRIPT = ROOT / "deploy" / "install.sh"


def get(url: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_install_script_makes_an_environment_that_serves(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    env = clean_env() | {
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheelhouse(wheel)),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    prefix = tmp_path / "opt" / "flavorsmith"
    done = subprocess.run(
        [str(SCRIPT), str(prefix), str(wheel)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "flavorsmith 0.1.0"
    test_only = [p.name for p in (prefix / "lib").glob("python*/site-packages/pytest")]
    assert test_only == []  # the service's dependencies, not the test extras

    catalog = tmp_path / "etc" / "flavorsmith" / "catalog"
    mount_catalog(catalog, EXAMPLES / "hardware")
    port = free_port()
    database = f"sqlite:///{tmp_path / 'flavorsmith.db'}"
    process = subprocess.Popen(
        [str(prefix / "bin" / "flavorsmith"), "serve", "--port", str(port)],
        env=env | {"FLAVORSMITH_REPO": str(catalog), "FLAVORSMITH_DATABASE_URL": database},
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, body = get(f"{url}/healthz")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    pytest.fail(f"serve did not start: {process.communicate()[1]}")
                time.sleep(0.2)
        assert status == 200 and body["status"] == "ok"
        while (status := get(f"{url}/readyz")[0]) == 503 and time.monotonic() < deadline:
            time.sleep(0.2)  # its first warming of the caches (a few ms on the examples)
        status, body = get(f"{url}/readyz")
        assert status == 200 and body["status"] == "ready", body
        status, body = get(f"{url}/v1/catalog")
        assert status == 200, body
        assert (body["valid"], body["flavors"], body["device_types"]) == (True, 12, 5)
        assert body["repository"] == str(catalog)
    finally:
        process.terminate()
        process.communicate(timeout=20)
    assert not os.path.exists(prefix / "src")  # installed from the wheel, not a checkout


def test_the_install_script_refuses_a_bad_call() -> None:
    done = subprocess.run([str(SCRIPT)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.strip() == f"usage: {SCRIPT} PREFIX [SOURCE]"
