"""Declared traits: the trait kind's files, an undeclared custom trait wherever a file names
it, and a name like a standard trait's that os-traits does not know, whatever is declared."""

from __future__ import annotations

from pathlib import Path

import pytest

from flavorsmith import traits
from flavorsmith.catalog.trait_use import check_unprovided
from tests.support.catalogs import repository
from tests.support.declared_traits import DECLARATIONS, declared_catalog, edit

F = "hardware/flavors"
NVME_FLAVOR = f"{F}/m1.small.nvme-cx5-no-gpu.yaml"
SITE = "hardware/traits/site.yaml"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return declared_catalog(tmp_path)


def rendered(root: Path) -> list[str]:
    """What validate reports without nodes: every file's and every cross-file diagnostic."""
    view = repository(root).load()
    found = [*view.diagnostics, *check_unprovided(view.catalog)]
    return [d.render() for d in sorted(found, key=lambda d: (d.path, d.line, d.column))]


def test_the_example_catalog_with_its_traits_declared_is_clean(root: Path) -> None:
    view = repository(root).load()
    assert view.diagnostics == []
    assert check_unprovided(view.catalog) == []
    assert len(view.catalog.declared_traits) == 13


def test_an_undeclared_custom_trait_is_an_error_wherever_it_is_named(root: Path) -> None:
    edit(root / NVME_FLAVOR, "trait: NVME", "trait: NMVE")  # a flavor's traits list
    edit(
        root / f"{F}/c2.large.yaml",
        "dual 1.92TB drives\n",
        "dual 1.92TB drives\nextra_specs:\n  trait1:CUSTOM_NIC_MELANOX_CX5: required\n",
    )  # a flavor's extra specs
    edit(
        root / "hardware/trait-rules/storage.yaml",
        "add: [CUSTOM_NVME]",
        "add: [CUSTOM_NVME, CUSTOM_NVME_FAST]",
    )  # a trait rule
    # A deploy template (and the flavor requiring it) once its declaration is gone.
    edit(
        root / SITE,
        "  - name: CUSTOM_BM_CONFIG_RAID_DISK_STRIPE\n"
        "    description: Two disks striped\n"
        "    set_by: deploy-template\n",
        "",
    )
    why = (
        "is not declared: this catalog declares its custom traits under hardware/traits/, and "
        "every custom trait its files name must be one of them"
    )
    assert rendered(root) == [
        "hardware/deploy-templates/CUSTOM_BM_CONFIG_RAID_DISK_STRIPE.yaml:3:7: name: "
        f"CUSTOM_BM_CONFIG_RAID_DISK_STRIPE {why} (did you mean "
        "'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR'?)",
        f"{F}/c2.large.novmx-stripe.yaml:9:12: traits[1].trait: BM_CONFIG_RAID_DISK_STRIPE "
        f"(CUSTOM_BM_CONFIG_RAID_DISK_STRIPE) {why} (did you mean 'BM_CONFIG_RAID_DISK_MIRROR'?)",
        f"{F}/c2.large.yaml:6:3: extra_specs.trait1:CUSTOM_NIC_MELANOX_CX5: "
        f"CUSTOM_NIC_MELANOX_CX5 {why} (did you mean 'CUSTOM_NIC_MELLANOX_CX5'?)",
        f"{NVME_FLAVOR}:6:12: traits[0].trait: NMVE (CUSTOM_NMVE) {why} (did you mean 'NVME'?)",
        "hardware/runbooks/raid-rebuild.yaml:8:45: traits[1]: CUSTOM_BM_CONFIG_RAID_DISK_STRIPE "
        f"{why} (did you mean 'CUSTOM_BM_CONFIG_RAID_DISK_MIRROR'?)",
        f"hardware/trait-rules/storage.yaml:9:24: rules[0].add[1]: CUSTOM_NVME_FAST {why} "
        "(did you mean 'CUSTOM_NVME'?)",
    ]


def test_a_trait_only_a_rule_sets_is_offered_as_the_nearest(root: Path) -> None:
    edit(root / SITE, "  - name: CUSTOM_NVME\n", "  - name: CUSTOM_NVME_LOCAL\n")
    edit(root / NVME_FLAVOR, "trait: NVME", "trait: NMVE")
    why = (
        "is not declared: this catalog declares its custom traits under hardware/traits/, and "
        "every custom trait its files name must be one of them"
    )
    # CUSTOM_NVME is no longer declared, yet storage.yaml sets it: the flavor is offered it.
    assert rendered(root) == [
        f"{NVME_FLAVOR}:6:12: traits[0].trait: NMVE (CUSTOM_NMVE) {why} (did you mean 'NVME'?)",
        f"hardware/runbooks/firmware-update.yaml:7:10: traits[0]: CUSTOM_NVME {why} (did you "
        "mean 'CUSTOM_NVME_LOCAL'?)",
        f"hardware/runbooks/raid-rebuild.yaml:8:80: traits[2]: CUSTOM_NVME {why} (did you "
        "mean 'CUSTOM_NVME_LOCAL'?)",
        f"hardware/trait-rules/storage.yaml:9:11: rules[0].add[0]: CUSTOM_NVME {why} (did you "
        "mean 'CUSTOM_NVME_LOCAL'?)",
    ]


