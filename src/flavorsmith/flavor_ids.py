"""Nova's rules for flavor ids; a catalog flavor's name is its Nova flavor id."""

from __future__ import annotations

import re

MAX_LENGTH = 255
# Nova's flavor-create schema for "id": no leading or trailing space, and only these characters.
_ID_RE = re.compile(r"^(?! )[a-zA-Z0-9. _-]+(?<! )$")
RULE = "letters a-z and A-Z, digits, '.', '_', '-' and inner spaces, at most 255 characters"


def is_valid(name: str) -> bool:
    return len(name) <= MAX_LENGTH and bool(_ID_RE.fullmatch(name))


def suggest(name: str) -> str | None:
    """The nearest name Nova would accept, if a simple substitution makes one."""
    candidate = re.sub(r"[^a-zA-Z0-9. _-]+", "-", name.strip()).strip("-")[:MAX_LENGTH].strip()
    return candidate if candidate and candidate != name and is_valid(candidate) else None
