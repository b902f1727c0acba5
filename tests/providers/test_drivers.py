"""The provider drivers (noop, baremetal) over a hand-built catalog, the flavor data pipeline
(parse, validate, expand, capabilities) and the registry that loads drivers by entry point."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import pytest

from flavorsmith.catalog.model import Catalog, DeployTemplateDef, DeviceType, ResourceClass
from flavorsmith.config import DEFAULT_PROVIDERS
from flavorsmith.errors import Invalid
from flavorsmith.providers import registry as registry_module
from flavorsmith.providers.baremetal import BaremetalDriver
from flavorsmith.providers.driver import ProviderContext, ProviderDriver, UnsupportedOption
from flavorsmith.providers.noop import NoopDriver
from flavorsmith.providers.registry import GROUP, DriverRegistry, Provider, load, parse_enabled
from flavorsmith.providers.validation import (
    MAX_FLAVOR_DATA,
    DriverFault,
    capabilities,
    expand,
    parse_flavor_data,
    validate,
)

SECRET = "connection string with a password"


def rc(name: str) -> ResourceClass:
    return ResourceClass(
        name, cpu_cores=8, cpu_model="x", memory_mb=1024, drives_gb=(10,), nic_count=2
    )


def template(name: str, *steps: tuple[str, str]) -> DeployTemplateDef:
    return DeployTemplateDef(
        name,
        tuple({"interface": i, "step": s, "args": {}, "priority": 100} for i, s in steps),
    )


SERVER = DeviceType("server", "Acme", "One", 1, True, (rc("c2.large"), rc("m1.small")))
OTHER = DeviceType("server", "Acme", "Two", 2, True, (rc("g1.big"),))
BIOS_ON = template("CUSTOM_BIOS_ON", ("bios", "apply_configuration"))
BIOS_OFF = template("CUSTOM_BIOS_OFF", ("bios", "apply_configuration"))
RESET = template("CUSTOM_BIOS_RESET", ("bios", "factory_reset"))
RAID = template("CUSTOM_RAID", ("raid", "apply_configuration"), ("deploy", "erase_devices"))
CATALOG = Catalog(device_types=(SERVER, OTHER), deploy_templates=(BIOS_ON, BIOS_OFF, RESET, RAID))
TEMPLATES = "CUSTOM_BIOS_OFF, CUSTOM_BIOS_ON, CUSTOM_BIOS_RESET, CUSTOM_RAID"


class Nodes:
    """A nodes callable that records what it was asked."""

    def __init__(self, answer: list[str]) -> None:
        self.answer = answer
        self.calls: list[tuple[str, frozenset[str]]] = []

    def __call__(self, resource_class: str, traits: frozenset[str]) -> list[str]:
        self.calls.append((resource_class, traits))
        return list(self.answer)


def driver(catalog: Catalog = CATALOG, nodes: Nodes | None = None) -> BaremetalDriver:
    return BaremetalDriver(ProviderContext(catalog=lambda: catalog, nodes=nodes or Nodes([])))


# ---------------------------------------------------------------- baremetal


def test_baremetal_schema_lists_the_catalog() -> None:
    schema = driver().get_supported_flavor_metadata()
    assert schema == {
        "type": "object",
        "properties": {
            "resource_class": {
                "type": "string",
                "enum": ["c2.large", "g1.big", "m1.small"],
                "description": "The node resource class to deploy on; one of: c2.large, "
                "g1.big, m1.small",
            },
            "deploy_templates": {
                "type": "array",
                "items": {
                    "type": "string",
                    "enum": [
                        "CUSTOM_BIOS_OFF",
                        "CUSTOM_BIOS_ON",
                        "CUSTOM_BIOS_RESET",
                        "CUSTOM_RAID",
                    ],
                },
                "uniqueItems": True,
                "description": f"Deploy templates to apply at deploy time; from: {TEMPLATES}",
            },
        },
        "additionalProperties": False,
    }


def test_baremetal_schema_of_an_empty_catalog() -> None:
    properties = driver(Catalog()).get_supported_flavor_metadata()["properties"]
    assert properties["resource_class"]["enum"] == []
    assert properties["resource_class"]["description"].endswith("one of: none defined")
    assert properties["deploy_templates"]["items"]["enum"] == []
    assert properties["deploy_templates"]["description"].endswith("from: none defined")


@pytest.mark.parametrize(
    "metadata",
    [
        {"resource_class": "c2.large"},
        {"resource_class": "g1.big", "deploy_templates": []},
        {"resource_class": "c2.large", "deploy_templates": ["CUSTOM_BIOS_ON", "CUSTOM_RAID"]},
        # Two steps of one interface are fine when the steps differ.
        {"resource_class": "c2.large", "deploy_templates": ["CUSTOM_BIOS_ON", "CUSTOM_BIOS_RESET"]},
    ],
)
def test_baremetal_accepts(metadata: dict[str, Any]) -> None:
    driver().validate_flavor(metadata)  # no UnsupportedOption


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        (
            {"resource_class": "c2.large", "colour": "red", "alpha": 1},
            "unknown flavor data key 'alpha': the baremetal provider takes resource_class and "
            "deploy_templates",
        ),
        ({}, "'resource_class' is required by the baremetal provider"),
        ({"deploy_templates": []}, "'resource_class' is required by the baremetal provider"),
        (
            {"resource_class": "z1.none"},
            "resource_class 'z1.none' is not defined by any device type; defined: c2.large, "
            "g1.big, m1.small",
        ),
        (
            {"resource_class": None},
            "resource_class None is not defined by any device type; defined: c2.large, "
            "g1.big, m1.small",
        ),
        (
            {"resource_class": "c2.large", "deploy_templates": "CUSTOM_RAID"},
            "'deploy_templates' must be a list of deploy template names",
        ),
        (
            {"resource_class": "c2.large", "deploy_templates": ["CUSTOM_RAID", 3]},
            "'deploy_templates' must be a list of deploy template names",
        ),
        (
            {"resource_class": "c2.large", "deploy_templates": None},
            "'deploy_templates' must be a list of deploy template names",
        ),
        (
            {"resource_class": "c2.large", "deploy_templates": ["CUSTOM_RAID", "CUSTOM_RAID"]},
            "'deploy_templates' lists a template twice",
        ),
        (
            {"resource_class": "c2.large", "deploy_templates": ["CUSTOM_RAID", "CUSTOM_NOPE"]},
            f"deploy_templates: 'CUSTOM_NOPE' is not a deploy template in the catalog; "
            f"defined: {TEMPLATES}",
        ),
        (
            {
                "resource_class": "c2.large",
                "deploy_templates": ["CUSTOM_BIOS_OFF", "CUSTOM_RAID", "CUSTOM_BIOS_ON"],
            },
            "deploy_templates: CUSTOM_BIOS_OFF and CUSTOM_BIOS_ON both request "
            "bios.apply_configuration; Ironic refuses two templates with one step",
        ),
    ],
)
def test_baremetal_refuses(metadata: dict[str, Any], message: str) -> None:
    with pytest.raises(UnsupportedOption) as caught:
        driver().validate_flavor(metadata)
    assert caught.value.user_message == message
    assert str(caught.value) == message


def test_baremetal_refusals_over_an_empty_catalog() -> None:
    empty = driver(Catalog())
    with pytest.raises(UnsupportedOption) as caught:
        empty.validate_flavor({"resource_class": "c2.large"})
    assert caught.value.user_message == (
        "resource_class 'c2.large' is not defined by any device type; defined: none"
    )
    only_classes = driver(Catalog(device_types=(SERVER,)))
    with pytest.raises(UnsupportedOption) as caught:
        only_classes.validate_flavor({"resource_class": "c2.large", "deploy_templates": ["X"]})
    assert caught.value.user_message == (
        "deploy_templates: 'X' is not a deploy template in the catalog; defined: none"
    )


def test_baremetal_expand() -> None:
    nodes = Nodes(["node-1", "node-2"])
    expanded = driver(nodes=nodes).expand_flavor(
        {"resource_class": "c2.large", "deploy_templates": ["CUSTOM_RAID", "CUSTOM_BIOS_ON"]}
    )
    assert expanded == {
        "resource_class": "c2.large",
        "placement_resource_class": "CUSTOM_C2_LARGE",
        "deploy_templates": ["CUSTOM_BIOS_ON", "CUSTOM_RAID"],
        "instance_info": {"traits": ["CUSTOM_BIOS_ON", "CUSTOM_RAID"]},
        "nodes": ["node-1", "node-2"],
    }
    assert nodes.calls == [("c2.large", frozenset({"CUSTOM_BIOS_ON", "CUSTOM_RAID"}))]
    bare = driver(nodes=nodes).expand_flavor({"resource_class": "m1.small"})
    assert bare["deploy_templates"] == [] and bare["instance_info"] == {"traits": []}
    assert bare["placement_resource_class"] == "CUSTOM_M1_SMALL"
    assert nodes.calls[-1] == ("m1.small", frozenset())


def test_baremetal_reads_the_catalog_at_every_use() -> None:
    current = {"catalog": CATALOG}
    subject = BaremetalDriver(ProviderContext(catalog=lambda: current["catalog"]))
    metadata = {"resource_class": "c2.large", "deploy_templates": ["CUSTOM_RAID"]}
    subject.validate_flavor(metadata)
    current["catalog"] = Catalog(device_types=(SERVER,), deploy_templates=(BIOS_ON,))
    with pytest.raises(UnsupportedOption) as caught:
        subject.validate_flavor(metadata)
    assert "'CUSTOM_RAID' is not a deploy template" in caught.value.user_message
    schema = subject.get_supported_flavor_metadata()
    assert schema["properties"]["deploy_templates"]["items"]["enum"] == ["CUSTOM_BIOS_ON"]
    assert schema["properties"]["resource_class"]["enum"] == ["c2.large", "m1.small"]


def test_default_context_is_empty() -> None:
    context = ProviderContext()
    assert context.catalog() == Catalog()
    assert context.nodes("c2.large", frozenset()) == []


# ---------------------------------------------------------------- noop


def test_noop_driver() -> None:
    noop = NoopDriver()
    assert noop.context is None
    assert NoopDriver(ProviderContext()).context is not None
    assert noop.get_supported_flavor_metadata() == {
        "type": "object",
        "properties": {
            "noop_option": {
                "type": "string",
                "description": "Any value; the no-op provider accepts every flavor.",
            }
        },
    }
    for metadata in ({}, {"anything": [1, {"x": None}]}, {"noop_option": 5}):
        noop.validate_flavor(metadata)  # no UnsupportedOption
    assert not hasattr(noop, "expand_flavor")
    assert isinstance(noop, ProviderDriver)
    assert isinstance(driver(), ProviderDriver)


# ---------------------------------------------------------------- parse_enabled


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("noop:No-op", [("noop", "No-op")]),
        (" noop : No-op , baremetal:Bare metal ", [("noop", "No-op"), ("baremetal", "Bare metal")]),
        ("noop", [("noop", "")]),
        ("noop:", [("noop", "")]),
        ("noop:a: b", [("noop", "a: b")]),
        ("noop:x,,  ,baremetal:y,", [("noop", "x"), ("baremetal", "y")]),
        ("", []),
        (" , ", []),
    ],
)
def test_parse_enabled(text: str, expected: list[tuple[str, str]]) -> None:
    assert parse_enabled(text) == expected


@pytest.mark.parametrize("text", [":description", "noop:x, :y", "  :  "])
def test_parse_enabled_needs_names(text: str) -> None:
    with pytest.raises(ValueError, match=r"has no name; write name:description"):
        parse_enabled(text)


def test_default_providers() -> None:
    assert [name for name, _ in parse_enabled(DEFAULT_PROVIDERS)] == ["noop", "baremetal"]


# ---------------------------------------------------------------- parse_flavor_data


def test_parse_flavor_data_accepts_an_object() -> None:
    assert parse_flavor_data('{"a": [1, 2], "b": {"c": null}}') == {"a": [1, 2], "b": {"c": None}}
    assert parse_flavor_data("{}") == {}
    exact = '{"k": "' + "x" * (MAX_FLAVOR_DATA - 9) + '"}'
    assert len(exact) == MAX_FLAVOR_DATA
    assert parse_flavor_data(exact) == {"k": "x" * (MAX_FLAVOR_DATA - 9)}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "flavor_data must be a string holding JSON"),
        ({"a": 1}, "flavor_data must be a string holding JSON"),
        (b"{}", "flavor_data must be a string holding JSON"),
        (
            '{"k": "' + "x" * MAX_FLAVOR_DATA + '"}',
            f"flavor_data is {MAX_FLAVOR_DATA + 9} characters long; at most 4096 are allowed",
        ),
    ],
)
def test_parse_flavor_data_refuses(text: Any, message: str) -> None:
    with pytest.raises(Invalid) as caught:
        parse_flavor_data(text)
    assert caught.value.message == message and caught.value.status == 400


@pytest.mark.parametrize(
    ("text", "data"), [("[]", []), ("1.5", 1.5), ("true", True), ('"{}"', "{}")]
)
def test_parse_flavor_data_reads_any_json(text: str, data: Any) -> None:
    """Whether a list or a string will do is the provider's call, as in Octavia 19."""
    assert parse_flavor_data(text) == data


