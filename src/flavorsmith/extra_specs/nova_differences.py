"""Where this registry deliberately differs from Nova 34, each case with its reason.

The parity test holds every other verdict equal to Nova's; the docs list these.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_GROUP = re.compile(r"([a-zA-Z0-9_-]{1,64})?")


@dataclass(frozen=True)
class Fix:
    name: str
    nova: str
    ours: str

    def applies(self, key: str) -> bool:
        return _APPLIES[self.name](key)


FIXES = (
    Fix(
        "unescaped-dot",
        "hw:numa_cpus.{num} and hw:numa_mem.{num} are matched with an unescaped '.', so "
        "hw:numa_cpusX0 (any character in place of the dot) is validated as if it were "
        "hw:numa_cpus.0 and accepted",
        "the dot is literal: hw:numa_cpusX0 is an unknown key of namespace hw",
    ),
    Fix(
        "invalid-group",
        "a trait or resources key whose request-group suffix is malformed (trait.x:, "
        "resources$:, a suffix over 64 characters) matches no namespace, so Nova does not "
        "validate the key at all and accepts any value",
        "such a key is an unknown key of the trait{group} / resources{group} namespace",
    ),
    Fix(
        "backtracking",
        "the value patterns of hw:pmem, hw:cpu_realtime_mask, hw:cpu_dedicated_mask, "
        "hw:numa_cpus.{num} and pci_passthrough:alias backtrack exponentially: hw:pmem takes "
        "seconds on a 25-character value",
        "the same languages, checked in linear time (same verdicts, no stall)",
    ),
    Fix(
        "plugin-override",
        "a plugin registering a key Nova already defines silently replaces the in-tree validator",
        "built-in validators win; the clash is reported",
    ),
)


def _unescaped_dot(key: str) -> bool:
    return re.fullmatch(r"hw:numa_(cpus|mem)[^.]\d+", key) is not None


def _invalid_group(key: str) -> bool:
    prefix = key.split(":", 1)[0]
    for family in ("resources", "trait"):
        if prefix.startswith(family) and ":" in key:
            return _GROUP.fullmatch(prefix[len(family) :]) is None
    return False


_APPLIES: dict[str, Callable[[str], bool]] = {
    "unescaped-dot": _unescaped_dot,
    "invalid-group": _invalid_group,
    "backtracking": lambda key: False,  # same verdicts; only the time differs
    "plugin-override": lambda key: False,
}
