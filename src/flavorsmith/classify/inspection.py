"""Ironic inspection data (the ironic-python-agent inventory) as typed, tolerant values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flavorsmith import jsonsafe
from flavorsmith.errors import Invalid

# Where the memory size came from: the agent's installed size (from lshw), else the kernel's
# MemTotal in bytes, which leaves out what firmware and the kernel reserve.
PHYSICAL_MB = "memory.physical_mb"
TOTAL = "memory.total"


@dataclass(frozen=True)
class Disk:
    name: str
    size_bytes: int
    rotational: bool
    model: str
    vendor: str
    tran: str  # lsblk's transport (usb, sata, sas, nvme, ...), IPA 11.2 and later
    by_path: str  # /dev/disk/by-path/..., names the bus (pci-...-usb-...) on older agents

    @property
    def size_gb(self) -> float:
        return self.size_bytes / 1e9

    @property
    def nvme(self) -> bool:
        return self.name.split("/")[-1].startswith("nvme")


@dataclass(frozen=True)
class Interface:
    name: str
    vendor: str  # hex id without 0x, lower case ("15b3"), or ""
    product: str
    driver: str
    speed_mbps: int | None


@dataclass(frozen=True)
class PciDevice:
    vendor: str
    product: str
    device_class: str


@dataclass(frozen=True)
class Inspection:
    manufacturer: str
    product: str
    cpu_model: str
    cpu_count: int  # logical CPUs (threads), as the agent reports them
    cpu_sockets: int  # cpu.socket_count (IPA 9.9 and later); 0 when not reported
    cpu_flags: frozenset[str]
    memory_mb: int
    memory_source: str  # PHYSICAL_MB, TOTAL, or "" when the inventory has neither
    disks: tuple[Disk, ...]
    interfaces: tuple[Interface, ...]
    pci: tuple[PciDevice, ...]


def hex_id(value: Any) -> str:
    text = str(value or "").strip().lower()
    return text[2:] if text.startswith("0x") else text


def parse(data: Any) -> Inspection:
    """From Ironic's stored inspection data ({inventory, plugin_data}) or a bare inventory.
    The rules every JSON document here is read with apply whoever parsed it (Ironic, for the
    inspection hook): nesting bounded, walked without recursion, before any field is read."""
    jsonsafe.check_value("inspection data", data)
    if not isinstance(data, dict):
        raise Invalid("Inspection data must be a JSON object (an inventory, or {inventory: ...})")
    inventory = data.get("inventory", data)
    plugin = data.get("plugin_data") or {}
    if not isinstance(inventory, dict) or not isinstance(plugin, dict):
        raise Invalid("'inventory' and 'plugin_data' must be objects")
    try:
        system = inventory.get("system_vendor") or {}
        cpu = inventory.get("cpu") or {}
        memory = inventory.get("memory") or {}
        if memory.get("physical_mb"):
            memory_mb, memory_source = int(memory["physical_mb"]), PHYSICAL_MB
        elif memory.get("total"):
            memory_mb, memory_source = int(memory["total"]) // 1024**2, TOTAL
        else:
            memory_mb, memory_source = 0, ""
        disks = tuple(
            Disk(
                str(d.get("name", "")),
                int(d.get("size") or 0),
                bool(d.get("rotational")),
                str(d.get("model") or "").strip(),
                str(d.get("vendor") or "").strip(),
                str(d.get("tran") or "").strip().lower(),
                str(d.get("by_path") or ""),
            )
            for d in inventory.get("disks") or []
        )
        interfaces = tuple(
            Interface(
                str(i.get("name", "")),
                hex_id(i.get("vendor")),
                hex_id(i.get("product")),
                str(i.get("driver") or ""),
                int(i["speed_mbps"]) if i.get("speed_mbps") else None,
            )
            for i in inventory.get("interfaces") or []
        )
        pci = tuple(
            PciDevice(
                hex_id(p.get("vendor_id")), hex_id(p.get("product_id")), hex_id(p.get("class"))
            )
            for p in plugin.get("pci_devices") or inventory.get("pci_devices") or []
        )
        return Inspection(
            manufacturer=str(system.get("manufacturer") or ""),
            product=str(system.get("product_name") or ""),
            cpu_model=str(cpu.get("model_name") or ""),
            cpu_count=int(cpu.get("count") or 0),
            cpu_sockets=int(cpu.get("socket_count") or 0),
            cpu_flags=frozenset(str(f) for f in cpu.get("flags") or []),
            memory_mb=memory_mb,
            memory_source=memory_source,
            disks=disks,
            interfaces=interfaces,
            pci=pci,
        )
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise Invalid(
            f"Inspection data is not in the ironic-python-agent inventory format: {exc}"
        ) from None
