"""Trait rules as Ironic inspection rules: what translates (exactly: the conditions hold on an
inventory when Flavorsmith's do, and the removals hold when no rule that sets the trait does),
what needs the hook and why. Ironic's condition semantics are written out here as the oracle
(a Python format string over the inventory, a regular expression searched in its text, ``!``
negating); tests/integration/test_inspection_rules_real_ironic.py runs the rules in a real
Ironic's inspection."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flavorsmith.catalog.model import TraitRule, TraitRuleSet
from flavorsmith.classify.inspection import parse
from flavorsmith.classify.trait_rules import trait_changes
from flavorsmith.ironic.inspection_rules import (
    DESCRIPTION_MAX,
    MARKER,
    MAX_REMOVAL_RULES,
    conditions_of,
    description,
    is_managed,
    removal_terms,
    translate,
)
from tests.conftest import EXAMPLES


def value(template: str, inventory: dict[str, Any]) -> Any:
    """Ironic's interpolation: the format string over the inventory; a missing field leaves
    the text as it is (None for is-empty)."""
    try:
        return template.format(inventory=inventory)
    except KeyError:
        return None
    except (AttributeError, ValueError, IndexError, TypeError):
        return template


def holds(condition: dict[str, Any], inventory: dict[str, Any]) -> bool:
    op = condition["op"]
    inverted = op.startswith("!")
    op = op.lstrip("!")
    args = condition["args"]
    if op == "contains":
        found = value(args["value"], inventory)
        text = args["value"] if found is None else found
        result = re.search(args["regex"], str(text)) is not None
    elif op == "is-empty":
        result = str(value(args["value"], inventory)) in ("", "None", "[]", "{}")
    else:
        raise AssertionError(f"the translation uses no {op}")
    return result != inverted


def ironic_traits(
    rule_sets: list[TraitRuleSet], inventory: dict[str, Any], current: set[str]
) -> set[str]:
    """The node's traits after Ironic runs the translated rules."""
    traits = set(current)
    for rule in translate(rule_sets).rules:
        if all(holds(c, inventory) for c in rule["conditions"]):
            for action in rule["actions"]:
                name = action["args"]["name"]
                if action["op"] == "add-trait":
                    traits.add(name)
                else:
                    traits.discard(name)
    return traits


def rule_set(*rules: TraitRule, prefix: str = "CUSTOM_X_") -> TraitRuleSet:
    return TraitRuleSet("x", prefix, None, rules)


def inventory(flags: list[str] | None = None, model: Any = "AMD EPYC 9124") -> dict[str, Any]:
    cpu: dict[str, Any] = {"model_name": model, "count": 8}
    if flags is not None:
        cpu["flags"] = flags
    return {"cpu": cpu}


FLAG_RULES = rule_set(
    TraitRule("avx2", {"cpu_flag": "avx2"}, ("CUSTOM_X_AVX2",)),
    TraitRule("avx512", {"cpu_flag": "avx512f"}, ("CUSTOM_X_AVX512",)),
    TraitRule("sev", {"cpu_flag": "sev"}, ("CUSTOM_X_SEV",)),
)
MODEL_RULES = rule_set(
    TraitRule("epyc", {"cpu_model": "EPYC 9"}, ("CUSTOM_X_EPYC",)),
    TraitRule("xeon sgx", {"cpu_model": "xeon", "cpu_flag": "sgx"}, ("CUSTOM_X_XEON_SGX",)),
    TraitRule("sgx alone", {"cpu_flag": "sgx"}, ("CUSTOM_X_XEON_SGX", "CUSTOM_X_SGX")),
)
OWNED = {"CUSTOM_X_AVX2", "CUSTOM_X_AVX512", "CUSTOM_X_SEV", "CUSTOM_X_EPYC"}
OWNED |= {"CUSTOM_X_XEON_SGX", "CUSTOM_X_SGX"}


