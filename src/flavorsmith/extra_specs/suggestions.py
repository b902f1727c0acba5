"""Did-you-mean for misspelt extra-spec keys, among the hundreds of keys of a namespace.

Kept out of :mod:`flavorsmith.hints` so that only the commands that check extra specs load
rapidfuzz."""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from rapidfuzz.distance import Indel
from rapidfuzz.process import extractOne


class NearIndex:
    """Did-you-mean over a fixed list of candidates, for any common ``head`` (such as a key's
    namespace and ':'): the candidate most like ``head + value`` (case-insensitive) among those
    whose ``head + c`` is at most ``slack`` characters longer or shorter, whose similarity
    ratio reaches the cutoff.

    The ratio is ``2·L/T``, difflib's formula with L the longest common subsequence (the Indel
    similarity; difflib's own matching blocks can count fewer characters, so this ratio is at
    least difflib's): rapidfuzz computes it in C, and once it has a good candidate it rules the
    others out on their lengths or with a bounded count of edits, in a microsecond or two for a
    namespace of hundreds of keys. The highest ratio wins, ties to the greatest folded text (as
    :func:`difflib.get_close_matches` breaks them), then to the candidate given last; a
    candidate that differs from the value only by case is that value's answer (ratio 1)."""

    def __init__(self, candidates: Sequence[str]) -> None:
        self._candidates = list(candidates)
        self._folded = [text.casefold() for text in self._candidates]
        self._refolded = any(
            len(a) != len(b) for a, b in zip(self._candidates, self._folded, strict=True)
        )
        self._lengths = sorted({len(text) for text in self._candidates})
        self._by_length: dict[int, list[int]] = {}
        for order, folded in enumerate(self._folded):
            self._by_length.setdefault(len(folded), []).append(order)
        self._windows: dict[tuple[str, int, int, int], tuple[list[str], list[str], list[int]]]
        self._windows = {}
        self._near: dict[str, list[int]] | None = None  # see _one_slip, built on first use

    def closest(self, value: str, *, head: str = "", slack: int, cutoff: float) -> str | None:
        """As described above; the answer is ``head`` and the candidate."""
        # The lengths there are, so that values of nearby lengths share a window.
        low = bisect_left(self._lengths, len(value) - slack)
        high = bisect_right(self._lengths, len(value) + slack) - 1
        if low > high:
            return None
        shortest, longest = self._lengths[low], self._lengths[high]
        folded_head = head.casefold()
        word = folded_head + value.casefold()
        best = self._one_slip(value, folded_head, shortest, longest, cutoff)
        if best is None:
            lengths: Iterable[int] = [-1]  # the whole window
        else:
            lengths = self._rivals(len(folded_head), len(word) - len(folded_head), best[0])
        for length in lengths:
            if length >= 0 and not shortest <= length <= longest:
                continue
            folded, texts, orders = self._window(folded_head, shortest, longest, length)
            # Under the cutoff (rapidfuzz can miss a ratio exactly at it): the exact test
            # below decides, computed as difflib computes its ratio.
            floor = cutoff if best is None else best[0]
            found = extractOne(
                word, folded, scorer=Indel.normalized_similarity, score_cutoff=floor - 0.01
            )
            if found is not None:
                here = (_ratio(word, found[0]), found[0], orders[found[2]], texts[found[2]])
                if here[0] >= cutoff and (best is None or here[:3] > best[:3]):
                    best = here
        return head + best[3] if best is not None else None

    def _window(
        self, head: str, shortest: int, longest: int, folded_length: int
    ) -> tuple[list[str], list[str], list[int]]:
        """The candidates from ``shortest`` to ``longest`` long after ``head`` (or, used only
        when folding changes no length, those of one folded length; -1: any): folded,
        greatest first (rapidfuzz keeps the first of equal ratios), then as given, and their
        order."""
        if folded_length >= 0:  # with no length changed by folding: all of that length
            shortest = longest = folded_length
        key = (head, shortest, longest, folded_length)
        window = self._windows.get(key)
        if window is None:
            orders: Iterable[int] = (
                self._by_length.get(folded_length, ())
                if folded_length >= 0
                else range(len(self._candidates))
            )
            ranked = sorted(
                (
                    (head + self._folded[order], order)
                    for order in orders
                    if shortest <= len(self._candidates[order]) <= longest
                ),
                reverse=True,
            )
            window = (
                [f for f, _ in ranked],
                [self._candidates[order] for _, order in ranked],
                [order for _, order in ranked],
            )
            if len(self._windows) >= 4096:
                self._windows.clear()
            self._windows[key] = window
        return window

    def _one_slip(
        self, value: str, head: str, shortest: int, longest: int, cutoff: float
    ) -> tuple[float, str, int, str] | None:
        """The best of the candidates one slip from the value (a letter missing, extra, wrong
        or two swapped: a text one deletion from each, or none, is the same), as (ratio,
        folded text after the head, order, text); None when there is none at the cutoff, or
        when folding changes a length (the bounds of :meth:`_rivals` count folded letters)."""
        folded = value.casefold()
        if len(folded) != len(value) or self._refolded:
            return None
        if self._near is None:
            near: dict[str, list[int]] = {}
            for order, key in enumerate(self._folded):
                for variant in {key, *(key[:i] + key[i + 1 :] for i in range(len(key)))}:
                    near.setdefault(variant, []).append(order)
            self._near = near
        index = self._near
        variants = [folded[:i] + folded[i + 1 :] for i in range(len(folded))]
        variants.append(folded)
        best = None
        for found in filter(None, map(index.get, variants)):
            for order in found:
                text = self._candidates[order]
                if shortest <= len(text) <= longest:
                    headed = head + self._folded[order]
                    here = (_ratio(head + folded, headed), headed, order, text)
                    if here[0] >= cutoff and (best is None or here[:3] > best[:3]):
                        best = here
        return best

    @staticmethod
    @functools.lru_cache(maxsize=4096)
    def _rivals(shared: int, size: int, best: float) -> list[int]:
        """The folded lengths whose candidates not one slip away could still reach ``best``:
        such a candidate's longest common subsequence with the value leaves at least two
        letters of one of them, so it is at most ``max(min(size - 2, n), min(size, n - 2))``
        for length n (and the head adds to both)."""
        rivals = []
        for n in range(max(0, size - 8), size + 9):
            most = max(min(size - 2, n), min(size, n - 2), 0)
            total = 2 * shared + size + n
            if total and 2.0 * (shared + most) / total >= best - 1e-12:
                rivals.append(n)
        return rivals


def _ratio(a: str, b: str) -> float:
    """``2·L/T`` for texts a and b, L their longest common subsequence, T their lengths."""
    total = len(a) + len(b)
    return 2.0 * ((total - Indel.distance(a, b)) // 2) / total if total else 1.0
