"""Query-parameter parsing every API shares (pure): integers in ASCII digits within 64 bits,
booleans, limits and comma lists. Each refuses with :class:`~flavorsmith.errors.Invalid`;
nothing else escapes, whatever the text (``str.isdigit`` and ``int`` accept '²' and '٣', and
``int`` refuses more than 4300 digits with a ValueError)."""

from __future__ import annotations

import re

from flavorsmith import jsonsafe
from flavorsmith.errors import Invalid

MAX_LIMIT = 1000
_INTEGER = re.compile(r"-?[0-9]{1,19}")  # ASCII only; 19 digits hold every 64-bit value
_DIGITS = re.compile(r"-?[0-9]+")
# oslo_utils.strutils' boolean words, as every OpenStack service reads them.
TRUE_WORDS = ("1", "t", "true", "on", "y", "yes")
FALSE_WORDS = ("0", "f", "false", "off", "n", "no")


def shown(value: str) -> str:
    """``value`` as it may appear in a message: itself when short and printable, else an
    escaped, shortened excerpt."""
    return value if len(value) <= 40 and value.isprintable() else jsonsafe.excerpt(value)


def shown_repr(value: object) -> str:
    """``repr(value)`` (escaped by construction), shortened when long."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:60]}… ({len(text)} characters)"


def ascii_int(value: str) -> int | None:
    """The integer ``value`` spells in ASCII digits (surrounding spaces and a leading '-'
    allowed) when it fits in 64 signed bits; None for anything else. Only the ASCII spaces
    Python's ``int()`` strips count as spaces (``str.strip`` also strips \\x1c-\\x1f,
    which ``int()`` refuses), so a value taken is one the real services' ``int()`` takes."""
    text = value.strip(" \t\n\r\x0b\x0c")
    if not _INTEGER.fullmatch(text):
        return None
    number = int(text)
    return number if jsonsafe.INT_MIN <= number <= jsonsafe.INT_MAX else None


BAD_BOOL = "Invalid {name}: unrecognized value {excerpt}, acceptable values are: {allowed}"


def parse_bool(
    name: str,
    value: str,
    *,
    true: tuple[str, ...] = TRUE_WORDS,
    false: tuple[str, ...] = FALSE_WORDS,
    strip: bool = True,
    message: str = BAD_BOOL,
) -> bool:
    """``value`` as a boolean: one of the ``true`` or ``false`` words in any case (surrounding
    spaces allowed with ``strip``). ``message`` may use {name}, {value} as sent, {excerpt} of
    it and {allowed} words."""
    lowered = (value.strip() if strip else value).lower()
    if lowered in true:
        return True
    if lowered in false:
        return False
    allowed = ", ".join(repr(v) for v in sorted(true + false))
    raise Invalid(
        message.format(name=name, value=value, excerpt=jsonsafe.excerpt(value), allowed=allowed)
    )


def parse_limit(value: str | None) -> int:
    """Ironic's ``limit``: a positive integer, capped at MAX_LIMIT; absent means MAX_LIMIT."""
    if value is None:
        return MAX_LIMIT
    text = value.strip()
    if not _DIGITS.fullmatch(text):
        raise Invalid(f"Expected an integer for limit: {jsonsafe.excerpt(value)}")
    significant = text.lstrip("-").lstrip("0")
    if text.startswith("-") or not significant:
        raise Invalid("Limit must be positive")
    return MAX_LIMIT if len(significant) > 4 else min(int(significant), MAX_LIMIT)


def parse_list(value: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in value.split(",") if item.strip())
