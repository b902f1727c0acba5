"""The ``flavorsmith`` command line: one group per noun, one module per command."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import typer
import typer.core

from flavorsmith import __version__
from flavorsmith.cli import completion, output
from flavorsmith.cli.exit_codes import ExitCode


def _version(value: bool) -> None:
    if value:
        typer.echo(f"flavorsmith {__version__}")
        raise typer.Exit()


def _no_type(self: Any, ctx: Any) -> None:
    return None


def build(only: str | None = None, *, listing: bool = False) -> typer.Typer:
    """The root command group with every subcommand registered; with ``only``, just that
    one (the command line's first word: a command then loads only its own modules, e.g.
    ``extra-specs validate`` neither the database nor the OpenStack SDK); with ``listing``,
    none: the root's help lists them from their summaries, a command is loaded when named."""
    # Typer prints an argument's Python type after its name (``NODE <str>``); an argument's
    # name is its metavar (NODE, FILE, KEY), which already says what it takes.
    typer.core.TyperArgument.display_type_rich = _no_type  # type: ignore[method-assign]
    app = typer.Typer(
        help="Manage bare-metal flavors, traits and scheduling data from a catalog repository "
        "in Git.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        # Every subcommand's context inherits these, so -h works everywhere as in openstack.
        context_settings={"help_option_names": ["-h", "--help"]},
        cls=_Listing if listing else _Root,
    )

    @app.callback()
    def root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Print the version."
        ),
    ) -> None:
        """Manage bare-metal flavors, traits and scheduling data from a catalog repository
        in Git."""
        output.reset()

    for name, register in _COMMANDS.items():
        if not listing and (only is None or only == name):
            register(app, name)
    return app


def _first_sentence(command: Any) -> str:
    """A command's whole first sentence, which click's listing would cut to one line."""
    return str(command.get_short_help_str(limit=len(command.help or "") + 1))


