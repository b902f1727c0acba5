"""The reference pages the docs' hook generates (docs/hooks/reference.py) say what the code does:
every environment variable src/ reads is on the configuration page, every metric a scrape shows
is on the metrics page with its labels, every default of config.py is on the limits (or the
configuration) page with its value, and every exit code is on its page with its number."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import typer
from prometheus_client.parser import text_string_to_metric_families

from flavorsmith import config, metrics
from flavorsmith.cli import build
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.serving.metrics import collectors

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "flavorsmith"
# A name of ours wherever it is written (a docstring, a message, a constant), and a shell's
# completion variable with its leading underscore.
OURS = re.compile(r"(?<![A-Za-z0-9])_?FLAVORSMITH_[A-Z0-9_]*[A-Z0-9]")


def _load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "reference_hook", ROOT / "docs/hooks/reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


hook = _load_hook()


@pytest.fixture(scope="module")
def root() -> Any:
    return typer.main.get_command(build())


@pytest.fixture(scope="module")
def app() -> Iterator[Any]:
    with hook.service_app() as built:
        yield built


def _row(page: str, cell: str) -> str:
    """The one table row whose first cell is ``cell``."""
    rows = [line for line in page.splitlines() if line.startswith(f"| {cell} |")]
    assert len(rows) == 1, f"{cell}: {rows}"
    return rows[0]


def _constants(tree: ast.Module) -> dict[str, str]:
    """A module's top-level NAME = "text" constants."""
    return {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for target in node.targets
        if isinstance(target, ast.Name) and isinstance(node.value.value, str)
    }


def _is_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def environment_reads() -> set[str]:
    """Every variable src/ reads through os.environ or os.getenv (by a literal, or by a
    module's constant such as ``metrics.MULTIPROC_ENV``), and every FLAVORSMITH_ name it
    writes anywhere."""
    trees = {path: ast.parse(path.read_text()) for path in SRC.rglob("*.py")}
    constants: dict[str, str] = {}
    for tree in trees.values():
        constants.update(_constants(tree))
    found: set[str] = set()
    for path, tree in trees.items():
        found |= set(OURS.findall(path.read_text()))
        for node in ast.walk(tree):
            names: list[ast.expr] = []
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "get" and _is_environ(node.func.value) and node.args:
                    names.append(node.args[0])
                if node.func.attr == "getenv" and node.args:
                    names.append(node.args[0])
            elif isinstance(node, ast.Subscript) and _is_environ(node.value):
                names.append(node.slice)
            elif isinstance(node, ast.Compare) and any(_is_environ(c) for c in node.comparators):
                names.append(node.left)
            for name in names:
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    found.add(name.value)
                elif isinstance(name, ast.Name | ast.Attribute):
                    key = name.id if isinstance(name, ast.Name) else name.attr
                    if key in constants:
                        found.add(constants[key])
    return found


def test_the_scan_finds_the_reads_written_every_way() -> None:
    found = environment_reads()
    # A literal read, a read through another module's constant, a name only in a message,
    # and a name in a module's constant read through a parameter.
    assert {"XDG_DATA_HOME", "PROMETHEUS_MULTIPROC_DIR", "FLAVORSMITH_DEBUG"} <= found
    assert {"_FLAVORSMITH_COMPLETE", "FLAVORSMITH_CATALOG", "NO_COLOR"} <= found


def test_every_variable_read_in_src_is_on_the_configuration_page(root: Any) -> None:
    page = hook.configuration_page(root)
    missing = sorted(name for name in environment_reads() if f"`{name}`" not in page)
    assert not missing, f"declare them in flavorsmith.config.ENVIRONMENT: {missing}"


def test_every_declared_variable_is_read_somewhere() -> None:
    declaration = SRC / "config.py"
    lines = declaration.read_text().splitlines()
    (block,) = [n for n in ast.parse(declaration.read_text()).body if _declares(n)]
    lines[block.lineno - 1 : block.end_lineno] = []
    written = "\n".join(
        [*(path.read_text() for path in SRC.rglob("*.py") if path != declaration), *lines]
    )
    stale = [
        v.name
        for v in config.ENVIRONMENT
        if not re.search(rf"(?<![A-Za-z0-9_]){v.name}(?![A-Za-z0-9_])", written)
    ]
    assert not stale, f"no longer read in src/: {stale}"


def _declares(node: ast.stmt) -> bool:
    return isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "ENVIRONMENT" for t in node.targets
    )


