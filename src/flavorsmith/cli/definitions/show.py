"""``<kind> show NAME``: one definition in full; a flavor also shows its derived Nova flavor."""

# Annotations stay evaluated when a command is made (no ``from __future__ import
# annotations``): NAME's help is the kind's, which only register's scope holds.

from typing import Annotated

import typer

from flavorsmith.catalog.kinds import Kind
from flavorsmith.catalog.model import (
    DeployTemplateDef,
    DeviceType,
    ExtraSpecSet,
    Flavor,
    LoadBalancerProfileDef,
    NetworkFlavorDef,
    RunbookDef,
    TraitRuleSet,
)
from flavorsmith.cli.definitions.examples import example, name_help, sample
from flavorsmith.cli.definitions.rows import (
    deploy_template_record,
    device_type_record,
    extra_spec_record,
    flavor_record,
    load_balancer_flavor_record,
    network_flavor_record,
    runbook_record,
    show_table,
    trait_rule_record,
)
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.cli.help_example import with_example
from flavorsmith.cli.options import (
    ColumnOption,
    FormatOption,
    RepoOption,
    repository,
    table_options,
)
from flavorsmith.cli.output import Format, print_show
from flavorsmith.cli.report import emit


def register(app: typer.Typer, kind: Kind) -> None:
    @app.command("show")
    @table_options(prefix=True)
    def show(
        name: Annotated[str, typer.Argument(metavar="NAME", help=name_help(kind))],
        repo: RepoOption = None,
        fmt: FormatOption = Format.TABLE,
        column: ColumnOption = None,
    ) -> None:
        """Show one definition."""
        found = repository(repo)
        loaded = found.find(kind, name)
        if loaded is None:
            typer.echo(f"error: no {kind.name} named {name!r}", err=True)
            raise typer.Exit(ExitCode.FAILURE)
        if loaded.model is None:
            emit(loaded.diagnostics, err=True)
            raise typer.Exit(ExitCode.FAILURE)
        catalog = found.load().catalog
        if isinstance(loaded.model, Flavor):
            record = flavor_record(loaded.model, catalog)
        elif isinstance(loaded.model, TraitRuleSet):
            record = trait_rule_record(loaded.model)
        elif isinstance(loaded.model, ExtraSpecSet):
            record = extra_spec_record(loaded.model)
        elif isinstance(loaded.model, DeployTemplateDef):
            record = deploy_template_record(loaded.model, catalog)
        elif isinstance(loaded.model, RunbookDef):
            record = runbook_record(loaded.model)
        elif isinstance(loaded.model, LoadBalancerProfileDef):
            record = load_balancer_flavor_record(loaded.model, catalog)
        elif isinstance(loaded.model, NetworkFlavorDef):
            record = network_flavor_record(loaded.model)
        else:
            assert isinstance(loaded.model, DeviceType)
            record = device_type_record(loaded.model, list(catalog.flavors))
        if fmt in (Format.TABLE, Format.SHELL):
            record = show_table(record)
        print_show(record, fmt, column)

    show.__doc__ = with_example("Show one definition.", example(kind, "show", sample(kind)))
