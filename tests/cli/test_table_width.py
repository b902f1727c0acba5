"""Tables fit a width as the openstack CLI's (cliff) do: wide cells wrap, narrow ones stay."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Invoke

WRAPPED_TO_50 = """\
+-----------------------+------------------------+
| name                  | description            |
+-----------------------+------------------------+
| c2.diskless           | Large diskless compute |
|                       | flavor (boot from      |
|                       | volume), 64 cores,     |
|                       | 512GB RAM              |
| c2.large              | Large compute flavor   |
|                       | with 64 cores, 512GB   |
|                       | RAM, and dual 1.92TB   |
|                       | drives                 |
+-----------------------+------------------------+
"""


def first_two(output: str) -> str:
    """The table's head and its first two flavors (the example catalog sorts c2.* first)."""
    lines = output.splitlines(keepends=True)
    return "".join(lines[:11]) + lines[0]


def test_max_width_wraps_the_wide_columns(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "list", "-c", "name", "-c", "description", "--max-width", "50")
    assert result.exit_code == 0, result.output
    assert first_two(result.stdout) == WRAPPED_TO_50
    assert {len(line) for line in result.stdout.splitlines()} == {50}


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


def test_every_column_shrinks_evenly_and_a_header_is_never_cut(
    example_repo: Path, cli: Invoke
) -> None:
    """80 columns, five fields: each gets 12; narrower ones (is_public) keep their width and the
    wider share what is left, never below a header (resource_class), as prettytable under cliff."""
    result = cli("flavor", "list", "--max-width", "80")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:12] == [
        "+---------------+----------------+---------------+-----------+------------------+",
        "| name          | resource_class | traits        | is_public | description      |",
        "+---------------+----------------+---------------+-----------+------------------+",
        "| c2.diskless   | c2.diskless    |               | True      | Large diskless   |",
        "|               |                |               |           | compute flavor   |",
        "|               |                |               |           | (boot from       |",
        "|               |                |               |           | volume), 64      |",
        "|               |                |               |           | cores, 512GB RAM |",
        "| c2.large      | c2.large       |               | True      | Large compute    |",
        "|               |                |               |           | flavor with 64   |",
        "|               |                |               |           | cores, 512GB     |",
        "|               |                |               |           | RAM, and dual    |",
    ]
    assert lines[13:19] == [
        "| c2.large.novm | c2.large       | BM_CONFIG_BIO | True      | c2.large with    |",
        "| x-stripe      |                | S_VMX_OFF=req |           | VT-x off and the |",
        "|               |                | uired         |           | drives striped   |",
        "|               |                | BM_CONFIG_RAI |           | (RAID-0)         |",
        "|               |                | D_DISK_STRIPE |           |                  |",
        "|               |                | =required     |           |                  |",
    ]


def test_a_show_table_keeps_sixteen_columns_per_field(example_repo: Path, cli: Invoke) -> None:
    result = cli("flavor", "show", "m1.small", "--max-width", "30")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:8] == [
        "+------------------+------------------+",
        "| Field            | Value            |",
        "+------------------+------------------+",
        "| name             | m1.small         |",
        "| resource_class   | m1.small         |",
        "| description      | Small compute    |",
        "|                  | flavor with 16   |",
        "|                  | cores, 128GB     |",
    ]


def test_a_table_that_fits_is_unchanged(example_repo: Path, cli: Invoke) -> None:
    wide = cli("flavor", "list", "--max-width", "200")
    assert wide.stdout == cli("flavor", "list").stdout
    assert max(len(line) for line in wide.stdout.splitlines()) == 186