def test_the_configuration_page_gives_serve_options_their_defaults_and_variables(
    root: Any,
) -> None:
    page = hook.configuration_page(root)
    assert f"| `{config.DEFAULT_PORT}` |" in _row(page, "`--port`")
    assert "`FLAVORSMITH_PROVIDERS`" in _row(page, "`--providers`")
    assert "| off |" in _row(page, "`--sync`")
    # A variable bound to an option names it; one read directly says what it does.
    assert "`--database`" in _row(page, "`FLAVORSMITH_DATABASE_URL`")
    assert "`--repo`" in _row(page, "`UC_DEPLOY`")
    assert "per-user data folder" in _row(page, "`XDG_DATA_HOME`")
    internal = page.split("Set by Flavorsmith itself", 1)[1]
    assert "`FLAVORSMITH_SERVE_CONFIG`" in internal
    assert "| `FLAVORSMITH_SERVE_CONFIG` |" not in page


def test_every_metric_a_scrape_shows_is_on_the_page_with_its_labels(app: Any, root: Any) -> None:
    page = hook.metrics_page(hook.metric_families(app), root)
    scraped = text_string_to_metric_families(
        metrics.exposition(collectors(app.state.services)).decode()
    )
    names = [f"{f.name}_total" if f.type == "counter" else f.name for f in scraped]
    assert len(names) > 15
    for name in names:
        assert name.startswith("flavorsmith_")
        _row(page, f"`{name}`")
    requests = _row(page, "`flavorsmith_http_requests_total`")
    assert "| counter | `family`, `route`, `method`, `status` | recorded |" in requests
    available = _row(page, "`flavorsmith_flavor_nodes_available`")
    assert "| gauge | `flavor`, `resource_class` | computed when scraped |" in available
    lag = _row(page, "`flavorsmith_mirror_lag_seconds`")
    assert "`source`" in lag
    assert "`serve --metrics-port PORT`" in page and "`/metrics`" in page


def _shown(name: str, value: float) -> str:
    if name.endswith("_BYTES"):
        return f"{value / 1024 / 1024:g} MiB" if value >= 1024 * 1024 else f"{value / 1024:g} KiB"
    return f"{value:,g}"


def test_every_default_and_maximum_of_config_is_on_a_page_with_its_value(root: Any) -> None:
    limits = hook.limits_page(root)
    configuration = hook.configuration_page(root)
    constants = {
        name: value
        for name, value in vars(config).items()
        if re.fullmatch(r"(DEFAULT|MAX)_[A-Z_]+", name)
    }
    assert len(constants) >= 12
    for name, value in constants.items():
        rows = [line for line in limits.splitlines() if f"`flavorsmith.config.{name}`" in line]
        if rows:
            assert f"| {_shown(name, value)}" in rows[0], name
        else:  # a setting, not a limit: the default of a serve option
            assert f"| `{value}` |" in configuration, name


def test_an_option_whose_default_is_not_its_constant_stops_the_build(
    root: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = hook.Limit("idle", config, "DEFAULT_HEADER_TIMEOUT", "s", "--idle-timeout", "closed")
    monkeypatch.setattr(hook, "LIMITS", (wrong,))
    with pytest.raises(ValueError, match="--idle-timeout's default is not"):
        hook.limits_page(root)


def test_every_exit_code_is_on_the_page_and_is_what_the_cli_exits_with() -> None:
    page = hook.exit_codes_page()
    for name, member in ExitCode.__members__.items():
        row = [line for line in page.splitlines() if f"| `{name}` |" in line]
        assert len(row) == 1 and row[0].startswith(f"| {int(member)} |"), name
        assert "``" not in row[0]
    assert len(ExitCode.__members__) == 5
    usage = subprocess.run(
        [sys.executable, "-m", "flavorsmith", "validate", "--no-such-option"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert usage.returncode == ExitCode.USAGE
    assert "No such option" in usage.stderr


def test_the_registry_page_links_a_glance_file_for_every_namespace_metadef_writes(
    tmp_path: Path,
) -> None:
    written = tmp_path / "metadefs"
    done = subprocess.run(
        [sys.executable, "-m", "flavorsmith", "extra-specs", "metadef", "--output", str(written)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names = sorted(path.name for path in written.glob("*.json"))
    assert "hw.json" in names and "trait.json" in names
    page = hook.registry_page(hook.namespaces(hook.builtin_registry()))
    linked = sorted(re.findall(rf"\]\(\.\./{hook.METADEFS}/([a-z]+\.json)\)", page))
    assert linked == names
