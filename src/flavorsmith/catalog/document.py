"""A YAML file parsed with positions, and the diagnostics that point into it."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml  # type: ignore[import-untyped]
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from flavorsmith.catalog import libyaml_nodes, nesting
from flavorsmith.diagnostics import Diagnostic, Severity

# A catalog file is a few kilobytes; anything this large is a mistake, not a definition.
MAX_FILE_BYTES = 1024 * 1024
# Bounds the expansion of YAML aliases ("billion laughs") when converting to plain data.
MAX_NODES = 100_000

FieldPath = Sequence[str | int]


def render_field(path: FieldPath) -> str:
    """``("traits", 0, "trait")`` -> ``traits[0].trait``; the empty path is ``(root)``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "(root)"


@dataclass(frozen=True)
class Document:
    """One parsed file: a tree with positions, and plain data (for validation).

    The tree is libyaml's node tree (``yaml.Node``, each with its ``start_mark``) when
    :func:`libyaml_nodes.load_nodes` could read the file, else ruamel's round-trip tree; both
    give the same positions (``position``)."""

    display: str
    tree: Any
    data: Any

    def position(self, path: FieldPath, *, at_key: bool = False) -> tuple[int, int]:
        """1-based (line, column) of the value at ``path``, or of the closest enclosing node."""
        if isinstance(self.tree, yaml.Node):
            return _node_position(self.tree, path, at_key)
        node = self.tree
        best = _node_start(node) or (1, 1)
        for index, part in enumerate(path):
            last = index == len(path) - 1
            if isinstance(node, CommentedMap) and isinstance(part, str) and part in node:
                if part not in (node.lc.data or {}):
                    return best  # a key merged in with ``<<``: ruamel records no position
                if last:
                    line, col = node.lc.key(part) if at_key else node.lc.value(part)
                    return line + 1, col + 1
                line, col = node.lc.key(part)
                best = (line + 1, col + 1)
                node = node[part]
            elif isinstance(node, CommentedSeq) and isinstance(part, int) and 0 <= part < len(node):
                line, col = node.lc.item(part)
                if last:
                    return line + 1, col + 1
                best = (line + 1, col + 1)
                node = node[part]
            else:
                return best
            start = _node_start(node)
            if start is not None:
                best = start
        return best

    def diagnostic(
        self,
        path: FieldPath,
        message: str,
        *,
        severity: Severity = Severity.ERROR,
        code: str = "",
        at_key: bool = False,
    ) -> Diagnostic:
        line, col = self.position(path, at_key=at_key)
        return Diagnostic(self.display, line, col, render_field(path), message, severity, code)


def _node_start(node: Any) -> tuple[int, int] | None:
    if isinstance(node, CommentedMap | CommentedSeq) and node.lc.line is not None:
        return node.lc.line + 1, node.lc.col + 1
    return None


def _node_position(root: Any, path: FieldPath, at_key: bool) -> tuple[int, int]:
    """``Document.position`` on libyaml's node tree, step for step as on ruamel's: ruamel
    records the same ``start_mark`` of every key and value node."""
    node = root
    best = _mark(node) if isinstance(node, yaml.CollectionNode) else (1, 1)
    for index, part in enumerate(path):
        last = index == len(path) - 1
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            # Keys are plain text and never repeat (else the file is read by ruamel).
            pair = next(((k, v) for k, v in node.value if k.value == part), None)
            if pair is None:
                return best
            if last:
                return _mark(pair[0] if at_key else pair[1])
            best = _mark(pair[0])
            node = pair[1]
        elif (
            isinstance(node, yaml.SequenceNode)
            and isinstance(part, int)
            and 0 <= part < len(node.value)
        ):
            node = node.value[part]
            if last:
                return _mark(node)
            best = _mark(node)
        else:
            return best
        if isinstance(node, yaml.CollectionNode):
            best = _mark(node)
    return best


