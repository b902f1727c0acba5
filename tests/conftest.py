"""Shared fixtures: the example repositories and a CLI runner that names the program."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from flavorsmith.cli import build

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
BROKEN = EXAMPLES / "broken"

Invoke = Callable[..., Result]


@pytest.fixture(autouse=True)
def _no_repo_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests choose their repository explicitly; a developer's environment must not leak in."""
    for var in ("FLAVORSMITH_REPO", "UC_DEPLOY", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def example_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the example deploy repository, as the working directory."""
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
