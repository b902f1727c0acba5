"""The one validation path: extra_specs.validation.validate, the mode a parameter; the base
registry built once per composition and completed by each catalog load without changing it;
the catalog reaching none of it but through what is passed in."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from flavorsmith.catalog.model import ExtraSpecSet
from flavorsmith.catalog.repo import Repository
from flavorsmith.catalog_rules import catalog_rules
from flavorsmith.extra_specs import factory
from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.registry import MODES, Mode, Registry
from flavorsmith.extra_specs.validation import refused, validate
from tests.conftest import EXAMPLES

SPECS = {
    "hw:cpu_policy": "dedicated",  # valid
    "hw:cpu_polcy": "dedicated",  # unknown key
    "my_filter:x": "1",  # unregistered
    "hide_hypervisor_id": "true",  # deprecated
    "hw:boot_menu": "maybe",  # invalid value
}
REFUSED: dict[Mode, set[str]] = {
    "strict": {"hw:cpu_polcy", "my_filter:x", "hw:boot_menu"},
    "nova": {"hw:cpu_polcy", "hw:boot_menu"},
    "permissive": {"hw:boot_menu"},
    "off": set(),
}


@pytest.fixture(scope="module")
def registry() -> Registry:
    return build()


@pytest.mark.parametrize("mode", MODES)
def test_the_mode_decides_what_is_refused(registry: Registry, mode: Mode) -> None:
    problems = validate(SPECS, registry, mode)
    assert {p.key for p in refused(problems)} == REFUSED[mode]
    # Every pair that is not plainly valid is reported, refused or not, in the given order.
    assert [p.key for p in problems] == [k for k in SPECS if k != "hw:cpu_policy"]
    assert validate(list(SPECS.items()), registry, mode) == problems


def test_a_deprecated_key_is_reported_but_allowed(registry: Registry) -> None:
    (problem,) = validate({"hide_hypervisor_id": "true"}, registry, "strict")
    assert not problem.refused and problem.deprecated


def test_completing_a_registry_leaves_the_base_unchanged() -> None:
    base = build()
    data = {
        "namespace": "lab",
        "validators": [{"name": "lab:x", "description": "x", "value": {"type": "bool"}}],
    }
    completed, refused_names = factory.completed(base, [ExtraSpecSet("lab", data)])
    assert refused_names == {}
    assert not refused(validate({"lab:x": "yes"}, completed, "strict"))
    assert refused(validate({"lab:x": "yes"}, base, "strict"))
    assert len(completed) == len(base) + 1


def test_plugins_are_looked_up_once_per_composition(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Registry] = []
    monkeypatch.setattr(factory, "load_plugins", lambda registry: calls.append(registry) or [])
    rules = catalog_rules(factory.base_registry())
    repository = Repository(EXAMPLES, rules)
    for _ in range(3):
        assert not [d for d in repository.load().diagnostics if d.severity == "error"]
    assert len(calls) == 1


def test_the_catalog_imports_no_rules_of_others() -> None:
    """extra_specs, ironic and deploy are passed in (catalog.injected), never imported."""
    catalog = Path(__file__).resolve().parents[2] / "src" / "flavorsmith" / "catalog"
    found = []
    for path in catalog.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                if name.split(".")[:2] in (
                    ["flavorsmith", "extra_specs"],
                    ["flavorsmith", "ironic"],
                    ["flavorsmith", "deploy"],
                ):
                    found.append(f"{path.name}: {name}")
    assert found == []
