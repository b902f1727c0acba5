"""The watcher syncs every registered kind (serve --sync), or the one chosen on the command
line (sync apply --watch --only ...), deploy templates included."""

from __future__ import annotations

import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.catalog.fingerprint import fingerprint
from flavorsmith.catalog.repo import Repository
from flavorsmith.cli.sync import apply as apply_module
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.logs import fields_of, formatter
from flavorsmith.sync import store_target as store
from flavorsmith.sync.kinds import deploy_templates
from flavorsmith.sync.kinds.deploy_templates import StoreTemplates
from flavorsmith.sync.kinds.nova_flavors import KIND as FLAVORS
from flavorsmith.sync.kinds.nova_flavors import StoreFlavors
from flavorsmith.sync.watch import watch
from tests.conftest import EXAMPLES, Invoke
from tests.support.catalogs import RULES
from tests.support.configmap_volume import mount_catalog


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "deploy" / "hardware")
    return tmp_path / "deploy"


def test_one_round_syncs_every_kind(
    repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'watch.db'}")
    migrate.upgrade(engine)
    caplog.set_level("INFO", logger="flavorsmith.sync")
    ran = watch(
        Repository(repo, RULES),
        lambda kind: store.target(kind, engine),
        engine,
        prune=False,
        rounds=1,
    )
    assert ran == 1
    lines = [fields_of(r) for r in caplog.records]
    runbooks = len(Repository(repo, RULES).load().catalog.runbooks)
    assert [(line["kind"], line["round"], line["writes"]) for line in lines] == [
        ("flavors", 1, 12),
        ("deploy-templates", 1, 4),
        ("runbooks", 1, runbooks),
    ]
    assert len([f for f in StoreFlavors(engine).observe().values() if f.managed]) == 12
    assert len([t for t in StoreTemplates(engine).observe().values() if t.managed]) == 4
    engine.dispose()


