"""How each kind of catalog file appears in list and show output."""

from __future__ import annotations

from typing import Any

from flavorsmith.catalog.model import (
    Catalog,
    Definition,
    DeployTemplateDef,
    DeviceType,
    ExtraSpecSet,
    Flavor,
    LoadBalancerProfileDef,
    LoadBalancerProviderDef,
    NetworkFlavorDef,
    ResourceClass,
    RunbookDef,
    TraitRuleSet,
    TraitSet,
)
from flavorsmith.nova.derive import derive_flavor, selected_templates
from flavorsmith.resource_classes import placement_name

FLAVOR_COLUMNS = ("name", "resource_class", "traits", "is_public", "description")
DEVICE_TYPE_COLUMNS = ("name", "class", "manufacturer", "model", "u_height", "resource_classes")
TRAIT_RULE_COLUMNS = ("name", "prefix", "rules", "traits")
EXTRA_SPEC_COLUMNS = ("name", "validators", "keys")
DEPLOY_TEMPLATE_COLUMNS = ("name", "steps", "description")
RUNBOOK_COLUMNS = ("name", "traits", "steps", "description")
LOAD_BALANCER_FLAVOR_COLUMNS = ("name", "provider", "flavor_data", "flavors")
# As ``openstack network flavor list`` shows them; a flavor's service profiles are in its show.
NETWORK_FLAVOR_COLUMNS = ("name", "enabled", "service_type", "description")


def columns(kind_name: str) -> tuple[str, ...]:
    return {
        "flavor": FLAVOR_COLUMNS,
        "trait-rule": TRAIT_RULE_COLUMNS,
        "extra-spec": EXTRA_SPEC_COLUMNS,
        "deploy-template": DEPLOY_TEMPLATE_COLUMNS,
        "runbook": RUNBOOK_COLUMNS,
        "load-balancer-flavor": LOAD_BALANCER_FLAVOR_COLUMNS,
        "network-flavor": NETWORK_FLAVOR_COLUMNS,
    }.get(kind_name, DEVICE_TYPE_COLUMNS)


def step_label(step: dict[str, Any]) -> str:
    return f"{step['interface']}.{step['step']} (priority {step['priority']})"


def runbook_step_label(step: dict[str, Any]) -> str:
    return f"{step['interface']}.{step['step']} (order {step['order']})"


def row(model: Definition) -> dict[str, Any]:
    if isinstance(model, RunbookDef):
        return {
            "name": model.name,
            "traits": list(model.traits),
            "steps": [runbook_step_label(s) for s in model.ordered_steps()],
            "description": model.description,
        }
    if isinstance(model, DeployTemplateDef):
        return {
            "name": model.name,
            "steps": [step_label(s) for s in model.steps],
            "description": model.description,
        }
    if isinstance(model, ExtraSpecSet):
        keys = [spec["name"] for spec in model.data["validators"]]
        return {"name": model.namespace, "validators": len(keys), "keys": keys}
    if isinstance(model, TraitRuleSet):
        return {
            "name": model.name,
            "prefix": model.prefix,
            "rules": len(model.rules),
            "traits": sorted({t for r in model.rules for t in r.add}),
        }
    if isinstance(model, TraitSet):
        return {
            "name": model.name,
            "traits": [t.name for t in model.traits],
            "description": model.description,
        }
    if isinstance(model, LoadBalancerProfileDef):
        return {
            "name": model.name,
            "provider": model.provider,
            "flavor_data": dict(model.flavor_data),
            "flavors": [f.name for f in model.flavors],
        }
    if isinstance(model, LoadBalancerProviderDef):
        return {"name": model.provider, "capabilities": list(model.capability_names)}
    if isinstance(model, NetworkFlavorDef):
        return {
            "name": model.name,
            "enabled": model.enabled,
            "service_type": model.service_type,
            "description": model.description,
        }
    if isinstance(model, Flavor):
        return {
            "name": model.name,
            "resource_class": model.resource_class,
            "traits": [f"{t.trait}={t.state}" for t in model.traits],
            "is_public": model.is_public,
            "description": model.description,
        }
    return {
        "name": model.slug,
        "class": model.device_class,
        "manufacturer": model.manufacturer,
        "model": model.model,
        "u_height": model.u_height,
        "resource_classes": [rc.name for rc in model.resource_classes],
    }


def flavor_record(flavor: Flavor, catalog: Catalog) -> dict[str, Any]:
    found = catalog.resource_class(flavor.resource_class)
    nova: dict[str, Any] | str
    if found is None:
        nova = f"not derivable: resource class {flavor.resource_class!r} is not defined"
    else:
        derived = derive_flavor(flavor, found[1], catalog.deploy_templates).as_dict()
        fields = ("id", "description", "vcpus", "ram", "disk", "extra_specs")
        nova = {k: derived[k] for k in fields}
    return {
        "name": flavor.name,
        "resource_class": flavor.resource_class,
        "description": flavor.description,
        "is_public": flavor.is_public,
        "projects": list(flavor.projects),
        "traits": [
            {"trait": t.trait, "full_name": t.full_name, "state": t.state} for t in flavor.traits
        ],
        "device_type": found[0].slug if found else None,
        "deploy_templates": list(selected_templates(flavor, catalog.deploy_templates)),
        "nova_flavor": nova,
        "file": flavor.doc.display if flavor.doc else None,
    }


