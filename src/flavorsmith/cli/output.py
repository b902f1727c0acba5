"""Rendering command output like the openstack CLI: -f table|json|yaml|value, -c COLUMN."""

from __future__ import annotations

import csv
import enum
import io
import json
from collections.abc import Sequence
from typing import Any

import typer


class Format(enum.StrEnum):
    TABLE = "table"
    JSON = "json"
    YAML = "yaml"
    VALUE = "value"


class ListFormat(enum.StrEnum):
    """A list's formats: those of every command, and csv (as the openstack CLI's lists)."""

    TABLE = "table"
    JSON = "json"
    YAML = "yaml"
    VALUE = "value"
    CSV = "csv"


Row = dict[str, Any]


def select(rows: Sequence[Row], columns: Sequence[str], available: Sequence[str]) -> list[Row]:
    """Keep the requested columns (in the order asked); an unknown column is a usage error."""
    if not columns:
        return [{k: row.get(k) for k in available} for row in rows]
    unknown = [c for c in columns if c not in available]
    if unknown:
        raise typer.BadParameter(
            f"unknown column {unknown[0]!r}; choose from {', '.join(available)}",
            param_hint="'-c' / '--column'",
        )
    return [{k: row.get(k) for k in columns} for row in rows]


def render_list(rows: Sequence[Row], columns: Sequence[str], fmt: Format | ListFormat) -> str:
    if fmt is ListFormat.CSV:
        return to_csv(rows, columns)
    fmt = Format(fmt.value)
    if fmt is Format.JSON:
        return json.dumps(list(rows), indent=2) + "\n"
    if fmt is Format.YAML:
        return to_yaml(list(rows))
    if fmt is Format.VALUE:
        return "".join(" ".join(_flat(row[c], " ") for c in columns) + "\n" for row in rows)
    return table(columns, [[_flat(row[c], "\n") for c in columns] for row in rows])


def render_show(record: Row, fmt: Format) -> str:
    if fmt is Format.JSON:
        return json.dumps(record, indent=2) + "\n"
    if fmt is Format.YAML:
        return to_yaml(record)
    if fmt is Format.VALUE:
        return "".join(_flat(v, " ") + "\n" for v in record.values())
    return table(["Field", "Value"], [[k, _flat(v, "\n")] for k, v in record.items()])


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


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An ASCII table in the openstack CLI's shape; cells may span several lines."""
    split = [[cell.split("\n") for cell in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in split:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], *(len(line) for line in cell))
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+\n"

    def line(cells: Sequence[str]) -> str:
        return "|" + "|".join(f" {c:<{w}} " for c, w in zip(cells, widths, strict=True)) + "|\n"

    out = rule + line(headers) + rule
    for row in split:
        height = max(len(cell) for cell in row) if row else 1
        for n in range(height):
            out += line([cell[n] if n < len(cell) else "" for cell in row])
    return out + rule
