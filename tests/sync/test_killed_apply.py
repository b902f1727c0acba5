"""``kill -9`` of a real ``flavorsmith sync apply`` process in the middle of creating flavors
in the service's own database (SQLite, then PostgreSQL) leaves no flavor half-made: every
flavor there has all its extra specs, the marker and (private ones) all their projects; the
next apply completes the catalog and the one after it writes nothing.

The database itself holds the apply inside one flavor's write — a trigger on the extra specs
that never returns once HOLD flavors exist — so the kill lands between that flavor's row
and its extra specs every time, not at a moment left to chance."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

import flavorsmith
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.sync.kinds.nova_flavors import desired, desired_specs
from tests.database import throwaway_postgres
from tests.support.catalogs import repository
from tests.sync.test_whole_flavor import stored

FLAVORS = 300
HOLD = 150  # the apply is held inside the write of this flavor
PROJECTS = ("4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d", "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a")

SQLITE_HOLD = f"""
CREATE TRIGGER hold AFTER INSERT ON flavor_extra_specs
WHEN (SELECT count(*) FROM flavors) >= {HOLD}
BEGIN
  SELECT count(*) FROM flavors a, flavors b, flavors c, flavors d, flavors e, flavors f;
END
"""
PG_HOLD = (
    f"""
CREATE FUNCTION hold() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT count(*) FROM flavors) >= {HOLD} THEN PERFORM pg_sleep(600); END IF;
  RETURN NULL;
END $$
""",
    "CREATE TRIGGER hold AFTER INSERT ON flavor_extra_specs "
    "FOR EACH STATEMENT EXECUTE FUNCTION hold()",
)


def write_catalog(root: Path) -> None:
    """FLAVORS flavors on 5 resource classes, every third one private to two projects."""
    hardware = root / "hardware"
    for folder in ("device-types", "flavors", "base"):
        (hardware / folder).mkdir(parents=True)
    classes = "".join(
        f"- name: kill.rc{i}\n  cpu: {{cores: {8 * (i + 1)}, model: CPU {i}}}\n"
        f"  memory: {{size: {65536 * (i + 1)}}}\n"
        f"  drives: [{{size: {240 * (i + 1)}}}]\n  nic_count: 2\n"
        for i in range(5)
    )
    (hardware / "device-types" / "acme-kill.yaml").write_text(
        "class: server\nmanufacturer: Acme\nmodel: Kill\nu_height: 1\nis_full_depth: true\n"
        f"resource_class:\n{classes}"
    )
    names = []
    for i in range(FLAVORS):
        name = f"kill.{i:04d}"
        names.append(name)
        private = (
            "is_public: false\nprojects:\n" + "".join(f"  - {p}\n" for p in PROJECTS)
            if i % 3 == 0
            else ""
        )
        (hardware / "flavors" / f"{name}.yaml").write_text(
            f"name: {name}\nresource_class: kill.rc{i % 5}\ndescription: flavor {i}\n{private}"
            f"traits:\n- {{trait: T{i % 50}, state: required}}\n"
            f"- {{trait: U{i // 50}, state: absent}}\n"
        )
    files = "".join(f"  - {n}.yaml=../flavors/{n}.yaml\n" for n in names)
    (hardware / "base" / "kustomization.yaml").write_text(
        "configMapGenerator:\n- name: device-types\n  files:\n"
        "  - acme-kill.yaml=../device-types/acme-kill.yaml\n"
        f"- name: flavors\n  files:\n{files}"
    )


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database of this test's own: the held transaction is ended by ending its session."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'flavorsmith.db'}"
        return
    with throwaway_postgres() as found:
        yield found


def flavorsmith_cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "flavorsmith", *args]


ENV = {**os.environ, "PYTHONPATH": str(Path(flavorsmith.__file__).parents[1])}


def count(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(text("SELECT count(*) FROM flavors")).scalar_one())


def sleeping(engine: Engine) -> bool:
    """PostgreSQL: a session of this database waits in the trigger's pg_sleep."""
    with engine.connect() as connection:
        found = connection.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event = 'PgSleep'"
            )
        )
        return bool(found.scalar_one())


def wait_until_held(child: subprocess.Popen[bytes], held: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 180
    while not held():
        if child.poll() is not None:
            assert child.stderr is not None
            pytest.fail(f"the apply ended before it was held: {child.stderr.read().decode()}")
        assert time.monotonic() < deadline, "the apply was never held"
        time.sleep(0.05)


def test_kill_9_mid_apply_leaves_no_flavor_half_made(url: str, tmp_path: Path) -> None:
    write_catalog(tmp_path / "deploy")
    repo = repository(tmp_path / "deploy")
    assert len(repo.load().catalog.flavors) == FLAVORS
    engine = make_engine(url)
    migrate.upgrade(engine)
    postgres = engine.dialect.name == "postgresql"
    with engine.begin() as connection:
        for statement in PG_HOLD if postgres else (SQLITE_HOLD,):
            connection.execute(text(statement))

    seen = {"count": -1, "since": time.monotonic()}

    def held() -> bool:
        if postgres:
            return sleeping(engine)
        now, found = time.monotonic(), count(engine)  # SQLite: no flavor for 1.5 s past HOLD-1
        if found != seen["count"]:
            seen.update(count=found, since=now)
        return found >= HOLD - 1 and now - seen["since"] > 1.5

    args = ["--only", "flavors", "--repo", str(tmp_path / "deploy"), "--database", url]
    child = subprocess.Popen(
        flavorsmith_cli("sync", "apply", *args, "--yes"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    try:
        wait_until_held(child, held)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
        assert child.stderr is not None
        child.stderr.close()
    with engine.begin() as connection:
        if postgres:  # the server ends the dead client's session: its transaction rolls back
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            )
        connection.execute(
            text("DROP TRIGGER hold" + (" ON flavor_extra_specs" if postgres else ""))
        )

    wanted = {d.id: d for d in desired(repo.load().catalog)}
    found = stored(engine)
    assert HOLD - 1 <= len(found) < FLAVORS  # killed half-way
    half_made = [
        flavor_id
        for flavor_id, row in found.items()
        if row["extra_specs"] != desired_specs(wanted[flavor_id])
        or row["projects"] != sorted(wanted[flavor_id].projects)
    ]
    assert half_made == []

    resumed = subprocess.run(
        flavorsmith_cli("sync", "apply", *args, "--yes", "-f", "json"),
        capture_output=True,
        env=ENV,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr.decode()
    body = json.loads(resumed.stdout)
    assert body["failed"] == 0
    assert {a["action"] for a in body["actions"]} == {"create", "noop"}
    found = stored(engine)
    assert len(found) == FLAVORS
    assert all(row["extra_specs"] == desired_specs(wanted[i]) for i, row in found.items())
    again = subprocess.run(
        flavorsmith_cli("sync", "apply", *args, "--yes", "-f", "json"),
        capture_output=True,
        env=ENV,
        check=False,
    )
    assert json.loads(again.stdout)["writes"] == 0
    engine.dispose()
