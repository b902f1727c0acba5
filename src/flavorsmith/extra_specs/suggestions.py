"""Did-you-mean for misspelt extra-spec keys, among the hundreds of keys of a namespace.

Kept out of :mod:`flavorsmith.hints` so that only the commands that check extra specs load
rapidfuzz."""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from rapidfuzz.distance import Indel
from rapidfuzz.process import extractOne

_Best = tuple[float, str, int]  # a ratio, the folded text after the head, the order given
_distance = Indel.distance


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
        self._near: dict[str, list[int]] | None = None  # see _halves

    def prepare(self) -> None:
        """Build the index of one-slip neighbours now rather than on first use."""
        self._halves()

    def closest(self, value: str, *, head: str = "", slack: int, cutoff: float) -> str | None:
        """As described above; the answer is ``head`` and the candidate."""
        # The lengths there are, so that values of nearby lengths share a window.
        low = bisect_left(self._lengths, len(value) - slack)
        high = bisect_right(self._lengths, len(value) + slack) - 1
        if low > high:
            return None
        shortest, longest = self._lengths[low], self._lengths[high]
        folded_head = head.casefold()
        rest = value.casefold()
        best = longer = None
        if len(rest) == len(value) and not self._refolded:
            best, longer = self._near_ones(rest, len(folded_head), shortest, longest, cutoff)
        if best is None:
            lengths: Iterable[int] = [-1]  # the whole window
        else:
            lengths = self._rivals(len(folded_head), len(rest), best[0])
        word = folded_head + rest
        for length in lengths:
            if length >= 0 and not shortest <= length <= longest:
                continue
            if (
                best is not None
                and length == len(rest) + 2
                and _whole(len(rest), len(folded_head), best)
            ):
                # Only a candidate that holds the whole value can reach the best one: those
                # were found with the ones one slip away.
                if longer is not None and longer > best:
                    best = longer
                continue
            folded, _, orders = self._window(folded_head, shortest, longest, length)
            # Under the cutoff (rapidfuzz can miss a ratio exactly at it): the exact test
            # below decides, computed as difflib computes its ratio.
            floor = cutoff if best is None else best[0]
            found = extractOne(
                word, folded, scorer=Indel.normalized_similarity, score_cutoff=floor - 0.01
            )
            if found is not None:
                here = (_ratio(word, found[0]), found[0][len(folded_head) :], orders[found[2]])
                if here[0] >= cutoff and (best is None or here > best):
                    best = here
        return head + self._candidates[best[2]] if best is not None else None

    def _near_ones(
        self, word: str, shared: int, shortest: int, longest: int, cutoff: float
    ) -> tuple[_Best | None, _Best | None]:
        """The best of the candidates one slip from the (folded) value: a letter missing,
        extra, wrong or moved (a text one deletion from each, or none, is the same); and the
        best of those that hold the whole value and two letters more. Each as (ratio, folded
        text, order), at the cutoff, from ``shortest`` to ``longest`` long; ``shared``: the
        length of the head both have.

        A candidate k, n long, is in the halves index (:meth:`_halves`) under its first half
        ``k[:h]`` (h = n // 2), under the rest after the letter that follows it ``k[h+1:]``,
        and under each text one deletion from either half. A slip after the first half
        leaves the first half as it is; one before the rest, the rest; a letter moved from
        one half to the other (or, two letters more, one in each half) leaves the value's
        ``word[:h-1]`` or ``word[h+1:]`` one deletion from the candidate's half. So a few
        lookups per length find every such candidate (and a few more: each is checked with
        the exact distance)."""
        near = self._near if self._near is not None else self._halves()
        size = len(word)
        a = size // 2
        # The texts to look up, for the candidates one letter shorter (h = a - 1 or a), as
        # long (h = a), one longer (h = a or a + 1) and two longer (h = a + 1).
        found: list[int] = []
        for text in (
            word[: max(a - 1, 0)],
            word[:a],
            word[: a + 1],
            word[a:],
            word[a + 1 :],
            word[a + 2 :],
        ):
            orders = near.get(text)
            if orders:
                found += orders
        best: _Best | None = None
        longer: _Best | None = None
        folded_texts = self._folded
        lowest, highest = max(shortest, size - 1), min(longest, size + 2)
        for order in found:
            folded = folded_texts[order]
            n = len(folded)
            if not lowest <= n <= highest:
                continue
            distance = _distance(word, folded, score_cutoff=2)
            if distance > 2:  # two letters longer: it holds the whole value
                continue
            total = 2 * shared + size + n
            here = (2.0 * ((total - distance) // 2) / total, folded, order)
            if here[0] < cutoff:
                continue
            if n == size + 2:
                if longer is None or here > longer:
                    longer = here
            elif best is None or here > best:
                best = here
        return best, longer

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

    def _halves(self) -> dict[str, list[int]]:
        """From a text of each candidate k, n long (h = n // 2), to the candidates: its first
        half ``k[:h]``, the rest after the letter that follows it ``k[h+1:]``, each text one
        deletion from the first half and each one deletion from the second half ``k[h:]``
        (about n texts per candidate, built on first use or by :meth:`prepare`)."""
        index = self._near
        if index is None:
            index = {}
            for order, key in enumerate(self._folded):
                h = len(key) // 2
                first, second = key[:h], key[h:]
                texts = {first, key[h + 1 :]}
                texts.update([first[:i] + first[i + 1 :] for i in range(h)])
                texts.update([second[:i] + second[i + 1 :] for i in range(len(second))])
                for text in texts:
                    orders = index.get(text)
                    if orders is None:
                        index[text] = [order]
                    else:
                        orders.append(order)
            self._near = index
        return index

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


def _whole(size: int, shared: int, best: _Best) -> bool:
    """Whether a candidate two letters longer than the value (``size`` long after the
    ``shared`` head) must hold the whole value to reach ``best``: with one letter of the value
    missing, its ratio is under the best one."""
    return 2.0 * (shared + size - 1) / (2 * shared + 2 * size + 2) < best[0]


def _ratio(a: str, b: str) -> float:
    """``2·L/T`` for texts a and b, L their longest common subsequence, T their lengths."""
    total = len(a) + len(b)
    return 2.0 * ((total - Indel.distance(a, b)) // 2) / total if total else 1.0
