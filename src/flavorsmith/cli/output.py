"""Rendering command output like the openstack CLI: -f table|json|yaml|value, -c COLUMN."""

from __future__ import annotations

import contextvars
import csv
import enum
import io
import json
import re
import shutil
import sys
from collections.abc import Sequence
from typing import Any

import typer

from flavorsmith.did_you_mean import did_you_mean


class Format(enum.StrEnum):
    TABLE = "table"
    JSON = "json"
    YAML = "yaml"
    VALUE = "value"
    SHELL = "shell"


class ListFormat(enum.StrEnum):
    """A list's formats: those of every command, and csv (as the openstack CLI's lists)."""

    TABLE = "table"
    JSON = "json"
    YAML = "yaml"
    VALUE = "value"
    CSV = "csv"


class ReportFormat(enum.StrEnum):
    """A report's formats (sync plans, explanations, deploy plans: a document, or several
    tables): neither shell (one record) nor csv (one table)."""

    TABLE = "table"
    JSON = "json"
    YAML = "yaml"
    VALUE = "value"


Row = dict[str, Any]


def select(rows: Sequence[Row], columns: Sequence[str], available: Sequence[str]) -> list[Row]:
    """Keep the requested columns (in the order asked); an unknown column is a usage error."""
    if not columns:
        return [{k: row.get(k) for k in available} for row in rows]
    check_columns(columns, available, "'-c' / '--column'")
    return [{k: row.get(k) for k in columns} for row in rows]


def check_columns(columns: Sequence[str], available: Sequence[str], option: str) -> None:
    """A usage error naming the first unknown column, with a suggestion and the choices."""
    for column in columns:
        if column not in available:
            raise typer.BadParameter(
                f"unknown column {column!r}{did_you_mean(column, available)}; "
                f"choose from {', '.join(available)}",
                param_hint=option,
            )


def sort_rows(rows: Sequence[Row], columns: Sequence[str], available: Sequence[str]) -> list[Row]:
    """Rows sorted by each ``--sort-column`` in turn (the first is the main key), ascending;
    an empty cell sorts first, and a column of mixed types sorts as text."""
    check_columns(columns, available, "'--sort-column'")
    out = list(rows)
    for column in reversed(columns):
        try:
            out.sort(key=lambda row: (False, 0) if row.get(column) is None else (True, row[column]))
        except TypeError:
            out.sort(key=lambda row: _flat(row.get(column), " "))
    return out


def render_list(rows: Sequence[Row], columns: Sequence[str], fmt: Format | ListFormat) -> str:
    if fmt is ListFormat.CSV:
        return to_csv(rows, columns)
    if fmt is Format.SHELL:
        raise typer.BadParameter(
            "shell prints one record (show commands); for a list use csv, value, json or yaml",
            param_hint="'-f' / '--format'",
        )
    fmt = Format(fmt.value)
    if fmt is Format.JSON:
        return json.dumps(list(rows), indent=2) + "\n"
    if fmt is Format.YAML:
        return to_yaml(list(rows))
    if fmt is Format.VALUE:
        return "".join(" ".join(_flat(row[c], " ") for c in columns) + "\n" for row in rows)
    return table(columns, [[_flat(row[c], "\n") for c in columns] for row in rows])


def render_show(record: Row, fmt: Format, columns: Sequence[str] = ()) -> str:
    """One record as a Field/Value table, or in another format; ``columns`` (``-c``) keeps
    only those fields."""
    if columns:
        record = pick_fields(record, columns)
    if fmt is Format.SHELL:
        return to_shell(record, _meta("prefix") or "")
    if fmt is Format.JSON:
        return json.dumps(record, indent=2) + "\n"
    if fmt is Format.YAML:
        return to_yaml(record)
    if fmt is Format.VALUE:
        return "".join(_flat(v, " ") + "\n" for v in record.values())
    return table(["Field", "Value"], [[k, _flat(v, "\n")] for k, v in record.items()], min_width=16)


