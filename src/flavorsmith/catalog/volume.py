"""A folder of catalog files as it is on disk: a plain folder, or a Kubernetes ConfigMap volume.

The kubelet mounts a ConfigMap as one visible link per key (``m1.small.yaml ->
..data/m1.small.yaml``), ``..data`` a link to a hidden timestamped folder
(``..2026_11_24_05_00_00.123456789``) holding the files. An update writes a new timestamped
folder, adds the links of new keys, renames a ``..data_tmp`` link over ``..data`` (the one
atomic step), then removes the links of dropped keys and the old folder. So the files of one
update are read from the folder ``..data`` names at one moment, never through the visible
links one by one (a swap between two reads would mix two updates); names starting with
``..`` are the kubelet's and are never catalog files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DATA = "..data"
SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class CatalogFile:
    """One file: ``path`` as diagnostics name it (the visible one), ``source`` where its bytes
    are read (in a ConfigMap volume, inside the timestamped folder of one update)."""

    path: Path
    source: Path


def hidden(name: str) -> bool:
    """The kubelet's own entries (``..data``, ``..data_tmp``, ``..<timestamp>``)."""
    return name.startswith("..")


def stamp(folder: Path) -> str | None:
    """The timestamped folder a ConfigMap volume's ``..data`` names now; None for a folder
    that is not one (or a missing folder)."""
    try:
        return os.readlink(folder / DATA)
    except OSError:
        return None


def files(folder: Path) -> list[CatalogFile]:
    """The YAML files of ``folder``, sorted by name; for a ConfigMap volume, the keys of the
    update ``..data`` names now, read from its timestamped folder. A missing folder, or one
    that vanished while listed, has none."""
    pinned = stamp(folder)
    where = folder / pinned if pinned is not None else folder
    try:
        names = sorted(
            entry.name
            for entry in os.scandir(where)
            if not hidden(entry.name)
            and Path(entry.name).suffix in SUFFIXES
            and entry.is_file(follow_symlinks=True)
        )
    except OSError:
        return []
    return [CatalogFile(folder / name, where / name) for name in names]


__all__ = ["DATA", "CatalogFile", "files", "hidden", "stamp"]
