"""``flavorsmith extra-specs``: the validator registry on the command line."""

from __future__ import annotations

import typer

from flavorsmith.cli.extra_specs import docs, list_, show, validate
from flavorsmith.cli.groups import command_group


def group() -> typer.Typer:
    return command_group(
        "Validate flavor extra specs, and list, show or document their validators (the "
        "catalog's own are in its validator files: extra-specs file ...).",
        {
            "list": list_.list_validators,
            "show": show.show,
            "validate": validate.validate,
            "docs": docs.docs,
            "metadef": docs.metadef,
        },
    )
