"""The importer refuses what the node API refuses, entry by entry, with the same words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flavorsmith.inventory import importer
from flavorsmith.ironic import nodes as rules
from flavorsmith.store.nodes import FIELD_LENGTHS
from tests.conftest import Invoke


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("description", {"a": 1}),
        ("description", 7),
        ("extra", ["a"]),
        ("properties", "x"),
        ("driver_info", None),
        ("extra", {"a": float("nan")}),
        ("driver", "nope"),
        ("resource_class", "r" * 81),
        ("name", "a b"),
        ("uuid", "{" + "0" * 32 + "}x"),
    ],
)
def test_entries_are_checked_by_the_api_rules(field: str, value: Any) -> None:
    entry = {"name": "n1", field: value}
    parsed = importer.parse([{"name": "ok"}, entry])
    assert [s.name for s in parsed.specs] == ["ok"]
    ((where, message, _),) = parsed.problems
    assert where[:2] == [1, field]
    if field != "uuid":  # the importer names a bad UUID before the API rule would
        with pytest.raises(rules.FieldInvalid) as refused:
            rules.checked_node({"driver": "fake-hardware", **entry}, FIELD_LENGTHS)
        assert (refused.value.field, refused.value.message) == (field, message)


def test_a_description_that_is_not_text_is_a_diagnostic_at_its_entry(
    cli: Invoke, tmp_path: Path
) -> None:
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text("- {name: ok}\n- {name: bad, description: {a: 1}}\n")
    database = f"sqlite:///{tmp_path / 'nodes.db'}"
    result = cli("node", "import", str(inventory), "--database", database)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{inventory}:2:28: [1].description: 'description' must be a string",
        "1 error, 0 warnings",
        "error: nothing was imported",
    ]
    assert cli("node", "list", "--database", database, "-f", "value").stdout == ""
