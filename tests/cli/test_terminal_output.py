"""What an operator sees in an 80-column terminal (a real pseudo-terminal): tables fit it,
wrapping their widest text columns at word boundaries and never a row's name; the root's help
shows each command's whole first sentence. The expected outputs are in terminal_80/."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from flavorsmith.db.engine import make_engine
from tests.conftest import EXAMPLES
from tests.matching.conftest import load_examples
from tests.support.terminal import in_terminal

EXPECTED = Path(__file__).parent / "terminal_80"


@pytest.fixture(scope="module")
def example_nodes(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A SQLite database holding the example inventory (examples/nodes.yaml)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('terminal') / 'nodes.db'}"
    engine: Engine = make_engine(url)
    load_examples(engine)
    engine.dispose()
    return url


def expected(name: str) -> str:
    return (EXPECTED / name).read_text()


def test_capacity_fits_80_columns(example_nodes: str) -> None:
    """The flavors' names whole, the counts' headers wrapped at "_", and the findings."""
    run = in_terminal("capacity", "--repo", str(EXAMPLES), "--database", example_nodes)
    assert (run.exit_code, run.stderr, run.stdout) == (0, "", expected("capacity.txt"))
    assert max(len(line) for line in run.stdout.splitlines()) == 80


def test_flavor_list_fits_80_columns() -> None:
    """The widest columns (description, traits) wrap first, at spaces and after "_" or "=";
    c2.diskless and m1.medium stay whole."""
    run = in_terminal("flavor", "list", "--repo", str(EXAMPLES))
    assert (run.exit_code, run.stderr, run.stdout) == (0, "", expected("flavor-list.txt"))
    assert max(len(line) for line in run.stdout.splitlines()) == 80


@pytest.mark.parametrize("kind", ["load-balancer-flavor", "network-flavor"])
def test_the_service_flavor_files_list_fits_80_columns(kind: str) -> None:
    """The flavor data wraps after "=" and ".", the descriptions at spaces; names stay whole."""
    run = in_terminal(kind, "list", "--repo", str(EXAMPLES))
    assert (run.exit_code, run.stderr, run.stdout) == (0, "", expected(f"{kind}-list.txt"))
    assert max(len(line) for line in run.stdout.splitlines()) == 80


def test_a_table_that_cannot_fit_says_so_once() -> None:
    """The device types' names (26 characters) and five columns of at least 8 cannot fit 80:
    the table is printed at its narrowest, names whole, and stderr says so."""
    run = in_terminal("device-type", "list", "--repo", str(EXAMPLES))
    assert (run.exit_code, run.stdout) == (0, expected("device-type-list.txt"))
    assert run.stderr == (
        "note: this table is 91 characters wide, more than 80: choose fewer columns with -c, "
        "or another format with -f\n"
    )


def test_the_note_is_said_once_for_two_tables(example_nodes: str) -> None:
    run = in_terminal(
        "capacity", "--repo", str(EXAMPLES), "--database", example_nodes, "--max-width", "40"
    )
    assert run.exit_code == 0
    assert run.stderr == (
        "note: this table is 64 characters wide, more than 40: choose fewer columns with -c, "
        "or another format with -f\n"
    )


def test_the_root_help_shows_whole_sentences() -> None:
    run = in_terminal("--help")
    assert (run.exit_code, run.stderr, run.stdout) == (0, "", expected("help.txt"))
    assert "..." not in run.stdout.replace("[ARGS]...", "").replace("extra-specs file ...", "")
