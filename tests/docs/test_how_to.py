"""The how-to pages whose examples run on this machine alone print what they show (the other
pages' examples need a real cloud: tests/docs/test_real_cloud.py runs the pages that declare
one). Each page runs in a folder of its own holding a copy of the project's examples/, as its
reader is told to make."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.docs.pages import Session, environment, run_page

ROOT = Path(__file__).resolve().parents[2]
HOW_TO = ROOT / "docs" / "how-to"
RUNNABLE = ["upgrade-database.md", "trait-rule.md", "extra-spec-plugin.md", "provider-driver.md"]
# The existing guides' examples that run locally (their pages say which ones need a real cloud).
RUNNABLE += [
    "ci-gate.md",
    "deploy-templates.md",
    "load-balancer-flavors.md",
    "explain-novalidhost.md",
    "find-drift.md",
    "policy.md",
    "inspection-hook.md",
    "mirror-ironic.md",
    "runbooks.md",
]


@pytest.mark.parametrize("page", RUNNABLE)
def test_the_page_prints_what_it_shows(tmp_path: Path, page: str) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    session = Session(tmp_path, environment(tmp_path))
    try:
        problems = run_page(HOW_TO / page, session)
    finally:
        session.close()
    assert not problems, "\n\n".join(problems)
