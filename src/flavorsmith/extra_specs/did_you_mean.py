"""Did-you-mean for misspelt extra-spec keys, among the hundreds of keys of a namespace.

Kept out of :mod:`flavorsmith.did_you_mean` so that only the commands that check extra specs load
rapidfuzz."""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from rapidfuzz.distance import Indel
from rapidfuzz.process import extract, extractOne

_Best = tuple[float, str, int]  # a ratio, the folded text after the head, the order given
_distance = Indel.distance
_Texts = tuple[str, ...]  # folded candidates, greatest first
_NONE: dict[str, _Texts] = {}  # no texts (never changed)


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
        self._orders: dict[str, list[int]] = {}  # the orders of each folded text
        for order, folded in enumerate(self._folded):
            self._orders.setdefault(folded, []).append(order)
        # Each folded text's answer: the candidate given last with that fold (the tie rule).
        self._answer = {
            folded: self._candidates[orders[-1]] for folded, orders in self._orders.items()
        }
        self._near: dict[int, dict[str, _Texts]] | None = None  # see _halves
        self._deleted: dict[str, _Texts] | None = None
        self._inner: dict[int, dict[str, _Texts]] | None = None

    def prepare(self) -> None:
        """Build the index of one-slip neighbours now rather than on first use (once: an
        index shared by registries is prepared by each of them)."""
        if self._deleted is None:  # set last by _halves
            self._halves()

    def closest(self, value: str, *, head: str = "", slack: int, cutoff: float) -> str | None:
        """As described above; the answer is ``head`` and the candidate.

        The usual misspelling (a letter missing, extra, wrong or moved) is answered here from
        the one-slip lookups alone, when the best candidate they find is better than any
        candidate they cannot find could be; otherwise the general search (:meth:`_closest`)
        decides. This needs a value at least 4 long with no length changed by folding, and a
        slack of at least 2, so that every text the lookups find is in the window.

        The same lookups as :meth:`_near_ones`, taken by the ratio their candidates can have:
        a candidate's Indel distance to the value is at least the difference of their
        lengths, and has its parity, so each length has one ratio (X the value's length twice
        with the head's): one letter longer ``X/(X+1)``, one shorter ``(X-2)/(X-1)``, two
        longer ``X/(X+2)``, as long ``(X-2)/X`` (the same folded text is the answer at once).
        Among those of one ratio the greatest text wins (the lists are greatest first); a
        ratio no better than the best found is not looked up. The candidates one letter longer
        are those the deletion index gives for the value itself (see :meth:`_halves`).

        Then the proof :meth:`_closest` makes with :meth:`_rivals`: a candidate the lookups
        cannot find (not one slip away) is at most ``2·(shared + size)/(X + 3)`` alike when
        it is three or more letters longer, and at most ``2·(shared + size - 2)/(X - 2)``
        when it is shorter or about as long (its common subsequence leaves two letters of one
        of them); one two letters longer holds the whole value to be better than those, and
        the lookups found those. When the best found is above both bounds, no other length is
        a rival, and the answer is the best found, or the best two letters longer when that
        is better, as :meth:`_closest` decides."""
        if slack < 2 or self._refolded:
            return self._closest(value, head=head, slack=slack, cutoff=cutoff)
        word = value.casefold()
        size = len(word)
        if size != len(value) or size < 4:
            return self._closest(value, head=head, slack=slack, cutoff=cutoff)
        answer = self._answer
        if word in answer and cutoff <= 1.0:  # ratio 1: only the same text has it
            return head + answer[word]
        deleted = self._deleted
        if deleted is None:
            self._halves()
            deleted = self._deleted
        near, inner = self._near, self._inner
        assert near is not None and inner is not None and deleted is not None
        distance = _distance
        shared = len(head.casefold())
        twice = 2 * shared + size  # the total of a candidate n long is twice + n
        total = twice + size + 1  # one letter longer: a letter missing from the value
        ratio = 2.0 * ((total - 1) // 2) / total
        found = deleted.get(word)  # the candidates one letter longer, greatest first
        if found is not None and ratio >= cutoff:
            # The best ratio there can be but 1: better than any other and the bounds below.
            return head + answer[found[0]]
        best_ratio = -1.0
        best = ""
        # The halves of the value the lookups below use, each made once (h = size // 2):
        # one letter shorter looks up word[:h-1] and word[h+1:] (an even size) or word[:h]
        # and word[h+2:] (odd); as long, word[:h], word[h+1:] and in the inner index
        # word[:h-1]; two longer, word[:h+1], word[h:] and in the inner index word[:h].
        h = size // 2
        first = word[:h]
        after = word[h + 1 :]
        short = word[: h - 1]
        total = twice + size - 1  # one letter shorter: a letter too many
        ratio = 2.0 * ((total - 1) // 2) / total
        by_text = near.get(size - 1)
        if ratio >= cutoff and by_text is not None:
            if size % 2:
                one, two = by_text.get(first), by_text.get(word[h + 2 :])
            else:
                one, two = by_text.get(short), by_text.get(after)
            if one or two:
                for texts in (one, two):
                    if texts:
                        for text in texts:  # greatest first: the first at the distance wins
                            if text <= best:
                                break
                            if distance(word, text, score_cutoff=1) <= 1:
                                best_ratio, best = ratio, text
                                break
        longer_ratio = -1.0
        longer = ""
        if best_ratio < 0 or best_ratio <= 2.0 * (shared + size) / (twice + size + 2):
            total = twice + size  # as long: a letter wrong or moved
            ratio = 2.0 * ((total - 2) // 2) / total
            if ratio >= best_ratio and ratio >= cutoff:
                by_text = near.get(size, _NONE)
                same = inner.get(size, _NONE)
                same_best = ""
                for texts in (
                    by_text.get(first),
                    by_text.get(after),
                    same.get(short),
                    same.get(after),
                ):
                    if texts:
                        for text in texts:
                            if text <= same_best:
                                break
                            if distance(word, text, score_cutoff=2) <= 2:
                                same_best = text
                                break
                if same_best and (ratio > best_ratio or same_best > best):
                    best_ratio, best = ratio, same_best
            total = twice + size + 2  # two letters longer, holding the whole value
            ratio = 2.0 * ((total - 2) // 2) / total
            by_text = near.get(size + 2, _NONE)
            if ratio >= best_ratio and ratio >= cutoff:
                for texts in (
                    by_text.get(word[: h + 1]),
                    by_text.get(word[h:]),
                    inner.get(size + 2, _NONE).get(first),
                ):
                    if texts:
                        for text in texts:
                            if text <= longer:
                                break
                            if distance(word, text, score_cutoff=2) <= 2:
                                longer_ratio, longer = ratio, text
                                break
        floor = best_ratio - 1e-12  # as _rivals compares
        if (
            best_ratio < 0
            or 2.0 * (shared + size) / (twice + size + 3) >= floor
            or 2.0 * (shared + size - 2) / (twice + size - 2) >= floor
        ):
            return self._closest(value, head=head, slack=slack, cutoff=cutoff)
        if longer_ratio > best_ratio or (longer_ratio == best_ratio and longer > best):
            return head + answer[longer]
        return head + answer[best]

    def _closest(self, value: str, *, head: str, slack: int, cutoff: float) -> str | None:
        """The general search: :meth:`closest` for any value, slack and candidates."""
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
        ``k[:h]`` (h = n // 2) and the rest after the letter that follows it ``k[h+1:]``;
        in the inner index, under texts one deletion from either half (see there). A slip
        after the first half leaves the first half as it is; one before the rest, the rest:
        a few lookups find every candidate a letter missing, extra or wrong away (and a few
        more: each is checked with the exact distance). Only when the best of those is no better
        than a candidate two letters longer that holds the whole value would be, are those
        looked up, and the ones with a letter moved from one half to the other: the value's
        ``word[:h-1]`` or ``word[h+1:]`` is then one deletion from the candidate's half."""
        if self._near is None or self._inner is None:
            self._halves()
        near, inner = self._near, self._inner
        assert near is not None and inner is not None
        size = len(word)
        found: list[str] = []
        for n in (size - 1, size, size + 1):
            by_text = near.get(n)
            if by_text is not None:
                h = n // 2
                for orders in (by_text.get(word[:h]), by_text.get(word[size - n + h + 1 :])):
                    if orders:
                        found += orders
        lowest = size - 1 if size - 1 > shortest else shortest
        highest = size + 2 if size + 2 < longest else longest
        best, longer = self._checked(found, word, shared, lowest, highest, cutoff, None, None)
        # The ratio of a candidate two letters longer that holds the whole value.
        whole = 2.0 * (shared + size) / (2 * shared + 2 * size + 2)
        if best is None or best[0] <= whole:
            a = size // 2
            longer_texts = near.get(size + 2, _NONE)
            found = []
            for orders in (
                longer_texts.get(word[: a + 1]),  # two longer: more after the half
                longer_texts.get(word[a:]),  # or before
                inner.get(size + 2, _NONE).get(word[:a]),  # or one on each side
                inner.get(size, _NONE).get(word[: a - 1 if a else 0]),  # a letter moved
                inner.get(size, _NONE).get(word[a + 1 :]),
            ):
                if orders:
                    found += orders
            best, longer = self._checked(found, word, shared, lowest, highest, cutoff, best, longer)
        return best, longer

    def _checked(
        self,
        found: list[str],
        word: str,
        shared: int,
        lowest: int,
        highest: int,
        cutoff: float,
        best: _Best | None,
        longer: _Best | None,
    ) -> tuple[_Best | None, _Best | None]:
        """``best`` and ``longer`` (see :meth:`_near_ones`), or better ones among the
        candidates ``found`` (folded texts) from ``lowest`` to ``highest`` long. Many (keys
        that share a half, such as the GPU resolution traits) are measured in one call."""
        size = len(word)
        if len(found) > 6:
            near = [
                (c, d)
                for c, d, _ in extract(word, found, scorer=_distance, score_cutoff=2, limit=None)
            ]
        else:
            near = [(c, d) for c in found if (d := _distance(word, c, score_cutoff=2)) <= 2]
        for folded, distance in near:  # at most 2: two letters longer, it holds the value
            n = len(folded)
            if not lowest <= n <= highest:
                continue
            total = 2 * shared + size + n
            ratio = 2.0 * ((total - distance) // 2) / total
            if ratio < cutoff:
                continue
            for order in self._orders[folded]:
                here = (ratio, folded, order)
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

    def _halves(self) -> None:
        """From texts of each candidate k, n long (h = n // 2), to the candidates. The
        halves index (by length): its first half ``k[:h]``, the rest after the letter that
        follows it ``k[h+1:]``, and the first half with its last letter replaced by the next
        one, ``k[:h-1] + k[h]``. The inner index: each text one deletion from the first half
        but its last letter, and one deletion from the second half ``k[h:]`` but its first
        (those two are in the halves index: were they here, a family of keys that share a
        long beginning, such as the GPU resolution traits, would all answer every lookup).
        The deletion index: each text one deletion from a candidate, to those candidates (the
        candidates one letter longer than a value, by one lookup of the value). About 2·n
        texts per candidate, built on first use or by :meth:`prepare`."""
        near: dict[int, dict[str, list[str]]] = {}
        inner: dict[int, dict[str, list[str]]] = {}
        for key in self._orders:
            h = len(key) // 2
            first, second = key[:h], key[h:]
            halves = {first, key[h + 1 :]}
            if h:
                halves.add(key[: h - 1] + key[h])
            for index, texts in (
                (near.setdefault(len(key), {}), halves),
                (
                    inner.setdefault(len(key), {}),
                    {first[:i] + first[i + 1 :] for i in range(h - 1)}
                    | {second[:i] + second[i + 1 :] for i in range(1, len(second))},
                ),
            ):
                for text in texts:
                    keys = index.get(text)
                    if keys is None:
                        index[text] = [key]
                    else:
                        keys.append(key)
        deleted: dict[str, list[str]] = {}
        for key in self._orders:
            for text in {key[:i] + key[i + 1 :] for i in range(len(key))}:
                keys = deleted.get(text)
                if keys is None:
                    deleted[text] = [key]
                else:
                    keys.append(key)
        # Greatest first (see closest), as tuples: the collector stops following a tuple of
        # strings, where it would walk tens of thousands of lists in each of its passes.
        self._near = {n: _ranked(index) for n, index in near.items()}
        self._inner = {n: _ranked(index) for n, index in inner.items()}
        self._deleted = _ranked(deleted)

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


@functools.lru_cache(maxsize=64)
def near_index(candidates: tuple[str, ...]) -> NearIndex:
    """The index of ``candidates``, one per process for the same candidates in the same order:
    an index depends on nothing else, and what it builds later it builds from them alone. So
    every registry with the same keys in a namespace (each application a process composes
    from the built-ins, each load of an unchanged catalog) shares one, built once; a namespace
    a catalog adds keys to gets its own."""
    return NearIndex(candidates)


def _ranked(index: dict[str, list[str]]) -> dict[str, _Texts]:
    """Each text's candidates, greatest first."""
    return {text: tuple(sorted(keys, reverse=True)) for text, keys in index.items()}


def _whole(size: int, shared: int, best: _Best) -> bool:
    """Whether a candidate two letters longer than the value (``size`` long after the
    ``shared`` head) must hold the whole value to reach ``best``: with one letter of the value
    missing, its ratio is under the best one."""
    return 2.0 * (shared + size - 1) / (2 * shared + 2 * size + 2) < best[0]


def _ratio(a: str, b: str) -> float:
    """``2·L/T`` for texts a and b, L their longest common subsequence, T their lengths."""
    total = len(a) + len(b)
    return 2.0 * ((total - Indel.distance(a, b)) // 2) / total if total else 1.0
