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

_NONE = EntryPoints(())


def entry_points(*, group: str) -> EntryPoints:
    """The entry points of ``group``, as :func:`importlib.metadata.entry_points` gives them."""
    return _by_group(tuple(sys.path)).get(group, _NONE)


def forget() -> None:
    """Read the installed packages again on the next lookup."""
    _by_group.cache_clear()


@functools.lru_cache(maxsize=1)
def _by_group(path: tuple[str, ...]) -> dict[str, EntryPoints]:
    """Every group's entry points, from one reading of the packages on ``path`` (the key:
    the reading is of ``sys.path``, which is ``path`` when it is called)."""
    found = importlib.metadata.entry_points()
    return {group: found.select(group=group) for group in sorted(found.groups)}
