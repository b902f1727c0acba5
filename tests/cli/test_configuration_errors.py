"""Configuration mistakes are one usage error (exit 2) at start, never "internal error" later:
database URLs, SQLite folders that do not exist, sync targets, and a catalog path for serve."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from flavorsmith.config import ConfigError
from flavorsmith.db.engine import make_engine
from flavorsmith.serving.process import ServeConfig
from tests.api.conftest import build_app
from tests.conftest import EXAMPLES, Invoke
from tests.live import serving


@pytest.fixture(autouse=True)
def _no_database_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("FLAVORSMITH_DATABASE_URL", raising=False)
    monkeypatch.delenv("OS_CLOUD", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def usage_error(result: object) -> str:
    """The one ``Error:`` line of a usage error (exit 2), after checking there is no crash."""
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    stderr: str = result.stderr  # type: ignore[attr-defined]
    assert "internal error" not in stderr and "Traceback" not in stderr
    (line,) = [x for x in stderr.splitlines() if x.startswith("Error:")]
    return line


COMMANDS = [
    ("db", "current"),
    ("db", "upgrade"),
    ("node", "list"),
    ("serve", "--repo", str(EXAMPLES)),
    ("sync", "plan", "--repo", str(EXAMPLES)),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "notaurl",
            "'notaurl' is not a database URL: write sqlite:///PATH or "
            "postgresql+psycopg://USER@HOST/DATABASE",
        ),
        (
            "postgres://alice:secret@db.example/fs",
            "postgres://alice:***@db.example/fs: write "
            "postgresql+psycopg://alice:***@db.example/fs (the psycopg 3 driver this service ships)",
        ),
        ("mysql://db/fs", "mysql://db/fs: unsupported database 'mysql'"),
        (
            "postgresql+psycopg://postgres@127.0.0.1/te%00st",
            "a NUL character (%00) cannot be part of a database URL",
        ),
        ("sqlite:////tmp/x%00y.db", "a NUL character (%00) cannot be part of a database URL"),
    ],
    ids=["not-a-url", "postgres-scheme", "mysql", "nul-postgresql", "nul-sqlite"],
)
def test_a_bad_database_url_is_a_usage_error(
    cli: Invoke, command: tuple[str, ...], url: str, expected: str
) -> None:
    line = usage_error(cli(*command, "--database", url))
    assert line.startswith("Error: Invalid value for '--database': ")
    assert expected in line


def test_a_sqlite_folder_that_does_not_exist_is_named(cli: Invoke, tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such"
    for command in COMMANDS:
        line = usage_error(cli(*command, "--database", f"sqlite:///{missing}/fs.db"))
        assert f"the folder {missing} does not exist" in line
    assert not (tmp_path / "no").exists()  # nothing created on the way
    with pytest.raises(ConfigError, match=f"the folder {missing} does not exist"):
        make_engine(f"sqlite:///{missing}/fs.db")
    assert not (tmp_path / "no").exists()


def test_only_the_default_location_is_created(cli: Invoke, tmp_path: Path) -> None:
    default = tmp_path / "xdg" / "flavorsmith"
    assert not default.exists()
    done = cli("db", "upgrade")
    assert done.exit_code == 0, done.output
    assert (default / "flavorsmith.db").is_file()
    existing = tmp_path / "mine.db"
    assert cli("db", "upgrade", "--database", f"sqlite:///{existing}").exit_code == 0
    assert existing.is_file()


@pytest.mark.parametrize("command", ["plan", "apply"])
def test_sync_targets_are_checked(cli: Invoke, command: str) -> None:
    args = ["sync", command, "--repo", str(EXAMPLES)]
    line = usage_error(cli(*args, "--endpoint", "127.0.0.1:8780/compute/v2.1"))
    assert "'127.0.0.1:8780/compute/v2.1' is not an http:// or https:// URL" in line
    line = usage_error(cli(*args, "--endpoint", "http://"))
    assert "is not an http:// or https:// URL" in line
    line = usage_error(cli(*args, "--cloud", "prod", "--endpoint", "http://127.0.0.1:1/compute"))
    assert "--cloud and --endpoint name two targets: give one of them" in line


def test_an_explicit_endpoint_wins_over_os_cloud(
    cli: Invoke, tmp_path: Path, migrated_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OS_CLOUD", "no-such-cloud")
    with serving(build_app(migrated_engine)) as url:
        result = cli("sync", "plan", "--repo", str(EXAMPLES), "--endpoint", f"{url}/compute/v2.1")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("sync", [[], ["--sync"]], ids=["serve", "serve --sync"])
def test_serve_refuses_a_path_that_is_not_a_catalog(
    cli: Invoke, tmp_path: Path, sync: list[str]
) -> None:
    for path in (tmp_path / "does" / "not" / "exist", tmp_path):
        result = cli("serve", "--repo", str(path), *sync)
        line = usage_error(result)
        assert f"{path} is not a catalog repository: it has no hardware/ folder" in line
        assert "serving on" not in result.stderr


def test_the_installed_command_says_a_usage_error_in_one_line(tmp_path: Path) -> None:
    """The console script (not the in-process runner) prints a usage error as one line."""
    import subprocess
    import sys

    missing = tmp_path / "does-not-exist"
    done = subprocess.run(
        [sys.executable, "-m", "flavorsmith", "serve", "--repo", str(missing)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("flavorsmith serve: error: Invalid value for '--repo': ")
    assert f"{missing} is not a catalog repository" in line
    assert line.endswith("(see flavorsmith serve --help)")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--ironic-cloud", "prod", "--ironic-endpoint", "http://127.0.0.1:6385"],
            "--ironic-cloud and --ironic-endpoint name two Ironics: give one of them",
        ),
        (
            ["--ironic-endpoint", "127.0.0.1:6385"],
            "'127.0.0.1:6385' is not an http:// or https:// URL",
        ),
    ],
    ids=["both", "not a URL"],
)
def test_serve_refuses_an_ironic_to_mirror_it_cannot_use(
    cli: Invoke, args: list[str], message: str
) -> None:
    result = cli("serve", "--repo", str(EXAMPLES), *args)
    assert message in usage_error(result)
    assert "serving on" not in result.stderr


def test_serve_refuses_an_empty_list_of_enabled_drivers(cli: Invoke) -> None:
    result = cli("serve", "--repo", str(EXAMPLES), "--enabled-drivers", " , ")
    line = usage_error(result)
    assert "'--enabled-drivers'" in line and "name at least one driver" in line
    assert "serving on" not in result.stderr


def test_the_enabled_drivers_reach_every_worker() -> None:
    config = ServeConfig(database_url="sqlite://", enabled_drivers="ipmi, snmp")
    again = ServeConfig.from_json(config.to_json())
    assert again.settings().enabled_drivers == ("ipmi", "snmp")
    assert ServeConfig(database_url="sqlite://").settings().enabled_drivers is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--token-file", "TOKENS"],
            "--token-file is read only with --auth token-file, and --auth is noauth: "
            "add --auth token-file, or leave --token-file out",
        ),
        (
            ["--auth", "token-file", "--token-file", "TOKENS", "--keystone-config", "TOKENS"],
            "--keystone-config is read only with --auth keystone, and --auth is token-file: "
            "add --auth keystone, or leave --keystone-config out",
        ),
    ],
    ids=["token file without its mode", "keystone config with another mode"],
)
def test_serve_refuses_an_auth_file_its_mode_would_ignore(
    cli: Invoke, tmp_path: Path, args: list[str], message: str
) -> None:
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text("{}\n")
    result = cli(
        "serve", "--repo", str(EXAMPLES), *[str(tokens) if a == "TOKENS" else a for a in args]
    )
    assert message in usage_error(result)
    assert "serving on" not in result.stderr
