"""Checking flavor request bodies with Nova's rules and clearer messages (pure)."""

from __future__ import annotations

import re
from typing import Any

from flavorsmith import flavor_ids
from flavorsmith.api.query import NOVA_BAD_BOOL as BAD_BOOL
from flavorsmith.errors import Invalid
from flavorsmith.query_values import parse_bool, shown, shown_repr

INT32_MAX = 2147483647
_DIGITS = re.compile(r"^[0-9]+$")
EXTRA_SPEC_KEY = re.compile(r"^[a-zA-Z0-9-_:. ]{1,255}$")


def _integer(field: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not (
        isinstance(value, int) or (isinstance(value, str) and _DIGITS.fullmatch(value))
    ):
        given = shown(value) if isinstance(value, str) else shown_repr(value)
        raise Invalid(
            f"Invalid input for field/attribute {field}. Value: {given}. Expected an integer"
        )
    if isinstance(value, str) and len(value.lstrip("0")) > 10:  # more than 32 bits hold
        raise Invalid(
            f"Invalid input for field/attribute {field}. Value: {shown(value)}. It is greater "
            f"than the maximum of {INT32_MAX}"
        )
    number = int(value)
    if number < minimum:
        raise Invalid(
            f"Invalid input for field/attribute {field}. Value: {value}. {number} is less "
            f"than the minimum of {minimum}"
        )
    if number > INT32_MAX:
        raise Invalid(
            f"Invalid input for field/attribute {field}. Value: {value}. {number} is greater "
            f"than the maximum of {INT32_MAX}"
        )
    return number


def boolean(field: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return parse_bool(field, value, message=BAD_BOOL)
    raise Invalid(BAD_BOOL.format(name=field, value=value))


def _name(value: Any) -> str:
    if (
        not isinstance(value, str)
        or not value
        or len(value) > 255
        or value != value.strip()
        or not value.isprintable()
    ):
        raise Invalid(
            "An invalid 'name' value was provided. The name must be: printable characters. "
            "Can not start or end with whitespace."
        )
    return value


def _description(value: Any) -> str | None:
    if value is None:
        return None
    if (
        not isinstance(value, str)
        or len(value) > 65535
        or not all(c.isprintable() or c in "\n\r\t" for c in value)
    ):
        raise Invalid(
            "Invalid input for field/attribute description: a printable string of at most "
            "65535 characters"
        )
    return value


def create(body: Any, *, description: bool, rxtx: bool) -> dict[str, Any]:
    """Stored values for ``POST /flavors``."""
    if (
        not isinstance(body, dict)
        or set(body) != {"flavor"}
        or not isinstance(body["flavor"], dict)
    ):
        raise Invalid('The request body must be {"flavor": {...}}')
    flavor = body["flavor"]
    allowed = {
        "name",
        "id",
        "ram",
        "vcpus",
        "disk",
        "OS-FLV-EXT-DATA:ephemeral",
        "swap",
        "os-flavor-access:is_public",
    }
    if rxtx:
        allowed.add("rxtx_factor")
    if description:
        allowed.add("description")
    unknown = sorted(set(flavor) - allowed)
    if unknown:
        raise Invalid(
            f"Invalid input for field/attribute flavor. Additional properties are not allowed "
            f"({unknown[0]!r} was unexpected); allowed at this microversion: "
            f"{', '.join(sorted(allowed))}"
        )
    for required in ("name", "ram", "vcpus", "disk"):
        if required not in flavor:
            raise Invalid(
                f"Invalid input for field/attribute flavor. '{required}' is a required property"
            )
    values: dict[str, Any] = {
        "name": _name(flavor["name"]),
        "memory_mb": _integer("ram", flavor["ram"], 1),
        "vcpus": _integer("vcpus", flavor["vcpus"], 1),
        "root_gb": _integer("disk", flavor["disk"], 0),
        "ephemeral_gb": _integer(
            "OS-FLV-EXT-DATA:ephemeral", flavor.get("OS-FLV-EXT-DATA:ephemeral", 0), 0
        ),
        "swap": _integer("swap", flavor.get("swap", 0), 0),
        "is_public": boolean(
            "os-flavor-access:is_public", flavor.get("os-flavor-access:is_public", True)
        ),
    }
    flavorid = flavor.get("id")
    if flavorid is not None:
        if isinstance(flavorid, bool) or not isinstance(flavorid, str | int):
            raise Invalid(
                f"Invalid input for field/attribute id. Value: {flavorid}. Expected a string "
                "or an integer"
            )
        flavorid = str(flavorid)
        if not flavor_ids.is_valid(flavorid):
            raise Invalid(
                f"Invalid input for field/attribute id. Value: {flavorid}. Allowed: "
                f"{flavor_ids.RULE}"
            )
        values["flavorid"] = flavorid
    if "rxtx_factor" in flavor:
        factor = flavor["rxtx_factor"]
        if (
            isinstance(factor, bool)
            or not isinstance(factor, int | float)
            or not 0 < factor <= 3.40282e38
        ):
            raise Invalid(
                f"Invalid input for field/attribute rxtx_factor. Value: {factor}. Expected a "
                "positive number"
            )
        values["rxtx_factor"] = float(factor)
    if "description" in flavor:
        values["description"] = _description(flavor["description"])
    return values


def update(body: Any) -> str | None:
    """The new description from ``PUT /flavors/{id}`` (the only thing Nova lets change)."""
    if (
        not isinstance(body, dict)
        or set(body) != {"flavor"}
        or not isinstance(body["flavor"], dict)
    ):
        raise Invalid('The request body must be {"flavor": {"description": ...}}')
    flavor = body["flavor"]
    if "description" not in flavor:
        raise Invalid(
            "Invalid input for field/attribute flavor. 'description' is a required property"
        )
    extra = sorted(set(flavor) - {"description"})
    if extra:
        raise Invalid(
            f"Invalid input for field/attribute flavor. Additional properties are not allowed "
            f"({extra[0]!r} was unexpected): only the description of a flavor can change"
        )
    return _description(flavor["description"])


def spec_value(key: str, value: Any) -> str:
    """The stored text of one extra-spec value. Nova's schema takes a string of at most 255
    characters or a JSON number, which it stores as Python writes it (``2.5``, ``1e+300``);
    anything else, a boolean or null included, is refused in Nova's words."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise Invalid(
            f"Invalid input for field/attribute {key}. Value: {value}. {value!r} is not of "
            "type 'string', 'number'"
        )
    if isinstance(value, str):
        if len(value) > 255:
            raise Invalid(
                f"Invalid input for field/attribute {key}. Value: {value}. {value!r} is too long"
            )
        return value
    return str(value)


def extra_specs(body: Any) -> dict[str, str]:
    if (
        not isinstance(body, dict)
        or set(body) != {"extra_specs"}
        or not isinstance(body["extra_specs"], dict)
    ):
        raise Invalid('The request body must be {"extra_specs": {key: value, ...}}')
    return checked_specs(body["extra_specs"])


def checked_specs(specs: dict[str, Any]) -> dict[str, str]:
    out = {}
    for key, value in specs.items():
        if not EXTRA_SPEC_KEY.fullmatch(key):
            raise Invalid(
                f"Invalid extra spec key {key!r}: 1 to 255 of letters, digits, '-', '_', ':', "
                "'.' and spaces"
            )
        out[key] = spec_value(key, value)
    return out
