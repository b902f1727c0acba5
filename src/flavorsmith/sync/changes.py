"""When a watcher should look at the catalog again: file-system events (watchfiles: inotify,
FSEvents, kqueue or Windows' own), or a plain poll where none can be had.

The events only wake the watcher: whether the catalog changed is still decided by comparing
``catalog.fingerprint`` (a ConfigMap volume's ``..data`` swap is one change, its hidden folders
being written are none), so an event too many costs one look and never a round. A watcher
that cannot get events (no inotify instance left, a folder it may not read) falls back to
looking every ``poll`` seconds and logs why once. On file systems that send no events (NFS,
some container bind mounts) set ``WATCHFILES_FORCE_POLLING=1``: watchfiles then polls itself.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from types import TracebackType

import watchfiles

from flavorsmith.catalog.fingerprint import folders
from flavorsmith.logs import event

log = logging.getLogger("flavorsmith.sync")

# How often the event thread checks that it should stop, and the longest it waits for the
# first event before saying it is ready (a change made before it was ready is looked for then).
STEP_MS = 50
READY_MS = 500


class _Either:
    """Set when either event is: the watcher's stop, or this object's close."""

    def __init__(self, first: threading.Event, second: threading.Event) -> None:
        self._events = (first, second)

    def is_set(self) -> bool:
        return any(e.is_set() for e in self._events)


class Changes:
    """Counts the file-system events under ``root``; ``seen()`` says whether any came since it
    was last asked, ``wait(seconds)`` returns early when one comes (or ``stop`` is set)."""

    def __init__(self, root: Path, stop: threading.Event) -> None:
        self._root = root
        self._stop = stop
        self._closed = threading.Event()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._count = 0
        self._looked = 0
        self.polling = False
        self._thread = threading.Thread(target=self._listen, name="catalog-changes", daemon=True)
        self._thread.start()

    def _stopped(self) -> bool:
        return self._stop.is_set() or self._closed.is_set()

    def _paths(self) -> list[Path]:
        """The catalog's folders that exist (not the whole repository: a checkout's .git or a
        virtualenv beside hardware/ would cost a watch per folder), else the root itself."""
        return [p for p in folders(self._root) if p.is_dir()] or [self._root]

    def _listen(self) -> None:
        try:
            while not self._stopped():
                self._watch(self._paths())
        except Exception as exc:  # no events to be had: poll instead
            if not self._stopped():
                self.polling = True
                log.warning(
                    "catalog watcher polls: no file-system events",
                    extra=event("watch", error=f"{type(exc).__name__}: {exc}"),
                )
        self._wake.set()

    def _watch(self, paths: list[Path]) -> None:
        """Until stopped, or until the folders to watch are no longer ``paths`` (hardware/
        removed or created, as a checkout may): then the caller watches the new ones."""
        ready = False
        for batch in watchfiles.watch(
            *paths,
            debounce=STEP_MS,
            step=STEP_MS,
            rust_timeout=READY_MS,
            yield_on_timeout=True,
            stop_event=_Either(self._stop, self._closed),
            raise_interrupt=False,
        ):
            if batch or not ready:
                ready = True
                self._note()
            if batch and self._paths() != paths:
                return

    def _note(self) -> None:
        with self._lock:
            self._count += 1
        self._wake.set()

    def seen(self) -> bool:
        """Whether anything may have changed since the last call (always, when polling)."""
        with self._lock:
            hit = self._count != self._looked
            self._looked = self._count
        return hit or self.polling

    def wait(self, seconds: float) -> None:
        """Up to ``seconds``; less when an event comes or ``stop`` is set."""
        if self.polling:
            self._stop.wait(seconds)
            return
        self._wake.wait(seconds)
        self._wake.clear()

    def close(self) -> None:
        self._closed.set()
        self._thread.join(5)

    def __enter__(self) -> Changes:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