@pytest.mark.parametrize("text", ["", "{", "{'a': 1}", '{"a": 1} x', "nope"])
def test_parse_flavor_data_refuses_malformed_json(text: str) -> None:
    """Octavia 19's words (api/v2/controllers/flavor_profiles.py line 104)."""
    with pytest.raises(Invalid) as caught:
        parse_flavor_data(text)
    assert caught.value.message == f"{text} is not a valid option for flavor_data"


# ---------------------------------------------------------------- validate / expand / capabilities


class Scripted:
    """A driver whose methods raise what it is told to, or answer what it is given."""

    def __init__(self, raises: BaseException | None = None, schema: Any = None) -> None:
        self.raises = raises
        self.schema = schema

    def get_supported_flavor_metadata(self) -> Any:
        if self.raises is not None:
            raise self.raises
        return self.schema

    def validate_flavor(self, metadata: dict[str, Any]) -> None:
        if self.raises is not None:
            raise self.raises

    def expand_flavor(self, metadata: dict[str, Any]) -> Any:
        if self.raises is not None:
            raise self.raises
        return [("expanded", True), *metadata.items()]


def provider(driver_: Any) -> Provider:
    return Provider("x", "An x.", driver_)


def test_validate_turns_refusals_into_400s() -> None:
    validate(provider(Scripted()), {"a": 1})  # no error
    with pytest.raises(Invalid) as caught:
        validate(provider(Scripted(UnsupportedOption("no 'a' here"))), {"a": 1})
    assert caught.value.message == "Provider 'x' does not support a requested option: no 'a' here"
    assert caught.value.status == 400


