"""flavorsmith node import/list/trait on a real SQLite database."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke


@pytest.fixture
def database(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'nodes.db'}"


def test_example_inventory_imports_idempotently(cli: Invoke, database: str) -> None:
    first = cli("node", "import", str(EXAMPLES / "nodes.yaml"), "--database", database)
    assert (first.exit_code, first.stdout) == (0, "created: 350\nupdated: 0\nunchanged: 0\n")
    again = cli("node", "import", str(EXAMPLES / "nodes.yaml"), "--database", database)
    assert again.stdout == "created: 0\nupdated: 0\nunchanged: 350\n"


def test_import_reports_updates(cli: Invoke, database: str, tmp_path: Path) -> None:
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text(
        "- {name: a1, resource_class: m1.small, traits: [CUSTOM_A]}\n- {name: a2}\n"
    )
    cli("node", "import", str(inventory), "--database", database)
    inventory.write_text(
        "- {name: a1, resource_class: m1.small, traits: [CUSTOM_B]}\n- {name: a2}\n- {name: a3}\n"
    )
    result = cli("node", "import", "-v", str(inventory), "--database", database)
    assert result.stdout == "created: 1\n  a3\nupdated: 1\n  a1\nunchanged: 1\n  a2\n"
    listed = cli(
        "node", "list", "--database", database, "-f", "value", "-c", "name", "-c", "traits"
    )
    assert listed.stdout == "a1 CUSTOM_B\na2 \na3 \n"


def test_import_refuses_a_bad_file_whole(cli: Invoke, database: str, tmp_path: Path) -> None:
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text(
        "nodes:\n"
        "  - {name: ok-1, traits: [CUSTOM_A]}\n"
        "  - {name: bad-1, traits: [CUSTOM_A, nicx]}\n"
        "  - {name: ok-1}\n"
        "  - {name: bad-2, resource_clas: m1}\n"
    )
    result = cli("node", "import", str(inventory), "--database", database)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{inventory}:3:38: nodes[1].traits[1]: Invalid trait 'nicx': a trait is a standard os-traits name, or CUSTOM_ followed by A-Z, 0-9 and _, at most 255 characters (did you mean 'CUSTOM_NICX'?)",
        f"{inventory}:4:12: nodes[2].name: 'ok-1' is listed twice (first as entry 0)",
        f"{inventory}:5:19: nodes[3].resource_clas: unknown key 'resource_clas'; allowed: name, uuid, driver, resource_class, traits, properties, driver_info, extra, description, provision_state, maintenance, power_state, instance_uuid, owner, lessee, conductor_group, retired, retired_reason",
        "3 errors, 0 warnings",
        "error: nothing was imported",
    ]
    assert cli("node", "list", "--database", database, "-f", "value").stdout == ""


def test_list_filters(cli: Invoke, database: str) -> None:
    cli("node", "import", str(EXAMPLES / "nodes.yaml"), "--database", database)
    gpu = cli(
        "node",
        "list",
        "--database",
        database,
        "--trait",
        "CUSTOM_GPU_NVIDIA_H100",
        "-f",
        "value",
        "-c",
        "name",
    )
    assert len(gpu.stdout.splitlines()) == 16
    small_no_gpu = cli(
        "node",
        "list",
        "--database",
        database,
        "--resource-class",
        "m1.small",
        "--not-trait",
        "CUSTOM_GPU",
        "-f",
        "value",
        "-c",
        "traits",
    )
    assert small_no_gpu.stdout and "CUSTOM_GPU" not in small_no_gpu.stdout
    bad = cli("node", "list", "--database", database, "--trait", "gpu")
    assert bad.exit_code == 2 and "Invalid trait 'gpu'" in bad.stderr


def test_trait_add_remove_list(cli: Invoke, database: str, tmp_path: Path) -> None:
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text("- {name: n1, traits: [CUSTOM_A]}\n")
    cli("node", "import", str(inventory), "--database", database)
    assert (
        cli("node", "trait", "add", "n1", "CUSTOM_B", "CUSTOM_C", "--database", database).stdout
        == "CUSTOM_A CUSTOM_B CUSTOM_C\n"
    )
    assert (
        cli("node", "trait", "remove", "n1", "CUSTOM_A", "--database", database).stdout
        == "CUSTOM_B CUSTOM_C\n"
    )
    missing = cli("node", "trait", "remove", "n1", "CUSTOM_A", "--database", database)
    assert (missing.exit_code, missing.stderr) == (1, "error: node n1 does not have CUSTOM_A\n")
    assert (
        cli("node", "trait", "list", "n1", "--database", database).stdout == "CUSTOM_B\nCUSTOM_C\n"
    )
    unknown = cli("node", "trait", "list", "nope", "--database", database)
    assert (unknown.exit_code, unknown.stderr) == (1, "error: Node nope could not be found.\n")


U1 = "e700c660-7f67-4790-a0bb-25afb6b7a3a9"
U2 = "861c24fd-58e9-480d-b4be-6b65b01f6065"


def test_import_matches_by_uuid_then_by_name(cli: Invoke, database: str, tmp_path: Path) -> None:
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text(f"- {{name: a, uuid: '{U1}'}}\n- {{uuid: '{U2}', traits: [CUSTOM_X]}}\n")
    first = cli("node", "import", "-v", str(inventory), "--database", database)
    assert first.stdout == f"created: 2\n  a\n  {U2}\nupdated: 0\nunchanged: 0\n"
    # renamed by UUID; the nameless node gets a name; names may swap within one import
    inventory.write_text(f"- {{name: b, uuid: '{U1}'}}\n- {{name: a, uuid: '{U2}'}}\n")
    second = cli("node", "import", "-v", str(inventory), "--database", database)
    assert second.stdout == "created: 0\nupdated: 2\n  b\n  a\nunchanged: 0\n"
    listed = cli("node", "list", "--database", database, "-f", "value", "-c", "uuid", "-c", "name")
    assert sorted(listed.stdout.splitlines()) == sorted([f"{U1} b", f"{U2} a"])
    inventory.write_text("- {name: b, resource_class: m1}\n")
    third = cli("node", "import", "-v", str(inventory), "--database", database)
    assert third.stdout == "created: 0\nupdated: 1\n  b\nunchanged: 0\n"


def test_import_refuses_two_nodes_with_one_name(cli: Invoke, database: str, tmp_path: Path) -> None:
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text(f"- {{name: a, uuid: '{U1}'}}\n")
    cli("node", "import", str(inventory), "--database", database)
    inventory.write_text(f"- {{name: a, uuid: '{U2}'}}\n")
    result = cli("node", "import", str(inventory), "--database", database)
    assert (result.exit_code, result.stderr.splitlines()) == (
        1,
        [
            f"error: the name 'a' would belong to two nodes, {U1} and {U2} (the import matches "
            "a node by UUID when the entry has one, else by name)",
            "error: nothing was imported",
        ],
    )
    listed = cli("node", "list", "--database", database, "-f", "value", "-c", "uuid")
    assert listed.stdout == f"{U1}\n"


FLEET = (
    "- {name: n3, provision_state: active, traits: [CUSTOM_A, CUSTOM_B]}\n"
    "- {name: n1, provision_state: available, traits: [CUSTOM_A]}\n"
    "- {name: n4, provision_state: available, traits: [CUSTOM_C]}\n"
    "- {name: n2, provision_state: available, traits: []}\n"
)


def names(cli: Invoke, database: str, *args: str) -> str:
    result = cli("node", "list", "--database", database, "-f", "value", "-c", "name", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_list_trait_filters_state_sort_and_limit(
    cli: Invoke, database: str, tmp_path: Path
) -> None:
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text(FLEET)
    cli("node", "import", str(inventory), "--database", database)
    assert names(cli, database) == "n1\nn2\nn3\nn4\n"
    assert names(cli, database, "--trait", "CUSTOM_A", "--trait", "CUSTOM_B") == "n3\n"
    assert names(cli, database, "--trait-any", "CUSTOM_B", "--trait-any", "CUSTOM_C") == "n3\nn4\n"
    # --not-trait: lacks at least one of them; --not-trait-any: lacks all of them
    assert names(cli, database, "--not-trait", "CUSTOM_A", "--not-trait", "CUSTOM_B") == (
        "n1\nn2\nn4\n"
    )
    assert names(cli, database, "--not-trait-any", "CUSTOM_A", "--not-trait-any", "CUSTOM_C") == (
        "n2\n"
    )
    assert names(cli, database, "--provision-state", "available") == "n1\nn2\nn4\n"
    assert names(cli, database, "--sort", "name:desc") == "n4\nn3\nn2\nn1\n"
    # ties in the order they were stored, reversed with the direction (as in Ironic)
    assert names(cli, database, "--sort", "provision_state:desc", "--limit", "2") == "n2\nn4\n"
    assert names(cli, database, "--limit", "3", "--trait-any", "CUSTOM_A") == "n1\nn3\n"
    listed = cli(
        "node",
        "list",
        "--database",
        database,
        "--sort",
        "provision_state",
        "--limit",
        "1",
        "-f",
        "value",
        "-c",
        "name",
        "-c",
        "provision_state",
        "-c",
        "traits",
    )
    assert listed.stdout == "n3 active CUSTOM_A CUSTOM_B\n"


def test_list_refuses_a_bad_sort_or_limit(cli: Invoke, database: str) -> None:
    usage = "Usage: flavorsmith node list [OPTIONS]\nTry 'flavorsmith node list -h' for help.\n\n"
    for args, error in [
        (
            ["--sort", "colour"],
            "Invalid value for '--sort': cannot sort by 'colour'; choose from name, uuid, driver, "
            "resource_class, provision_state, power_state, maintenance, instance_uuid, "
            "created_at, updated_at, conductor_group, owner, lessee, retired, protected",
        ),
        (
            ["--sort", "name:up"],
            "Invalid value for '--sort': unknown sort direction 'up' in 'name:up'; choose asc "
            "or desc",
        ),
        (
            ["--limit", "0"],
            "Invalid value for '--limit': Input should be greater than or equal to 1",
        ),
    ]:
        result = cli("node", "list", "--database", database, *args)
        assert (result.exit_code, result.stderr) == (2, f"{usage}Error: {error}\n")


def test_trait_remove_all(cli: Invoke, database: str, tmp_path: Path) -> None:
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text("- {name: n1, traits: [CUSTOM_A, CUSTOM_B]}\n- {name: n2}\n")
    cli("node", "import", str(inventory), "--database", database)
    usage = (
        "Usage: flavorsmith node trait remove [OPTIONS] {NODE} [TRAIT]...\n"
        "Try 'flavorsmith node trait remove -h' for help.\n\n"
    )
    both = cli("node", "trait", "remove", "n1", "CUSTOM_A", "--all", "--database", database)
    assert (both.exit_code, both.stdout, both.stderr) == (
        2,
        "",
        f"{usage}Error: Invalid value for 'TRAIT' / '--all': give trait names or --all, not both\n",
    )
    neither = cli("node", "trait", "remove", "n1", "--database", database)
    assert (neither.exit_code, neither.stderr) == (
        2,
        f"{usage}Error: Invalid value for 'TRAIT' / '--all': give the traits to remove, or --all\n",
    )
    removed = cli("node", "trait", "remove", "n1", "--all", "--database", database)
    assert (removed.exit_code, removed.stdout) == (0, "\n")
    assert cli("node", "trait", "list", "n1", "--database", database).stdout == ""
    again = cli("node", "trait", "remove", "n2", "--all", "--database", database)
    assert (again.exit_code, again.stdout) == (0, "\n")
    missing = cli("node", "trait", "remove", "nope", "--all", "--database", database)
    assert (missing.exit_code, missing.stderr) == (1, "error: Node nope could not be found.\n")


def test_a_bad_node_deep_in_a_streamed_file_is_named_by_its_line(
    cli: Invoke, database: str, tmp_path: Path
) -> None:
    """The fast reader keeps no positions: a problem is still reported at its file, line,
    column and field, and nothing is written."""
    inventory = tmp_path / "nodes.yaml"
    entries = [
        f"  - name: n{i}\n    driver: ipmi\n    properties: {{cpus: {i}}}\n" for i in range(1, 5)
    ]
    entries[2] = "  - name: n3\n    driver: ipmi\n    properties: [cpus]\n"
    inventory.write_text("# rack 7\nnodes:\n" + "".join(entries))
    result = cli("node", "import", str(inventory), "--database", database)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{inventory}:11:17: nodes[2].properties: 'properties' must be an object, not list",
        "1 error, 0 warnings",
        "error: nothing was imported",
    ]
    assert cli("node", "list", "--database", database, "-f", "value").stdout == ""


@pytest.mark.parametrize(
    ("text", "errors"),
    [
        (
            "a: 1\n",
            [
                ":1:1: (root): expected a list of nodes (or a mapping with 'nodes', or one Ironic node)"
            ],
        ),
        ("nodes: 3\n", [":1:8: nodes: expected a list of nodes"]),
        (
            "- just\n- text\n",
            [
                ":1:3: [0]: each node is a mapping with a name or a uuid",
                ":2:3: [1]: each node is a mapping with a name or a uuid",
            ],
        ),
    ],
)
def test_a_document_that_is_no_list_of_nodes_says_so(
    cli: Invoke, database: str, tmp_path: Path, text: str, errors: list[str]
) -> None:
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text(text)
    result = cli("node", "import", str(inventory), "--database", database)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        *(f"{inventory}{error}" for error in errors),
        f"{len(errors)} error{'s' if len(errors) > 1 else ''}, 0 warnings",
        "error: nothing was imported",
    ]


def test_a_streamed_file_read_again_when_its_kind_shows_late(
    cli: Invoke, database: str, tmp_path: Path
) -> None:
    """A list whose first batch looks like an inventory and whose last entry is Ironic
    output, or that needs the positioned parser only at its end (an anchor), imports as the
    whole file says: as the same nodes the file written the other way round gives."""
    plain = "".join(f"- {{name: n{i}, resource_class: m1}}\n" for i in range(2_100))
    ironic = tmp_path / "ironic.yaml"
    ironic.write_text(plain + "- {name: last, created_at: '2024-01-01T00:00:00+00:00'}\n")
    first = tmp_path / "first.yaml"
    first.write_text("- {name: last, created_at: '2024-01-01T00:00:00+00:00'}\n" + plain)
    late = cli("node", "import", str(ironic), "--database", database)
    early = cli("node", "import", str(first), "--database", f"{database}.2")
    assert (late.exit_code, late.stdout, late.stderr) == (0, early.stdout, early.stderr)
    assert late.stdout == "created: 2101\nupdated: 0\nunchanged: 0\n"
    assert late.stderr.startswith(
        "note: read as `openstack baremetal node list --long` output: 2101 nodes\n"
    )
    anchored = tmp_path / "anchored.yaml"
    anchored.write_text(plain + "- &x {name: anchored}\n")
    result = cli("node", "import", str(anchored), "--database", database)
    assert (result.exit_code, result.stdout) == (0, "created: 1\nupdated: 0\nunchanged: 2100\n")


def test_a_json_file_with_a_value_no_database_stores_is_refused_whole(
    cli: Invoke, database: str, tmp_path: Path
) -> None:
    inventory = tmp_path / "nodes.json"
    entries = [f'{{"name": "n{i}"}}' for i in range(2_100)]
    inventory.write_text('{"nodes": [' + ", ".join([*entries, '{"extra": {"k": NaN}}']) + "]}")
    result = cli("node", "import", str(inventory), "--database", database)
    assert (result.exit_code, result.stdout, result.stderr.splitlines()) == (
        1,
        "",
        [
            f"error: Invalid JSON in {inventory}: nodes[2100].extra.k: NaN is not allowed: "
            "numbers must be finite: NaN, Infinity and numbers beyond 1.8e308 are refused",
            "error: nothing was imported",
        ],
    )
    assert cli("node", "list", "--database", database, "-f", "value").stdout == ""
    inventory.write_text('{"nodes": [' + ", ".join(entries) + "]}")
    result = cli("node", "import", str(inventory), "--database", database)
    assert (result.exit_code, result.stdout) == (0, "created: 2100\nupdated: 0\nunchanged: 0\n")


def test_a_missing_database_stays_missing_unless_something_is_written(
    cli: Invoke, tmp_path: Path
) -> None:
    """A refused import or a read of a SQLite file that did not exist leaves no file behind (a
    typo in --database must not turn into an empty database); a write keeps it."""
    path = tmp_path / "typo.db"
    database = f"sqlite:///{path}"
    inventory = tmp_path / "nodes.yaml"
    inventory.write_text("- {name: a1, resource_class: 5}\n")
    refused = cli("node", "import", str(inventory), "--database", database)
    assert refused.exit_code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nodes.yaml"]
    listed = cli("node", "list", "--database", database, "-f", "value")
    assert (listed.exit_code, listed.stdout) == (0, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nodes.yaml"]
    inventory.write_text("- {name: a1, resource_class: m1.small}\n")
    created = cli("node", "import", str(inventory), "--database", database)
    assert (created.exit_code, created.stdout) == (0, "created: 1\nupdated: 0\nunchanged: 0\n")
    assert path.exists()
    assert cli("node", "list", "--database", database, "-f", "value", "-c", "name").stdout == "a1\n"