class _Root(typer.core.TyperGroup):
    """The root group: its help lists each command with its whole first sentence, wrapped to
    the terminal (click cuts it to one line with "...")."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, _first_sentence(command)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


class _Listing(_Root):
    """A root group that loads no command module until a command is named: its help lists the
    commands from :data:`_SUMMARIES` (the root's ``--help``, ``--version``, a mistyped word)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _OnDemand()  # type: ignore[assignment]

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = [
            (name, _first_sentence(typer.core.TyperCommand(name, help=text)))
            for name, text in _SUMMARIES.items()
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


class _OnDemand(Mapping[str, Any]):
    """Every command of the root by name (for click, and typer's "Did you mean"), each loaded
    when it is looked up."""

    def __getitem__(self, name: str) -> Any:
        if name not in _COMMANDS:
            raise KeyError(name)
        return typer.main.get_command(build(name)).commands[name]  # type: ignore[attr-defined]

    def __iter__(self) -> Iterator[str]:
        return iter(_SUMMARIES)

    def __len__(self) -> int:
        return len(_SUMMARIES)


# Each command or group of the root, in the order help lists them, registered by a function
# that imports its module (so that a command line loads only the command it runs).
_Register = Callable[[typer.Typer, str], None]


def _command(module: str, function: str) -> _Register:
    def register(app: typer.Typer, name: str) -> None:
        app.command(name)(getattr(importlib.import_module(f"flavorsmith.cli.{module}"), function))

    return register


def _group(module: str, factory: str, *args: str) -> _Register:
    def register(app: typer.Typer, name: str) -> None:
        made = getattr(importlib.import_module(f"flavorsmith.cli.{module}"), factory)
        app.add_typer(made if isinstance(made, typer.Typer) else made(*args), name=name)

    return register


def _definitions(kind: str, help_text: str) -> _Register:
    def register(app: typer.Typer, name: str) -> None:
        from flavorsmith.catalog import kinds
        from flavorsmith.cli import definitions

        app.add_typer(definitions.group(getattr(kinds, kind), help_text), name=name)

    return register


def _extra_specs(app: typer.Typer, name: str) -> None:
    from flavorsmith.catalog.kinds import EXTRA_SPEC
    from flavorsmith.cli import definitions
    from flavorsmith.cli.extra_specs import group

    extra_specs = group()
    extra_specs.add_typer(
        definitions.group(
            EXTRA_SPEC,
            "Manage extra-spec validator files (hardware/extra-specs/).",
        ),
        name="file",
    )
    app.add_typer(extra_specs, name=name)


_COMMANDS: dict[str, _Register] = {
    "validate": _command("validate", "validate"),
    "schema": _command("schema", "schema"),
    "nova-flavors": _command("nova_flavors", "nova_flavors"),
    "serve": _command("serve", "serve"),
    "db": _group("db", "app"),
    "node": _group("node", "group"),
    "match": _command("matching.match", "match"),
    "capacity": _command("matching.capacity", "capacity"),
    "explain": _command("matching.explain", "explain"),
    "verify": _command("matching.verify", "verify"),
    "review": _command("review", "review"),
    "classify": _command("classify", "classify"),
    "extra-specs": _extra_specs,
    "sync": _group("sync", "group"),
    "flavor": _definitions("FLAVOR", "Manage flavor definitions (hardware/flavors/)."),
    "device-type": _definitions(
        "DEVICE_TYPE",
        "Manage device-type definitions (hardware/device-types/).",
    ),
    "trait-rule": _definitions(
        "TRAIT_RULE",
        "Manage trait rules for inspection data (hardware/trait-rules/).",
    ),
    "deploy-template": _definitions(
        "DEPLOY_TEMPLATE",
        "Manage deploy templates (hardware/deploy-templates/).",
    ),
    "runbook": _group("runbook", "group"),
    "load-balancer-flavor": _definitions(
        "LOAD_BALANCER_FLAVOR",
        "Manage load-balancer flavor profiles and their flavors (hardware/load-balancer-flavors/).",
    ),
    "network-flavor": _definitions(
        "NETWORK_FLAVOR",
        "Manage network flavors and their service profiles (hardware/network-flavors/).",
    ),
    "trait": _group("trait_list", "group"),
    "deploy": _group("deploy", "group"),
    "provider": _group("providers", "provider_group"),
    "flavor-profile": _group("providers", "profile_group"),
    "service-flavor": _group("providers", "flavor_group"),
    "keystone": _group("keystone", "group"),
    "completion": _command("completion", "completion"),
    "init": _command("init", "init"),
}


# The first sentence of each command's help, in the order the root's help lists them (commands,
# then groups); a test checks them against the commands' own help.
_SUMMARIES: dict[str, str] = {
    "validate": "Validate the whole catalog repository.",
    "schema": "Print the JSON Schema (draft 2020-12) for a kind of catalog file.",
    "nova-flavors": (
        "Print every flavor as Nova will see it: vcpus, ram, disk and scheduling extra specs."
    ),
    "serve": "Serve the Ironic, Nova, Octavia and Flavorsmith APIs.",
    "match": "Show which nodes each flavor can land on (and with --explain, why not).",
    "capacity": (
        "Count each flavor's capacity, and report findings: idle flavors and nodes, unused "
        "classes and traits, pool leaks."
    ),
    "explain": (
        "Explain why the flavor cannot land on the node (catalog, Ironic, Placement, flavor "
        "access), or count the flavor's nodes by reason."
    ),
    "verify": (
        "Report the drift between the catalog, Ironic, Placement and Nova's flavors, each "
        "finding with the command that fixes it."
    ),
    "review": ("Review what a catalog change does to what can be sold, flavor by flavor."),
    "classify": (
        "Classify inspection data: its device type, resource class and traits, with the "
        "reason for each."
    ),
    "completion": (
        'Print the completion script of a shell (see docs/reference/cli.md, "Shell completion").'
    ),
    "init": "Make a catalog repository to start from.",
    "db": "Show and apply the database's migrations.",
    "node": "Import and list nodes, and change their traits, in the service's database.",
    "extra-specs": (
        "Validate flavor extra specs, and list, show or document their validators (the "
        "catalog's own are in its validator files: extra-specs file ...)."
    ),
    "sync": "Plan and apply the catalog into a real service.",
    "flavor": "Manage flavor definitions (hardware/flavors/).",
    "device-type": "Manage device-type definitions (hardware/device-types/).",
    "trait-rule": "Manage trait rules for inspection data (hardware/trait-rules/).",
    "deploy-template": "Manage deploy templates (hardware/deploy-templates/).",
    "runbook": "Manage runbooks (hardware/runbooks/) and plan which of them a node may run.",
    "load-balancer-flavor": (
        "Manage load-balancer flavor profiles and their flavors (hardware/load-balancer-flavors/)."
    ),
    "network-flavor": (
        "Manage network flavors and their service profiles (hardware/network-flavors/)."
    ),
    "trait": "List the traits the catalog uses.",
    "deploy": "Plan a provisioning: its deploy steps and deploy templates.",
    "provider": (
        "List the flavor providers (the enabled drivers) and what flavor data each accepts."
    ),
    "flavor-profile": (
        "Manage flavor profiles (a provider and its flavor data) in the service's database."
    ),
    "service-flavor": (
        "Manage service flavors (a name over a flavor profile) in the service's database."
    ),
    "keystone": "Register Flavorsmith in a Keystone service catalog.",
}


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
    # The command line's first word, when it names a command (not an option, and not a
    # shell's completion request, which needs the whole tree): only that one is loaded.
    first = sys.argv[1] if len(sys.argv) > 1 else None
    completing = completion.COMPLETE_VAR in os.environ
    try:
        if completing or first in _COMMANDS:
            only = None if completing else first
            command = completion.attach(typer.main.get_command(build(only)))
        else:  # the root's help, --version or a mistyped word: no command module is loaded
            command = typer.main.get_command(build(listing=True))
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
        sys.exit(ExitCode.INTERRUPTED)
    except Exception as exc:
        if os.environ.get("FLAVORSMITH_DEBUG"):
            raise
        typer.echo(
            f"flavorsmith: internal error: {type(exc).__name__}: {exc} "
            "(set FLAVORSMITH_DEBUG=1 for details)",
            err=True,
        )
        sys.exit(ExitCode.FAILURE)
    # Without standalone mode click returns a command's explicit exit code, or None.
    sys.exit(status if isinstance(status, int) and not isinstance(status, bool) else ExitCode.OK)


def usage_line(exc: Any) -> str:
    """``flavorsmith serve: error: Invalid value for '--repo': ... (see flavorsmith serve
    --help)``: one line, whatever the message holds."""
    command = exc.ctx.command_path if exc.ctx is not None else "flavorsmith"
    message = " ".join(exc.format_message().split())
    return f"{command}: error: {message} (see {command} --help)"
