"""The one strict JSON reader for everything that arrives from outside (request bodies,
inspection files, flavor data), and the same rules for values about to be stored.

``json.loads`` accepts documents that later break a read, a database or the process: lone
UTF-16 surrogates ("\\ud800", which no UTF-8 response or PostgreSQL column can hold), NUL
characters (which PostgreSQL text refuses), NaN and Infinity (not JSON; stored as null on
SQLite, refused by PostgreSQL), 1e999 (overflows to Infinity), integers of thousands of digits
(Python refuses to convert more than 4300) and nesting deep enough to exhaust the stack. Each is
refused here with :class:`~flavorsmith.errors.Invalid`, naming the JSON path of the bad value
(``extra.k``, ``steps[0].step``). The limits are documented in docs/reference/service.md
("Request limits").

Pure: no web framework, no database."""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any, NoReturn

from flavorsmith.errors import Invalid

MAX_DEPTH = 32  # levels of nested arrays and objects in one document or stored value
INT_MIN = -(2**63)  # integers are those a signed 64-bit column holds
INT_MAX = 2**63 - 1
INT_RULE = "integers must lie between -2**63 and 2**63-1"
FLOAT_RULE = "numbers must be finite: NaN, Infinity and numbers beyond 1.8e308 are refused"
_EXCERPT = 40