def device_type_record(device_type: DeviceType, flavors: list[Flavor]) -> dict[str, Any]:
    return {
        "name": device_type.slug,
        "class": device_type.device_class,
        "manufacturer": device_type.manufacturer,
        "model": device_type.model,
        "part_number": device_type.data.get("part_number"),
        "u_height": device_type.u_height,
        "is_full_depth": device_type.is_full_depth,
        "interfaces": len(device_type.data.get("interfaces", [])),
        "power_ports": len(device_type.data.get("power-ports", [])),
        "resource_classes": [_rc(rc, flavors) for rc in device_type.resource_classes],
        "file": device_type.doc.display if device_type.doc else None,
    }


def _rc(rc: ResourceClass, flavors: list[Flavor]) -> dict[str, Any]:
    return {
        "name": rc.name,
        "placement_name": rc.placement_name,
        "cpu": f"{rc.cpu_cores} cores {rc.cpu_model}",
        "memory_mb": rc.memory_mb,
        "drives_gb": list(rc.drives_gb),
        "nic_count": rc.nic_count,
        "flavors": sorted(
            f.name for f in flavors if placement_name(f.resource_class) == rc.placement_name
        ),
    }


def show_table(record: dict[str, Any]) -> dict[str, Any]:
    """Flatten nested values into readable cells for the table format."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if key == "traits" and all(isinstance(t, dict) for t in value):
            out[key] = [f"{t['trait']} ({t['full_name']}): {t['state']}" for t in value]
        elif key == "nova_flavor" and isinstance(value, dict):
            for sub, sub_value in value.items():
                out[f"nova_flavor.{sub}"] = sub_value
        elif key == "flavors" and value and all(isinstance(f, dict) for f in value):
            out[key] = [_described(f["name"], f["enabled"], f["description"]) for f in value]
        elif key == "service_profiles":
            out[key] = [
                _described(
                    p["driver"] + (f" (metainfo {p['metainfo']!r})" if p["metainfo"] else ""),
                    p["enabled"],
                    p["description"],
                )
                for p in value
            ]
        elif key == "resource_classes":
            out[key] = [
                f"{rc['name']} ({rc['placement_name']}): {rc['cpu']}, {rc['memory_mb']} MB, "
                f"drives {rc['drives_gb'] or 'none'} GB, {rc['nic_count']} NICs; "
                f"flavors: {', '.join(rc['flavors']) or 'none'}"
                for rc in value
            ]
        else:
            out[key] = value
    return out


def trait_rule_record(rule_set: TraitRuleSet) -> dict[str, Any]:
    return {
        "name": rule_set.name,
        "prefix": rule_set.prefix,
        "description": rule_set.description,
        "rules": [{"name": r.name, "when": r.when, "add": list(r.add)} for r in rule_set.rules],
        "file": rule_set.doc.display if rule_set.doc else None,
    }


def extra_spec_record(definitions: ExtraSpecSet) -> dict[str, Any]:
    return {
        "namespace": definitions.namespace,
        "description": definitions.data.get("description"),
        "validators": [
            f"{spec['name']}: {spec['value']['type']} - {spec['description']}"
            for spec in definitions.data["validators"]
        ],
        "file": definitions.doc.display if definitions.doc else None,
    }


def deploy_template_record(template: DeployTemplateDef, catalog: Catalog) -> dict[str, Any]:
    return {
        "name": template.name,
        "description": template.description,
        "steps": [
            {**{k: s[k] for k in ("interface", "step", "priority")}, "args": s["args"]}
            for s in template.steps
        ],
        "extra": template.extra,
        "flavors": sorted(f.name for f in catalog.flavors if template.name in f.required_traits),
        "file": template.doc.display if template.doc else None,
    }


def runbook_record(runbook: RunbookDef) -> dict[str, Any]:
    return {
        "name": runbook.name,
        "description": runbook.description,
        "traits": list(runbook.traits),
        "steps": [
            {**{k: s[k] for k in ("interface", "step", "order")}, "args": s["args"]}
            for s in runbook.ordered_steps()
        ],
        "public": runbook.public,
        "owner": runbook.owner,
        "extra": runbook.extra,
        "file": runbook.doc.display if runbook.doc else None,
    }


def _described(name: str, enabled: bool, description: str | None) -> str:
    """``NAME (disabled): DESCRIPTION``, each part only when it says something."""
    shown = name if enabled else f"{name} (disabled)"
    return f"{shown}: {description}" if description else shown


def load_balancer_flavor_record(
    profile: LoadBalancerProfileDef, catalog: Catalog
) -> dict[str, Any]:
    provider = next(
        (p for p in catalog.load_balancer_providers if p.provider == profile.provider), None
    )
    return {
        "name": profile.name,
        "octavia_name": profile.octavia_name,
        "provider": profile.provider,
        # What the flavor data may hold, as the provider's saved capabilities say (none when
        # it is not enabled: validate says so).
        "provider_capabilities": list(provider.capability_names) if provider else None,
        "flavor_data": dict(profile.flavor_data),
        "flavors": [
            {"name": f.name, "description": f.description, "enabled": f.enabled}
            for f in profile.flavors
        ],
        "file": profile.doc.display if profile.doc else None,
    }


def network_flavor_record(flavor: NetworkFlavorDef) -> dict[str, Any]:
    return {
        "name": flavor.name,
        "description": flavor.description,
        "service_type": flavor.service_type,
        "enabled": flavor.enabled,
        "service_profiles": [p.as_dict() for p in flavor.service_profiles],
        "file": flavor.doc.display if flavor.doc else None,
    }