def test_without_declarations_an_unknown_custom_trait_stays_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    root = declared_catalog(tmp_path)
    (root / SITE).unlink()
    edit(root / "hardware/base/kustomization.yaml", "  - site.yaml=../traits/site.yaml\n", "")
    edit(root / NVME_FLAVOR, "trait: NVME", "trait: NMVE")
    assert rendered(root) == [
        f"{NVME_FLAVOR}:6:12: traits[0].trait: warning: CUSTOM_NMVE is required but nothing "
        "provides it: no trait rule adds it and no deploy template is named after it, so no "
        "node has it unless it is set by hand (validate --database checks the nodes) (did you "
        "mean 'NVME'?)",
    ]


def test_a_declared_trait_an_operator_sets_is_provided(root: Path) -> None:
    edit(
        root / SITE,
        "traits:\n",
        "traits:\n  - name: CUSTOM_RAID\n    description: A hardware RAID controller\n"
        "    set_by: external\n    tool: the asset database's nightly export\n",
    )
    edit(
        root / NVME_FLAVOR,
        "  - trait: NVME\n",
        "  - trait: RAID\n    state: required\n  - trait: NVME\n",
    )
    assert rendered(root) == []  # neither undeclared nor unprovided


LOOKALIKE = (
    "is not a standard trait of os-traits 3.9.0 (did you mean 'HW_CPU_X86_AVX512F' or "
    "'HW_CPU_X86_AVX512PF'?)"
)


@pytest.mark.parametrize("declared", [True, False])
def test_a_name_like_a_standard_traits_is_an_error_wherever_it_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, declared: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    root = declared_catalog(tmp_path)
    if not declared:
        (root / SITE).unlink()
        edit(root / "hardware/base/kustomization.yaml", "  - site.yaml=../traits/site.yaml\n", "")
    edit(root / NVME_FLAVOR, "trait: NVME", "trait: HW_CPU_X86_AVX512FF")  # traits list
    edit(
        root / f"{F}/c2.large.yaml",
        "dual 1.92TB drives\n",
        "dual 1.92TB drives\nextra_specs:\n  trait:HW_CPU_X86_AVX512FF: required\n",
    )  # extra specs: the extra-spec registry knows the standard traits
    edit(
        root / "hardware/trait-rules/cpu-standard.yaml",
        "add: [HW_CPU_X86_AVX512F]",
        "add: [HW_CPU_X86_AVX512FF]",
    )  # a trait rule
    template = root / "hardware/deploy-templates/HW_CPU_X86_AVX512FF.yaml"
    template.write_text(
        "name: HW_CPU_X86_AVX512FF\nsteps:\n"
        "  - interface: bios\n    step: apply_configuration\n"
        "    args: {settings: [{name: ProcVirtualization, value: Enabled}]}\n"
        "    priority: 150\n"
    )  # a deploy template
    edit(
        root / "hardware/base/kustomization.yaml",
        "- name: deploy-templates\n  options:\n    disableNameSuffixHash: true\n  files:\n",
        "- name: deploy-templates\n  options:\n    disableNameSuffixHash: true\n  files:\n"
        "  - HW_CPU_X86_AVX512FF.yaml=../deploy-templates/HW_CPU_X86_AVX512FF.yaml\n",
    )
    ironic = "Ironic accepts a standard trait, or CUSTOM_ followed by A-Z, 0-9 and _"
    assert rendered(root) == [
        f"hardware/deploy-templates/HW_CPU_X86_AVX512FF.yaml:1:7: name: HW_CPU_X86_AVX512FF "
        f"{LOOKALIKE}; a deploy template is named by a trait Ironic accepts: a standard one, or "
        "CUSTOM_ followed by A-Z, 0-9 and _",
        "hardware/deploy-templates/HW_CPU_X86_AVX512FF.yaml:1:7: name: warning: no flavor "
        "requires the trait HW_CPU_X86_AVX512FF, so Nova never asks for this template (add it "
        "to a flavor's traits as required)",
        f"{F}/c2.large.yaml:6:3: extra_specs.trait:HW_CPU_X86_AVX512FF: "
        "trait:HW_CPU_X86_AVX512FF is not a known key of namespace trait{group} (did you mean "
        "'trait:HW_CPU_X86_AVX512F'?)",
        f"{NVME_FLAVOR}:6:12: traits[0].trait: HW_CPU_X86_AVX512FF {LOOKALIKE}; the traits list "
        "asks for CUSTOM_ traits: ask for a standard trait in extra_specs "
        "(trait:HW_CPU_X86_AVX512F: required), and for this name as a custom trait there too "
        "(trait:CUSTOM_HW_CPU_X86_AVX512FF: required)",
        f"hardware/trait-rules/cpu-standard.yaml:13:11: rules[1].add[0]: HW_CPU_X86_AVX512FF "
        f"{LOOKALIKE}; {ironic}",
    ]


