"""The flavor data pipeline: a JSON string, a JSON object, the provider's own validation.

Bad input is a 400 that names the problem. A driver that crashes is a driver fault: logged
with its traceback, answered with a sanitised 502 (Octavia answers 500 and leaks the text)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flavorsmith import jsonsafe
from flavorsmith.errors import FlavorsmithError, Invalid
from flavorsmith.providers.driver import UnsupportedOption
from flavorsmith.providers.registry import Provider

MAX_FLAVOR_DATA = 4096
LOG = logging.getLogger("flavorsmith.providers")


class DriverFault(FlavorsmithError):
    status = 502


def parse_flavor_data(text: Any) -> Any:
    if not isinstance(text, str):
        raise Invalid("flavor_data must be a string holding JSON")
    if len(text) > MAX_FLAVOR_DATA:
        raise Invalid(
            f"flavor_data is {len(text)} characters long; at most {MAX_FLAVOR_DATA} are allowed"
        )
    try:
        data = jsonsafe.loads(text, what="flavor_data")
    except jsonsafe.Malformed:
        # Octavia 19, api/v2/controllers/flavor_profiles.py line 104 (InvalidOption).
        raise Invalid(f"{text} is not a valid option for flavor_data") from None
    return data


def validate(provider: Provider, data: Any) -> None:
    """The provider's verdict. Flavor data other than a JSON object reaches only a driver that
    says it takes any JSON (``accepts_any_json``, as Octavia's no-op driver does); any other is
    refused in the words Octavia's amphora driver uses (jsonschema's, through
    api/drivers/amphora_driver/v2/driver.py line 481)."""
    if not isinstance(data, dict) and not getattr(provider.driver, "accepts_any_json", False):
        raise Invalid(
            f"Provider '{provider.name}' does not support a requested option: "
            f"{data!r} is not of type 'object'"
        )
    _ask(provider, "validating", provider.driver.validate_flavor, data)


def expand(provider: Provider, data: Any) -> Any:
    expand_flavor = getattr(provider.driver, "expand_flavor", None)
    if expand_flavor is None:
        return data
    return dict(_ask(provider, "expanding", expand_flavor, data))


def _ask(provider: Provider, doing: str, call: Callable[[Any], Any], data: Any) -> Any:
    """``call(data)``, one of the driver's flavor-data methods: an option the driver refuses is
    a 400 in Octavia's words, a crash a driver fault (``doing``: what the call was doing)."""
    try:
        return call(data)
    except UnsupportedOption as exc:
        raise Invalid(
            f"Provider '{provider.name}' does not support a requested option: {exc.user_message}"
        ) from None
    except Exception:
        LOG.exception("provider %s crashed %s flavor data", provider.name, doing)
        raise DriverFault(
            f"Provider '{provider.name}' failed while {doing} the flavor data; "
            "the error is in the service log"
        ) from None


def capabilities(provider: Provider) -> list[dict[str, str]]:
    """One capability per top-level property of the driver's schema, with its description."""
    try:
        schema = provider.driver.get_supported_flavor_metadata()
        properties = schema.get("properties", {})
        return [
            {"name": str(name), "description": str(spec.get("description", ""))}
            for name, spec in properties.items()
        ]
    except Exception:
        LOG.exception("provider %s crashed listing its capabilities", provider.name)
        raise DriverFault(
            f"Provider '{provider.name}' failed to list its capabilities; "
            "the error is in the service log"
        ) from None
