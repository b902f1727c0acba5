"""Classifying one node: its resource class from the device types, its traits from the rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flavorsmith.catalog.model import Catalog
from flavorsmith.classify.devices import DeviceMatch, match_device
from flavorsmith.classify.inspection import Inspection
from flavorsmith.classify.trait_rules import TraitChanges, trait_changes


@dataclass(frozen=True)
class Classification:
    device: DeviceMatch
    traits: TraitChanges

    @property
    def resource_class(self) -> str | None:
        return self.device.resource_class

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.device.outcome,
            "summary": self.device.summary,
            "device_type": self.device.device_type,
            "resource_class": self.device.resource_class,
            "candidates": [
                {
                    "device_type": c.device_type,
                    "resource_class": c.resource_class,
                    "match": c.ok,
                    "checks": [
                        {"field": k.field, "ok": k.ok, "detail": k.detail} for k in c.checks
                    ],
                }
                for c in self.device.candidates
            ],
            "traits": sorted(self.traits.result),
            "trait_reasons": [
                {"trait": d.trait, "rules": d.rule_set, "rule": d.rule, "because": d.reason}
                for d in self.traits.decisions
            ],
            "traits_added": sorted(self.traits.added),
            "traits_removed": sorted(self.traits.removed),
            "traits_kept": sorted(self.traits.kept),
        }


def classify(
    inspection: Inspection, catalog: Catalog, current_traits: frozenset[str] = frozenset()
) -> Classification:
    return Classification(
        device=match_device(inspection, catalog.device_types),
        traits=trait_changes(catalog.trait_rules, inspection, current_traits),
    )
