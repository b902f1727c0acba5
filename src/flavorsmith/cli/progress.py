"""The one progress bar of long commands (node import, sync apply, classify of many nodes, a
first mirror load): on stderr when it is a terminal, with the count, the rate and the time
left; nothing at all otherwise, so piped and logged output stays exactly the command's own."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, TextIO

import typer


class Progress:
    """A bar opened at its first report: ``advance`` by a count of a known ``length``, or
    ``at`` (done, total) when the total is known only once the work has begun, or ``at``
    (done, None) when it is never known (then no bar, no time left: the count and rate)."""

    def __init__(self, label: str, length: int | None, stream: TextIO, stack: ExitStack) -> None:
        self.label = label
        self.length = length
        self.stream = stream
        self.stack = stack
        self.shown = _is_terminal(stream)
        self.bar: Any = None
        self.started = time.monotonic()
        self.done = 0

    def advance(self, steps: int = 1) -> None:
        self.at(self.done + steps, self.length)

    def at(self, done: int, total: int | None) -> None:
        if not self.shown:
            return
        if self.bar is None:
            self.length = total
            self.bar = self.stack.enter_context(
                typer.progressbar(
                    length=total,
                    label=self.label,
                    file=self.stream,
                    show_eta=False,
                    show_percent=total is not None,
                    show_pos=True,
                    item_show_func=lambda item: item,
                )
            )
        steps, self.done = done - self.done, done
        self.bar.current_item = self._speed()
        self.bar.update(steps)

    def _speed(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-6)
        rate = self.done / elapsed
        text = f"{rate:,.0f}/s" if rate >= 10 else f"{rate:.1f}/s"
        if self.length is None:
            return text
        left = (self.length - self.done) / rate if rate > 0 else 0.0
        return f"{text}  eta {_clock(left)}"


def _clock(seconds: float) -> str:
    whole = int(seconds + 0.5)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


@contextmanager
def progress(
    label: str, length: int | None = None, stream: TextIO | None = None
) -> Iterator[Progress]:
    """A progress bar for the block (see ``Progress``); stderr unless ``stream`` is given."""
    with ExitStack() as stack:
        yield Progress(label, length, stream if stream is not None else sys.stderr, stack)
