"""Progress bars: on a terminal's stderr, a bar with the count, the rate and the time left;
nothing at all when stderr is not a terminal."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import flavorsmith
from tests.conftest import EXAMPLES

# One redraw of a finished bar: label, bar, count, percentage, rate, time left.
FINISHED = r"{label}  \[#{{36}}\]  {n}/{n}  100%  [0-9][0-9,.]*/s  eta 0:00:00"


def stderr_on_a_terminal(args: list[str]) -> tuple[int, str, str]:
    """Run the command with a pseudo-terminal as its stderr, stdout piped: (exit code,
    stdout, what reached the terminal without its control sequences)."""
    main, child = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "flavorsmith", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=child,
        env={**os.environ, "PYTHONPATH": str(Path(flavorsmith.__file__).parents[1])},
    )
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed: the program exited
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert process.stdout is not None
    with process.stdout:  # a few lines: the pipe never fills while the terminal is read
        stdout = process.stdout.read().decode()
    code = process.wait()
    terminal = b"".join(chunks).decode().replace("\x1b[?25l", "").replace("\x1b[?25h", "")
    return code, stdout, terminal


def piped(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flavorsmith", *args], capture_output=True, text=True, check=False
    )


def redraws(terminal: str) -> list[str]:
    assert terminal.endswith("\r\n")
    return [line.rstrip() for line in terminal[:-2].split("\r") if line]


def test_node_import_shows_a_bar_on_a_terminal_and_nothing_when_piped(tmp_path: Path) -> None:
    args = ["node", "import", str(EXAMPLES / "nodes.yaml"), "--database"]
    code, stdout, terminal = stderr_on_a_terminal([*args, f"sqlite:///{tmp_path / 'a.db'}"])
    assert (code, stdout) == (0, "created: 350\nupdated: 0\nunchanged: 0\n")
    # One bar: the file read as it streams in, each batch of nodes checked and written.
    kib = (EXAMPLES / "nodes.yaml").stat().st_size >> 10
    first, *_, last = redraws(terminal)
    assert first == "importing (KiB)  [" + "-" * 36 + f"]  0/{kib}    0%"
    assert re.fullmatch(FINISHED.format(label=r"importing \(KiB\)", n=kib), last)
    result = piped([*args, f"sqlite:///{tmp_path / 'b.db'}"])
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "created: 350\nupdated: 0\nunchanged: 0\n",
        "",
    )


def test_sync_apply_shows_a_bar_per_write_and_nothing_when_piped(tmp_path: Path) -> None:
    args = ["sync", "apply", "--yes", "--repo", str(EXAMPLES), "--database"]
    code, stdout, terminal = stderr_on_a_terminal([*args, f"sqlite:///{tmp_path / 'a.db'}"])
    assert code == 0
    assert stdout.endswith("12 changes, 0 failed, 13 API calls\n")
    lines = redraws(terminal)
    assert lines[0] == "applying  [" + "-" * 36 + "]  0/12    0%"
    assert [int(re.split(r"\s+", line)[2].split("/")[0]) for line in lines] == list(range(13))
    for line in lines[1:]:
        assert re.fullmatch(
            r"applying  \[[#-]{36}\]  \d+/12 +\d+%  [0-9][0-9,.]*/s  eta \d:\d\d:\d\d", line
        )
    assert re.fullmatch(FINISHED.format(label="applying", n=12), lines[-1])
    result = piped([*args, f"sqlite:///{tmp_path / 'b.db'}"])
    assert (result.returncode, result.stdout, result.stderr) == (0, stdout, "")
    # Nothing to write: no bar, even on a terminal.
    code, again, terminal = stderr_on_a_terminal([*args, f"sqlite:///{tmp_path / 'a.db'}"])
    assert (code, terminal) == (0, "")
    assert again.endswith("0 changes, 0 failed, 1 API calls\n")
