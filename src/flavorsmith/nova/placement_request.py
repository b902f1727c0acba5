"""The Placement request Nova 34 builds from a derived flavor: ``GET /allocation_candidates``.

Read from Nova 34's own code, for a boot with no image properties and no ports:
``nova/scheduler/utils.py`` (``ResourceRequest.from_request_spec``: the flavor's extra specs,
the CPU pinning translation, the flavor's vcpus/ram/disk, the implicit translations, zero
stripping, ``to_querystring``), ``nova/objects/request_spec.py`` (``RequestGroup``: what an
extra spec may hold, ``to_queryparams``), ``nova/virt/hardware.py`` (how each ``hw:``/``os:``
spec is read and when it is refused), ``nova/scheduler/request_filter.py`` (the request
filters the scheduler runs first, at their default configuration) and
``nova/scheduler/client/report.py`` (the microversion). Pure: no I/O, never raises on bad
extra specs (each becomes a note on the request).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlencode

import os_resource_classes

from flavorsmith.nova.derive import DerivedFlavor
from flavorsmith.query_values import TRUE_WORDS
from flavorsmith.resource_classes import placement_name

# report.py: get_allocation_candidates asks at SAME_SUBTREE_VERSION.
MICROVERSION = "1.36"
# [scheduler]max_placement_results, Nova's default.
MAX_PLACEMENT_RESULTS = 1000

# ResourceRequest.XS_KEYPAT
_KEY = re.compile(r"^(resources|trait)([a-zA-Z0-9_-]{1,64})?:(.*)$")

_CPU_POLICIES = ("dedicated", "shared", "mixed")
_THREAD_POLICIES = ("prefer", "isolate", "require")
_EMULATOR_POLICIES = ("share", "isolate")
_SECURE_BOOT = ("required", "disabled", "optional")
_MAXPHYSADDR = {
    "passthrough": "COMPUTE_ADDRESS_SPACE_PASSTHROUGH",
    "emulate": "COMPUTE_ADDRESS_SPACE_EMULATED",
}
_TPM_VERSIONS = {"1.2": "COMPUTE_SECURITY_TPM_1_2", "2.0": "COMPUTE_SECURITY_TPM_2_0"}
_TPM_MODELS = {"tpm-tis": "COMPUTE_SECURITY_TPM_TIS", "tpm-crb": "COMPUTE_SECURITY_TPM_CRB"}
_TPM_SECRET_SECURITY = {
    "user": "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER",
    "host": "COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST",
    "deployment": "COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT",
}
# hardware.MemEncryptionConfig*: the trait each model requires, and whether it needs
# stateless firmware (the image property hw_firmware_stateless, itself a trait).
_MEM_ENCRYPTION = {
    "amd-sev": ("HW_CPU_X86_AMD_SEV", False),
    "amd-sev-es": ("HW_CPU_X86_AMD_SEV_ES", False),
    "amd-sev-snp": ("HW_CPU_X86_AMD_SEV_SNP", True),
    "intel-tdx": ("HW_CPU_X86_INTEL_TDX", True),
}
_PCI_NUMA = ("required", "legacy", "preferred", "socket")
_SOUND_MODELS = ("sb16", "es1370", "pcspk", "ac97", "ich6", "ich9", "usb", "virtio")
_EPHEMERAL_FORMATS = ("plain", "luks", "luksv2")

# Extra specs whose request groups come from another service's data (not modelled here).
_UNMODELLED = {
    "accel:device_profile": (
        "accel:device_profile adds Cyborg's device-profile request groups, read from Cyborg"
    ),
    "pci_passthrough:alias": (
        "pci_passthrough:alias adds PCI request groups when [filter_scheduler]"
        "pci_in_placement is set, read from the PCI alias configuration"
    ),
}


@dataclass(frozen=True)
class RequestGroup:
    """One request group: ``suffix`` "" is the unsuffixed group (resources may come from
    several providers of a tree), any other is a numbered group (one provider)."""

    suffix: str = ""
    resources: Mapping[str, int] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    forbidden: frozenset[str] = frozenset()
    # Each set: at least one of these traits (Placement 1.39's "required=in:A,B").
    any_of: tuple[frozenset[str], ...] = ()
    # Each set: member of at least one of these aggregates ("member_of=in:...").
    member_of: tuple[frozenset[str], ...] = ()
    forbidden_aggregates: frozenset[str] = frozenset()

    def params(self) -> list[tuple[str, str]]:
        """This group's query parameters as Nova's RequestGroup.to_queryparams writes them
        (``resources`` is always there, empty when the group has none)."""
        s = self.suffix
        out = [(f"resources{s}", ",".join(sorted(f"{rc}:{n}" for rc, n in self.resources.items())))]
        traits = ",".join(sorted(self.required) + [f"!{t}" for t in sorted(self.forbidden)])
        if traits:
            out.append((f"required{s}", traits))
        out.extend(sorted((f"required{s}", "in:" + ",".join(sorted(a))) for a in self.any_of))
        out.extend(sorted((f"member_of{s}", "in:" + ",".join(sorted(a))) for a in self.member_of))
        if self.forbidden_aggregates:
            out.append((f"member_of{s}", "!in:" + ",".join(sorted(self.forbidden_aggregates))))
        return out

    @property
    def empty(self) -> bool:
        return not (
            self.resources
            or self.required
            or self.forbidden
            or self.any_of
            or self.member_of
            or self.forbidden_aggregates
        )


@dataclass(frozen=True)
class PlacementRequest:
    """What Nova asks Placement for one boot of a flavor.

    ``refused``: why Nova refuses the boot before it asks Placement (the groups then say what
    it would ask once the cause is fixed); ``ignored``: extra specs Nova skips with a warning;
    ``unmodelled``: what depends on data this request cannot see."""

    groups: tuple[RequestGroup, ...] = ()
    group_policy: str | None = None
    root_required: frozenset[str] = frozenset()
    root_forbidden: frozenset[str] = frozenset()
    limit: int | None = MAX_PLACEMENT_RESULTS
    microversion: str = MICROVERSION
    refused: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    unmodelled: tuple[str, ...] = ()

    def query(self, limit: bool = True) -> list[tuple[str, str]]:
        """The query parameters, sorted as ResourceRequest.to_querystring sorts them
        (``limit=False`` leaves out ``limit``: every candidate)."""
        params: list[tuple[str, str]] = []
        if limit and self.limit is not None:
            params.append(("limit", str(self.limit)))
        if self.group_policy is not None:
            params.append(("group_policy", self.group_policy))
        if self.root_required or self.root_forbidden:
            root = sorted(self.root_required) + [f"!{t}" for t in sorted(self.root_forbidden)]
            params.append(("root_required", ",".join(root)))
        for group in self.groups:
            params.extend(group.params())
        return sorted(params)

    def querystring(self, limit: bool = True) -> str:
        return urlencode(self.query(limit))

    def group(self, suffix: str) -> RequestGroup | None:
        for group in self.groups:
            if group.suffix == suffix:
                return group
        return None

    @property
    def numbered(self) -> tuple[RequestGroup, ...]:
        return tuple(g for g in self.groups if g.suffix)

    def merged_resources(self) -> dict[str, int]:
        merged: dict[str, int] = {}
        for group in self.groups:
            for rc, amount in group.resources.items():
                merged[rc] = merged.get(rc, 0) + amount
        return merged


class _Refused(Exception):
    """Nova raises: the boot fails before Placement is asked."""


class _Builder:
    """ResourceRequest's mutable state while the flavor is read."""

    def __init__(self) -> None:
        self.resources: dict[str, dict[str, int]] = {}
        self.required: dict[str, set[str]] = {}
        self.forbidden: dict[str, set[str]] = {}
        self.order: list[str] = []
        self.group_policy: str | None = None
        self.root_required: set[str] = set()
        self.root_forbidden: set[str] = set()
        self.refused: list[str] = []
        self.ignored: list[str] = []
        self.unmodelled: list[str] = []

    def _group(self, suffix: str) -> None:
        if suffix not in self.order:
            self.order.append(suffix)
            self.resources[suffix] = {}
            self.required[suffix] = set()
            self.forbidden[suffix] = set()

    def add_resource(self, rc: str, amount: object, suffix: str = "", key: str = "") -> None:
        """RequestGroup.add_resource: a known class and a non-negative integer, else skipped."""
        self._group(suffix)
        if not (rc.startswith(os_resource_classes.CUSTOM_NAMESPACE) or rc in _STANDARD_RCS):
            self.ignored.append(
                f"{key or rc}: {rc!r} is neither a standard resource class nor CUSTOM_*; "
                "Nova ignores it"
            )
            return
        try:
            value = int(amount)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            value = -1
        if value < 0:
            self.ignored.append(
                f"{key or rc}: amount {amount!r} is not a non-negative integer; Nova ignores it"
            )
            return
        self.resources[suffix][rc] = value

    def add_trait(self, trait: str, state: str, suffix: str = "", key: str = "") -> None:
        """RequestGroup.add_trait: 'required' or 'forbidden', else skipped."""
        self._group(suffix)
        if state == "required":
            self.required[suffix].add(trait)
        elif state == "forbidden":
            self.forbidden[suffix].add(trait)
        else:
            self.ignored.append(
                f"{key or trait}: {state!r} is neither 'required' nor 'forbidden'; Nova ignores it"
            )

    def merged(self) -> dict[str, int]:
        merged: dict[str, int] = {}
        for suffix in self.order:
            for rc, amount in self.resources[suffix].items():
                merged[rc] = merged.get(rc, 0) + amount
        return merged

    def build(self) -> PlacementRequest:
        groups = []
        for suffix in self.order:
            group = RequestGroup(
                suffix=suffix,
                resources={rc: n for rc, n in self.resources[suffix].items() if n},
                required=frozenset(self.required[suffix]),
                forbidden=frozenset(self.forbidden[suffix]),
            )
            if not group.empty:
                groups.append(group)
        return PlacementRequest(
            groups=tuple(groups),
            group_policy=self.group_policy,
            root_required=frozenset(self.root_required),
            root_forbidden=frozenset(self.root_forbidden),
            refused=tuple(self.refused),
            ignored=tuple(self.ignored),
            unmodelled=tuple(self.unmodelled),
        )


