"""The fingerprint of an observed object (pure): a digest of everything observed about it, so
a saved plan records what it was made against and applying it can tell what changed since."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any


def _plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def fingerprint(observed: Any) -> str:
    """``sha256:HEX`` of the object's fields as canonical JSON (any field changing changes it)."""
    text = json.dumps(_plain(observed), sort_keys=True, default=str, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def fingerprints(observed: Mapping[str, Any]) -> dict[str, str]:
    """Each observed object's fingerprint, by its identity, in order."""
    return {key: fingerprint(observed[key]) for key in sorted(observed)}
