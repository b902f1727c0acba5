"""extra-specs: one command group for the validator registry and the catalog's validator files."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Invoke


def test_validator_files_live_under_extra_specs_file(example_repo: Path, cli: Invoke) -> None:
    result = cli("extra-specs", "file", "list", "-f", "value", "-c", "name")
    assert (result.exit_code, result.stdout) == (0, "scheduling\n")
    shown = cli("extra-specs", "file", "show", "scheduling", "-f", "json")
    assert shown.exit_code == 0
    assert json.loads(shown.stdout)["namespace"] == "scheduling"


def test_the_registry_verbs_see_the_catalog_keys(example_repo: Path, cli: Invoke) -> None:
    result = cli("extra-specs", "validate", "scheduling:tier=gold", "hw:nope=1", "--mode", "strict")
    assert result.exit_code == 1
    assert "hw:nope" in result.stdout + result.stderr


def test_the_old_singular_group_is_gone(example_repo: Path, cli: Invoke) -> None:
    result = cli("extra-spec", "list")
    assert result.exit_code == 2
    assert "No such command 'extra-spec'" in result.stderr
