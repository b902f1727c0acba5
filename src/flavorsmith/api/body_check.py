"""A request body checked against the JSON Schema its contract declares (api/contract.py), with
one line that names the field and what it takes: the validation and the OpenAPI document come
from the same declaration.

A message never shows the value that was sent (it may be a password typed in the wrong field),
only its kind. Checks a schema cannot say well (a name that is only spaces, a pair of fields of
which exactly one is given) stay with the handler, after this one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from flavorsmith.api.schema import Schema

# How a message names each JSON type a schema asks for.
TYPE_WORDS = {
    "object": "a JSON object",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def validator(schema: Schema) -> Draft202012Validator:
    """The validator of ``schema`` (a contract makes it once)."""
    return Draft202012Validator(schema)


def problem(checker: Draft202012Validator, data: Any, noun: str) -> str | None:
    """What is wrong with ``data`` as ``checker`` sees it, in one line about the ``noun`` (the
    login, the request); None when nothing is."""
    error = best_match(checker.iter_errors(data))
    return None if error is None else _worded(error, noun)


def _worded(error: ValidationError, noun: str) -> str:
    path = _path(error.absolute_path)
    whose = f"The {noun}'s {path!r}" if path else f"The {noun}"
    value: Any = error.instance
    kind = str(error.validator)
    expected: Any = error.validator_value
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    if kind == "type" or (kind == "anyOf" and _types(expected)):
        wanted = _types(expected) if kind == "anyOf" else _as_list(expected)
        sent = kind_of(value)
        if not path and "object" in wanted:
            needs = schema.get("required") or ()
            return f"The {noun} must be a JSON object" + (
                f" with {', '.join(needs)}" if needs else ""
            )
        return f"{whose} must be {' or '.join(TYPE_WORDS.get(t, t) for t in wanted)}, not {sent}"
    if kind == "required":
        missing = [name for name in expected if name not in value]
        where = f" in {path!r}" if path else ""
        return f"The {noun} needs {missing[0]!r}{where}"
    if kind == "additionalProperties":
        allowed = list(schema.get("properties", {}))
        unknown = sorted(set(value) - set(allowed))
        where = f"{path!r} of the {noun}" if path else f"the {noun}"
        return f"Unknown field {unknown[0]!r} in {where}; allowed: {', '.join(allowed) or 'none'}"
    if kind == "minLength":
        if expected == 1:
            return f"{whose} is empty; give a non-empty string"
        return f"{whose} is shorter than {expected} characters"
    if kind == "maxLength":
        return f"{whose} is longer than {expected} characters"
    if kind == "enum":
        return f"{whose} must be one of {', '.join(str(v) for v in expected)}"
    if kind in ("minimum", "maximum"):
        side = "at least" if kind == "minimum" else "at most"
        return f"{whose} must be {side} {expected}"
    if kind in ("minItems", "maxItems", "minProperties", "maxProperties"):
        side = "at least" if kind.startswith("min") else "at most"
        what = "items" if kind.endswith("Items") else "fields"
        return f"{whose} must hold {side} {expected} {what}"
    if kind == "pattern":
        return f"{whose} must match the pattern {expected}"
    return f"{whose} does not take this value ({kind}: {expected})"


def kind_of(value: object) -> str:
    """A JSON value's kind, as a message says it ("a number", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _types(choices: Any) -> list[str]:
    """The types an ``anyOf`` of plain type schemas allows (none: it is not one)."""
    if not isinstance(choices, Sequence) or not all(
        isinstance(c, Mapping) and set(c) <= {"type"} | _LOOSE for c in choices
    ):
        return []
    return [t for c in choices for t in _as_list(c.get("type"))]


# Keywords of a type schema that do not change which type it is.
_LOOSE = {"format", "description", "minLength", "maxLength", "pattern", "enum", "minimum"}


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value or ()]


def _path(parts: Sequence[str | int]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
