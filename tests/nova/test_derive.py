"""The derivation of Nova flavors from catalog flavors and resource classes."""

from __future__ import annotations

from flavorsmith.catalog.model import (
    Catalog,
    DeployTemplateDef,
    DeviceType,
    Flavor,
    ResourceClass,
    TraitRequirement,
)
from flavorsmith.nova.derive import derive, derive_flavor

RC = ResourceClass("m1.small", 16, "AMD EPYC 9124", 131072, (480, 960), 2)
DISKLESS = ResourceClass("baremetal diskless", 8, "X", 4096, (), 1)


def test_properties_come_from_the_resource_class() -> None:
    nova = derive_flavor(Flavor("m1.small", "m1.small", "Small"), RC)
    assert (nova.id, nova.name, nova.vcpus, nova.ram, nova.disk) == (
        "m1.small",
        "m1.small",
        16,
        131072,
        480,
    )
    assert (nova.swap, nova.ephemeral, nova.description) == (0, 0, "Small")
    assert nova.extra_specs == {
        "resources:CUSTOM_M1_SMALL": "1",
        "resources:VCPU": "0",
        "resources:MEMORY_MB": "0",
        "resources:DISK_GB": "0",
    }


def test_traits_become_required_and_forbidden() -> None:
    flavor = Flavor(
        "x",
        "m1.small",
        traits=(TraitRequirement("NVME", "required"), TraitRequirement("GPU", "absent")),
    )
    specs = derive_flavor(flavor, RC).extra_specs
    assert specs["trait:CUSTOM_NVME"] == "required"
    assert specs["trait:CUSTOM_GPU"] == "forbidden"


def test_diskless_and_odd_names_normalise_like_placement() -> None:
    nova = derive_flavor(Flavor("d", "baremetal diskless"), DISKLESS)
    assert nova.disk == 0
    assert "resources:CUSTOM_BAREMETAL_DISKLESS" in nova.extra_specs


def test_private_flavor_keeps_sorted_projects_and_public_drops_them() -> None:
    private = derive_flavor(Flavor("p", "m1.small", is_public=False, projects=("b", "a")), RC)
    assert (private.is_public, private.projects) == (False, ("a", "b"))


def test_derive_resolves_by_placement_name_and_reports_unresolved() -> None:
    catalog = Catalog(
        device_types=(DeviceType("server", "Dell", "R", 1, True, (RC,)),),
        flavors=(Flavor("b", "m1-small"), Flavor("a", "missing")),
    )
    derived, unresolved = derive(catalog)
    assert [f.id for f in derived] == ["b"]
    assert [f.name for f in unresolved] == ["a"]


TEMPLATES = tuple(
    DeployTemplateDef(name, ({"interface": "bios", "step": "x", "args": {}, "priority": 1},))
    for name in ("CUSTOM_RAID1", "CUSTOM_VMX_ON", "CUSTOM_UNUSED")
)


def flavor_with(description: str | None) -> Flavor:
    return Flavor(
        "f",
        "m1.small",
        description,
        (
            TraitRequirement("VMX_ON", "required"),
            TraitRequirement("RAID1", "required"),
            TraitRequirement("UNUSED", "absent"),
            TraitRequirement("NVME", "required"),
        ),
    )


def test_the_description_appends_the_deploy_templates_a_flavor_selects() -> None:
    """Required traits naming a template select it (sorted); a forbidden one or a trait with
    no template does not; the catalog's text is kept as written."""
    cases = {
        "Mirrored": "Mirrored. Deploy templates: CUSTOM_RAID1, CUSTOM_VMX_ON.",
        "Mirrored.  ": "Mirrored. Deploy templates: CUSTOM_RAID1, CUSTOM_VMX_ON.",
        "Really?": "Really? Deploy templates: CUSTOM_RAID1, CUSTOM_VMX_ON.",
        "": "Deploy templates: CUSTOM_RAID1, CUSTOM_VMX_ON.",
        None: "Deploy templates: CUSTOM_RAID1, CUSTOM_VMX_ON.",
    }
    got = {text: derive_flavor(flavor_with(text), RC, TEMPLATES).description for text in cases}
    assert got == cases


def test_without_a_selected_template_the_description_is_the_catalogs() -> None:
    assert derive_flavor(flavor_with("Plain"), RC).description == "Plain"
    assert derive_flavor(flavor_with(None), RC, TEMPLATES[2:]).description is None
    assert derive_flavor(flavor_with(""), RC, TEMPLATES[2:]).description == ""
