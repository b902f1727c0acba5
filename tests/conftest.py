"""Shared fixtures: the example repositories and a CLI runner that names the program."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import Engine
from typer.testing import CliRunner, Result

from flavorsmith import logs
from flavorsmith.cli import build
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine, writer
from flavorsmith.nodes import service as node_service
from tests.database import throwaway_postgres

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
BROKEN = EXAMPLES / "broken"

Invoke = Callable[..., Result]

# Property tests assert behaviour, not speed: on a loaded two-core machine a large example can
# take longer than hypothesis' default 200 ms deadline. Speed lives in benchmarks/.
settings.register_profile("flavorsmith", deadline=None)
settings.load_profile("flavorsmith")


@pytest.fixture(autouse=True)
def _no_repo_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests choose their repository explicitly; a developer's environment must not leak in."""
    for var in ("FLAVORSMITH_REPO", "UC_DEPLOY", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """A command run in-process (``serve``, ``sync apply --watch``) configures logging for the
    whole process (flavorsmith.logs.configure: a root handler on stderr, our loggers at INFO).
    Undo that after each test, so what a test sees on stderr never depends on which tests ran
    before it in the same process. (pytest's own capture handlers are left alone.)"""
    root = logging.getLogger()
    ours = [h for h in root.handlers if getattr(h, "flavorsmith", False)]
    loggers = [logging.getLogger(name) for name in ("flavorsmith", *logs.ROUTED)]
    saved = [(logger, logger.level, list(logger.handlers), logger.propagate) for logger in loggers]
    yield
    for handler in root.handlers[:]:
        if getattr(handler, "flavorsmith", False) and handler not in ours:
            root.removeHandler(handler)
    for handler in ours:
        if handler not in root.handlers:
            root.addHandler(handler)
    for logger, level, handlers, propagate in saved:
        logger.setLevel(level)
        logger.handlers[:] = handlers
        logger.propagate = propagate


@pytest.fixture
def example_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the example catalog repository, as the working directory."""
    repo = tmp_path / "deploy"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    monkeypatch.chdir(repo)
    return repo


@pytest.fixture
def cli() -> Invoke:
    runner = CliRunner()

    def invoke(*args: str, **kwargs: object) -> Result:
        return runner.invoke(build(), list(args), prog_name="flavorsmith", **kwargs)  # type: ignore[arg-type]

    return invoke


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL database for the whole session (the suite fails without one)."""
    with throwaway_postgres() as url:
        yield url


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A migrated database URL: a SQLite file, then PostgreSQL."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'flavorsmith.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
    engine = make_engine(url)
    migrate.upgrade(engine)
    engine.dispose()
    return url


@pytest.fixture(scope="session")
def migrated_engine(backend: str) -> Iterator[Engine]:
    engine = make_engine(backend)
    yield engine
    engine.dispose()


@pytest.fixture(autouse=True)
def _nodes_from_the_database(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that mirrored an Ironic on the shared database (a Mirror stores its state there,
    which makes the nodes read-only for every process) gives the nodes back to the database."""
    yield
    if "migrated_engine" in request.fixturenames:
        engine: Engine = request.getfixturevalue("migrated_engine")
        with writer(engine).begin() as connection:
            node_service.database_source(connection)
