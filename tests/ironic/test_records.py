"""Recognising node import files: real Ironic 39 / python-ironicclient output (samples/) and
the inventory format, read into Ironic field names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.ironic import records
from flavorsmith.ironic.records import Kind
from flavorsmith.nodes.importer import FIELDS

SAMPLES = Path(__file__).resolve().parent / "samples"
N1 = "e700c660-7f67-4790-a0bb-25afb6b7a3a9"
NAMELESS = "861c24fd-58e9-480d-b4be-6b65b01f6065"
WANTED = [f for f in FIELDS if f not in records.DROPPED]


def sample(name: str) -> Any:
    return json.loads((SAMPLES / name).read_text())


def with_headers(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry keyed as older python-ironicclient releases keyed `node list --long -f json`."""
    return {records.IRONIC_FIELDS[k]: v for k, v in entry.items()}


def test_every_field_real_ironic_prints_is_in_the_table() -> None:
    printed = set(sample("nodes-detail.json")["nodes"][0]) | set(sample("node-show.json"))
    printed |= set(sample("node-list-long.json")[0])
    assert printed == set(records.IRONIC_FIELDS)


@pytest.mark.parametrize(
    ("data", "kind", "count"),
    [
        (sample("nodes-detail.json"), Kind.API, 2),
        (sample("node-list-long.json"), Kind.CLI_LIST, 2),
        ([with_headers(e) for e in sample("node-list-long.json")], Kind.CLI_LIST, 2),
        (sample("node-show.json"), Kind.CLI_SHOW, 1),
        ([{"name": "a", "resource_class": "m1"}], Kind.INVENTORY, 1),
        ({"nodes": [{"name": "a"}, {"uuid": N1}]}, Kind.INVENTORY, 2),
        ({"nodes": []}, Kind.INVENTORY, 0),
        # an Ironic-only field in one entry makes the whole file Ironic output
        ([{"name": "a"}, {"name": "b", "chassis_uuid": None}], Kind.CLI_LIST, 2),
    ],
)
def test_representations_are_recognised(data: Any, kind: Kind, count: int) -> None:
    dump = records.read(data, FIELDS)
    assert (dump.kind, len(dump.entries)) == (kind, count)


def test_api_records_read_into_the_stored_fields_without_driver_info() -> None:
    dump = records.read(sample("nodes-detail.json"), FIELDS)
    assert dump.path(1) == ["nodes", 1]
    n1, nameless = (records.record(e, WANTED) for e in dump.entries)
    assert n1.fields == {
        "uuid": N1,
        "description": None,
        "driver": "fake-hardware",
        "extra": {},
        "instance_uuid": None,
        "maintenance": False,
        "name": "n1",
        "power_state": None,
        "properties": {"cpus": 4},
        "provision_state": "enroll",
        "resource_class": "m1.small",
        "traits": ["CUSTOM_A", "HW_CPU_X86_AVX2"],
        "owner": None,
        "lessee": None,
        "conductor_group": "",
        "retired": False,
        "retired_reason": None,
    }
    assert (n1.unknown, n1.dropped) == ((), ("driver_info",))
    assert (nameless.fields["uuid"], nameless.fields["name"]) == (NAMELESS, None)
    assert nameless.dropped == ()  # its driver_info is empty


def test_cli_headers_map_to_field_names_and_keep_the_key_as_written() -> None:
    long_list = sample("node-list-long.json")
    by_field = records.record(long_list[0], WANTED)
    by_header = records.record(with_headers(long_list[0]), WANTED)
    assert by_header.fields == by_field.fields
    assert by_header.keys["resource_class"] == "Resource Class"
    assert by_header.keys["provision_state"] == "Provisioning State"
    assert "driver_info" not in by_header.fields


def test_the_show_output_is_one_entry_at_the_root() -> None:
    dump = records.read(sample("node-show.json"), FIELDS)
    assert dump.path(0) == []
    (entry,) = dump.entries
    record = records.record(entry, WANTED)
    assert record.fields["traits"] == ["CUSTOM_A", "HW_CPU_X86_AVX2"]
    assert "******" not in json.dumps(record.fields)


def test_a_traits_column_printed_as_text_becomes_a_list() -> None:
    record = records.record({"UUID": N1, "Traits": "CUSTOM_A, HW_CPU_X86_AVX2"}, WANTED)
    assert record.fields["traits"] == ["CUSTOM_A", "HW_CPU_X86_AVX2"]


def test_keys_no_ironic_node_has_are_reported_not_refused() -> None:
    entry = {**sample("node-show.json"), "rack_position": 7, "Colour": "red"}
    record = records.record(entry, WANTED)
    assert record.unknown == ("rack_position", "Colour")
    assert record.fields["name"] == "n1"


def test_the_next_page_link_is_a_note() -> None:
    body = {**sample("nodes-detail.json"), "next": "http://ironic/v1/nodes/detail?marker=x"}
    (note,) = records.read(body, FIELDS).notes
    assert "one page" in note and "marker=x" in note


@pytest.mark.parametrize(
    "data",
    [sample("node-list.json"), [with_headers(e) for e in sample("node-list.json")]],
)
def test_the_short_list_is_refused(data: Any) -> None:
    with pytest.raises(records.NotNodes, match="without --long"):
        records.read(data, FIELDS)


@pytest.mark.parametrize(
    ("data", "path", "message"),
    [
        ("nodes", [], "expected a list of nodes"),
        ({"name": "a"}, [], "expected a list of nodes"),
        ({"nodes": {"a": 1}}, ["nodes"], "expected a list of nodes"),
        ({"nodes": [], "colour": 1}, ["colour"], "unknown key 'colour'"),
    ],
)
def test_what_is_no_node_file_says_where(data: Any, path: list[str], message: str) -> None:
    with pytest.raises(records.NotNodes) as refused:
        records.read(data, FIELDS)
    assert refused.value.path == path and message in refused.value.message


def test_secret_driver_info_keys_are_named_by_any_case() -> None:
    kept, dropped = records.without_secrets(
        {
            "ipmi_address": "10.0.0.1",
            "ipmi_password": "x",
            "redfish_Password": "x",
            "client_secret": "x",
            "auth_token": "x",
            "ssh_KEY_contents": "x",
            "redfish_system_id": "/redfish/v1/Systems/1",
        }
    )
    assert kept == {"ipmi_address": "10.0.0.1", "redfish_system_id": "/redfish/v1/Systems/1"}
    assert dropped == [
        "ipmi_password",
        "redfish_Password",
        "client_secret",
        "auth_token",
        "ssh_KEY_contents",
    ]
