"""Statuses, modes, messages, extensions, plugins and catalog definitions."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.declarative import definitions, problems
from flavorsmith.extra_specs.plugins import load_plugins
from flavorsmith.extra_specs.registry import MODES, Registry, parse_mode
from flavorsmith.extra_specs.safety import pattern_problem


@pytest.fixture(scope="module")
def registry() -> Registry:
    return build()


@pytest.mark.parametrize(
    ("key", "value", "status", "modes"),
    [
        ("hw:cpu_policy", "dedicated", "valid", {"nova", "strict", "permissive", "off"}),
        ("hw:cpu_policy", "pinned", "invalid-value", {"off"}),
        ("hw:cpu_polcy", "dedicated", "unknown-key", {"permissive", "off"}),
        ("my_filter:x", "1", "unregistered", {"nova", "permissive", "off"}),
        ("no_namespace", "1", "unregistered", {"nova", "permissive", "off"}),
        ("capabilities:boot_mode", "uefi", "valid", {"strict", "permissive", "off"}),
        ("flavorsmith:managed", "true", "valid", {"nova", "strict", "permissive", "off"}),
        ("flavorsmith:managed", "yes", "invalid-value", {"nova", "off"}),
        ("trait.x:CUSTOM_A", "required", "unknown-key", {"permissive", "off"}),
    ],
)
def test_status_and_modes(
    registry: Registry, key: str, value: str, status: str, modes: set[str]
) -> None:
    verdict = registry.verdict(key, value)
    assert verdict.status == status
    assert {m for m in MODES if verdict.allowed(m)} == modes


def test_messages_name_key_value_and_rule(registry: Registry) -> None:
    assert registry.verdict("hw:cpu_policy", "pinned").message == (
        "hw:cpu_policy: 'pinned' is not one of 'dedicated', 'shared', 'mixed'"
    )
    assert (
        registry.verdict("hw:numa_nodes", "0").message
        == "hw:numa_nodes: 0 is less than the minimum 1"
    )
    assert registry.verdict("hw:boot_menu", "maybe").message.startswith(
        "hw:boot_menu: 'maybe' is not a boolean"
    )
    assert registry.verdict("trait:HW_CPU_X86_AVX22", "required").message == (
        "trait:HW_CPU_X86_AVX22 is not a known key of namespace trait{group} "
        "(did you mean 'trait:HW_CPU_X86_AVX2'?)"
    )
    assert "Nova >= 2.86 refuses it" in registry.verdict("capabilities:secure_boot", "true").message
    deprecated = registry.verdict("hide_hypervisor_id", "true")
    assert deprecated.deprecated == "hw:hide_hypervisor_id"
    assert deprecated.message == "valid, but deprecated: use hw:hide_hypervisor_id"


def test_nova_value_quirks_are_kept(registry: Registry) -> None:
    # Nova converts with int(): whitespace, '+', underscores and other scripts' digits pass.
    for value in (" 7 ", "+3", "1_000", "\u0663"):
        assert registry.verdict("hw:numa_nodes", value).status == "valid"
    # oslo's strict booleans, after strip and lower.
    assert registry.verdict("hw:boot_menu", " YES ").status == "valid"
    # Enums are exact.
    assert registry.verdict("hw:cpu_policy", "Dedicated").status == "invalid-value"


@pytest.mark.parametrize(
    "pattern",
    [
        r"\^?\d+(?:-\d+|,\^?\d+)*",
        r"[a-zA-Z0-9_]+(?:,[a-zA-Z0-9_]+)*,?",
        r"(large|small|any|\d+([kKMGT]i?)?(b|bit|B)?)",
        # Nested repetitions backtrack in Python's re, not in RE2: accepted.
        r"([a-z]+,?)+",
        r"(a*)*",
        r"(\d+-)*\d+",
    ],
)
def test_operator_patterns_in_re2_syntax_are_accepted(pattern: str) -> None:
    assert pattern_problem(pattern) is None


REQUIRED = "RE2 syntax is required (patterns run in linear time: no backreferences, no lookaround)"


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        (r"(\w)\1", f'is not RE2 syntax (RE2 says "invalid escape sequence: \\1"); {REQUIRED}'),
        ("(?=a)b", f'is not RE2 syntax (RE2 says "invalid perl operator: (?="); {REQUIRED}'),
        ("(", f'is not RE2 syntax (RE2 says "missing ): ("); {REQUIRED}'),
    ],
)
def test_operator_patterns_outside_re2_are_refused(pattern: str, problem: str) -> None:
    assert pattern_problem(pattern) == problem


def test_declared_patterns_run_in_linear_time() -> None:
    """A declared pattern that backtracks exponentially in Python's re ((x+,?)+ on a long
    mismatch would take ages there) answers at once: RE2 runs it."""
    data = {
        "namespace": "site",
        "validators": [
            {
                "name": "site:racks.{row}",
                "description": "Racks.",
                "parameters": [{"name": "row", "pattern": "([a-z]+_?)+"}],
                "value": {"type": "pattern", "pattern": "([a-z]+,?)+"},
            }
        ],
    }
    assert problems(data) == []
    registry = build()
    namespace, validators = definitions(data, "site.yaml")
    registry.add_namespace(namespace)
    assert all(registry.add(v) for v in validators)
    assert registry.verdict("site:racks.east_west", "a,b,c").status == "valid"
    slow_in_re = "a" * 50_000 + "!"
    verdict = registry.verdict("site:racks.east", slow_in_re)
    assert verdict.status == "invalid-value"
    assert verdict.message == f"site:racks.east: {slow_in_re!r} does not match ([a-z]+,?)+"
    assert registry.verdict(f"site:racks.{slow_in_re}", "a").status == "unknown-key"


def test_declared_pattern_outside_re2_names_field_and_pattern() -> None:
    data = {
        "namespace": "site",
        "validators": [
            {
                "name": "site:racks.{row}",
                "description": "Racks.",
                "parameters": [{"name": "row", "pattern": "(?<=r)\\d"}],
                "value": {"type": "pattern", "pattern": "([a-z]+),\\1"},
            }
        ],
    }
    assert problems(data) == [
        (
            ["validators", 0, "parameters", 0, "pattern"],
            f"the pattern '(?<=r)\\\\d' is not RE2 syntax (RE2 says \"invalid perl operator: (?<=\"); {REQUIRED}",
        ),
        (
            ["validators", 0, "value", "pattern"],
            f"the pattern '([a-z]+),\\\\1' is not RE2 syntax (RE2 says \"invalid escape sequence: \\1\"); {REQUIRED}",
        ),
    ]


@pytest.fixture
def plugin_path(tmp_path: Path) -> Iterator[Path]:
    """A tiny installed package declaring validators through the entry point group."""
    (tmp_path / "site_filters.py").write_text(
        "from flavorsmith.extra_specs.model import Validator\n"
        "from flavorsmith.extra_specs.registry import Namespace\n"
        "from flavorsmith.extra_specs.value_rules import BOOL, ENUM\n"
        "def validators():\n"
        "    return [\n"
        "        Namespace('site', 'site', 'Site filters'),\n"
        "        Validator('site:fast_lane', 'Use the fast lane.', BOOL()),\n"
        "        Validator('hw:cpu_policy', 'A plugin trying to override Nova.', ENUM('anything')),\n"
        "    ]\n"
        "def broken():\n"
        "    raise RuntimeError('boom')\n"
    )
    info = tmp_path / "site_filters-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: site-filters\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[flavorsmith.extra_spec_validators]\nsite = site_filters:validators\nbroken = site_filters:broken\n"
    )
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("site_filters", None)


def test_plugins_add_validators_but_never_replace_builtins(plugin_path: Path) -> None:
    registry = build()
    assert load_plugins(registry) == ["site"]
    assert registry.verdict("site:fast_lane", "yes").status == "valid"
    assert registry.verdict("site:fast_lane", "sometimes").status == "invalid-value"
    assert registry.verdict("site:slow_lane", "yes").status == "unknown-key"
    assert registry.verdict("hw:cpu_policy", "anything").status == "invalid-value"
    assert registry.clashes == [
        "plugin broken: failed to load: RuntimeError: boom",
        "plugin site: hw:cpu_policy is already defined; keeping the first",
    ]


def test_mode_words() -> None:
    assert [parse_mode(w) for w in ("nova", "strict", "permissive", "off")] == list(MODES)
    assert parse_mode("disabled") == "off"  # the design's word for off
    assert parse_mode("Off") is None and parse_mode("") is None
