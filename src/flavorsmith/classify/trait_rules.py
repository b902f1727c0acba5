"""Trait rules: conditions on inspection data that set the traits a rule file owns (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flavorsmith.catalog.model import TraitRule, TraitRuleSet
from flavorsmith.classify import vendors
from flavorsmith.classify.inspection import Inspection, hex_id


@dataclass(frozen=True)
class TraitDecision:
    trait: str
    rule_set: str
    rule: str
    reason: str


@dataclass(frozen=True)
class TraitChanges:
    decisions: tuple[TraitDecision, ...]
    result: frozenset[str]
    added: frozenset[str]
    removed: frozenset[str]  # owned traits the rules no longer set
    kept: frozenset[str]  # traits no rule file owns: never touched


def evaluate(rule_sets: Sequence[TraitRuleSet], inspection: Inspection) -> list[TraitDecision]:
    decisions: list[TraitDecision] = []
    for rule_set in rule_sets:
        for rule in rule_set.rules:
            reason = _holds(rule, inspection)
            if reason is not None:
                decisions += [TraitDecision(t, rule_set.name, rule.name, reason) for t in rule.add]
    return decisions


def trait_changes(
    rule_sets: Sequence[TraitRuleSet], inspection: Inspection, current: frozenset[str]
) -> TraitChanges:
    """Owned traits become exactly what the rules say; every other trait stays as it is."""
    decisions = evaluate(rule_sets, inspection)
    wanted = frozenset(d.trait for d in decisions)

    def owned(trait: str) -> bool:
        return any(r.owns(trait) for r in rule_sets)

    kept = frozenset(t for t in current if not owned(t))
    result = kept | wanted
    return TraitChanges(
        decisions=tuple(decisions),
        result=result,
        added=result - current,
        removed=frozenset(t for t in current if owned(t) and t not in wanted),
        kept=kept,
    )


def _holds(rule: TraitRule, inspection: Inspection) -> str | None:
    """Why every condition holds, or None when one does not."""
    reasons = []
    for kind, condition in rule.when.items():
        reason = _CONDITIONS[kind](condition, inspection)
        if reason is None:
            return None
        reasons.append(reason)
    return "; ".join(reasons)


def _interface(condition: dict[str, Any], inspection: Inspection) -> str | None:
    for nic in inspection.interfaces:
        if "vendor" in condition and nic.vendor != hex_id(condition["vendor"]):
            continue
        if "product" in condition and nic.product != hex_id(condition["product"]):
            continue
        if "driver" in condition and nic.driver != condition["driver"]:
            continue
        if "min_speed_mbps" in condition and (nic.speed_mbps or 0) < condition["min_speed_mbps"]:
            continue
        reason = f"interface {nic.name} is {nic.vendor}:{nic.product} ({nic.driver or 'no driver'})"
        if "min_speed_mbps" in condition:
            reason += f" at {nic.speed_mbps} Mb/s"
        return reason
    return None


def _pci(condition: dict[str, Any], inspection: Inspection) -> str | None:
    for device in inspection.pci:
        if "vendor" in condition and device.vendor != hex_id(condition["vendor"]):
            continue
        if "product" in condition and device.product != hex_id(condition["product"]):
            continue
        if "class" in condition and not device.device_class.startswith(hex_id(condition["class"])):
            continue
        return f"PCI device {device.vendor}:{device.product} (class {device.device_class})"
    return None


def _disk(condition: dict[str, Any], inspection: Inspection) -> str | None:
    for disk in inspection.disks:
        if "nvme" in condition and disk.nvme != condition["nvme"]:
            continue
        if "rotational" in condition and disk.rotational != condition["rotational"]:
            continue
        if "min_size_gb" in condition and disk.size_gb < condition["min_size_gb"]:
            continue
        return f"disk {disk.name} ({disk.size_gb:.0f} GB{', NVMe' if disk.nvme else ''})"
    return None


def _cpu_flag(flag: str, inspection: Inspection) -> str | None:
    return f"the CPU has flag {flag}" if flag in inspection.cpu_flags else None


def _cpu_model(text: str, inspection: Inspection) -> str | None:
    found = text.lower() in inspection.cpu_model.lower()
    return f"the CPU is a {inspection.cpu_model}" if found else None


def _system(condition: dict[str, Any], inspection: Inspection) -> str | None:
    if "manufacturer" in condition and vendors.manufacturer(
        inspection.manufacturer
    ) != vendors.manufacturer(condition["manufacturer"]):
        return None
    if "model" in condition and vendors.model(inspection.product) != vendors.model(
        condition["model"]
    ):
        return None
    return f"the system is a {inspection.manufacturer} {inspection.product}"


_CONDITIONS: dict[str, Any] = {
    "interface": _interface,
    "pci": _pci,
    "disk": _disk,
    "cpu_flag": _cpu_flag,
    "cpu_model": _cpu_model,
    "system": _system,
}
