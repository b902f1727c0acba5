"""``flavorsmith extra-specs``: the validator registry on the command line."""

from __future__ import annotations

import typer

from flavorsmith.cli.extra_specs import docs, list_, show, validate
from flavorsmith.cli.groups import command_group


def group() -> typer.Typer:
    return command_group(
        "Flavor extra-spec validators: list, show, validate, docs, metadef; "
        "and the validator files of the catalog (extra-specs file ...).",
        {
            "list": list_.list_validators,
            "show": show.show,
            "validate": validate.validate,
            "docs": docs.docs,
            "metadef": docs.metadef,
        },
    )
