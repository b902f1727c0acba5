"""Did-you-mean suggestions for misspelt keys, values and names.

:func:`closest` scans a few candidates with :mod:`difflib`; the extra-spec keys' suggestions,
among hundreds of keys, are :mod:`flavorsmith.extra_specs.suggestions`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(value: str, candidates: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """The candidate most like ``value`` (case-insensitive), or None when nothing is close."""
    pool = list(candidates)
    if not pool:
        return None
    by_fold = {c.casefold(): c for c in pool}
    if value.casefold() in by_fold and by_fold[value.casefold()] != value:
        return by_fold[value.casefold()]
    matches = difflib.get_close_matches(value.casefold(), list(by_fold), n=1, cutoff=cutoff)
    return by_fold[matches[0]] if matches else None


def did_you_mean(value: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` or the empty string."""
    match = closest(value, candidates)
    return f" (did you mean {match!r}?)" if match is not None else ""
