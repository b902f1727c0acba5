"""A cheap fingerprint of a catalog repository's files: what a watcher compares to know that
the catalog changed and must be loaded again."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from stat import S_ISREG

from flavorsmith.catalog import volume
from flavorsmith.catalog.kinds import KINDS


def folders(root: Path) -> list[Path]:
    """Where the catalog's files are: hardware/, or in ConfigMap mode (no hardware/) the
    kinds' mounted folders (some may be missing)."""
    hardware = root / "hardware"
    return [hardware] if hardware.is_dir() else [root / kind.folder for kind in KINDS]


def fingerprint(root: Path) -> str:
    """Changes when any file of the catalog changes: under hardware/, or in ConfigMap mode
    (no hardware/) under the kinds' mounted folders. Files are looked at through their links
    (a ConfigMap's ``x.yaml -> ..data/x.yaml``: the file's size, time and inode, never the
    link's), and a ConfigMap volume's ``..data`` target is part of it, so the kubelet's atomic
    swap changes it at the moment it happens (its hidden timestamped folders are never walked:
    an update being written is not a change yet). Files or folders removed while it looks are
    left out, never an error: a watcher must outlive a checkout that deletes hardware/ under it
    (the next look sees the rest of the change)."""
    entries: list[str] = []
    for top in folders(root):
        # os.walk skips a folder that vanished between listing and scanning; like Path.rglob
        # it does not descend into linked folders (it does follow ``top`` itself).
        for folder, dirs, files in os.walk(top):
            dirs[:] = [name for name in dirs if not volume.hidden(name)]
            pinned = volume.stamp(Path(folder))
            if pinned is not None:
                entries.append(f"{folder}:{volume.DATA}->{pinned}")
            for name in files:
                if volume.hidden(name):
                    continue
                path = os.path.join(folder, name)
                try:
                    stat = os.stat(path)
                except OSError:
                    continue  # removed (or a dangling link): not a file to fingerprint
                if S_ISREG(stat.st_mode):
                    entries.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ino}")
    digest = hashlib.sha256()
    for entry in sorted(entries):
        digest.update(f"{entry}\n".encode())
    return digest.hexdigest()
