"""The fast reader of catalog files: validate of 1,000 flavors: 0.73 s CPU (ruamel: 2.2 s).

libyaml's node tree of a catalog file, with the positions the positioned parser (ruamel)
would give, and its plain data, for the files the catalog loads whole
(:mod:`flavorsmith.catalog.document`); measured with ``benchmarks/validate.py --no-nova``
(the target is 1 s; on the example catalog the difference is 0.03 s). It answers None
whenever libyaml could read the text otherwise than ruamel, and the caller parses with
ruamel, which gives the diagnostics. Its scalar patterns are those of
:mod:`flavorsmith.catalog.plain_yaml`, the fast reader of node dumps.
"""

from __future__ import annotations

import re
from typing import Any

import yaml  # type: ignore[import-untyped]

from flavorsmith.catalog.plain_yaml import (
    _BOOL,
    _FLOAT,
    _INT,
    _MAP,
    _NULL,
    _SEQ,
    _STR,
    _STR_FIRST,
    _Unsure,
)

# libyaml is optional in PyYAML builds; without it this reader is never faster.
_LOADER: Any = getattr(yaml, "CSafeLoader", None)

# Plain scalars the reader does not resolve itself: what ruamel's YAML 1.2 resolvers read as
# a number in another form, a special float or a timestamp (its patterns, verbatim), merge and
# value keys. Anything else starting with a digit, a sign or a dot is text for ruamel too
# (``1000base-t``, ``210-BFUZ``, ``10.0.0.1``, a project id).
_DOUBT = re.compile(
    r"""^(?:
     [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN)
    |[-+]?0b[0-1_]+
    |[-+]?0o?[0-7_]+
    |[-+]?[0-9_]+
    |[-+]?0x[0-9a-fA-F_]+
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
     (?:[Tt]|[ \t]+)[0-9][0-9]?
     :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
    |<<|=)$""",
    re.X,
)
_DOUBT_TAG = "tag:flavorsmith:doubt"
_PLAIN_TAGS = {
    "tag:yaml.org,2002:null": _NULL,
    "tag:yaml.org,2002:bool": _BOOL,
    "tag:yaml.org,2002:int": _INT,
    "tag:yaml.org,2002:float": _FLOAT,
}

if _LOADER is not None:

    class _Loader(_LOADER):  # type: ignore[misc]
        def descend_resolver(self, current_node: Any, current_index: Any) -> None:
            pass  # no path resolvers: skip their bookkeeping

        def ascend_resolver(self) -> None:
            pass

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            """The tag of an untagged node as YAML 1.2's core schema gives it in its unambiguous
            forms (``_DOUBT_TAG`` for the rest: then ``_plain`` answers ``_Unsure``)."""
            if kind is yaml.ScalarNode:
                if not implicit[0]:
                    return _STR  # quoted or block text
                first = value[:1]
                if first in _STR_FIRST:
                    return _STR
                if _NULL.match(value):
                    return "tag:yaml.org,2002:null"
                if _BOOL.match(value):
                    return "tag:yaml.org,2002:bool"
                if _INT.match(value):
                    return "tag:yaml.org,2002:int"
                if _FLOAT.match(value):
                    return "tag:yaml.org,2002:float"
                return _DOUBT_TAG if _DOUBT.match(value) else _STR
            return _SEQ if kind is yaml.SequenceNode else _MAP


# Text libyaml reads otherwise than ruamel: line breaks YAML 1.1 counts and YAML 1.2 may not
# (positions would move), tabs and a comment right after a block scalar's indicator (``|#``),
# which ruamel refuses where libyaml does not, and anchors (YAML 1.2 allows more characters
# in their names: ``&a:b`` is one anchor for ruamel, an anchor and text for libyaml).
_RUAMEL_ONLY = re.compile("\r(?!\n)|[\t\x85\u2028\u2029]|[|>][-+0-9]*#|(?:^|[\\s\\[{,])&")
# A directive (``%YAML 1.1`` changes how the positioned parser reads scalars).
_DIRECTIVE = re.compile(r"^%", re.MULTILINE)


def load_nodes(raw: bytes) -> tuple[Any, Any] | None:
    """libyaml's node tree of a one-document YAML file (each node with its ``start_mark``
    line and column, as the positioned parser gives them) and its plain data, or None when
    the positioned parser must read it (see the module docstring). Read whole, not chunked."""
    if _LOADER is None:
        return None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if _DIRECTIVE.search(text) or _RUAMEL_ONLY.search(text):
        return None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = None if node is None else _plain(node, set())
    except (_Unsure, yaml.YAMLError, RecursionError, ValueError, TypeError):
        return None
    finally:
        loader.dispose()
    if data is None:
        return None  # empty: the positioned parser says so
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        # A block scalar as the whole document: libyaml takes a line "#" at column 0 after it
        # for a comment, ruamel for its text (">\n#" is "" to one and "#" to the other).
        return None
    return node, data


def _plain(node: Any, seen: set[int]) -> Any:
    """The data of a node tree whose tags ``_Loader.resolve`` gave: what the loader's
    constructor builds (and refuses), without its general machinery; about twice as fast."""
    if isinstance(node, yaml.ScalarNode):
        value = node.value
        if not node.style and not value:
            raise _Unsure  # an empty value: ruamel places it after the next token, libyaml before
        tag = node.tag
        if tag == _STR:
            return value
        pattern = _PLAIN_TAGS.get(tag)
        if pattern is None or not pattern.match(value):
            raise _Unsure  # another tag, or an explicit tag on a value of another form
        if tag == "tag:yaml.org,2002:int":
            return int(value)
        if tag == "tag:yaml.org,2002:float":
            return float(value)
        if tag == "tag:yaml.org,2002:bool":
            return value.lower() == "true"
        return None
    if id(node) in seen:
        raise _Unsure  # an alias
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        if node.tag != _MAP:
            raise _Unsure
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR:
                raise _Unsure
            key = key_node.value
            if key in mapping:
                raise _Unsure  # the positioned parser names the duplicate
            mapping[key] = _plain(value_node, seen)
        return mapping
    if node.tag != _SEQ:
        raise _Unsure
    return [_plain(item, seen) for item in node.value]


__all__ = ["load_nodes"]
