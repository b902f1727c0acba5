"""-c selects every field a show table shows, in every format; a bad -f is one line in our
words; an empty database is said rather than answered with zeros."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke


@pytest.mark.parametrize(
    ("fmt", "shown"),
    [
        ("value", "131072\nm1.small\n"),
        ("shell", 'nova_flavor_ram="131072"\nname="m1.small"\n'),
        ("json", '{\n  "nova_flavor.ram": 131072,\n  "name": "m1.small"\n}\n'),
        ("yaml", "nova_flavor.ram: 131072\nname: m1.small\n"),
        (
            "table",
            "+-----------------+----------+\n"
            "| Field           | Value    |\n"
            "+-----------------+----------+\n"
            "| nova_flavor.ram | 131072   |\n"
            "| name            | m1.small |\n"
            "+-----------------+----------+\n",
        ),
    ],
)
def test_a_nested_field_is_a_column_in_every_format(
    example_repo: Path, cli: Invoke, fmt: str, shown: str
) -> None:
    result = cli("flavor", "show", "m1.small", "-f", fmt, "-c", "nova_flavor.ram", "-c", "name")
    assert (result.exit_code, result.stderr, result.stdout) == (0, "", shown)


def test_a_flattened_group_is_a_column_of_the_table(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "show", "m1.small", "-f", "value", "-c", "nova_flavor")
    assert result.exit_code == 0, result.stderr
    table = cli("flavor", "show", "m1.small", "-f", "shell", "-c", "nova_flavor")
    assert (table.exit_code, table.stdout) == (
        0,
        'nova_flavor_id="m1.small"\n'
        'nova_flavor_description="Small compute flavor with 16 cores, 128GB RAM, and dual 480GB '
        'drives"\n'
        'nova_flavor_vcpus="16"\n'
        'nova_flavor_ram="131072"\n'
        'nova_flavor_disk="480"\n'
        'nova_flavor_extra_specs="resources:CUSTOM_M1_SMALL=1 resources:VCPU=0 '
        'resources:MEMORY_MB=0 resources:DISK_GB=0"\n',
    )


def test_a_bad_format_is_one_line(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "show", "m1.small", "-f", "xml")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == (
        "Error: Invalid value for '-f' / '--format': 'xml' is not an output format of this "
        "command; choose from table, json, yaml, value, shell"
    )
    typo = cli("flavor", "list", "-f", "jsn")
    assert typo.stderr.splitlines()[-1] == (
        "Error: Invalid value for '-f' / '--format': 'jsn' is not an output format of this "
        "command (did you mean 'json'?); choose from table, json, yaml, value, csv"
    )
    assert cli("flavor", "list", "-f", "JSON").exit_code == 0


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        (["capacity", "--repo", str(EXAMPLES), "-c", "flavor", "-c", "matching_nodes"], 16),
        (["match", "--repo", str(EXAMPLES), "-c", "flavor", "-c", "count"], 16),
        (["node", "list"], 4),
    ],
)
def test_an_empty_database_is_said(
    tmp_path: Path, cli: Invoke, command: list[str], shown: int
) -> None:
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    result = cli(*command, "--database", url)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (f"0 nodes in {url} — import nodes, or use --cloud/--ironic-endpoint\n")
    assert len(result.stdout.splitlines()) == shown
