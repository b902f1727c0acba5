"""``flavorsmith serve`` as a real process: "serving on" only once the port is bound (with the
real port for --port 0), a taken port is one line and exit 1, and /readyz reports a catalog
that is missing or empty (tests/api/test_health.py)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES


def start(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(home)}
    env.pop("FLAVORSMITH_DATABASE_URL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "flavorsmith", "serve", "--repo", str(EXAMPLES), *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "home"


def test_port_zero_prints_the_bound_port(home: Path) -> None:
    process = start(home, "--port", "0")
    try:
        assert process.stderr is not None
        lines = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            assert line, f"serve ended: {''.join(lines)}"
            lines.append(line)
            if line.startswith("serving on "):
                break
        found = re.fullmatch(r"serving on http://127\.0\.0\.1:(\d+)/ \(auth: noauth\)\n", line)
        assert found, lines
        port = int(found.group(1))
        assert port != 0
        # Printed only once bound: the very first request right after the line is answered.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as response:
            assert response.status == 200
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=20)
    assert process.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it handled


def test_a_taken_port_is_one_line_and_exit_1(home: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = start(home, "--port", str(port))
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 1
    assert "Traceback" not in stderr and "serving on" not in stderr
    assert stderr.splitlines()[-1] == (
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )
    assert sum(1 for line in stderr.splitlines() if line.startswith("error")) == 1
