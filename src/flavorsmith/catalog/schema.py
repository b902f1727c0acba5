"""The packaged JSON Schemas and schema validation with one clear diagnostic per problem."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import fastjsonschema
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from flavorsmith import traits
from flavorsmith.catalog.document import Document
from flavorsmith.catalog.kinds import Kind
from flavorsmith.diagnostics import Diagnostic, excerpt
from flavorsmith.did_you_mean import closest, did_you_mean

_JSON_TYPES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping of keys",
    "null": "an empty value",
}


def schema_text(kind: Kind) -> str:
    return (resources.files("flavorsmith.catalog") / "schemas" / kind.schema_file).read_text(
        encoding="utf-8"
    )


@cache
def schema(kind: Kind) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text(kind))
    return loaded


@cache
def _validator(kind: Kind) -> Draft202012Validator:
    return Draft202012Validator(schema(kind))


@cache
def _valid(kind: Kind) -> Any:
    """The kind's schema compiled to Python code (fastjsonschema): thirty times as fast as
    jsonschema on a valid file, which is nearly every file. It only decides that a file is
    valid (it never adds the schema's defaults); jsonschema still finds and words every error,
    so the messages never depend on it."""
    return fastjsonschema.compile(schema(kind), use_default=False, use_formats=False)


def validate(doc: Document, kind: Kind) -> list[Diagnostic]:
    """Schema diagnostics for one document, ordered by position."""
    try:
        _valid(kind)(doc.data)
        return []
    except (fastjsonschema.JsonSchemaException, TypeError, ValueError, RecursionError):
        pass  # invalid (or undecided): jsonschema says why
    out: list[Diagnostic] = []
    for error in _validator(kind).iter_errors(doc.data):
        out.extend(_diagnose(doc, error))
    return sorted(set(out), key=lambda d: (d.line, d.column, d.field, d.message))


def describe(value: Any) -> str:
    """A short, user-facing rendering of a YAML value with its type."""
    if value is None:
        return "an empty value"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {excerpt(value)}"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _diagnose(doc: Document, error: ValidationError) -> list[Diagnostic]:
    path = list(error.absolute_path)
    value: Any = error.instance
    rule = error.validator
    expected: Any = error.validator_value
    rule_schema: Any = error.schema
    if rule == "required":
        missing = [k for k in expected if isinstance(value, dict) and k not in value]
        return [
            doc.diagnostic([*path, key], "required key is missing", code="schema-required")
            for key in missing
        ]
    if rule == "additionalProperties" and isinstance(value, dict):
        allowed = list(rule_schema.get("properties", {}))
        return [
            doc.diagnostic(
                [*path, key],
                f"unknown key {excerpt(key)}{did_you_mean(key, allowed)}; "
                f"allowed: {', '.join(allowed)}",
                code="schema-unknown-key",
                at_key=True,
            )
            for key in value
            if key not in allowed
        ]
    if rule == "type":
        wanted = " or ".join(_JSON_TYPES.get(t, t) for t in _as_list(expected))
        message = f"expected {wanted}, found {describe(value)}"
    elif rule == "enum":
        options = ", ".join(repr(o) for o in expected)
        hint = did_you_mean(str(value), [str(o) for o in expected])
        message = f"{excerpt(value)} is not allowed; expected one of {options}{hint}"
    elif rule == "pattern":
        message = f"{excerpt(value)} must match {expected}{_pattern_hint(path, value)}"
    elif rule == "minLength" and expected == 1:
        message = "must not be empty"
    elif rule == "minLength":
        message = f"{excerpt(value)} is too short; at least {expected} characters"
    elif rule == "maxLength":
        message = f"is {len(value)} characters long; at most {expected} allowed"
    elif rule == "minimum":
        message = f"{excerpt(value)} is too small; at least {expected}"
    elif rule == "exclusiveMinimum":
        message = f"{excerpt(value)} must be greater than {expected}"
    elif rule == "uniqueItems":
        dupes = sorted({str(v) for v in value if value.count(v) > 1})
        message = f"lists {', '.join(excerpt(d) for d in dupes[:5])} more than once"
    elif rule == "const":
        message = f"expected {excerpt(expected)}, found {describe(value)}"
    elif rule in ("minItems", "minProperties"):
        message = f"must have at least {expected} {'item' if rule == 'minItems' else 'key'}" + (
            "" if expected == 1 else "s"
        )
    else:  # the library's wording quotes the whole value: quote only an excerpt
        message = f"{describe(value)} is not valid ({rule})"
    return [doc.diagnostic(path, message, code=f"schema-{rule}")]


def _pattern_hint(path: list[Any], value: Any) -> str:
    if path and path[-1] == "trait" and isinstance(value, str):
        suggestion = traits.suggest_short_name(value)
        if suggestion is not None:
            return f" (did you mean {suggestion!r}?)"
    return ""


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


__all__ = ["closest", "describe", "schema", "schema_text", "validate"]
