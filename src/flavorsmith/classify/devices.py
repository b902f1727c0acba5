"""Device-type matching: which catalog resource class an inspected node is (pure).

Every candidate (device type x resource class) is checked field by field; exactly one full
match decides. No match and several matches are results too, with every failed field listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flavorsmith.catalog.model import DeviceType, ResourceClass
from flavorsmith.classify import cores, vendors
from flavorsmith.classify.inspection import PHYSICAL_MB, TOTAL, Disk, Inspection
from flavorsmith.cpu_brands import cores_per_socket

MEMORY_TOLERANCE = 0.03  # firmware reserves a little; DIMM sizes differ by far more
# memory.total is the kernel's MemTotal: installed memory less what firmware (ACPI, PCI holes,
# the BMC's shared memory) and the kernel (its image, memmap, crashkernel) keep; 2-4 % under
# nominal on servers, 5 % with a large crashkernel reservation. 6 % under accepts that and still
# refuses one missing DIMM of sixteen (6.25 %); with more DIMMs only memory.physical_mb can tell.
# It is never more than what is installed, so over keeps the physical window.
KERNEL_MEMORY_UNDER = 0.06
DRIVE_TOLERANCE = 0.03  # "480 GB" drives report 479,559,942,144 bytes
MIN_DISK_BYTES = 4 * 1000**3  # smaller devices are virtual media and boot modules, not drives


@dataclass(frozen=True)
class Check:
    field: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class Candidate:
    device_type: str
    resource_class: str
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]


@dataclass(frozen=True)
class DeviceMatch:
    outcome: str  # "matched", "no-match", "ambiguous"
    device_type: str | None
    resource_class: str | None
    candidates: tuple[Candidate, ...]

    @property
    def summary(self) -> str:
        if self.outcome == "matched":
            return f"device type {self.device_type}, resource class {self.resource_class}"
        if self.outcome == "ambiguous":
            names = ", ".join(
                f"{c.resource_class} ({c.device_type})" for c in self.candidates if c.ok
            )
            return f"ambiguous: matches {names}; make the device types distinguishable"
        return "no device type matches; see each candidate's failed fields"


def match_device(inspection: Inspection, device_types: Sequence[DeviceType]) -> DeviceMatch:
    candidates = tuple(
        Candidate(dt.slug, rc.name, _checks(inspection, dt, rc))
        for dt in device_types
        if dt.device_class == "server"
        for rc in dt.resource_classes
    )
    matched = [c for c in candidates if c.ok]
    if len(matched) == 1:
        return DeviceMatch("matched", matched[0].device_type, matched[0].resource_class, candidates)
    return DeviceMatch("ambiguous" if matched else "no-match", None, None, candidates)


def _checks(inspection: Inspection, dt: DeviceType, rc: ResourceClass) -> tuple[Check, ...]:
    return (
        _manufacturer(inspection, dt),
        _model(inspection, dt),
        _cpu_model(inspection, rc),
        _cores(inspection, rc),
        _memory(inspection, rc),
        _drives(inspection, rc),
    )


def _manufacturer(inspection: Inspection, dt: DeviceType) -> Check:
    ok = vendors.manufacturer(inspection.manufacturer) == vendors.manufacturer(dt.manufacturer)
    verb = "is" if ok else "is not"
    return Check("manufacturer", ok, f"{inspection.manufacturer!r} {verb} {dt.manufacturer!r}")


def _model(inspection: Inspection, dt: DeviceType) -> Check:
    ok = vendors.model(inspection.product) == vendors.model(dt.model)
    verb = "is" if ok else "is not"
    return Check("model", ok, f"{inspection.product!r} {verb} {dt.model!r}")


def _cpu_model(inspection: Inspection, rc: ResourceClass) -> Check:
    ok = vendors.cpu_model_matches(rc.cpu_model, inspection.cpu_model)
    verb = "names" if ok else "does not name"
    return Check("cpu.model", ok, f"{inspection.cpu_model!r} {verb} {rc.cpu_model!r}")


def _cores(inspection: Inspection, rc: ResourceClass) -> Check:
    count = inspection.cpu_count
    if count <= 0:
        return Check(
            "cpu.cores",
            False,
            "the inventory lacks the CPU count (inventory.cpu.count), so the cores cannot be "
            f"checked; the catalog says {rc.cpu_cores}",
        )
    per_socket = cores_per_socket(inspection.cpu_model)
    if per_socket is None:
        return _cores_from_threads(count, rc)
    reading = cores.read(count, per_socket, inspection.cpu_sockets)
    if isinstance(reading, str):
        return Check("cpu.cores", False, f"{reading}; the catalog says {rc.cpu_cores}")
    if reading.cores == rc.cpu_cores:
        return Check("cpu.cores", True, reading.describe())
    detail = f"{reading.describe()}; the catalog says {rc.cpu_cores}"
    if rc.cpu_cores == count and reading.threads > 1:
        detail += ", the number of logical CPUs: declare physical cores"
    return Check("cpu.cores", False, detail)


def _cores_from_threads(count: int, rc: ResourceClass) -> Check:
    """The model string does not say its cores (Intel's do not): threads per core, 2 or 1,
    whichever gives the catalog's cores."""
    for threads in cores.THREADS_PER_CORE:
        if count % threads or count // threads != rc.cpu_cores:
            continue
        return Check(
            "cpu.cores",
            True,
            f"{count // threads} cores from threads per core: {count} logical CPUs at {threads} "
            "thread(s) per core (the model string does not say)",
        )
    options = " or ".join(f"{count // t} ({t} thread(s) per core)" for t in (2, 1) if not count % t)
    return Check(
        "cpu.cores",
        False,
        f"{count} logical CPUs give {options} cores; the catalog says {rc.cpu_cores}",
    )


def _memory(inspection: Inspection, rc: ResourceClass) -> Check:
    have, want = inspection.memory_mb, rc.memory_mb
    if inspection.memory_source == TOTAL:
        under, over = KERNEL_MEMORY_UNDER, MEMORY_TOLERANCE
        window = f"within {under:.0%} under or {over:.0%} over"
        figure = f"{TOTAL}; the inventory has no {PHYSICAL_MB}"
    elif inspection.memory_source == PHYSICAL_MB:
        under = over = MEMORY_TOLERANCE
        window = f"within {MEMORY_TOLERANCE:.0%} of"
        figure = PHYSICAL_MB
    else:
        return Check(
            "memory.size",
            False,
            f"the inventory has neither {PHYSICAL_MB} nor {TOTAL}; the catalog says {want} MB",
        )
    ok = want * (1 - under) <= have <= want * (1 + over)
    verb = "is" if ok else "is not"
    return Check("memory.size", ok, f"{have} MB ({figure}) {verb} {window} {want} MB")


def _expected_disks(rc: ResourceClass) -> tuple[list[float], str]:
    drives = list(rc.drives_gb)
    if rc.raid_level is None or not drives:
        return [float(d) for d in drives], ""
    smallest = min(drives)
    n = len(drives)
    size = {
        "0": float(sum(drives)),
        "1": float(smallest),
        "5": float((n - 1) * smallest),
        "6": float((n - 2) * smallest),
        "10": float(n // 2 * smallest),
    }[rc.raid_level]
    return [
        size
    ], f"RAID {rc.raid_level} of {n} x {smallest} GB appears as one {size:g} GB virtual disk"


def _not_a_drive(disk: Disk) -> str | None:
    """Why a block device is no drive of the resource class, or None when it is one.

    The agent reports no removable flag: USB (virtual media, IDSDM and vFlash modules, sticks)
    shows in lsblk's transport or, from older agents, in the by-path name; SD and eMMC cards
    are mmcblk devices."""
    if disk.tran == "usb" or "-usb-" in disk.by_path:
        return "USB"
    if disk.name.split("/")[-1].startswith("mmcblk"):
        return "SD/MMC card"
    if disk.size_bytes < MIN_DISK_BYTES:
        return f"under {MIN_DISK_BYTES / 1e9:.0f} GB"
    return None


def _left_out(disks: Sequence[Disk]) -> str:
    shown = []
    for disk in disks:
        what = " ".join(x for x in (f"{disk.size_gb:.0f} GB", disk.vendor, disk.model) if x)
        shown.append(f"{disk.name} ({what}, {_not_a_drive(disk)})")
    return f"; left out: {', '.join(shown)}" if shown else ""


def _drives(inspection: Inspection, rc: ResourceClass) -> Check:
    seen = sorted(d.size_gb for d in inspection.disks if _not_a_drive(d) is None)
    want, raid = _expected_disks(rc)
    want.sort()
    shown = ", ".join(f"{s:.0f}" for s in seen) or "none"
    wanted = ", ".join(f"{w:g}" for w in want) or "none (diskless)"
    ok = len(seen) == len(want) and all(
        abs(s - w) <= DRIVE_TOLERANCE * w for s, w in zip(seen, want, strict=True)
    )
    detail = f"disks of {shown} GB {'match' if ok else 'do not match'} {wanted} GB"
    if raid:
        detail += f" ({raid})"
    elif not ok and len(seen) == 1 and len(want) > 1:
        detail += (
            "; one disk where several drives are expected: a RAID virtual disk? declare raid_level"
        )
    detail += _left_out([d for d in inspection.disks if _not_a_drive(d) is not None])
    return Check("drives", ok, detail)
