"""Reading small YAML configuration files (tokens, policy) with clear errors, and the error
every such file raises (the token file in api.auth and the policy file in api.policy both
use it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flavorsmith.catalog.document import parse


class AuthConfigError(Exception):
    """A token or policy file that cannot be used; the message names the file and entry."""


def read_mapping(path: Path, what: str) -> dict[str, Any]:
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
