"""Did-you-mean for unknown extra-spec keys: the index answers as the rule says (the highest
``2·L/T`` ratio, L the longest common subsequence of the folded texts, at least 0.8, ties to
the greatest text), checked against a plain dynamic-programming scan; it nearly always agrees
with the difflib scan it replaced; and it follows the registry's changes."""

from __future__ import annotations

import random

import pytest

from flavorsmith.catalog.model import ExtraSpecSet
from flavorsmith.did_you_mean import closest
from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.did_you_mean import NearIndex, near_index
from flavorsmith.extra_specs.factory import completed
from flavorsmith.extra_specs.model import Validator
from flavorsmith.extra_specs.registry import Registry
from flavorsmith.extra_specs.value_rules import ValueRule

LETTERS = "abcdefghijklmnopqrstuvwxyz_:.0123456789ABCXYZ"


def lcs(a: str, b: str) -> int:
    """The length of the longest common subsequence, by the textbook table."""
    row = [0] * (len(b) + 1)
    for char in a:
        previous = 0
        for j, other in enumerate(b, start=1):
            previous, row[j] = row[j], previous + 1 if char == other else max(row[j], row[j - 1])
    return row[-1]


def ruled(value: str, candidates: list[str], cutoff: float) -> str | None:
    """The rule, candidate by candidate: a candidate equal but for case first, else the
    highest ratio at the cutoff, ties to the greatest folded text (the last of one fold)."""
    by_fold = {c.casefold(): c for c in candidates}
    word = value.casefold()
    best: tuple[float, str] | None = None
    for folded in by_fold:
        total = len(word) + len(folded)
        ratio = 2.0 * lcs(word, folded) / total if total else 1.0
        if ratio >= cutoff and (best is None or (ratio, folded) > best):
            best = (ratio, folded)
    return by_fold[best[1]] if best is not None else None


def candidates_of(registry: Registry, key: str) -> list[str]:
    """Every key of the namespace the key spells (every exact key when it spells none), those
    about as long."""
    prefix = key.split(":", 1)[0] if ":" in key else None
    group = registry._literal_groups.get(prefix) if prefix is not None else None
    if group is None and prefix is not None:
        group = next((g for g in registry._pattern_groups if g.regex.fullmatch(prefix)), None)
    if group is not None:
        candidates = [f"{prefix}:{rest}" for rest in group.exact]
    else:
        candidates = [v.name for v in registry.validators if "{" not in v.name]
    slack = max(2, len(key) // 4)
    return [c for c in candidates if abs(len(c) - len(key)) <= slack]


def scanned(registry: Registry, key: str) -> str | None:
    """The suggestion as difflib made it before: difflib's closest of the same candidates."""
    return closest(key, candidates_of(registry, key), cutoff=0.8)


def reference(registry: Registry, key: str) -> str | None:
    return ruled(key, candidates_of(registry, key), 0.8)


def typo(key: str, rng: random.Random) -> str:
    """One to three slips: a transposition, a missing, an extra or a wrong letter, the wrong
    case, or the wrong namespace."""
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(key))
        slip = rng.randrange(6)
        letter = rng.choice(LETTERS)
        if slip == 0 and at + 1 < len(key):
            key = key[:at] + key[at + 1] + key[at] + key[at + 2 :]
        elif slip == 1:
            key = key[:at] + key[at + 1 :]
        elif slip == 2:
            key = key[:at] + letter + key[at:]
        elif slip == 3:
            key = key[:at] + letter + key[at + 1 :]
        elif slip == 4:
            key = key.upper() if rng.random() < 0.5 else key.lower()
        elif ":" in key:
            namespace = rng.choice(["hw", "hw_rng", "capabilities", "trait1", "resources", "os"])
            key = f"{namespace}:{key.split(':', 1)[1]}"
    return key


@pytest.fixture(scope="module")
def registry() -> Registry:
    return build()


