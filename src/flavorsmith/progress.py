"""The one progress bar of long work (node import, sync apply, classify of many nodes, a first
mirror load): drawn on a stream that is a terminal (stderr unless told), with the count, the
rate and the time left; nothing at all otherwise, so piped and logged output stays exactly the
command's own. Standard library only: the command line and ``serve`` both use it."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

WIDTH = 36  # characters of the bar itself, as click draws its own


class Progress:
    """A bar drawn from its first report: ``advance`` by a count of a known ``length``, or
    ``at`` (done, total) when the total is known only once the work has begun, or ``at``
    (done, None) when it is never known (then no bar and no time left: the count and rate)."""

    def __init__(self, label: str, length: int | None, stream: TextIO) -> None:
        self.label = label
        self.length = length
        self.stream = stream
        self.shown = is_terminal(stream)
        self.started = time.monotonic()
        self.done = 0
        self.drawn = 0  # characters of the last line drawn; 0: nothing drawn yet

    def advance(self, steps: int = 1) -> None:
        self.at(self.done + steps, self.length)

    def at(self, done: int, total: int | None) -> None:
        if not self.shown:
            return
        if not self.drawn:
            self.started = min(self.started, time.monotonic())
            self._draw(0, total, None)
        self.done, self.length = done, total
        self._draw(done, total, self._rate())

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = 0

    def _rate(self) -> float:
        return self.done / max(time.monotonic() - self.started, 1e-6)

    def _draw(self, done: int, total: int | None, rate: float | None) -> None:
        bits = [self.label]
        if total is not None:
            filled = WIDTH if total <= 0 else min(WIDTH, WIDTH * done // total)
            bits.append("[" + "#" * filled + "-" * (WIDTH - filled) + "]")
            percent = 100 if total <= 0 else min(100, 100 * done // total)
            bits.append(f"{done}/{total}  {percent:3d}%")
        else:
            bits.append(f"{done}")
        if rate is not None:
            bits.append(f"{rate:,.0f}/s" if rate >= 10 else f"{rate:.1f}/s")
            if total is not None:
                left = (total - done) / rate if rate > 0 else 0.0
                bits.append(f"eta {clock(left)}")
        line = "  ".join(bits)
        self.stream.write("\r" + line.ljust(self.drawn))
        self.stream.flush()
        self.drawn = len(line)


def clock(seconds: float) -> str:
    """``h:mm:ss``."""
    whole = int(seconds + 0.5)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


@contextmanager
def progress(
    label: str, length: int | None = None, stream: TextIO | None = None
) -> Iterator[Progress]:
    """A progress bar for the block (see ``Progress``); stderr unless ``stream`` is given."""
    bar = Progress(label, length, stream if stream is not None else sys.stderr)
    try:
        yield bar
    finally:
        bar.close()
