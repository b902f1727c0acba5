"""A flavor the sync writes into the service's own database is whole or absent: created,
replaced (and deleted) in one transaction with its extra specs and its access, so a failure
or a crash part-way leaves no flavor that is public, unmarked or without its scheduling
rule, on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from sqlalchemy import Engine, text

from flavorsmith.db.engine import make_engine
from flavorsmith.nova.derive import DerivedFlavor
from flavorsmith.sync.engine import carry_out
from flavorsmith.sync.kinds.flavors import MARKER, Action, StoreFlavors, plan, steps
from tests.conftest import EXAMPLES


def _flavor(name: str, *, specs: dict[str, str], projects: tuple[str, ...] = ()) -> DerivedFlavor:
    return DerivedFlavor(name, name, "d", not projects, projects, 1, 1024, 1, specs)


def _apply(target: StoreFlavors, *actions: Action) -> list[str | None]:
    report = carry_out(list(actions), lambda a: steps(a, target), lambda: target.calls)
    return [o.error for o in report.outcomes]


def _refusing(key: str, value: str) -> str | None:
    return f"{key}: refused" if key == "bad:key" else None


def test_a_create_that_fails_part_way_leaves_nothing(migrated_engine: Engine) -> None:
    target = StoreFlavors(migrated_engine, _refusing)
    name = f"f-{uuid.uuid4().hex[:8]}"
    refused = _flavor(name, specs={"resources:CUSTOM_X": "1", "bad:key": "1"})
    shared_twice = _flavor(f"{name}-p", specs={"resources:CUSTOM_X": "1"}, projects=("p1", "p1"))
    errors = _apply(
        target,
        Action("create", refused.id, "new", refused),
        Action("create", shared_twice.id, "new", shared_twice),
    )
    assert all(errors), errors
    observed = target.observe()
    assert refused.id not in observed and shared_twice.id not in observed


def test_a_replace_that_fails_keeps_the_old_flavor(migrated_engine: Engine) -> None:
    target = StoreFlavors(migrated_engine, _refusing)
    name = f"r-{uuid.uuid4().hex[:8]}"
    old = _flavor(name, specs={"resources:CUSTOM_X": "1"})
    assert _apply(target, Action("create", old.id, "new", old)) == [None]
    before = target.observe()[name]
    new = _flavor(name, specs={"resources:CUSTOM_X": "1", "bad:key": "1"})
    new = DerivedFlavor(name, name, "d", True, (), 2, 1024, 1, new.extra_specs)
    (action,) = plan([new], {name: before})
    assert action.kind == "replace"
    assert all(_apply(target, action))
    assert target.observe()[name] == before


def _count(engine: Engine, sql: str) -> int:
    with engine.connect() as connection:
        return int(connection.execute(text(sql)).scalar_one())


COMMAND = [sys.executable, "-m", "flavorsmith", "sync", "apply", "--yes"]


def _many_flavors(repo: Path, count: int) -> None:
    flavors = repo / "hardware/flavors"
    for number in range(count):
        (flavors / f"bulk-{number:04}.yaml").write_text(
            f"name: bulk-{number:04}\nresource_class: m1.small\n"
            f"traits:\n- trait: BULK_{number:04}\n  state: required\n"
        )


def test_sync_apply_killed_mid_way_leaves_only_whole_flavors(backend: str, tmp_path: Path) -> None:
    """``kill -9`` of ``sync apply`` creating a thousand flavors: every flavor there is has its
    extra specs and its managed marker."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    _many_flavors(repo, 1000)
    engine = make_engine(backend)
    bulk = "FROM flavors f WHERE f.flavorid LIKE 'bulk-%'"
    env = {**os.environ}
    env.pop("FLAVORSMITH_DATABASE_URL", None)
    process = subprocess.Popen(
        [*COMMAND, "--repo", str(repo), "--database", backend],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while _count(engine, f"SELECT count(*) {bulk}") < 100:
            assert process.poll() is None, "finished before it could be interrupted"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        created = _count(engine, f"SELECT count(*) {bulk}")
        assert 100 <= created < 1000
        unmarked = _count(
            engine,
            f"SELECT count(*) {bulk} AND NOT EXISTS (SELECT 1 FROM flavor_extra_specs s "
            f"WHERE s.flavor_id = f.id AND s.key = '{MARKER}')",
        )
        assert unmarked == 0
    finally:
        if process.poll() is None:
            process.kill()
        engine.dispose()
