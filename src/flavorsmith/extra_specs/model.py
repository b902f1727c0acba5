"""A validator: a key template with typed parameters, a value rule, status and notes."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from flavorsmith.extra_specs.safety import Matcher, compile_linear
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
    # Parameter patterns declared by an operator: compiled by RE2, which runs them in linear time.
    linear: bool = False

    def __post_init__(self) -> None:
        source = self._source(self.name)  # an undescribed parameter is refused here
        if self.linear:  # an operator's pattern: refused at load when RE2 cannot compile it
            self.__dict__["regex"] = compile_linear(source)

    @functools.cached_property
    def regex(self) -> Matcher:
        """The whole key as a pattern (compiled on first use: hundreds of built-in keys are
        never matched this way in a command's run)."""
        return self.matcher(self.name)

    def matcher(self, template: str) -> Matcher:
        """``template`` (the name, or a part of it) as a pattern with its parameters."""
        source = self._source(template)
        return compile_linear(source) if self.linear else re.compile(source)

    def _source(self, template: str) -> str:
        patterns = {p.name: p.pattern for p in self.parameters}
        parts: list[str] = []
        position = 0
        for match in _PARAM_RE.finditer(template):
            parts.append(re.escape(template[position : match.start()]))
            name = match.group(1)
            if name not in patterns:
                raise ValueError(f"{self.name}: parameter {{{name}}} is not described")
            parts.append(f"(?P<{name}>{patterns[name]})")
            position = match.end()
        parts.append(re.escape(template[position:]))
        return "".join(parts)

    @property
    def namespace(self) -> str | None:
        """The part before the first ':' (with its parameters), None for bare keys."""
        return self.name.split(":", 1)[0] if ":" in self.name else None
