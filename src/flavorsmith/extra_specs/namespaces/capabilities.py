"""capabilities: host state compared by Nova's ComputeCapabilitiesFilter, and Ironic's own keys."""

from __future__ import annotations

from flavorsmith.extra_specs.model import Parameter, Validator
from flavorsmith.extra_specs.registry import Namespace
from flavorsmith.extra_specs.value_rules import ENUM, STRING

NAMESPACES = [
    Namespace(
        "capabilities",
        "capabilities",
        "Host state the ComputeCapabilitiesFilter compares (with its operators: =, s==, <in>, ...).",
    )
]

# Plain host-state fields the filter can compare.
_FIELDS = (
    "id",
    "uuid",
    "service_id",
    "host",
    "vcpus",
    "memory_mb",
    "local_gb",
    "vcpus_used",
    "memory_mb_used",
    "local_gb_used",
    "hypervisor_type",
    "hypervisor_version",
    "hypervisor_hostname",
    "free_ram_mb",
    "free_disk_gb",
    "current_workload",
    "running_vms",
    "disk_available_least",
    "host_ip",
    "mapped",
    "cpu_allocation_ratio",
    "ram_allocation_ratio",
    "disk_allocation_ratio",
    "total_usable_ram_mb",
    "total_usable_disk_gb",
    "disk_mb_used",
    "free_disk_mb",
    "vcpus_total",
    "num_instances",
    "num_io_ops",
    "failed_builds",
    "aggregates",
    "cell_uuid",
    "updated",
)
# Structured fields, reached with further :sub:keys.
_NESTED = (
    "cpu_info",
    "metrics",
    "stats",
    "numa_topology",
    "supported_hv_specs",
    "pci_device_pools",
    "nodename",
    "pci_stats",
    "supported_instances",
    "limits",
    "instances",
)
_FILTER = Parameter("filter", r"(:\w+)*", "Optional :sub:keys into the structured field.")
_OPERATORS = "a filter expression: a value, or an operator (=, ==, !=, >=, <=, s==, <in>, <or>, ...) and operand"

VALIDATORS = [
    Validator(
        f"capabilities:{name}",
        f"Compare the host's {name} with {_OPERATORS}.",
        STRING(),
        drivers=("ComputeCapabilitiesFilter",),
    )
    for name in _FIELDS
] + [
    Validator(
        f"capabilities:{name}{{filter}}",
        f"Compare a value inside the host's {name} with {_OPERATORS}.",
        STRING(),
        parameters=(_FILTER,),
        drivers=("ComputeCapabilitiesFilter",),
    )
    for name in _NESTED
]

# Ironic reads these from instance_info at deploy time; Nova >= 2.86 does not know them.
IRONIC = [
    Validator(
        f"capabilities:{name}",
        f"{description} (Ironic).",
        ENUM(*values),
        drivers=("ironic",),
        extension="Ironic",
    )
    for name, description, values in (
        ("boot_mode", "Boot the bare-metal node in this firmware mode", ("uefi", "bios")),
        ("secure_boot", "Require UEFI secure boot on the bare-metal node", ("true", "false")),
        ("disk_label", "Partition table the deploy writes on the root disk", ("gpt", "msdos")),
    )
]