def test_watch_keeps_deploy_templates_in_sync_from_the_command_line(
    cli: Invoke, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def fake_watch(repository: Repository, make_target: Any, engine: Any, **options: Any) -> int:
        seen.update(options, target=make_target(options["kinds"][0]))
        return 0

    monkeypatch.setattr(apply_module, "keep_watching", fake_watch)
    database = f"sqlite:///{tmp_path / 'cli.db'}"
    args = ["--repo", str(repo), "--database", database, "--only", "deploy-templates"]
    result = cli("sync", "apply", *args, "--watch", "--prune")
    assert result.exit_code == 0, result.output
    assert seen["kinds"] == (deploy_templates.KIND,) and seen["prune"] is True
    assert isinstance(seen["target"], StoreTemplates)


def test_an_unknown_kind_is_a_usage_error_naming_the_registry(cli: Invoke, repo: Path) -> None:
    for command in ("plan", "apply"):
        result = cli("sync", command, "--repo", str(repo), "--only", "nodes")
        assert result.exit_code == 2
        assert "'nodes' is not a sync kind; choose one of flavors, deploy-templates" in " ".join(
            result.stderr.split()
        )


def test_the_fingerprint_outlives_folders_removed_while_it_looks(tmp_path: Path) -> None:
    """A checkout that deletes hardware/ under a running watcher: every look succeeds (the old
    walk raised FileNotFoundError here hundreds of times in two seconds and killed the
    watcher's thread)."""
    folder = tmp_path / "hardware" / "flavors"
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            for i in range(20):
                (folder / f"d{i}").mkdir(parents=True, exist_ok=True)
                (folder / f"d{i}" / "f.yaml").write_text("x")
            shutil.rmtree(folder, ignore_errors=True)

    worker = threading.Thread(target=churn)
    worker.start()
    looks = 0
    try:
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            fingerprint(tmp_path)
            looks += 1
    finally:
        stop.set()
        worker.join()
    assert looks > 100
    (tmp_path / "hardware" / "a.yaml").write_text("a")
    before = fingerprint(tmp_path)
    (tmp_path / "hardware" / "a.yaml").write_text("ab")
    assert fingerprint(tmp_path) != before


def test_the_watcher_applies_a_configmap_swap_and_never_a_half_swapped_catalog(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """ConfigMap mode (tests/support/configmap_volume.py lays the folders out as the kubelet
    does): the flavors ConfigMap is updated while the watcher runs, slowly, one kubelet step
    at a time; the update is applied, and no round ever applies a mix of the two."""
    root = tmp_path / "catalog"
    volumes = mount_catalog(root, EXAMPLES / "hardware")
    old = {p.name: p.read_bytes() for p in sorted((EXAMPLES / "hardware/flavors").glob("*.yaml"))}
    new = {
        name: text.replace(b"\ndescription: ", b"\ndescription: v2 ") for name, text in old.items()
    }
    del new["m1.small.yaml"]
    new["m9.large.yaml"] = new["m1.medium.yaml"].replace(b"name: m1.medium", b"name: m9.large")
    engine = make_engine(f"sqlite:///{tmp_path / 'watch.db'}")
    migrate.upgrade(engine)
    target = StoreFlavors(engine)
    seen: list[dict[str, str | None]] = []  # the store as each round found it

    def make_target(_kind: object) -> StoreFlavors:
        seen.append({f.name: f.description for f in target.observe().values() if f.managed})
        return target

    stop = threading.Event()
    caplog.set_level("INFO", logger="flavorsmith.sync")
    options: dict[str, Any] = {"kinds": (FLAVORS,), "prune": True, "interval": 0.2}
    options.update(debounce=0.3, poll=0.05, stop=stop)
    thread = threading.Thread(
        target=watch, args=(Repository(root, RULES), make_target, engine), kwargs=options
    )
    thread.start()
    try:
        _wait(lambda: len(seen) >= 3)
        volumes["flavors"].write(new, step=lambda _name: time.sleep(0.15))
        _wait(lambda: "m9.large" in _managed(target))
        rounds_after = len(seen)
        _wait(lambda: len(seen) >= rounds_after + 2)
    finally:
        stop.set()
        thread.join(10)
    final = {f.name: f.description for f in target.observe().values() if f.managed}
    assert sorted(final) == sorted(Path(n).stem for n in new)
    assert all(str(d).startswith("v2 ") for d in final.values())
    before = seen[1]
    assert sorted(before) == sorted(Path(n).stem for n in old)
    # Every round found the store as the old update or the new one left it, never a mix.
    assert all(state in ({}, before, final) for state in seen), seen
    triggers = [fields_of(r)["trigger"] for r in caplog.records]
    assert "files" in triggers
    engine.dispose()


def _managed(target: StoreFlavors) -> set[str]:
    return {f.name for f in target.observe().values() if f.managed}


def _wait(condition: Any, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_round_logs_what_it_changed_by_name_with_a_timestamp(
    repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'watch.db'}")
    migrate.upgrade(engine)
    repository = Repository(repo, RULES)

    def target(kind: Any) -> Any:
        return store.target(kind, engine)

    watch(repository, target, engine, kinds=(FLAVORS,), prune=False, rounds=1)
    path = repo / "hardware" / "flavors" / "m1.medium.dedicated.yaml"
    text = path.read_text().replace("scheduling:tier: silver", "scheduling:tier: gold")
    path.write_text(text.replace("  - 9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a\n", ""))
    caplog.clear()
    caplog.set_level("INFO", logger="flavorsmith.sync")
    watch(repository, target, engine, kinds=(FLAVORS,), prune=False, rounds=1)
    [record] = caplog.records
    line = {k: v for k, v in fields_of(record).items() if k != "ms"}
    assert line == {
        "event": "sync",
        "kind": "flavors",
        "round": 1,
        "trigger": "start",
        "actions": 2,
        "writes": 2,
        "failed": 0,
        "api_calls": 3,
        "update": ["m1.medium.dedicated"],
        "access": ["m1.medium.dedicated"],
        "changed": {"m1.medium.dedicated": ["extra_specs.scheduling:tier", "access"]},
    }
    rendered = formatter("text").format(record)
    stamp, rest = rendered.split(" ", 1)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp)
    assert re.sub(r" ms=[\d.]+$", "", rest) == (
        "INFO    flavorsmith.sync sync round kind=flavors round=1 trigger=start actions=2 "
        'writes=2 failed=0 api_calls=3 update=["m1.medium.dedicated"] '
        'access=["m1.medium.dedicated"] '
        'changed={"m1.medium.dedicated": ["extra_specs.scheduling:tier", "access"]}'
    )
    engine.dispose()


def test_a_file_change_wakes_the_watcher_at_once(
    repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """File-system events wake the watcher: with neither a poll nor a timer due for an hour,
    an edited flavor is still applied, in a round triggered by the files; stopping it does not
    wait for the hour either."""
    engine = make_engine(f"sqlite:///{tmp_path / 'watch.db'}")
    migrate.upgrade(engine)
    target = StoreFlavors(engine)
    caplog.set_level("INFO", logger="flavorsmith.sync")
    stop = threading.Event()
    options: dict[str, Any] = {"kinds": (FLAVORS,), "prune": False, "stop": stop}
    options.update(interval=3600, poll=3600, debounce=0.1)
    thread = threading.Thread(
        target=watch, args=(Repository(repo, RULES), lambda _kind: target, engine), kwargs=options
    )
    thread.start()
    try:
        _wait(lambda: "m1.medium" in _managed(target))
        path = repo / "hardware" / "flavors" / "m1.medium.yaml"
        path.write_text(path.read_text().replace("\ndescription: ", "\ndescription: edited "))
        _wait(lambda: _description(target, "m1.medium").startswith("edited "))
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()
    assert [fields_of(r)["trigger"] for r in caplog.records] == ["start", "files"]
    engine.dispose()


def _description(target: StoreFlavors, name: str) -> str:
    return next(str(f.description) for f in target.observe().values() if f.name == name)


def test_the_watcher_follows_hardware_removed_and_checked_out_again(
    repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The events come from the catalog's folders; a checkout that removes hardware/ and
    writes it again is followed (the round without it is blocked and writes nothing), and the
    edit it brings is applied, still with no poll or timer due."""
    engine = make_engine(f"sqlite:///{tmp_path / 'watch.db'}")
    migrate.upgrade(engine)
    target = StoreFlavors(engine)
    caplog.set_level("INFO", logger="flavorsmith.sync")
    stop = threading.Event()
    options: dict[str, Any] = {"kinds": (FLAVORS,), "prune": True, "stop": stop}
    options.update(interval=3600, poll=3600, debounce=0.1)
    thread = threading.Thread(
        target=watch, args=(Repository(repo, RULES), lambda _kind: target, engine), kwargs=options
    )
    thread.start()
    try:
        _wait(lambda: "m1.medium" in _managed(target))
        shutil.move(repo / "hardware", tmp_path / "away")
        _wait(lambda: any("blocked" in fields_of(r) for r in caplog.records))
        path = tmp_path / "away" / "flavors" / "m1.medium.yaml"
        path.write_text(path.read_text().replace("\ndescription: ", "\ndescription: edited "))
        shutil.move(tmp_path / "away", repo / "hardware")
        _wait(lambda: _description(target, "m1.medium").startswith("edited "))
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()
    assert len(_managed(target)) == 12  # the blocked round pruned nothing
    assert [fields_of(r)["trigger"] for r in caplog.records] == ["start", "files", "files"]
    engine.dispose()
