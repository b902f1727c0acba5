"""Running the command line in a real terminal (a pseudo-terminal of a given size), as an
operator does: what it prints depends on stdout being a terminal, and on its width."""

from __future__ import annotations

import dataclasses
import fcntl
import os
import struct
import subprocess
import sys
import termios
from collections.abc import Mapping
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Run:
    exit_code: int
    stdout: str  # what the terminal showed, with its line ends as "\n"
    stderr: str  # a pipe, not the terminal


def in_terminal(
    *args: str,
    columns: int = 80,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> Run:
    """``flavorsmith ARGS`` with stdout on a pseudo-terminal ``columns`` wide (set with
    TIOCSWINSZ; $COLUMNS and $LINES removed, so the width is the terminal's own)."""
    controller, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    environment.update(env or {})
    process = subprocess.Popen(
        [sys.executable, "-m", "flavorsmith", *args],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=environment,
    )
    os.close(terminal)
    shown = b""
    try:
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal's other end closed (Linux: EIO)
                break
            if not chunk:
                break
            shown += chunk
        _, errors = process.communicate(timeout=timeout)
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()
    return Run(process.returncode, shown.decode().replace("\r\n", "\n"), errors.decode())
