"""The pairs of the parity corpus: every validator with valid and invalid values, unknown
keys and unregistered ones. The committed parity.jsonl holds them with Nova 34.0.0's verdict
(``nova.api.validation.extra_specs.validators.validate``), os-traits 3.9, os-resource-classes
1.1. Regenerate the pairs with ``python -m tests.extra_specs.corpus > pairs.jsonl``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

from flavorsmith.extra_specs.builtin import nova_validators
from flavorsmith.extra_specs.model import Validator

INTS = [
    "0",
    "1",
    "-1",
    "16",
    " 7 ",
    "+3",
    "1_000",
    "abc",
    "",
    "1.5",
    "\u0663",
    "99999999999999999999",
    "0x10",
]
BOOLS = [
    "true",
    "True",
    " yes ",
    "no",
    "1",
    "0",
    "t",
    "F",
    "on",
    "OFF",
    "maybe",
    "",
    "2",
    "TRUE",
    "y",
]
STRINGS = ["x", "", "any value at all", "=1", "<in> a"]
PATTERNS = {
    "hw:cpu_realtime_mask": [
        "^0-1",
        "0-3",
        "^0",
        "0,2-3",
        "^0-1,^3",
        "1-",
        "a",
        "",
        "0-3,",
        "^",
        "0--1",
        "0,^1-2,4",
    ],
    "hw:cpu_dedicated_mask": [
        "^0-1",
        "0-3",
        "0,2-3",
        "^0-1,^3",
        "1-",
        "a",
        "",
        "0-3,",
        "2",
        "0-1-2",
    ],
    "hw:numa_cpus.{num}": ["0-3", "0,1", "^0", "0-1,^1", "", "x", "0-", "1,2,3,4"],
    "hw:mem_page_size": [
        "large",
        "small",
        "any",
        "2048",
        "2MB",
        "1GiB",
        "2Mb",
        "4k",
        "4kbit",
        "huge",
        "",
        "2 MB",
        "1Ti",
    ],
    "hw:pmem": ["SMALL", "a,b", "a,b,", "a,,b", ",a", "", "label_1,LABEL2", "a-b", "a b"],
    "pci_passthrough:alias": [
        "gpu:1",
        "a:1,b:2",
        "a:1, b:2",
        "a:1 ,b:2",
        "a:b",
        ":1",
        "a:",
        "a:1,",
        "a b:2",
        "a:1:2",
        "gpu: 1",
        "x,y:1",
    ],
}


def values(validator: Validator) -> list[str]:
    rule = validator.value
    if validator.name in PATTERNS:
        return PATTERNS[validator.name]
    if rule.kind == "int":
        extra = []
        for bound in (rule.minimum, rule.maximum):
            if bound is not None:
                extra += [str(bound - 1), str(bound), str(bound + 1)]
        return INTS + extra
    if rule.kind == "bool":
        return BOOLS
    if rule.kind == "enum":
        out: list[str] = []
        for choice in rule.choices:
            out += [choice, choice.upper(), f" {choice}"]
        return [*out, "", "bogus"]
    return STRINGS


def keys(validator: Validator) -> list[str]:
    name = validator.name
    if name.startswith(("trait{group}", "resources{group}")):
        base = name.replace("{group}", "")
        if base.endswith("CUSTOM_{trait}") or base.endswith("CUSTOM_{resource}"):
            stem = base.split("CUSTOM_")[0]
            return [
                stem + "CUSTOM_FOO",
                stem + "CUSTOM_9",
                stem.replace(":", "1:") + "CUSTOM_BAR",
                stem + "CUSTOM_",
            ]
        return [base, base.replace(":", "_gpu:", 1)]
    if "{num}" in name:
        return [
            name.replace("{num}", "0"),
            name.replace("{num}", "12"),
            name.replace(".{num}", "X1"),
        ]
    if "{filter}" in name:
        return [
            name.replace("{filter}", ""),
            name.replace("{filter}", ":a:b"),
            name.replace("{filter}", ":a-b"),
        ]
    if "{key}" in name:
        return [name.replace("{key}", "pool"), name.replace("{key}", "a:b")]
    return [name]


EXTRA_KEYS = [
    "hw:cpu_polcy",
    "hw:foo",
    "hw:",
    "hw_rng:foo",
    "hw_video:ram",
    "quota:foo",
    "os:foo",
    "capabilities:boot_mode",
    "capabilities:secure_boot",
    "capabilities:disk_label",
    "capabilities:nope",
    "trait:FOO",
    "trait:custom_foo",
    "resources:FOO",
    "resources:vcpu",
    "accel:foo",
    "vmware:foo",
    "aggregate_instance_extra_specs:",
    "pci_passthrough:aliases",
    "foo",
    "bogus:x",
    "my:ns:key",
    "hw_foo:x",
    "flavorsmith:managed",
    "hide_hypervisor_id",
    "trait.x:FOO",
    "trait$:HW_CPU_X86_AVX2",
    "resources.1:VCPU",
    "trait" + "a" * 65 + ":CUSTOM_X",
    "resources" + "b" * 64 + ":VCPU",
    "trait-:CUSTOM_X",
    "traits:HW_CPU_X86_AVX2",
    "HW:cpu_policy",
    "hw:cpu_policy ",
    " hw:cpu_policy",
    "group_policy",
    "group_policy:x",
]


def pairs() -> Iterator[dict[str, str]]:
    for validator in nova_validators():
        for key in keys(validator):
            for value in values(validator):
                yield {"key": key, "value": value}
    for key in EXTRA_KEYS:
        for value in ["required", "1", "true", "uefi", "x", ""]:
            yield {"key": key, "value": value}


if __name__ == "__main__":
    seen = set()
    for pair in pairs():
        marker = (pair["key"], pair["value"])
        if marker not in seen:
            seen.add(marker)
            sys.stdout.write(json.dumps(pair) + "\n")
