"""A validator: a key template with typed parameters, a value rule, status and notes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from flavorsmith.extra_specs.value_rules import ValueRule

_PARAM_RE = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Parameter:
    name: str
    pattern: str
    description: str


@dataclass(frozen=True)
class Validator:
    """``name`` is a template such as ``hw:numa_cpus.{num}``; literal text is literal."""

    name: str
    description: str
    value: ValueRule
    parameters: tuple[Parameter, ...] = ()
    deprecated: bool = False
    replacement: str | None = None
    drivers: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    extension: str | None = None  # e.g. "ironic": ours, which real Nova >= 2.86 refuses
    source: str = "built-in"
    pattern: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        patterns = {p.name: p.pattern for p in self.parameters}
        parts: list[str] = []
        position = 0
        for match in _PARAM_RE.finditer(self.name):
            parts.append(re.escape(self.name[position : match.start()]))
            name = match.group(1)
            if name not in patterns:
                raise ValueError(f"{self.name}: parameter {{{name}}} is not described")
            parts.append(f"(?P<{name}>{patterns[name]})")
            position = match.end()
        parts.append(re.escape(self.name[position:]))
        object.__setattr__(self, "pattern", "".join(parts))

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """The key template as a regular expression, compiled on first use: a registry holds
        hundreds of validators (one per standard trait and resource class), which lookups
        find by their literal keys."""
        return re.compile(self.pattern)

    @property
    def namespace(self) -> str | None:
        """The part before the first ':' (with its parameters), None for bare keys."""
        return self.name.split(":", 1)[0] if ":" in self.name else None
