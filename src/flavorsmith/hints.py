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
from itertools import chain, compress


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
        self._candidates = list(candidates)
        self._near: dict[str, list[int]] | None = None  # see _one_slip, built on first use
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
        # The same candidates by folded length (every bucket of each length: see _one_slip).
        self._by_folded: dict[int, list[list[int]]] = {}
        for buckets in self._buckets.values():
            for bucket in buckets:
                self._by_folded.setdefault(bucket.folded_length, []).append(bucket.bits)

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
        decided, found = self._one_slip(value, head, slack, cutoff)
        if decided:
            return found
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

    def _one_slip(
        self, value: str, head: str, slack: int, cutoff: float
    ) -> tuple[bool, str | None]:
        """Whether the answer of :meth:`closest` can be proved from the candidates one slip
        away, and that answer, for the usual misspelling: a letter missing, extra,
        wrong or two swapped.

        Every candidate and every text one deletion from it is indexed. A candidate ``c``
        is "near" when a text one deletion (or none) from the value is one of those, that is
        when their longest common subsequence L leaves at most one letter of each; for any
        other candidate L is at most ``max(min(v - 2, n), min(v, n - 2))`` for its folded
        length n and the value's v, and at most the size of the two texts' character
        multisets' intersection. difflib's matches are never more than L (its matching
        blocks are a common subsequence), so ``2·(head + L) / total`` bounds the ratio of
        every candidate not near. The near ones (a handful) are compared with difflib; when
        the best of them is above the bound of all the others (or, with none at the cutoff,
        every bound is below the cutoff), it is the answer."""
        if cutoff <= 0:
            return False, None  # every length could reach it: the full search decides
        folded = value.casefold()
        if self._near is None:
            near: dict[str, list[int]] = {}
            for order, text in enumerate(self._candidates):
                key = text.casefold()
                for variant in {key, *(key[:i] + key[i + 1 :] for i in range(len(key)))}:
                    near.setdefault(variant, []).append(order)
            self._near = near
        index = self._near
        variants = [folded[:i] + folded[i + 1 :] for i in range(len(folded))]
        variants.append(folded)
        orders = set(chain.from_iterable(filter(None, map(index.get, variants))))
        shortest, longest = len(value) - slack, len(value) + slack
        folded_head = head.casefold()
        shared = len(folded_head)
        size = len(folded)
        texts: dict[str, str] = {}
        for order in orders:
            text = self._candidates[order]
            if shortest <= len(text) <= longest:
                if text.casefold() in texts:
                    return False, None  # two candidates fold alike: the full search decides
                texts[text.casefold()] = text
        if folded in texts:  # the same key, or the same but for case
            return True, head + texts[folded]
        word = folded_head + folded
        if len(word) >= 200:
            return False, None  # difflib's automatic junk applies: the full search decides
        best: tuple[float, str] | None = None
        for text in texts:
            ratio = 2.0 * _matched(folded_head + text, word) / (2 * shared + size + len(text))
            if ratio >= cutoff and (best is None or (ratio, text) > best):
                best = (ratio, text)
        # Every other candidate must stay below the best (or, with none, below the cutoff).
        beat = best[0] if best is not None else cutoff
        bits: int | None = None
        for bound, n, most, total in _length_bounds(shared, size, cutoff):
            if bound < beat:
                break
            for bucket_bits in self._by_folded.get(n, ()):
                # The subsequence bound is not enough: the characters' bound may be.
                if bits is None:
                    bits = self._bits(folded)
                common = max(map(int.bit_count, map(bits.__and__, bucket_bits)))
                if 2.0 * (shared + min(most, common)) / total >= beat:
                    return False, None
        return True, (head + texts[best[1]]) if best is not None else None


@functools.lru_cache(maxsize=1024)
def _length_bounds(shared: int, size: int, cutoff: float) -> list[tuple[float, int, int, int]]:
    """For a value of ``size`` folded characters after a head of ``shared``: each folded
    length n whose subsequence bound (see :meth:`NearIndex._one_slip`) reaches ``cutoff``,
    as (bound, n, most matches, total length), highest bound first. The bound rises with n
    up to ``size - 2``, dips at ``size - 1`` and ``size``, tops at ``size + 2`` and falls
    after, so the lengths are a run around ``size``, looked for from there outwards."""
    found = []
    for step in (1, -1):
        n = size if step == 1 else size - 1
        while n >= 0:
            total = 2 * shared + size + n
            most = max(min(size - 2, n), min(size, n - 2), 0)
            bound = 2.0 * (shared + most) / total if total else 1.0
            if bound >= cutoff:
                found.append((bound, n, most, total))
            elif abs(n - size) > 2:
                break
            n += step
    found.sort(reverse=True)
    return found


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


def _matched(a: str, b: str) -> int:
    """How many characters ``difflib.SequenceMatcher(None, a, b)`` matches (its ratio is
    ``2 * matched / (len(a) + len(b))``), for ``b`` shorter than 200 characters (difflib's
    automatic junk starts at 200). The same blocks as difflib's, each found as its
    ``find_longest_match`` documents it (the longest; of those, the one starting earliest in
    ``a``; of those, the one starting earliest in ``b``), with ``str.find`` doing the
    searching: a few times faster on short, nearly equal texts."""
    matched = 0
    pending = [(0, len(a), 0, len(b))]
    while pending:
        alo, ahi, blo, bhi = pending.pop()
        i, j, k = _longest(a, b, alo, ahi, blo, bhi)
        if k:
            matched += k
            if alo < i and blo < j:
                pending.append((alo, i, blo, j))
            if i + k < ahi and j + k < bhi:
                pending.append((i + k, ahi, j + k, bhi))
    return matched


def _longest(a: str, b: str, alo: int, ahi: int, blo: int, bhi: int) -> tuple[int, int, int]:
    """``difflib.SequenceMatcher(None, a, b).find_longest_match(alo, ahi, blo, bhi)``."""
    limit = min(ahi - alo, bhi - blo)
    k = 0
    start = alo  # no block longer than k starts before it
    while k < limit:
        size = k + 1
        for i in range(start, ahi - size + 1):
            j = b.find(a[i : i + size], blo, bhi)
            if j >= 0:
                break
        else:
            break  # no common block of k + 1 characters: k is the longest
        start = i
        k = size
        while i + k < ahi and j + k < bhi and a[i + k] == b[j + k]:
            k += 1
    if not k:
        return alo, blo, 0
    for i in range(start, ahi - k + 1):
        j = b.find(a[i : i + k], blo, bhi)
        if j >= 0:
            return i, j, k
    raise AssertionError("unreachable: a block of k characters was found")  # pragma: no cover
