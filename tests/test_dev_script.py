"""dev.py runs each step so that stopping it (SIGTERM, or Ctrl-C) stops the step too: the
demo's ``flavorsmith serve`` never keeps its port after dev.py is gone. dev.py's ``run`` is
driven directly (its set-up step would reinstall the virtual environment)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.live import free_port

DRIVER = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("dev", sys.argv[1])
dev = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dev)
sys.exit(dev.run(*sys.argv[2:]))
"""


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopping_dev_py_stops_the_server(tmp_path: Path, stop: signal.Signals) -> None:
    port = free_port()
    serve = [sys.executable, "-m", "flavorsmith", "serve", "--repo", "examples"]
    parent = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(ROOT / "dev.py"), *serve, "--port", str(port)],
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not answers(port):
            assert parent.poll() is None, parent.communicate()[1]
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.1)
        parent.send_signal(stop)  # to dev.py only, as `kill` or a process manager does
        _, stderr = parent.communicate(timeout=30)
    finally:
        if parent.poll() is None:
            parent.kill()
    assert parent.returncode == 128 + stop, stderr
    assert not answers(port)  # the child stopped before dev.py returned
    with socket.socket() as sock:  # nothing holds the port any more
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))


DEMO = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("dev", sys.argv[1])
dev = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dev)
sys.exit(dev.demo(sys.argv[2:]))
"""

EXAMPLE_FLAVORS = [
    "c2.diskless",
    "c2.large",
    "c2.large.novmx-stripe",
    "c2.large.vmx-mirror",
    "g1.8xh100",
    "m1.medium",
    "m1.medium.dedicated",
    "m1.small",
    "m1.small.mellanox-cx5",
    "m1.small.nicX",
    "m1.small.no-gpu",
    "m1.small.nvme-cx5-no-gpu",
]


def get(url: str, **headers: str) -> Any:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def run_demo(tmp_path: Path, *args: str) -> tuple[int, str, Callable[[], None]]:
    """Start dev.py's demo (without its set-up step) on a free port, in a demo folder and a
    per-user data folder of the test's own; wait until it serves; return the port, what it
    printed before serving, and how to stop it."""
    port = free_port()
    out = tmp_path / f"demo-{port}.out"
    with out.open("w") as sink:
        parent = subprocess.Popen(
            [sys.executable, "-c", DEMO, str(ROOT / "dev.py"), "--port", str(port), *args],
            env={
                **os.environ,
                "FLAVORSMITH_DEMO_DIR": str(tmp_path / "demo"),
                "XDG_DATA_HOME": str(tmp_path / "user"),
            },
            stdout=sink,
            stderr=subprocess.STDOUT,
        )

    def stop() -> None:
        parent.send_signal(signal.SIGTERM)
        try:
            parent.wait(timeout=30)
        finally:
            if parent.poll() is None:
                parent.kill()

    deadline = time.monotonic() + 180
    while not answers(port):
        if parent.poll() is not None or time.monotonic() > deadline:
            stop()
            pytest.fail(f"the demo did not serve:\n{out.read_text()}")
        time.sleep(0.2)
    return port, out.read_text(), stop


def flavor_names(port: int) -> list[str]:
    body = get(f"http://127.0.0.1:{port}/compute/v2.1/flavors?is_public=none")
    return sorted(flavor["name"] for flavor in body["flavors"])


def test_demo_loads_the_examples_into_its_own_database_and_keeps_api_changes(
    tmp_path: Path,
) -> None:
    database_file = (tmp_path / "demo" / "flavorsmith.db").resolve()
    database = f"sqlite:///{database_file}"

    port, printed, stop = run_demo(tmp_path)
    try:
        assert f"demo database: {database_file} (its own; not the per-user default)" in printed
        assert f"The dashboard: http://127.0.0.1:{port}/ui/" in printed
        assert flavor_names(port) == EXAMPLE_FLAVORS
        templates = get(
            f"http://127.0.0.1:{port}/baremetal/v1/deploy_templates",
            **{"X-OpenStack-Ironic-API-Version": "1.55"},
        )
        assert sorted(t["name"] for t in templates["deploy_templates"]) == [
            "CUSTOM_BM_CONFIG_BIOS_VMX_OFF",
            "CUSTOM_BM_CONFIG_BIOS_VMX_ON",
            "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR",
            "CUSTOM_BM_CONFIG_RAID_DISK_STRIPE",
        ]
        # Every printed flavorsmith command runs as printed, from any folder.
        commands = [
            line.split()
            for line in printed.splitlines()
            if line.startswith(f"  {ROOT / '.venv' / 'bin' / 'flavorsmith'} ")
        ]
        assert [c[1] for c in commands] == ["match", "capacity", "sync"]
        for command in commands:
            assert command[-2:] == ["--only", "deploy-templates"] or command[-2:] == [
                "--database",
                database,
            ]
            done = subprocess.run(
                [sys.executable, "-m", "flavorsmith", *command[1:]],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                check=False,
            )
            assert done.returncode == 0, done.stderr
        assert "compute flavor list" in printed
        delete = urllib.request.Request(
            f"http://127.0.0.1:{port}/compute/v2.1/flavors/m1.small", method="DELETE"
        )
        with urllib.request.urlopen(delete, timeout=10) as response:
            assert response.status == 202
    finally:
        stop()
    assert not (tmp_path / "user" / "flavorsmith").exists()  # the per-user database is untouched

    port, printed, stop = run_demo(tmp_path)  # a second run keeps the change, and says so
    try:
        assert (
            f"demo database {database_file} is kept from an earlier run: its nodes, flavors and "
            "deploy templates stay as they are, changes made through the APIs included; nothing "
            "is imported or synced (`sync plan` below shows what differs from the catalog).\n"
            "`python3 dev.py demo --reset` deletes it and loads the examples again.\n"
        ) in printed
        assert "+ create flavor m1.small\n" in printed  # the plan shows the deleted flavor
        assert flavor_names(port) == [f for f in EXAMPLE_FLAVORS if f != "m1.small"]
    finally:
        stop()

    port, printed, stop = run_demo(tmp_path, "--reset")
    try:
        assert (
            f"demo database {database_file} is deleted (--reset): its nodes, flavors and "
            "deploy templates, with every change made through the APIs, are replaced by "
            "the examples.\n"
        ) in printed
        assert flavor_names(port) == EXAMPLE_FLAVORS
    finally:
        stop()
