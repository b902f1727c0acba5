"""Trait rules as Ironic's own inspection rules (``/v1/inspection_rules``, API 1.96), where a
rule can be expressed exactly; the others are named, with the reason, as needing the hook
(pure).

Ironic runs its inspection rules at the end of every in-band inspection: each rule's
conditions are all checked (an AND; there is no OR and no "else") and, when they hold, its
actions run. A condition compares values that are Python format strings over the inventory
(``{inventory[cpu][flags]}`` is ``str()`` of that list, as ``['fpu', 'avx2']``); ``contains``
searches a regular expression in that text, and a leading ``!`` negates an operator.

What translates, exactly:

* ``cpu_flag: F`` — ``contains`` on ``{inventory[cpu][flags]}`` with the quoted flag as one
  element of the printed list (``'F'`` after ``[`` or ``, `` and before ``,`` or ``]``); a flag
  is a /proc/cpuinfo word (letters, digits, _), so it is printed in single quotes.
* ``cpu_model: T`` (ASCII text) — the model is not empty (``!is-empty``: Flavorsmith reads a
  missing or null model as "") and ``contains`` the text, each letter as ``[xX]`` (Flavorsmith
  compares lower-cased text; an ASCII-only class has no Unicode case folding).

Each trait rule whose conditions all translate becomes one Ironic rule: its conditions and an
``add-trait`` action per trait. Ownership stays exact for the traits every one of whose rules
translates: a trait is removed when no rule that sets it holds, which is an AND of ORs; as
Ironic has only AND, that is written out as one ``remove-trait`` rule per way of failing every
rule (one negated condition from each: a product, kept to :data:`MAX_REMOVAL_RULES`).

What needs the hook (never approximated): ``system`` (manufacturer and model are normalised
and compared by alias), ``interface``, ``pci`` and ``disk`` (some *one* device must match
every property, with hex ids in any spelling and sizes in GB; an Ironic condition tests one
value and cannot tie several conditions to the same element of a list), a ``cpu_model`` text
that is not ASCII; and the removal of a trait that a rule needing the hook also sets, or that
no rule sets (a trait with the file's prefix set by hand).

Flavorsmith's rules are the ones whose description starts with :data:`MARKER`; the description
also names the trait rule, so it is the rule's identity. Every other rule is the operator's.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flavorsmith.catalog.model import TraitRule, TraitRuleSet

MARKER = "flavorsmith: "  # the description of every rule Flavorsmith manages starts so
DESCRIPTION_MAX = 255  # Ironic's limit
PHASE = "main"  # the one phase Ironic 39 has
PRIORITY = 0
MAX_REMOVAL_RULES = 16
FLAGS = "{inventory[cpu][flags]}"
MODEL = "{inventory[cpu][model_name]}"

NEEDS_HOOK: dict[str, str] = {
    "system": "the manufacturer and model are normalised (vendor aliases, model suffixes) "
    "before they are compared",
    "interface": "some network interface must match (PCI ids in any spelling, driver, speed): "
    "an Ironic condition tests one value, not whether some element of a list matches",
    "pci": "some PCI device must match (ids in any spelling, class prefix): an Ironic "
    "condition tests one value, not whether some element of a list matches",
    "disk": "some disk must match (NVMe by device name, rotational, size in GB): an Ironic "
    "condition tests one value, not whether some element of a list matches",
}


@dataclass(frozen=True)
class NeedsHook:
    """What only the hook can do, and why: a trait rule (``subject`` "file/rule") or the
    removal of traits (``subject`` a trait, or a prefix ending in ``*``)."""

    subject: str
    reason: str


@dataclass(frozen=True)
class Translation:
    """The Ironic rules (API bodies, by description) and what needs the hook."""

    rules: tuple[dict[str, Any], ...]
    needs_hook: tuple[NeedsHook, ...]

    def by_description(self) -> dict[str, dict[str, Any]]:
        return {r["description"]: r for r in self.rules}


def translate(rule_sets: Sequence[TraitRuleSet]) -> Translation:
    """Every trait rule that Ironic can run exactly, with the removals that keep ownership
    exact; the rest as :class:`NeedsHook` notes."""
    rules: list[dict[str, Any]] = []
    notes: list[NeedsHook] = []
    for rule_set in rule_sets:
        # trait -> the translated conditions of each rule that sets it (None: one does not)
        adders: dict[str, list[list[dict[str, Any]] | None]] = {}
        for name, rule in _named(rule_set):
            conditions, why = conditions_of(rule)
            for trait in rule.add:
                adders.setdefault(trait, []).append(conditions)
            if conditions is None:
                notes.append(NeedsHook(f"{rule_set.name}/{name}", str(why)))
                continue
            traits = ", ".join(rule.add)
            rules.append(
                _body(
                    f"{rule_set.name}/{name} adds {traits}",
                    conditions,
                    [{"op": "add-trait", "args": {"name": t}} for t in rule.add],
                )
            )
        for trait in sorted(adders):
            removals, note = _removals(rule_set.name, trait, adders[trait])
            rules += removals
            notes += [note] if note is not None else []
        if any(c is not None for found in adders.values() for c in found):
            notes.append(
                NeedsHook(
                    f"{rule_set.prefix}*",
                    "removing a trait with this prefix that no rule sets (set by hand) needs "
                    "the hook: an Ironic rule removes only the traits it names",
                )
            )
    return Translation(tuple(rules), tuple(notes))


def _removals(
    file: str, trait: str, adders: Sequence[list[dict[str, Any]] | None]
) -> tuple[list[dict[str, Any]], NeedsHook | None]:
    """The rules that remove ``trait`` when none of its ``adders`` (their translated
    conditions; None: not translated) holds, or why only the hook can."""
    if all(c is None for c in adders):
        return [], None  # its rules are noted: the hook sets and removes it
    if any(c is None for c in adders):
        why = (
            "removing it when no rule sets it needs the hook: a rule that sets it is not translated"
        )
        return [], NeedsHook(trait, why)
    terms = removal_terms([c for c in adders if c is not None])
    if terms is None:
        why = (
            f"removing it when no rule sets it takes more than {MAX_REMOVAL_RULES} Ironic "
            "rules (Ironic's conditions have no OR): it needs the hook"
        )
        return [], NeedsHook(trait, why)
    action = [{"op": "remove-trait", "args": {"name": trait}}]
    return [
        _body(f"{file} removes {trait} #{index}", term, action)
        for index, term in enumerate(terms, start=1)
    ], None


def conditions_of(rule: TraitRule) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The Ironic conditions equal to all of ``rule``'s (ANDed), or None and why not."""
    out: list[dict[str, Any]] = []
    for kind, condition in rule.when.items():
        if kind == "cpu_flag":
            out.append(_contains(FLAGS, rf"(?:\[|, )'{re.escape(str(condition))}'(?:,|\])"))
        elif kind == "cpu_model":
            text = str(condition)
            if not text.isascii():
                return None, (
                    f"cpu_model {text!r} is not ASCII: Flavorsmith's case-insensitive "
                    "comparison and a regular expression's differ outside ASCII"
                )
            out.append({"op": "!is-empty", "args": {"value": MODEL}})
            out.append(_contains(MODEL, _any_case(text)))
        else:
            return None, f"{kind}: {NEEDS_HOOK.get(kind, 'no Ironic condition expresses it')}"
    return out, None


