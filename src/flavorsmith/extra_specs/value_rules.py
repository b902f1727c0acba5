"""Value rules: what an extra spec's value may be. Every rule runs in linear time."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from flavorsmith.query_values import FALSE_WORDS, TRUE_WORDS

# oslo.utils' strict boolean words, which Nova uses (compared after strip + lower).
_BOOL_WORDS = TRUE_WORDS + FALSE_WORDS
_NOT_BOOL = f" is not a boolean; use one of {', '.join(_BOOL_WORDS)}"

# Nova's CPU-set pattern (\^?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*) backtracks exponentially; this
# one accepts the same strings (a first number, then any run of -N and ,[^]N) unambiguously.
CPU_SET = r"\^?\d+(?:-\d+|,\^?\d+)*"
# Nova's hw:pmem pattern ([a-zA-Z0-9_]+(,)?)+ doubles its time per character on a mismatch;
# the same language, written so each character has one way to match.
PMEM = r"[a-zA-Z0-9_]+(?:,[a-zA-Z0-9_]+)*,?"
_PCI_MIDDLE = re.compile(r"\d+\s*,[^:]+")
_DIGITS = re.compile(r"\d+")


def pci_alias(value: str) -> bool:
    """``name:count[, name:count...]`` (Nova's ``[^:]+:\\d+(?:\\s*,\\s*[^:]+:\\d+)*``) checked
    piece by piece between the colons, so it is linear where the regex is not."""
    parts = value.split(":")
    if len(parts) < 2 or not parts[0]:
        return False
    if not _DIGITS.fullmatch(parts[-1]):
        return False
    return all(_PCI_MIDDLE.fullmatch(part) for part in parts[1:-1])


@dataclass(frozen=True)
class ValueRule:
    """One of: int (with min/max), bool, enum, pattern, string, or a named linear check."""

    kind: str
    description: str = ""
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    pattern: str | None = None  # the language, as a (linear) regular expression
    check: Callable[[str], bool] | None = field(default=None, compare=False)
    _compiled: re.Pattern[str] | None = field(default=None, compare=False, repr=False)
    _not_one_of: str = field(default="", compare=False, repr=False)  # an enum's refusal

    def __post_init__(self) -> None:
        if self.pattern is not None and self.check is None:
            object.__setattr__(self, "_compiled", re.compile(self.pattern))
        if self.kind == "enum":
            choices = ", ".join(repr(c) for c in self.choices)
            object.__setattr__(self, "_not_one_of", f" is not one of {choices}")

    def problem(self, key: str, value: str) -> str | None:
        """Why ``value`` is not allowed for ``key``, or None when it is."""
        kind = self.kind
        if kind == "enum":  # the most common kind first (a rule has one kind)
            if value in self.choices:
                return None
            return f"{value!r}{self._not_one_of}"
        if kind == "int":
            if value.isalpha():  # letters only: never an integer (int() needs a digit)
                return f"{value!r} is not an integer"
            try:
                number = int(value)
            except ValueError:
                return f"{value!r} is not an integer"
            if self.minimum is not None and number < self.minimum:
                return f"{number} is less than the minimum {self.minimum}"
            if self.maximum is not None and number > self.maximum:
                return f"{number} is more than the maximum {self.maximum}"
            return None
        if kind == "bool":
            if value.strip().lower() in _BOOL_WORDS:
                return None
            return f"{value!r}{_NOT_BOOL}"
        if self.check is not None:
            return None if self.check(value) else f"{value!r} does not match {self.pattern}"
        if self._compiled is not None:
            return (
                None
                if self._compiled.fullmatch(value)
                else f"{value!r} does not match {self.pattern}"
            )
        return None

    def summary(self) -> str:
        if self.kind == "int":
            bounds = []
            if self.minimum is not None:
                bounds.append(f">= {self.minimum}")
            if self.maximum is not None:
                bounds.append(f"<= {self.maximum}")
            return "integer" + (f" ({', '.join(bounds)})" if bounds else "")
        if self.kind == "bool":
            return "boolean"
        if self.kind == "enum":
            return "one of " + ", ".join(self.choices)
        if self.pattern is not None:
            return f"string matching {self.pattern}"
        return "string"


def INT(description: str = "", minimum: int | None = None, maximum: int | None = None) -> ValueRule:
    return ValueRule("int", description, minimum=minimum, maximum=maximum)


def BOOL(description: str = "") -> ValueRule:
    return ValueRule("bool", description)


def ENUM(*choices: str, description: str = "") -> ValueRule:
    return ValueRule("enum", description, choices=choices)


def STRING(description: str = "") -> ValueRule:
    return ValueRule("string", description)


def PATTERN(
    pattern: str, description: str = "", check: Callable[[str], bool] | None = None
) -> ValueRule:
    return ValueRule("pattern", description, pattern=pattern, check=check)
