"""The deploy steps each driver offers, with default priorities and accepted arguments
(as Ironic 39's interfaces declare them; ``*`` marks required arguments). Ironic 39's hardware
types are these; it ships no ilo or irmc type any more."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DriverStep:
    interface: str
    step: str
    priority: int  # 0: runs only when a template asks for it
    args: dict[str, bool]  # argument name -> required
    core: bool = False  # may be disabled by a template, never moved

    @property
    def key(self) -> tuple[str, str]:
        return (self.interface, self.step)


def _steps(*items: tuple[str, str, int, str]) -> tuple[DriverStep, ...]:
    out = []
    for interface, step, priority, args in items:
        names = [a for a in args.split() if a]
        out.append(
            DriverStep(
                interface,
                step,
                priority,
                {a.rstrip("*"): a.endswith("*") for a in names},
                core=(interface, step) == ("deploy", "deploy"),
            )
        )
    return tuple(out)


# The agent ("direct") deploy interface every real driver here uses by default.
AGENT_DEPLOY = _steps(
    ("deploy", "deploy", 100, ""),
    ("deploy", "write_image", 80, ""),
    ("deploy", "prepare_instance_boot", 60, ""),
    ("deploy", "tear_down_agent", 40, ""),
    ("deploy", "switch_to_tenant_network", 30, ""),
    ("deploy", "boot_instance", 20, ""),
)
AGENT_RAID = _steps(
    ("raid", "apply_configuration", 0, "raid_config* delete_existing"),
    ("raid", "delete_configuration", 0, ""),
)
REDFISH_EXTRA = _steps(
    ("bios", "apply_configuration", 0, "settings*"),
    ("bios", "factory_reset", 0, ""),
    (
        "raid",
        "apply_configuration",
        0,
        "raid_config* delete_existing create_root_volume create_nonroot_volumes",
    ),
    ("raid", "delete_configuration", 0, ""),
    ("management", "reset_secure_boot_keys_to_default", 0, ""),
    ("management", "clear_secure_boot_keys", 0, ""),
    ("firmware", "update", 0, "settings*"),
)

CATALOGUES: dict[str, tuple[DriverStep, ...]] = {
    # Ironic's fake interfaces declare one deploy step; their BIOS and RAID work is clean
    # steps only, so a template's BIOS or RAID step is skipped on fake-hardware (see
    # SKIPS_UNKNOWN_STEPS).
    "fake-hardware": _steps(("deploy", "deploy", 100, "")),
    "redfish": AGENT_DEPLOY + REDFISH_EXTRA,
    "idrac": AGENT_DEPLOY + REDFISH_EXTRA,  # idrac-redfish interfaces
    "ipmi": AGENT_DEPLOY + AGENT_RAID,  # no BIOS or firmware interface over IPMI
    # ipmi's, with the Intel SST-PP management interface's one deploy step, which Ironic 39
    # declares with priority 200 and a required configuration argument.
    "intel-ipmi": AGENT_DEPLOY
    + AGENT_RAID
    + _steps(
        (
            "management",
            "configure_intel_speedselect",
            200,
            "intel_speedselect_config* socket_count",
        ),
    ),
    "manual-management": AGENT_DEPLOY + AGENT_RAID,
}


# Drivers whose deploy never validates the deploy templates' steps in full. Ironic 39 checks a
# template's steps against the driver's with ``skip_missing`` (a step it does not know may be
# an in-band one the agent reports later) when the deploy starts, and in full only once an
# agent has reported its steps (``continue_node_deploy``). fake-hardware's deploy step is
# synchronous and boots no agent, so a template step it lacks is skipped, not refused: the
# boot proof on the small real cloud deploys c2.large.vmx-mirror there with deploy.deploy
# alone.
SKIPS_UNKNOWN_STEPS = frozenset({"fake-hardware"})


def catalogue(driver: str) -> tuple[DriverStep, ...]:
    return CATALOGUES.get(driver, ())
