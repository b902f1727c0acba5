"""The no-op provider: accepts any JSON object (for tests and demos)."""

from __future__ import annotations

from typing import Any

from flavorsmith.providers.driver import ProviderContext


class NoopDriver:
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

    def validate_flavor(self, metadata: dict[str, Any]) -> None:
        return None