def test_validate_turns_crashes_into_sanitised_502s(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.ERROR, logger="flavorsmith.providers"),
        pytest.raises(DriverFault) as caught,
    ):
        validate(provider(Scripted(KeyError(SECRET))), {})
    assert caught.value.status == 502
    assert caught.value.message == (
        "Provider 'x' failed while validating the flavor data; the error is in the service log"
    )
    assert SECRET not in caught.value.message
    assert caught.value.__suppress_context__
    (record,) = caplog.records
    assert record.getMessage() == "provider x crashed validating flavor data"
    assert record.exc_info is not None and SECRET in caplog.text


def test_expand() -> None:
    data = {"a": 1}
    assert expand(provider(NoopDriver()), data) is data
    assert expand(provider(Scripted()), data) == {"expanded": True, "a": 1}
    with pytest.raises(Invalid) as refused:
        expand(provider(Scripted(UnsupportedOption("cannot"))), data)
    assert refused.value.message == "Provider 'x' does not support a requested option: cannot"
    with pytest.raises(DriverFault) as crashed:
        expand(provider(Scripted(RuntimeError(SECRET))), data)
    assert crashed.value.message == (
        "Provider 'x' failed while expanding the flavor data; the error is in the service log"
    )


def test_capabilities() -> None:
    assert capabilities(provider(NoopDriver())) == [
        {
            "name": "noop_option",
            "description": "Any value; the no-op provider accepts every flavor.",
        }
    ]
    assert [c["name"] for c in capabilities(provider(driver()))] == [
        "resource_class",
        "deploy_templates",
    ]
    schema = {"properties": {"plain": {"type": "string"}, "told": {"description": 5}}}
    assert capabilities(provider(Scripted(schema=schema))) == [
        {"name": "plain", "description": ""},
        {"name": "told", "description": "5"},
    ]
    assert capabilities(provider(Scripted(schema={"type": "object"}))) == []