def test_standard_names_nova_sets_and_custom_names_like_them_stay_allowed(root: Path) -> None:
    edit(
        root / f"{F}/c2.large.yaml",
        "dual 1.92TB drives\n",
        "dual 1.92TB drives\nextra_specs:\n  trait:COMPUTE_NODE: required\n"
        "  trait1:HW_CPU_X86_AVX512F: required\n  trait2:CUSTOM_HW_RAID: forbidden\n",
    )
    edit(
        root / SITE,
        "traits:\n",
        "traits:\n  - name: CUSTOM_HW_RAID\n    description: A hardware RAID controller\n"
        "    set_by: operator\n",
    )
    assert rendered(root) == []


def test_a_trait_declared_twice_is_an_error(root: Path) -> None:
    edit(
        root / SITE,
        "  - name: CUSTOM_CPU_SGX\n",
        "  - name: CUSTOM_CPU_AVX512\n    description: again\n    set_by: operator\n"
        "  - name: CUSTOM_CPU_SGX\n",
    )
    (root / "hardware/traits/gpus.yaml").write_text(
        "name: gpus\ntraits:\n  - name: CUSTOM_GPU\n    description: A GPU\n"
        "    set_by: trait-rule\n"
    )
    edit(
        root / "hardware/base/kustomization.yaml",
        "  - site.yaml=../traits/site.yaml\n",
        "  - gpus.yaml=../traits/gpus.yaml\n  - site.yaml=../traits/site.yaml\n",
    )
    # Files are read in order of name: gpus.yaml declares CUSTOM_GPU first.
    assert rendered(root) == [
        f"{SITE}:8:11: traits[1].name: CUSTOM_CPU_AVX512 is declared twice (first at line 5)",
        f"{SITE}:14:11: traits[3].name: CUSTOM_GPU is already declared at "
        "hardware/traits/gpus.yaml:3; each trait is declared once",
    ]


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            "  - name: NVME\n    description: d\n    set_by: operator\n",
            "traits[0].name: 'NVME' must match ^CUSTOM_[A-Z0-9_]+$",
        ),
        (
            "  - name: CUSTOM_NVME\n    description: d\n    set_by: hand\n",
            "traits[0].set_by: 'hand' is not allowed; expected one of 'trait-rule', "
            "'inspection-hook', 'deploy-template', 'operator', 'external'",
        ),
    ],
)
def test_a_declaration_is_checked_against_its_schema(root: Path, entry: str, expected: str) -> None:
    (root / SITE).write_text(f"name: site\ntraits:\n{entry}")
    found = [line for line in rendered(root) if line.startswith(SITE)]
    assert [line.split(": ", 1)[1] for line in found] == [expected]


def test_the_declarations_are_those_of_the_file(root: Path) -> None:
    catalog = repository(root).load().catalog
    (trait_set,) = catalog.trait_sets
    assert trait_set.name == "site" and trait_set.canonical_file == "site.yaml"
    assert [d.name for d in trait_set.traits] == [
        line.removeprefix("  - name: ")
        for line in DECLARATIONS.splitlines()
        if line.startswith("  - name: ")
    ]
    assert catalog.declared_traits["CUSTOM_NVME"].setter == "trait-rule"


def test_every_standard_trait_has_a_standard_prefix() -> None:
    assert all(t.startswith(traits.STANDARD_PREFIXES) for t in traits.standard_traits())


def test_an_extra_spec_definition_naming_a_trait_is_checked_too(root: Path) -> None:
    (root / "hardware/extra-specs/trait.yaml").write_text(
        "namespace: trait\nvalidators:\n"
        "  - name: trait:CUSTOM_NMVE\n    description: NVMe\n"
        "    value: {type: enum, choices: [required]}\n"
        "  - name: trait:HW_CPU_X86_AVX512FF\n    description: AVX-512\n"
        "    value: {type: enum, choices: [required]}\n"
    )
    edit(
        root / "hardware/base/kustomization.yaml",
        "  - scheduling.yaml=../extra-specs/scheduling.yaml\n",
        "  - scheduling.yaml=../extra-specs/scheduling.yaml\n"
        "  - trait.yaml=../extra-specs/trait.yaml\n",
    )
    assert rendered(root) == [
        "hardware/extra-specs/trait.yaml:3:11: validators[0].name: CUSTOM_NMVE is not declared: "
        "this catalog declares its custom traits under hardware/traits/, and every custom trait "
        "its files name must be one of them (did you mean 'CUSTOM_NVME'?)",
        f"hardware/extra-specs/trait.yaml:6:11: validators[1].name: HW_CPU_X86_AVX512FF "
        f"{LOOKALIKE}; Placement refuses a trait it does not know",
    ]
