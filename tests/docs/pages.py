"""The runner of the documentation's examples: a page's file blocks are written and its
console blocks run, in order, in a folder of their own, and each command's output is compared
with what the page shows.

A page's conventions (docs/tutorial/ follows them):

- a fenced block with a ``title="PATH"`` (```` ```yaml title="hardware/flavors/x.yaml" ````)
  is a file the reader writes: the runner writes it at PATH;
- a ```` ```console ```` block holds commands, each on a line starting with ``$ ``, followed by
  the output the page shows for it. A line ``...`` in that output stands for any number of
  lines. A command that ends with ``# exits N`` must exit with N (else with 0); one that ends
  with `` &`` starts a server in the background: the runner waits for its ``--port`` to answer
  and stops it at the end. ``cd DIR`` changes the folder the next commands run in.
  Each port a command names (``--port N``, ``127.0.0.1:N``) is replaced by a free one; where
  the output names that free port, it is compared (and recorded) as the page's ``N``.

A page whose examples need real OpenStack services says so on its first line, an HTML comment
the site does not show: ``<!-- docs-test: ironic nova placement -->`` (``services`` reads it).
Its test (tests/docs/test_real_cloud.py) starts those services and names them as the
``clouds.yaml`` cloud ``lab`` before the page runs.

``FLAVORSMITH_DOCS_RECORD=1`` writes the outputs the commands gave back into the page instead
of comparing them (review the diff before committing it)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.service import free_port

FENCE = re.compile(r"^```(\w*)(.*)$")
TITLE = re.compile(r'title="([^"]+)"')
EXITS = re.compile(r"\s+# exits (\d+)$")
PORT = re.compile(r"--port (\d+)")
SERVICES = re.compile(r"<!-- docs-test: ([a-z ]+) -->")
START_TIMEOUT = 60.0
COMMAND_TIMEOUT = 300.0


@dataclass
class Block:
    kind: str  # "file" or "console"
    start: int  # the line of its opening fence
    end: int  # the line of its closing fence
    path: str = ""
    lines: list[str] = field(default_factory=list)


def blocks(text: str) -> list[Block]:
    """The file and console blocks of a page, in order."""
    found: list[Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening or lines[i] == "```":
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end] != "```":
            end += 1
        body = lines[i + 1 : end]
        title = TITLE.search(opening.group(2))
        if title:
            found.append(Block("file", i, end, path=title.group(1), lines=body))
        elif opening.group(1) == "console":
            found.append(Block("console", i, end, lines=body))
        i = end + 1
    return found


def services(text: str) -> list[str]:
    """The real services a page's examples need, as its first line declares them (none
    without the declaration)."""
    declared = SERVICES.fullmatch(text.split("\n", 1)[0])
    return declared.group(1).split() if declared else []


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """A console block's commands, each with the output the page shows for it."""
    out: list[tuple[str, list[str]]] = []
    for line in block.lines:
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected``, a ``...`` line standing for any lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0] == expected[0] and matches(expected[1:], actual[1:])


class Session:
    """The folder a page runs in, the environment of its commands and its servers."""

    def __init__(self, folder: Path, environment: dict[str, str]) -> None:
        self.folder = folder
        self.cwd = folder
        self.environment = environment
        self.servers: list[subprocess.Popen[bytes]] = []
        self.ports: dict[str, str] = {}

    def _ported(self, command: str) -> str:
        """The command with each port the page names replaced by a free one (the same one
        each time the page names it), so that runs never collide."""
        for port in PORT.findall(command) + re.findall(r"127\.0\.0\.1:(\d+)", command):
            self.ports.setdefault(port, str(free_port()))
        for page_port, port in self.ports.items():
            command = command.replace(f":{page_port}", f":{port}")
            command = command.replace(f"--port {page_port}", f"--port {port}")
        return command

    def write(self, block: Block) -> None:
        target = self.cwd / block.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(block.lines) + "\n")

    def run(self, command: str) -> tuple[int, list[str]]:
        """Run one command; its exit status and its output (stdout and stderr, in order)."""
        command = self._ported(EXITS.sub("", command))
        if command.startswith("cd "):
            self.cwd = (self.cwd / shlex.split(command)[1]).resolve()
            return 0, []
        if command.endswith(" &"):
            return self._start(command[:-2])
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=self.cwd,
            env=self.environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
        text = self._unported(done.stdout.decode(errors="replace"))
        return done.returncode, [
            line.rstrip() for line in text.rstrip("\n").split("\n")
        ] if text else []

    def _unported(self, output: str) -> str:
        """The output with each free port the runner chose shown as the page's own."""
        for page_port, port in self.ports.items():
            output = re.sub(rf":{port}\b", f":{page_port}", output)
        return output

    def _start(self, command: str) -> tuple[int, list[str]]:
        port = PORT.search(command)
        assert port, f"a background command names its --port: {command}"
        with (self.folder / f"server-{len(self.servers)}.log").open("wb") as log:
            server = subprocess.Popen(
                ["bash", "-c", f"exec {command}"],
                cwd=self.cwd,
                env=self.environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.servers.append(server)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise AssertionError(f"{command} exited with {server.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port.group(1)}/healthz", timeout=1):
                    return 0, []
            except OSError:
                time.sleep(0.2)
        raise AssertionError(f"{command} did not answer within {START_TIMEOUT:g} s")

    def close(self) -> None:
        for server in self.servers:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
                try:
                    server.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait()


def environment(home: Path) -> dict[str, str]:
    """The commands' environment: this venv's `flavorsmith` and `openstack` first on PATH, and
    nothing from the caller's Flavorsmith or OpenStack settings."""
    kept = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("FLAVORSMITH_", "OS_", "UC_DEPLOY")) and k != "COLUMNS"
    }
    bin_dir = str(Path(sys.executable).parent)
    return {**kept, "PATH": f"{bin_dir}:{kept.get('PATH', '')}", "HOME": str(home)}


def run_page(page: Path, session: Session) -> list[str]:
    """Run a page; the differences from what it shows (none when it holds). With
    ``FLAVORSMITH_DOCS_RECORD=1`` the page is rewritten with what the commands printed."""
    record = os.environ.get("FLAVORSMITH_DOCS_RECORD") == "1"
    text = page.read_text()
    lines = text.split("\n")
    problems: list[str] = []
    replacements: list[tuple[Block, list[str]]] = []
    for block in blocks(text):
        if block.kind == "file":
            session.write(block)
            continue
        recorded: list[str] = []
        for command, expected in commands(block):
            wanted = int(m.group(1)) if (m := EXITS.search(command)) else 0
            status, output = session.run(command)
            recorded += [f"$ {command}", *output]
            where = f"{page.name}:{block.start + 1}: $ {command}"
            if status != wanted:
                problems.append(f"{where}\n  exited {status}, not {wanted}:\n" + "\n".join(output))
            elif not record and not matches(expected, output):
                problems.append(
                    f"{where}\n  the page shows:\n"
                    + "\n".join(expected)
                    + "\n  it printed:\n"
                    + "\n".join(output)
                )
        replacements.append((block, recorded))
    if record:
        for block, recorded in reversed(replacements):
            lines[block.start + 1 : block.end] = recorded
        page.write_text("\n".join(lines))
    return problems
