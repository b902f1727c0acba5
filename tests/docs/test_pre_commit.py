"""A catalog repository gets Flavorsmith's validation as a pre-commit hook
(.pre-commit-hooks.yaml): pre-commit installs the project as a reader's repository would and
runs ``flavorsmith validate``, which passes a clean catalog and fails a broken one with its
diagnostic."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.cache import CACHE, install_lock

ROOT = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def _try_repo(repo: Path) -> subprocess.CompletedProcess[str]:
    # The hook's environment (the project and its dependencies, from PyPI) is made once per
    # commit of the project and kept with the other test installs.
    env = {**os.environ, "PRE_COMMIT_HOME": str(CACHE / "pre-commit")}
    env.pop("FLAVORSMITH_REPO", None)
    with install_lock("pre-commit"):
        return subprocess.run(
            [str(PRE_COMMIT), "try-repo", str(ROOT), "flavorsmith-validate", "--all-files"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )


def test_the_hook_passes_a_clean_catalog_and_fails_a_broken_one(tmp_path: Path) -> None:
    repo = tmp_path / "catalog"
    shutil.copytree(ROOT / "examples" / "hardware", repo / "hardware")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "a clean catalog")
    clean = _try_repo(repo)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "flavorsmith validate" in clean.stdout and "Passed" in clean.stdout

    flavor = repo / "hardware" / "flavors" / "m1.small.yaml"
    flavor.write_text(
        flavor.read_text().replace("resource_class: m1.small", "resource_class: m1.smal")
    )
    broken = _try_repo(repo)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "Failed" in broken.stdout
    assert (
        "hardware/flavors/m1.small.yaml:3:17: resource_class: resource class 'm1.smal' is not "
        "defined by any device type (did you mean 'm1.small'?)"
    ) in broken.stdout
