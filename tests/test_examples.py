"""The example repository validates clean; every broken example yields exactly its diagnostic."""

from __future__ import annotations

import json

import pytest

from tests.conftest import BROKEN, EXAMPLES, Invoke
from tests.support.catalogs import RULES

F = "hardware/flavors"
D = "hardware/device-types"
R = "hardware/runbooks"

EXPECTED: dict[str, tuple[int, list[str]]] = {
    "yaml-syntax": (
        1,
        [
            f"{F}/m1.small.nicX.yaml:5:4: yaml: invalid YAML: expected <block end>, but found "
            "'<block mapping start>' (check the indentation of this line and the one above)",
        ],
    ),
    "unknown-key": (
        1,
        [
            f"{D}/dell-poweredge-r7615.yaml:5:1: comment: unknown key 'comment' (did you mean "
            "'comments'?); allowed: id, class, manufacturer, model, part_number, comments, u_height, "
            "is_full_depth, interfaces, power-ports, console-ports, module-bays, resource_class",
        ],
    ),
    "cores-not-whole-sockets": (
        0,
        [
            f"{D}/dell-poweredge-r7615.yaml:9:14: resource_class[0].cpu.cores: warning: 24 cores "
            "are not whole sockets of 'AMD EPYC 9124 16-Core Processor' (16 cores per socket): "
            "cores counts the physical cores of all sockets, not threads (one socket at 2 threads "
            "per core shows 32 logical CPUs)",
        ],
    ),
    "custom-prefix": (
        1,
        [
            f"{F}/m1.small.nicX.yaml:4:12: traits[0].trait: 'CUSTOM_NICX' would be sent as "
            "CUSTOM_CUSTOM_NICX: write NICX; CUSTOM_ is added for you",
        ],
    ),
    "lowercase-trait": (
        1,
        [
            f"{F}/m1.small.nicX.yaml:4:12: traits[0].trait: 'nicx' must match ^[A-Z][A-Z0-9_]*$ "
            "(did you mean 'NICX'?)",
        ],
    ),
    "bad-trait-state": (
        1,
        [
            f"{F}/m1.small.nicX.yaml:5:12: traits[0].state: 'requird' is not allowed; expected one "
            "of 'required', 'absent' (did you mean 'required'?)",
        ],
    ),
    "duplicate-flavor-name": (
        1,
        [
            f"{F}/m1.small.nicX.yaml:1:7: name: warning: file name should be 'm1.small.yaml' to "
            "match the definition",
            f"{F}/m1.small.nicX.yaml:1:7: name: flavor 'm1.small' is already defined at "
            f"{F}/m1.small.yaml:1",
        ],
    ),
    "undefined-resource-class": (
        1,
        [
            f"{F}/m1.small.nicX.yaml:2:17: resource_class: resource class 'm1.smal' is not defined "
            "by any device type (did you mean 'm1.small'?); defined: m1.small",
        ],
    ),
    "duplicate-resource-class": (
        1,
        [
            f"{D}/hpe-proliant-dl360-gen11.yaml:7:11: resource_class[0].name: resource class "
            f"'m1.small' is already defined at {D}/dell-poweredge-r7615.yaml:7; each resource class "
            "belongs to exactly one device type",
        ],
    ),
    "resource-class-collision": (
        1,
        [
            f"{D}/hpe-proliant-dl360-gen11.yaml:7:11: resource_class[0].name: resource class "
            f"'M1-Small' and 'm1.small' ({D}/dell-poweredge-r7615.yaml:7) are both CUSTOM_M1_SMALL "
            "to Placement; rename one",
        ],
    ),
    "resource-class-too-long": (
        1,
        [
            f"{D}/hpe-proliant-dl360-gen11.yaml:7:11: resource_class[0].name: resource class is 87 "
            "characters; Ironic allows at most 80",
        ],
    ),
    "trait-listed-twice": (
        1,
        [
            f"{F}/m1.small.nicX.yaml:6:12: traits[1].trait: NICX is listed twice (first at line 4)",
        ],
    ),
    "trait-required-and-absent": (
        1,
        [
            f"{F}/m1.small.nicX.yaml:6:12: traits[1].trait: NICX is both required (line 4) and absent",
        ],
    ),
    "same-traits-twice": (
        0,
        [
            f"{F}/m1.small.nicX.yaml:1:7: name: warning: flavor 'm1.small.nicX' selects exactly the "
            f"nodes of 'm1.small.nic-x' ({F}/m1.small.nic-x.yaml:1): same resource class and traits",
        ],
    ),
    "nova-flavor-name": (
        1,
        [
            f"{F}/m1.small+nvme.yaml:1:7: name: 'm1.small+nvme' cannot be a Nova flavor id, which the "
            "name becomes: allowed are letters a-z and A-Z, digits, '.', '_', '-' and inner spaces, "
            "at most 255 characters (did you mean 'm1.small-nvme'?)",
        ],
    ),
    "projects-on-public": (
        1,
        [
            f"{F}/m1.small.nicX.yaml:7:3: projects: projects only apply to a private flavor: set "
            "is_public: false, or remove projects",
        ],
    ),
    "private-without-projects": (
        0,
        [
            f"{F}/m1.small.nicX.yaml:3:12: is_public: warning: a private flavor without projects can "
            "be used by admins only",
        ],
    ),
    "server-without-resource-class": (
        1,
        [
            f"{D}/hpe-proliant-dl360-gen11.yaml:1:1: resource_class: a server must define at least "
            "one resource class",
        ],
    ),
    "missing-required-key": (
        1,
        [
            f"{F}/m1.small.nicX.yaml:1:1: resource_class: required key is missing",
        ],
    ),
    "wrong-type": (
        1,
        [
            f"{D}/dell-poweredge-r7615.yaml:9:14: resource_class[0].cpu.cores: expected an integer, "
            "found the string '16'",
        ],
    ),
    "kustomization-outside-repository": (
        1,
        [
            "hardware/base/kustomization.yaml:4:3: resources: '/etc' is outside the repository; "
            "kustomize build refuses files that are not in or below the repository, and nothing "
            "there is read",
            "hardware/base/kustomization.yaml:16:5: configMapGenerator[flavors].files: "
            "'../../../../../../../../etc/passwd' is outside the repository; kustomize build "
            "refuses files that are not in or below the repository, and nothing there is read",
            "hardware/base/kustomization.yaml:19:5: configMapGenerator[host].files: "
            "'/etc/hostname' is outside the repository; kustomize build refuses files that are "
            "not in or below the repository, and nothing there is read",
        ],
    ),
    "kustomization-missing-file": (
        1,
        [
            "hardware/base/kustomization.yaml:14:5: configMapGenerator[flavors].files: "
            "'../flavors/m1.large.yaml' does not exist; kustomize build will fail",
        ],
    ),
    "trait-rule-outside-prefix": (
        1,
        [
            "hardware/trait-rules/nics.yaml:7:36: rules[0].add[1]: CUSTOM_FAST_NETWORK is outside "
            "this file's prefix CUSTOM_NIC_: a rule file may only set the traits it owns",
        ],
    ),
    "trait-rule-prefix-overlap": (
        1,
        [
            "hardware/trait-rules/nics.yaml:2:9: prefix: prefix CUSTOM_NIC overlaps CUSTOM_NIC_INTEL_ "
            "of trait rules 'nics-intel' (hardware/trait-rules/nics-intel.yaml:2); each trait has "
            "one owner",
        ],
    ),
    "flavor-extra-spec-reserved": (
        1,
        [
            f"{F}/m1.small.uefi.yaml:5:3: extra_specs.resources:VCPU: resources:VCPU is derived "
            "from the catalog (resource class, traits, ownership); it cannot be set by hand",
        ],
    ),
    "flavor-extra-spec-typo": (
        1,
        [
            f"{F}/m1.small.pinned.yaml:4:3: extra_specs.hw:cpu_polcy: hw:cpu_polcy is not a known "
            "key of namespace hw (did you mean 'hw:cpu_policy'?)",
        ],
    ),
    "flavor-extra-spec-bad-value": (
        1,
        [
            f"{F}/m1.small.uefi.yaml:4:27: extra_specs.capabilities:boot_mode: 'efi' is not one of "
            "'uefi', 'bios'",
        ],
    ),
    "extra-spec-pattern-not-re2": (
        1,
        [
            "hardware/extra-specs/site.yaml:5:37: validators[0].value.pattern: the pattern "
            "'([a-z]+),\\\\1' is not RE2 syntax (RE2 says \"invalid escape sequence: \\1\"); RE2 "
            "syntax is required (patterns run in linear time: no backreferences, no lookaround)",
        ],
    ),
    "undeclared-trait": (
        1,
        [
            f"{F}/m1.small.nvme.yaml:4:12: traits[0].trait: NMVE (CUSTOM_NMVE) is not declared: "
            "this catalog declares its custom traits under hardware/traits/, and every custom "
            "trait its files name must be one of them (did you mean 'NVME'?)",
        ],
    ),
    "standard-trait-typo": (
        1,
        [
            f"{F}/m1.small.avx512.yaml:4:12: traits[0].trait: HW_CPU_X86_AVX512FF is not a "
            "standard trait of os-traits 3.9.0 (did you mean 'HW_CPU_X86_AVX512F' or "
            "'HW_CPU_X86_AVX512PF'?); the traits list asks for CUSTOM_ traits: ask for a "
            "standard trait in extra_specs (trait:HW_CPU_X86_AVX512F: required), and for this "
            "name as a custom trait there too (trait:CUSTOM_HW_CPU_X86_AVX512FF: required)",
        ],
    ),
    "runbook-unknown-step": (
        1,
        [
            f"{R}/bios-reset.yaml:5:11: steps[0].step: bios.factory_rest is not a clean or "
            "service step of any known driver (did you mean 'factory_reset'?). Steps on bios: "
            "apply_configuration, cache_bios_settings, factory_reset (drivers: fake-hardware, "
            "redfish, idrac, ipmi, intel-ipmi, manual-management)",
        ],
    ),
    "runbook-arg-type": (
        1,
        [
            f"{R}/bios-reset.yaml:10:17: steps[1].args.settings: bios.apply_configuration's "
            "argument settings must be of type array, not object",
        ],
    ),
    "runbook-duplicate-order": (
        1,
        [
            f"{R}/bios-reset.yaml:11:12: steps[1].order: order 10 is already steps[0]'s: each "
            "step of a runbook has an order of its own",
        ],
    ),
    "unlisted-file": (
        0,
        [
            f"{F}/m1.small.nicX.yaml:1:1: file: warning: not listed in "
            "hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed",
        ],
    ),
}


