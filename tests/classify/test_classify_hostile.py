"""``flavorsmith classify`` on hostile inspection files: one clear line and exit 1, never
"internal error" (deep nesting, huge integers, Infinity, lone surrogates)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke

INSPECTION = EXAMPLES / "inspection" / "r7615-m1-small.json"
NUMBERS = "numbers must be finite: NaN, Infinity and numbers beyond 1.8e308 are refused"


def _with_memory(value: str) -> str:
    """The example inspection file with its memory size replaced by ``value`` (JSON text)."""
    data = json.loads(INSPECTION.read_text())
    inventory = data.get("inventory", data)
    inventory["memory"] = {"physical_mb": "@@"}
    return json.dumps(data).replace('"@@"', value)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        pytest.param(
            "[" * 100_000,
            "Invalid JSON in the inspection data: line 1 column 33: nested more than 32 "
            "levels deep; at most 32 are allowed",
            id="deep",
        ),
        pytest.param(
            _with_memory("9" * 5000),
            "Invalid JSON in the inspection data: inventory.memory.physical_mb: an integer of "
            "5000 digits is out of range: integers must lie between -2**63 and 2**63-1",
            id="huge-int",
        ),
        pytest.param(
            _with_memory("Infinity"),
            "Invalid JSON in the inspection data: inventory.memory.physical_mb: Infinity is not "
            f"allowed: {NUMBERS}",
            id="infinity",
        ),
        pytest.param(
            _with_memory("1e999"),
            "Invalid JSON in the inspection data: inventory.memory.physical_mb: Infinity is not "
            f"allowed: {NUMBERS}",
            id="overflow",
        ),
        pytest.param(
            _with_memory('"\\ud800"'),
            "Invalid JSON in the inspection data: inventory.memory.physical_mb: a lone UTF-16 "
            "surrogate (\\ud800) is not allowed; send a valid Unicode character",
            id="surrogate",
        ),
    ],
)
def test_classify_refuses_hostile_json_in_one_line(
    cli: Invoke, tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "inspection.json"
    path.write_text(text)
    result = cli("classify", str(path), "--repo", str(EXAMPLES))
    assert (result.exit_code, result.stderr) == (1, f"error: {path}: {says}\n")
    assert "internal error" not in result.output


def test_classify_of_the_example_still_works(cli: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "inspection.json"
    path.write_text(_with_memory("131072"))
    result = cli("classify", str(path), "--repo", str(EXAMPLES), "-f", "json")
    assert json.loads(result.stdout)["resource_class"] == "m1.small", result.output


def test_node_import_refuses_deep_json_in_one_line(cli: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "nodes.json"
    path.write_text("[" * 100_000)
    database = f"sqlite:///{tmp_path / 'nodes.db'}"
    result = cli("node", "import", str(path), "--database", database)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0].endswith(
        "line 1 column 33: nested more than 32 levels deep; at most 32 are allowed"
    )
    assert "internal error" not in result.output
