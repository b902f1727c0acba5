"""Did-you-mean suggestions for misspelt keys, values and names.

:func:`closest` scans a few candidates with :mod:`difflib`. :class:`NearIndex` answers for a
fixed set of many candidates (the extra-spec keys of a namespace) in microseconds, with
rapidfuzz's C implementation of the same kind of ratio."""

from __future__ import annotations

import difflib
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence


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


class NearIndex:
    """Did-you-mean over a fixed list of candidates, for any common ``head`` (such as a key's
    namespace and ':'): the candidate most like ``head + value`` (case-insensitive) among those
    whose ``head + c`` is at most ``slack`` characters longer or shorter, whose similarity
    ratio reaches the cutoff.

    The ratio is ``2·L/T``, difflib's formula with L the longest common subsequence (the Indel
    similarity; difflib's own matching blocks can count fewer characters, so this ratio is at
    least difflib's): rapidfuzz computes it in C, bit-parallel, in a microsecond or so a
    candidate. The highest ratio wins, ties to the greatest folded text (as
    :func:`difflib.get_close_matches` breaks them); a candidate that differs from the value
    only by case is that value's answer. Candidates are kept sorted by length, so only those
    within the slack are compared."""

    def __init__(self, candidates: Sequence[str]) -> None:
        # By length (and, of one length, in the given order), so the candidates within a
        # slack are one slice; of those that fold alike, the last given wins (as in closest()).
        orders = sorted(range(len(candidates)), key=lambda i: len(candidates[i]))
        self._orders = orders
        self._texts = [candidates[i] for i in orders]
        self._folded = [text.casefold() for text in self._texts]
        self._lengths = [len(text) for text in self._texts]  # ascending
        self._headed: dict[str, list[str]] = {}  # head: every folded text after that head

    def closest(self, value: str, *, head: str = "", slack: int, cutoff: float) -> str | None:
        """As described above; the answer is ``head`` and the candidate."""
        from rapidfuzz.distance import Indel
        from rapidfuzz.process import extract

        low = bisect_left(self._lengths, len(value) - slack)
        high = bisect_right(self._lengths, len(value) + slack)
        if low >= high:
            return None
        folded_head = head.casefold()
        headed = self._headed.get(folded_head)
        if headed is None:
            if len(self._headed) >= 256:
                self._headed.clear()
            headed = self._headed[folded_head] = [folded_head + f for f in self._folded]
        word = folded_head + value.casefold()
        # Under the cutoff (rapidfuzz can miss a ratio exactly at it): the exact test below
        # decides, computed as difflib computes its ratio.
        found = extract(
            word,
            headed[low:high],
            scorer=Indel.normalized_similarity,
            score_cutoff=max(0.0, cutoff - 0.05),
            limit=None,
        )
        best: tuple[float, str, int, int] | None = None
        for text, _, position in found:
            total = len(word) + len(text)
            common = (total - Indel.distance(word, text)) // 2
            ratio = 2.0 * common / total if total else 1.0
            here = (ratio, text, self._orders[low + position], low + position)
            if ratio >= cutoff and (best is None or here > best):
                best = here
        return head + self._texts[best[3]] if best is not None else None
