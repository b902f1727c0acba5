"""The tutorial runs as a reader runs it, from an empty folder next to a copy of the project's
examples, and prints what its pages show (tests/docs/pages.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs.pages import Session, environment, run_page

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial"
PAGES = ["first-catalog.md", "classify.md"]


@pytest.fixture
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    folder = tmp_path_factory.mktemp("tutorial")
    shutil.copytree(ROOT / "examples", folder / "examples")
    home = folder / "home"
    home.mkdir()
    made = Session(folder, environment(home))
    yield made
    made.close()


def test_the_tutorial_prints_what_it_shows(session: Session) -> None:
    # One test for the pages in order: each goes on from where the one before left off.
    problems = [problem for page in PAGES for problem in run_page(TUTORIAL / page, session)]
    assert not problems, "\n\n".join(problems)


def test_every_tutorial_page_is_run() -> None:
    assert sorted(p.name for p in TUTORIAL.glob("*.md")) == sorted(PAGES)
