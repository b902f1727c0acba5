"""The rules a catalog is loaded with, composed from the packages that own them: the
extra-spec registry (completed by the catalog's own validator files) and Ironic's
deploy-template and runbook rules with the driver step catalogues. The catalog itself imports
neither; the application hands it these (the CLI and the API's app factory call
:func:`catalog_rules`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from flavorsmith.catalog.given_rules import CatalogRules
from flavorsmith.catalog.model import ExtraSpecSet
from flavorsmith.extra_specs.declarative import problems
from flavorsmith.extra_specs.factory import CatalogExtraSpecs, completed
from flavorsmith.extra_specs.registry import Registry
from flavorsmith.ironic import deploy_templates, runbooks
from flavorsmith.ironic.driver_steps import CATALOGUES, DriverStep


def catalog_rules(
    base: Registry, catalogues: Mapping[str, Sequence[DriverStep]] = CATALOGUES
) -> CatalogRules:
    """The rules a catalog is loaded with: ``base`` completed by its definition files, and
    Ironic's deploy-template rules with the driver step ``catalogues``."""

    def extra_specs(sets: Sequence[ExtraSpecSet]) -> CatalogExtraSpecs:
        return CatalogExtraSpecs(*completed(base, sets))

    return CatalogRules(
        extra_spec_definitions=lambda data: problems(dict(data)),
        extra_specs=extra_specs,
        deploy_template=lambda data: deploy_templates.problems(data, catalogues),
        runbook=runbooks.problems,
    )
