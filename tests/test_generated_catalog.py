"""The boot proof's generated catalog (tests/support/generated_catalog.py): for several seeds it
validates clean, it holds the three cases the proof needs, and a seed always gives the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke
from tests.support.boot_proof import DEDICATED_PROJECT, lab_of
from tests.support.generated_catalog import (
    DEDICATED,
    DEFAULT_SEED,
    POOL,
    PROJECTS,
    RULE_TRAITS,
    GeneratedCatalog,
    GenNode,
    generate,
    write_catalog,
)

SEEDS = [DEFAULT_SEED, 1, 2, 3, 5, 8, 13, 21]
NODES = [
    GenNode(n.name, n.resource_class, n.provision_state == "available" and not n.maintenance)
    for n in lab_of(EXAMPLES)
]


def _holders(generated: GeneratedCatalog, trait: str, resource_class: str) -> list[GenNode]:
    return [
        n
        for n in NODES
        if n.resource_class == resource_class and trait in generated.node_traits.get(n.name, ())
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_generated_catalog_validates_clean(seed: int, cli: Invoke, tmp_path: Path) -> None:
    generated = generate(NODES, seed)
    write_catalog(EXAMPLES, generated, tmp_path / "catalog")
    result = cli("validate", "--repo", str(tmp_path / "catalog"))
    assert result.stdout.endswith(" files: 0 errors, 0 warnings\n"), result.stdout
    assert result.exit_code == 0
    written = sorted(p.stem for p in (tmp_path / "catalog/hardware/flavors").glob("*.yaml"))
    assert written == sorted(f.name for f in generated.flavors)
    assert not (tmp_path / "catalog/hardware/deploy-templates").exists()


@pytest.mark.parametrize("seed", SEEDS)
def test_each_seed_has_the_three_cases_the_proof_needs(seed: int) -> None:
    generated = generate(NODES, seed)
    examples = {p.stem for p in (EXAMPLES / "hardware/flavors").glob("*.yaml")}
    names = [f.name for f in generated.flavors]
    assert len(set(names)) == len(names) >= 5
    assert all(name.startswith("gen.") for name in names) and not set(names) & examples
    several = generated.flavor(generated.several)
    (trait,) = several.required
    assert 2 <= sum(n.available for n in _holders(generated, trait, several.resource_class)) <= 3
    never = generated.flavor(generated.never)
    assert [_holders(generated, t, never.resource_class) for t in never.required] == [[]]
    private = generated.flavor(generated.private)
    assert private.projects == PROJECTS and private.required == (DEDICATED,)
    assert PROJECTS[0] == DEDICATED_PROJECT  # the project the proof boots a private flavor as
    pool = _holders(generated, DEDICATED, private.resource_class)
    assert sum(n.available for n in pool) == 2
    for flavor in generated.flavors:
        assert not set(flavor.required) & set(flavor.forbidden), flavor
        if flavor.is_public and flavor.resource_class == private.resource_class:
            assert DEDICATED in flavor.forbidden, f"{flavor.name} can reach the private pool"
    operator = {t for traits in generated.node_traits.values() for t in traits}
    assert operator <= {*POOL, DEDICATED}


def test_a_seed_gives_the_same_catalog_and_seeds_differ() -> None:
    assert generate(NODES, DEFAULT_SEED) == generate(NODES, DEFAULT_SEED)
    drawn = {generate(NODES, seed).flavors for seed in SEEDS}
    assert len(drawn) == len(SEEDS)


def test_the_forms_of_a_trait_vary_over_the_seeds() -> None:
    """Across the seeds: required and forbidden traits in the traits list and as extra specs,
    standard traits and those the trait rules set, and every resource class of the lab."""
    flavors = [f for seed in SEEDS for f in generate(NODES, seed).flavors]
    documents = [f.document() for f in flavors]
    states = {t["state"] for d in documents for t in d.get("traits", [])}
    specs = {v for d in documents for v in d.get("extra_specs", {}).values()}
    assert states == {"required", "absent"} and specs == {"required", "forbidden"}
    named = {t for f in flavors for t in (*f.required, *f.forbidden)}
    assert any(t.startswith("HW_") for t in named)
    by_rules = {t for traits in RULE_TRAITS.values() for t in traits if t.startswith("CUSTOM_")}
    assert len(by_rules & named) >= 2
    assert {f.resource_class for f in flavors} == {n.resource_class for n in NODES if n.available}


def test_a_lab_too_small_is_refused_with_the_reason() -> None:
    small = [GenNode(f"n{i}", "m1.small", True) for i in range(3)]
    with pytest.raises(ValueError, match="no resource class has 4 available nodes"):
        generate(small)