def test_every_broken_example_is_covered() -> None:
    assert sorted(p.name for p in BROKEN.iterdir() if p.is_dir()) == sorted(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_broken_example(case: str, cli: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BROKEN / case)
    status, lines = EXPECTED[case]
    result = cli("validate")
    output = result.stdout.splitlines()
    assert output[:-1] == lines
    errors = sum(": warning: " not in line for line in lines)
    assert output[-1].endswith(
        f"{errors} error{'s' * (errors != 1)}, {len(lines) - errors} "
        f"warning{'s' * (len(lines) - errors != 1)}"
    )
    assert result.exit_code == status


def test_broken_example_as_json(cli: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BROKEN / "custom-prefix")
    result = cli("validate", "-f", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [
        {
            "path": f"{F}/m1.small.nicX.yaml",
            "line": 4,
            "column": 12,
            "field": "traits[0].trait",
            "severity": "error",
            "code": "trait-custom-prefix",
            "message": "'CUSTOM_NICX' would be sent as CUSTOM_CUSTOM_NICX: write NICX; "
            "CUSTOM_ is added for you",
        }
    ]


def test_example_repository_is_clean(cli: Invoke) -> None:
    """No pool leak either: without nodes the check is static, and says so."""
    result = cli("validate", "--repo", str(EXAMPLES))
    assert result.exit_code == 0
    assert result.stdout == "35 files: 0 errors, 0 warnings\n"


def test_example_repository_shape() -> None:
    from flavorsmith.catalog.repo import Repository

    catalog = Repository(EXAMPLES, RULES).load().catalog
    classes = {dt.device_class for dt in catalog.device_types}
    vendors = {dt.manufacturer for dt in catalog.device_types if dt.device_class == "server"}
    assert {"server", "switch", "firewall"} <= classes
    assert len(vendors) > 1
    assert len(catalog.flavors) >= 8
    small = [f for f in catalog.flavors if f.resource_class == "m1.small"]
    assert any(f.required_traits for f in small)
    assert any(f.forbidden_traits for f in small)
    assert any(len(f.traits) > 1 for f in small)