def agree(rules: TraitRuleSet, data: dict[str, Any], current: set[str]) -> None:
    """The traits the rules name are what Flavorsmith gives; every other trait stays, even
    one with the file's prefix (removing that one needs the hook)."""
    named = {t for rule in rules.rules for t in rule.add}
    expected = trait_changes([rules], parse(data), frozenset(current)).result
    found = ironic_traits([rules], data, current)
    assert found & named == expected & named
    assert found - named == current - named


@given(
    flags=st.one_of(
        st.none(),
        st.lists(st.sampled_from(["avx2", "avx512f", "avx512", "sev", "sev_es", "sgx", "x"])),
    ),
    current=st.sets(st.sampled_from(sorted(OWNED | {"CUSTOM_Y_KEPT"}))),
)
def test_flag_rules_add_and_remove_exactly_what_flavorsmith_does(
    flags: list[str] | None, current: set[str]
) -> None:
    agree(FLAG_RULES, inventory(flags), current)


@given(
    flags=st.lists(st.sampled_from(["sgx", "avx2"])),
    model=st.one_of(
        st.none(),
        st.text(alphabet=string.ascii_letters + " ()[]{}.*+?|^$\\9", max_size=24),
        st.sampled_from(["AMD EPYC 9124", "amd epyc 9354", "Intel(R) Xeon(R) Gold 6430", ""]),
    ),
    current=st.sets(st.sampled_from(sorted(OWNED))),
)
def test_model_rules_add_and_remove_exactly_what_flavorsmith_does(
    flags: list[str], model: str | None, current: set[str]
) -> None:
    agree(MODEL_RULES, inventory(flags, model), current)


def test_a_missing_model_or_cpu_sets_nothing_and_removes_the_named_traits() -> None:
    model_traits = {"CUSTOM_X_EPYC", "CUSTOM_X_XEON_SGX", "CUSTOM_X_SGX"}
    flag_traits = OWNED - model_traits
    for data in ({"cpu": {"flags": []}}, {"cpu": {"flags": [], "model_name": None}}, {}):
        assert ironic_traits([MODEL_RULES], data, set(OWNED)) == flag_traits
    assert ironic_traits([FLAG_RULES], {}, set(OWNED)) == model_traits


@pytest.mark.parametrize("path", sorted((EXAMPLES / "inspection").glob("*.json")), ids=str)
def test_every_example_inventory_agrees(path: Path) -> None:
    data = json.loads(path.read_text())
    stale = {"CUSTOM_X_SEV", "CUSTOM_X_SGX", "CUSTOM_X_EPYC"}
    for rules in (FLAG_RULES, MODEL_RULES):
        agree(rules, data.get("inventory", data), stale)


def test_the_flag_condition_and_the_model_condition() -> None:
    flags, _ = conditions_of(TraitRule("r", {"cpu_flag": "avx512f"}, ("CUSTOM_X_A",)))
    assert flags == [
        {
            "op": "contains",
            "args": {"value": "{inventory[cpu][flags]}", "regex": "(?:\\[|, )'avx512f'(?:,|\\])"},
        }
    ]
    model, _ = conditions_of(TraitRule("r", {"cpu_model": "Gold 6*"}, ("CUSTOM_X_A",)))
    assert model == [
        {"op": "!is-empty", "args": {"value": "{inventory[cpu][model_name]}"}},
        {
            "op": "contains",
            "args": {"value": "{inventory[cpu][model_name]}", "regex": "[gG][oO][lL][dD]\\ 6\\*"},
        },
    ]