# The depth pre-scan: strings (possibly unterminated) are skipped, brackets counted.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DELTA = {"[": 1, "{": 1, "]": -1, "}": -1}
# A number text Python would convert slowly or refuse (more than 19 digits cannot be in range).
_LONG_DIGITS = re.compile(r"\d{20}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


class Malformed(Invalid):
    """Text that is not JSON at all; ``detail`` is the parser's own words."""

    def __init__(self, message: str, *, detail: str) -> None:
        super().__init__(message)
        self.detail = detail


class _Refused:
    """What the integer hook returns for a number it will not convert, so the walk can name
    the number's path."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits


def excerpt(text: str, limit: int = _EXCERPT) -> str:
    """``text`` as a short, escaped, quoted excerpt that is safe in any message or log line:
    control characters, surrogates and other non-printables are escaped, long text cut."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text)} characters)"


def loads(raw: str | bytes, *, what: str = "the request body") -> Any:
    """The JSON document in ``raw`` (UTF-8 when bytes), refusing what :func:`check_value`
    refuses; ``what`` names the document in messages."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Invalid(f"{_capital(what)} is not UTF-8 encoded JSON") from None
    else:
        text = raw
    _check_depth(text, what)
    hook = _parse_int if _LONG_DIGITS.search(text) else None
    try:
        value = json.loads(text, parse_int=hook)
    except json.JSONDecodeError as exc:
        raise Malformed(
            f"Malformed JSON in {what}: {exc.msg} at line {exc.lineno} column {exc.colno}",
            detail=str(exc),
        ) from None
    except RecursionError:  # not reached after the pre-scan; a last line of defence
        raise Invalid(f"Invalid JSON in {what}: {_too_deep()}") from None
    _walk(value, "", f"Invalid JSON in {what}: ")
    return value


def check_value(field: str, value: Any) -> None:
    """Refuse a value about to be stored (after a merge or a JSON patch, say) that breaks one
    of the rules :func:`loads` applies; ``field`` starts the path in messages."""
    _walk(value, field, "Invalid value: ")


def check_text(field: str, value: str) -> None:
    """Refuse text that no column can hold: NUL characters and lone surrogates."""
    problem = text_problem(value)
    if problem:
        raise Invalid(f"Invalid value: {field}: {problem}")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _check_depth(text: str, what: str) -> None:
    """Count brackets outside strings, without recursion, before any parser sees the text."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if len(brackets) <= MAX_DEPTH:
        return
    if max(accumulate(map(_DELTA.__getitem__, brackets))) <= MAX_DEPTH:
        return
    depth = 0
    for token in _TOKEN.finditer(text):
        depth += _DELTA.get(token.group()[0], 0)
        if depth > MAX_DEPTH:
            line = text.count("\n", 0, token.start()) + 1
            column = token.start() - (text.rfind("\n", 0, token.start()) + 1) + 1
            raise Invalid(f"Invalid JSON in {what}: line {line} column {column}: {_too_deep()}")


def _parse_int(text: str) -> int | _Refused:
    digits = len(text.lstrip("-"))
    return _Refused(digits) if digits > 19 else int(text)


def text_problem(value: str) -> str | None:
    """Why no column can hold ``value`` (a NUL, a lone surrogate), or None when one can."""
    if "\x00" in value:
        return "a NUL character (\\u0000) is not allowed in text"
    if not value.isascii():
        surrogate = _SURROGATE.search(value)
        if surrogate:
            return (
                f"a lone UTF-16 surrogate (\\u{ord(surrogate.group()):04x}) is not allowed; "
                "send a valid Unicode character"
            )
    return None


def _scalar_problem(value: Any) -> str | None:
    kind = type(value)
    if kind is str:
        return text_problem(value)
    if kind is int:
        return None if INT_MIN <= value <= INT_MAX else f"{value} is out of range: {INT_RULE}"
    if kind is float:
        if math.isfinite(value):
            return None
        shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return f"{shown} is not allowed: {FLOAT_RULE}"
    if kind is _Refused:
        return f"an integer of {value.digits} digits is out of range: {INT_RULE}"
    if isinstance(value, str):
        return text_problem(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return _scalar_problem(int(value))
    if isinstance(value, float):
        return _scalar_problem(float(value))
    return None


def _walk(value: Any, root: str, prefix: str) -> None:
    """Check every value and key below ``value``, iteratively; a path is built only for the
    message of the first problem. Plain ASCII text without NUL, integers in range, None and
    booleans (nearly every value) pass inline; anything else takes the full check."""
    # (value, depth, parent entry, key or index): a chain to rebuild the path from.
    stack: list[tuple[Any, int, Any, str | int | None]] = [(value, 0, None, None)]
    while stack:
        entry = stack.pop()
        item, depth = entry[0], entry[1]
        if isinstance(item, dict):
            depth += 1
            if depth > MAX_DEPTH:
                _refuse(prefix, root, entry, _too_deep())
            for key, child in item.items():
                if type(key) is str and key.isascii() and "\x00" not in key:
                    text = key
                else:
                    text = key if isinstance(key, str) else str(key)
                    problem = text_problem(text)
                    if problem:
                        _refuse(prefix, root, entry, f"the key {excerpt(text)}: {problem}")
                if not _plain(child):
                    stack.append((child, depth, entry, text))
        elif isinstance(item, list | tuple):
            depth += 1
            if depth > MAX_DEPTH:
                _refuse(prefix, root, entry, _too_deep())
            for index, child in enumerate(item):
                if not _plain(child):
                    stack.append((child, depth, entry, index))
        elif item is not None and item is not True and item is not False:
            problem = _scalar_problem(item)
            if problem:
                _refuse(prefix, root, entry, problem)


def _plain(value: Any) -> bool:
    """A value every database stores as it is: no check needed."""
    kind = type(value)
    if kind is str:
        return value.isascii() and "\x00" not in value
    if kind is int:
        return bool(INT_MIN <= value <= INT_MAX)
    return value is None or kind is bool


def _too_deep() -> str:
    return f"nested more than {MAX_DEPTH} levels deep; at most {MAX_DEPTH} are allowed"


def _refuse(prefix: str, root: str, entry: Any, problem: str) -> NoReturn:
    parts: list[str | int] = []
    while entry[2] is not None:
        parts.append(entry[3])
        entry = entry[2]
    path = root
    for part in reversed(parts):
        path = f"{path}[{part}]" if isinstance(part, int) else _join(path, part)
    raise Invalid(f"{prefix}{path or '(top level)'}: {problem}")


def _join(path: str, key: str) -> str:
    if _IDENTIFIER.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{excerpt(key)}]"
