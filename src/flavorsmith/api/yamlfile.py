"""Reading small YAML configuration files (tokens, policy) with clear errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flavorsmith.catalog.document import parse


def read_mapping(path: Path, what: str) -> dict[str, Any]:
    from flavorsmith.api.auth import AuthConfigError

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise AuthConfigError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from exc
    if not raw.strip():
        return {}
    doc, diagnostics = parse(raw, str(path))
    if doc is None:
        raise AuthConfigError(diagnostics[0].render())
    if not isinstance(doc.data, dict):
        raise AuthConfigError(f"{path}: the {what} must be a mapping")
    return doc.data
