"""Deploy-step ordering: every rule of the deploy templates spec, as Ironic applies them."""

from __future__ import annotations

from pathlib import Path

from flavorsmith.catalog.repo import Repository
from flavorsmith.ironic.deploy_steps import deploy_problem, order_for_driver, order_steps
from flavorsmith.ironic.deploy_templates import Step, Template
from flavorsmith.ironic.driver_steps import CATALOGUES, DriverStep, catalogue
from tests.support.catalogs import RULES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

DRIVER = (
    DriverStep("deploy", "deploy", 100, {}, core=True),
    DriverStep("deploy", "write_image", 80, {}),
    DriverStep("bios", "apply_configuration", 0, {"settings": True}),
    DriverStep("raid", "apply_configuration", 0, {"raid_config": True, "delete_existing": False}),
    DriverStep("management", "clear_secure_boot_keys", 0, {}),
    DriverStep("power", "reboot", 0, {}),
)


def template(name: str, *steps: tuple[str, str, int, dict[str, object]]) -> Template:
    return Template(name, tuple(Step(i, s, dict(a), p) for i, s, p, a in steps))


def order(result: object) -> list[tuple[str, str, int, str]]:
    return [(s.interface, s.step, s.priority, s.source) for s in result.steps]  # type: ignore[attr-defined]


BIOS = template("CUSTOM_BIOS", ("bios", "apply_configuration", 150, {"settings": [{"name": "A"}]}))


def test_without_instance_traits_only_default_steps_run_by_priority() -> None:
    result = order_steps("x", DRIVER, [BIOS], [])
    assert order(result) == [
        ("deploy", "deploy", 100, "default"),
        ("deploy", "write_image", 80, "default"),
    ]
    assert result.valid
    assert [(d.template, d.applied) for d in result.templates] == [("CUSTOM_BIOS", False)]


def test_a_matching_template_adds_its_steps_with_its_args_and_priority() -> None:
    result = order_steps("x", DRIVER, [BIOS], ["CUSTOM_BIOS", "CUSTOM_OTHER"])
    assert order(result)[0] == ("bios", "apply_configuration", 150, "CUSTOM_BIOS")
    assert result.steps[0].args == {"settings": [{"name": "A"}]}
    decisions = {d.template: (d.applied, d.reason) for d in result.templates}
    assert decisions["CUSTOM_BIOS"] == (True, "its trait is in the instance traits")
    assert decisions["CUSTOM_OTHER"][0] is False
    assert "only steers scheduling" in decisions["CUSTOM_OTHER"][1]


def test_a_template_overrides_a_default_step_priority() -> None:
    later = template("CUSTOM_LATE_IMAGE", ("deploy", "write_image", 30, {}))
    result = order_steps("x", DRIVER, [later], ["CUSTOM_LATE_IMAGE"])
    assert order(result) == [
        ("deploy", "deploy", 100, "default"),
        ("deploy", "write_image", 30, "CUSTOM_LATE_IMAGE"),
    ]


def test_a_core_step_can_be_disabled_but_not_moved() -> None:
    off = template("CUSTOM_NO_DEPLOY", ("deploy", "deploy", 0, {}))
    result = order_steps("x", DRIVER, [off], ["CUSTOM_NO_DEPLOY"])
    assert result.valid and order(result) == [("deploy", "write_image", 80, "default")]
    moved = template("CUSTOM_MOVE", ("deploy", "deploy", 100, {}))  # even to where it is
    result = order_steps("x", DRIVER, [moved], ["CUSTOM_MOVE"])
    assert result.errors == [
        "deploy step deploy on interface deploy is a core step and cannot be overridden by user "
        "steps. It may be disabled by setting the priority to 0"
    ]


def test_priority_zero_steps_do_not_run() -> None:
    zero = template("CUSTOM_ZERO", ("power", "reboot", 0, {}))
    result = order_steps("x", DRIVER, [zero], ["CUSTOM_ZERO"])
    assert ("power", "reboot") not in [(s.interface, s.step) for s in result.steps]
    assert result.valid


def test_ties_break_on_interface_as_ironic_does() -> None:
    tied = template(
        "CUSTOM_TIED",
        ("raid", "apply_configuration", 90, {"raid_config": {}}),
        ("bios", "apply_configuration", 90, {"settings": []}),
        ("management", "clear_secure_boot_keys", 90, {}),
        ("power", "reboot", 90, {}),
    )
    result = order_steps("x", DRIVER, [tied], ["CUSTOM_TIED"])
    assert [s.interface for s in result.steps if s.priority == 90] == [
        "power",
        "management",
        "bios",
        "raid",
    ]


def test_two_matching_templates_may_not_request_the_same_step() -> None:
    a = template("CUSTOM_A", ("raid", "apply_configuration", 10, {"raid_config": {}}))
    b = template("CUSTOM_B", ("raid", "apply_configuration", 20, {"raid_config": {}}))
    result = order_steps("x", DRIVER, [a, b], ["CUSTOM_A", "CUSTOM_B"])
    assert result.errors == [
        "deploy steps from all deploy templates matching this node's instance traits cannot "
        "have the same interface and step. Duplicate deploy steps for raid.apply_configuration "
        "(CUSTOM_A and CUSTOM_B)"
    ]
    # Only one of them matching is fine.
    assert order_steps("x", DRIVER, [a, b], ["CUSTOM_B"]).valid


