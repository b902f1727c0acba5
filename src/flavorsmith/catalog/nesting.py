"""How deep a YAML text nests, found before any parser builds a tree of it.

Both parsers that build trees recurse once per level: libyaml's composer in C (PyYAML before
6.0.4 ran off the C stack near 25,000 levels, killing the process with SIGSEGV, beyond the
reach of any ``except``), ruamel's composer and our own tree walks in Python. So every YAML
reader asks :func:`too_deep` first. It reads libyaml's parse *events*, which its parser makes
with a stack of its own, without recursion, and stops at the first collection nested deeper
than the one limit every document shares (``jsonsafe.MAX_DEPTH``: request bodies, stored
values, catalog files, node dumps, inspection data and saved plans alike)."""

from __future__ import annotations

from typing import Any

import yaml  # type: ignore[import-untyped]

from flavorsmith.jsonsafe import MAX_DEPTH

try:  # libyaml is optional in PyYAML builds; PyYAML's own parser does not recurse either.
    from yaml._yaml import CParser as _Parser  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _Parser

_STARTS = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_ENDS = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def message() -> str:
    """What a document nested too deep is told, wherever it was read."""
    return f"nested more than {MAX_DEPTH} levels deep; at most {MAX_DEPTH} are allowed"


def too_deep(text: str | bytes) -> tuple[int, int] | None:
    """The 1-based (line, column) where ``text`` first nests deeper than ``MAX_DEPTH``
    collections, or None. A syntax error before that point is not this function's to
    report: it answers None and the parser that follows says what is wrong."""
    parser: Any = _Parser(text)
    depth = 0
    try:
        while True:
            event = parser.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return None
            if isinstance(event, _STARTS):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    return mark.line + 1, mark.column + 1
            elif isinstance(event, _ENDS):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        # libyaml's scanner reads flow brackets ahead of the events, and refuses a thousand
        # levels itself (PyYAML 6.0.4 and later): too deep too, where it stopped.
        if "nesting depth" in str(exc.problem) and exc.problem_mark is not None:
            return exc.problem_mark.line + 1, exc.problem_mark.column + 1
        return None
    except (yaml.YAMLError, ValueError, TypeError):
        return None
    finally:
        parser.dispose()
