"""The real `openstack` CLI without its start-up cost: one process imports the CLI and its
plugins once (about a second of CPU), then forks a fresh child for each command, which runs the
CLI's own entry point (``openstackclient.shell.main``) with the command's arguments,
environment and working directory, its output written to files. A command then costs about a
tenth of a second instead of a second or more, and each still runs in a process of its own
(nothing one command does reaches the next).

    result = run_openstack(["--os-auth-type", "none", ...], env={"PATH": ..., "HOME": ...})
    # a subprocess.CompletedProcess[str], as subprocess.run(..., capture_output=True, text=True)

The forking process starts with the first command and has the environment of the first
command without its ``OS_*`` variables (the CLI reads those when a command runs, not when its
modules are imported); a command whose environment differs in anything else runs as a plain
subprocess. ``FLAVORSMITH_TEST_CLI_FORKS=0`` runs every command as a plain subprocess.

This file is also the forking process (``python openstack_cli.py``): it reads one JSON request
per line on its standard input and answers each with one JSON line; it ends when its input
closes."""

from __future__ import annotations

import atexit
import json
import locale
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

OPENSTACK = str(Path(sys.executable).parent / "openstack")


def _base(env: Mapping[str, str]) -> dict[str, str]:
    """What the forking process's environment must be for a command with ``env``."""
    return {k: v for k, v in env.items() if not k.startswith("OS_")}


class _Forks:
    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = _base(env)
        self.folder = tempfile.TemporaryDirectory(prefix="flavorsmith-openstack-cli-")
        self.process = subprocess.Popen(
            [sys.executable, __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=self.env,
            text=True,
        )
        self.lock = threading.Lock()
        self.count = 0

    def run(self, args: Sequence[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
        with self.lock:
            self.count += 1
            out = Path(self.folder.name) / f"{self.count}.out"
            err = Path(self.folder.name) / f"{self.count}.err"
            request = {
                "args": list(args),
                "env": dict(env),
                "cwd": os.getcwd(),
                "out": str(out),
                "err": str(err),
            }
            assert self.process.stdin is not None and self.process.stdout is not None
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"the forking openstack CLI ended (exit {self.process.wait()})")
            code = int(json.loads(line)["returncode"])
            encoding = locale.getpreferredencoding(False)
            stdout, stderr = out.read_text(encoding), err.read_text(encoding)
            out.unlink()
            err.unlink()
        return subprocess.CompletedProcess([OPENSTACK, *args], code, stdout, stderr)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.folder.cleanup()


_forks: _Forks | None = None
_start = threading.Lock()


def run_openstack(args: Sequence[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """`openstack *args` with exactly ``env`` as its environment, output captured as text."""
    global _forks
    if os.environ.get("FLAVORSMITH_TEST_CLI_FORKS", "1") != "0":
        with _start:
            if _forks is None:
                _forks = _Forks(env)
                atexit.register(_forks.close)
        if _forks.env == _base(env):
            return _forks.run(args, env)
    return subprocess.run(
        [OPENSTACK, *args], capture_output=True, text=True, check=False, env=dict(env)
    )


# ------------------------------------------------------------------ the forking process


def _warm() -> Any:
    """Import the CLI and every module its plugins name, as a command would."""
    import importlib.metadata

    from openstackclient import shell

    entries = (e for d in importlib.metadata.distributions() for e in d.entry_points)
    for entry in entries:
        if entry.group.startswith("openstack."):
            # A plugin that fails to load here fails again, as it would, in the command.
            with suppress(Exception):
                entry.load()
    return shell.main


def _child(main: Any, request: dict[str, Any]) -> int:
    """Run in the forked child: the CLI's entry point, as its console script runs it."""
    code: Any = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for fd, path, flags in (
            (0, os.devnull, os.O_RDONLY),
            (1, request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
            (2, request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        ):
            opened = os.open(path, flags, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        sys.argv = [OPENSTACK, *request["args"]]
        code = main(request["args"])
    except SystemExit as exit:
        code = exit.code
    except BaseException:  # printed as Python prints an uncaught exception
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with suppress(Exception):
                stream.flush()
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    sys.stderr.flush()
    return 1


def _serve() -> None:
    requests: IO[str] = os.fdopen(os.dup(0), "r")
    answers: IO[str] = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    main = _warm()
    for line in requests:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            requests.close()
            answers.close()
            os._exit(_child(main, request))
        _, status = os.waitpid(pid, 0)
        answers.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}) + "\n")
        answers.flush()


if __name__ == "__main__":
    _serve()
