"""Tables fit a width as the openstack CLI's (cliff) do: wide cells wrap, narrow ones stay."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Invoke

# The names stay whole (the longest is m1.small.nvme-cx5-no-gpu); the descriptions wrap.
WRAPPED_TO_50 = """\
+--------------------------+---------------------+
| name                     | description         |
+--------------------------+---------------------+
| c2.diskless              | Large diskless      |
|                          | compute flavor      |
|                          | (boot from volume), |
|                          | 64 cores, 512GB RAM |
| c2.large                 | Large compute       |
|                          | flavor with 64      |
|                          | cores, 512GB RAM,   |
|                          | and dual 1.92TB     |
|                          | drives              |
+--------------------------+---------------------+
"""
TERMINAL_80 = Path(__file__).parent / "terminal_80"


def first_two(output: str) -> str:
    """The table's head and its first two flavors (the example catalog sorts c2.* first)."""
    lines = output.splitlines(keepends=True)
    return "".join(lines[:12]) + lines[0]


def test_max_width_wraps_the_wide_columns(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "list", "-c", "name", "-c", "description", "--max-width", "50")
    assert result.exit_code == 0, result.output
    assert first_two(result.stdout) == WRAPPED_TO_50
    assert {len(line) for line in result.stdout.splitlines()} == {50}
    assert result.stderr == ""


def test_fit_width_reads_columns(example_repo: Path, cli: Invoke) -> None:
    result = cli(
        "flavor", "list", "-c", "name", "-c", "description", "--fit-width", env={"COLUMNS": "50"}
    )
    assert result.exit_code == 0, result.output
    assert first_two(result.stdout) == WRAPPED_TO_50


def test_piped_output_is_not_fitted_without_fit_width(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "list", "-c", "name", "-c", "description", env={"COLUMNS": "50"})
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[3] == (
        "| c2.diskless              | Large diskless compute flavor (boot from volume), 64 cores,"
        " 512GB RAM                    |"
    )
    # an option of one command does not leak into the next
    again = cli("flavor", "list", "-c", "name", "-c", "description")
    assert again.stdout == result.stdout


def test_max_width_fits_as_a_terminal_of_that_width(example_repo: Path, cli: Invoke) -> None:
    """Piped with --max-width 80, a table is what an 80-column terminal shows (there: a real
    terminal, in test_terminal_output)."""
    result = cli("flavor", "list", "--max-width", "80")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (TERMINAL_80 / "flavor-list.txt").read_text()


def test_a_show_table_keeps_sixteen_columns_per_value(example_repo: Path, cli: Invoke) -> None:
    """The field names stay whole and the values keep 16 columns, as cliff's: wider than 30,
    which stderr says."""
    result = cli("flavor", "show", "m1.small", "--max-width", "30", "-c", "name", "-c",
                 "description", "-c", "nova_flavor.ram")  # fmt: skip
    assert (result.exit_code, result.stdout) == (
        0,
        """\
+-----------------+------------------+
| Field           | Value            |
+-----------------+------------------+
| name            | m1.small         |
| description     | Small compute    |
|                 | flavor with 16   |
|                 | cores, 128GB     |
|                 | RAM, and dual    |
|                 | 480GB drives     |
| nova_flavor.ram | 131072           |
+-----------------+------------------+
""",
    )
    assert result.stderr == (
        "note: this table is 38 characters wide, more than 30: choose fewer columns with -c, "
        "or another format with -f\n"
    )


def test_a_table_that_fits_is_unchanged(example_repo: Path, cli: Invoke) -> None:
    wide = cli("flavor", "list", "--max-width", "200")
    assert wide.stdout == cli("flavor", "list").stdout
    assert max(len(line) for line in wide.stdout.splitlines()) == 186
