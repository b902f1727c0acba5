"""Refusing regular expressions that can take exponential time (operators' own patterns).

A repetition may contain another only as a delimited list: each repeated part starts with a
delimiter character that none of its inner repetitions can match (``[a-z]+(?:,[a-z]+)*``).
Anything else that nests repetitions, and backreferences, is refused.
"""

from __future__ import annotations

import re
from typing import Any

try:  # the parser behind re; private, so refuse every nested repetition if it ever moves
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    sre_parse = None

_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
NESTED = (
    "repeats a part that itself repeats without a delimiter between the parts, which can "
    "take exponential time; write it so each character can match one way"
)


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is refused, or None when it is safe to run on any input."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"is not a valid regular expression: {exc}"
    if sre_parse is None:  # pragma: no cover
        return NESTED if re.search(r"[*+}]\)?[*+{]", pattern) else None
    return _walk(list(sre_parse.parse(pattern)), delimiters=None)


def _walk(items: list[Any], delimiters: frozenset[int] | None, strict: bool = False) -> str | None:
    """Inside a repetition, ``delimiters`` are the characters that start or end each
    repeated part (inner repetitions must not match them); ``strict`` means the part has no
    delimiter, so any inner repetition is refused."""
    for op, argument in items:
        name = str(op)
        if name in ("GROUPREF", "GROUPREF_EXISTS"):
            return "uses a backreference, which cannot be checked in linear time"
        if name in _REPEATS:
            _low, high, body = argument
            body = list(body)
            if high == 1:  # optional, not repeated
                problem = _walk(body, delimiters, strict)
            else:
                if strict or (delimiters is not None and _matches_any(body, delimiters)):
                    return NESTED
                own = (_first_literals(body) or frozenset()) | (_last_literals(body) or frozenset())
                if own:
                    problem = _walk(body, (delimiters or frozenset()) | own)
                else:
                    problem = _walk(body, delimiters, strict=True)
            if problem:
                return problem
        elif name == "SUBPATTERN":
            problem = _walk(list(argument[-1]), delimiters, strict)
            if problem:
                return problem
        elif name == "BRANCH":
            for branch in argument[1]:
                problem = _walk(list(branch), delimiters, strict)
                if problem:
                    return problem
    return None


def _last_literals(body: list[Any]) -> frozenset[int] | None:
    return _first_literals(list(reversed(body)), last=True)


def _first_literals(body: list[Any], last: bool = False) -> frozenset[int] | None:
    """The characters every repetition of ``body`` must start (or end) with, if any."""
    if not body:
        return None
    op, argument = body[0]
    name = str(op)
    if name == "LITERAL":
        return frozenset({argument})
    if name == "SUBPATTERN":
        inner = list(argument[-1])
        return _first_literals(list(reversed(inner)) if last else inner, last)
    if name == "BRANCH":
        found: set[int] = set()
        for branch in argument[1]:
            items = list(branch)
            first = _first_literals(list(reversed(items)) if last else items, last)
            if first is None:
                return None
            found |= first
        return frozenset(found)
    return None


def _matches_any(body: list[Any], characters: frozenset[int]) -> bool:
    """Whether a repeated part of ``body`` can match one of ``characters``."""
    if len(body) != 1:
        return any(_matches_any([item], characters) for item in body if str(item[0]) != "LITERAL")
    op, argument = body[0]
    name = str(op)
    if name == "LITERAL":
        return bool(argument in characters)
    if name == "ANY":
        return any(c != 10 for c in characters)
    if name == "IN":
        return any(_in_set(list(argument), c) for c in characters)
    if name == "SUBPATTERN":
        return _matches_any(list(argument[-1]), characters)
    if name in _REPEATS:
        return _matches_any(list(argument[2]), characters)
    return True  # anything unusual: assume the worst


def _in_set(items: list[Any], code: int) -> bool:
    negate = False
    hit = False
    char = chr(code)
    for op, argument in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            hit = hit or argument == code
        elif name == "RANGE":
            hit = hit or argument[0] <= code <= argument[1]
        elif name == "CATEGORY":
            category = str(argument)
            tests = {
                "CATEGORY_DIGIT": char.isdigit(),
                "CATEGORY_NOT_DIGIT": not char.isdigit(),
                "CATEGORY_WORD": char.isalnum() or char == "_",
                "CATEGORY_NOT_WORD": not (char.isalnum() or char == "_"),
                "CATEGORY_SPACE": char.isspace(),
                "CATEGORY_NOT_SPACE": not char.isspace(),
            }
            hit = hit or tests.get(category, True)
        else:
            hit = True
    return hit != negate