def _mark(node: Any) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def parse(
    raw: bytes, display: str, *, max_bytes: int | None = MAX_FILE_BYTES, fast: bool = True
) -> tuple[Document | None, list[Diagnostic]]:
    """Parse one YAML document; every failure becomes a diagnostic, never an exception.

    libyaml reads it when it can tell the data and positions ruamel would give (see
    ``libyaml_nodes.load_nodes``), ten times as fast; else, or with ``fast=False``, ruamel."""

    def fail(line: int, col: int, message: str, code: str) -> tuple[None, list[Diagnostic]]:
        return None, [Diagnostic(display, line, col, "yaml", message, Severity.ERROR, code)]

    if max_bytes is not None and len(raw) > max_bytes:
        return fail(1, 1, f"file is {len(raw)} bytes; at most {max_bytes} allowed", "too-big")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return fail(line, col, f"not UTF-8 text (byte 0x{raw[exc.start]:02x})", "encoding")
    deep = nesting.too_deep(text)
    if deep is not None:  # before any parser recurses into it
        return fail(*deep, nesting.message(), "too-deep")
    read = libyaml_nodes.load_nodes(raw) if fast else None
    # Each value takes at least one byte, so a smaller file cannot hold too many of them.
    if read is not None and (
        max_bytes is None or len(raw) <= MAX_NODES or _values(read[1]) <= MAX_NODES
    ):
        return Document(display, read[0], read[1]), []
    try:
        documents = list(YAML(typ="rt").load_all(text))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        if "block end" in problem or "mapping values are not allowed" in problem:
            problem += " (check the indentation of this line and the one above)"
        return fail(line, col, f"invalid YAML: {problem}", "yaml-syntax")
    except RecursionError:
        return fail(1, 1, "invalid YAML: nesting is too deep", "yaml-syntax")
    except (YAMLError, ValueError, TypeError, AttributeError, KeyError) as exc:
        # The YAML library signals some malformed inputs with plain exceptions.
        message = " ".join(str(exc).split()) or type(exc).__name__
        return fail(1, 1, f"invalid YAML: {message}", "yaml-syntax")
    documents = [d for d in documents if d is not None] or documents[:1]
    if not documents or documents[0] is None:
        return fail(1, 1, "file is empty; expected a mapping of keys", "empty")
    if len(documents) > 1:
        return fail(1, 1, f"expected one YAML document, found {len(documents)}", "multi-doc")
    tree = documents[0]
    try:
        data = _plain(tree, [0], set(), MAX_NODES if max_bytes is not None else None)
    except _TooLarge as exc:
        return fail(1, 1, str(exc), "too-big")
    return Document(display, tree, data), []


def _values(data: Any) -> int:
    """How many values ``_plain`` counts in ``data`` (every value, keys aside)."""
    count, stack = 0, [data]
    while stack:
        value = stack.pop()
        count += 1
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return count


class _TooLarge(Exception):
    pass


def _plain(node: Any, count: list[int], active: set[int], limit: int | None = MAX_NODES) -> Any:
    """Convert ruamel's round-trip objects into JSON-like data, bounding alias expansion."""
    count[0] += 1
    if limit is not None and count[0] > limit:
        raise _TooLarge(f"document expands to more than {MAX_NODES} values (aliases?)")
    if isinstance(node, dict | list):
        if id(node) in active:
            raise _TooLarge("document refers to itself through an alias")
        active.add(id(node))
        try:
            if isinstance(node, dict):
                return {_key(k): _plain(v, count, active, limit) for k, v in node.items()}
            return [_plain(v, count, active, limit) for v in node]
        finally:
            active.discard(id(node))
    if node is None or isinstance(node, bool):
        return node
    if isinstance(node, int):
        return bool(node) if type(node).__name__ == "ScalarBoolean" else int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    if isinstance(node, datetime.date):
        return node.isoformat()
    value = getattr(node, "value", None)  # a scalar with an unknown !tag
    return str(value) if value is not None else str(node)


def _key(key: Any) -> str:
    return key if isinstance(key, str) else str(key)
