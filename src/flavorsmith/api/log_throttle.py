"""One line per interval for an event that can repeat per request or per socket (a database
outage, an overload): the first occurrence is logged, the rest of the interval is counted and
the next line says how many were left out."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

# How often a recurring event is logged at most.
DEFAULT_INTERVAL = 60.0


class LogThrottle:
    def __init__(
        self, interval: float = DEFAULT_INTERVAL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.interval = interval
        self.clock = clock
        self._last: float | None = None
        self._left_out = 0
        self._lock = threading.Lock()

    def admit(self) -> int | None:
        """None when this occurrence is to be left out of the log; else how many were left
        out since the last line (0 the first time)."""
        now = self.clock()
        with self._lock:
            if self._last is not None and now - self._last < self.interval:
                self._left_out += 1
                return None
            left_out, self._left_out, self._last = self._left_out, 0, now
            return left_out


def left_out_note(count: int) -> str:
    """What a throttled line appends: how many occurrences the log left out before it."""
    return f" ({count} more since the last such line)" if count else ""
