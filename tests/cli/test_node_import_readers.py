"""Which reader reads a node dump: a JSON file is read whole by the strict JSON reader, whose
messages name the problem; a file with the .json suffix that is not JSON at all goes to the YAML
readers, which read it when it is YAML or name the line where it is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Invoke


@pytest.fixture
def database(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'nodes.db'}"


def test_a_json_file_is_read_whole_with_the_json_reader_s_messages(
    cli: Invoke, database: str, tmp_path: Path
) -> None:
    inventory = tmp_path / "nodes.json"
    inventory.write_text('[{"name": "a1", "extra": {"x": "\\ud800"}}]')
    result = cli("node", "import", str(inventory), "--database", database)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.splitlines()[-1] == "error: nothing was imported"
    assert result.stderr.startswith(f"error: Invalid JSON in {inventory}: [0].extra.x: "), (
        result.stderr
    )
    inventory.write_text('{"nodes": [{"name": "a1"}, {"name": "a2"}]}')
    result = cli("node", "import", str(inventory), "--database", database)
    assert (result.exit_code, result.stdout) == (0, "created: 2\nupdated: 0\nunchanged: 0\n")


def test_a_json_file_that_is_not_json_is_read_as_yaml(
    cli: Invoke, database: str, tmp_path: Path
) -> None:
    inventory = tmp_path / "nodes.json"
    inventory.write_text("# exported by hand\n- {name: b1}\n- {name: b2}\n")
    result = cli("node", "import", str(inventory), "--database", database)
    assert (result.exit_code, result.stdout) == (0, "created: 2\nupdated: 0\nunchanged: 0\n")
    inventory.write_text('[{"name": "b3"},\n {"name": "b4"\n')
    result = cli("node", "import", str(inventory), "--database", database)
    assert result.exit_code == 1
    first, *_, last = result.stderr.splitlines()
    assert first.startswith(f"{inventory}:3:1: "), result.stderr
    assert "invalid YAML" in first
    assert last == "error: nothing was imported"