@pytest.mark.parametrize(
    ("when", "reason"),
    [
        ({"system": {"manufacturer": "Dell"}}, "system: the manufacturer and model are normalised"),
        ({"interface": {"vendor": "0x8086"}}, "interface: some network interface must match"),
        ({"pci": {"vendor": "10de", "class": "03"}}, "pci: some PCI device must match"),
        ({"disk": {"nvme": True}}, "disk: some disk must match"),
        ({"cpu_flag": "sgx", "disk": {"nvme": True}}, "disk: some disk must match"),
        ({"cpu_model": "Xéon"}, "cpu_model 'Xéon' is not ASCII"),
    ],
)
def test_what_needs_the_hook_is_not_translated_and_says_why(
    when: dict[str, Any], reason: str
) -> None:
    conditions, why = conditions_of(TraitRule("r", when, ("CUSTOM_X_A",)))
    assert conditions is None and why is not None and why.startswith(reason)


def test_a_file_translates_what_it_can_and_notes_the_rest() -> None:
    rules = rule_set(
        TraitRule("flag", {"cpu_flag": "avx2"}, ("CUSTOM_X_A",)),
        TraitRule("nic", {"interface": {"driver": "ice"}}, ("CUSTOM_X_A", "CUSTOM_X_B")),
        TraitRule("flag", {"cpu_flag": "sev"}, ("CUSTOM_X_C",)),  # the same name twice
    )
    result = translate([rules])
    assert [r["description"] for r in result.rules] == [
        f"{MARKER}x/flag adds CUSTOM_X_A",
        f"{MARKER}x/flag #2 adds CUSTOM_X_C",
        f"{MARKER}x removes CUSTOM_X_C #1",
    ]
    assert all(
        (r["priority"], r["phase"], r["sensitive"]) == (0, "main", False) for r in result.rules
    )
    notes = {n.subject: n.reason for n in result.needs_hook}
    assert list(notes) == ["x/nic", "CUSTOM_X_A", "CUSTOM_X_*"]
    assert notes["CUSTOM_X_A"].startswith("removing it when no rule sets it needs the hook")
    assert "set by hand" in notes["CUSTOM_X_*"]
    # a file none of whose rules translate: only its rules are noted
    only_hook = translate(
        [rule_set(TraitRule("nic", {"pci": {"vendor": "10de"}}, ("CUSTOM_X_G",)))]
    )
    assert only_hook.rules == () and [n.subject for n in only_hook.needs_hook] == ["x/nic"]


def test_removal_is_one_rule_per_way_of_failing_every_rule() -> None:
    a = {"op": "contains", "args": {"value": "v", "regex": "a"}}
    b = {"op": "contains", "args": {"value": "v", "regex": "b"}}
    c = {"op": "!is-empty", "args": {"value": "w"}}
    terms = removal_terms([[a, c], [b, c]])
    not_a, not_b, empty = (
        {**x, "op": op} for x, op in ((a, "!contains"), (b, "!contains"), (c, "is-empty"))
    )
    assert terms == [[not_a, not_b], [not_a, empty], [empty, not_b], [empty]]
    # a condition and its negation never hold together: no rule for them
    assert removal_terms([[a], [{**a, "op": "!contains"}]]) == []
    many = [
        [{"op": "contains", "args": {"value": "v", "regex": f"{i}{j}"}} for j in range(2)]
        for i in range(5)
    ]
    assert removal_terms(many) is None  # 32 rules: more than MAX_REMOVAL_RULES
    assert MAX_REMOVAL_RULES < 2**5
    rules = rule_set(
        *[
            TraitRule(f"r{i}", {"cpu_flag": f"f{i}", "cpu_model": "m"}, ("CUSTOM_X_A",))
            for i in range(3)
        ]
    )
    notes = {n.subject: n.reason for n in translate([rules]).needs_hook}
    assert "takes more than 16 Ironic rules" in notes["CUSTOM_X_A"]


def test_descriptions_mark_the_rules_flavorsmith_manages_and_fit_ironic() -> None:
    assert is_managed(f"{MARKER}x/r adds CUSTOM_X") and not is_managed("mine")
    assert not is_managed(None)
    long_a, long_b = description("x/" + "a" * 300), description("x/" + "a" * 299 + "b")
    assert len(long_a) == len(long_b) == DESCRIPTION_MAX and long_a != long_b
    assert is_managed(long_a)
