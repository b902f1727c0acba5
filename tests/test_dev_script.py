"""dev.py runs each step so that stopping it (SIGTERM, or Ctrl-C) stops the step too: the
demo's ``flavorsmith serve`` never keeps its port after dev.py is gone. dev.py's ``run`` is
driven directly (its set-up step would reinstall the virtual environment)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

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
