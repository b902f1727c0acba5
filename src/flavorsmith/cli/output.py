"""Rendering command output like the openstack CLI: -f table|json|yaml|value, -c COLUMN."""

from __future__ import annotations

import contextvars
import csv
import enum
import io
import json
import shutil
import sys
import textwrap
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
        check_columns(columns, list(record), "'-c' / '--column'")
        record = {c: record[c] for c in columns}
    if fmt is Format.SHELL:
        return to_shell(record, _meta("prefix") or "")
    if fmt is Format.JSON:
        return json.dumps(record, indent=2) + "\n"
    if fmt is Format.YAML:
        return to_yaml(record)
    if fmt is Format.VALUE:
        return "".join(_flat(v, " ") + "\n" for v in record.values())
    return table(["Field", "Value"], [[k, _flat(v, "\n")] for k, v in record.items()], min_width=16)


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

    When the table must fit a width (``display_width``), it shrinks as cliff's table formatter
    does: the columns wider than an equal share give up space, none below ``min_width`` (8 in a
    list, 16 in a show table, so the table overflows rather than squeeze a column further) nor
    below its header, and their cells wrap at word boundaries (long words are split)."""
    split = [[cell.split("\n") for cell in row] for row in rows]
    natural = [len(h) for h in headers]
    for row in split:
        for i, cell in enumerate(row):
            natural[i] = max(natural[i], *(len(line) for line in cell))
    limit = display_width()
    widths = natural if limit is None else fitted_widths(headers, natural, limit, min_width)
    if widths != natural:
        split = [[_wrap(cell, w) for cell, w in zip(row, widths, strict=True)] for row in split]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+\n"

    def line(cells: Sequence[str]) -> str:
        return "|" + "|".join(f" {c:<{w}} " for c, w in zip(cells, widths, strict=True)) + "|\n"

    out = rule + line(headers) + rule
    for row in split:
        height = max(len(cell) for cell in row) if row else 1
        for n in range(height):
            out += line([cell[n] if n < len(cell) else "" for cell in row])
    return out + rule


def fitted_widths(
    headers: Sequence[str], natural: Sequence[int], limit: int, min_width: int
) -> list[int]:
    """Each column's width when the table must fit ``limit`` characters (cliff's rule)."""
    count = len(natural)
    if count == 0 or 1 + sum(w + 3 for w in natural) <= limit:
        return list(natural)
    usable = max(0, limit - 1 - 3 * count)
    equal_share = usable // count
    shrink = [i for i, w in enumerate(natural) if w > equal_share]
    remaining = usable - sum(w for w in natural if w <= equal_share)
    caps: dict[int, int] = {}
    share = remaining // len(shrink)
    for i in shrink[:-1]:
        caps[i] = max(min_width, share)
        remaining -= share
    caps[shrink[-1]] = max(min_width, remaining)
    return [
        max(len(headers[i]), min(w, caps[i])) if i in caps else w for i, w in enumerate(natural)
    ]


def _wrap(cell: list[str], width: int) -> list[str]:
    out: list[str] = []
    for line in cell:
        out.extend((textwrap.wrap(line, width) or [""]) if len(line) > width else [line])
    return out


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
