"""The traits Nova 34 itself sets on a bare-metal node's resource provider, beyond the node's.

Read from ``nova/compute/resource_tracker.py`` (``_get_traits``: the driver's capability
traits, ``COMPUTE_NODE``, ``OWNER_NOVA``, ``COMPUTE_STATUS_DISABLED`` while the compute service
is disabled) and ``nova/virt/ironic/driver.py`` (the ironic driver's ``capabilities``, mapped
through ``nova/virt/driver.py`` ``CAPABILITY_TRAITS_MAP``), at the default
``[compute]image_type_exclude_list`` (empty).
"""

from __future__ import annotations

# Always on every provider the ironic driver reports.
ADDED = frozenset(
    {
        "COMPUTE_NODE",
        "OWNER_NOVA",
        # Capabilities the ironic driver supports.
        "COMPUTE_NET_ATTACH_INTERFACE",
        "COMPUTE_IMAGE_TYPE_AMI",
        "COMPUTE_IMAGE_TYPE_QCOW2",
        "COMPUTE_IMAGE_TYPE_RAW",
    }
)

# Capabilities the ironic driver declares unsupported: Nova removes them from the provider,
# even when the Ironic node has them.
REMOVED = frozenset(
    {
        "COMPUTE_SAME_HOST_COLD_MIGRATE",
        "COMPUTE_VOLUME_MULTI_ATTACH",
        "COMPUTE_TRUSTED_CERTS",
        "COMPUTE_ACCELERATORS",
        "COMPUTE_REMOTE_MANAGED_PORTS",
        "COMPUTE_ADDRESS_SPACE_PASSTHROUGH",
        "COMPUTE_ADDRESS_SPACE_EMULATED",
        "COMPUTE_SECURITY_STATELESS_FIRMWARE",
        "COMPUTE_STORAGE_VIRTIO_FS",
        "COMPUTE_MEM_BACKING_FILE",
        "COMPUTE_IMAGE_TYPE_AKI",
        "COMPUTE_IMAGE_TYPE_ARI",
        "COMPUTE_IMAGE_TYPE_ISO",
        "COMPUTE_IMAGE_TYPE_VDI",
        "COMPUTE_IMAGE_TYPE_VHD",
        "COMPUTE_IMAGE_TYPE_VHDX",
        "COMPUTE_IMAGE_TYPE_VMDK",
        "COMPUTE_IMAGE_TYPE_PLOOP",
    }
)

# On the provider while its nova-compute service is disabled (the matcher assumes enabled).
STATUS_DISABLED = "COMPUTE_STATUS_DISABLED"


def provider_traits(node_traits: frozenset[str], service_disabled: bool = False) -> frozenset[str]:
    """The traits of the provider Nova reports for a node with ``node_traits``."""
    traits = (node_traits | ADDED) - REMOVED - {STATUS_DISABLED}
    return traits | {STATUS_DISABLED} if service_disabled else traits