_STANDARD_RCS = frozenset(os_resource_classes.STANDARDS)


def _true(value: str | None) -> bool:
    """oslo_utils.strutils.bool_from_string (strict=False): everything else is False."""
    return value is not None and str(value).strip().lower() in TRUE_WORDS


def parse_cpu_spec(spec: str) -> set[int]:
    """hardware.parse_cpu_spec: "0-3,^2,5" -> {0, 1, 3, 5}; _Refused when malformed."""
    chosen: set[int] = set()
    rejected: set[int] = set()
    for raw in spec.split(","):
        rule = raw.strip()
        if not rule:
            continue
        parts = rule.split("-", 1)
        if len(parts) > 1:
            reject = bool(parts[0]) and parts[0][0] == "^"
            if reject:
                parts[0] = parts[0][1:]
            try:
                start, end = (int(p.strip()) for p in parts)
            except ValueError:
                raise _Refused(f"invalid CPU range {rule!r}") from None
            if start > end:
                raise _Refused(f"invalid CPU range {rule!r}")
            (rejected if reject else chosen).update(range(start, end + 1))
        elif rule[0] == "^":
            try:
                rejected.add(int(rule[1:].strip()))
            except ValueError:
                raise _Refused(f"invalid CPU exclusion {rule!r}") from None
        else:
            try:
                chosen.add(int(rule))
            except ValueError:
                raise _Refused(f"invalid CPU number {rule!r}") from None
    return chosen - rejected