def removal_terms(
    adders: Sequence[Sequence[Mapping[str, Any]]],
) -> list[list[dict[str, Any]]] | None:
    """The condition lists, one per Ironic rule, whose union is "no adder holds": for each
    adder, one of its conditions negated (an adder without conditions always holds: no term).
    Contradictory and repeated terms are left out; None when more than
    :data:`MAX_REMOVAL_RULES` remain."""
    if any(not conditions for conditions in adders):
        return []
    terms: list[list[dict[str, Any]]] = []
    seen: set[str] = set()
    for choice in itertools.product(*adders):
        term: list[dict[str, Any]] = []
        for condition in choice:
            negated = negate(condition)
            if negated not in term:
                term.append(negated)
        if any(negate(c) in term for c in term):
            continue  # a condition and its negation: never holds
        key = repr(sorted(repr(sorted(c.items())) for c in term))
        if key in seen:
            continue
        seen.add(key)
        terms.append(term)
        if len(terms) > MAX_REMOVAL_RULES:
            return None
    return terms


def negate(condition: Mapping[str, Any]) -> dict[str, Any]:
    op = str(condition["op"])
    return {**condition, "op": op[1:] if op.startswith("!") else f"!{op}"}


def is_managed(description: Any) -> bool:
    return isinstance(description, str) and description.startswith(MARKER)


def _contains(value: str, regex: str) -> dict[str, Any]:
    return {"op": "contains", "args": {"value": value, "regex": regex}}


def _any_case(text: str) -> str:
    return "".join(
        f"[{c.lower()}{c.upper()}]" if c.isalpha() and c.lower() != c.upper() else re.escape(c)
        for c in text
    )


def _named(rule_set: TraitRuleSet) -> list[tuple[str, TraitRule]]:
    """Each rule with a name unique in its file (a repeated name gets " #2", " #3"...)."""
    counts: dict[str, int] = {}
    out = []
    for rule in rule_set.rules:
        counts[rule.name] = counts.get(rule.name, 0) + 1
        n = counts[rule.name]
        out.append((rule.name if n == 1 else f"{rule.name} #{n}", rule))
    return out


def _body(
    what: str, conditions: list[dict[str, Any]], actions: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "description": description(what),
        "priority": PRIORITY,
        "phase": PHASE,
        "sensitive": False,
        "conditions": conditions,
        "actions": actions,
    }


def description(what: str) -> str:
    """``MARKER + what``, shortened to Ironic's limit with a hash of the whole kept unique."""
    full = MARKER + what
    if len(full) <= DESCRIPTION_MAX:
        return full
    digest = hashlib.sha256(full.encode()).hexdigest()[:12]
    return f"{full[: DESCRIPTION_MAX - 15]}… #{digest}"


__all__ = [
    "MARKER",
    "NEEDS_HOOK",
    "NeedsHook",
    "Translation",
    "conditions_of",
    "description",
    "is_managed",
    "negate",
    "removal_terms",
    "translate",
]