def test_every_typo_gets_the_key_the_rule_gives(registry: Registry) -> None:
    rng = random.Random(19)
    names = [v.name for v in registry.validators if "{" not in v.name]
    typos = sorted({typo(rng.choice(names), rng) for _ in range(3000)})
    expected = {key: reference(registry, key) for key in typos}
    answered = {key: registry.suggest(key) for key in typos}
    assert answered == expected
    assert sum(found is not None for found in expected.values()) > len(typos) // 2
    assert {key: registry.suggest(key) for key in typos} == expected  # remembered answers
    # The difflib scan it replaced gave the same answers but one: difflib's matching blocks
    # found too few letters in common there (its ratio is never above this one).
    changed = {key: (scanned(registry, key), expected[key]) for key in typos}
    assert {k: v for k, v in changed.items() if v[0] != v[1]} == {
        "uqota:cuCquota": (None, "quota:cpu_quota")
    }


def test_messages_keep_their_suggestions(registry: Registry) -> None:
    assert registry.verdict("hw:cpu_polcy", "dedicated").message == (
        "hw:cpu_polcy is not a known key of namespace hw (did you mean 'hw:cpu_policy'?)"
    )
    assert registry.verdict("trait1:HW_CPU_X86_AVX22", "required").message == (
        "trait1:HW_CPU_X86_AVX22 is not a known key of namespace trait{group} "
        "(did you mean 'trait1:HW_CPU_X86_AVX2'?)"
    )
    assert registry.verdict("hw:zzzzzzzz", "1").message == (
        "hw:zzzzzzzz is not a known key of namespace hw"
    )


def test_a_key_added_later_is_suggested(registry: Registry) -> None:
    twin = registry.copy()
    assert twin.suggest("hw:frobnicat") is None
    twin.add(Validator("hw:frobnicate", "a test key", ValueRule("str")))
    assert twin.suggest("hw:frobnicat") == "hw:frobnicate"
    assert registry.suggest("hw:frobnicat") is None


def test_registries_with_the_same_keys_share_an_index() -> None:
    keys = ("hw:cpu_policy", "hw:cpu_thread_policy", "hw:mem_page_size")
    index = near_index(keys)
    index.prepare()
    assert near_index(tuple(keys)) is index
    index.prepare()  # prepared once; preparing again keeps what it built
    assert index.closest("hw:cpu_polcy", slack=3, cutoff=0.8) == "hw:cpu_policy"
    other = near_index((*keys, "hw:cpu_policies"))
    assert other is not index
    assert other.closest("hw:cpu_policie", slack=3, cutoff=0.8) == "hw:cpu_policies"
    assert index.closest("hw:cpu_policie", slack=3, cutoff=0.8) == "hw:cpu_policy"


def test_a_catalog_key_is_suggested_after_the_base_was_prepared() -> None:
    base = build().prepare()
    assert base.suggest("hw:frobnicat") is None
    data = {
        "namespace": "hw",
        "validators": [{"name": "hw:frobnicate", "description": "x", "value": {"type": "bool"}}],
    }
    catalog, refused = completed(base, [ExtraSpecSet("hw", data)])
    assert refused == {}
    assert catalog.prepare().suggest("hw:frobnicat") == "hw:frobnicate"
    assert build().prepare().suggest("hw:frobnicat") is None


@pytest.mark.parametrize("seed", range(5))
def test_the_index_answers_as_the_rule(seed: int) -> None:
    """Any candidates and heads, case and non-ASCII folding included ('ß' folds to 'ss')."""
    rng = random.Random(seed)
    alphabet = "abcdeßSSABCDE_-:12"
    candidates = [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(150)
    ]
    candidates += [c.upper() for c in candidates[:10]]  # the same text folded: last one wins
    index = NearIndex(candidates)
    for _ in range(300):
        head = rng.choice(["", "ns:", "NS1:"])
        value = rng.choice(
            [rng.choice(candidates), "".join(rng.choice(alphabet) for _ in range(8))]
        )
        if rng.random() < 0.5 and value:
            at = rng.randrange(len(value))
            value = value[:at] + value[at + 1 :]
        slack = rng.randint(0, 4)
        cutoff = rng.choice([0.6, 0.8])
        near = [head + c for c in candidates if abs(len(c) - len(value)) <= slack]
        assert index.closest(value, head=head, slack=slack, cutoff=cutoff) == ruled(
            head + value, near, cutoff
        ), (head, value, slack, cutoff)