def _mask(spec: str, vcpus: int) -> set[int]:
    if spec.strip().startswith("^"):
        return parse_cpu_spec(f"0-{vcpus - 1},{spec}")
    return parse_cpu_spec(spec)


def _emulator_policy(specs: Mapping[str, str]) -> str | None:
    policy = specs.get("hw:emulator_threads_policy")
    if not policy:
        return None
    if policy not in _EMULATOR_POLICIES:
        raise _Refused(
            f"hw:emulator_threads_policy {policy!r} is not one of {', '.join(_EMULATOR_POLICIES)}"
        )
    return policy


def _pinning(b: _Builder, specs: Mapping[str, str], vcpus: int) -> None:
    """ResourceRequest._translate_pinning_policies."""
    policy = specs.get("hw:cpu_policy") or None
    if policy is not None and policy not in _CPU_POLICIES:
        raise _Refused(f"hw:cpu_policy {policy!r} is not one of {', '.join(_CPU_POLICIES)}")
    thread = specs.get("hw:cpu_thread_policy") or None
    if thread is not None and thread not in _THREAD_POLICIES:
        raise _Refused(
            f"hw:cpu_thread_policy {thread!r} is not one of {', '.join(_THREAD_POLICIES)}"
        )
    emulator = _emulator_policy(specs)
    pcpus = 0
    if policy == "dedicated":
        pcpus = vcpus
    if policy == "mixed":
        dedicated: set[int] = set()
        mask = specs.get("hw:cpu_dedicated_mask")
        if mask:
            dedicated = _mask(mask, vcpus)
            if not dedicated or not set(range(vcpus)) - dedicated:
                raise _Refused("hw:cpu_dedicated_mask leaves no dedicated or no shared vCPU")
            if not dedicated <= set(range(vcpus)):
                raise _Refused("hw:cpu_dedicated_mask names vCPUs the flavor does not have")
        elif _true(specs.get("hw:cpu_realtime")):
            rt_mask = specs.get("hw:cpu_realtime_mask")
            dedicated = _mask(rt_mask, vcpus) if rt_mask else set(range(vcpus))
            if not dedicated or (dedicated == set(range(vcpus)) and not emulator):
                raise _Refused("hw:cpu_realtime_mask is missing or invalid")
            if not dedicated <= set(range(vcpus)):
                raise _Refused("hw:cpu_realtime_mask names vCPUs the flavor does not have")
        pcpus = len(dedicated)
        b.add_resource("VCPU", vcpus - pcpus)
    if policy in ("dedicated", "mixed"):
        if emulator == "isolate":
            pcpus += 1
        b.add_resource("PCPU", pcpus)
    state = {"isolate": "forbidden", "require": "required"}.get(thread or "")
    if state:
        b.add_trait("HW_CPU_HYPERTHREADING", state)


