"""-f csv/shell, -c with a suggestion for a typo, --sort-column: whole outputs."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Invoke


def test_csv_sorted_by_two_columns(example_repo: Path, cli: Invoke) -> None:
    result = cli(
        "flavor", "list", "-f", "csv", "-c", "name", "-c", "is_public",
        "--sort-column", "is_public", "--sort-column", "name",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:4] == [
        '"name","is_public"',
        '"m1.medium.dedicated","False"',
        '"c2.diskless","True"',
        '"c2.large","True"',
    ]


def test_shell_prints_variables_with_a_prefix(example_repo: Path, cli: Invoke) -> None:
    result = cli(
        "flavor", "show", "m1.small", "-f", "shell", "--prefix", "fs_",
        "-c", "name", "-c", "nova_flavor.ram", "-c", "nova_flavor.extra_specs", "-c", "is_public",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        'fs_name="m1.small"\n'
        'fs_nova_flavor_ram="131072"\n'
        'fs_nova_flavor_extra_specs="resources:CUSTOM_M1_SMALL=1 resources:VCPU=0'
        ' resources:MEMORY_MB=0 resources:DISK_GB=0"\n'
        'fs_is_public="True"\n'
    )


def test_show_columns_pick_fields_in_the_order_asked(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "show", "m1.small", "-c", "is_public", "-c", "name")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "+-----------+----------+\n"
        "| Field     | Value    |\n"
        "+-----------+----------+\n"
        "| is_public | True     |\n"
        "| name      | m1.small |\n"
        "+-----------+----------+\n"
    )


def test_an_unknown_column_is_a_usage_error_with_a_suggestion(
    example_repo: Path, cli: Invoke
) -> None:
    result = cli("flavor", "list", "-c", "nmae")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "Usage: flavorsmith flavor list [OPTIONS]\n"
        "Try 'flavorsmith flavor list -h' for help.\n\n"
        "Error: Invalid value for '-c' / '--column': unknown column 'nmae' (did you mean"
        " 'name'?); choose from name, resource_class, traits, is_public, description\n"
    )
    result = cli("flavor", "list", "--sort-column", "resource-class")
    assert result.exit_code == 2
    assert "unknown column 'resource-class' (did you mean 'resource_class'?)" in result.stderr


def test_shell_is_refused_for_a_list(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "list", "-f", "shell")
    assert result.exit_code == 2
    assert "'-f' / '--format'" in result.stderr
