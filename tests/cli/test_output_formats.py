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


def test_nova_flavors_csv_sorted(example_repo: Path, cli: Invoke) -> None:
    result = cli(
        "nova-flavors", "-f", "csv", "-c", "id", "-c", "vcpus",
        "--sort-column", "vcpus", "--sort-column", "id",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:3] + result.stdout.splitlines()[-2:] == [
        '"id","vcpus"',
        '"m1.small",16',
        '"m1.small.mellanox-cx5",16',
        '"c2.large.vmx-mirror",64',
        '"g1.8xh100",112',
    ]
    refused = cli("nova-flavors", "-f", "shell")
    assert refused.exit_code == 2
    assert refused.stderr.endswith(
        "Error: Invalid value for '-f' / '--format': 'shell' is not an output format of this "
        "command; choose from table, json, yaml, value, csv\n"
    )


def test_extra_spec_and_trait_lists_csv_sorted(example_repo: Path, cli: Invoke) -> None:
    result = cli(
        "extra-specs", "list", "--namespace", "hw", "-f", "csv", "-c", "key",
        "--sort-column", "key",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:3] == ['"key"', '"hw:boot_menu"', '"hw:cpu_cores"']
    result = cli("trait", "list", "-f", "csv", "-c", "trait", "--sort-column", "trait")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:3] == [
        '"trait"',
        '"CUSTOM_BM_CONFIG_BIOS_VMX_OFF"',
        '"CUSTOM_BM_CONFIG_BIOS_VMX_ON"',
    ]


def test_extra_spec_show_columns(example_repo: Path, cli: Invoke) -> None:
    result = cli("extra-specs", "show", "hw:cpu_policy", "-c", "key", "-c", "value")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "+-------+---------------------------------+\n"
        "| Field | Value                           |\n"
        "+-------+---------------------------------+\n"
        "| key   | hw:cpu_policy                   |\n"
        "| value | one of dedicated, shared, mixed |\n"
        "+-------+---------------------------------+\n"
    )
    result = cli("extra-specs", "show", "hw:cpu_policy", "-f", "shell", "-c", "key")
    assert (result.exit_code, result.stdout) == (0, 'key="hw:cpu_policy"\n')


def test_provider_list_csv_sorted(cli: Invoke) -> None:
    result = cli("provider", "list", "-f", "csv", "-c", "name", "--sort-column", "name")
    assert (result.exit_code, result.stdout) == (0, '"name"\n"baremetal"\n"noop"\n')


def test_profiles_and_service_flavors_csv_sorted_and_show_columns(
    cli: Invoke, tmp_path: Path
) -> None:
    db = ["--database", f"sqlite:///{tmp_path / 'providers.db'}"]
    for name in ("zeta", "alpha"):
        created = cli(
            "flavor-profile", "create", "--name", name, "--provider", "noop",
            "--flavor-data", "{}", *db, "-c", "name", "-f", "value",
        )  # fmt: skip
        assert (created.exit_code, created.stdout) == (0, f"{name}\n"), created.output
        created = cli(
            "service-flavor", "create", "--name", f"sf-{name}", "--profile", name, *db,
            "-f", "shell", "-c", "name", "-c", "enabled",
        )  # fmt: skip
        assert (created.exit_code, created.stdout) == (
            0,
            f'name="sf-{name}"\nenabled="True"\n',
        ), created.output
    listed = cli(
        "flavor-profile", "list", *db, "-f", "csv", "-c", "name", "-c", "provider_name",
        "--sort-column", "name",
    )  # fmt: skip
    assert (listed.exit_code, listed.stdout) == (
        0,
        '"name","provider_name"\n"alpha","noop"\n"zeta","noop"\n',
    )
    listed = cli("service-flavor", "list", *db, "-f", "csv", "-c", "name", "--sort-column", "name")
    assert (listed.exit_code, listed.stdout) == (0, '"name"\n"sf-alpha"\n"sf-zeta"\n')
    shown = cli("service-flavor", "show", "sf-zeta", *db, "-c", "name", "-c", "description")
    assert (shown.exit_code, shown.stdout) == (
        0,
        "+-------------+---------+\n"
        "| Field       | Value   |\n"
        "+-------------+---------+\n"
        "| name        | sf-zeta |\n"
        "| description |         |\n"
        "+-------------+---------+\n",
    )
    shown = cli("flavor-profile", "show", "alpha", *db, "-f", "value", "-c", "provider_name")
    assert (shown.exit_code, shown.stdout) == (0, "noop\n")
    wrong = cli("flavor-profile", "show", "alpha", *db, "-c", "provider")
    assert wrong.exit_code == 2
    assert "unknown column 'provider' (did you mean 'provider_name'?)" in wrong.stderr


def test_reports_refuse_shell_before_doing_anything(
    example_repo: Path, cli: Invoke, tmp_path: Path
) -> None:
    db = ["--database", f"sqlite:///{tmp_path / 'sync.db'}"]
    for command in (
        ("sync", "plan"),
        ("sync", "apply"),
        ("explain", "c2.large"),
        ("deploy", "plan", "node-1"),
    ):
        result = cli(*command, *db, "-f", "shell")
        assert (result.exit_code, result.stdout) == (2, ""), command
        assert result.stderr.endswith(
            "Error: Invalid value for '-f' / '--format': 'shell' is not an output format of "
            "this command; choose from table, json, yaml, value\n"
        ), command
    # sync apply was refused before applying: the plan still creates every flavor.
    plan = cli("sync", "plan", *db, "-f", "value")
    assert plan.exit_code == 0, plan.output
    assert plan.stdout.splitlines()[0] == "create c2.diskless in the catalog, not in Nova"
    assert {line.split()[0] for line in plan.stdout.splitlines()} == {"create"}
    fleet = cli("classify", "--all", "--ironic-endpoint", "http://127.0.0.1:9", "-f", "shell")
    assert fleet.exit_code == 2
    assert "shell prints one record (--node); --all prints a list" in fleet.stderr


def test_classify_one_record_as_shell(example_repo: Path, cli: Invoke) -> None:
    inspection = Path(__file__).resolve().parents[2] / "examples/inspection/dl360-c2-large.json"
    result = cli("classify", str(inspection), "-f", "shell")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1:3] == [
        'device_type="hpe-proliant-dl360-gen11"',
        'resource_class="c2.large"',
    ]
