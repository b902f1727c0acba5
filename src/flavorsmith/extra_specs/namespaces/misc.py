"""accel, pci_passthrough, aggregate_instance_extra_specs, vmware, os, and the bare keys."""

from __future__ import annotations

from flavorsmith.extra_specs.model import Parameter, Validator
from flavorsmith.extra_specs.registry import Namespace
from flavorsmith.extra_specs.value_rules import BOOL, ENUM, PATTERN, STRING, pci_alias

NAMESPACES = [
    Namespace("accel", "accel", "Accelerators requested through Cyborg."),
    Namespace(
        "aggregate_instance_extra_specs",
        "aggregate_instance_extra_specs",
        "Host-aggregate metadata the AggregateInstanceExtraSpecsFilter compares.",
    ),
    Namespace("os", "os", "Guest operating-system features."),
    Namespace(
        "pci_passthrough", "pci_passthrough", "Host PCI devices passed through to the guest."
    ),
    Namespace("vmware", "vmware", "VMware vCenter driver settings."),
]

VALIDATORS = [
    Validator(
        "accel:device_profile",
        "Cyborg device profile (a 'flavor for devices') to attach.",
        STRING(),
    ),
    Validator(
        "aggregate_instance_extra_specs:{key}",
        "Aggregate metadata {key} must satisfy this value, or an operator expression "
        "(=, ==, !=, >=, <=, s==, s!=, <in>, <all-in>, <or>).",
        STRING(),
        parameters=(Parameter("key", ".+", "The aggregate metadata key."),),
        drivers=("AggregateInstanceExtraSpecsFilter",),
    ),
    Validator(
        "os:secure_boot",
        "Require UEFI secure boot for the guest.",
        ENUM("disabled", "required"),
        drivers=("libvirt", "hyperv"),
    ),
    Validator(
        "pci_passthrough:alias",
        "PCI aliases and how many of each, e.g. gpu:2,nic:1.",
        PATTERN(r"[^:]+:\d+(?:\s*,\s*[^:]+:\d+)*", check=pci_alias),
    ),
    Validator(
        "vmware:hw_version",
        "Virtual hardware version for VMware guests.",
        STRING(),
        drivers=("vmware",),
    ),
    Validator(
        "vmware:storage_policy",
        "vSphere storage policy for the guest's disks.",
        STRING(),
        drivers=("vmware",),
    ),
    Validator(
        "hide_hypervisor_id",
        "Hide the hypervisor signature from the guest.",
        BOOL(),
        deprecated=True,
        replacement="hw:hide_hypervisor_id",
        drivers=("libvirt",),
    ),
    Validator(
        "group_policy",
        "How Placement spreads numbered request groups: isolate them on "
        "separate providers, or not.",
        ENUM("isolate", "none"),
    ),
]
