"""A folder laid out exactly as the kubelet lays out a ConfigMap volume, and updated as it
updates one (Kubernetes' AtomicWriter):

    flavors/m1.small.yaml -> ..data/m1.small.yaml
    flavors/..data        -> ..2026_11_24_05_00_00.123456789
    flavors/..2026_11_24_05_00_00.123456789/m1.small.yaml

An update (1) writes a new timestamped folder, (2) adds the visible links of new keys (they
dangle until the swap), (3) makes a ``..data_tmp`` link to the new folder, (4) renames it over
``..data`` (the atomic step), (5) removes the visible links of dropped keys, (6) removes the old
folder. ``step`` is called after each of them, so a test can pause or act half-way.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Mapping
from pathlib import Path

DATA = "..data"
DATA_TMP = "..data_tmp"
STEPS = ("written", "linked", "data_tmp", "swapped", "unlinked", "cleaned")


class ConfigMapVolume:
    """One mounted ConfigMap at ``folder`` (created when missing, as the kubelet does)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def keys(self) -> list[str]:
        current = self._current()
        return sorted(os.listdir(self.folder / current)) if current else []

    def write(
        self, payload: Mapping[str, str | bytes], step: Callable[[str], None] | None = None
    ) -> None:
        """Project ``payload`` (key -> content) into the volume, as one atomic update."""
        step = step or (lambda _name: None)
        for key in payload:
            assert "/" not in key and not key.startswith(".."), key
        old = self._current()
        fresh = self._new_stamp()
        for key, content in payload.items():
            data = content.encode() if isinstance(content, str) else content
            (fresh / key).write_bytes(data)
            (fresh / key).chmod(0o644)
        step("written")
        for key in payload:
            visible = self.folder / key
            if not visible.is_symlink():
                visible.symlink_to(Path(DATA) / key)
        step("linked")
        (self.folder / DATA_TMP).symlink_to(fresh.name)
        step("data_tmp")
        os.rename(self.folder / DATA_TMP, self.folder / DATA)
        step("swapped")
        if old is not None:
            for key in set(os.listdir(self.folder / old)) - set(payload):
                (self.folder / key).unlink()
        step("unlinked")
        if old is not None:
            for child in (self.folder / old).iterdir():
                child.unlink()
            (self.folder / old).rmdir()
        step("cleaned")

    def _new_stamp(self) -> Path:
        """``..2026_11_24_05_00_00.123456789``: the UTC time and a random number, as Go's
        os.MkdirTemp makes it from the kubelet's ``..2006_01_02_15_04_05.`` pattern."""
        while True:
            stamp = time.strftime("..%Y_%m_%d_%H_%M_%S.", time.gmtime())
            fresh = self.folder / f"{stamp}{random.randrange(10**9)}"
            try:
                fresh.mkdir(mode=0o755)
            except FileExistsError:
                continue
            fresh.chmod(0o755)
            return fresh

    def _current(self) -> str | None:
        try:
            return os.readlink(self.folder / DATA)
        except FileNotFoundError:
            return None


def mount_catalog(root: Path, hardware: Path) -> dict[str, ConfigMapVolume]:
    """Every kind folder of a repository's ``hardware`` mounted flat under ``root`` (no
    ``hardware/`` level, no kustomization), one ConfigMap volume per folder."""
    volumes = {}
    for folder in sorted(p for p in hardware.iterdir() if p.is_dir() and p.name != "base"):
        volume = ConfigMapVolume(root / folder.name)
        volume.write({p.name: p.read_bytes() for p in sorted(folder.glob("*.yaml"))})
        volumes[folder.name] = volume
    return volumes
