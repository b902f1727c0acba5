"""Did-you-mean suggestions for misspelt keys, values and names.

:func:`closest` scans every candidate with :mod:`difflib`. :class:`NearIndex` gives the same
answer for a fixed set of candidates in microseconds: it is built once, and a query runs
difflib only on the few candidates whose characters could reach the cutoff."""

from __future__ import annotations

import difflib
import functools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress


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


@dataclass(frozen=True)
class _Bucket:
    """The candidates of one length whose folded text has one length."""

    folded_length: int
    orders: list[int]
    texts: list[str]
    folded: list[str]
    bits: list[int]  # each folded text's characters, one bit per occurrence (see NearIndex)

    @property
    def positions(self) -> range:
        return range(len(self.bits))


class NearIndex:
    """``closest(head + value, [head + c for c in candidates if the length is near], cutoff)``
    for a fixed list of candidates and any common ``head`` (such as a key's namespace and ':'),
    with the same answer, found without scanning every candidate with difflib.

    difflib's ratio is ``2·M/T``, where M is the number of characters its matching blocks
    cover and T the two lengths together; M is at most the size of the two strings'
    character multisets' intersection (difflib's own ``quick_ratio`` bound). The index keeps,
    for each candidate, that multiset as an integer with one bit per occurrence of a character
    (occurrence i of character c is bit ``base[c] + i``), so the intersection's size is one
    ``&`` and a ``bit_count()``; a common head adds its length to both M and the bound (a
    multiset intersection is additive per character). Candidates are bucketed by length, so
    the ones outside the length slack are never looked at. Only those whose bound reaches the
    cutoff are compared with difflib, highest bound first, until the best ratio found beats
    every remaining bound: the answer is the one :func:`difflib.get_close_matches` gives (the
    highest ratio, ties to the greatest text)."""

    def __init__(self, candidates: Sequence[str]) -> None:
        counts: Counter[str] = Counter()
        for text in candidates:
            for char, count in Counter(text.casefold()).items():
                counts[char] = max(counts[char], count)
        self._slots: dict[str, tuple[int, int]] = {}
        base = 0
        for char, most in counts.items():
            self._slots[char] = (base, most)
            base += most
        self._buckets: dict[int, list[_Bucket]] = {}
        for order, text in enumerate(candidates):
            folded = text.casefold()
            buckets = self._buckets.setdefault(len(text), [])
            bucket = next((b for b in buckets if b.folded_length == len(folded)), None)
            if bucket is None:
                bucket = _Bucket(len(folded), [], [], [], [])
                buckets.append(bucket)
            bucket.orders.append(order)
            bucket.texts.append(text)
            bucket.folded.append(folded)
            bucket.bits.append(self._bits(folded))

    def _bits(self, folded: str) -> int:
        bits = 0
        seen: dict[str, int] = {}
        for char in folded:
            slot = self._slots.get(char)
            if slot is not None:
                occurrence = seen.get(char, 0)
                if occurrence < slot[1]:
                    bits |= 1 << (slot[0] + occurrence)
                    seen[char] = occurrence + 1
        return bits

    def closest(self, value: str, *, head: str = "", slack: int, cutoff: float) -> str | None:
        """As :func:`closest` over ``head + c`` for the candidates ``c`` whose ``head + c``
        is at most ``slack`` characters longer or shorter than ``head + value``; the answer
        is ``head`` and the candidate."""
        folded_head = head.casefold()
        word = folded_head + value.casefold()
        bits = self._bits(value.casefold())
        shared = len(folded_head)
        near: list[tuple[int, str, str, float]] = []  # order, text, folded text, bound
        for length in range(len(value) - slack, len(value) + slack + 1):
            for bucket in self._buckets.get(length, ()):
                total = len(word) + shared + bucket.folded_length
                need = _least_matches(total, cutoff) - shared
                # In C, candidate by candidate: how many of the value's characters it has.
                shared_counts = map(int.bit_count, map(bits.__and__, bucket.bits))
                hits = compress(bucket.positions, map(need.__le__, shared_counts))
                for i in hits:
                    common = (bits & bucket.bits[i]).bit_count() + shared
                    bound = 2.0 * common / total if total else 1.0
                    near.append((bucket.orders[i], bucket.texts[i], bucket.folded[i], bound))
        if not near:
            return None
        near.sort()
        by_fold = {folded_head + folded: (head + text, bound) for _, text, folded, bound in near}
        exact = by_fold.get(word)
        if exact is not None and exact[0] != head + value:
            return exact[0]
        matcher = difflib.SequenceMatcher()
        matcher.set_seq2(word)
        best: tuple[float, str] | None = None
        ranked = sorted(((bound, folded) for folded, (_, bound) in by_fold.items()), reverse=True)
        for bound, folded in ranked:
            if best is not None and bound < best[0]:
                break
            matcher.set_seq1(folded)
            ratio = matcher.ratio()
            if ratio >= cutoff and (best is None or (ratio, folded) > best):
                best = (ratio, folded)
        return by_fold[best[1]][0] if best is not None else None


@functools.lru_cache(maxsize=1024)
def _least_matches(total: int, cutoff: float) -> int:
    """The fewest matching characters for which difflib's ``2.0 * matches / total`` reaches
    ``cutoff`` (computed as difflib computes it, so a boundary case falls the same way)."""
    if total == 0:
        return 0
    least = max(0, int(cutoff * total / 2) - 1)
    while 2.0 * least / total < cutoff:
        least += 1
    return least
