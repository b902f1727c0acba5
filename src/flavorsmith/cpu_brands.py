"""What a CPU brand string says about the CPU: cores per socket (``16-Core``), when it says it."""

from __future__ import annotations

import re

_CORES_RE = re.compile(r"\b(\d+)-core\b", re.IGNORECASE)


def cores_per_socket(brand: str) -> int | None:
    """``AMD EPYC 9124 16-Core Processor`` -> 16; Intel's strings do not say (None)."""
    match = _CORES_RE.search(brand)
    return int(match.group(1)) if match and int(match.group(1)) > 0 else None