def pick_fields(record: Row, columns: Sequence[str]) -> Row:
    """The ``-c`` fields of a record, in the order asked, whichever way the format shows it: a
    nested field by its dotted name (``nova_flavor.ram``), as a table flattens it, and a
    flattened group by its name (``nova_flavor``: every ``nova_flavor.*`` field). The
    choices an unknown column is told are the fields and groups of this format."""
    fields: dict[str, Any] = {}
    for key, value in record.items():
        fields[key] = value
        if isinstance(value, dict):
            fields |= {f"{key}.{inner}": v for inner, v in value.items()}
    groups = {key.split(".")[0] for key in record} - set(fields)
    check_columns(columns, [*fields, *sorted(groups)], "'-c' / '--column'")
    out: Row = {}
    for column in columns:
        if column in fields:
            out[column] = fields[column]
        else:
            out |= {k: v for k, v in record.items() if k.startswith(column + ".")}
    return out


def print_list(
    rows: Sequence[Row],
    available: Sequence[str],
    fmt: Format | ListFormat,
    columns: Sequence[str] | None = None,
    sort: Sequence[str] | None = None,
) -> None:
    """A list command's output (the openstack CLI's ``Lister``): the rows sorted by each
    ``--sort-column``, the ``columns`` in their order (``-c``, or the command's default; every
    available column when empty), in the ``-f`` format; an unknown column is a usage error."""
    wanted = list(columns or available)
    ordered = sort_rows(rows, sort or [], available)
    typer.echo(render_list(select(ordered, wanted, available), wanted, fmt), nl=False)


def print_show(record: Row, fmt: Format, columns: Sequence[str] | None = None) -> None:
    """A show command's output (the openstack CLI's ``ShowOne``): one record, its ``-c``
    fields only when given, in the ``-f`` format."""
    typer.echo(render_show(record, fmt, columns or ()), nl=False)


def print_document(data: Any, fmt: str) -> bool:
    """Print ``data`` as the document -f json (indented by 2) or -f yaml asks for; False, and
    nothing printed, for the other formats (tables, values, csv), which the command renders."""
    if fmt == "json":
        typer.echo(json.dumps(data, indent=2))
    elif fmt == "yaml":
        typer.echo(to_yaml(data), nl=False)
    else:
        return False
    return True


def to_csv(rows: Sequence[Row], columns: Sequence[str]) -> str:
    """A header line, then one line per row; a list cell is its items joined by spaces."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(columns)
    for row in rows:
        writer.writerow(
            [
                v if isinstance(v, int) and not isinstance(v, bool) else _flat(v, " ")
                for v in (row[c] for c in columns)
            ]
        )
    return out.getvalue()


def to_shell(record: Row, prefix: str) -> str:
    """``NAME="value"`` lines a shell can ``eval``, as the openstack CLI's ``-f shell``: names
    lower-cased, spaces, colons, dashes and dots become underscores; quotes are escaped."""
    out = []
    for key, value in record.items():
        name = key.lower()
        for char in " :-.":
            name = name.replace(char, "_")
        text = "None" if value is None else _flat(value, " ")
        out.append(f'{prefix}{name}="{text.replace(chr(34), chr(92) + chr(34))}"\n')
    return "".join(out)


def to_yaml(data: Any) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _flat(value: Any, sep: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, dict):
        return sep.join(f"{k}={_flat(v, ',')}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return sep.join(_flat(v, ",") for v in value)
    return str(value)


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, min_width: int = 8) -> str:
    """An ASCII table in the openstack CLI's shape; cells may span several lines.

    When the table must fit a width (``display_width``), it shrinks the way cliff's table
    formatter does, with a few rules of ours (see ``fitted_widths``): the widest columns wrap
    first, on word boundaries; the first column (the key: a name) is never wrapped. A table
    that cannot fit is printed at its narrowest, and a note on stderr says so, once."""
    head = [[header] for header in headers]
    split = [[cell.split("\n") for cell in row] for row in rows]
    natural = [max(len(line) for line in cell) for cell in head]
    for row in split:
        for i, cell in enumerate(row):
            natural[i] = max(natural[i], *(len(line) for line in cell))
    limit = display_width()
    widths, hard = list(natural), [False] * len(natural)
    if limit is not None:
        widths, hard = fitted_widths(head, split, limit, min_width)
        if _outer(widths) > limit:
            _say_once(
                f"note: this table is {_outer(widths)} characters wide, more than {limit}: "
                "choose fewer columns with -c, or another format with -f"
            )
    if widths != natural:
        head = [_wrap(c, w, h) for c, w, h in zip(head, widths, hard, strict=True)]
        split = [
            [_wrap(c, w, h) for c, w, h in zip(row, widths, hard, strict=True)] for row in split
        ]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+\n"

    def lines(cells: Sequence[list[str]]) -> str:
        height = max((len(cell) for cell in cells), default=1)
        return "".join(
            "|"
            + "|".join(
                f" {cell[n] if n < len(cell) else '':<{w}} "
                for cell, w in zip(cells, widths, strict=True)
            )
            + "|\n"
            for n in range(height)
        )

    return rule + lines(head) + rule + "".join(lines(row) for row in split) + rule


def _outer(widths: Sequence[int]) -> int:
    """A table's width: its columns, their padding and the borders."""
    return 1 + sum(w + 3 for w in widths)


