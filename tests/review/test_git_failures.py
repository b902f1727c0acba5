"""How reading a revision fails when Git itself does: too slow (503, so the API never answers
500), or refusing a repository another user owns (409 naming Git's remedy). Git is replaced
on PATH by a script that behaves as the real one does in those cases."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from flavorsmith.errors import Conflict, ServiceUnavailable
from flavorsmith.sync import review


def _git_script(folder: Path, body: str) -> None:
    script = folder / "git"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def test_a_git_that_takes_too_long_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _git_script(tmp_path, "sleep 5")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(review, "GIT_TIMEOUT", 0.2)
    with pytest.raises(ServiceUnavailable) as raised:
        review.in_git(tmp_path)
    assert (
        raised.value.message == f"git rev-parse took more than 0.2 s on {tmp_path}; try again later"
    )


def test_a_repository_git_will_not_read_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _git_script(
        tmp_path,
        "echo \"fatal: detected dubious ownership in repository at '$3'\" >&2; exit 128",
    )
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(Conflict) as raised:
        review.in_git(tmp_path)
    assert raised.value.message == (
        f"git refuses to read {tmp_path}: another user owns it (mark it safe with "
        "git config --global --add safe.directory PATH for the user reading it)"
    )
