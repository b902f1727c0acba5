"""``flavorsmith extra-specs``: the validator registry on the command line."""

from __future__ import annotations

import typer

from flavorsmith.cli.extra_specs import docs, list_, show, validate


def group() -> typer.Typer:
    app = typer.Typer(
        help=(
            "Flavor extra-spec validators: list, show, validate, docs, metadef; "
            "and the validator files of the catalog (extra-specs file ...)."
        ),
        no_args_is_help=True,
    )
    app.command("list")(list_.list_validators)
    app.command("show")(show.show)
    app.command("validate")(validate.validate)
    app.command("docs")(docs.docs)
    app.command("metadef")(docs.metadef)
    return app
