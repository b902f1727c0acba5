"""The ``flavorsmith`` command line: one group per noun, one module per command."""

from __future__ import annotations

import os
import sys
from typing import Any

import typer
import typer.core

from flavorsmith import __version__
from flavorsmith.catalog.kinds import DEPLOY_TEMPLATE, DEVICE_TYPE, EXTRA_SPEC, FLAVOR, TRAIT_RULE
from flavorsmith.cli import (
    classify,
    completion,
    db,
    definitions,
    node,
    nova_flavors,
    output,
    schema,
    serve,
    trait_list,
    validate,
)
from flavorsmith.cli.deploy import group as _deploy_group
from flavorsmith.cli.extra_specs import group as _extra_specs_group
from flavorsmith.cli.keystone import group as _keystone_group
from flavorsmith.cli.matching import capacity, explain, match, verify
from flavorsmith.cli.providers import flavor_group as _service_flavor_group
from flavorsmith.cli.providers import profile_group as _flavor_profile_group
from flavorsmith.cli.providers import provider_group as _provider_group
from flavorsmith.cli.sync import group as _sync_group


def _version(value: bool) -> None:
    if value:
        typer.echo(f"flavorsmith {__version__}")
        raise typer.Exit()


def _no_type(self: Any, ctx: Any) -> None:
    return None


def build() -> typer.Typer:
    """The root command group with every subcommand registered."""
    # Typer prints an argument's Python type after its name (``NODE <str>``); an argument's
    # name is its metavar (NODE, FILE, KEY), which already says what it takes.
    typer.core.TyperArgument.display_type_rich = _no_type  # type: ignore[method-assign]
    app = typer.Typer(
        help="Flavorsmith: bare-metal flavors, traits and scheduling data from a Git catalog.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        # Every subcommand's context inherits these, so -h works everywhere as in openstack.
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    @app.callback()
    def root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Print the version."
        ),
    ) -> None:
        """Flavorsmith: bare-metal flavors, traits and scheduling data from a Git catalog."""
        output.reset()

    app.command("validate")(validate.validate)
    app.command("schema")(schema.schema)
    app.command("nova-flavors")(nova_flavors.nova_flavors)
    app.command("serve")(serve.serve)
    app.add_typer(db.app, name="db")
    app.add_typer(node.group(), name="node")
    app.command("match")(match.match)
    app.command("capacity")(capacity.capacity)
    app.command("explain")(explain.explain)
    app.command("verify")(verify.verify)
    app.command("classify")(classify.classify)
    extra_specs = _extra_specs_group()
    extra_specs.add_typer(
        definitions.group(EXTRA_SPEC, "Extra-spec validator files (hardware/extra-specs/)."),
        name="file",
    )
    app.add_typer(extra_specs, name="extra-specs")
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
        definitions.group(DEPLOY_TEMPLATE, "Deploy templates (hardware/deploy-templates/)."),
        name="deploy-template",
    )
    app.add_typer(trait_list.group(), name="trait")
    app.add_typer(_deploy_group(), name="deploy")
    app.add_typer(_provider_group(), name="provider")
    app.add_typer(_flavor_profile_group(), name="flavor-profile")
    app.add_typer(_service_flavor_group(), name="service-flavor")
    app.add_typer(_keystone_group(), name="keystone")
    app.command("completion")(completion.completion)
    return app


# typer carries its own copy of click and exports only BadParameter; the classes above it are
# the usage error and the base of every command-line error.
_USAGE_ERROR: type[Any] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
_CLICK_ERROR: type[Any] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


def main() -> None:
    """Entry point: never shows a traceback unless FLAVORSMITH_DEBUG is set; a usage error is
    one line on stderr and exit 2."""
    completion.prepare()
    try:
        command = completion.attach(typer.main.get_command(build()))
        status = command(prog_name="flavorsmith", standalone_mode=False)
    except _USAGE_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # a group called without a command: its help, as click prints it
        else:
            typer.echo(usage_line(exc), err=True)
        sys.exit(exc.exit_code)
    except _CLICK_ERROR as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("Aborted.", err=True)
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
    # Without standalone mode click returns a command's explicit exit code, or None.
    sys.exit(status if isinstance(status, int) and not isinstance(status, bool) else 0)


def usage_line(exc: Any) -> str:
    """``flavorsmith serve: error: Invalid value for '--repo': ... (see flavorsmith serve
    --help)``: one line, whatever the message holds."""
    command = exc.ctx.command_path if exc.ctx is not None else "flavorsmith"
    message = " ".join(exc.format_message().split())
    return f"{command}: error: {message} (see {command} --help)"
