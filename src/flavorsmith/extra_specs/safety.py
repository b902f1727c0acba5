"""Operators' own regular expressions (declared extra-spec patterns, the compute API's name
filter) run in RE2: its matching time is linear in the input whatever the pattern, so any
pattern RE2 compiles is accepted and none can hang a request or a catalog check. RE2 has no
backreferences and no lookaround; a pattern using them is refused with RE2's own reason.

Our built-in validators keep Python's ``re``: their patterns are written to run in linear time
there (``value_rules.py``), and a match costs a microsecond where RE2's binding costs tens.
"""

from __future__ import annotations

from typing import Protocol

import re2

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print each refused pattern to stderr

RE2_REQUIRED = (
    "RE2 syntax is required (patterns run in linear time: no backreferences, no lookaround)"
)


class Matcher(Protocol):
    """What the registry and the flavor list need of a compiled pattern (``re`` or RE2)."""

    @property
    def pattern(self) -> str: ...

    def fullmatch(self, string: str) -> object | None: ...

    def search(self, string: str) -> object | None: ...


def compile_linear(pattern: str) -> Matcher:
    """``pattern`` compiled by RE2; ValueError with RE2's reason when it cannot be."""
    try:
        compiled: Matcher = re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise ValueError(f'is not RE2 syntax (RE2 says "{reason}"); {RE2_REQUIRED}') from None
    return compiled


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is refused (a phrase to follow the pattern), or None."""
    try:
        compile_linear(pattern)
    except ValueError as exc:
        return str(exc)
    return None