@pytest.mark.parametrize(
    "broken", [Scripted(RuntimeError(SECRET)), Scripted(schema=[SECRET]), Scripted(schema=None)]
)
def test_capabilities_crash_is_a_sanitised_502(broken: Scripted) -> None:
    with pytest.raises(DriverFault) as caught:
        capabilities(provider(broken))
    assert caught.value.status == 502
    assert caught.value.message == (
        "Provider 'x' failed to list its capabilities; the error is in the service log"
    )


# ---------------------------------------------------------------- registry


class Incomplete:
    def __init__(self, context: ProviderContext) -> None:
        self.context = context

    def get_supported_flavor_metadata(self) -> dict[str, Any]:
        return {}


class Exploding:
    def __init__(self, context: ProviderContext) -> None:
        raise OSError("cannot reach the BMC")


@dataclass
class FakeEntryPoint:
    name: str
    target: Any

    def load(self) -> Any:
        if isinstance(self.target, BaseException):
            raise self.target
        return self.target


def fake_entry_points(monkeypatch: pytest.MonkeyPatch, *entries: FakeEntryPoint) -> list[str]:
    asked: list[str] = []

    def entry_points(*, group: str) -> list[FakeEntryPoint]:
        asked.append(group)
        return list(entries)

    monkeypatch.setattr(registry_module, "entry_points", entry_points)
    return asked


