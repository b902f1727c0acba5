"""The importer refuses what the node API refuses, entry by entry, with the same words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flavorsmith.db.engine import make_engine
from flavorsmith.ironic import nodes as rules
from flavorsmith.nodes import importer
from flavorsmith.store.nodes import FIELD_LENGTHS, find
from tests.conftest import Invoke


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("description", {"a": 1}),
        ("description", 7),
        ("extra", ["a"]),
        ("properties", "x"),
        ("driver_info", None),
        ("extra", {"a": float("nan")}),
        ("driver", 7),
        ("resource_class", "r" * 81),
        ("name", "a b"),
        ("uuid", "{" + "0" * 32 + "}x"),
    ],
)
def test_entries_are_checked_by_the_api_rules(field: str, value: Any) -> None:
    entry = {"name": "n1", field: value}
    parsed = importer.parse([{"name": "ok"}, entry])
    assert [s.name for s in parsed.specs] == ["ok"]
    ((where, message, _),) = parsed.problems
    assert where[:2] == [1, field]
    if field != "uuid":  # the importer names a bad UUID before the API rule would
        with pytest.raises(rules.FieldInvalid) as refused:
            rules.checked_node({"driver": "fake-hardware", **entry}, FIELD_LENGTHS)
        assert (refused.value.field, refused.value.message) == (field, message)


def test_a_description_that_is_not_text_is_a_diagnostic_at_its_entry(
    cli: Invoke, tmp_path: Path
) -> None:
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text("- {name: ok}\n- {name: bad, description: {a: 1}}\n")
    database = f"sqlite:///{tmp_path / 'nodes.db'}"
    result = cli("node", "import", str(inventory), "--database", database)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{inventory}:2:28: [1].description: 'description' must be a string",
        "1 error, 0 warnings",
        "error: nothing was imported",
    ]
    assert cli("node", "list", "--database", database, "-f", "value").stdout == ""


def test_an_entry_needs_a_name_or_a_uuid_and_each_is_listed_once() -> None:
    uuid = "e700c660-7f67-4790-a0bb-25afb6b7a3a9"
    parsed = importer.parse(
        [
            {"uuid": uuid},
            {"driver": "ipmi"},
            {"name": "a", "uuid": uuid.upper()},
            {"name": "b"},
            {"name": "b"},
        ]
    )
    assert [(s.name, s.uuid) for s in parsed.specs] == [(None, uuid), ("b", None)]
    assert [(where, message) for where, message, _ in parsed.problems] == [
        (
            [1],
            "the node has neither a name nor a uuid (the import matches a node by UUID when "
            "the entry has one, else by name)",
        ),
        ([2, "uuid"], f"UUID {uuid} is listed twice (first as entry 0)"),
        ([4, "name"], "'b' is listed twice (first as entry 3)"),
    ]


def test_inventory_secrets_are_dropped_with_a_note() -> None:
    parsed = importer.parse(
        [
            {"name": "a", "driver_info": {"ipmi_address": "10.0.0.1", "ipmi_password": "p"}},
            {"name": "b", "driver_info": {"ipmi_password": "p", "ipmi_kg_key": "k"}},
        ]
    )
    assert [s.values["driver_info"] for s in parsed.specs] == [{"ipmi_address": "10.0.0.1"}, {}]
    assert parsed.notes == [
        "secret driver_info keys dropped, never stored: ipmi_kg_key (1 of 2 nodes), ipmi_password"
    ]


def test_ironic_output_sets_only_what_it_has() -> None:
    parsed = importer.parse(
        [
            {"uuid": "e700c660-7f67-4790-a0bb-25afb6b7a3a9", "name": None, "links": []},
            {"UUID": "861c24fd-58e9-480d-b4be-6b65b01f6065", "Traits": [], "Shelf": 3},
        ]
    )
    assert parsed.problems == []
    first, second = parsed.specs
    assert (first.values, first.traits) == ({"name": None}, None)
    assert (second.values, second.traits) == ({}, ())
    assert parsed.notes == [
        "read as `openstack baremetal node list --long` output: 2 nodes",
        "ignored keys that no Ironic node has: Shelf (1 of 2 nodes)",
        "not in the file, so left as stored (a new node gets the default): conductor_group, "
        "description, driver, extra, instance_uuid, lessee, maintenance, name (1 of 2 nodes), "
        "owner, power_state, properties, provision_state, resource_class, retired, "
        "retired_reason, traits (1 of 2 nodes)",
    ]


@pytest.mark.parametrize(
    ("entry", "where", "message"),
    [
        ({"Provisioning State": "sleeping"}, "Provisioning State", "unknown provision state"),
        ({"power_state": "on"}, "power_state", "unknown power state 'on'"),
        ({"Instance UUID": "x"}, "Instance UUID", "Expected a UUID for instance_uuid"),
        ({"Traits": ["nicx"]}, "Traits", "Invalid trait 'nicx'"),
    ],
)
def test_ironic_output_errors_point_at_the_key_as_written(
    entry: dict[str, Any], where: str, message: str
) -> None:
    parsed = importer.parse([{"UUID": "861c24fd-58e9-480d-b4be-6b65b01f6065", **entry}])
    ((path, text, _),) = parsed.problems
    assert path[:2] == [0, where] and message in text


def test_any_driver_is_imported(cli: Invoke, tmp_path: Path) -> None:
    """The nodes exist already: a driver the API would not enable for a new node is kept."""
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text("- {name: n1, driver: snmp}\n")
    database = f"sqlite:///{tmp_path / 'nodes.db'}"
    result = cli("node", "import", str(inventory), "--database", database)
    assert result.exit_code == 0, result.stderr
    engine = make_engine(database)
    try:
        with engine.connect() as connection:
            assert find(connection, "n1", by_name=True)["driver"] == "snmp"
    finally:
        engine.dispose()
