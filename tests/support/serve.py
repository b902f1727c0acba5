"""A real ``flavorsmith serve`` process on a free loopback port, for the tests that need the
command itself (its start-up, its log, its own process) rather than the application in a
thread (tests/live.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.live import free_port


@dataclass(frozen=True)
class Served:
    """A running ``flavorsmith serve``: its URL (no trailing slash), port, process and log."""

    url: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        """Everything the service has logged so far (all of it once it has stopped)."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return int(response.status) == 200
    except OSError:  # not listening yet, or an error status
        return False


@contextmanager
def serve_process(
    folder: Path,
    *args: str,
    home: Path | None = None,
    repo: Path = EXAMPLES,
    ready: str = "/readyz",
    timeout: float = 60.0,
) -> Iterator[Served]:
    """``flavorsmith serve --port PORT --repo REPO *args`` on a free port, with
    ``XDG_DATA_HOME`` at ``home`` (``folder/home`` by default) and no database URL from the
    environment; yielded once ``ready`` answers 200, stopped (SIGTERM, then SIGKILL after 20
    seconds) when the block ends. Its output (stdout and stderr) goes to ``folder/serve.log``,
    never to a pipe nobody reads while it runs (a full pipe would block the service on its
    next line). The test
    fails, showing the log, when the service exits or does not answer within ``timeout``."""
    env = {**os.environ, "XDG_DATA_HOME": str(home or folder / "home")}
    env.pop("FLAVORSMITH_DATABASE_URL", None)
    port = free_port()
    log_path = folder / "serve.log"
    command = [sys.executable, "-m", "flavorsmith", "serve", "--port", str(port)]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*command, "--repo", str(repo), *args],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    served = Served(f"http://127.0.0.1:{port}", port, process, log_path)
    try:
        deadline = time.monotonic() + timeout
        while not _answers(served.url + ready):
            if process.poll() is not None:
                pytest.fail(f"serve exited with {process.returncode}:\n{served.log()}")
            if time.monotonic() > deadline:
                pytest.fail(f"serve did not answer {ready} within {timeout:.0f}s:\n{served.log()}")
            time.sleep(0.1)
        yield served
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """End ``process`` if it still runs: SIGTERM, then SIGKILL after ``timeout`` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