def test_load_enables_what_is_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = fake_entry_points(
        monkeypatch,
        FakeEntryPoint("noop", NoopDriver),
        FakeEntryPoint("baremetal", BaremetalDriver),
        FakeEntryPoint("unused", Exploding),
    )
    context = ProviderContext(catalog=lambda: CATALOG)
    loaded = load("baremetal:Bare metal., noop:No-op.", context)
    assert asked == [GROUP]
    assert list(loaded.providers) == ["baremetal", "noop"]
    assert loaded.failures == {}
    bare = loaded.get("baremetal")
    assert bare.description == "Bare metal."
    assert isinstance(bare.driver, BaremetalDriver) and bare.driver.context is context
    assert loaded.get("noop").driver.context is context


def test_load_reports_broken_drivers(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fake_entry_points(
        monkeypatch,
        FakeEntryPoint("noop", NoopDriver),
        FakeEntryPoint("exploding", Exploding),
        FakeEntryPoint("incomplete", Incomplete),
        FakeEntryPoint("unimportable", ImportError("No module named 'vendor_sdk'")),
        FakeEntryPoint("not-callable", "just a string"),
    )
    enabled = "noop:ok,exploding:x,incomplete:x,unimportable:x,not-callable:x,ghost:x"
    with caplog.at_level(logging.ERROR, logger="flavorsmith.providers"):
        loaded = load(enabled, ProviderContext(), group="custom.group")
    assert list(loaded.providers) == ["noop"]
    assert loaded.failures == {
        "exploding": "failed to load: OSError: cannot reach the BMC",
        "incomplete": "failed to load: TypeError: the driver has no validate_flavor()",
        "unimportable": "failed to load: ImportError: No module named 'vendor_sdk'",
        "not-callable": "failed to load: TypeError: 'str' object is not callable",
        "ghost": "no driver named 'ghost' is installed (entry point group custom.group)",
    }
    logged = [r.getMessage() for r in caplog.records]
    assert logged == [f"provider {n} disabled: {r}" for n, r in loaded.failures.items()]


def test_registry_get() -> None:
    registry = DriverRegistry({"noop": Provider("noop", "d", NoopDriver())})
    assert registry.get("noop").name == "noop"
    with pytest.raises(Invalid) as caught:
        registry.get("baremetal")
    assert caught.value.message == "Provider 'baremetal' is not enabled."
    assert caught.value.status == 400


def test_load_the_installed_drivers() -> None:
    loaded = load(DEFAULT_PROVIDERS, ProviderContext(catalog=lambda: CATALOG))
    assert loaded.failures == {}
    assert isinstance(loaded.get("noop").driver, NoopDriver)
    assert isinstance(loaded.get("baremetal").driver, BaremetalDriver)
    missing = load("noop:x,ghost:y", ProviderContext())
    assert list(missing.providers) == ["noop"]
    assert missing.failures == {
        "ghost": f"no driver named 'ghost' is installed (entry point group {GROUP})"
    }


def test_a_provider_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="provider 'noop' is listed twice"):
        parse_enabled("noop:a,noop:b")
