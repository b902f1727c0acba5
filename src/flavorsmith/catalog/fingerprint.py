"""A cheap fingerprint of a catalog repository's files: what a watcher compares to know that
the catalog changed and must be loaded again."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from stat import S_ISREG


def fingerprint(root: Path) -> str:
    """Changes when any file under hardware/ changes (a ConfigMap swap or a Git pull). Files or
    folders removed while it looks are left out, never an error: a watcher must outlive a
    checkout that deletes hardware/ under it (the next look sees the rest of the change)."""
    entries: list[str] = []
    # os.walk skips a folder that vanished between listing and scanning; like Path.rglob it
    # does not descend into linked folders.
    for folder, _dirs, files in os.walk(root / "hardware"):
        for name in files:
            path = os.path.join(folder, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue  # removed (or a dangling link): not a file to fingerprint
            if S_ISREG(stat.st_mode):
                entries.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}")
    digest = hashlib.sha256()
    for entry in sorted(entries):
        digest.update(f"{entry}\n".encode())
    return digest.hexdigest()