def _mem_encryption(b: _Builder, specs: Mapping[str, str]) -> None:
    """ResourceRequest._translate_mem_encryption_request, for a boot with no image."""
    if not _true(specs.get("hw:mem_encryption")):
        return
    model = specs.get("hw:mem_encryption_model") or "amd-sev"
    if model not in _MEM_ENCRYPTION:
        raise _Refused(
            f"hw:mem_encryption_model {model!r} is not one of {', '.join(_MEM_ENCRYPTION)}"
        )
    trait, stateless = _MEM_ENCRYPTION[model]
    b.add_resource("MEM_ENCRYPTION_CONTEXT", 1)
    b.add_trait(trait, "required")
    needs = "hw_firmware_type=uefi"
    if stateless:
        # The image's hw_firmware_stateless adds its own trait.
        b.add_trait("COMPUTE_SECURITY_STATELESS_FIRMWARE", "required")
        needs += " and hw_firmware_stateless=true"
    if model == "intel-tdx":
        needs += " and hw_video_model=none"
    b.refused.append(
        f"hw:mem_encryption: Nova refuses the boot unless the image sets {needs} "
        "(this request is what Nova asks once it does)"
    )


def _vpmems(b: _Builder, specs: Mapping[str, str]) -> None:
    """ResourceRequest._translate_vpmems_request."""
    labels = [label.strip() for label in (specs.get("hw:pmem") or "").split(",") if label.strip()]
    counts: dict[str, int] = {}
    for label in labels:
        rc = placement_name("PMEM_NAMESPACE_" + label)
        counts[rc] = counts.get(rc, 0) + 1
    for rc, amount in counts.items():
        b.add_resource(rc, amount, key="hw:pmem")


def _vtpm(specs: Mapping[str, str]) -> tuple[str, str] | None:
    """hardware.get_vtpm_constraint: (version, model) or None."""
    version = specs.get("hw:tpm_version") or None
    if version is None:
        return None
    if version not in _TPM_VERSIONS:
        raise _Refused(f"hw:tpm_version {version!r} is not one of {', '.join(_TPM_VERSIONS)}")
    model = specs.get("hw:tpm_model") or None
    if model is None:
        model = "tpm-tis"
    elif model not in _TPM_MODELS:
        raise _Refused(f"hw:tpm_model {model!r} is not one of {', '.join(_TPM_MODELS)}")
    elif model == "tpm-crb" and version != "2.0":
        raise _Refused("hw:tpm_model tpm-crb needs hw:tpm_version 2.0")
    return version, model


def _one_of(specs: Mapping[str, str], key: str, allowed: tuple[str, ...]) -> str | None:
    value = specs.get(key) or None
    if value is not None and value not in allowed:
        raise _Refused(f"{key} {value!r} is not one of {', '.join(allowed)}")
    return value


