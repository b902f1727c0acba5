"""The fast reader of YAML node dumps (`node import`): 5,000 nodes in 0.37 s; ruamel takes 14 s.

Only ``node import`` of a YAML file reads through it (benchmarks/node_import.py: the target is
50,000 nodes in 10 s; the positioned parser, ruamel, reads about 350 nodes a second and holds
its whole tree with positions). The file's libyaml parse events are taken one at a time (the
file read in blocks, never whole) and each node list entry is built straight from them, with
no node tree. Plain scalars are resolved by YAML 1.2's core schema as ruamel does, but only in
their unambiguous forms; anything else — a scalar that YAML 1.1 and 1.2 read differently
(``0x1F``, ``1_000``, a timestamp, ``.inf``), a merge key, an anchor or alias, a tag, a
duplicate key, a key that is not text, a directive, a second document, a syntax error, text
that is not UTF-8 — raises :class:`Unsure`, and the command reads the file with the positioned
parser (:func:`flavorsmith.catalog.document.parse`), which gives the data or the diagnostics.
The patterns are shared with :mod:`flavorsmith.catalog.libyaml_nodes`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import yaml  # type: ignore[import-untyped]

try:  # libyaml is optional in PyYAML builds; without it this reader is never faster.
    from yaml._yaml import CParser as _CParser  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)\.[0-9]+$")
# Plain scalars the reader does not resolve itself: numbers in other forms, timestamps,
# special floats, merge and value keys.
_DOUBT = re.compile(r"^(?:[-+.0-9].*|<<|=)$", re.DOTALL)
_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
# First characters of a plain scalar that is text whatever follows.
_STR_FIRST = frozenset(
    c for c in map(chr, range(32, 127)) if c not in "tTfFnN~<=+-.0123456789"
) | frozenset(" ")
# Byte order marks of encodings other than UTF-8: the positioned parser refuses them.
_OTHER_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")

_Scalar = yaml.ScalarEvent
_MappingStart = yaml.MappingStartEvent
_MappingEnd = yaml.MappingEndEvent
_SequenceStart = yaml.SequenceStartEvent
_SequenceEnd = yaml.SequenceEndEvent


class _Unsure(Exception):
    pass


class _Counted:
    """A binary file that tells ``progress`` how far it has been read, every REPORT bytes."""

    REPORT = 1 << 20

    def __init__(self, stream: BinaryIO, size: int, progress: Callable[[int, int], None]) -> None:
        self.stream = stream
        self.name = stream.name
        self.size = size
        self.progress = progress
        self.done = 0
        self.reported = 0

    def read(self, size: int = -1) -> bytes:
        block = self.stream.read(size)
        self.done += len(block)
        if not block or self.done - self.reported >= self.REPORT:
            self.reported = self.done
            self.progress(self.done, max(self.size, self.done))
        return block


class Unsure(Exception):
    """The file needs the positioned parser (see the module docstring)."""


class Stream:
    """The entries of a large list in a YAML file, one at a time, never the whole list: the
    document's own list, or its ``nodes`` list. Iterating reads the file (``progress`` hears
    bytes read, bytes in the file) and yields each entry; once done, :attr:`top` is the
    document with that list left empty (the whole document when it has no such list) and
    :attr:`prefix` where the list is. Raises :class:`Unsure` (at any point, even after
    entries) where the positioned parser must read the file (see the module docstring)."""

    def __init__(self, path: Path, progress: Callable[[int, int], None] | None = None) -> None:
        self.path = path
        self.progress = progress
        self.top: Any = None
        self.prefix: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[Any]:
        if _CParser is None:
            raise Unsure
        with self.path.open("rb") as stream:
            if stream.read(4).startswith(_OTHER_BOMS):
                raise Unsure
            stream.seek(0)
            source: BinaryIO | _Counted = stream
            if self.progress is not None:
                source = _Counted(stream, self.path.stat().st_size, self.progress)
            try:
                parser = _CParser(source)
                try:
                    yield from self._document(parser.get_event)
                finally:
                    parser.dispose()
            except (_Unsure, yaml.YAMLError, RecursionError, ValueError, TypeError, AttributeError):
                raise Unsure from None

    def _document(self, get: Callable[[], Any]) -> Iterator[Any]:
        get()  # the stream's start
        start = get()
        if not isinstance(start, yaml.DocumentStartEvent) or start.version or start.tags:
            raise _Unsure
        event = get()
        if event.__class__ is _SequenceStart and event.anchor is None and event.tag in (None, _SEQ):
            self.top = []
            yield from _items(get)
        elif (
            event.__class__ is _MappingStart and event.anchor is None and event.tag in (None, _MAP)
        ):
            top: dict[str, Any] = {}
            while True:
                key_event = get()
                if key_event.__class__ is _MappingEnd:
                    break
                if key_event.__class__ is not _Scalar:
                    raise _Unsure
                key = _scalar(key_event)
                if key.__class__ is not str or key in top:
                    raise _Unsure
                value = get()
                streamed = (
                    key == "nodes"
                    and value.__class__ is _SequenceStart
                    and value.anchor is None
                    and value.tag in (None, _SEQ)
                )
                if streamed:
                    top[key] = []
                    self.prefix = ("nodes",)
                    yield from _items(get)
                else:
                    top[key] = _value(get, value)
            self.top = top
        else:
            self.top = _value(get, event)
            if self.top is None:
                raise _Unsure
        get()  # the document's end
        if not isinstance(get(), yaml.StreamEndEvent):
            raise _Unsure


def _items(get: Callable[[], Any]) -> Iterator[Any]:
    """The items of a sequence whose start event has been taken, one at a time."""
    while True:
        item = get()
        if item.__class__ is _SequenceEnd:
            return
        yield _value(get, item)


def _value(get: Callable[[], Any], event: Any) -> Any:
    """The value that starts with ``event``, the rest of its events taken from ``get``."""
    kind = event.__class__
    if kind is _Scalar:
        return _scalar(event)
    if event.anchor is not None:
        raise _Unsure  # an anchor or an alias
    if kind is _MappingStart:
        if event.tag is not None and event.tag != _MAP:
            raise _Unsure
        mapping: dict[str, Any] = {}
        while True:
            key_event = get()
            if key_event.__class__ is _MappingEnd:
                return mapping
            if key_event.__class__ is not _Scalar:
                raise _Unsure  # a key that is not text
            key = _scalar(key_event)
            if key.__class__ is not str or key in mapping:
                raise _Unsure  # the positioned parser names a duplicate
            value = get()
            if value.__class__ is _Scalar:  # most values: read here, without _value's call
                mapping[key] = _scalar(value)
            else:
                mapping[key] = _value(get, value)
    if kind is _SequenceStart:
        if event.tag is not None and event.tag != _SEQ:
            raise _Unsure
        items: list[Any] = []
        append = items.append
        while True:
            item = get()
            if item.__class__ is _SequenceEnd:
                return items
            append(_value(get, item))
    raise _Unsure  # an alias


def _scalar(event: Any) -> Any:
    """A scalar's value as YAML 1.2's core schema reads it (ruamel's reading)."""
    if event.anchor is not None:
        raise _Unsure
    value: str = event.value
    tag = event.tag
    if tag is None:
        if not event.implicit[0] or value[:1] in _STR_FIRST:
            return value  # quoted or block text, or plain text whatever follows
        if _NULL.match(value):
            return None
        if _BOOL.match(value):
            return value[0] in "tT"
        if _INT.match(value):
            return int(value)
        if _FLOAT.match(value):
            return float(value)
        if _DOUBT.match(value):
            raise _Unsure
        return value
    if tag == _STR:
        return value
    # An explicit standard tag on a value of its own plain form; any other tag is unsure.
    if tag == "tag:yaml.org,2002:null" and _NULL.match(value):
        return None
    if tag == "tag:yaml.org,2002:bool" and _BOOL.match(value):
        return value[0] in "tT"
    if tag == "tag:yaml.org,2002:int" and _INT.match(value):
        return int(value)
    if tag == "tag:yaml.org,2002:float" and _FLOAT.match(value):
        return float(value)
    raise _Unsure


__all__ = ["Stream", "Unsure"]
