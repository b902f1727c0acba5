"""Adding a sync kind is one module and one registry line: ``tests/sync/widgets.py`` is a
whole kind, written the way a new kind of Flavorsmith's would be. The engine and both target
modules run it as given; registered with one more line in ``sync.kinds`` (in a child process,
so the real registry is left alone), the command line's ``--only`` and ``/v1/sync/*``'s
``only=`` offer it and sync it, with no other change."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from flavorsmith.catalog.repo import Repository
from flavorsmith.sync import kinds
from flavorsmith.sync import store_target as store
from flavorsmith.sync.engine import run, sdk_target
from tests.conftest import EXAMPLES
from tests.support.catalogs import RULES
from tests.sync import widgets

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "flavorsmith"


def test_no_module_outside_the_registry_names_a_kind() -> None:
    """The engine, the targets, the watcher, the CLI and the API know kinds only through the
    registry (``sync.kinds``), never a kind's own module."""
    kind_modules = {
        f"flavorsmith.sync.kinds.{p.stem}" for p in (SRC / "sync" / "kinds").glob("*.py")
    }
    kind_modules.discard("flavorsmith.sync.kinds.__init__")
    assert kind_modules == {
        "flavorsmith.sync.kinds.nova_flavors",
        "flavorsmith.sync.kinds.deploy_templates",
        "flavorsmith.sync.kinds.classification",
        "flavorsmith.sync.kinds.inspection_rules",
        "flavorsmith.sync.kinds.runbooks",
        "flavorsmith.sync.kinds.load_balancer_flavors",
        "flavorsmith.sync.kinds.network_flavors",
    }
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.parent == SRC / "sync" / "kinds":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                named = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                named = {a.name for a in node.names}
            else:
                continue
            if named & kind_modules:
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def test_the_engine_and_both_targets_run_a_kind_they_do_not_know() -> None:
    engine: Any = object()
    connection = object()
    own = store.target(widgets.KIND, engine)
    cloud = sdk_target(widgets.KIND, connection)
    assert isinstance(own, widgets.Shelf) and own.origin is engine
    assert isinstance(cloud, widgets.Shelf) and cloud.origin is connection

    shelf = widgets.Shelf(
        engine, {"old": widgets.Widget("old"), "theirs": widgets.Widget("theirs", managed=False)}
    )
    repository = Repository(EXAMPLES, RULES)
    names = widgets.desired(repository.load().catalog)
    assert len(names) == 12
    # the engine's safety rules hold for it too: a prune deleting every managed widget
    refused = run(widgets.KIND, repository, shelf, prune=True, execute=True)
    assert refused.refused == 1 and refused.report is None and len(shelf.held) == 2
    assert refused.error is not None and "the only managed widget" in refused.error
    result = run(widgets.KIND, repository, shelf, prune=True, execute=True, allow_empty=True)
    assert result.error is None and result.report is not None
    assert result.report.writes == 13 and not result.report.failed
    assert sorted(shelf.held) == sorted([*names, "theirs"])
    again = run(widgets.KIND, repository, shelf, prune=True, execute=True)
    assert again.report is not None and again.report.writes == 0
    assert {a.kind for a in again.actions} == {"noop", "unmanaged"}


# The child process: the registry's own source with the kind's line added, imported as the
# registry, and the kind's module found under sync.kinds; then the CLI and the API.
CHILD = textwrap.dedent(
    """
    import importlib.util, json, sys
    from pathlib import Path

    registry, widgets, repo = (Path(p) for p in sys.argv[1:4])
    database = sys.argv[4]

    class Finder:
        def find_spec(self, name, path=None, target=None):
            if name == "flavorsmith.sync.kinds":
                return importlib.util.spec_from_file_location(
                    name, registry, submodule_search_locations=[sys.argv[5]]
                )
            if name == "flavorsmith.sync.kinds.widgets":
                return importlib.util.spec_from_file_location(name, widgets)
            return None

    sys.meta_path.insert(0, Finder())

    from fastapi.testclient import TestClient
    from typer.testing import CliRunner

    from flavorsmith.cli import build
    from flavorsmith.db import migrate
    from flavorsmith.db.engine import make_engine
    from flavorsmith.sync import kinds
    from tests.api.conftest import build_app

    out = {"names": list(kinds.NAMES)}
    runner = CliRunner()
    cli = lambda *args: runner.invoke(build(), list(args), prog_name="flavorsmith")
    out["help"] = cli("sync", "plan", "--help").stdout
    out["unknown"] = cli("sync", "plan", "--only", "gadgets").stderr
    plan = cli("sync", "plan", "--only", "widgets", "--repo", str(repo), "--database", database, "-f", "json")
    out["cli"] = [plan.exit_code, json.loads(plan.stdout)]
    cloud = cli("sync", "plan", "--only", "widgets", "--repo", str(repo), "--endpoint", "http://127.0.0.1:9", "-f", "json")
    out["cloud"] = [cloud.exit_code, json.loads(cloud.stdout)]
    engine = make_engine(database)
    migrate.upgrade(engine)
    with TestClient(build_app(engine, repo=repo)) as client:
        response = client.get("/v1/sync/plan?only=widgets")
        out["api"] = [response.status_code, response.json()]
        response = client.get("/v1/sync/plan?only=gadgets")
        out["api_unknown"] = [response.status_code, response.json()]
    engine.dispose()
    print(json.dumps(out))
    """
)


def test_one_registry_line_offers_the_kind_on_the_command_line_and_over_the_api(
    tmp_path: Path,
) -> None:
    source = Path(kinds.__file__).read_text()
    line = "    deploy_templates.KIND,\n"
    assert source.count(line) == 1
    imports = "    runbooks,\n)\n"  # the last module of the registry's import
    assert source.count(imports) == 1
    registered = source.replace(imports, "    runbooks,\n    widgets,\n)\n").replace(
        line, line + "    widgets.KIND,\n"
    )
    assert registered.count("widgets") == 2  # the import and the line
    registry = tmp_path / "registry.py"
    registry.write_text(registered)
    database = f"sqlite:///{tmp_path / 'sync.db'}"
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(registry),
            widgets.__file__,
            str(EXAMPLES),
            database,
            str(Path(kinds.__file__).parent),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={
            "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}",
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
        },
        timeout=120,
    )
    assert child.returncode == 0, child.stderr
    out = json.loads(child.stdout.splitlines()[-1])
    assert out["names"] == [
        "flavors",
        "deploy-templates",
        "widgets",
        "runbooks",
        "classification",
        "inspection-rules",
        "load-balancer-flavors",
        "network-flavors",
    ]
    assert (
        "oneofflavors,deploy-templates,widgets,runbooks,classification,inspection-rules,"
        "load-balancer-flavors,network-flavors." in "".join(out["help"].split())
    )
    assert (
        "choose one of flavors, deploy-templates, widgets, runbooks, classification, "
        "inspection-rules, load-balancer-flavors, network-flavors" in out["unknown"]
    )
    for channel in ("cli", "cloud", "api"):
        status, body = out[channel]
        assert status in (0, 200), channel
        assert [a["action"] for a in body["actions"]] == ["create"] * 12, channel
        assert {a["widget"] for a in body["actions"]} == {
            f.name for f in Repository(EXAMPLES, RULES).load().catalog.flavors
        }
    status, body = out["api_unknown"]
    assert status == 400
    assert (
        "only=flavors or only=deploy-templates or only=widgets or only=runbooks or "
        "only=classification or only=inspection-rules or only=load-balancer-flavors"
        in json.dumps(body)
    )