# Where a cell's line may break: at spaces, and within a word after one of these characters
# when a letter follows (``c2.|large``, ``BM_|CONFIG``, not ``1.92TB``).
_BREAK_AFTER = "_.,/:=-"
_PIECE = re.compile(rf".+?[{re.escape(_BREAK_AFTER)}]+(?=[^\W\d_])|.+")
# When words must be split: after any of them first (``edbc24c6-|5f1c-``).
_LOOSE_PIECE = re.compile(rf".+?[{re.escape(_BREAK_AFTER)}]+(?=.)|.+")


def _pieces(line: str, pattern: re.Pattern[str] = _PIECE) -> list[tuple[str, str]]:
    """A line's unbreakable pieces, each with what joins it to the one before (a space, or
    nothing within a word); the line's indentation stays on its first piece."""
    indent = line[: len(line) - len(line.lstrip(" "))]
    out: list[tuple[str, str]] = []
    for n, word in enumerate(line.split()):
        for m, part in enumerate(pattern.findall(word)):
            out.append((part, (" " if n else "") if m == 0 else ""))
    if out and indent:
        out[0] = (indent + out[0][0], "")
    return out


def _longest_piece(cell: Sequence[str]) -> int:
    return max((len(piece) for line in cell for piece, _ in _pieces(line)), default=0)


def _numeric(cells: Sequence[Sequence[str]]) -> bool:
    values = [line for cell in cells for line in cell if line]
    return bool(values) and all(_NUMBER.fullmatch(v) for v in values)


_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def fitted_widths(
    headers: Sequence[Sequence[str]],
    rows: Sequence[Sequence[Sequence[str]]],
    limit: int,
    min_width: int,
) -> tuple[list[int], list[bool]]:
    """Each column's width when the table must fit ``limit`` characters, and whether its
    words may be split. The widest column gives up one character at a time (so the widest
    ones end up sharing the space evenly, as cliff's equal share), in steps, each only as far
    as the table needs:

    1. the headers wrap, at word boundaries (a space, or after ``_ . , / : = -``);
    2. the cells wrap there too, no narrower than ``min_width`` (8 in a list, 16 in a show
       table, as cliff) unless their widest value is narrower, nor than their longest word;
    3. the text columns split long words, down to ``min_width``, when that makes the table
       fit; numbers are never split.

    The first column (a name, the key of each row) never wraps."""
    count = len(headers)
    widths = [
        max(len(line) for cell in column for line in cell) for column in _columns(headers, rows)
    ]
    hard = [False] * count
    if count == 0 or _outer(widths) <= limit:
        return widths, hard
    budget = limit - _outer([0] * count)
    natural = list(widths)
    heads = [_longest_piece(header) for header in headers]
    cells = [
        [max(len(line) for line in cell) for cell in column[1:]] or [0]
        for column in _columns(headers, rows)
    ]
    words = [
        max(_longest_piece(cell) for cell in column[1:]) if rows else 0
        for column in _columns(headers, rows)
    ]
    floor = [min(n, min_width) for n in natural]
    steps = [
        [max(floor[i], heads[i], *cells[i]) for i in range(count)],
        [max(floor[i], heads[i], words[i]) for i in range(count)],
    ]
    for step in steps:
        _shrink(widths, [natural[0], *step[1:]], budget)
        if sum(widths) <= budget:
            return widths, hard
    split = list(widths)
    for i, column in enumerate(_columns(headers, rows)):
        if i and not _numeric(column[1:]) and max(floor[i], heads[i]) < split[i]:
            hard[i] = True
    _shrink(
        split,
        [
            n if not h else max(floor[i], heads[i])
            for i, (n, h) in enumerate(zip(split, hard, strict=True))
        ],
        budget,
    )
    if sum(split) > budget:  # splitting words would not make it fit: keep them whole
        return widths, [False] * count
    return split, hard


