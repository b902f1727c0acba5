"""The caller as a flavor viewer, for every API that shows flavors (see flavorsmith.visibility)."""

from __future__ import annotations

from fastapi import Request

from flavorsmith.api.context import allowed, context
from flavorsmith.visibility import Viewer

# Nova's rule for a private flavor's access list; the same rule shows /v1's ``projects``.
ACCESS_RULE = "os_compute_api:os-flavor-access"


def viewer(request: Request) -> Viewer:
    who = context(request).identity
    return Viewer(admin=who.is_admin, project_id=who.project_id)


def may_list_access(request: Request) -> bool:
    """May the caller read which projects a private flavor is shared with?"""
    return allowed(request, ACCESS_RULE)
