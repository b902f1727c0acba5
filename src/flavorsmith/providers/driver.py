"""The provider driver interface, and the errors a driver raises.

A driver is made by a factory registered under the entry point group
``flavorsmith.provider_drivers``; the factory is called with a :class:`ProviderContext` (a
class whose constructor takes the context is a factory). A driver offers:

- ``get_supported_flavor_metadata()``: a JSON Schema (draft 2020-12) of the flavor data it
  accepts; each top-level property's ``description`` becomes a flavor capability;
- ``validate_flavor(metadata)``: raise :class:`UnsupportedOption` with a user-facing message
  when the metadata cannot be used; return nothing otherwise;
- optionally ``accepts_any_json = True``: ``validate_flavor`` is then also given flavor data
  that is not a JSON object (a list, a string, a number); otherwise such data is refused
  before the driver sees it;
- optionally ``expand_flavor(metadata)``: the metadata a consumer needs at use time (the
  baremetal driver adds instance traits and candidate nodes); the metadata itself by default.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from flavorsmith.catalog.model import Catalog


class UnsupportedOption(Exception):
    """The flavor data asks for something this provider cannot do; the message is shown to
    the operator as is, so it names the key and says what is allowed."""

    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


@runtime_checkable
class ProviderDriver(Protocol):
    def get_supported_flavor_metadata(self) -> dict[str, Any]: ...
    def validate_flavor(self, metadata: dict[str, Any]) -> None: ...


@dataclass
class ProviderContext:
    """What a driver may consult: the current catalog, and the nodes able to take a flavor
    (resource class, required traits) -> node labels."""

    catalog: Callable[[], Catalog] = field(default=lambda: Catalog())
    nodes: Callable[[str, frozenset[str]], list[str]] = field(default=lambda rc, traits: [])
