"""JSON patch as Ironic applies it to its objects (pure): only add, replace and remove, only on
the object's patchable top-level fields, never removing a field the object must have."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jsonpatch

from flavorsmith.errors import Invalid


def patched(
    row: Mapping[str, Any],
    patch: Any,
    *,
    noun: str,
    patchable: Sequence[str],
    required: Mapping[str, str],
    allow_empty: bool,
) -> dict[str, Any]:
    """The patchable fields of ``row`` after ``patch``; unchecked (the caller checks the
    result with its own field rules). ``required`` maps a path that may not be removed to why
    (``"/driver": "a node always has a driver"``)."""
    if (
        not isinstance(patch, list)
        or not (patch or allow_empty)
        or not all(isinstance(op, dict) for op in patch)
    ):
        wanted = "a list of operations" if allow_empty else "a non-empty list of operations"
        raise Invalid(f"A {noun} update is a JSON patch: {wanted}")
    for op in patch:
        path = op.get("path")
        if op.get("op") not in ("add", "replace", "remove"):
            raise Invalid(
                f"Unsupported patch operation {op.get('op')!r}: use add, replace or remove"
            )
        top = path.split("/")[1] if isinstance(path, str) and path.startswith("/") else None
        if top not in patchable:
            raise Invalid(
                f"Cannot patch {path}. Only the following can be updated: {', '.join(patchable)}"
            )
        if op["op"] == "remove" and path in required:
            raise Invalid(f"Cannot remove {path}: {required[path]}")
    document = {name: row[name] for name in patchable}
    try:
        result: dict[str, Any] = jsonpatch.JsonPatch(patch).apply(document)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
        raise Invalid(f"Couldn't apply patch: {exc}") from None
    return result
