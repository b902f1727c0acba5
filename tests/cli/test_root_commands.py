"""validate, schema and nova-flavors at the root; repository discovery; no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.testing

from flavorsmith.cli import build
from tests.conftest import EXAMPLES, Invoke


def test_schema_command_prints_packaged_schemas(cli: Invoke) -> None:
    for kind in ("flavor", "device-type"):
        result = cli("schema", kind)
        assert result.exit_code == 0
        schema = json.loads(result.stdout)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"] == f"https://flavorsmith.dev/schemas/v1/{kind}.schema.json"
    assert cli("schema", "router").exit_code == 2


def test_repository_resolution_order(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    not_repo = cli("validate")
    assert not_repo.exit_code == 2
    assert f"{tmp_path} is not a catalog repository" in not_repo.stderr
    monkeypatch.setenv("UC_DEPLOY", str(EXAMPLES))
    assert cli("validate").exit_code == 0
    monkeypatch.setenv("FLAVORSMITH_REPO", str(tmp_path))
    assert cli("validate").exit_code == 2  # FLAVORSMITH_REPO wins over UC_DEPLOY
    assert cli("validate", "--repo", str(EXAMPLES)).exit_code == 0  # --repo wins over both


def test_nova_flavors_json(cli: Invoke) -> None:
    result = cli("nova-flavors", "--repo", str(EXAMPLES), "-f", "json")
    assert result.exit_code == 0
    flavors = {f["id"]: f for f in json.loads(result.stdout)}
    assert len(flavors) == 12
    assert flavors["m1.small.nvme-cx5-no-gpu"] == {
        "id": "m1.small.nvme-cx5-no-gpu",
        "name": "m1.small.nvme-cx5-no-gpu",
        "description": "Small compute flavor with NVMe storage and ConnectX-5 NICs, never on a "
        "GPU node",
        "is_public": True,
        "projects": [],
        "vcpus": 16,
        "ram": 131072,
        "disk": 480,
        "extra_specs": {
            "resources:CUSTOM_M1_SMALL": "1",
            "resources:VCPU": "0",
            "resources:MEMORY_MB": "0",
            "resources:DISK_GB": "0",
            "trait:CUSTOM_GPU": "forbidden",
            "trait:CUSTOM_NIC_MELLANOX_CX5": "required",
            "trait:CUSTOM_NVME": "required",
        },
    }
    assert flavors["c2.diskless"]["disk"] == 0
    assert flavors["m1.medium.dedicated"]["is_public"] is False
    assert flavors["m1.medium.dedicated"]["projects"] == [
        "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d",
        "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a",
    ]


def test_nova_flavors_table(cli: Invoke) -> None:
    result = cli("nova-flavors", "--repo", str(EXAMPLES), "-c", "id", "-c", "vcpus", "-c", "disk")
    assert result.stdout.splitlines()[:5] == [
        "+--------------------------+-------+------+",
        "| id                       | vcpus | disk |",
        "+--------------------------+-------+------+",
        "| c2.diskless              | 64    | 0    |",
        "| c2.large                 | 64    | 1920 |",
    ]


def test_nova_flavors_refuses_a_broken_catalog(cli: Invoke) -> None:
    result = cli("nova-flavors", "--repo", str(EXAMPLES / "broken" / "wrong-type"))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(
        "the catalog has errors; no Nova flavors are derived from it:\n"
    )


def test_console_script_never_prints_a_traceback(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.yaml"
    garbage.write_bytes(b"\x00\xff{[: &a *a\n" * 20)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "flavorsmith",
            "flavor",
            "validate",
            "--repo",
            str(tmp_path),
            str(garbage),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout.startswith(f"{garbage}:1:")


def test_version(cli: Invoke) -> None:
    assert cli("--version").stdout == "flavorsmith 0.1.0\n"


def _command_paths() -> list[list[str]]:
    """Every command and group of the CLI, as the words that name it."""
    paths: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        paths.append(path)
        # Typer ships its own click: a group is whatever has subcommands.
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(build()), [])
    return paths


def test_dash_h_is_help_on_every_command(cli: Invoke) -> None:
    root = cli("-h")
    assert root.exit_code == 0, root.output
    assert root.stdout.startswith("Usage: flavorsmith [OPTIONS] COMMAND [ARGS]...")
    assert "-h, --help" in root.stdout
    listed = cli("node", "list", "-h")
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.startswith("Usage: flavorsmith node list [OPTIONS]")
    paths = _command_paths()
    assert len(paths) > 40
    for path in paths:
        short, long = cli(*path, "-h"), cli(*path, "--help")
        assert (short.exit_code, short.stdout) == (0, long.stdout), path


def test_the_root_lists_its_commands_without_loading_them(cli: Invoke) -> None:
    # The root's help, --version or a mistyped word load no command module: the commands are
    # listed from their summaries, which must say what each command's own help says.
    listing = build(listing=True)
    runner = typer.testing.CliRunner()
    for width in (60, 200):
        listed = runner.invoke(listing, ["--help"], prog_name="flavorsmith", terminal_width=width)
        assert listed.exit_code == 0
        assert listed.stdout == cli("--help", terminal_width=width).stdout
    mistyped = runner.invoke(listing, ["nod"], prog_name="flavorsmith")
    assert "Did you mean 'node'?" in mistyped.stderr
    loaded = loaded_modules("--help")
    assert [m for m in loaded if m.startswith("flavorsmith.")] == [
        "flavorsmith.cli",
        "flavorsmith.cli.completion",
        "flavorsmith.cli.exit_codes",
        "flavorsmith.cli.output",
        "flavorsmith.did_you_mean",
    ]


def test_a_command_loads_only_what_it_needs() -> None:
    # The root loads the first word's modules only: validating extra specs needs neither the
    # database nor the OpenStack SDK (nor the provider or node commands).
    loaded = loaded_modules("extra-specs", "validate", "--help")
    assert "flavorsmith.cli.extra_specs.validate" in loaded
    assert not [m for m in loaded if m.startswith(("sqlalchemy", "openstack", "fastapi"))]
    assert not [m for m in loaded if m.startswith(("flavorsmith.cli.providers", "flavorsmith.db"))]


def loaded_modules(*args: str) -> list[str]:
    """The modules a fresh process has loaded after ``flavorsmith ARGS``."""
    probe = (
        "import json, sys\n"
        "from flavorsmith.cli import main\n"
        f"sys.argv = ['flavorsmith', *{list(args)!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    found: list[str] = json.loads(run.stdout.splitlines()[-1])
    return found
