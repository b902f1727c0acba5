"""An example third-party provider driver: a flavor picks a ``size``, small or large."""

from __future__ import annotations

from typing import Any

from flavorsmith.providers.driver import ProviderContext, UnsupportedOption

SIZES = ("small", "large")
SIZE_DESCRIPTION = "The size of the example service: small or large."


class ExampleDriver:
    def __init__(self, context: ProviderContext) -> None:
        self.context = context

    def get_supported_flavor_metadata(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "size": {"type": "string", "enum": list(SIZES), "description": SIZE_DESCRIPTION}
            },
            "additionalProperties": False,
        }

    def validate_flavor(self, metadata: dict[str, Any]) -> None:
        unknown = sorted(set(metadata) - {"size"})
        if unknown:
            raise UnsupportedOption(
                f"unknown flavor data key {unknown[0]!r}: the example provider takes only size"
            )
        size = metadata.get("size")
        if size not in SIZES:
            raise UnsupportedOption(f"size {size!r} is not supported; use small or large")
