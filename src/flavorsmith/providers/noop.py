"""The no-op provider (for tests and demos): accepts what Octavia 19's no-op driver accepts
(api/drivers/noop_driver/driver.py line 253 takes ``frozenset(data)``): a JSON object, a string,
or a list of strings, numbers, booleans and nulls. Octavia answers 500 for the rest (a number,
a nested list); here that is a 400."""

from __future__ import annotations

from typing import Any

from flavorsmith.providers.driver import ProviderContext, UnsupportedOption


class NoopDriver:
    accepts_any_json = True

    def __init__(self, context: ProviderContext | None = None) -> None:
        self.context = context

    def get_supported_flavor_metadata(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "noop_option": {
                    "type": "string",
                    "description": "Any value; the no-op provider accepts every flavor.",
                }
            },
        }

    def validate_flavor(self, metadata: Any) -> None:
        if isinstance(metadata, (dict, str)):
            return
        if isinstance(metadata, list) and not any(
            isinstance(item, (list, dict)) for item in metadata
        ):
            return
        raise UnsupportedOption(
            f"{metadata!r} is not a JSON object, a string or a list of plain values"
        )
