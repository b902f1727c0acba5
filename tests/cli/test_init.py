"""`flavorsmith init` makes a catalog repository that validates as it is, and never writes
into a folder with files in it unless told."""

from __future__ import annotations

from pathlib import Path

import pytest

from flavorsmith.catalog.starter import FILES
from tests.conftest import Invoke


def test_init_then_validate_is_clean(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = cli("init", str(tmp_path / "catalog"))
    assert made.exit_code == 0, made.output
    assert sorted(
        str(p.relative_to(tmp_path / "catalog"))
        for p in (tmp_path / "catalog").rglob("*")
        if p.is_file()
    ) == sorted(FILES)
    monkeypatch.chdir(tmp_path / "catalog")
    checked = cli("validate")
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.endswith("2 files: 0 errors, 0 warnings\n")
    assert cli("nova-flavors", "-f", "value", "-c", "id").stdout == "m1.small\n"


def test_a_folder_with_files_is_refused_unless_forced(cli: Invoke, tmp_path: Path) -> None:
    mine = tmp_path / "notes.txt"
    mine.write_text("mine")
    refused = cli("init", str(tmp_path))
    assert refused.exit_code == 2
    assert "is not empty; choose an empty or new folder, or give --force" in refused.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    forced = cli("init", str(tmp_path), "--force")
    assert forced.exit_code == 0, forced.output
    assert (tmp_path / "hardware" / "flavors" / "m1.small.yaml").read_text() == FILES[
        "hardware/flavors/m1.small.yaml"
    ]
    assert mine.read_text() == "mine"
