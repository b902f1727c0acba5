"""The rules a catalog is checked with that are not the catalog's own: the extra-spec registry
and Ironic's deploy-template and runbook rules (with the driver step catalogues). The catalog never
imports them; whoever composes the application (the CLI, the API's app factory) builds a
:class:`CatalogRules` once and passes it to every load."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from flavorsmith.catalog.model import ExtraSpecSet


class SpecProblem(Protocol):
    """One extra spec the validation has something to say about."""

    @property
    def key(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def message(self) -> str: ...

    @property
    def refused(self) -> bool: ...

    @property
    def deprecated(self) -> str | None: ...


class ExtraSpecRules(Protocol):
    """The extra-spec registry as one catalog completes it with its own definition files."""

    def refused_definitions(self, source: str) -> Sequence[str]:
        """The names a definition file (by its display path) defines that were already taken."""
        ...

    def problems(self, specs: Sequence[tuple[str, str]]) -> Sequence[SpecProblem]:
        """A flavor's extra specs validated in strict mode."""
        ...


class TemplateProblem(Protocol):
    """One thing wrong with a deploy template, at a path inside its document."""

    @property
    def path(self) -> tuple[str | int, ...]: ...

    @property
    def message(self) -> str: ...

    @property
    def code(self) -> str: ...

    @property
    def warning(self) -> bool: ...


@dataclass(frozen=True)
class CatalogRules:
    """What a catalog load needs from outside the catalog."""

    # One definition file's own problems: (path in the document, message).
    extra_spec_definitions: Callable[[Mapping[str, Any]], list[tuple[list[str | int], str]]]
    # The registry completed by the catalog's definition files.
    extra_specs: Callable[[Sequence[ExtraSpecSet]], ExtraSpecRules]
    # One deploy template's problems (Ironic's rules and the driver step catalogues).
    deploy_template: Callable[[Mapping[str, Any]], Sequence[TemplateProblem]]
    # One runbook's problems (its traits, orders, and steps against the driver step catalogues).
    runbook: Callable[[Mapping[str, Any]], Sequence[TemplateProblem]]
