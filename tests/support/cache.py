"""The test cache: where the tests keep what they install between runs (the real OpenStack
services' virtual environments, the wheelhouse, the wheel's own environment), under
~/.cache/flavorsmith-tests or $FLAVORSMITH_TEST_CACHE.

Several test processes use it at once (the suite's workers, another checkout's run), so each
install happens under :func:`install_lock`: the first process installs, the others wait and
then find the install complete (every install writes its marker last)."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

CACHE = Path(os.environ.get("FLAVORSMITH_TEST_CACHE", Path.home() / ".cache" / "flavorsmith-tests"))


@contextmanager
def install_lock(name: str) -> Iterator[None]:
    """Hold the exclusive lock ``CACHE/NAME.lock`` (``flock``: released by the kernel when the
    holder ends, so a killed run never leaves it taken). Check the install's marker again once
    inside: another process may have made it while this one waited."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{name}.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


# The file an install writes last, its first line the key of what it installed.
MARKER = ".flavorsmith-installed"


def cached_install(home: Path, key: str, install: Callable[[Path], None]) -> Path:
    """``home``, installed by ``install(home)`` unless its marker already names ``key``; under
    :func:`install_lock`, checking the marker again once inside (another process may have
    installed it while this one waited). ``install`` writes the marker last."""

    def current() -> bool:
        marker = home / MARKER
        return marker.exists() and marker.read_text().splitlines()[:1] == [key]

    if current():
        return home
    with install_lock(home.name):
        if not current():
            install(home)
    return home
