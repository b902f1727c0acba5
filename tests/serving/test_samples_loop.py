"""``serve``'s capacity sampler: a loop of the leader unless ``--trend-interval 0``, which
stores a sample of every flavor of the served catalog and every resource class of the nodes
as soon as it runs; an interval under a second is refused."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.serving.process import ServeConfig, build
from flavorsmith.store import samples
from tests.api.test_metrics import node
from tests.conftest import EXAMPLES, Invoke


def test_the_leader_samples_capacity_unless_told_not_to(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'serve.db'}"
    engine = make_engine(url)
    migrate.upgrade(engine)
    config = ServeConfig(database_url=url, repo=str(EXAMPLES), trend_interval=3600)
    app = build(config, engine=engine)
    leadership = app.state.services.leadership
    assert leadership is not None and sorted(leadership.loops) == ["samples"]
    node(TestClient(app), "sampled", "c2.diskless")

    stop = threading.Event()
    loop = threading.Thread(target=leadership.loops["samples"], args=(stop,), daemon=True)
    began = datetime.now(UTC) - timedelta(seconds=1)
    loop.start()
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with engine.connect() as connection:
                stored = samples.read(connection, since=began)
            if stored:
                break
            time.sleep(0.1)
    finally:
        stop.set()
        loop.join(10)
    assert not loop.is_alive()
    flavors = {f.name for f in app.state.services.catalog.view().catalog.flavors}
    assert {s.name for s in stored if s.scope == "flavor"} == flavors
    [diskless] = [s for s in stored if s.scope == "resource_class"]
    assert (diskless.name, [(x.total, x.sellable, x.used) for x in diskless.samples]) == (
        "c2.diskless",
        [(1, 1, 0)],
    )

    off = build(ServeConfig(database_url=url, repo=str(EXAMPLES), trend_interval=0), engine=engine)
    assert off.state.services.leadership is None
    engine.dispose()


def test_an_interval_under_a_second_is_refused(cli: Invoke, tmp_path: Path) -> None:
    result = cli("serve", "--repo", str(EXAMPLES), "--trend-interval", "0.5")
    assert result.exit_code == 2
    assert "sample at most once a second" in result.output