def test_every_single_slip_of_every_key_gets_the_difflib_answer(registry: Registry) -> None:
    """The usual misspelling (one letter missing, extra, wrong, or two swapped) gets the key
    the difflib scan gave, key by key."""
    rng = random.Random(34)
    names = [v.name for v in registry.validators if "{" not in v.name]
    typos = set()
    for name in names:
        for slip in range(4):
            at = rng.randrange(len(name))
            letter = rng.choice(LETTERS)
            typos.add(
                (
                    name[:at] + name[at + 1 : at + 2] + name[at : at + 1] + name[at + 2 :],
                    name[:at] + name[at + 1 :],
                    name[:at] + letter + name[at:],
                    name[:at] + letter + name[at + 1 :],
                )[slip]
            )
    fresh = build()
    assert {key: fresh.suggest(key) for key in sorted(typos)} == {
        key: scanned(registry, key) for key in sorted(typos)
    }


@pytest.mark.parametrize("seed", range(4))
def test_the_halves_index_finds_what_the_rule_finds(seed: int) -> None:
    """The one-slip lookups (halves of a key, and one deletion from either half) on a small
    alphabet, where many keys tie: a letter wrong, missing, extra, moved anywhere, or two
    missing (a key that holds the whole value, two letters longer, beats one letter wrong);
    the same answers with the index built beforehand or on first use."""
    rng = random.Random(seed)
    alphabet = "abcAB_1"
    candidates = [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14))) for _ in range(400)
    ]
    built, lazy = NearIndex(candidates), NearIndex(candidates)
    built.prepare()
    for _ in range(600):
        value = rng.choice(candidates)
        for _ in range(rng.randint(1, 2)):
            at, to = rng.randrange(len(value) + 1), rng.randrange(len(value) + 1)
            letter = rng.choice(alphabet)
            value = rng.choice(
                [
                    value[:at] + letter + value[at + 1 :],
                    value[:at] + value[at + 1 :],
                    value[:at] + letter + value[at:],
                    (value[:at] + value[at + 1 :])[:to] + value[at : at + 1] + value[to:][1:]
                    if to > at
                    else value[:to] + value[at : at + 1] + value[to:at] + value[at + 1 :],
                ]
            )
        head = rng.choice(["", "ns:"])
        slack = rng.randint(1, 4)
        near = [head + c for c in candidates if abs(len(c) - len(value)) <= slack]
        expected = ruled(head + value, near, 0.8)
        assert built.closest(value, head=head, slack=slack, cutoff=0.8) == expected, value
        assert lazy.closest(value, head=head, slack=slack, cutoff=0.8) == expected, value


@pytest.mark.parametrize("seed", range(3))
def test_the_one_slip_answer_is_the_general_searchs(seed: int) -> None:
    """closest answers the usual misspelling from its lookups alone; the general search over
    every length that could compete gives the same answer, for one to three slips, on a
    small alphabet where many candidates tie."""
    rng = random.Random(seed)
    alphabet = "abcAB_1"
    candidates = [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(3, 14))) for _ in range(400)
    ]
    index = NearIndex(candidates)
    index.prepare()
    for _ in range(600):
        value = rng.choice(candidates)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(value) + 1)
            letter = rng.choice(alphabet)
            value = rng.choice(
                [
                    value[:at] + letter + value[at + 1 :],
                    value[:at] + value[at + 1 :],
                    value[:at] + letter + value[at:],
                    value[:at] + value[at + 1 : at + 2] + value[at : at + 1] + value[at + 2 :],
                ]
            )
        head = rng.choice(["", "ns:"])
        slack = rng.randint(2, 4)
        cutoff = rng.choice([0.6, 0.8])
        assert index.closest(value, head=head, slack=slack, cutoff=cutoff) == index._closest(
            value, head=head, slack=slack, cutoff=cutoff
        ), (head, value, slack, cutoff)
