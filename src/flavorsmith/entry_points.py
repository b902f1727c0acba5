"""The entry points of the installed packages, read once per process: reading them reads
every installed distribution's metadata (tens of milliseconds), and the provider drivers and
the extra-spec plugins are both looked up wherever an application is composed (each test's
app, each command). They are read again when ``sys.path`` changes, and after :func:`forget`
(a package installed or removed while the process runs)."""

from __future__ import annotations

import functools
import importlib.metadata
import sys
from importlib.metadata import EntryPoints


def entry_points(*, group: str) -> EntryPoints:
    """The entry points of ``group``, as :func:`importlib.metadata.entry_points` gives them."""
    return _installed(tuple(sys.path)).group(group)


def forget() -> None:
    """Read the installed packages again on the next lookup."""
    _installed.cache_clear()


class _Installed:
    """One reading of every installed package's entry points; a group is selected from it
    the first time it is asked for, and kept."""

    def __init__(self) -> None:
        self._found = importlib.metadata.entry_points()
        self._groups: dict[str, EntryPoints] = {}

    def group(self, name: str) -> EntryPoints:
        selected = self._groups.get(name)
        if selected is None:
            selected = self._groups[name] = self._found.select(group=name)
        return selected


@functools.lru_cache(maxsize=1)
def _installed(path: tuple[str, ...]) -> _Installed:
    """The packages on ``path`` (the key only: the reading is of ``sys.path``, which is
    ``path`` when this is called)."""
    return _Installed()
