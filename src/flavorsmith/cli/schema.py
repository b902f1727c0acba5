"""``flavorsmith schema KIND``: print a catalog kind's JSON Schema."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from flavorsmith.catalog.kinds import kind_named
from flavorsmith.catalog.schema import schema_text


class SchemaKind(enum.StrEnum):
    FLAVOR = "flavor"
    DEVICE_TYPE = "device-type"
    TRAIT_RULE = "trait-rule"
    EXTRA_SPEC = "extra-spec"
    DEPLOY_TEMPLATE = "deploy-template"
    TRAIT = "trait"
    RUNBOOK = "runbook"
    LOAD_BALANCER_FLAVOR = "load-balancer-flavor"
    LOAD_BALANCER_PROVIDER = "load-balancer-provider"
    NETWORK_FLAVOR = "network-flavor"


def schema(kind: Annotated[SchemaKind, typer.Argument(help="Which kind of file.")]) -> None:
    """Print the JSON Schema (draft 2020-12) for a kind of catalog file.

    \b
    Example:
      flavorsmith schema flavor
    """
    typer.echo(schema_text(kind_named(kind.value)), nl=False)
