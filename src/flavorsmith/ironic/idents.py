"""How Ironic tells a UUID from a name, in a path or a field: one owner for the node, deploy
template and runbook rules (and the other APIs that take a UUID)."""

from __future__ import annotations

import re
import uuid

from flavorsmith.errors import Invalid

# A name in a path: Ironic's ``name`` type (RFC 3986 unreserved characters, 1 to 255).
_NAME_RE = re.compile(r"^[A-Za-z0-9\-._~]{1,255}$")


def is_uuid(value: str) -> bool:
    """Whether ``value`` is a UUID as Python's ``uuid.UUID`` (and so Ironic) reads one."""
    if isinstance(value, str) and len(value) < 32:
        return False  # fewer characters than a UUID's 32 hex digits: no parse needed
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def check_ident(ident: str, what: str) -> str:
    """A ``what`` identifier in a path (``template``, ``runbook``): a UUID or a name, else
    Ironic's 400, in its words."""
    if not (_NAME_RE.match(ident) or is_uuid(ident)):
        raise Invalid(f"Expected UUID or name for {what}_ident: {ident}")
    return ident