def _request_filters(b: _Builder, specs: Mapping[str, str]) -> None:
    """request_filter.process_reqspec at its default configuration, for a boot from an image
    with no properties, on networks without remote-managed ports, all computes upgraded."""
    # compute_status_filter: always.
    b.root_forbidden.add("COMPUTE_STATUS_DISABLED")
    # accelerators_filter
    if specs.get("accel:device_profile"):
        b.root_required.add("COMPUTE_ACCELERATORS")
    # packed_virtqueue_filter
    if _true(specs.get("hw:virtio_packed_ring")):
        b.root_required.add("COMPUTE_NET_VIRTIO_PACKED")
    # ephemeral_encryption_filter
    if _true(specs.get("hw:ephemeral_encryption")):
        b.root_required.add("COMPUTE_EPHEMERAL_ENCRYPTION")
        fmt = _one_of(specs, "hw:ephemeral_encryption_format", _EPHEMERAL_FORMATS)
        if fmt:
            b.root_required.add(f"COMPUTE_EPHEMERAL_ENCRYPTION_{fmt.upper()}")
    # virtio_sound_filter
    if _one_of(specs, "hw:sound_model", _SOUND_MODELS) == "virtio":
        b.root_required.add("COMPUTE_SOUND_MODEL_VIRTIO")
    # tpm_secret_security_filter
    if _vtpm(specs) is not None:
        security = specs.get("hw:tpm_secret_security") or "user"
        if security not in _TPM_SECRET_SECURITY:
            raise _Refused(f"hw:tpm_secret_security {security!r} is not supported")
        b.root_required.add(_TPM_SECRET_SECURITY[security])
    # owner_nova_filter: every nova-compute at version 73 or later (Nova 34's own).
    b.root_required.add("OWNER_NOVA")


def _translate(b: _Builder, flavor: DerivedFlavor) -> None:
    specs = flavor.extra_specs
    _request_filters(b, specs)
    # _process_extra_specs
    for key, value in specs.items():
        if key == "group_policy":
            if value in ("none", "isolate"):
                b.group_policy = value
            else:
                b.ignored.append(
                    f"group_policy: {value!r} is neither 'none' nor 'isolate'; Nova ignores it"
                )
            continue
        match = _KEY.match(key)
        if not match:
            continue
        prefix, suffix, name = match.groups()
        if prefix == "resources":
            b.add_resource(name, value, suffix or "", key)
        else:
            b.add_trait(name, value, suffix or "", key)
    _pinning(b, specs, flavor.vcpus)
    merged = b.merged()
    if "VCPU" not in merged and "PCPU" not in merged:
        b.add_resource("VCPU", flavor.vcpus)
    if "MEMORY_MB" not in merged:
        b.add_resource("MEMORY_MB", flavor.ram)
    if "DISK_GB" not in merged:
        disk = flavor.ephemeral + (flavor.swap + 1023) // 1024 + flavor.disk
        if disk:
            b.add_resource("DISK_GB", disk)
    _mem_encryption(b, specs)
    _vpmems(b, specs)
    vtpm = _vtpm(specs)
    if vtpm is not None:
        version, model = vtpm
        b.add_trait(_TPM_MODELS[model], "required")
        b.add_trait(_TPM_VERSIONS[version], "required")
    if _one_of(specs, "hw:pci_numa_affinity_policy", _PCI_NUMA) == "socket":
        b.add_trait("COMPUTE_SOCKET_PCI_NUMA_AFFINITY", "required")
    if _one_of(specs, "os:secure_boot", _SECURE_BOOT) == "required":
        b.add_trait("COMPUTE_SECURITY_UEFI_SECURE_BOOT", "required")
    mode = _one_of(specs, "hw:maxphysaddr_mode", tuple(_MAXPHYSADDR))
    if mode is not None:
        b.add_trait(_MAXPHYSADDR[mode], "required")
    # _translate_stateless_firmware_request reads the image only.


def request_for(flavor: DerivedFlavor) -> PlacementRequest:
    """The request Nova 34 sends Placement to boot ``flavor`` (no image properties, no ports).

    Never raises on what the extra specs hold: what Nova would refuse is in ``refused``."""
    b = _Builder()
    for key, note in _UNMODELLED.items():
        if flavor.extra_specs.get(key):
            b.unmodelled.append(note)
    try:
        _translate(b, flavor)
    except _Refused as exc:
        b.refused.append(f"Nova refuses the boot: {exc}")
    return b.build()
