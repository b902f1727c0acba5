"""The servers that use a flavor a plan deletes or replaces, as a real Nova counts them (the
service's own compute API holds none): the count, over which projects, and why it is partial or
unknown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ALL_PROJECTS = "all_projects"  # every project's servers were counted
OWN_PROJECT = "own_project"  # only the credential's own project's: it may not list others


@dataclass(frozen=True)
class Servers:
    """The servers that use an object a plan deletes or replaces: ``count`` (None: unknown),
    over which projects (``scope``, one of ALL_PROJECTS, OWN_PROJECT; None when unknown), and
    ``note``: why the count is partial or unknown."""

    count: int | None
    scope: str | None = ALL_PROJECTS
    note: str | None = None
    noun: str = "server"  # what uses the object: a load-balancer flavor's are load balancers

    @property
    def in_use(self) -> int:
        """Servers known to use it (0 when none are known)."""
        return self.count or 0

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"count": self.count, "scope": self.scope}
        if self.noun != "server":
            out["of"] = self.noun
        if self.note:
            out["note"] = self.note
        return out

    def phrase(self) -> str:
        """How a plan says it: "3 servers use it", "no servers use it", "servers using it:
        unknown", with the project scope when partial."""
        if self.count is None:
            return f"{self.noun}s using it: unknown"
        if self.count == 0:
            said = f"no {self.noun}s use it"
        else:
            said = f"{self.count} {self.noun}{' uses' if self.count == 1 else 's use'} it"
        if self.scope == OWN_PROJECT:
            said += " in this credential's project; other projects not counted"
        return said