def test_unexpected_and_missing_arguments_are_errors() -> None:
    bad = template("CUSTOM_BAD", ("bios", "apply_configuration", 10, {"setting": []}))
    result = order_steps("drv", DRIVER, [bad], ["CUSTOM_BAD"])
    assert result.errors == [
        "deploy step bios.apply_configuration of deploy template CUSTOM_BAD has these "
        "unexpected arguments: setting",
        "deploy step bios.apply_configuration of deploy template CUSTOM_BAD is missing these "
        "required arguments: settings",
    ]
    # Disabled (priority 0) steps need no arguments.
    off = template("CUSTOM_OFF", ("bios", "apply_configuration", 0, {}))
    assert order_steps("drv", DRIVER, [off], ["CUSTOM_OFF"]).valid


def test_a_step_the_driver_lacks_is_an_error() -> None:
    unknown = template("CUSTOM_U", ("raid", "create_configuration", 10, {}))
    result = order_steps("drv", DRIVER, [unknown], ["CUSTOM_U"])
    assert result.errors == [
        "deploy step raid.create_configuration requested by deploy template CUSTOM_U is not a "
        "deploy step of driver drv"
    ]
    assert deploy_problem("drv", [unknown], ["CUSTOM_U"]) == ""  # unknown driver: no steps
    assert deploy_problem("ipmi", [BIOS, unknown], ["CUSTOM_BIOS", "CUSTOM_U"]) == (
        "Validation of deploy steps from deploy templates matching this node's instance traits "
        "failed. Matching deploy templates: CUSTOM_BIOS,CUSTOM_U. Errors: deploy step "
        "bios.apply_configuration requested by deploy template CUSTOM_BIOS is not a deploy "
        "step of driver ipmi; deploy step raid.create_configuration requested by deploy "
        "template CUSTOM_U is not a deploy step of driver ipmi"
    )
    assert "not a deploy step of driver ipmi" in deploy_problem(
        "ipmi", [BIOS], ["CUSTOM_BIOS"]
    )  # IPMI has no BIOS interface


def test_every_driver_catalogue_has_the_core_deploy_step() -> None:
    for driver in CATALOGUES:
        steps = {s.key: s for s in catalogue(driver)}
        assert steps[("deploy", "deploy")].priority == 100 and steps[("deploy", "deploy")].core
        if driver != "fake-hardware":  # Ironic's fake RAID and BIOS have clean steps only
            assert steps[("raid", "apply_configuration")].args["raid_config"] is True
    assert [s.key for s in catalogue("fake-hardware")] == [("deploy", "deploy")]
    assert ("bios", "apply_configuration") in {s.key for s in catalogue("redfish")}
    assert catalogue("no-such-driver") == ()


def test_the_seed_example_end_to_end() -> None:
    """FlavorVMXMirror → the instance traits Nova sets → the steps Ironic runs."""
    catalog = Repository(EXAMPLES, RULES).load().catalog
    flavor = catalog.flavor("c2.large.vmx-mirror")
    assert flavor is not None
    instance_traits = sorted(flavor.required_traits)
    assert instance_traits == ["CUSTOM_BM_CONFIG_BIOS_VMX_ON", "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"]
    templates = [
        Template(
            t.name,
            tuple(Step(s["interface"], s["step"], s["args"], s["priority"]) for s in t.steps),
        )
        for t in catalog.deploy_templates
    ]
    result = order_for_driver("redfish", templates, instance_traits)
    assert result.valid, result.errors
    assert order(result)[:4] == [
        ("bios", "apply_configuration", 150, "CUSTOM_BM_CONFIG_BIOS_VMX_ON"),
        ("raid", "apply_configuration", 140, "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"),
        ("deploy", "deploy", 100, "default"),
        ("deploy", "write_image", 80, "default"),
    ]
    assert result.steps[0].args == {
        "settings": [{"name": "ProcVirtualization", "value": "Enabled"}]
    }
    assert result.steps[1].args["raid_config"]["logical_disks"][0]["raid_level"] == "1"
    applied = sorted(d.template for d in result.templates if d.applied)
    assert applied == instance_traits
    # The stripe flavor gets the other two templates, on the same hardware.
    stripe = catalog.flavor("c2.large.novmx-stripe")
    assert stripe is not None
    other = order_for_driver("redfish", templates, sorted(stripe.required_traits))
    assert other.steps[0].args == {
        "settings": [{"name": "ProcVirtualization", "value": "Disabled"}]
    }
    assert other.steps[1].args["raid_config"]["logical_disks"][0]["raid_level"] == "0"


def test_fake_hardware_skips_a_template_step_it_lacks() -> None:
    """Ironic 39 checks a template's steps in full only after an agent reported its own; the
    fake deploy boots none, so the small real cloud deploys such a node with deploy.deploy
    alone (the boot proof, tests/integration/test_boot_proof.py)."""
    result = order_for_driver("fake-hardware", [BIOS], ["CUSTOM_BIOS"])
    assert result.valid and result.errors == []
    assert [(s.interface, s.step, s.source) for s in result.steps] == [
        ("deploy", "deploy", "default")
    ]
    assert result.skipped == [
        "deploy step bios.apply_configuration requested by deploy template CUSTOM_BIOS is "
        "skipped: driver fake-hardware has no such deploy step, and its deploy (no agent) "
        "never checks the templates' steps in full"
    ]
    assert deploy_problem("fake-hardware", [BIOS], ["CUSTOM_BIOS"]) == ""
    assert not order_for_driver("ipmi", [BIOS], ["CUSTOM_BIOS"]).valid  # the agent checks it
