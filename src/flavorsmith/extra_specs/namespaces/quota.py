"""quota: per-instance resource limits, shares and reservations (libvirt and VMware)."""

from __future__ import annotations

from flavorsmith.extra_specs.model import Validator
from flavorsmith.extra_specs.registry import Namespace
from flavorsmith.extra_specs.value_rules import ENUM, INT

NAMESPACES = [Namespace("quota", "quota", "Per-instance resource limits, shares and reservations.")]

_VMWARE_RESOURCES = {
    "cpu": "CPU, in MHz",
    "memory": "memory, in MB",
    "disk_io": "disk I/O, in IOPS",
    "vif": "network bandwidth, in Mbps",
}
_LIBVIRT = {
    "cpu_shares": "Relative CPU weight of the guest against its neighbours.",
    "cpu_period": "CPU bandwidth enforcement period, in microseconds.",
    "disk_read_bytes_sec": "Cap on disk read throughput, in bytes per second.",
    "disk_read_iops_sec": "Cap on disk read operations per second.",
    "disk_write_bytes_sec": "Cap on disk write throughput, in bytes per second.",
    "disk_write_iops_sec": "Cap on disk write operations per second.",
    "disk_total_bytes_sec": "Cap on total disk throughput, in bytes per second.",
    "disk_total_iops_sec": "Cap on total disk operations per second.",
    "vif_inbound_average": "Average inbound network rate, in KB per second.",
    "vif_inbound_peak": "Peak inbound network rate, in KB per second.",
    "vif_inbound_burst": "Inbound burst size, in KB.",
    "vif_outbound_average": "Average outbound network rate, in KB per second.",
    "vif_outbound_peak": "Peak outbound network rate, in KB per second.",
    "vif_outbound_burst": "Outbound burst size, in KB.",
}

VALIDATORS: list[Validator] = []
for _resource, _unit in _VMWARE_RESOURCES.items():
    VALIDATORS += [
        Validator(
            f"quota:{_resource}_limit",
            f"Upper limit on {_unit}.",
            INT(minimum=0),
            drivers=("vmware",),
        ),
        Validator(
            f"quota:{_resource}_reservation", f"Guaranteed {_unit}.", INT(), drivers=("vmware",)
        ),
        Validator(
            f"quota:{_resource}_shares_level",
            f"Share level for {_unit.split(',')[0]}: custom takes the number from the _share key.",
            ENUM("custom", "high", "normal", "low"),
            drivers=("vmware",),
        ),
        Validator(
            f"quota:{_resource}_shares_share",
            f"Number of shares for {_unit.split(',')[0]} when the level is custom.",
            INT(minimum=0),
            drivers=("vmware",),
            depends_on=(f"quota:{_resource}_shares_level",),
        ),
    ]
for _key, _text in _LIBVIRT.items():
    VALIDATORS.append(Validator(f"quota:{_key}", _text, INT(minimum=0), drivers=("libvirt",)))
    if _key == "cpu_period":
        VALIDATORS.append(
            Validator(
                "quota:cpu_quota",
                "CPU time the guest may use in each period, in microseconds (negative: no limit).",
                INT(),
                drivers=("libvirt",),
                depends_on=("quota:cpu_period",),
            )
        )
