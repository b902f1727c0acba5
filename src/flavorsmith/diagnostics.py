"""Diagnostics: one finding about one place in one file, rendered as a single line."""

from __future__ import annotations

import enum
from dataclasses import dataclass


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
