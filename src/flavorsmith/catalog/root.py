"""Where a catalog repository is, and whether a catalog is there: the little a command needs
before it decides to load the catalog (so a command run outside a repository never imports
the loader and its schema validation)."""

from __future__ import annotations

import os
from pathlib import Path

from flavorsmith.catalog.kinds import KINDS

REPO_ENV_VARS = ("FLAVORSMITH_REPO", "UC_DEPLOY")


def resolve_root(option: str | None) -> Path:
    """``--repo``, else $FLAVORSMITH_REPO, else $UC_DEPLOY, else the working directory."""
    if option:
        return Path(option)
    for var in REPO_ENV_VARS:
        value = os.environ.get(var)
        if value:
            return Path(value)
    return Path.cwd()


def mounted(root: Path) -> bool:
    """ConfigMap mode: no hardware/ folder, and at least one kind's folder at the root."""
    return not (root / "hardware").is_dir() and any((root / kind.folder).is_dir() for kind in KINDS)


def holds_catalog(root: Path) -> bool:
    """Whether ``root`` holds a catalog: a hardware/ folder, or the kinds' mounted folders."""
    return (root / "hardware").is_dir() or mounted(root)
