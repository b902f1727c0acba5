"""Diagnostics: one finding about one place in one file, rendered as a single line.

A diagnostic may quote what it found, but only as an ``excerpt``: escaped (no control
character, terminal escape sequence or line break reaches a terminal, a log or a JSON reader
unescaped) and short. Every diagnostic enforces this on itself, whoever built it: its path,
field and message are escaped and its message is capped at ``MAX_MESSAGE`` characters."""

from __future__ import annotations

import enum
from dataclasses import dataclass

# How much of a bad value a message quotes, and how long a whole message may be.
MAX_EXCERPT = 60
MAX_MESSAGE = 1000


def _escaped(text: str) -> str:
    """``text`` with every non-printable character written as a Python escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def excerpt(value: object, limit: int = MAX_EXCERPT) -> str:
    """A value as a message quotes it: a string in quotes with escapes, cut after ``limit``
    characters (saying how long the whole is); anything else by its escaped text."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{repr(value[:limit])[:-1]}…{repr(value)[-1]} ({len(value)} characters)"
    text = _escaped(str(value))
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _capped(text: str, limit: int) -> str:
    text = _escaped(text)
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """``path:line:column: field.path: message`` — positions are 1-based."""

    path: str
    line: int
    column: int
    field: str
    message: str
    severity: Severity = Severity.ERROR
    code: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", _escaped(self.path))
        object.__setattr__(self, "field", _capped(self.field, MAX_MESSAGE))
        object.__setattr__(self, "message", _capped(self.message, MAX_MESSAGE))

    def render(self) -> str:
        prefix = "warning: " if self.severity is Severity.WARNING else ""
        return f"{self.path}:{self.line}:{self.column}: {self.field}: {prefix}{self.message}"

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "field": self.field,
            "severity": str(self.severity),
            "code": self.code,
            "message": self.message,
        }


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)
