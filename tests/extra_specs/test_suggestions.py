"""Did-you-mean for unknown extra-spec keys: the index answers exactly as the scan with difflib
it replaces (the same key, or no key, for every typo), and it follows the registry's changes."""

from __future__ import annotations

import difflib
import random

import pytest

from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.model import Validator
from flavorsmith.extra_specs.registry import Registry
from flavorsmith.extra_specs.value_rules import ValueRule
from flavorsmith.hints import NearIndex, _matched, closest

LETTERS = "abcdefghijklmnopqrstuvwxyz_:.0123456789ABCXYZ"


def scanned(registry: Registry, key: str) -> str | None:
    """The suggestion as it was made before the index: every key of the namespace the key
    spells (every exact key when it spells none), those about as long, difflib's closest."""
    prefix = key.split(":", 1)[0] if ":" in key else None
    group = registry._literal_groups.get(prefix) if prefix is not None else None
    if group is None and prefix is not None:
        group = next((g for g in registry._pattern_groups if g.regex.fullmatch(prefix)), None)
    if group is not None:
        candidates = [f"{prefix}:{rest}" for rest in group.exact]
    else:
        candidates = [v.name for v in registry.validators if "{" not in v.name]
    slack = max(2, len(key) // 4)
    near = [c for c in candidates if abs(len(c) - len(key)) <= slack]
    return closest(key, near, cutoff=0.8)


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


def test_every_typo_gets_the_key_the_difflib_scan_gave(registry: Registry) -> None:
    rng = random.Random(19)
    names = [v.name for v in registry.validators if "{" not in v.name]
    typos = sorted({typo(rng.choice(names), rng) for _ in range(3000)})
    expected = {key: scanned(registry, key) for key in typos}
    answered = {key: registry.suggest(key) for key in typos}
    assert answered == expected
    assert sum(found is not None for found in expected.values()) > len(typos) // 2
    assert {key: registry.suggest(key) for key in typos} == expected  # remembered answers


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


@pytest.mark.parametrize("seed", range(5))
def test_the_index_answers_as_closest(seed: int) -> None:
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
        assert index.closest(value, head=head, slack=slack, cutoff=cutoff) == closest(
            head + value, near, cutoff=cutoff
        ), (head, value, slack, cutoff)


def test_every_single_slip_of_every_key_gets_the_scan_answer(registry: Registry) -> None:
    """The usual misspelling (one letter missing, extra, wrong, or two swapped) is answered
    from the keys one slip away; the answer is still the scan's, key by key."""
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


def test_matched_characters_are_difflibs() -> None:
    """The short-text matcher counts the characters difflib matches, on texts full of
    repeats (where the choice of the first block matters) and on nearly equal ones."""
    rng = random.Random(5)
    for _ in range(20_000):
        alphabet = rng.choice(["ab", "abc", "abcd_", "abcdefgh_:0"])
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        b = list(a)
        for _ in range(rng.randint(0, 3)):
            at = rng.randrange(len(b) + 1)
            if at == len(b) or rng.random() < 0.4:
                b.insert(at, rng.choice(alphabet))
            elif rng.random() < 0.5:
                del b[at]
            else:
                b[at] = rng.choice(alphabet)
        for other in ("".join(b), "".join(rng.choice(alphabet) for _ in range(len(a)))):
            blocks = difflib.SequenceMatcher(None, a, other).get_matching_blocks()
            assert _matched(a, other) == sum(block.size for block in blocks), (a, other)
