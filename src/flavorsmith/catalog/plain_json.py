"""The entries of a large JSON list, one at a time, never the whole list: the document's own
list, or its ``nodes`` list (an inventory, or Ironic's ``GET /v1/nodes/detail``). The file is
read in blocks and each entry decoded by the standard library's decoder on its own, then held
to the rules of :func:`flavorsmith.jsonsafe.loads`. Anything those rules or the decoder refuse,
and any document this reader is not certain to read as ``json.loads`` does (a duplicate key at
the top, a byte order mark), raises :class:`~flavorsmith.catalog.plain_yaml.Unsure`: the
caller then reads the whole document with :func:`flavorsmith.jsonsafe.loads`, whose messages
name the problem."""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from flavorsmith import jsonsafe
from flavorsmith.catalog.plain_yaml import Unsure, _Counted
from flavorsmith.errors import Invalid

BLOCK = 1 << 20  # characters read at a time
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class Stream:
    """As :class:`flavorsmith.catalog.plain_yaml.Stream`, for a JSON file: iterating yields
    the entries; then :attr:`top` is the document with that list left empty and
    :attr:`prefix` where the list is."""

    def __init__(self, path: Path, progress: Callable[[int, int], None] | None = None) -> None:
        self.path = path
        self.progress = progress
        self.top: Any = None
        self.prefix: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[Any]:
        with self.path.open("rb") as stream:
            source: BinaryIO | _Counted = stream
            if self.progress is not None:
                source = _Counted(stream, self.path.stat().st_size, self.progress)
            try:
                yield from self._document(_Text(source))
            except (ValueError, RecursionError, Invalid):
                raise Unsure from None  # UnicodeDecodeError and JSONDecodeError are ValueErrors

    def _document(self, text: _Text) -> Iterator[Any]:
        first = text.peek()
        if first == "[":
            text.take()
            self.top = []
            yield from _items(text, 1)
        elif first == "{":
            text.take()
            top: dict[str, Any] = {}
            if text.peek() == "}":
                text.take()
            else:
                while True:
                    key = text.value(0)
                    if not isinstance(key, str) or key in top:
                        raise Unsure
                    if text.take() != ":":
                        raise Unsure
                    if key == "nodes" and text.peek() == "[":
                        text.take()
                        top[key] = []
                        self.prefix = ("nodes",)
                        yield from _items(text, 2)
                    else:
                        top[key] = text.value(1)
                    separator = text.take()
                    if separator == "}":
                        break
                    if separator != ",":
                        raise Unsure
            self.top = top
        else:
            self.top = text.value(0)
        if text.peek() != "":
            raise Unsure  # more after the document
        jsonsafe.check_value("", self.top)


def _items(text: _Text, depth: int) -> Iterator[Any]:
    """The items of an array whose ``[`` has been taken, ``depth`` levels down."""
    if text.peek() == "]":
        text.take()
        return
    while True:
        yield text.value(depth)
        separator = text.take()
        if separator == "]":
            return
        if separator != ",":
            raise Unsure


class _Text:
    """The file's text as it is read, from the position reached on."""

    def __init__(self, source: BinaryIO | _Counted) -> None:
        self.source = source
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.at = 0
        self.ended = False

    def _more(self) -> bool:
        if self.ended:
            return False
        block = self.source.read(BLOCK)
        self.text = self.text[self.at :] + self.decoder.decode(block, final=not block)
        self.at = 0
        self.ended = not block
        return True

    def peek(self) -> str:
        """The next character that is not white space ("" at the end), not taken."""
        while True:
            self.at = _SPACE.match(self.text, self.at).end()  # type: ignore[union-attr]
            if self.at < len(self.text) or not self._more():
                return self.text[self.at : self.at + 1]

    def take(self) -> str:
        character = self.peek()
        self.at += len(character)
        return character

    def value(self, depth: int) -> Any:
        """The next value, held to jsonsafe's rules ``depth`` levels down."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.at)
            except json.JSONDecodeError:
                if self._more():
                    continue
                raise
            if end >= len(self.text) and self._more():
                continue  # a number may go on in the next block
            break
        self.at = end
        wrapped = value
        for _ in range(depth):  # as deep as it is in the document, for the depth rule
            wrapped = [wrapped]
        jsonsafe.check_value("", wrapped)
        return value


__all__ = ["BLOCK", "Stream"]