def _columns(
    headers: Sequence[Sequence[str]], rows: Sequence[Sequence[Sequence[str]]]
) -> list[list[Sequence[str]]]:
    """Each column's cells, its header first."""
    return [[headers[i], *(row[i] for row in rows)] for i in range(len(headers))]


def _shrink(widths: list[int], floors: Sequence[int], budget: int) -> None:
    """Narrow the widest column above its floor (the last of equals) by one character until
    the widths fit ``budget`` or none can give more."""
    while sum(widths) > budget:
        candidates = [i for i, w in enumerate(widths) if w > floors[i]]
        if not candidates:
            return
        widest = max(widths[i] for i in candidates)
        widths[max(i for i in candidates if widths[i] == widest)] -= 1


def _wrap(cell: list[str], width: int, hard: bool) -> list[str]:
    """A cell's lines broken to ``width`` at word boundaries (long words split if ``hard``)."""
    out: list[str] = []
    for line in cell:
        if len(line) <= width:
            out.append(line)
            continue
        current = ""
        for piece, joint in _pieces(line, _LOOSE_PIECE if hard else _PIECE):
            if current and len(current) + len(joint) + len(piece) <= width:
                current += joint + piece
                continue
            if current:
                out.append(current)
            while hard and len(piece) > width:
                out.append(piece[:width])
                piece = piece[width:]
            current = piece
        out.append(current)
    return out


def _say_once(note: str) -> None:
    """The note that a table is too wide, on stderr, said once per command however many
    tables it prints (the first one's width)."""
    if not _meta("said_too_wide"):
        typer.echo(note, err=True)
        _OPTIONS.set({**(_OPTIONS.get() or {}), "said_too_wide": True})


def display_width() -> int | None:
    """The width tables must fit, or None: ``--max-width`` when above 0; else, on a terminal
    or with ``--fit-width``, ``$COLUMNS`` or the terminal's width; else no limit (piped)."""
    max_width = int(_meta("max_width") or 0)
    if max_width > 0:
        return max_width
    if not (sys.stdout.isatty() or _meta("fit_width")):
        return None
    columns = shutil.get_terminal_size(fallback=(0, 0)).columns
    return columns if columns > 0 else None


# The table formatter's options of the running command (a command's own context is not
# reachable from the rendering, which may happen deep in a helper).
_OPTIONS: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "output_options", default=None
)


def reset() -> None:
    """Forget the output options of an earlier command (the root group calls this first)."""
    _OPTIONS.set({})


def remember(param: typer.CallbackParam, value: Any) -> Any:
    """Option callback: keep an output option (``--max-width``, ``--fit-width``, ``--prefix``)
    for the rendering of this command, however deep it happens."""
    if param.name is not None:
        _OPTIONS.set({**(_OPTIONS.get() or {}), param.name: value})
    return value


def _meta(name: str) -> Any:
    return (_OPTIONS.get() or {}).get(name)
