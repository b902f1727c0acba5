"""The ``flavorsmith`` command line: one group per noun, one module per command."""

from __future__ import annotations

import os
import sys

import typer

from flavorsmith import __version__
from flavorsmith.catalog.kinds import DEPLOY_TEMPLATE, DEVICE_TYPE, EXTRA_SPEC, FLAVOR, TRAIT_RULE
from flavorsmith.cli import (
    classify,
    db,
    definitions,
    node,
    nova_flavors,
    schema,
    serve,
    validate,
)
from flavorsmith.cli.deploy import group as _deploy_group
from flavorsmith.cli.extra_specs import group as _extra_specs_group
from flavorsmith.cli.matching import capacity, match
from flavorsmith.cli.providers import flavor_group as _service_flavor_group
from flavorsmith.cli.providers import profile_group as _flavor_profile_group
from flavorsmith.cli.providers import provider_group as _provider_group
from flavorsmith.cli.sync import group as _sync_group


def _version(value: bool) -> None:
    if value:
        typer.echo(f"flavorsmith {__version__}")
        raise typer.Exit()


def build() -> typer.Typer:
    """The root command group with every subcommand registered."""
    app = typer.Typer(
        help="Flavorsmith: bare-metal flavors, traits and scheduling data from a Git catalog.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )

    @app.callback()
    def root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Print the version."
        ),
    ) -> None:
        """Flavorsmith: bare-metal flavors, traits and scheduling data from a Git catalog."""

    app.command("validate")(validate.validate)
    app.command("schema")(schema.schema)
    app.command("nova-flavors")(nova_flavors.nova_flavors)
    app.command("serve")(serve.serve)
    app.add_typer(db.app, name="db")
    app.add_typer(node.group(), name="node")
    app.command("match")(match.match)
    app.command("capacity")(capacity.capacity)
    app.command("classify")(classify.classify)
    app.add_typer(_extra_specs_group(), name="extra-specs")
    app.add_typer(_sync_group(), name="sync")
    app.add_typer(
        definitions.group(FLAVOR, "Flavor definitions (hardware/flavors/)."), name="flavor"
    )
    app.add_typer(
        definitions.group(DEVICE_TYPE, "Device-type definitions (hardware/device-types/)."),
        name="device-type",
    )
    app.add_typer(
        definitions.group(TRAIT_RULE, "Trait rules for inspection data (hardware/trait-rules/)."),
        name="trait-rule",
    )
    app.add_typer(
        definitions.group(EXTRA_SPEC, "Extra-spec validator files (hardware/extra-specs/)."),
        name="extra-spec",
    )
    app.add_typer(
        definitions.group(DEPLOY_TEMPLATE, "Deploy templates (hardware/deploy-templates/)."),
        name="deploy-template",
    )
    app.add_typer(_deploy_group(), name="deploy")
    app.add_typer(_provider_group(), name="provider")
    app.add_typer(_flavor_profile_group(), name="flavor-profile")
    app.add_typer(_service_flavor_group(), name="service-flavor")
    return app


def main() -> None:
    """Entry point: never shows a traceback unless FLAVORSMITH_DEBUG is set."""
    try:
        build()(prog_name="flavorsmith")
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:
        if os.environ.get("FLAVORSMITH_DEBUG"):
            raise
        typer.echo(
            f"flavorsmith: internal error: {type(exc).__name__}: {exc} "
            "(set FLAVORSMITH_DEBUG=1 for details)",
            err=True,
        )
        sys.exit(1)
