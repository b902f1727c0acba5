"""hw, hw_rng, hw_video: guest hardware shape, mostly honoured by the libvirt driver."""

from __future__ import annotations

from flavorsmith.extra_specs.model import Parameter, Validator
from flavorsmith.extra_specs.registry import Namespace
from flavorsmith.extra_specs.value_rules import BOOL, CPU_SET, ENUM, INT, PATTERN, PMEM

LIBVIRT = ("libvirt",)
NUM = Parameter("num", r"\d+", "Index of the guest NUMA node, from 0.")

NAMESPACES = [
    Namespace(
        "hw", "hw", "Guest virtual hardware: CPU topology and pinning, NUMA, memory, devices."
    ),
    Namespace("hw_rng", "hw_rng", "The guest's virtio random number generator."),
    Namespace("hw_video", "hw_video", "The guest's video device."),
]


def _v(name: str, description: str, value: object, **kwargs: object) -> Validator:
    kwargs.setdefault("drivers", LIBVIRT)
    return Validator(name, description, value, **kwargs)  # type: ignore[arg-type]


VALIDATORS = [
    _v(
        "hw:cpu_realtime",
        "Give the guest real-time vCPUs (a real-time kernel policy on the host).",
        BOOL(),
        depends_on=("hw:cpu_policy",),
    ),
    _v(
        "hw:cpu_realtime_mask",
        "Which vCPUs are not real-time, as a CPU set (e.g. ^0-1); needs hw:cpu_realtime.",
        PATTERN(CPU_SET),
        depends_on=("hw:cpu_realtime",),
    ),
    _v(
        "hw:hide_hypervisor_id",
        "Hide the hypervisor signature from the guest (for drivers that refuse to run virtualised).",
        BOOL(),
    ),
    _v(
        "hw:cpu_policy",
        "Pin guest vCPUs to host cores (dedicated), float them (shared), or both (mixed).",
        ENUM("dedicated", "shared", "mixed"),
    ),
    _v(
        "hw:cpu_thread_policy",
        "How pinned vCPUs use host SMT siblings.",
        ENUM("prefer", "isolate", "require"),
        depends_on=("hw:cpu_policy",),
    ),
    _v(
        "hw:emulator_threads_policy",
        "Where the emulator threads of a pinned guest run.",
        ENUM("isolate", "share"),
        depends_on=("hw:cpu_policy",),
    ),
    _v(
        "hw:cpu_dedicated_mask",
        "With the mixed policy, which vCPUs are pinned, as a CPU set.",
        PATTERN(CPU_SET),
        depends_on=("hw:cpu_policy",),
    ),
    _v(
        "hw:mem_page_size",
        "Page size backing guest memory: small, large, any, or a size such as 2MB or 1GiB.",
        PATTERN(r"(large|small|any|\d+([kKMGT]i?)?(b|bit|B)?)"),
    ),
    _v("hw:locked_memory", "Lock guest memory in host RAM (never swapped).", BOOL()),
    _v(
        "hw:numa_nodes",
        "Number of guest NUMA nodes, each placed on its own host NUMA node.",
        INT(minimum=1),
    ),
    _v(
        "hw:numa_cpus.{num}",
        "The guest CPUs, as a CPU set, of guest NUMA node {num}.",
        PATTERN(CPU_SET),
        parameters=(NUM,),
        depends_on=("hw:numa_nodes",),
    ),
    _v(
        "hw:numa_mem.{num}",
        "Memory in MB of guest NUMA node {num}.",
        INT(minimum=1),
        parameters=(NUM,),
        depends_on=("hw:numa_nodes",),
    ),
    _v(
        "hw:pci_numa_affinity_policy",
        "How strictly PCI devices must share the guest's NUMA node.",
        ENUM("required", "preferred", "legacy", "socket"),
    ),
    _v("hw:cpu_sockets", "Preferred number of guest CPU sockets.", INT(minimum=1)),
    _v("hw:cpu_cores", "Preferred number of cores per guest socket.", INT(minimum=1)),
    _v("hw:cpu_threads", "Preferred number of threads per guest core.", INT(minimum=1)),
    _v(
        "hw:cpu_max_sockets",
        "Upper bound on guest CPU sockets an image may ask for.",
        INT(minimum=1),
    ),
    _v("hw:cpu_max_cores", "Upper bound on cores per socket an image may ask for.", INT(minimum=1)),
    _v(
        "hw:cpu_max_threads",
        "Upper bound on threads per core an image may ask for.",
        INT(minimum=1),
    ),
    _v("hw:boot_menu", "Show the firmware boot menu on guest start.", BOOL()),
    _v("hw:vif_multiqueue_enabled", "Give virtio NICs one queue per vCPU.", BOOL()),
    _v(
        "hw:mem_encryption",
        "Encrypt guest memory (AMD SEV and similar); needs an image with UEFI.",
        BOOL(),
    ),
    _v(
        "hw:mem_encryption_model",
        "Which memory-encryption technology to use.",
        ENUM("amd-sev", "amd-sev-es", "amd-sev-snp", "intel-tdx"),
        depends_on=("hw:mem_encryption",),
    ),
    _v(
        "hw:pmem",
        "Persistent-memory namespaces to attach, by label, comma separated.",
        PATTERN(PMEM),
    ),
    _v("hw:pmu", "Expose (true) or hide (false) the virtual performance monitoring unit.", BOOL()),
    _v("hw:serial_port_count", "Number of serial ports the guest gets.", INT(minimum=0)),
    _v(
        "hw:tpm_model",
        "Virtual TPM device model.",
        ENUM("tpm-tis", "tpm-crb"),
        depends_on=("hw:tpm_version",),
    ),
    _v("hw:tpm_version", "Virtual TPM specification version.", ENUM("1.2", "2.0")),
    _v(
        "hw:tpm_secret_security",
        "Who can read the vTPM secret: the user, the host, or the deployment.",
        ENUM("user", "host", "deployment"),
    ),
    _v(
        "hw:watchdog_action",
        "What the virtual watchdog does when the guest stops feeding it.",
        ENUM("none", "pause", "poweroff", "reset", "disabled"),
    ),
    _v("hw:viommu_model", "Virtual IOMMU model.", ENUM("intel", "smmuv3", "virtio", "auto")),
    _v("hw:virtio_packed_ring", "Use packed virtqueues for virtio devices.", BOOL()),
    _v(
        "hw:sound_model",
        "Emulated sound device.",
        ENUM("sb16", "es1370", "pcspk", "ac97", "ich6", "ich9", "usb", "virtio"),
    ),
    _v("hw:usb_model", "Emulated USB controller.", ENUM("none", "nec-xhci", "qemu-xhci")),
    _v(
        "hw:redirected_usb_ports",
        "USB ports redirected to the remote console (SPICE).",
        INT(minimum=0, maximum=15),
    ),
    _v("hw:ephemeral_encryption", "Encrypt the guest's ephemeral disks.", BOOL()),
    _v(
        "hw:ephemeral_encryption_format",
        "On-disk format of encrypted ephemeral disks.",
        ENUM("plain", "luks", "luksv2"),
        depends_on=("hw:ephemeral_encryption",),
    ),
    _v("hw_rng:allowed", "Whether the guest may have a random number generator device.", BOOL()),
    _v(
        "hw_rng:rate_bytes",
        "Bytes the RNG may read per period (0: no limit).",
        INT(minimum=0),
        depends_on=("hw_rng:allowed",),
    ),
    _v(
        "hw_rng:rate_period",
        "Length of an RNG rate period, in milliseconds.",
        INT(minimum=0),
        depends_on=("hw_rng:allowed",),
    ),
    _v("hw_video:ram_max_mb", "Most video RAM, in MB, an image may ask for.", INT(minimum=0)),
]
