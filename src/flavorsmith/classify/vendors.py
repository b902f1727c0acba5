"""Normalising manufacturer and model spellings the way inventories and catalogs differ."""

from __future__ import annotations

import re

# What firmware reports -> what catalogs write. Compared case-insensitively.
_ALIASES = {
    "dell inc.": "dell",
    "dell inc": "dell",
    "dell emc": "dell",
    "hp": "hpe",
    "hewlett-packard": "hpe",
    "hewlett packard enterprise": "hpe",
    "hewlett packard": "hpe",
    "supermicro": "supermicro",
    "super micro computer, inc.": "supermicro",
    "super micro computer inc": "supermicro",
    "lenovo": "lenovo",
    "cisco systems inc": "cisco",
    "cisco systems, inc.": "cisco",
    "quanta cloud technology inc.": "qct",
    "gigabyte technology co., ltd.": "gigabyte",
}
_SUFFIX_RE = re.compile(r"\s*\(.*\)\s*$")
_CPU_NOISE_RE = re.compile(r"\((?:r|tm)\)|\bcpu\b|\bprocessor\b|@.*$", re.IGNORECASE)


def manufacturer(name: str) -> str:
    key = " ".join(name.lower().split())
    return _ALIASES.get(key, key)


def model(name: str) -> str:
    """``PowerEdge R7615 (SKU=0AF7;ModelName=PowerEdge R7615)`` -> ``poweredge r7615``."""
    return " ".join(_SUFFIX_RE.sub("", name).lower().split())


def cpu_model(name: str) -> str:
    return " ".join(_CPU_NOISE_RE.sub(" ", name).lower().split())


def cpu_model_matches(catalog: str, reported: str) -> bool:
    """The catalog's CPU model is a whole-word part of the agent's longer string."""
    wanted = cpu_model(catalog)
    have = cpu_model(reported)
    return bool(wanted) and re.search(rf"(?:^|\s){re.escape(wanted)}(?:\s|$)", have) is not None
