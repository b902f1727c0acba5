"""What every starter of a real OpenStack service in the test support does the same way: install
the service into a virtual environment of the test cache, find a free loopback port, wait for
the service to answer, show the tail of its logs when it does not, and stop it by its own
process group."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from pathlib import Path

from tests.support.cache import MARKER

STOP_TIMEOUT = 20.0


def tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


def log_tail(state: Path, names: Sequence[str]) -> str:
    """The last lines of each of the logs ``names`` in ``state`` that was written."""
    parts = []
    for name in names:
        path = state / name
        if path.exists():
            parts.append(f"--- {name} (last lines) ---\n{tail(path.read_text(errors='replace'))}")
    return "\n".join(parts) or "(no log written)"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answers(url: str, headers: Mapping[str, str] | None = None) -> bool:
    """Whether a GET of ``url`` answers 200 now (a refused connection or an error: not yet)."""
    request = urllib.request.Request(url, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.HTTPError):
        return False


def stop(process: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT) -> None:
    """Stop a service and everything it forked (started in a session of its own, they share
    its process group): SIGTERM, then SIGKILL to any straggler after ``timeout`` seconds."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout)
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def install_venv(
    home: Path,
    *,
    what: str,
    packages: tuple[str, ...],
    constraints: Path,
    key: str,
    after: Callable[[Path], None] | None = None,
) -> None:
    """Make ``home`` a fresh virtual environment with ``packages`` (pinned by
    ``constraints``), run ``after(home)`` (a schema to build, say), then write the cache's
    marker naming ``key`` and the seconds each part took. ``what`` names the service in
    errors and in the line that says it was installed."""
    if isinstance(packages, str):  # a str is a Sequence[str] too: pip would get one letter each
        raise TypeError(f"packages must be a sequence of requirements, not the str {packages!r}")
    shutil.rmtree(home, ignore_errors=True)
    started = time.monotonic()
    install = [
        str(home / "bin" / "pip"),
        "install",
        "-q",
        "--disable-pip-version-check",
        "-c",
        str(constraints),
        *packages,
    ]
    try:
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
        result = subprocess.run(install, capture_output=True, text=True, check=False)
    except OSError as error:
        raise RuntimeError(f"could not create the {what} venv in {home}: {error}") from error
    if result.returncode != 0:
        raise RuntimeError(
            f"installing {' '.join(packages)} into {home} failed (exit {result.returncode});"
            f" is PyPI reachable?\n$ {' '.join(install)}\n{tail(result.stdout + result.stderr)}"
        )
    installed = time.monotonic() - started
    timings = f"install-seconds={installed:.1f}\n"
    if after is not None:
        after(home)
        timings += f"after-install-seconds={time.monotonic() - started - installed:.1f}\n"
    (home / MARKER).write_text(f"{key}\n{timings}")
    seconds = time.monotonic() - started
    print(f"installed {what} into {home} in {seconds:.1f}s", file=sys.stderr)
